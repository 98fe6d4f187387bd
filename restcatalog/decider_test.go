package restcatalog

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
)

// proposal is base (snapshots 1, 2) with snapshot 3 appended by "us".
func proposal(t *testing.T) (commit.Version, commit.Attempt, commit.IsOurs) {
	base := testMetadata(t, 1, 2)
	next := testMetadata(t, 1, 2, 3)
	isOurs := func(v commit.Version) bool { return bytes.Contains(v.Raw, []byte(`"commit-3"`)) }
	return commit.Version{N: 2, Raw: raw(t, base), Location: "s3://b/wh/ns/t/metadata/00002-x.metadata.json"},
		commit.Attempt{Metadata: raw(t, next)}, isOurs
}

const tablePath = "/v1/wh1/namespaces/ns/tables/t"

func TestDeciderOutcomes(t *testing.T) {
	ours := func(t *testing.T) string { return loadBody(t, testMetadata(t, 1, 2, 3), 3) }
	theirs := func(t *testing.T) string { return loadBody(t, testMetadata(t, 1, 2, 4), 3) }
	unchanged := func(t *testing.T) string { return loadBody(t, testMetadata(t, 1, 2), 2) }
	lost := errors.New("connection reset by peer")
	for _, tc := range []struct {
		name         string
		commits      func(t *testing.T) []reply
		loads        func(t *testing.T) []reply
		budget       int
		wantWon      bool
		wantNewer    int64 // main of the version returned on a loss
		wantCode     string
		wantUnknown  bool
		wantCommits  int
		wantLoads    int
		wantSlept    []time.Duration
		wantAttempts int
	}{
		{name: "200", commits: func(t *testing.T) []reply { return []reply{{status: 200, body: ours(t)}} },
			budget: 5, wantWon: true, wantCommits: 1, wantAttempts: 1},
		{name: "409 then reload shows another writer", commits: func(t *testing.T) []reply {
			return []reply{{status: 409, body: `{"error":{"message":"Requirement failed: branch main has changed","type":"CommitFailedException","code":409}}`}}
		}, loads: func(t *testing.T) []reply { return []reply{{status: 200, body: theirs(t)}} },
			budget: 5, wantNewer: 4, wantCommits: 1, wantLoads: 1, wantAttempts: 1},
		{name: "500 after the commit was applied is recognised by commit id", commits: func(t *testing.T) []reply {
			return []reply{{status: 500, body: `{"error":{"message":"boom","type":"RuntimeException","code":500}}`}}
		}, loads: func(t *testing.T) []reply { return []reply{{status: 200, body: ours(t)}} },
			budget: 5, wantWon: true, wantCommits: 1, wantLoads: 1, wantAttempts: 1},
		{name: "lost response, not applied: sent again", commits: func(t *testing.T) []reply {
			return []reply{{err: lost}, {status: 200, body: ours(t)}}
		}, loads: func(t *testing.T) []reply { return []reply{{status: 200, body: unchanged(t)}} },
			budget: 5, wantWon: true, wantCommits: 2, wantLoads: 1, wantSlept: []time.Duration{100 * time.Millisecond}, wantAttempts: 2},
		{name: "503 and main moved: rebuild on it", commits: func(t *testing.T) []reply { return []reply{{status: 503}} },
			loads:  func(t *testing.T) []reply { return []reply{{status: 200, body: theirs(t)}} },
			budget: 5, wantNewer: 4, wantCommits: 1, wantLoads: 1, wantAttempts: 1},
		{name: "429 waits Retry-After", commits: func(t *testing.T) []reply {
			return []reply{{status: 429, header: map[string]string{"Retry-After": "3"}}, {status: 200, body: ours(t)}}
		}, budget: 5, wantWon: true, wantCommits: 2, wantSlept: []time.Duration{3 * time.Second}, wantAttempts: 2},
		{name: "429 without Retry-After backs off", commits: func(t *testing.T) []reply {
			return []reply{{status: 429}, {status: 429}, {status: 200, body: ours(t)}}
		}, budget: 5, wantWon: true, wantCommits: 3, wantSlept: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, wantAttempts: 3},
		{name: "429 storm exhausts the budget", commits: func(t *testing.T) []reply {
			return []reply{{status: 429, header: map[string]string{"Retry-After": "1"}}}
		}, budget: 3, wantCode: "CATALOG_RATE_LIMITED", wantCommits: 3, wantSlept: []time.Duration{time.Second, time.Second}, wantAttempts: 3},
		{name: "401 is refused, not unknown", commits: func(t *testing.T) []reply {
			return []reply{{status: 401, body: `{"error":{"message":"Not authorized","type":"NotAuthorizedException","code":401}}`}}
		}, budget: 5, wantCode: "CATALOG_AUTH", wantCommits: 1, wantAttempts: 1},
		{name: "400 is refused", commits: func(t *testing.T) []reply {
			return []reply{{status: 400, body: `{"error":{"message":"Cannot add snapshot","type":"BadRequestException","code":400}}`}}
		}, budget: 5, wantCode: "CATALOG_ERROR", wantCommits: 1, wantAttempts: 1},
		{name: "catalog down: reported after a few resends, not the whole budget", commits: func(t *testing.T) []reply { return []reply{{err: lost}} },
			loads:  func(t *testing.T) []reply { return []reply{{err: lost}} },
			budget: 10, wantUnknown: true, wantCommits: 1 + MaxUnknownResends, wantLoads: 1 + MaxUnknownResends,
			wantSlept: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}, wantAttempts: 1 + MaxUnknownResends},
		{name: "catalog down: the outcome stays unknown", commits: func(t *testing.T) []reply { return []reply{{err: lost}} },
			loads:  func(t *testing.T) []reply { return []reply{{err: lost}} },
			budget: 2, wantUnknown: true, wantCommits: 2, wantLoads: 2,
			wantSlept: []time.Duration{100 * time.Millisecond}, wantAttempts: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := (&script{}).on("GET /v1/config", reply{status: 200, body: configOK}).on("POST "+tablePath, tc.commits(t)...)
			if tc.loads != nil {
				s.on("GET "+tablePath, tc.loads(t)...)
			}
			c, slept := newClient(t, s, Config{Warehouse: "wh"})
			d := &Decider{Client: c, Table: MustIdent("ns.t")}
			base, att, isOurs := proposal(t)
			var res commit.Result
			won, v, err := d.Propose(context.Background(), base, att, isOurs, tc.budget, &res)
			switch {
			case tc.wantUnknown:
				if !errors.Is(err, commit.ErrUnknownOutcome) {
					t.Fatalf("err = %v, want an unknown outcome", err)
				}
			case tc.wantCode != "":
				if got := errCode(err); got != tc.wantCode || errors.Is(err, commit.ErrUnknownOutcome) {
					t.Fatalf("err = %v (code %q), want code %s and a known outcome", err, got, tc.wantCode)
				}
			case err != nil:
				t.Fatalf("err = %v", err)
			default:
				if won != tc.wantWon {
					t.Fatalf("won = %v, want %v", won, tc.wantWon)
				}
				if !won {
					md := mustParse(t, v.Raw)
					if got := md.Refs["main"].SnapshotID; got != tc.wantNewer {
						t.Fatalf("newer version's main = %d, want %d", got, tc.wantNewer)
					}
				}
				if v.Location == "" {
					t.Fatalf("version without a location: %+v", v)
				}
			}
			if got := s.count("POST", tablePath); got != tc.wantCommits {
				t.Errorf("commit requests = %d, want %d", got, tc.wantCommits)
			}
			if got := s.count("GET", tablePath); got != tc.wantLoads {
				t.Errorf("loads = %d, want %d", got, tc.wantLoads)
			}
			if res.Attempts != tc.wantAttempts {
				t.Errorf("attempts = %d, want %d", res.Attempts, tc.wantAttempts)
			}
			if strings.Join(durations(*slept), ",") != strings.Join(durations(tc.wantSlept), ",") {
				t.Errorf("slept %v, want %v", *slept, tc.wantSlept)
			}
		})
	}
}

