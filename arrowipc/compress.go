package arrowipc

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/timelake/timelake/internal/core/lz4"
)

// A compressed body holds each buffer as
//
//	int64 uncompressedLength   -1: the rest is stored as is
//	frame                      one LZ4 frame or one ZSTD frame
//
// and an empty buffer stays empty.

var (
	zstdOnce sync.Once
	zstdDec  *zstd.Decoder
	zstdErr  error
)

func zstdDecoder() (*zstd.Decoder, error) {
	zstdOnce.Do(func() {
		zstdDec, zstdErr = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)),
			zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(maxBatchBytes),
			zstd.WithDecodeAllCapLimit(true), // never past the declared length
		)
	})
	return zstdDec, zstdErr
}

// decompress returns buffer src of a body compressed with codec. budget is
// how many more decompressed bytes the batch may take; the declared length is
// checked against it before anything is allocated.
func decompress(codec int, src []byte, budget *int64) ([]byte, error) {
	if len(src) == 0 {
		return src, nil
	}
	if len(src) < 8 {
		return nil, fmt.Errorf("compressed buffer of %d bytes has no length prefix", len(src))
	}
	n := int64(binary.LittleEndian.Uint64(src))
	src = src[8:]
	if n == -1 {
		return src, nil
	}
	if n < 0 || n > *budget {
		return nil, fmt.Errorf("compressed buffer declares %d bytes, over the %d-byte limit of a batch", n, maxBatchBytes)
	}
	*budget -= n
	var out []byte
	var err error
	switch codec {
	case codecZstd:
		var h zstd.Header
		if err := h.Decode(src); err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		if h.HasFCS && h.FrameContentSize != uint64(n) {
			return nil, fmt.Errorf("zstd frame holds %d bytes, the buffer declares %d", h.FrameContentSize, n)
		}
		d, derr := zstdDecoder()
		if derr != nil {
			return nil, derr
		}
		out, err = d.DecodeAll(src, make([]byte, 0, n))
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
	case codecLZ4:
		out, err = lz4Frame(src, int(n))
		if err != nil {
			return nil, fmt.Errorf("lz4: %w", err)
		}
	}
	if int64(len(out)) != n {
		return nil, fmt.Errorf("compressed buffer expands to %d bytes, declares %d", len(out), n)
	}
	return out, nil
}

// LZ4 frame format (what Arrow's LZ4_FRAME codec writes):
//
//	uint32 magic 0x184D2204
//	FLG    version (01) | block independence | block checksum | content size | content checksum | - | dict id
//	BD     block max size
//	[uint64 content size] [uint32 dict id]
//	HC     header checksum
//	blocks uint32 size (high bit: stored uncompressed), data, [uint32 block checksum]; size 0 ends
//	[uint32 content checksum]
//
// Checksums (xxHash32) are skipped, not verified: the output length is
// checked, and the IPC layer checks every offset it then reads.
const lz4Magic = 0x184D2204

// lz4Frame decodes frames from src into exactly want bytes.
func lz4Frame(src []byte, want int) ([]byte, error) {
	dst := make([]byte, 0, want)
	for len(src) > 0 {
		if len(src) < 7 {
			return nil, fmt.Errorf("frame header cut off")
		}
		magic := binary.LittleEndian.Uint32(src)
		if magic&0xFFFFFFF0 == 0x184D2A50 { // skippable frame
			if len(src) < 8 {
				return nil, fmt.Errorf("skippable frame cut off")
			}
			n := int64(binary.LittleEndian.Uint32(src[4:]))
			if n > int64(len(src)-8) {
				return nil, fmt.Errorf("skippable frame of %d bytes runs past the end", n)
			}
			src = src[8+n:]
			continue
		}
		if magic != lz4Magic {
			return nil, fmt.Errorf("bad frame magic %#x", magic)
		}
		flg := src[4]
		if flg>>6 != 1 {
			return nil, fmt.Errorf("frame version %d is not supported", flg>>6)
		}
		if flg&1 != 0 {
			return nil, fmt.Errorf("frames with a dictionary id are not supported")
		}
		blockSum, contentSum := flg&0x10 != 0, flg&0x04 != 0
		p := 6
		if flg&0x08 != 0 {
			p += 8
		}
		p++ // header checksum
		if p > len(src) {
			return nil, fmt.Errorf("frame header cut off")
		}
		for {
			if p > len(src)-4 {
				return nil, fmt.Errorf("block size cut off")
			}
			size := binary.LittleEndian.Uint32(src[p:])
			p += 4
			if size == 0 {
				break
			}
			stored := size&0x80000000 != 0
			size &= 0x7FFFFFFF
			if int64(size) > int64(len(src)-p) {
				return nil, fmt.Errorf("block of %d bytes runs past the end", size)
			}
			block := src[p : p+int(size)]
			p += int(size)
			if blockSum {
				p += 4
			}
			var err error
			if stored {
				if len(dst)+len(block) > want {
					return nil, fmt.Errorf("output passes the declared %d bytes", want)
				}
				dst = append(dst, block...)
			} else if dst, err = lz4.Block(dst, block, want); err != nil {
				return nil, err
			}
		}
		if contentSum {
			p += 4
		}
		if p > len(src) {
			return nil, fmt.Errorf("frame end cut off")
		}
		src = src[p:]
	}
	return dst, nil
}
