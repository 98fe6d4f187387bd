package scandiff

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/timelake/timelake/internal/interoptest"
)

// reference is one scanref.py --serve process.
type reference struct {
	srv *interoptest.Server
	in  *bufio.Writer
	mu  sync.Mutex
}

type answer struct {
	Lines []string `json:"lines"`
	Error string   `json:"error"`
}

func startReference(t *testing.T) *reference {
	t.Helper()
	srv := interoptest.Serve(t, "scanref.py")
	return &reference{srv: srv, in: bufio.NewWriter(srv.In)}
}

func (ref *reference) close() { ref.srv.Close() }

func (ref *reference) ask(metadata string, args []string) (answer, error) {
	ref.mu.Lock()
	defer ref.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"metadata": metadata, "args": args})
	ref.in.Write(append(b, '\n'))
	if err := ref.in.Flush(); err != nil {
		return answer{}, err
	}
	if !ref.srv.Out.Scan() {
		return answer{}, fmt.Errorf("scanref.py ended: %v", ref.srv.Out.Err())
	}
	var a answer
	err := json.Unmarshal(ref.srv.Out.Bytes(), &a)
	return a, err
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// firstDiff describes where got and want part.
func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("line %d:\n  scan:   %s\n  duckdb: %s", i+1, got[i], want[i])
		}
	}
	if len(got) > len(want) {
		return fmt.Sprintf("scan has %d lines, duckdb %d; scan's line %d: %s", len(got), len(want), len(want)+1, got[len(want)])
	}
	return fmt.Sprintf("scan has %d lines, duckdb %d; duckdb's line %d: %s", len(got), len(want), len(got)+1, want[len(got)])
}
