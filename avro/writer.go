package avro

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/flate"
)

// WriterOptions configure a Writer.
type WriterOptions struct {
	// Codec is Null (the default) or Deflate. The writer does not write
	// snappy or zstandard; the reader reads them.
	Codec Codec
	// Sync is the 16-byte marker after the header and every block. The
	// caller chooses it (e.g. from a file's UUID) so output is reproducible.
	Sync [SyncSize]byte
	// Meta holds the caller's header metadata; keys starting with "avro."
	// are reserved. They are written after avro.schema and avro.codec, in
	// sorted key order.
	Meta map[string][]byte
	// BlockSize is the uncompressed size at which Append starts a new
	// block; 0 means 64 KiB.
	BlockSize int
	// DeflateLevel is the deflate level (1–9); 0 means flate.DefaultCompression.
	DeflateLevel int
	// SchemaJSON, when set, is the schema's JSON (what Schema.AppendJSON
	// gives), kept by a caller that writes many files of one schema; it
	// goes into the header as it is.
	SchemaJSON []byte
}

// Writer writes an object container file. Records go into a block buffer
// that is compressed and written when it reaches BlockSize or on Flush/Close.
// Either Close must be called or the output is incomplete.
type Writer struct {
	w      io.Writer
	schema *Schema
	opts   WriterOptions
	block  []byte // encoded records of the pending block
	count  int64  // records in the pending block
	out    []byte // block framing scratch
	zbuf   bytes.Buffer
	zw     *flate.Writer // from deflaters; returned by Close
	level  int
	err    error
}

// deflaters pools deflate writers by level: a klauspost compressor holds
// about a megabyte of tables, and every manifest and manifest list is a new
// Writer, so without reuse each commit would allocate (and, in WebAssembly,
// grow memory for) several of them.
var deflaters sync.Map // level → *sync.Pool of *flate.Writer

func getDeflater(level int) (*flate.Writer, error) {
	p, _ := deflaters.LoadOrStore(level, &sync.Pool{})
	if zw, ok := p.(*sync.Pool).Get().(*flate.Writer); ok {
		return zw, nil
	}
	return flate.NewWriter(io.Discard, level)
}

func putDeflater(level int, zw *flate.Writer) {
	if p, ok := deflaters.Load(level); ok {
		p.(*sync.Pool).Put(zw)
	}
}

// NewWriter writes the file header to w and returns a Writer for records of
// schema s.
//
// Deflate note: the deflate stream comes from klauspost/compress/flate, not
// Go's compress/flate, whose Close ends every stream with an empty stored
// block that the inflate code used by JavaScript readers (icebird /
// hyparquet) mis-reads.
func NewWriter(w io.Writer, s *Schema, opts WriterOptions) (*Writer, error) {
	if opts.Codec == "" {
		opts.Codec = Null
	}
	if opts.Codec != Null && opts.Codec != Deflate {
		return nil, fmt.Errorf("avro: writer codec %q not supported (want null or deflate)", opts.Codec)
	}
	if opts.BlockSize <= 0 {
		opts.BlockSize = 64 << 10
	}
	for k := range opts.Meta {
		if len(k) >= 5 && k[:5] == "avro." {
			return nil, fmt.Errorf("avro: metadata key %q is reserved", k)
		}
	}
	wr := &Writer{w: w, schema: s, opts: opts}
	if opts.Codec == Deflate {
		level := opts.DeflateLevel
		if level == 0 {
			level = flate.DefaultCompression
		}
		zw, err := getDeflater(level)
		if err != nil {
			return nil, fmt.Errorf("avro: deflate level %d: %w", level, err)
		}
		wr.zw = zw
		wr.level = level
	}
	h := append([]byte{}, Magic[:]...)
	h = AppendLong(h, int64(2+len(opts.Meta)))
	h = AppendString(h, MetaSchema)
	if opts.SchemaJSON != nil {
		h = AppendBytes(h, opts.SchemaJSON)
	} else {
		h = AppendBytes(h, s.AppendJSON(nil))
	}
	h = AppendString(h, MetaCodec)
	h = AppendString(h, string(opts.Codec))
	for _, k := range sortedKeys(opts.Meta) {
		h = AppendString(h, k)
		h = AppendBytes(h, opts.Meta[k])
	}
	h = AppendLong(h, 0)
	h = append(h, opts.Sync[:]...)
	if _, err := w.Write(h); err != nil {
		return nil, err
	}
	return wr, nil
}

// AppendEncoded adds one record already encoded in Avro binary for the
// writer's schema (built with the Append* functions). The bytes are copied.
func (w *Writer) AppendEncoded(record []byte) error {
	if w.err != nil {
		return w.err
	}
	w.block = append(w.block, record...)
	w.count++
	if len(w.block) >= w.opts.BlockSize {
		return w.Flush()
	}
	return nil
}

// Append encodes v with AppendValue and adds it.
func (w *Writer) Append(v any) error {
	if w.err != nil {
		return w.err
	}
	n := len(w.block)
	b, err := AppendValue(w.block, w.schema, v)
	if err != nil {
		w.block = w.block[:n]
		return err
	}
	w.block = b
	w.count++
	if len(w.block) >= w.opts.BlockSize {
		return w.Flush()
	}
	return nil
}

// Flush writes the pending records as one block.
func (w *Writer) Flush() error {
	if w.err != nil || w.count == 0 {
		return w.err
	}
	data := w.block
	if w.opts.Codec == Deflate {
		w.zbuf.Reset()
		w.zw.Reset(&w.zbuf)
		if _, err := w.zw.Write(data); err != nil {
			w.err = err
			return err
		}
		if err := w.zw.Close(); err != nil {
			w.err = err
			return err
		}
		data = w.zbuf.Bytes()
	}
	w.out = AppendLong(w.out[:0], w.count)
	w.out = AppendLong(w.out, int64(len(data)))
	w.out = append(w.out, data...)
	w.out = append(w.out, w.opts.Sync[:]...)
	if _, err := w.w.Write(w.out); err != nil {
		w.err = err
		return err
	}
	w.block = w.block[:0]
	w.count = 0
	return nil
}

// Close flushes the last block. It does not close the underlying writer.
// The Writer cannot be used after Close.
func (w *Writer) Close() error {
	err := w.Flush()
	if w.zw != nil {
		putDeflater(w.level, w.zw)
		w.zw = nil
	}
	if w.err == nil {
		w.err = errClosed
	}
	return err
}

var errClosed = fmt.Errorf("avro: writer closed")
