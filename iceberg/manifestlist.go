package iceberg

import (
	"fmt"
	"io"
	"strconv"

	"github.com/timelake/timelake/avro"
)

// ManifestFile is one entry of a manifest list (manifest_file in the spec).
type ManifestFile struct {
	ManifestPath       string
	ManifestLength     int64
	PartitionSpecID    int32
	Content            int32 // ContentData
	SequenceNumber     int64 // sequence number of the snapshot that added the manifest
	MinSequenceNumber  int64 // lowest data sequence number of the live files in it
	AddedSnapshotID    int64
	AddedFilesCount    int32
	ExistingFilesCount int32
	DeletedFilesCount  int32
	AddedRowsCount     int64
	ExistingRowsCount  int64
	DeletedRowsCount   int64
	Partitions         []FieldSummary // one per partition field; nil is written as null
	KeyMetadata        []byte
	// FirstRowID (format v3) is the first _row_id of the rows the
	// manifest's data files without one of their own hold; nil until the
	// manifest list that adds the manifest assigns it (AssignRowIDs).
	FirstRowID *int64

	// minExisting is the lowest sequence number of the manifest's EXISTING
	// entries, set by WriteManifest for Assign; hasExisting says whether
	// there are any.
	minExisting int64
	hasExisting bool
}

// FieldSummary summarises one partition field over a manifest's entries.
// Bounds are single-value serialized.
type FieldSummary struct {
	ContainsNull bool
	ContainsNaN  *bool
	LowerBound   []byte
	UpperBound   []byte
}

// Assign records that snapshot snapshotID with sequence number seq adds the
// manifest: the ADDED entries inherit both. Called again on a rebase with
// the new sequence number.
func (mf *ManifestFile) Assign(snapshotID, seq int64) {
	mf.AddedSnapshotID = snapshotID
	mf.SequenceNumber = seq
	mf.MinSequenceNumber = seq
	if mf.hasExisting && mf.minExisting < seq {
		mf.MinSequenceNumber = mf.minExisting
	}
}

func (mf *ManifestFile) count(e *ManifestEntry) {
	switch e.Status {
	case StatusAdded:
		mf.AddedFilesCount++
		mf.AddedRowsCount += e.DataFile.RecordCount
	case StatusExisting:
		mf.ExistingFilesCount++
		mf.ExistingRowsCount += e.DataFile.RecordCount
		if !mf.hasExisting || e.SequenceNumber < mf.minExisting {
			mf.minExisting = e.SequenceNumber
		}
		mf.hasExisting = true
	case StatusDeleted:
		mf.DeletedFilesCount++
		mf.DeletedRowsCount += e.DataFile.RecordCount
	}
}

// partitionSummary accumulates the bounds of an int partition field.
type partitionSummary struct {
	lo, hi int32
	any    bool
}

func (p *partitionSummary) add(v int32) {
	if !p.any || v < p.lo {
		p.lo = v
	}
	if !p.any || v > p.hi {
		p.hi = v
	}
	p.any = true
}

func (p *partitionSummary) summary() FieldSummary {
	f := false
	s := FieldSummary{ContainsNull: false, ContainsNaN: &f}
	if p.any {
		s.LowerBound, s.UpperBound = EncodeInt(p.lo), EncodeInt(p.hi)
	}
	return s
}

// Manifest list header keys. persisted: must not change.
const (
	metaSnapshotID       = "snapshot-id"
	metaParentSnapshotID = "parent-snapshot-id"
	metaSequenceNumber   = "sequence-number"
)

// WriteManifestList writes the v2 manifest list of snapshot snapshotID
// (sequence number seq; parentID nil for the first snapshot) to w.
func WriteManifestList(w io.Writer, snapshotID int64, parentID *int64, seq int64, files []ManifestFile, sync [avro.SyncSize]byte) error {
	return WriteManifestListVersion(w, FormatVersion, snapshotID, parentID, seq, files, sync)
}

