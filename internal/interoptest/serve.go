package interoptest

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Server is one `interop/<script> --serve` process of the tests' Python
// (rollupref.py, scanref.py): it reads a JSON query a line from In and
// writes its answer a line to Out, so many queries pay for one start of
// Python and DuckDB.
type Server struct {
	cmd *exec.Cmd
	In  io.WriteCloser
	Out *bufio.Scanner // lines up to 1 GiB (a whole table's rows)
}

// Serve starts interop/script --serve; its stderr is the test's. Close
// ends it (the caller chooses when: with t, or after every test).
func Serve(t testing.TB, script string) *Server {
	t.Helper()
	py := Python(t)
	cmd := exec.Command(py, filepath.Join(Root(), "interop", script), "--serve")
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
	return &Server{cmd: cmd, In: w, Out: sc}
}

// Close closes the process's stdin (it ends at EOF) and waits for it.
func (s *Server) Close() {
	s.In.Close()
	s.cmd.Wait()
}
