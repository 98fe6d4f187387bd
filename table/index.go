package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/puffin"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store"
)

// The last-value index of a snapshot is a Puffin file
// (metadata/lastvalue-<snapshot-id>-<uuid>.puffin) holding one blob of type
// IndexBlobType, uncompressed: the index's Parquet bytes (package
// lastvalue). It is listed in the table metadata's "statistics" for its
// snapshot, so other engines' snapshot expiry and orphan cleanup keep it
// while the snapshot lives and remove it with the snapshot; readers that do
// not know the blob type skip it. The summary key lastvalue.SummaryKey
// names the same file, for older Timelake versions (which then fail loudly
// on a Puffin file rather than append to a table they would misread, and
// whose cleanup counts it as reachable). A read looks at the statistics
// entry first, then the summary key (tables written before the Puffin
// index have Parquet files there).
//
// The statistics entry lists no blobs ("blob-metadata": []): pyiceberg
// (0.12) refuses table metadata whose blob-metadata has a type other than
// the two it knows, so our blob is described only in the Puffin file's own
// footer. An entry is ours when its file name is lastvalue-….puffin (or,
// should a later version list the blob, when it lists IndexBlobType); the
// Puffin footer then says where the blob is.

// IndexBlobType is the Puffin blob type of the last-value index.
// persisted: must not change.
const IndexBlobType = "timelake-last-value-index-v1"

// indexCreatedBy is the Puffin footer's created-by property.
const indexCreatedBy = "timelake"

// indexKeyFormat is the store key of an index: snapshot id, attempt uuid.
// persisted: must not change.
const indexKeyFormat = "metadata/lastvalue-%d-%s.puffin"

// indexFile builds the Puffin file of idx for snapshot snapID (sequence
// number seq) at key, and its statistics entry.
func (tb *Table) indexFile(idx *rows.Batch, snapID, seq int64, key string) (commit.File, iceberg.StatisticsFile, error) {
	pq, err := lastvalue.Encode(idx)
	if err != nil {
		return commit.File{}, iceberg.StatisticsFile{}, err
	}
	fields := make([]int, 0, len(tb.schema.Fields))
	for _, f := range tb.schema.Fields {
		fields = append(fields, f.ID)
	}
	data, pf, err := puffin.Write([]puffin.Blob{{
		BlobMetadata: puffin.BlobMetadata{Type: IndexBlobType, Fields: fields, SnapshotID: snapID, SequenceNumber: seq},
		Data:         pq,
	}}, map[string]string{"created-by": indexCreatedBy})
	if err != nil {
		return commit.File{}, iceberg.StatisticsFile{}, err
	}
	stat := iceberg.StatisticsFile{
		SnapshotID: snapID, StatisticsPath: tb.location(key),
		FileSizeInBytes: int64(len(data)), FileFooterSizeInBytes: pf.FooterSize,
		BlobMetadata: []iceberg.BlobMetadata{}, // see above: pyiceberg refuses types it does not know
	}
	return commit.File{Key: key, Data: data}, stat, nil
}

// indexPath is where snapshot s's index is, by its statistics entry, else
// its summary key; "" when it names none.
func (tb *Table) indexPath(s *iceberg.Snapshot) string {
	if st := tb.meta.StatisticsFor(s.SnapshotID); st != nil && isIndexStatistics(st) {
		return st.StatisticsPath
	}
	return s.Summary[lastvalue.SummaryKey]
}

// isIndexStatistics says whether a statistics entry is a last-value index.
func isIndexStatistics(st *iceberg.StatisticsFile) bool {
	if slices.ContainsFunc(st.BlobMetadata, func(b iceberg.BlobMetadata) bool { return b.Type == IndexBlobType }) {
		return true
	}
	name := path.Base(st.StatisticsPath)
	return len(st.BlobMetadata) == 0 && strings.HasPrefix(name, "lastvalue-") && strings.HasSuffix(name, ".puffin")
}