// WriteManifestListVersion is WriteManifestList for a table of format
// version 2 or 3. In a v3 list every data manifest must have its
// first_row_id (AssignRowIDs).
func WriteManifestListVersion(w io.Writer, version int, snapshotID int64, parentID *int64, seq int64, files []ManifestFile, sync [avro.SyncSize]byte) error {
	parent := "null" // what Java and pyiceberg write for no parent
	if parentID != nil {
		parent = strconv.FormatInt(*parentID, 10)
	}
	ls := listSchema()
	switch version {
	case 2:
	case 3:
		ls = listSchemaV3()
	default:
		return fmt.Errorf("iceberg: manifest list: format-version %d is not written", version)
	}
	aw, err := avro.NewWriter(w, ls.schema, avro.WriterOptions{
		Codec:        manifestCodec,
		DeflateLevel: manifestDeflateLevel,
		Sync:         sync,
		SchemaJSON:   ls.json,
		Meta: map[string][]byte{
			metaFormatVersion:    []byte(strconv.Itoa(version)),
			metaSnapshotID:       []byte(strconv.FormatInt(snapshotID, 10)),
			metaParentSnapshotID: []byte(parent),
			metaSequenceNumber:   []byte(strconv.FormatInt(seq, 10)),
		},
	})
	if err != nil {
		return err
	}
	var b []byte
	for i := range files {
		mf := &files[i]
		if mf.ManifestPath == "" {
			return fmt.Errorf("iceberg: manifest list entry %d has no path", i)
		}
		if mf.SequenceNumber > seq {
			return fmt.Errorf("iceberg: manifest %s has sequence number %d above the snapshot's %d", mf.ManifestPath, mf.SequenceNumber, seq)
		}
		if version == 3 && mf.Content == ContentData && mf.FirstRowID == nil {
			return fmt.Errorf("iceberg: manifest list entry %d (%s) has no first_row_id", i, mf.ManifestPath)
		}
		b = appendManifestFile(b[:0], mf)
		if version == 3 {
			b = appendOptLong(b, mf.FirstRowID)
		}
		if err := aw.AppendEncoded(b); err != nil {
			return err
		}
	}
	return aw.Close()
}

func appendOptBytes(b, v []byte) []byte {
	if v == nil {
		return avro.AppendUnion(b, 0)
	}
	return avro.AppendBytes(avro.AppendUnion(b, 1), v)
}

func appendManifestFile(b []byte, mf *ManifestFile) []byte {
	b = avro.AppendString(b, mf.ManifestPath)
	b = avro.AppendLong(b, mf.ManifestLength)
	b = avro.AppendInt(b, mf.PartitionSpecID)
	b = avro.AppendInt(b, mf.Content)
	b = avro.AppendLong(b, mf.SequenceNumber)
	b = avro.AppendLong(b, mf.MinSequenceNumber)
	b = avro.AppendLong(b, mf.AddedSnapshotID)
	b = avro.AppendInt(b, mf.AddedFilesCount)
	b = avro.AppendInt(b, mf.ExistingFilesCount)
	b = avro.AppendInt(b, mf.DeletedFilesCount)
	b = avro.AppendLong(b, mf.AddedRowsCount)
	b = avro.AppendLong(b, mf.ExistingRowsCount)
	b = avro.AppendLong(b, mf.DeletedRowsCount)
	if mf.Partitions == nil {
		b = avro.AppendUnion(b, 0)
	} else {
		b = avro.AppendUnion(b, 1)
		if len(mf.Partitions) > 0 {
			b = avro.AppendLong(b, int64(len(mf.Partitions)))
			for _, p := range mf.Partitions {
				b = avro.AppendBool(b, p.ContainsNull)
				if p.ContainsNaN == nil {
					b = avro.AppendUnion(b, 0)
				} else {
					b = avro.AppendBool(avro.AppendUnion(b, 1), *p.ContainsNaN)
				}
				b = appendOptBytes(b, p.LowerBound)
				b = appendOptBytes(b, p.UpperBound)
			}
		}
		b = avro.AppendLong(b, 0)
	}
	return appendOptBytes(b, mf.KeyMetadata)
}

// ManifestList is a manifest list read back.
type ManifestList struct {
	SnapshotID       int64
	ParentSnapshotID *int64
	SequenceNumber   int64
	Files            []ManifestFile
	v1               bool // read from a format v1 list
}