func durations(ds []time.Duration) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return out
}

// TestDeciderRequest checks the one commit request an append sends.
func TestDeciderRequest(t *testing.T) {
	s := (&script{}).on("GET /v1/config", reply{status: 200, body: configOK}).
		on("POST "+tablePath, reply{status: 200, body: loadBody(t, testMetadata(t, 1, 2, 3), 3)})
	c, _ := newClient(t, s, Config{Token: "tok-123"})
	base, att, isOurs := proposal(t)
	var res commit.Result
	if _, _, err := (&Decider{Client: c, Table: MustIdent("ns.t")}).Propose(context.Background(), base, att, isOurs, 3, &res); err != nil {
		t.Fatal(err)
	}
	req := s.sent[len(s.sent)-1]
	if got := req.Header["Authorization"]; got != "Bearer tok-123" {
		t.Errorf("Authorization = %q", got)
	}
	body := string(req.Body)
	for _, want := range []string{
		`"identifier":{"namespace":["ns"],"name":"t"}`,
		`{"type":"assert-table-uuid","uuid":"9b6f3b0e-1d2c-4a5b-8c7d-000000000001"}`,
		`{"ref":"main","snapshot-id":2,"type":"assert-ref-snapshot-id"}`,
		`"action":"add-snapshot"`, `"snapshot-id":3`,
		`{"action":"set-snapshot-ref","ref-name":"main","snapshot-id":3,"type":"branch"}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("commit body lacks %s:\n%s", want, body)
		}
	}
}
