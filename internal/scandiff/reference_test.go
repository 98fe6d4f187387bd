package scandiff

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/timelake/timelake/internal/interoptest"
)

// reference is one scanref.py --serve process.
type reference struct {
	cmd   *exec.Cmd
	stdin io.Closer
	in    *bufio.Writer
	out   *bufio.Scanner
	mu    sync.Mutex
}

type answer struct {
	Lines []string `json:"lines"`
	Error string   `json:"error"`
}

func startReference(t *testing.T) *reference {
	t.Helper()
	py := interoptest.Python(t)
	cmd := exec.Command(py, filepath.Join(interoptest.Root(), "interop", "scanref.py"), "--serve")
	cmd.Stderr = os.Stderr
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<30)
	return &reference{cmd: cmd, stdin: w, in: bufio.NewWriter(w), out: sc}
}

func (ref *reference) close() {
	ref.stdin.Close()
	ref.cmd.Wait()
}

func (ref *reference) ask(metadata string, args []string) (answer, error) {
	ref.mu.Lock()
	defer ref.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"metadata": metadata, "args": args})
	ref.in.Write(append(b, '\n'))
	if err := ref.in.Flush(); err != nil {
		return answer{}, err
	}
	if !ref.out.Scan() {
		return answer{}, fmt.Errorf("scanref.py ended: %v", ref.out.Err())
	}
	var a answer
	err := json.Unmarshal(ref.out.Bytes(), &a)
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