// ReadManifestList reads a v2 manifest list. path is used in errors only.
func ReadManifestList(data []byte, path string) (*ManifestList, error) {
	return readManifestList(nil, data, path)
}

// ReadManifestListCached is ReadManifestList reusing c's block buffer
// (see avro.Cache), for reading many lists in a row.
func ReadManifestListCached(c *avro.Cache, data []byte, path string) (*ManifestList, error) {
	return readManifestList(c, data, path)
}

func readManifestList(c *avro.Cache, data []byte, path string) (*ManifestList, error) {
	l := &ManifestList{}
	r, err := openManifestList(c, data, path, l)
	if err != nil {
		return nil, err
	}
	mr := newManifestFileReader(r.Schema, true, l.v1)
	err = r.Decode(func(d *avro.Decoder) error {
		var mf ManifestFile
		if err := mr.read(d, &mf, nil); err != nil {
			return err
		}
		l.Files = append(l.Files, mf)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("iceberg: manifest list %s: %w", path, err)
	}
	return l, nil
}

// ManifestListPaths calls each with the manifest_path of every entry of a
// v2 manifest list, checking every entry as ReadManifestList does but
// keeping nothing: the path aliases c's block buffer (copy it to keep it).
// It is what a reader that only follows the list to its manifests needs,
// without a ManifestFile per entry. c may be nil.
func ManifestListPaths(c *avro.Cache, data []byte, path string, each func(manifestPath []byte) error) error {
	l := &ManifestList{}
	r, err := openManifestList(c, data, path, l)
	if err != nil {
		return err
	}
	mr := newManifestFileReader(r.Schema, false, l.v1)
	var mf ManifestFile
	err = r.Decode(func(d *avro.Decoder) error {
		var p []byte
		if err := mr.read(d, &mf, &p); err != nil {
			return err
		}
		return each(p)
	})
	if err != nil {
		return fmt.Errorf("iceberg: manifest list %s: %w", path, err)
	}
	return nil
}

// openManifestList reads the header of a manifest list into l.
func openManifestList(c *avro.Cache, data []byte, path string, l *ManifestList) (*avro.Reader, error) {
	fail := func(format string, args ...any) (*avro.Reader, error) {
		return nil, fmt.Errorf("iceberg: manifest list %s: "+format, append([]any{path}, args...)...)
	}
	var r *avro.Reader
	var err error
	if c != nil {
		r, err = c.NewReader(data)
	} else {
		r, err = avro.NewReader(data)
	}
	if err != nil {
		return fail("%w", err)
	}
	switch v := string(r.Meta[metaFormatVersion]); v {
	case "2", "3":
	case "", "1": // v1 writers may leave the key out
		l.v1 = true
	default:
		return nil, unsupported("manifest list %s has format-version %q", path, v)
	}
	meta := func(key string) (int64, bool, error) {
		v, ok := r.Meta[key]
		if !ok || string(v) == "null" {
			return 0, false, nil
		}
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("iceberg: manifest list %s: header %s %q is not a number", path, key, v)
		}
		return n, true, nil
	}
	if l.SnapshotID, _, err = meta(metaSnapshotID); err != nil {
		return nil, err
	}
	if l.SequenceNumber, _, err = meta(metaSequenceNumber); err != nil {
		return nil, err
	}
	if p, ok, err := meta(metaParentSnapshotID); err != nil {
		return nil, err
	} else if ok {
		l.ParentSnapshotID = &p
	}
	return r, nil
}

// AssignRowIDs gives each data manifest of files that has no first_row_id
// one, in list order from next, advancing next by its added and existing
// rows (as Java's v3 manifest list writer does: existing rows that already
// have ids are counted again, which leaves gaps but never reuses an id).
// It returns the next unassigned id. files is modified: callers pass a
// copy per commit attempt, since a rebase assigns again from the winner's
// next-row-id.
func AssignRowIDs(files []ManifestFile, next int64) int64 {
	for i := range files {
		mf := &files[i]
		if mf.Content != ContentData || mf.FirstRowID != nil {
			continue
		}
		id := next
		mf.FirstRowID = &id
		next += mf.AddedRowsCount + mf.ExistingRowsCount
	}
	return next
}
