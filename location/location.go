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
package location

import (
	"errors"
	"fmt"
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

// Same reports whether a and b are the same place.
func Same(a, b string) bool {
	pa, err1 := Parse(a)
	pb, err2 := Parse(b)
	return err1 == nil && err2 == nil && pa == pb
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

// within is Within after the table's place pt is known, comparing places.
func within(pt Place, table, path string) (string, error) {
	pp, err := Parse(path)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v (table location %q)", ErrOutside, path, err, table)
	}
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
