package rollupdiff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/timelake/timelake/internal/interoptest"
)

// refProc is one `rollupref.py --serve` process, answering many queries.
type refProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startRef(t *testing.T) *refProc {
	t.Helper()
	py := interoptest.Python(t)
	cmd := exec.Command(py, filepath.Join(interoptest.Root(), "interop", "rollupref.py"), "--serve")
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
	p := &refProc{cmd: cmd, in: w, out: sc}
	t.Cleanup(func() { w.Close(); cmd.Wait() })
	return p
}

func (p *refProc) ask(metadata string, width int64, aggs string) ([]map[string]any, error) {
	return p.query(map[string]any{"metadata": metadata, "width": width, "aggregates": aggs})
}

// plain is every row of the table at metadata as reader (pyiceberg or
// duckdb) reads it, sorted by (series…, time).
func (p *refProc) plain(metadata, reader string) ([]map[string]any, error) {
	return p.query(map[string]any{"plain": metadata, "reader": reader})
}

func (p *refProc) query(q map[string]any) ([]map[string]any, error) {
	b, _ := json.Marshal(q)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	if !p.out.Scan() {
		return nil, fmt.Errorf("rollupref.py ended: %v", p.out.Err())
	}
	var a struct {
		Rows  []map[string]any `json:"rows"`
		Error string           `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(p.out.Bytes()))
	dec.UseNumber()
	if err := dec.Decode(&a); err != nil {
		return nil, err
	}
	if a.Error != "" {
		return nil, fmt.Errorf("rollupref.py: %s", a.Error)
	}
	return a.Rows, nil
}
