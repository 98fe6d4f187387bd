// Package puffin writes and reads Apache Iceberg's Puffin files: blobs of
// statistics or indexes with a JSON footer that describes them. It is pure
// (bytes in, bytes out) and knows nothing of what the blobs hold.
//
// Layout (Iceberg's Puffin spec; all integers little-endian):
//
//	Magic                      "PFA1" (4 bytes)
//	Blob₁ … Blobₙ              the blobs' bytes, back to back
//	Footer:
//	  Magic                    "PFA1"
//	  FooterPayload            UTF-8 JSON: {"blobs": [BlobMetadata…], "properties": {…}}
//	  FooterPayloadSize        int32, the payload's length in bytes
//	  Flags                    4 bytes; bit 0 of byte 0: the payload is LZ4-compressed
//	  Magic                    "PFA1"
//
// A BlobMetadata names its blob by offset and length from the start of the
// file. The footer's size (file-footer-size-in-bytes in table metadata) is
// the payload's plus 16. This package writes uncompressed blobs and an
// uncompressed footer; it reads compressed footers or blobs as errors.
package puffin

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
)

// Magic starts and ends a Puffin file and starts its footer.
// persisted: must not change.
const Magic = "PFA1"

// MaxFooterBytes bounds the footer payload Read accepts.
const MaxFooterBytes = 16 << 20

// ErrFormat: the bytes are not a Puffin file this package reads.
var ErrFormat = errors.New("puffin: not a readable Puffin file")

// BlobMetadata describes one blob in the footer. Member names are the spec's.
// persisted: must not change.
type BlobMetadata struct {
	Type             string            `json:"type"`
	Fields           []int             `json:"fields"`
	SnapshotID       int64             `json:"snapshot-id"`
	SequenceNumber   int64             `json:"sequence-number"`
	Offset           int64             `json:"offset"`
	Length           int64             `json:"length"`
	CompressionCodec string            `json:"compression-codec,omitempty"`
	Properties       map[string]string `json:"properties,omitempty"`
}

// Blob is a blob to write: its metadata (Offset and Length are set by
// Write) and its bytes.
type Blob struct {
	BlobMetadata
	Data []byte
}

// footer is the footer payload. persisted: must not change.
type footer struct {
	Blobs      []BlobMetadata    `json:"blobs"`
	Properties map[string]string `json:"properties,omitempty"`
}

// File is a written or read Puffin file's description.
type File struct {
	Blobs      []BlobMetadata
	Properties map[string]string
	FooterSize int64 // file-footer-size-in-bytes: from the footer's magic to the end
}

// Write returns a Puffin file holding blobs, uncompressed, and its
// description (the blobs' offsets and lengths, the footer size).
func Write(blobs []Blob, properties map[string]string) ([]byte, *File, error) {
	var b bytes.Buffer
	b.WriteString(Magic)
	f := footer{Blobs: make([]BlobMetadata, 0, len(blobs)), Properties: properties}
	for _, bl := range blobs {
		if bl.Type == "" {
			return nil, nil, errors.New("puffin: a blob needs a type")
		}
		if bl.CompressionCodec != "" {
			return nil, nil, fmt.Errorf("puffin: blob %q: compression %q is not written by this package", bl.Type, bl.CompressionCodec)
		}
		m := bl.BlobMetadata
		if m.Fields == nil {
			m.Fields = []int{}
		}
		m.Offset, m.Length = int64(b.Len()), int64(len(bl.Data))
		b.Write(bl.Data)
		f.Blobs = append(f.Blobs, m)
	}
	payload, err := json.Marshal(f)
	if err != nil {
		return nil, nil, err
	}
	if len(payload) > MaxFooterBytes {
		return nil, nil, fmt.Errorf("puffin: footer of %d bytes is too large", len(payload))
	}
	b.WriteString(Magic)
	b.Write(payload)
	var tail [8]byte
	binary.LittleEndian.PutUint32(tail[:4], uint32(len(payload)))
	b.Write(tail[:]) // flags: zero (uncompressed footer)
	b.WriteString(Magic)
	return b.Bytes(), &File{Blobs: f.Blobs, Properties: properties, FooterSize: int64(len(payload)) + 16}, nil
}

// Read parses data as a Puffin file and checks that every blob lies
// between the leading magic and the footer.
func Read(data []byte) (*File, error) {
	n := int64(len(data))
	if n < 4+16 || string(data[:4]) != Magic || string(data[n-4:]) != Magic {
		return nil, fmt.Errorf("%w: no %s magic at both ends (%d bytes)", ErrFormat, Magic, n)
	}
	size := int64(binary.LittleEndian.Uint32(data[n-12 : n-8]))
	flags := data[n-8 : n-4]
	if flags[0]&1 != 0 {
		return nil, fmt.Errorf("%w: compressed footer", ErrFormat)
	}
	if size > MaxFooterBytes || size > n-4-16 {
		return nil, fmt.Errorf("%w: footer payload of %d bytes in a file of %d", ErrFormat, size, n)
	}
	start := n - 12 - size - 4 // the footer's magic
	if string(data[start:start+4]) != Magic {
		return nil, fmt.Errorf("%w: no magic at the footer's start (offset %d)", ErrFormat, start)
	}
	var f footer
	dec := json.NewDecoder(bytes.NewReader(data[start+4 : start+4+size]))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: footer: %v", ErrFormat, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: footer: data after the JSON object", ErrFormat)
	}
	for i, b := range f.Blobs {
		if b.Type == "" {
			return nil, fmt.Errorf("%w: blob %d has no type", ErrFormat, i)
		}
		if b.Offset < 4 || b.Length < 0 || b.Offset > start || b.Length > start-b.Offset {
			return nil, fmt.Errorf("%w: blob %d (%s) at %d (+%d) is outside [4, %d)", ErrFormat, i, b.Type, b.Offset, b.Length, start)
		}
	}
	return &File{Blobs: f.Blobs, Properties: f.Properties, FooterSize: size + 16}, nil
}

// BlobData returns blob i's bytes from data, the file Read parsed. A
// compressed blob is an error.
func (f *File) BlobData(data []byte, i int) ([]byte, error) {
	b := f.Blobs[i]
	if b.CompressionCodec != "" {
		return nil, fmt.Errorf("%w: blob %d (%s) is compressed with %q", ErrFormat, i, b.Type, b.CompressionCodec)
	}
	return data[b.Offset : b.Offset+b.Length : b.Offset+b.Length], nil
}

// Find returns the index of the first blob of type typ, or -1.
func (f *File) Find(typ string) int {
	for i, b := range f.Blobs {
		if b.Type == typ {
			return i
		}
	}
	return -1
}
