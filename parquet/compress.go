package parquet

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/timelake/timelake/internal/core/lz4"
)

// One zstd encoder per level and one decoder are shared by the package:
// creating them costs far more than a page. Each holds GOMAXPROCS states, so
// concurrent writers in one process (EncodeAll/DecodeAll are safe to call
// concurrently) do not take turns on one; in WebAssembly that is one state,
// run on the caller's goroutine.
var (
	zstdMu       sync.Mutex
	zstdEncoders = map[zstd.EncoderLevel]*zstd.Encoder{}
	zstdDecoder  *zstd.Decoder
)

// DefaultZstdLevel is the zstd level used when Options.ZstdLevel is 0. Level
// 1 (the "fastest" encoder) was chosen by BenchmarkWrite100k: on
// time-series pages (small after delta and dictionary encoding) it gives
// files within a few percent of level 3 at well under half the time.
const DefaultZstdLevel = 1

func zstdEncoder(level int) (*zstd.Encoder, error) {
	l := zstd.EncoderLevelFromZstd(level)
	zstdMu.Lock()
	defer zstdMu.Unlock()
	if e := zstdEncoders[l]; e != nil {
		return e, nil
	}
	e, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(l),
		zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)),
		zstd.WithLowerEncoderMem(true),
		zstd.WithEncoderCRC(false),
		zstd.WithZeroFrames(true), // an empty page is still a valid frame
		// pages are at most a few MiB; a small window keeps encoder memory low
		zstd.WithWindowSize(1<<20),
	)
	if err != nil {
		return nil, fmt.Errorf("parquet: zstd encoder: %w", err)
	}
	zstdEncoders[l] = e
	return e, nil
}

func getZstdDecoder() (*zstd.Decoder, error) {
	zstdMu.Lock()
	defer zstdMu.Unlock()
	if zstdDecoder != nil {
		return zstdDecoder, nil
	}
	d, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(maxPageBytes),
		zstd.WithDecodeAllCapLimit(true),
	)
	if err != nil {
		return nil, fmt.Errorf("parquet: zstd decoder: %w", err)
	}
	zstdDecoder = d
	return d, nil
}

// decompress decodes src, which must expand to exactly size bytes (checked
// against maxPageBytes by the caller), into dst's storage.
func decompress(codec Codec, dst, src []byte, size int) ([]byte, error) {
	// Allocate by size only once the compressed data agrees with it (zstd's
	// frame header and snappy's preamble carry the decoded length).
	alloc := func() []byte {
		if cap(dst) < size {
			return make([]byte, 0, size)
		}
		return dst[:0:size]
	}
	if size == 0 && len(src) == 0 {
		return src, nil
	}
	var out []byte
	var err error
	switch codec {
	case Uncompressed:
		if len(src) != size {
			return nil, fmt.Errorf("uncompressed page of %d bytes declares %d", len(src), size)
		}
		return src, nil
	case Zstd:
		var h zstd.Header
		if err := h.Decode(src); err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		if h.HasFCS && h.FrameContentSize != uint64(size) {
			return nil, fmt.Errorf("zstd frame holds %d bytes, page declares %d", h.FrameContentSize, size)
		}
		d, derr := getZstdDecoder()
		if derr != nil {
			return nil, derr
		}
		out, err = d.DecodeAll(src, alloc())
	case Snappy:
		n, derr := s2.DecodedLen(src)
		if derr != nil {
			return nil, fmt.Errorf("snappy: %w", derr)
		}
		if n != size {
			return nil, fmt.Errorf("snappy block holds %d bytes, page declares %d", n, size)
		}
		out, err = s2.Decode(alloc()[:size], src)
	case Gzip:
		// gzip does not say its length up front: grow with the output
		zr, gerr := gzip.NewReader(bytes.NewReader(src))
		if gerr != nil {
			return nil, fmt.Errorf("gzip: %w", gerr)
		}
		buf := bytes.NewBuffer(dst[:0])
		_, err = buf.ReadFrom(io.LimitReader(zr, int64(size)+1))
		out = buf.Bytes()
	case LZ4Raw:
		out, err = lz4.Block(alloc(), src, size)
	case LZ4:
		out, err = lz4Hadoop(alloc(), src, size)
	default:
		return nil, fmt.Errorf("%w: compression codec %v", ErrUnsupported, codec)
	}
	if err != nil {
		return nil, fmt.Errorf("%v: %w", codec, err)
	}
	if len(out) != size {
		return nil, fmt.Errorf("%v page expands to %d bytes, declares %d", codec, len(out), size)
	}
	return out, nil
}

// lz4Hadoop decodes the old LZ4 codec as parquet-mr writes it: Hadoop's
// framing, blocks of [uint32 BE decoded size][uint32 BE encoded size][LZ4
// block]. Some writers (old parquet-cpp) wrote a bare LZ4 block under the
// same codec; as Arrow does, that is tried when the framing does not fit.
func lz4Hadoop(dst, src []byte, size int) ([]byte, error) {
	out, err := lz4HadoopFrames(dst, src, size)
	if err == nil {
		return out, nil
	}
	if raw, rerr := lz4.Block(dst[:0], src, size); rerr == nil && len(raw) == size {
		return raw, nil
	}
	return nil, err
}

func lz4HadoopFrames(dst, src []byte, size int) ([]byte, error) {
	out := dst[:0]
	if len(src) < 8 {
		return nil, fmt.Errorf("hadoop frame header cut off")
	}
	for len(src) > 0 {
		if len(src) < 8 {
			return nil, fmt.Errorf("hadoop frame header cut off")
		}
		n := int64(binary.BigEndian.Uint32(src))
		c := int64(binary.BigEndian.Uint32(src[4:]))
		src = src[8:]
		if c > int64(len(src)) || n > int64(size-len(out)) {
			return nil, fmt.Errorf("hadoop frame of %d bytes (%d decoded) with %d left (%d to decode)", c, n, len(src), size-len(out))
		}
		start := len(out)
		var err error
		if out, err = lz4.Block(out, src[:c], start+int(n)); err != nil {
			return nil, err
		}
		if len(out)-start != int(n) {
			return nil, fmt.Errorf("hadoop frame expands to %d bytes, declares %d", len(out)-start, n)
		}
		src = src[c:]
	}
	return out, nil
}
