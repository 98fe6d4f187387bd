// Package lz4 decodes the LZ4 block format, shared by the Arrow IPC reader
// (LZ4 frames) and the Parquet reader (LZ4_RAW blocks and Hadoop's framing
// of the old LZ4 codec). It only decodes: Timelake writes neither.
package lz4

import (
	"encoding/binary"
	"fmt"
)

// Block appends the decoded LZ4 block src to dst, which also holds the
// history earlier blocks of a frame may refer to, never growing past limit
// bytes in all.
func Block(dst, src []byte, limit int) ([]byte, error) {
	i := 0
	length := func(n int) (int, error) {
		if n != 15 {
			return n, nil
		}
		for {
			if i >= len(src) {
				return 0, fmt.Errorf("length cut off")
			}
			b := src[i]
			i++
			n += int(b)
			if n > limit {
				return 0, fmt.Errorf("length %d passes the declared %d bytes", n, limit)
			}
			if b != 255 {
				return n, nil
			}
		}
	}
	for i < len(src) {
		token := src[i]
		i++
		lit, err := length(int(token >> 4))
		if err != nil {
			return nil, err
		}
		if lit > len(src)-i || lit > limit-len(dst) {
			return nil, fmt.Errorf("literals of %d bytes run past the block or the declared length", lit)
		}
		dst = append(dst, src[i:i+lit]...)
		i += lit
		if i == len(src) {
			break // the last sequence has literals only
		}
		if i > len(src)-2 {
			return nil, fmt.Errorf("match offset cut off")
		}
		off := int(binary.LittleEndian.Uint16(src[i:]))
		i += 2
		if off == 0 || off > len(dst) {
			return nil, fmt.Errorf("match offset %d outside the %d bytes decoded", off, len(dst))
		}
		ml, err := length(int(token & 15))
		if err != nil {
			return nil, err
		}
		ml += 4
		if ml > limit-len(dst) {
			return nil, fmt.Errorf("match passes the declared %d bytes", limit)
		}
		start := len(dst) - off
		for ml > 0 { // copy in chunks of at most off bytes: the source may overlap the output
			k := min(ml, off)
			dst = append(dst, dst[start:start+k]...)
			start += k
			ml -= k
		}
	}
	return dst, nil
}
