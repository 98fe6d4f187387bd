// Package location compares the locations written into Iceberg metadata as
// places, not as strings.
//
// Writers spell one place several ways. Iceberg's Java file layer (Spark,
// Trino, Flink through Hadoop's Path) writes a local file as `file:/p`, with
// one slash, or as a bare `/p` when its warehouse was a plain path; Timelake, pyiceberg and iceberg-go write `file:///p`; some tools
// write `file://localhost/p`. Hadoop's S3 connectors use `s3a://` (and the
// retired `s3n://`) where others write `s3://`. A table one engine created
// and another appended to mixes these forms, and a reader that compares
// strings refuses its own table's files as "outside the table".
//
// Parse reduces a location to a canonical Place: the scheme family (`file`
// or `s3`; `s3a` and `s3n` are `s3`), the authority (a bucket, or empty for
// a local file) and the path with redundant slashes and `.` segments
// removed. Within then tells whether a path lies inside a table location and
// gives its key relative to it:
//
//	key, err := location.Within("file:///data/m", "file:/data/m/metadata/snap-1.avro")
//	// key == "metadata/snap-1.avro"
//
// A `..` segment is never resolved: a path that needs it to stay inside the
// table is refused, like any key outside it, and the refusal names both the
// forms given and the places they mean.
//
// Writers also differ in escaping. Iceberg Java writes a location as it is
// (`file:/data/my tablé/…`), and pyiceberg and DuckDB open such a path as
// written; an older Timelake percent-encoded it (`file:///data/my%20tabl%C3%A9/…`),
// which those readers cannot open. Timelake now writes locations unencoded
// and reads both: Within matches a path to its table as written first, and
// otherwise with either side percent-decoded where it looks encoded (Decoded).
package location

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrOutside is returned by Within for a path that is not inside the table.
var ErrOutside = errors.New("outside the table location")

// Place is a location reduced to what it means.
type Place struct {
	Scheme    string // "file", "s3", or another scheme as written (lower case)
	Authority string // the bucket for s3; empty for file
	Path      string // "/"-separated, without redundant or trailing slashes; "" for a bucket's root
}

// String is the canonical spelling: file:///p, s3://bucket/key.
func (p Place) String() string {
	if p.Scheme == "file" {
		return "file://" + p.Path
	}
	if p.Path == "" {
		return p.Scheme + "://" + p.Authority
	}
	return p.Scheme + "://" + p.Authority + "/" + strings.TrimPrefix(p.Path, "/")
}

// schemeFamily maps the schemes that name one kind of store to one name.
var schemeFamily = map[string]string{
	"file": "file",
	"s3":   "s3", "s3a": "s3", "s3n": "s3",
}

// Parse reduces loc to its Place. A bare absolute path (/p) is the local
// file /p, as Hadoop's file system resolves it; a network path (//host/p)
// and any other location without a scheme are refused.
func Parse(loc string) (Place, error) {
	if strings.HasPrefix(loc, "/") && !strings.HasPrefix(loc, "//") {
		// A bare absolute path: Iceberg Java writes manifest paths so when
		// the warehouse was given as a plain path (Hadoop's local default).
		loc = "file:" + loc
	}
	scheme, rest, ok := strings.Cut(loc, ":")
	if !ok || scheme == "" || strings.ContainsAny(scheme, "/\\") {
		return Place{}, fmt.Errorf("location %q has no scheme", loc)
	}
	scheme = strings.ToLower(scheme)
	if fam, ok := schemeFamily[scheme]; ok {
		scheme = fam
	}
	if strings.ContainsRune(loc, 0) || strings.ContainsRune(loc, '\\') {
		return Place{}, fmt.Errorf("location %q holds a NUL or a backslash", loc)
	}
	var authority, path string
	switch {
	case strings.HasPrefix(rest, "//"):
		authority, path, _ = strings.Cut(rest[2:], "/")
		path = "/" + path
	case scheme == "file" && strings.HasPrefix(rest, "/"):
		path = rest // file:/p
	default:
		return Place{}, fmt.Errorf("location %q is not an absolute URI", loc)
	}
	if scheme == "file" {
		switch strings.ToLower(authority) {
		case "", "localhost":
			authority = ""
		default:
			return Place{}, fmt.Errorf("location %q names a remote host %q", loc, authority)
		}
	} else if authority == "" {
		return Place{}, fmt.Errorf("location %q has no bucket", loc)
	}
	clean := cleanPath(path)
	if scheme != "file" {
		clean = strings.TrimPrefix(clean, "/")
	}
	return Place{Scheme: scheme, Authority: authority, Path: clean}, nil
}

// cleanPath removes empty and "." segments and a trailing slash; ".." is
// kept as a segment (and so never matches a table's key).
func cleanPath(p string) string {
	var b strings.Builder
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." {
			continue
		}
		b.WriteByte('/')
		b.WriteString(seg)
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// Same reports whether a and b are the same place, either percent-decoded
// where it looks encoded (Decoded).
func Same(a, b string) bool {
	pa, err1 := Parse(a)
	pb, err2 := Parse(b)
	if err1 != nil || err2 != nil {
		return false
	}
	da, _ := Decoded(pa)
	db, _ := Decoded(pb)
	return pa == pb || da == pb || pa == db || da == db
}

