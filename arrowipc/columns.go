package arrowipc

import (
	"fmt"
	"strings"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
)

// Columns reads the schema of Arrow IPC data (a stream or a file) and gives
// each field's name with the table type an append that evolves the schema
// adds it as: int8…int32 → int; int64 and unsigned integers → long;
// float16, float32 → float; float64 → double; bool → boolean; utf8 and
// large_utf8 → string; timestamp, date32, date64 → timestamptz (a
// dictionary by its values). A nested field (struct, list, large_list,
// map) is left out: no evolving append adds a nested column, and the
// reader fills the table's nested column of its name or refuses it. A
// field of another type the reader does not convert is a TYPE_MISMATCH
// naming it.
func Columns(data []byte) ([]evolve.Column, error) {
	var fields []field
	if strings.HasPrefix(string(data[:min(len(data), 6)]), fileMagic) {
		f, err := readFooter(data)
		if err != nil {
			return nil, syntax(err)
		}
		fields = f.schema
	} else {
		m, _, err := readMessage(data, 0)
		if err != nil {
			return nil, syntax(err)
		}
		if m == nil {
			return nil, &rows.Error{Code: rows.CodeEmptyInput, Msg: "the Arrow input is empty (no schema)"}
		}
		if m.kind != headerSchema {
			return nil, syntax(fmt.Errorf("the stream starts with a message of type %d, not a schema", m.kind))
		}
		if fields, err = readSchema(m.header); err != nil {
			return nil, syntax(fmt.Errorf("schema: %w", err))
		}
	}
	out := make([]evolve.Column, 0, len(fields))
	for i := range fields {
		f := &fields[i]
		if isNestedField(f) {
			continue
		}
		k, width, _ := planKind(f)
		if f.dict != nil {
			k, width, _ = planKind(&field{typ: f.typ})
		}
		var t schema.Type
		switch k {
		case vInt:
			t = schema.Long
			if width < 8 {
				t = schema.Int
			}
		case vUint:
			t = schema.Long
		case vFloat16, vFloat32:
			t = schema.Float
		case vFloat64:
			t = schema.Double
		case vBool:
			t = schema.Boolean
		case vUtf8, vLargeUtf8:
			t = schema.String
		case vTimestamp, vDate32, vDate64:
			t = schema.Timestamptz
		default:
			return nil, &rows.Error{Code: rows.CodeTypeMismatch, Column: f.name, Value: f.typeString(),
				Msg: fmt.Sprintf("Arrow type %s has no table type to add the column as", f.typeString())}
		}
		out = append(out, evolve.Column{Name: f.name, Type: t})
	}
	return out, nil
}

// isNestedField says whether f is of an Arrow nested type the reader takes
// into a nested column.
func isNestedField(f *field) bool {
	if f.dict != nil {
		return false
	}
	switch f.typ.id {
	case tStruct, tList, tLargeList, tMap:
		return true
	}
	return false
}
