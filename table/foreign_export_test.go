package table

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store"
)

// ForeignOp is a snapshot another engine commits, for tests: its files and
// summary carry none of Timelake's conventions (no timelake.* summary keys,
// no statistics entry; rows in the order given if Unsorted).
type ForeignOp struct {
	Operation string      // "append" (default), "overwrite", …
	Rows      *rows.Batch // appended (one partition); _ingest_ts as given
	Unsorted  bool        // write the rows in the order given, not sorted
	NoIngest  bool        // (for the caller) rows without _ingest_ts
}

// CommitForeign commits op on top of the newest version, the way another
// engine would, and returns the new snapshot's id.
func CommitForeign(ctx context.Context, st store.Store, env Env, op ForeignOp) (int64, error) {
	tb, err := Open(ctx, st, env)
	if err != nil {
		return 0, err
	}
	if op.Operation == "" {
		op.Operation = "append"
	}
	snapID, err := env.snapshotID()
	if err != nil {
		return 0, err
	}
	seq := tb.meta.LastSequenceNumber + 1
	in := op.Rows // as given (one partition), or sorted
	if !op.Unsorted {
		in = rows.SortDedup(op.Rows)
	}
	files, dfs, err := tb.writeDataFiles(in)
	if err != nil {
		return 0, err
	}
	if len(dfs) != 1 {
		return 0, fmt.Errorf("foreign op: %d files; give rows of one partition", len(dfs))
	}
	for _, f := range files {
		if err := st.Put(ctx, f.Key, f.Data); err != nil {
			return 0, err
		}
	}
	sync := [16]byte{1}
	var mbuf bytes.Buffer
	mf, err := iceberg.WriteManifest(&mbuf, *tb.meta.CurrentSchema(), *tb.meta.DefaultSpec(),
		[]iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: dfs[0]}}, sync)
	if err != nil {
		return 0, err
	}
	mkey := fmt.Sprintf("metadata/foreign-%d-m0.avro", snapID)
	if err := st.Put(ctx, mkey, mbuf.Bytes()); err != nil {
		return 0, err
	}
	mf.ManifestPath = tb.location(mkey)
	mf.Assign(snapID, seq)
	list := []iceberg.ManifestFile{mf}
	var parentID *int64
	var total int64
	if p := tb.meta.CurrentSnapshot(); p != nil {
		parentID = &p.SnapshotID
		ml, err := tb.readManifestList(ctx, p)
		if err != nil {
			return 0, err
		}
		list = append(list, ml.Files...)
		total, _ = strconv.ParseInt(p.Summary["total-records"], 10, 64)
	}
	var lbuf bytes.Buffer
	if err := iceberg.WriteManifestList(&lbuf, snapID, parentID, seq, list, sync); err != nil {
		return 0, err
	}
	lkey := fmt.Sprintf("metadata/snap-%d-foreign.avro", snapID)
	if err := st.Put(ctx, lkey, lbuf.Bytes()); err != nil {
		return 0, err
	}
	raw, _, err := tb.nextMetadata(tb.version, iceberg.Snapshot{
		SnapshotID: snapID, ParentSnapshotID: parentID, SequenceNumber: seq,
		TimestampMs: env.Now().UnixMilli(), ManifestList: tb.location(lkey),
		Summary: map[string]string{
			"operation":     op.Operation,
			"added-records": strconv.FormatInt(dfs[0].RecordCount, 10),
			"total-records": strconv.FormatInt(total+dfs[0].RecordCount, 10),
		},
	}, nil)
	if err != nil {
		return 0, err
	}
	ok, err := st.PutIfAbsent(ctx, commit.MetadataKey(tb.version.N+1), raw)
	if err != nil || !ok {
		return 0, fmt.Errorf("foreign commit: %v (written %v)", err, ok)
	}
	return snapID, nil
}

// IndexKey is the store key of the index snapshot id names ("" if none).
func (tb *Table) IndexKey(id int64) string {
	s := tb.meta.SnapshotByID(id)
	if s == nil {
		return ""
	}
	k, _ := tb.keyOf(tb.indexPath(s))
	return k
}