// readIndex reads the index snapshot s names; nil when it names none or
// the file is missing (deleted by someone: it is rebuilt, see indexOf).
func (tb *Table) readIndex(ctx context.Context, s *iceberg.Snapshot) (*rows.Batch, error) {
	path := tb.indexPath(s)
	if path == "" {
		return nil, nil
	}
	key, err := tb.keyOf(path)
	if err != nil {
		return nil, err
	}
	data, err := store.GetLimited(ctx, tb.st, key, MaxFileBytes)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read last-value index: %w", err)
	}
	idx, err := decodeIndex(data, tb)
	if err != nil && tb.writeErr != nil {
		// written before another engine changed the table: not corrupt
		return nil, fmt.Errorf("read last-value index %s: %w", key, tb.writeErr)
	}
	if err != nil {
		return nil, datafile.FileErr(key, err)
	}
	return idx, nil
}

// decodeIndex reads a Puffin index, or the bare Parquet of older tables.
func decodeIndex(data []byte, tb *Table) (*rows.Batch, error) {
	if !bytes.HasPrefix(data, []byte(puffin.Magic)) {
		return lastvalue.Decode(data, tb.schema)
	}
	pf, err := puffin.Read(data)
	if err != nil {
		return nil, err
	}
	i := pf.Find(IndexBlobType)
	if i < 0 {
		return nil, fmt.Errorf("no %s blob", IndexBlobType)
	}
	blob, err := pf.BlobData(data, i)
	if err != nil {
		return nil, err
	}
	return lastvalue.Decode(blob, tb.schema)
}

// indexState is the index in force at a snapshot, and whether the
// snapshot's own stored file holds it (else it was caught up).
type indexState struct {
	snapID int64
	idx    *rows.Batch
	stored bool
}

// indexOf returns the index in force at s: its stored file, or one caught
// up from the newest ancestor that has one (catchup.go). It never writes;
// the next commit stores what it returns. The last answer is kept, so a
// rebase onto the same snapshot does not read it again.
func (tb *Table) indexOf(ctx context.Context, s *iceberg.Snapshot) (indexState, error) {
	if s == nil {
		return indexState{}, nil
	}
	if c := tb.lastIndex; c != nil && c.snapID == s.SnapshotID {
		return *c, nil
	}
	idx, err := tb.readIndex(ctx, s)
	if err != nil {
		return indexState{}, err
	}
	st := indexState{snapID: s.SnapshotID, idx: idx, stored: idx != nil}
	if idx == nil {
		if st.idx, err = tb.catchUp(ctx, s); err != nil {
			return indexState{}, fmt.Errorf("last-value index catch-up: %w", err)
		}
	}
	tb.lastIndex = &st
	return st, nil
}

// carriedIndex is the statistics entry for snapshot snapID (sequence
// number seq) naming the same index file as parent's, when parent's is a
// Puffin file listed in its statistics; nil otherwise.
func (tb *Table) carriedIndex(parent *iceberg.Snapshot, snapID int64) *iceberg.StatisticsFile {
	st := tb.meta.StatisticsFor(parent.SnapshotID)
	if st == nil || !isIndexStatistics(st) {
		return nil
	}
	return &iceberg.StatisticsFile{
		SnapshotID: snapID, StatisticsPath: st.StatisticsPath, FileSizeInBytes: st.FileSizeInBytes,
		FileFooterSizeInBytes: st.FileFooterSizeInBytes, BlobMetadata: slices.Clone(st.BlobMetadata),
	}
}

// statisticsPaths lists the statistics and partition-statistics files of
// the current metadata by snapshot id.
func (tb *Table) statisticsPaths() (map[int64][]string, error) {
	out := map[int64][]string{}
	for _, s := range tb.meta.Statistics {
		out[s.SnapshotID] = append(out[s.SnapshotID], s.StatisticsPath)
	}
	ps, err := tb.meta.PartitionStatistics()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorruptTable, err)
	}
	for _, s := range ps {
		out[s.SnapshotID] = append(out[s.SnapshotID], s.StatisticsPath)
	}
	return out, nil
}

// unsupportedIndex returns err when it says the index cannot be caught up
// over what the table holds (ErrUnsupportedTable: equality deletes,
// deletion vectors, position deletes past catchUpDeleteLimits), else nil.
// A commit on such a snapshot (an append, a compaction that may apply
// those deletes) goes on without an index: its snapshot names none,
// Latest keeps refusing by name, and the first commit after the deletes
// are gone catches up from every live file (an overwrite or delete lies
// between).
func unsupportedIndex(err error) error {
	if errors.Is(err, ErrUnsupportedTable) {
		return err
	}
	return nil
}
