package avro

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"

	"github.com/timelake/timelake/internal/core/textcache"
)

// Reader reads an object container file held in memory (manifests and
// manifest lists are small; the caller fetched the bytes).
type Reader struct {
	Schema *Schema           // the writer's schema, from the header; shared by readers of files with the same schema text: read it, never modify it
	Meta   map[string][]byte // all header metadata, avro.* keys included
	Codec  Codec
	Sync   [SyncSize]byte

	data  []byte
	pos   int     // start of the next block in data
	block decoder // the current block's records
	left  int64   // records left in the current block
	nrec  int64   // records read so far, for error messages
	zeros int     // zero-size items decoded across blocks
	zd    *zstd.Decoder
	cache *Cache // nil, or where the decompressed blocks go
}

// Cache keeps what reading many files one after another can share beyond
// the parsed writer schemas (which every reader shares, see writerSchemas):
// one buffer for decompressed blocks. It is not safe for concurrent use, and
// only one Reader from it may be in use at a time: values aliasing a block
// (Next's bytes, Decoder.Bytes) are valid until the next block or file is
// read. The zero value is ready to use.
type Cache struct {
	block []byte
}

// NewReader is NewReader with the cache's block buffer.
func (c *Cache) NewReader(file []byte) (*Reader, error) {
	return newReader(file, c)
}

// writerSchemas are the writer schemas parsed so far, shared by every
// reader (see package textcache): every manifest of a table carries the same
// ~5 KB schema, and parsing it was most of the cost of reading a manifest.
var writerSchemas textcache.Cache[*Schema]

// NewReader parses the header of file.
func NewReader(file []byte) (*Reader, error) { return newReader(file, nil) }

func newReader(file []byte, cache *Cache) (*Reader, error) {
	if len(file) < len(Magic) || !bytes.Equal(file[:len(Magic)], Magic[:]) {
		return nil, ErrNotAvro
	}
	d := &decoder{b: file, pos: len(Magic)}
	meta := map[string][]byte{}
	for {
		n, err := d.blockCount(2) // a key and a value take at least a byte each
		if err != nil {
			return nil, fmt.Errorf("avro: header metadata: %w", err)
		}
		if n == 0 {
			break
		}
		for ; n > 0; n-- {
			k, err := d.bytes()
			if err != nil {
				return nil, fmt.Errorf("avro: header metadata key: %w", err)
			}
			v, err := d.bytes()
			if err != nil {
				return nil, fmt.Errorf("avro: header metadata %q: %w", k, err)
			}
			meta[string(k)] = v
		}
	}
	sync, err := d.fixed(SyncSize)
	if err != nil {
		return nil, fmt.Errorf("avro: header sync marker: %w", err)
	}
	r := &Reader{Meta: meta, data: file, pos: d.pos, cache: cache}
	copy(r.Sync[:], sync)
	raw, ok := meta[MetaSchema]
	if !ok {
		return nil, fmt.Errorf("%w: header has no %s", ErrCorrupt, MetaSchema)
	}
	if r.Schema, err = writerSchemas.Get(raw, ParseSchema); err != nil {
		return nil, err
	}
	r.Codec = Null
	if c, ok := meta[MetaCodec]; ok && len(c) > 0 {
		r.Codec = Codec(c)
	}
	switch r.Codec {
	case Null, Deflate, Snappy, Zstd:
	default:
		return nil, fmt.Errorf("avro: codec %q not supported", r.Codec)
	}
	return r, nil
}

// Next returns the next record decoded with the writer's schema (see Decode
// for the Go types), or io.EOF after the last one.
func (r *Reader) Next() (any, error) {
	for r.left == 0 {
		if r.pos >= len(r.data) {
			return nil, io.EOF
		}
		if err := r.nextBlock(); err != nil {
			return nil, err
		}
	}
	r.block.zeroItems = r.zeros
	v, err := r.block.value(r.Schema, 0)
	r.zeros = r.block.zeroItems
	if err != nil {
		return nil, fmt.Errorf("avro: record %d: %w", r.nrec, err)
	}
	r.left--
	r.nrec++
	if r.left == 0 && r.block.remaining() != 0 {
		return nil, fmt.Errorf("%w: block ends with %d unread bytes after record %d", ErrCorrupt, r.block.remaining(), r.nrec-1)
	}
	return v, nil
}

