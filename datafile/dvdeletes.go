package datafile

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/timelake/timelake/deletionvector"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/store"
)

// Deletion vectors (Iceberg format 3, spec "Deletion Vectors"): a
// deletion-vector-v1 blob of a Puffin file, one per data file, named by a
// delete manifest entry (content 1, file_format PUFFIN) with the data file
// it applies to (referenced_data_file) and the blob's place in the Puffin
// file (content_offset, content_size_in_bytes). It applies to that data
// file when the data file's data sequence number is at most the vector's;
// a data file has at most one that applies, and when it has one, position
// delete files are ignored for it (a writer merges them into the vector).
// Only the blobs are read, by range: nearby blobs of one Puffin file in
// one request.

// dvGap is the most bytes of other blobs one range read spans to fetch
// the next vector of the same Puffin file in the same request.
const dvGap = 1 << 20

// readDVs reads the deletion vectors of dvs that apply to the data files
// whose data sequence numbers seqOf holds (by store key), and returns them
// by data file store key. used counts what they hold against lim.Positions.
func readDVs(ctx context.Context, st store.Store, keyOf func(string) (string, error), seqOf map[string]int64, dvs []maintenance.File, lim DeleteLimits, used *int, bytesRead *int64) (map[string]*deletionvector.Vector, error) {
	type want struct {
		f      maintenance.File
		target string // the data file's store key
	}
	byFile := map[string][]want{} // by Puffin store key
	var order []string
	from := map[string]string{} // data file key → the Puffin file of its vector
	for _, d := range dvs {
		target, err := keyOf(d.Referenced)
		if err != nil {
			continue // a data file outside the table: none of its files
		}
		seq, ok := seqOf[target]
		if !ok || seq > d.Seq {
			continue // another file's, or one written after the vector
		}
		key, err := keyOf(d.Path)
		if err != nil {
			return nil, err
		}
		if prev, ok := from[target]; ok {
			return nil, fmt.Errorf("%w: two deletion vectors apply to %s (in %s and %s); a snapshot has at most one per data file", ErrCorrupt, target, prev, key)
		}
		from[target] = key
		if d.Offset < 0 || d.Length < 12 || (d.Size > 0 && d.Offset+d.Length > d.Size) {
			return nil, fmt.Errorf("%w: %s: deletion vector of %s at %d (+%d) is outside the file of %d bytes", ErrCorrupt, key, target, d.Offset, d.Length, d.Size)
		}
		if d.Length > lim.FileBytes {
			return nil, fmt.Errorf("%w: deletion vector of %s is %d bytes, over the %d bytes %s reads of one; a compaction applies it", iceberg.ErrUnsupported, target, d.Length, lim.FileBytes, lim.What)
		}
		// A vector holds about a position in 2 bytes of blob, or a whole
		// run in 4: counted by its bytes, what it costs to hold.
		if *used += int(d.Length / 8); *used > lim.Positions {
			return nil, fmt.Errorf("%w: more than %d position deletes in %s (%s); a compaction applies them", iceberg.ErrUnsupported, lim.Positions, lim.What, key)
		}
		if byFile[key] == nil {
			order = append(order, key)
		}
		byFile[key] = append(byFile[key], want{d, target})
	}
	out := map[string]*deletionvector.Vector{}
	for _, key := range order {
		ws := byFile[key]
		slices.SortFunc(ws, func(a, b want) int { return cmp.Compare(a.f.Offset, b.f.Offset) })
		for i := 0; i < len(ws); {
			// one request for ws[i:j]: blobs no more than dvGap apart
			start, end, j := ws[i].f.Offset, ws[i].f.Offset+ws[i].f.Length, i+1
			for j < len(ws) && ws[j].f.Offset-end <= dvGap && ws[j].f.Offset+ws[j].f.Length-start <= lim.FileBytes {
				end = max(end, ws[j].f.Offset+ws[j].f.Length)
				j++
			}
			data, err := st.GetRange(ctx, key, start, end-start)
			if err != nil {
				return nil, fmt.Errorf("read deletion vector: %s: %w", key, err)
			}
			*bytesRead += int64(len(data))
			for _, w := range ws[i:j] {
				at := w.f.Offset - start
				v, err := deletionvector.Decode(data[at : at+w.f.Length])
				if err != nil {
					return nil, fmt.Errorf("%w: %s: deletion vector of %s at %d: %v", ErrCorrupt, key, w.target, w.f.Offset, err)
				}
				if v.Cardinality() != w.f.Rows {
					return nil, fmt.Errorf("%w: %s: deletion vector of %s holds %d positions, its record_count says %d", ErrCorrupt, key, w.target, v.Cardinality(), w.f.Rows)
				}
				out[w.target] = v
			}
			i = j
		}
	}
	return out, nil
}
