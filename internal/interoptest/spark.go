package interoptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// RequireSparkEnv names the environment variable that makes a missing Spark
// set-up a test failure (CI sets it); without it such tests skip, saying why.
const RequireSparkEnv = "TIMELAKE_REQUIRE_SPARK"

// Spark is a running interop/spark/engine.py: one Spark session with
// Iceberg's runtime and two Hadoop catalogs over Warehouse, so the table in
// Warehouse/ns/t is cat.ns.t (warehouse given as the URI file:///…: Spark
// writes locations file:/…) and catp.ns.t (given as a plain path: Spark
// writes metadata locations as plain paths, data files as file:/…). Start it once per test group: a session
// costs ~20–30 s. Its methods may be called from one goroutine at a time
// (they are serialized).
type Spark struct {
	Warehouse string
	Version   string // Spark's version, e.g. "3.5.7"

	mu     sync.Mutex
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	log    string // the engine's stderr (Spark's log)
	closed bool
}

// FindSpark returns the venv python with pyspark and the path of Iceberg's
// Spark runtime jar. With TIMELAKE_REQUIRE_SPARK set it runs
// scripts/sparkenv.sh, which installs what is missing, and an installation
// that fails is err; without it nothing is installed, and a set-up not yet
// installed is missing: why, and the command that installs it (tests skip).
func FindSpark() (python, jar, missing string, err error) {
	script := filepath.Join(Root(), "scripts", "sparkenv.sh")
	args := []string{script}
	required := os.Getenv(RequireSparkEnv) != ""
	if !required {
		args = append(args, "--check")
	}
	var stderr bytes.Buffer
	cmd := exec.Command("bash", args...)
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	vars := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			vars[k] = v
		}
	}
	if runErr != nil {
		if !required {
			return "", "", fmt.Sprintf("Spark is not set up (%s: %v): run `bash scripts/sparkenv.sh`, or set %s=1 to install it and fail instead",
				strings.Join(strings.Fields(string(out)), " "), runErr, RequireSparkEnv), nil
		}
		return "", "", "", fmt.Errorf("scripts/sparkenv.sh: %v\n%s", runErr, stderr.String())
	}
	return vars["SPARK_PYTHON"], vars["SPARK_ICEBERG_JAR"], "", nil
}

// StartSpark starts the engine over warehouse (an absolute directory) and
// waits for its session; t's cleanup stops it. Without the set-up it skips
// t, or fails it under TIMELAKE_REQUIRE_SPARK (see FindSpark).
func StartSpark(t testing.TB, warehouse string) *Spark {
	t.Helper()
	python, jar, missing, err := FindSpark()
	if err != nil {
		t.Fatalf("interoptest: %v", err)
	}
	if missing != "" {
		t.Skipf("interoptest: %s", missing)
	}
	s, err := LaunchSpark(python, jar, warehouse, t.TempDir())
	if err != nil {
		t.Fatalf("interoptest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// LaunchSpark starts interop/spark/engine.py with python and jar over
// warehouse, its log in logDir, and waits for the session. The caller
// Closes it.
func LaunchSpark(python, jar, warehouse, logDir string) (*Spark, error) {
	return LaunchSparkWith(python, jar, warehouse, logDir, SparkOptions{})
}

// SparkOptions are the engine's optional catalogs.
type SparkOptions struct {
	// RESTURI, RESTWarehouse, RESTToken: an Iceberg REST catalog as
	// catalog `rest` (rest.ns.t is the catalog's ns.t).
	RESTURI, RESTWarehouse, RESTToken string
}

// LaunchSparkWith is LaunchSpark with opt.
func LaunchSparkWith(python, jar, warehouse, logDir string, opt SparkOptions) (*Spark, error) {
	logPath := filepath.Join(logDir, "spark-engine.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	// The process holds its own descriptor; ours is not needed after Start.
	defer logFile.Close()
	args := []string{filepath.Join(Root(), "interop", "spark", "engine.py"), "--warehouse", warehouse, "--jar", jar}
	if opt.RESTURI != "" {
		args = append(args, "--rest-uri", opt.RESTURI, "--rest-warehouse", opt.RESTWarehouse)
	}
	cmd := exec.Command(python, args...)
	// Spark binds to the loopback only: no other address is wanted.
	cmd.Env = append(os.Environ(), "SPARK_LOCAL_IP=127.0.0.1", "PYSPARK_PYTHON="+python)
	if opt.RESTToken != "" {
		cmd.Env = append(cmd.Env, "TIMELAKE_CATALOG_TOKEN="+opt.RESTToken)
	}
	cmd.Stderr = logFile
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the Spark engine: %v", err)
	}
	s := &Spark{Warehouse: warehouse, cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 1<<20), log: logPath}
	ready, err := s.read()
	if err == nil {
		if ok, _ := ready["ok"].(bool); !ok {
			err = fmt.Errorf("%v", ready["error"])
		}
	}
	if err != nil {
		tail := s.LogTail(4000)
		s.Close()
		return nil, fmt.Errorf("the Spark engine did not start: %v\n%s", err, tail)
	}
	s.Version, _ = ready["spark"].(string)
	return s, nil
}

// Call sends one command (see interop/spark/engine.py) and returns the
// answer; an answer with "ok": false is an error carrying the engine's
// message. Numbers are json.Number, so 64-bit integers stay exact.
func (s *Spark) Call(cmd map[string]any) (map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("spark: engine closed")
	}
	b, err := json.Marshal(cmd)
	if err != nil {
		return nil, err
	}
	if _, err := s.stdin.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("spark: writing to the engine: %v\n%s", err, s.LogTail(4000))
	}
	ans, err := s.read()
	if err != nil {
		return nil, fmt.Errorf("spark: %v\n%s", err, s.LogTail(4000))
	}
	if ok, _ := ans["ok"].(bool); !ok {
		return ans, fmt.Errorf("spark: %v", ans["error"])
	}
	return ans, nil
}