// ReadAll returns every remaining record.
func (r *Reader) ReadAll() ([]any, error) {
	var out []any
	for {
		v, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

func (r *Reader) nextBlock() error {
	d := &decoder{b: r.data, pos: r.pos}
	count, err := d.long()
	if err != nil {
		return fmt.Errorf("avro: block header at byte %d: %w", r.pos, err)
	}
	size, err := d.long()
	if err != nil {
		return fmt.Errorf("avro: block header at byte %d: %w", r.pos, err)
	}
	if count < 0 || size < 0 || size > int64(d.remaining()) {
		return fmt.Errorf("%w: block at byte %d: %d records in %d bytes, %d bytes left", ErrCorrupt, r.pos, count, size, d.remaining())
	}
	raw, _ := d.fixed(int(size))
	sync, err := d.fixed(SyncSize)
	if err != nil {
		return fmt.Errorf("avro: block at byte %d: missing sync marker: %w", r.pos, err)
	}
	if !bytes.Equal(sync, r.Sync[:]) {
		return fmt.Errorf("%w: block at byte %d: sync marker does not match the header's", ErrCorrupt, r.pos)
	}
	data, err := r.decompress(raw)
	if err != nil {
		return fmt.Errorf("avro: block at byte %d: %w", r.pos, err)
	}
	if min := r.Schema.minSize(map[*Schema]bool{}); min > 0 && count > int64(len(data)/min) {
		return fmt.Errorf("%w: block at byte %d: %d records cannot fit in %d bytes", ErrCorrupt, r.pos, count, len(data))
	} else if min == 0 && count > int64(maxZeroSizeItems-r.zeros) {
		return fmt.Errorf("%w: block at byte %d: %d empty records", ErrTooLarge, r.pos, count)
	} else if min == 0 {
		r.zeros += int(count)
	}
	r.pos = d.pos
	r.block = decoder{b: data}
	r.left = count
	return nil
}

// inflaters pools deflate decompressors: each holds a 32 KiB window and
// Huffman tables, and every manifest and manifest list read is a new Reader.
var inflaters sync.Pool // of io.ReadCloser implementing flate.Resetter

// inflate appends the inflated raw to dst, up to MaxBlockSize bytes.
func inflate(dst, raw []byte) ([]byte, error) {
	src := bytes.NewReader(raw)
	fr, ok := inflaters.Get().(io.ReadCloser)
	if ok {
		if err := fr.(flate.Resetter).Reset(src, nil); err != nil {
			return nil, fmt.Errorf("%w: deflate: %v", ErrCorrupt, err)
		}
	} else {
		fr = flate.NewReader(src)
	}
	defer inflaters.Put(fr)
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := fr.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if len(dst) > MaxBlockSize {
			return nil, fmt.Errorf("%w: deflated block over %d bytes", ErrTooLarge, MaxBlockSize)
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: deflate: %v", ErrCorrupt, err)
		}
	}
}

func (r *Reader) decompress(raw []byte) ([]byte, error) {
	switch r.Codec {
	case Deflate:
		var dst []byte
		if r.cache != nil {
			dst = r.cache.block[:0]
		}
		out, err := inflate(dst, raw)
		if err != nil {
			return nil, err
		}
		if r.cache != nil {
			r.cache.block = out
		}
		return out, nil
	case Snappy:
		if len(raw) < 4 {
			return nil, fmt.Errorf("%w: snappy block shorter than its checksum", ErrCorrupt)
		}
		body, sum := raw[:len(raw)-4], binary.BigEndian.Uint32(raw[len(raw)-4:])
		n, err := s2.DecodedLen(body)
		if err != nil {
			return nil, fmt.Errorf("%w: snappy: %v", ErrCorrupt, err)
		}
		if n > MaxBlockSize {
			return nil, fmt.Errorf("%w: snappy block of %d bytes", ErrTooLarge, n)
		}
		out, err := s2.Decode(nil, body)
		if err != nil {
			return nil, fmt.Errorf("%w: snappy: %v", ErrCorrupt, err)
		}
		if crc32.ChecksumIEEE(out) != sum {
			return nil, fmt.Errorf("%w: snappy block checksum mismatch", ErrCorrupt)
		}
		return out, nil
	case Zstd:
		if r.zd == nil {
			zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
				zstd.WithDecoderMaxMemory(MaxBlockSize), zstd.WithDecoderMaxWindow(MaxBlockSize))
			if err != nil {
				return nil, err
			}
			r.zd = zd
		}
		out, err := r.zd.DecodeAll(raw, nil)
		if err != nil {
			if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
				return nil, fmt.Errorf("%w: zstandard block: %v", ErrTooLarge, err)
			}
			return nil, fmt.Errorf("%w: zstandard: %v", ErrCorrupt, err)
		}
		return out, nil
	}
	return raw, nil
}
