package restcatalog

import (
	"fmt"
	"net/url"
	"strings"
)

// Ident names a table: its namespace levels and its name.
type Ident struct {
	Namespace []string `json:"namespace"`
	Name      string   `json:"name"`
}

// ParseIdent parses "ns.table" or "a.b.table" (the last part is the table).
func ParseIdent(s string) (Ident, error) {
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return Ident{}, fmt.Errorf("%w: table %q: want NAMESPACE.TABLE (levels joined by dots, e.g. metrics.cpu or a.b.cpu)", ErrBadIdent, s)
	}
	for _, p := range parts {
		if p == "" {
			return Ident{}, fmt.Errorf("%w: table %q: an empty part between dots", ErrBadIdent, s)
		}
		if strings.ContainsRune(p, 0x1f) {
			return Ident{}, fmt.Errorf("%w: table %q: a part holds the unit separator 0x1F", ErrBadIdent, s)
		}
	}
	return Ident{Namespace: parts[:len(parts)-1], Name: parts[len(parts)-1]}, nil
}

// MustIdent is ParseIdent that panics, for literals.
func MustIdent(s string) Ident {
	id, err := ParseIdent(s)
	if err != nil {
		panic(err)
	}
	return id
}

// String is the dotted form.
func (id Ident) String() string {
	return strings.Join(append(append([]string(nil), id.Namespace...), id.Name), ".")
}

// NamespaceString is the namespace's dotted form.
func (id Ident) NamespaceString() string { return strings.Join(id.Namespace, ".") }

// namespacePath is the namespace as one path segment: levels joined by 0x1F, escaped.
func namespacePath(ns []string) string { return url.PathEscape(strings.Join(ns, "\x1f")) }
