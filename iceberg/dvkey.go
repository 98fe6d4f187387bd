package iceberg

import "strings"

// FormatPuffin is the file_format of a deletion vector's Puffin file.
// persisted: must not change.
const FormatPuffin = "PUFFIN"

// IsDV reports whether f is a deletion vector (format v3): position
// deletes as a deletion-vector-v1 blob of a Puffin file, for the one data
// file ReferencedDataFile.
func (f *DataFile) IsDV() bool {
	return f.Content == ContentPositionDeletes && strings.EqualFold(f.Format, FormatPuffin)
}

// EntryKey tells a live entry from every other live entry of a snapshot:
// its path, and for a deletion vector its path and the data file it
// references, since one Puffin file holds the vectors of several data
// files (each its own entry) and a snapshot has at most one vector per
// data file. maintenance.File.Key gives the same key.
func (f *DataFile) EntryKey() string {
	if f.IsDV() {
		return DVKey(f.Path, f.ReferencedDataFile)
	}
	return f.Path
}

// DVKey is the EntryKey of the deletion vector in the Puffin file puffin
// for the data file referenced.
func DVKey(puffin, referenced string) string { return puffin + "\x00dv:" + referenced }

// ContentSize is the bytes f counts for in a snapshot summary's file
// sizes: a deletion vector its blob's (content_size_in_bytes), since the
// vectors of one Puffin file share it, as Iceberg's Java library counts
// them; any other file its size.
func (f *DataFile) ContentSize() int64 {
	if f.IsDV() && f.ContentSizeInBytes != nil {
		return *f.ContentSizeInBytes
	}
	return f.FileSize
}
