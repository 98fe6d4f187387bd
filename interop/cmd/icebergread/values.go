package main

// With -values COL,…, each row's values of those columns (nested ones
// too: maps, lists, structs) are printed in the summary as "values", one
// object per row with the series columns, "time_us" and each named column
// as the JSON text Timelake's scan prints for it: a struct an object of its
// fields in order, a list an array, a map an object with its keys as
// strings in the file's order, integers exact, floats in Go's shortest
// form (NaN and infinities as "NaN", "+Inf", "-Inf"), timestamps as scan
// prints them. Rows are sorted by series and time, so that a test compares
// them row for row with Timelake's scan.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// valueRow is one row of -values: its sort key and its printed object.
type valueRow struct {
	key  string
	text json.RawMessage
}

// addValues appends the rows of rec to a.values.
func (a *accumulator) addValues(rec arrow.RecordBatch, micros func(int) int64) error {
	cols := make([]arrow.Array, len(a.q.values))
	for k, name := range a.q.values {
		c, err := column(rec, name)
		if err != nil {
			return err
		}
		cols[k] = c
	}
	scols := make([]arrow.Array, len(a.q.series))
	for k, name := range a.q.series {
		c, err := column(rec, name)
		if err != nil {
			return err
		}
		scols[k] = c
	}
	for i := 0; i < int(rec.NumRows()); i++ {
		var b, key bytes.Buffer
		b.WriteByte('{')
		for k, name := range a.q.series {
			v, err := jsonValue(nil, scols[k], i)
			if err != nil {
				return fmt.Errorf("column %q: %w", name, err)
			}
			key.Write(v)
			key.WriteByte(0)
			writeKey(&b, name)
			b.Write(v)
			b.WriteByte(',')
		}
		t := micros(i)
		fmt.Fprintf(&key, "%020d", uint64(t)^(1<<63))
		writeKey(&b, "time_us")
		b.WriteString(strconv.FormatInt(t, 10))
		for k, name := range a.q.values {
			v, err := jsonValue(nil, cols[k], i)
			if err != nil {
				return fmt.Errorf("column %q: %w", name, err)
			}
			b.WriteByte(',')
			writeKey(&b, name)
			b.Write(v)
		}
		b.WriteByte('}')
		a.values = append(a.values, valueRow{key.String(), b.Bytes()})
	}
	return nil
}

func (a *accumulator) sortedValues() []json.RawMessage {
	sort.SliceStable(a.values, func(i, j int) bool { return a.values[i].key < a.values[j].key })
	out := make([]json.RawMessage, len(a.values))
	for i, r := range a.values {
		out[i] = r.text
	}
	return out
}

func writeKey(b *bytes.Buffer, name string) {
	b.Write(jsonString(name))
	b.WriteByte(':')
}

// jsonString is s as a JSON string, without the HTML escapes of
// encoding/json (Timelake writes <, > and & as they are).
func jsonString(s string) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// jsonValue appends row i of c as Timelake prints it.
func jsonValue(b []byte, c arrow.Array, i int) ([]byte, error) {
	if c.IsNull(i) {
		return append(b, "null"...), nil
	}
	switch c := c.(type) {
	case *array.Map: // before *array.List, which it embeds
		start, end := c.ValueOffsets(i)
		keys, items := c.Keys(), c.Items()
		b = append(b, '{')
		for j := start; j < end; j++ {
			if j > start {
				b = append(b, ',')
			}
			k, err := jsonValue(nil, keys, int(j))
			if err != nil {
				return nil, err
			}
			if k[0] != '"' {
				k = jsonString(string(k))
			}
			b = append(append(b, k...), ':')
			if b, err = jsonValue(b, items, int(j)); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case array.ListLike:
		start, end := c.ValueOffsets(i)
		b = append(b, '[')
		for j := start; j < end; j++ {
			if j > start {
				b = append(b, ',')
			}
			var err error
			if b, err = jsonValue(b, c.ListValues(), int(j)); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case *array.Struct:
		st := c.DataType().(*arrow.StructType)
		b = append(b, '{')
		for k := 0; k < c.NumField(); k++ {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(append(b, jsonString(st.Field(k).Name)...), ':')
			var err error
			if b, err = jsonValue(b, c.Field(k), i); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case *array.Int64:
		return strconv.AppendInt(b, c.Value(i), 10), nil
	case *array.Int32:
		return strconv.AppendInt(b, int64(c.Value(i)), 10), nil
	case *array.Float64:
		return appendFloat(b, c.Value(i), 64), nil
	case *array.Float32:
		return appendFloat(b, float64(c.Value(i)), 32), nil
	case *array.Boolean:
		return strconv.AppendBool(b, c.Value(i)), nil
	case *array.String:
		return append(b, jsonString(c.Value(i))...), nil
	case *array.LargeString:
		return append(b, jsonString(c.Value(i))...), nil
	case *array.Timestamp:
		tt := c.DataType().(*arrow.TimestampType)
		v := int64(c.Value(i))
		var t time.Time
		digits := "000000"
		switch tt.Unit {
		case arrow.Nanosecond:
			t, digits = time.Unix(0, v), "000000000"
		case arrow.Microsecond:
			t = time.UnixMicro(v)
		case arrow.Millisecond:
			t = time.UnixMilli(v)
		default:
			t = time.Unix(v, 0)
		}
		text := t.UTC().Format("2006-01-02T15:04:05." + digits)
		if tt.TimeZone != "" {
			text += "Z"
		}
		return append(b, jsonString(text)...), nil
	}
	return nil, fmt.Errorf("no JSON form for the Arrow type %s", c.DataType())
}

func appendFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"+Inf"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Inf"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}
