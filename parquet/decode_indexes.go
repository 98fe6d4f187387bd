package parquet

import (
	"github.com/timelake/timelake/rows"
)

// Dictionary indexes instead of values: a reader that holds a column's
// rows a while (a scan merging many files holds a page of each) keeps a
// dictionary-encoded string page as int64 indexes, 8 bytes a row without
// pointers, where strings take 16 bytes with a pointer each for the garbage
// collector to follow, and looks the strings up for the rows it hands on.

// DecodeIndexes is Decode for a data page encoded with the chunk's
// dictionary (dict, filled from its dictionary page): it appends the
// page's dictionary indexes to dst.Ints (0 for a null row) and its nulls to
// dst.Nulls as Decode does, and reports true. Any other page is left
// undecoded (0, false, nil): decode it with Decode.
func (d *PageDecoder) DecodeIndexes(c *Chunk, page []byte, dict *Dictionary, dst *rows.Column) (int, bool, error) {
	h, _, err := readPageHeader(page)
	if err != nil || (h.Type != pageData && h.Type != pageDataV2) || !h.HasData ||
		(h.Encoding != EncPlainDictionary && h.Encoding != EncRLEDictionary) || dict == nil || !dict.valid {
		return 0, false, nil // Decode says what is wrong with it, if anything
	}
	d.indexes = true
	defer func() { d.indexes = false }()
	n, err := d.Decode(c, page, dict, dst)
	return n, err == nil, err
}

// Strings is a string column's dictionary values, by index (nil for a
// dictionary of other values).
func (dict *Dictionary) Strings() []string {
	if !dict.valid || dict.vals.ints != nil || dict.vals.floats != nil || dict.vals.bools != nil {
		return nil
	}
	return dict.vals.strs
}

// iota returns the indexes 0…n-1, looked up in place of a dictionary's
// values by DecodeIndexes.
func (d *PageDecoder) iota(n int) []int64 {
	for len(d.iotas) < n {
		d.iotas = append(d.iotas, int64(len(d.iotas)))
	}
	return d.iotas[:n]
}
