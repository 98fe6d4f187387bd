package rows

import (
	"bytes"
	"io"
	"strings"
)

// Go's encoding/csv turns every "\r\n" into "\n", inside quoted fields too,
// so a value holding a Windows line break would be stored changed. RFC 4180
// keeps a quoted field's bytes as they are, and so must we.
//
// quotedCR sits between the input and encoding/csv and escapes, inside
// quoted fields only, each '\r' as "\x00r" (and every NUL as "\x00\x00", so
// the escape is reversible); keepCR undoes it in the fields of a record. A
// quote toggles the state: an escaped quote ("") toggles twice, and a quote
// inside an unquoted field is a syntax error encoding/csv reports anyway.
// Line ends outside quotes are left to encoding/csv, CRLF or LF.
type quotedCR struct {
	src     io.Reader
	inQuote bool
	scratch []byte // bytes read from src
	out     []byte // escaped bytes not yet returned
	pending []byte // the part of out still to return
}

func (q *quotedCR) Read(p []byte) (int, error) {
	if len(q.pending) > 0 {
		n := copy(p, q.pending)
		q.pending = q.pending[n:]
		return n, nil
	}
	if len(p) == 0 {
		return 0, nil
	}
	if cap(q.scratch) < len(p) {
		q.scratch = make([]byte, len(p))
	}
	in := q.scratch[:len(p)]
	n, err := q.src.Read(in)
	out := q.out[:0]
	b := in[:n]
	// IndexByte is vectorised where IndexAny is not: find the quotes, then
	// within each run what must be escaped (most input has none, and the
	// run is one copy).
	for len(b) > 0 {
		j := bytes.IndexByte(b, '"')
		run := b
		if j >= 0 {
			run = b[:j]
		}
		out = q.escape(out, run)
		if j < 0 {
			break
		}
		out = append(out, '"')
		q.inQuote = !q.inQuote
		b = b[j+1:]
	}
	q.out = out
	k := copy(p, out)
	q.pending = out[k:] // escapes made it longer than p: the rest next time
	if len(q.pending) > 0 {
		return k, nil // err (EOF) comes once the rest is returned
	}
	return k, err
}

// escape appends run, which holds no quote, with its NULs (and inside
// quotes its CRs) escaped.
func (q *quotedCR) escape(out, run []byte) []byte {
	// Each search runs once per byte found, not once per escape: a run of
	// NULs must not make the search for CR quadratic.
	nul, cr := -2, -1 // next positions in run; -2: not searched yet
	for len(run) > 0 {
		if nul == -2 {
			nul = bytes.IndexByte(run, 0)
		}
		if q.inQuote && cr == -1 {
			if cr = bytes.IndexByte(run, '\r'); cr < 0 {
				cr = len(run) // none left
			}
		}
		k := nul
		if q.inQuote && cr < len(run) && (k < 0 || cr < k) {
			k = cr
		}
		if k < 0 {
			return append(out, run...)
		}
		out = append(out, run[:k]...)
		if run[k] == 0 {
			out = append(out, 0, 0)
		} else {
			out = append(out, 0, 'r')
		}
		run = run[k+1:]
		// shift the found positions past the byte consumed
		if nul == k {
			nul = -2
		} else if nul >= 0 {
			nul -= k + 1
		}
		if q.inQuote {
			if cr == k {
				cr = -1
			} else {
				cr -= k + 1
			}
		}
	}
	return out
}

// keepCR undoes quotedCR's escapes in rec's fields.
func keepCR(rec []string) {
	for i, f := range rec {
		if strings.IndexByte(f, 0) < 0 {
			continue
		}
		var b strings.Builder
		b.Grow(len(f))
		for j := 0; j < len(f); j++ {
			if f[j] == 0 && j+1 < len(f) {
				j++
				if f[j] == 'r' {
					b.WriteByte('\r')
				} else {
					b.WriteByte(0)
				}
				continue
			}
			b.WriteByte(f[j])
		}
		rec[i] = b.String()
	}
}
