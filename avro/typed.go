package avro

import "fmt"

// Typed decoding: a caller that knows the records it expects (Iceberg's
// manifest lists and manifests) walks each record with a Decoder, reading
// the fields it wants straight into its own structs and skipping the rest,
// instead of building the map[string]any of Next for every record. It still
// follows the writer's schema from the header, so files written by other
// engines (other field order, extra fields) read the same way.

// Decoder reads the values of one record in the order of the writer's
// schema. Byte and string values alias the block being read: copy what
// outlives the Reader.Decode callback.
type Decoder struct {
	d       *decoder
	minSize map[*Schema]int // Schema.minSize of array items, computed once per Reader
	// flat: whether a record schema has only primitive fields (see
	// skipFlat), computed once per Reader.
	flat map[*Schema]bool
}

// Long reads a long (or an int: the encoding is the same).
func (d *Decoder) Long() (int64, error) { return d.d.long() }

// Int reads an int, refusing a value outside 32 bits.
func (d *Decoder) Int() (int32, error) { return d.d.int() }

// Boolean reads a boolean.
func (d *Decoder) Boolean() (bool, error) { return d.d.boolean() }

// Float reads a float.
func (d *Decoder) Float() (float32, error) { return d.d.float() }

// Double reads a double.
func (d *Decoder) Double() (float64, error) { return d.d.double() }

// Bytes reads bytes or a string, aliasing the block.
func (d *Decoder) Bytes() ([]byte, error) { return d.d.bytes() }

// Fixed reads a fixed value of n bytes, aliasing the block.
func (d *Decoder) Fixed(n int) ([]byte, error) { return d.d.fixed(n) }

// Enum reads an enum value of s and returns its symbol.
func (d *Decoder) Enum(s *Schema) (string, error) {
	i, err := d.d.long()
	if err != nil {
		return "", err
	}
	if i < 0 || i >= int64(len(s.Symbols)) {
		return "", d.d.errf("enum %s index %d out of range", s.FullName(), i)
	}
	return s.Symbols[i], nil
}

// Branch reads the branch index of a value of union s and returns the
// branch's schema; the branch's value follows. For any other schema it
// reads nothing and returns s, so a caller can take optional and required
// fields alike.
func (d *Decoder) Branch(s *Schema) (*Schema, error) {
	if s.Type != TypeUnion {
		return s, nil
	}
	i, err := d.d.long()
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= int64(len(s.Branches)) {
		return nil, d.d.errf("union branch %d out of range (%d branches)", i, len(s.Branches))
	}
	return s.Branches[i], nil
}

// ArrayBlock reads the item count of the next block of an array of s (an
// array schema); 0 ends the array. The count is checked against the bytes
// left, as Next does.
func (d *Decoder) ArrayBlock(s *Schema) (int, error) {
	min, ok := d.minSize[s.Items]
	if !ok {
		min = s.Items.minSize(map[*Schema]bool{})
		d.minSize[s.Items] = min
	}
	return d.d.blockCount(min)
}

// Skip reads past one value of s, checking it as Next would but keeping
// nothing.
func (d *Decoder) Skip(s *Schema) error { return d.skip(s, 0) }

// SkipAt is Skip for a value depth levels down in the record being read
// (the record's fields are at depth 1, a union's branch is one deeper than
// the union), so that values nested too deeply fail as they do in Next.
func (d *Decoder) SkipAt(s *Schema, depth int) error { return d.skip(s, depth) }