// Within returns path's key relative to the table at table: the segments of
// path below the table's place, joined by "/". A path at or outside the
// table's place, a path with a ".." segment, and a path that does not parse
// are refused with an error wrapping ErrOutside that names both forms.
func Within(table, path string) (string, error) {
	pt, err := Parse(table)
	if err != nil {
		return "", fmt.Errorf("%w: table location: %v", ErrOutside, err)
	}
	if pt.Scheme == "file" && pt.Path == "/" {
		return "", fmt.Errorf("%w: table location %q is the file system's root", ErrOutside, table)
	}
	// The common case, every path of a file the table's own writer named:
	// the table's spelling, then a clean key. It needs no parse of its own
	// (keys are looked up for every file a snapshot lists).
	if rest, ok := strings.CutPrefix(path, table+"/"); ok && cleanKey(rest) {
		return rest, nil
	}
	return within(pt, table, path)
}

// cleanKey reports whether k is a relative key Within would return as it
// is: non-empty segments, none "." or "..", no backslash or NUL.
func cleanKey(k string) bool {
	if k == "" || strings.ContainsAny(k, "\\\x00") {
		return false
	}
	for seg := range strings.SplitSeq(k, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// within is Within after the table's place pt is known, comparing places:
// as written, then with the path, the table or both percent-decoded where
// they look encoded (a table one writer spelled encoded and another not).
// The key is the path's, decoded when the match needed its decoding. The
// refusal names the places as written.
func within(pt Place, table, path string) (string, error) {
	pp, err := Parse(path)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v (table location %q)", ErrOutside, path, err, table)
	}
	key, refusal := inside(pt, pp, table, path)
	if refusal == nil {
		return key, nil
	}
	dt, tEnc := Decoded(pt)
	dp, pEnc := Decoded(pp)
	for _, c := range []struct {
		ok     bool
		pt, pp Place
	}{{pEnc, pt, dp}, {tEnc, dt, pp}, {tEnc && pEnc, dt, dp}} {
		if c.ok {
			if key, err := inside(c.pt, c.pp, table, path); err == nil {
				return key, nil
			}
		}
	}
	return "", refusal
}

// inside is the comparison of two places for within.
func inside(pt, pp Place, table, path string) (string, error) {
	outside := func(why string) error {
		return fmt.Errorf("%w: %q (%s) is %s the table location %q (%s)", ErrOutside, path, pp, why, table, pt)
	}
	if pp.Scheme != pt.Scheme || pp.Authority != pt.Authority {
		return "", outside("outside")
	}
	prefix := pt.Path
	if prefix != "/" && prefix != "" {
		prefix += "/"
	} else if pt.Scheme != "file" {
		prefix = "" // a bucket's root: every key is inside
	}
	key, ok := strings.CutPrefix(pp.Path, prefix)
	if !ok || key == "" || key == "/" {
		return "", outside("outside")
	}
	key = strings.TrimPrefix(key, "/")
	for _, seg := range strings.Split(key, "/") {
		if seg == ".." {
			return "", outside("not (by a \"..\" segment) inside")
		}
	}
	return key, nil
}

// Decoded is p with its path percent-decoded, and true, when the path looks
// percent-encoded: it holds an escape (%XX), every "%" starts one, and no
// character an encoder would have escaped appears as it is (a space,
// non-ASCII, a control character, one of "#?<>`{}|^ and "). Otherwise (a
// path written as it is, like `/data/100% cpu` or `/data/a%zz`) p and false.
// A decoded path holding a NUL or a backslash is not decoded; one holding
// ".." keeps it as a segment (Within refuses it).
//
// The rule cannot tell a name that really holds "%20" from an encoded
// space; a path spelled the table's way is therefore always matched as
// written first (Within).
func Decoded(p Place) (Place, bool) {
	d, ok := Unescape(p.Path)
	if !ok {
		return p, false
	}
	clean := cleanPath(d)
	if p.Scheme != "file" {
		clean = strings.TrimPrefix(clean, "/")
	}
	p.Path = clean
	return p, true
}

// Unescape is path percent-decoded, and true, when it looks encoded (the
// rule of Decoded) and decodes to neither a NUL nor a backslash; else path
// and false.
func Unescape(path string) (string, bool) {
	if !looksEncoded(path) {
		return path, false
	}
	d, err := url.PathUnescape(path)
	if err != nil || strings.ContainsAny(d, "\\\x00") {
		return path, false
	}
	return d, true
}

func looksEncoded(s string) bool {
	escape := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			escape = true
			i += 2
		case c <= ' ' || c >= 0x7f || strings.IndexByte("\"#?<>`{}|^", c) >= 0:
			return false
		}
	}
	return escape
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Encoded reports whether loc looks percent-encoded (see Decoded).
func Encoded(loc string) bool {
	p, err := Parse(loc)
	if err != nil {
		return false
	}
	_, ok := Decoded(p)
	return ok
}
