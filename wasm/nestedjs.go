//go:build js && wasm

package main

import (
	"github.com/timelake/timelake/schema"
)

// A nested column's value (JSON text in the core) reaches JavaScript as
// that text, which the client parses (client/src/nested.ts: objects in the
// text's member order, and in a column whose type holds a long an integer
// past ±2^53 as a bigint).

// hasLong reports whether the nested type t holds a long leaf.
func hasLong(t *schema.NestedType) bool {
	if t == nil {
		return false
	}
	switch t.Kind {
	case schema.KindPrimitive:
		return t.Prim == schema.Long
	case schema.KindStruct:
		for _, f := range t.Fields {
			if hasLong(f.Type) {
				return true
			}
		}
	case schema.KindList:
		return hasLong(t.Elem.Type)
	case schema.KindMap:
		return hasLong(t.Key.Type) || hasLong(t.Value.Type)
	}
	return false
}
