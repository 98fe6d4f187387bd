package parquet

import (
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestDecodeIndexes: every data page of every column of a file of all
// types, decoded as dictionary indexes and as values: the indexes of a
// dictionary-encoded page look up the values Decode gives (nulls alike);
// any other page is left to Decode (false, nothing appended).
func TestDecodeIndexes(t *testing.T) {
	const n = 30_000
	cols := makeRows(n, 5)
	data, _ := writeFile(t, allTypes, Options{}, cols, n)
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	var dec PageDecoder
	sawIdx, sawNulls, sawOther := 0, false, 0
	for c, spec := range allTypes {
		chunk, err := f.Meta().Chunk(0, c)
		if err != nil {
			t.Fatal(err)
		}
		oi, _ := f.OffsetIndex(0, c)
		var dict Dictionary
		if m := chunk.Meta; m.HasDictionaryPage {
			if _, err := DecodePage(chunk, data[m.DictionaryPageOffset:m.DataPageOffset], &dict, nil); err != nil {
				t.Fatal(err)
			}
		}
		for i, p := range oi.Pages {
			page := data[p.Offset : p.Offset+int64(p.CompressedPageSize)]
			var want, got rows.Column
			if _, err := dec.Decode(chunk, page, &dict, &want); err != nil {
				t.Fatal(err)
			}
			k, ok, err := dec.DecodeIndexes(chunk, page, &dict, &got)
			if err != nil {
				t.Fatalf("column %s page %d: %v", spec.Name, i, err)
			}
			if !ok {
				sawOther++
				if k != 0 || got.Len(schema.Long) != 0 || got.Nulls != nil {
					t.Errorf("column %s page %d: not a dictionary page, yet %d bytes used, %d indexes", spec.Name, i, k, got.Len(schema.Long))
				}
				continue
			}
			if k != len(page) {
				t.Errorf("column %s page %d: %d bytes used of %d", spec.Name, i, k, len(page))
			}
			sawIdx++
			rowsN := want.Len(spec.Type)
			if len(got.Ints) != rowsN || len(got.Nulls) != len(want.Nulls) {
				t.Fatalf("column %s page %d: %d indexes, %d nulls; values %d, nulls %d", spec.Name, i, len(got.Ints), len(got.Nulls), rowsN, len(want.Nulls))
			}
			strs := dict.Strings()
			for r := range rowsN {
				null := want.Nulls != nil && want.Nulls[r]
				if got.Nulls != nil && got.Nulls[r] != null {
					t.Fatalf("column %s page %d row %d: null %v, want %v", spec.Name, i, r, got.Nulls[r], null)
				}
				if null {
					sawNulls = true
					continue
				}
				if spec.Type == schema.String && strs[got.Ints[r]] != want.Strs[r] {
					t.Fatalf("column %s page %d row %d: index %d is %q, want %q", spec.Name, i, r, got.Ints[r], strs[got.Ints[r]], want.Strs[r])
				}
			}
		}
	}
	t.Logf("%d pages as indexes (nulls among them: %v), %d left to Decode", sawIdx, sawNulls, sawOther)
	if sawIdx == 0 || sawOther == 0 || !sawNulls {
		t.Errorf("%d pages as indexes, %d others, nulls seen %v: want some of each", sawIdx, sawOther, sawNulls)
	}
}