func (d *Decoder) skip(s *Schema, depth int) error {
	if depth > maxDepth {
		return d.d.errf("values nested more than %d levels", maxDepth)
	}
	var err error
	switch s.Type {
	case TypeNull:
	case TypeBoolean:
		_, err = d.d.boolean()
	case TypeInt:
		_, err = d.d.int()
	case TypeLong:
		_, err = d.d.long()
	case TypeFloat:
		_, err = d.d.fixed(4)
	case TypeDouble:
		_, err = d.d.fixed(8)
	case TypeBytes, TypeString:
		_, err = d.d.bytes()
	case TypeFixed:
		_, err = d.d.fixed(s.Size)
	case TypeEnum:
		_, err = d.Enum(s)
	case TypeUnion:
		var b *Schema
		if b, err = d.Branch(s); err == nil {
			err = d.skip(b, depth+1)
		}
	case TypeRecord:
		for _, f := range s.Fields {
			if err := d.skip(f.Type, depth+1); err != nil {
				return fmt.Errorf("%s.%s: %w", s.FullName(), f.Name, err)
			}
		}
	case TypeArray:
		// An array of flat records (Iceberg's int-keyed stats maps,
		// {key: int, value: long or bytes}) is skipped item by item
		// without recursing into each field: the same checks, in a
		// loop, for the arrays that are most of a manifest entry's bytes.
		flat := depth+2 <= maxDepth && d.isFlat(s.Items)
		for {
			n, err := d.ArrayBlock(s)
			if err != nil || n == 0 {
				return err
			}
			for ; n > 0; n-- {
				if flat {
					err = d.skipFlat(s.Items)
				} else {
					err = d.skip(s.Items, depth+1)
				}
				if err != nil {
					return err
				}
			}
		}
	case TypeMap:
		min := 1 + s.Values.minSize(map[*Schema]bool{})
		for {
			n, err := d.d.blockCount(min)
			if err != nil || n == 0 {
				return err
			}
			for ; n > 0; n-- {
				if _, err := d.d.bytes(); err != nil {
					return err
				}
				if err := d.skip(s.Values, depth+1); err != nil {
					return err
				}
			}
		}
	default:
		return fmt.Errorf("avro: cannot decode schema type %v", s.Type)
	}
	return err
}

// Decode calls read once for each remaining record, with a Decoder at the
// start of the record. read must consume exactly that record, field by
// field in the order of r.Schema (Skip what it does not want); a record
// that reads past its block, or a block left with unread bytes, is an
// error. An error from read is returned wrapped with the record's index.
func (r *Reader) Decode(read func(d *Decoder) error) error {
	td := &Decoder{d: &r.block, minSize: map[*Schema]int{}}
	for {
		for r.left == 0 {
			if r.pos >= len(r.data) {
				return nil
			}
			if err := r.nextBlock(); err != nil {
				return err
			}
		}
		r.block.zeroItems = r.zeros
		err := read(td)
		r.zeros = r.block.zeroItems
		if err != nil {
			return fmt.Errorf("avro: record %d: %w", r.nrec, err)
		}
		r.left--
		r.nrec++
		if r.left == 0 && r.block.remaining() != 0 {
			return fmt.Errorf("%w: block ends with %d unread bytes after record %d", ErrCorrupt, r.block.remaining(), r.nrec-1)
		}
	}
}

// isFlat says whether s is a record whose fields are all null, boolean,
// int, long, float, double, bytes, string or fixed.
func (d *Decoder) isFlat(s *Schema) bool {
	if s.Type != TypeRecord {
		return false
	}
	if flat, ok := d.flat[s]; ok {
		return flat
	}
	flat := true
	for _, f := range s.Fields {
		switch f.Type.Type {
		case TypeNull, TypeBoolean, TypeInt, TypeLong, TypeFloat, TypeDouble, TypeBytes, TypeString, TypeFixed:
		default:
			flat = false
		}
	}
	if d.flat == nil {
		d.flat = map[*Schema]bool{}
	}
	d.flat[s] = flat
	return flat
}

// skipFlat is skip of a record isFlat accepts: each field checked as skip
// checks it, and an error named as skip names it. A one-byte varint (an
// int or long in [-64, 63], the keys of the stats maps and the lengths of
// most bounds) is passed over without a call: one byte below 0x80 is a
// complete varint of any width, and a length in it is checked against the
// bytes left.
func (d *Decoder) skipFlat(s *Schema) error {
	b := d.d.b
	for _, f := range s.Fields {
		var err error
		switch f.Type.Type {
		case TypeNull:
		case TypeBoolean:
			_, err = d.d.boolean()
		case TypeInt:
			if p := d.d.pos; p < len(b) && b[p] < 0x80 {
				d.d.pos++
				continue
			}
			_, err = d.d.int()
		case TypeLong:
			if p := d.d.pos; p < len(b) && b[p] < 0x80 {
				d.d.pos++
				continue
			}
			_, err = d.d.long()
		case TypeBytes, TypeString:
			if p := d.d.pos; p < len(b) && b[p] < 0x80 && b[p]&1 == 0 && int(b[p]>>1) <= len(b)-p-1 {
				d.d.pos += 1 + int(b[p]>>1) // an even zig-zag byte is a length >= 0
				continue
			}
			_, err = d.d.bytes()
		case TypeFloat:
			_, err = d.d.fixed(4)
		case TypeDouble:
			_, err = d.d.fixed(8)
		case TypeFixed:
			_, err = d.d.fixed(f.Type.Size)
		}
		if err != nil {
			return fmt.Errorf("%s.%s: %w", s.FullName(), f.Name, err)
		}
	}
	return nil
}
