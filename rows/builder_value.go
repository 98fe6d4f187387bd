package rows

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/timelake/timelake/schema"
)

// AppendValue sets column col of the current row from a Go value: nil,
// string, bool, time.Time, json.Number, float64, float32 or any integer type.
//
// A nested column takes its JSON text as a string, or a Go value
// (map[string]any, []any, map[string]string, a struct…) that encoding/json
// marshals to it (a Go map's keys sorted, as Go maps have no order).
func (b *Builder) AppendValue(col int, v any) error {
	if b.table.Fields[col].Type == schema.Nested && v != nil {
		if _, ok := v.(string); !ok {
			raw, err := json.Marshal(v)
			if err != nil {
				return b.fail(col, fmt.Sprintf("%v", v), mismatch("%T is not JSON: %v", v, err))
			}
			if e := b.appendNested(col, string(raw)); e != nil {
				return e
			}
			return nil
		}
	}
	switch v := v.(type) {
	case nil:
		b.AppendNull(col)
		return nil
	case string:
		return b.AppendString(col, v)
	case bool:
		return b.AppendBool(col, v)
	case json.Number:
		if e := b.appendNumber(col, string(v)); e != nil {
			return e
		}
		return nil
	case float64:
		return b.AppendFloat64(col, v)
	case float32:
		return b.AppendFloat64(col, float64(v))
	case int:
		return b.AppendInt64(col, int64(v))
	case int64:
		return b.AppendInt64(col, v)
	case int32:
		return b.AppendInt64(col, int64(v))
	case int16:
		return b.AppendInt64(col, int64(v))
	case int8:
		return b.AppendInt64(col, int64(v))
	case uint8:
		return b.AppendInt64(col, int64(v))
	case uint16:
		return b.AppendInt64(col, int64(v))
	case uint32:
		return b.AppendInt64(col, int64(v))
	case uint:
		if uint64(v) > math.MaxInt64 {
			return b.fail(col, fmt.Sprint(v), mismatch("%d is out of range for %s", v, b.table.Fields[col].Type))
		}
		return b.AppendInt64(col, int64(v))
	case uint64:
		if v > math.MaxInt64 {
			return b.fail(col, fmt.Sprint(v), mismatch("%d is out of range for %s", v, b.table.Fields[col].Type))
		}
		return b.AppendInt64(col, int64(v))
	case time.Time:
		return b.AppendTime(col, v)
	}
	return b.fail(col, fmt.Sprintf("%v", v), mismatch("unsupported Go type %T", v))
}
