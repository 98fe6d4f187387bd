package interoptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ClientScript is a command running the built client's test script rel
// (under client/dist/test) with node, from client/ (where its packages are).
// A missing script fails the test, naming the build command.
func ClientScript(t testing.TB, rel string, args ...string) *exec.Cmd {
	t.Helper()
	root := Root()
	script := filepath.Join(root, "client", "dist", "test", rel)
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("%v: build the client first (scripts/build-client.sh)", err)
	}
	cmd := exec.Command("node", append([]string{script}, args...)...)
	cmd.Dir = filepath.Join(root, "client")
	return cmd
}

// RunClientScript runs ClientScript to the end, logs its output and fails
// the test if it fails.
func RunClientScript(t testing.TB, rel string, args ...string) {
	t.Helper()
	log, err := ClientScript(t, rel, args...).CombinedOutput()
	t.Logf("%s:\n%s", rel, log)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
}
