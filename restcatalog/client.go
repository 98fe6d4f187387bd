package restcatalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/timelake/timelake/redact"
)

// Config says how to reach a catalog. Exactly one of Token and Credential
// authenticates (neither: no Authorization header, for a catalog without auth).
type Config struct {
	URI        string // the catalog's base URI; requests go to URI/v1/…
	Warehouse  string // the warehouse parameter of GET /v1/config (R2 Data Catalog: ACCOUNT_BUCKET)
	Token      string // a bearer token
	Credential string // CLIENT_ID:SECRET for the OAuth2 client-credentials flow
	Scope      string // the OAuth2 scope; default "catalog"
	// OAuthURI is the token endpoint; default URI/v1/oauth/tokens.
	OAuthURI  string
	Transport Transport
	// Now and Sleep are the caller's clock (token expiry, Retry-After dates)
	// and wait (429, backoff). Nil Now never refreshes a token early; nil
	// Sleep retries at once.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Secrets, when set, is where the client adds every secret it holds or
	// is given (the token, the client secret, the tokens it fetches, the
	// storage credentials the catalog vends), so that a driver can scrub its
	// own output of them too. Nil: the client keeps its own.
	Secrets *redact.Set
}

// Client talks to one catalog. It is safe for concurrent use.
type Client struct {
	cfg  Config
	base string // URI without a trailing slash

	mu         sync.Mutex
	configured bool
	prefix     string
	defaults   map[string]string
	token      string
	expires    time.Time // zero: no known expiry
	secrets    *redact.Set
}

// New checks cfg and returns a client; nothing is sent until the first call.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.URI)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: catalog URI %q: want http(s)://host[:port][/path]", ErrRejected, redactURI(cfg.URI))
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: catalog URI %s: credentials go in the token or credential, not the URI", ErrRejected, redactURI(cfg.URI))
	}
	if cfg.Token != "" && cfg.Credential != "" {
		return nil, fmt.Errorf("%w: give a token or a credential, not both", ErrRejected)
	}
	if cfg.Credential != "" {
		if id, secret, ok := strings.Cut(cfg.Credential, ":"); !ok || id == "" || secret == "" {
			return nil, fmt.Errorf("%w: the credential must be CLIENT_ID:SECRET", ErrRejected)
		}
	}
	if cfg.Transport == nil {
		return nil, fmt.Errorf("%w: no transport", ErrRejected)
	}
	if cfg.Scope == "" {
		cfg.Scope = "catalog"
	}
	sec := cfg.Secrets
	if sec == nil {
		sec = &redact.Set{}
	}
	sec.Add(cfg.Token)
	if cfg.Credential != "" {
		sec.AddCredential(cfg.Credential)
	}
	return &Client{cfg: cfg, base: strings.TrimRight(cfg.URI, "/"), token: cfg.Token, secrets: sec}, nil
}

// URI is the catalog's URI (never holding credentials).
func (c *Client) URI() string { return c.base }

// redactURI drops user info from a URI for messages.
func redactURI(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = nil
		return u.String()
	}
	return s
}

// configResponse is GET /v1/config's CatalogConfig.
type configResponse struct {
	Defaults  map[string]string `json:"defaults"`
	Overrides map[string]string `json:"overrides"`
	Endpoints []string          `json:"endpoints"`
}

// configure fetches /v1/config once: the prefix comes from the overrides
// (R2 Data Catalog returns one), else the defaults.
func (c *Client) configure(ctx context.Context) error {
	c.mu.Lock()
	done := c.configured
	c.mu.Unlock()
	if done {
		return nil
	}
	q := ""
	if c.cfg.Warehouse != "" {
		q = "?warehouse=" + url.QueryEscape(c.cfg.Warehouse)
	}
	var cr configResponse
	if err := c.call(ctx, "GET", c.base+"/v1/config"+q, nil, &cr, "get config", ErrRejected, nil); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.defaults = map[string]string{}
	for k, v := range cr.Defaults {
		c.defaults[k] = v
	}
	for k, v := range cr.Overrides {
		c.defaults[k] = v
	}
	c.prefix = strings.Trim(c.defaults["prefix"], "/")
	c.configured = true
	return nil
}

// path is the URL of a resource under /v1/{prefix}/.
func (c *Client) path(segments ...string) string {
	var b strings.Builder
	b.WriteString(c.base)
	b.WriteString("/v1/")
	if c.prefix != "" {
		for i, p := range strings.Split(c.prefix, "/") {
			if i > 0 {
				b.WriteByte('/')
			}
			b.WriteString(url.PathEscape(p))
		}
		b.WriteByte('/')
	}
	b.WriteString(strings.Join(segments, "/"))
	return b.String()
}

