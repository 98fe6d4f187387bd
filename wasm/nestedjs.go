//go:build js && wasm

package main

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/timelake/timelake/schema"
)

// A nested column's value (JSON text in the core) reaches JavaScript
// parsed: as the client's parseNested gives it in scans (client/src/nested.ts),
// objects in the text's member order, and in a column whose type holds a
// long an integer past ±2^53 as a bigint.

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

var jsJSON = js.Global().Get("JSON")

// nestedToJS is the JavaScript value of the JSON text s (latest(): a row per
// series, so a call per element is fine); the text itself if it does not parse.
func nestedToJS(s string, big bool) any {
	if !big {
		return jsJSON.Call("parse", s)
	}
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	v, err := tokenToJS(d)
	if err != nil {
		return s
	}
	return v
}

func tokenToJS(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		if x == '[' {
			a := jsArray.New()
			for d.More() {
				v, err := tokenToJS(d)
				if err != nil {
					return nil, err
				}
				a.Call("push", v)
			}
			_, err := d.Token()
			return a, err
		}
		o := jsObject.New()
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := tokenToJS(d)
			if err != nil {
				return nil, err
			}
			o.Set(k.(string), v)
		}
		_, err := d.Token()
		return o, err
	case json.Number:
		if n, err := strconv.ParseInt(x.String(), 10, 64); err == nil && (n > 1<<53-1 || n < -(1<<53-1)) {
			return jsBigInt.Invoke(x.String()), nil
		}
		f, err := strconv.ParseFloat(x.String(), 64)
		if err != nil || math.IsInf(f, 0) {
			return jsBigInt.Invoke(x.String()), nil // an integer past int64: its digits
		}
		return f, nil
	case nil:
		return js.Null(), nil
	}
	return tok, nil // string, bool
}
