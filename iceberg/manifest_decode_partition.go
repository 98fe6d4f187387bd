package iceberg

import (
	"fmt"

	"github.com/timelake/timelake/avro"
)

// The partition record of a manifest entry (manifest_decode.go reads the
// rest): Timelake's one int field, or another engine's spec's values.

// readPartition reads the partition record: Timelake's tables have one int
// partition field (or none, for an unpartitioned table's manifests). A
// record of another shape (another engine's partition spec: several
// fields, or a field that is not an int) is skipped and the entry marked
// OtherPartition.
func (er *entryReader) readPartition(d *avro.Decoder, rec *avro.Schema, depth int, f *DataFile) error {
	p := &er.partition
	if p.schema != rec {
		*p = recordPlan{schema: rec, slots: make([]meSlot, len(rec.Fields)), names: make([]string, len(rec.Fields))}
		if len(rec.Fields) > 1 {
			p.err = errOtherPartition
		}
		for i, f := range rec.Fields {
			p.slots[i], p.names[i] = partValue, f.Name
		}
	}
	f.SpecID = er.from.PartitionSpecID
	if p.err != nil {
		f.OtherPartition = true
		if !er.keep {
			return d.SkipAt(rec, depth)
		}
		return readPartitionValues(d, rec, depth, f)
	}
	for _, fl := range rec.Fields {
		t, _, err := resolveAt(d, fl.Type, depth+1)
		if err != nil {
			return err
		}
		switch t.Type {
		case avro.TypeInt:
			if f.Partition, err = d.Int(); err != nil {
				return err
			}
		case avro.TypeNull: // e.g. a void transform
			f.OtherPartition = true
			if er.keep {
				f.PartitionValues = []any{nil}
			}
		default:
			f.OtherPartition = true
			if !er.keep {
				if err := d.SkipAt(t, depth+1); err != nil {
					return err
				}
				break
			}
			v, err := readAvroValue(d, t, fl.Name)
			if err != nil {
				return err
			}
			f.PartitionValues = []any{v}
		}
	}
	return nil
}

var errOtherPartition = fmt.Errorf("a partition of another spec")

// readPartitionValues reads a partition record of several fields into
// f.PartitionValues.
func readPartitionValues(d *avro.Decoder, rec *avro.Schema, depth int, f *DataFile) error {
	f.PartitionValues = make([]any, len(rec.Fields))
	for i, fl := range rec.Fields {
		t, _, err := resolveAt(d, fl.Type, depth+1)
		if err != nil {
			return err
		}
		if f.PartitionValues[i], err = readAvroValue(d, t, fl.Name); err != nil {
			return err
		}
	}
	return nil
}

// readAvroValue reads one primitive partition value (a union already
// resolved to t): int64, float64, bool, string, []byte or nil.
func readAvroValue(d *avro.Decoder, t *avro.Schema, name string) (any, error) {
	switch t.Type {
	case avro.TypeNull:
		return nil, nil
	case avro.TypeInt:
		v, err := d.Int()
		return int64(v), err
	case avro.TypeLong:
		return d.Long()
	case avro.TypeBoolean:
		return d.Boolean()
	case avro.TypeFloat:
		v, err := d.Float()
		return float64(v), err
	case avro.TypeDouble:
		return d.Double()
	case avro.TypeString:
		b, err := d.Bytes()
		return string(b), err
	case avro.TypeBytes:
		b, err := d.Bytes()
		return clone(b), err
	case avro.TypeFixed:
		b, err := d.Fixed(t.Size)
		return clone(b), err
	}
	return nil, typeError("partition."+name, t, "a primitive value")
}

// readIntMap reads one of Iceberg's int-keyed maps: an optional array of
// key/value records. A key repeated keeps its last value.