func (s *Spark) read() (map[string]any, error) {
	line, err := s.stdout.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("reading the engine's answer: %v (engine exited?)", err)
	}
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("the engine printed a line that is not JSON: %v: %q", err, line)
	}
	return m, nil
}

// SQL runs one statement and returns its rows (timestamps as microseconds).
func (s *Spark) SQL(q string) ([]map[string]any, error) {
	ans, err := s.Call(map[string]any{"op": "sql", "sql": q})
	if err != nil {
		return nil, err
	}
	return rowsOf(ans)
}

// Summary is the figures of the readers (rows, sums, distinct series, time
// range) for a Spark table name such as cat.ns.t, at its current version.
func (s *Spark) Summary(table string, q Query) (Summary, error) {
	ans, err := s.Call(map[string]any{"op": "summary", "table": table, "time": q.Time, "series": q.Series, "sums": q.Sums})
	if err != nil {
		return Summary{Reader: "spark", Error: err.Error()}, err
	}
	b, _ := json.Marshal(ans["summary"])
	var sum Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		return sum, fmt.Errorf("spark: summary %s: %v", b, err)
	}
	return sum, nil
}

// Latest returns, for each series, the row of its greatest time: the series
// columns, "time_us" and cols.
func (s *Spark) Latest(table, timeCol string, series, cols []string) ([]map[string]any, error) {
	ans, err := s.Call(map[string]any{"op": "latest", "table": table, "time": timeCol, "series": series, "cols": cols})
	if err != nil {
		return nil, err
	}
	return rowsOf(ans)
}

// RemoveOrphans runs Iceberg's Java action deleteOrphanFiles on table with
// the cut-off olderThanMS (epoch milliseconds) and returns what it deleted.
func (s *Spark) RemoveOrphans(table string, olderThanMS int64) ([]string, error) {
	ans, err := s.Call(map[string]any{"op": "remove_orphans", "table": table, "older_than_ms": olderThanMS})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, v := range ans["deleted"].([]any) {
		out = append(out, fmt.Sprint(v))
	}
	return out, nil
}

func rowsOf(ans map[string]any) ([]map[string]any, error) {
	raw, _ := ans["rows"].([]any)
	out := make([]map[string]any, 0, len(raw))
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("spark: a row is not an object: %v", r)
		}
		out = append(out, m)
	}
	return out, nil
}

// LogTail is the last n bytes of the engine's log (Spark's stderr).
func (s *Spark) LogTail(n int) string {
	b, err := os.ReadFile(s.log)
	if err != nil {
		return ""
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return "--- spark engine log (tail) ---\n" + string(b)
}

// Close asks the engine to stop its session and waits for it; it kills the
// process if it does not answer.
func (s *Spark) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	if _, err := s.stdin.Write([]byte(`{"op":"quit"}` + "\n")); err == nil {
		s.stdout.ReadBytes('\n')
	}
	s.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}
