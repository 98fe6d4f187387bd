package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/timelake/timelake/rows"
)

// maxWholeInput bounds a Parquet or Arrow input, which is read whole before
// its footer or schema can be parsed: past it the append fails with
// INPUT_TOO_LARGE (split the file, or convert it to CSV/NDJSON, which are
// streamed) rather than with the process out of memory.
const maxWholeInput = 1 << 30

// readWhole reads a Parquet or Arrow input after checking that it starts
// as one (so that /dev/zero or a stray file fails at once, having read a
// few bytes), and at most maxWholeInput bytes of it.
func readWhole(br *bufio.Reader, format string) ([]byte, error) {
	head, _ := br.Peek(8)
	switch format {
	case "parquet":
		if len(head) < 4 || string(head[:4]) != "PAR1" {
			return nil, &rows.Error{Code: rows.CodeSyntax, Msg: "not a Parquet file: it does not start with PAR1"}
		}
	case "arrow":
		ok := len(head) >= 6 && string(head[:6]) == "ARROW1" // the file format
		if !ok && len(head) >= 8 && binary.LittleEndian.Uint32(head) == 0xFFFFFFFF {
			ok = binary.LittleEndian.Uint32(head[4:]) > 0 // a stream: its first message's length
		}
		if !ok && len(head) >= 4 { // a stream of before Arrow 0.15: the length alone
			n := binary.LittleEndian.Uint32(head)
			ok = n > 0 && n < 1<<24
		}
		if !ok {
			return nil, &rows.Error{Code: rows.CodeSyntax, Msg: "not an Arrow IPC file or stream: it does not start with ARROW1 or a message"}
		}
	}
	data, err := io.ReadAll(io.LimitReader(br, maxWholeInput+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxWholeInput {
		return nil, &rows.Error{Code: rows.CodeInputTooLarge,
			Msg: fmt.Sprintf("a %s input is read whole and this one is longer than %d bytes: split it, or append it as CSV or NDJSON (streamed)", format, maxWholeInput)}
	}
	return data, nil
}
