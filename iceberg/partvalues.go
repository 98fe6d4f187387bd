package iceberg

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/timelake/timelake/avro"
	"github.com/timelake/timelake/partition"
	"github.com/timelake/timelake/schema"
)

// Partition records of any spec.
//
// A Timelake table's spec has one field, a day/hour/month of the time
// column, whose value is DataFile.Partition. Another engine's spec (adopted
// tables) may have several fields of any transform: their values are
// DataFile.PartitionValues, one per field, typed by the transform's result
// (partition.Transform.ResultType of the source column's type):
//
//	transform                 Avro type               value
//	year, month, hour, bucket int                     int64
//	day                       int (logicalType date)  int64
//	identity, truncate, void  the source's type       int64, float64, bool, string (void: always nil)
//	  long                    long
//	  int                     int
//	  timestamptz             long (timestamp-micros, adjust-to-utc)
//	  double / float          double / float
//	  boolean / string        boolean / string

// PartitionType is the Iceberg type of a partition field's values: its
// transform's result over the source column of s.
func PartitionType(pf PartitionField, s *Schema) (schema.Type, error) {
	tr, err := partition.Parse(pf.Transform)
	if err != nil {
		return 0, err
	}
	var src schema.Type
	for _, f := range s.Fields {
		if f.ID == pf.SourceID {
			if src, err = schema.ParseType(f.PrimitiveType()); err != nil {
				return 0, fmt.Errorf("iceberg: partition field %s: source column %s is %s", pf.Name, f.Name, f.TypeName())
			}
		}
	}
	if src == 0 {
		return 0, fmt.Errorf("iceberg: partition field %s: no source column %d in the schema", pf.Name, pf.SourceID)
	}
	return tr.ResultType(src)
}

// partitionAvroFieldType is the Avro type of a partition field's values.
func partitionAvroFieldType(pf PartitionField, s *Schema) (*avro.Schema, error) {
	if pf.Transform == "day" {
		return &avro.Schema{Type: avro.TypeInt, LogicalType: "date"}, nil
	}
	t, err := PartitionType(pf, s)
	if err != nil {
		return nil, err
	}
	switch t {
	case schema.Int:
		return prim(avro.TypeInt), nil
	case schema.Long:
		return prim(avro.TypeLong), nil
	case schema.Timestamptz, schema.Timestamp:
		return &avro.Schema{Type: avro.TypeLong, LogicalType: "timestamp-micros", Attrs: []avro.Attr{{Key: "adjust-to-utc", Value: json.RawMessage("true")}}}, nil
	case schema.TimestamptzNs, schema.TimestampNs:
		return &avro.Schema{Type: avro.TypeLong, LogicalType: "timestamp-nanos", Attrs: []avro.Attr{{Key: "adjust-to-utc", Value: json.RawMessage(strconv.FormatBool(t.Zoned()))}}}, nil
	case schema.Double:
		return prim(avro.TypeDouble), nil
	case schema.Float:
		return prim(avro.TypeFloat), nil
	case schema.Boolean:
		return prim(avro.TypeBoolean), nil
	case schema.String:
		return prim(avro.TypeString), nil
	}
	return nil, fmt.Errorf("iceberg: partition field %s: values of type %v are not written", pf.Name, t)
}

// appendPartitionValue encodes one optional partition value of Avro type t.
func appendPartitionValue(b []byte, t *avro.Schema, v any) ([]byte, error) {
	if v == nil {
		return avro.AppendUnion(b, 0), nil
	}
	b = avro.AppendUnion(b, 1)
	switch x := v.(type) {
	case int64:
		switch t.Type {
		case avro.TypeInt:
			return avro.AppendInt(b, int32(x)), nil
		case avro.TypeLong:
			return avro.AppendLong(b, x), nil
		}
	case float64:
		switch t.Type {
		case avro.TypeDouble:
			return avro.AppendDouble(b, x), nil
		case avro.TypeFloat:
			return avro.AppendFloat(b, float32(x)), nil
		}
	case bool:
		if t.Type == avro.TypeBoolean {
			return avro.AppendBool(b, x), nil
		}
	case string:
		if t.Type == avro.TypeString {
			return avro.AppendString(b, x), nil
		}
	}
	return nil, fmt.Errorf("a %T partition value for an Avro %v field", v, t.Type)
}

// PartitionTuple is f's partition values for a spec of n fields: its
// PartitionValues, or its single int Partition.
func (f *DataFile) PartitionTuple(n int) []any {
	if f.PartitionValues != nil || n != 1 {
		return f.PartitionValues
	}
	return []any{int64(f.Partition)}
}

// valueSummary is one partition field's summary over a manifest's entries.
type valueSummary struct {
	t         schema.Type
	lo, hi    any
	null, any bool
}

func (s *valueSummary) add(v any) {
	if v == nil {
		s.null = true
		return
	}
	if !s.any || compareValues(v, s.lo) < 0 {
		s.lo = v
	}
	if !s.any || compareValues(v, s.hi) > 0 {
		s.hi = v
	}
	s.any = true
}

func (s *valueSummary) summary() FieldSummary {
	f := false
	fs := FieldSummary{ContainsNull: s.null, ContainsNaN: &f}
	if s.any {
		fs.LowerBound, _ = EncodeValue(s.t, s.lo)
		fs.UpperBound, _ = EncodeValue(s.t, s.hi)
	}
	return fs
}

// compareValues orders two partition values of one type.
func compareValues(a, b any) int {
	switch x := a.(type) {
	case int64:
		return cmp.Compare(x, b.(int64))
	case float64:
		return cmp.Compare(x, b.(float64))
	case string:
		return bytes.Compare([]byte(x), []byte(b.(string)))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	}
	return 0
}