// call sends one request with auth (and the extra headers hdr) and decodes
// a 2xx JSON body into out. notFound is the kind of a 404 whose type does
// not say. Errors are scrubbed of the client's secrets.
func (c *Client) call(ctx context.Context, method, u string, body any, out any, op string, notFound error, hdr map[string]string) error {
	resp, err := c.send(ctx, method, u, body, hdr, op)
	if err != nil {
		return err
	}
	if resp.Status < 200 || resp.Status > 299 {
		return c.responseError(op, resp, notFound)
	}
	if out != nil && len(bytes.TrimSpace(resp.Body)) > 0 {
		if err := json.Unmarshal(resp.Body, out); err != nil {
			return &Error{Op: op, Status: resp.Status, Message: c.scrub(fmt.Sprintf("response body: %v", err)), kind: ErrBadResponse}
		}
	}
	return nil
}

// send makes one exchange with the Authorization header. With a credential,
// a missing or expired token is fetched first, and a 401 fetches a new
// one and tries once more.
func (c *Client) send(ctx context.Context, method, u string, body any, hdr map[string]string, op string) (*Response, error) {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("catalog: %s: encode request: %w", op, err)
		}
	}
	for try := 0; ; try++ {
		tok, err := c.bearer(ctx, try > 0)
		if err != nil {
			return nil, err
		}
		req := &Request{Method: method, URL: u, Header: map[string]string{"Accept": "application/json"}, Body: raw}
		if raw != nil {
			req.Header["Content-Type"] = "application/json"
		}
		for k, v := range hdr {
			req.Header[k] = v
		}
		if tok != "" {
			req.Header["Authorization"] = "Bearer " + tok
		}
		resp, err := c.cfg.Transport.Do(ctx, req)
		if err != nil {
			return nil, &Error{Op: op, Message: c.scrub(err.Error()), kind: ErrUnavailable, cause: ctxCause(ctx, err)}
		}
		if resp.Status == 401 && c.cfg.Credential != "" && try == 0 {
			continue // the token may have expired early: fetch a new one
		}
		return resp, nil
	}
}

// responseError is the package's responseError with this client's secrets
// scrubbed from the message: a catalog may echo the token or the
// credential it refused.
func (c *Client) responseError(op string, resp *Response, notFound error) *Error {
	e := responseError(op, resp, notFound, c.cfg.Now)
	e.Type, e.Message = c.scrub(e.Type), c.scrub(e.Message)
	return e
}

// ctxCause keeps a context's error visible to errors.Is.
func ctxCause(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// scrub removes the secrets this client holds from a message, in every
// form a catalog may echo them (package redact).
func (c *Client) scrub(s string) string { return c.secrets.Scrub(s) }

// Scrub removes from s every secret the client holds or was given.
func (c *Client) Scrub(s string) string { return c.scrub(s) }

// bearer returns the token to send; with a credential it fetches one when
// there is none, it is about to expire, or renew is set.
func (c *Client) bearer(ctx context.Context, renew bool) (string, error) {
	if c.cfg.Credential == "" {
		return c.cfg.Token, nil
	}
	c.mu.Lock()
	tok, exp := c.token, c.expires
	c.mu.Unlock()
	fresh := tok != "" && !renew && (exp.IsZero() || c.cfg.Now == nil || c.cfg.Now().Add(time.Minute).Before(exp))
	if fresh {
		return tok, nil
	}
	return c.fetchToken(ctx)
}

// tokenResponse is the OAuth2 token endpoint's answer.
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int64  `json:"expires_in"`
}

// fetchToken runs the client-credentials flow.
func (c *Client) fetchToken(ctx context.Context) (string, error) {
	id, secret, _ := strings.Cut(c.cfg.Credential, ":")
	endpoint := c.cfg.OAuthURI
	if endpoint == "" {
		endpoint = c.base + "/v1/oauth/tokens"
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "scope": {c.cfg.Scope}}
	const op = "get a token (OAuth2 client credentials)"
	resp, err := c.cfg.Transport.Do(ctx, &Request{
		Method: "POST", URL: endpoint,
		Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
		Body:   []byte(form.Encode()),
	})
	if err != nil {
		return "", &Error{Op: op, Message: c.scrub(err.Error()), kind: ErrUnavailable, cause: ctxCause(ctx, err)}
	}
	if resp.Status < 200 || resp.Status > 299 {
		e := responseError(op, resp, ErrRejected, c.cfg.Now)
		if resp.Status == 400 || resp.Status == 401 || resp.Status == 403 {
			e.kind = ErrNotAuthorized // invalid_client, unauthorized_client
		}
		e.Type, e.Message = c.scrub(e.Type), c.scrub(e.Message)
		return "", e
	}
	var tr tokenResponse
	if err := json.Unmarshal(resp.Body, &tr); err != nil || tr.AccessToken == "" {
		return "", &Error{Op: op, Status: resp.Status, Message: "no access_token in the response", kind: ErrBadResponse}
	}
	c.secrets.Add(tr.AccessToken)
	c.mu.Lock()
	c.token = tr.AccessToken
	c.expires = time.Time{}
	if tr.ExpiresIn > 0 && c.cfg.Now != nil {
		c.expires = c.cfg.Now().Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	c.mu.Unlock()
	return tr.AccessToken, nil
}

// isKind reports whether err is a catalog error of kind.
func isKind(err, kind error) bool { return errors.Is(err, kind) }
