// Package interoptest runs the outside Iceberg readers over a table and
// returns what each one saw, so that tests can check a table written here is
// read the same by implementations that share no code with it:
//
//   - iceberg-go: interop/cmd/icebergread, its own Go module (built once per
//     source version into the user cache directory);
//   - DuckDB's iceberg extension: interop/readers.py duckdb;
//   - pyiceberg: interop/readers.py pyiceberg.
//
// The Python readers run in the venv of scripts/pyenv.sh (created once per
// test process). A reader that cannot be built or loaded fails the test with
// the exact error; TIMELAKE_SKIP_READERS=duckdb,pyiceberg skips named readers
// explicitly (and says so in the test log).
//
// Example:
//
//	q := interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: []string{"cpu", "mem"}}
//	for _, r := range interoptest.Readers(t) {
//		got := interoptest.Summarize(t, r, dir+"/metadata/v3.metadata.json", q)
//		interoptest.ExpectSame(t, string(r), want, got)
//	}
package interoptest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Reader names an outside reader.
type Reader string

// The outside readers.
const (
	IcebergGo Reader = "iceberg-go"
	DuckDB    Reader = "duckdb"
	PyIceberg Reader = "pyiceberg"
)

// DuckDBV3 is DuckDB 1.5 (its own venv, scripts/pyenv.sh v3), the reader
// of format 3 tables; not in AllReaders: the format 3 tests name it.
const DuckDBV3 Reader = "duckdb-1.5"

// AllReaders lists every outside reader, in the order tests run them.
var AllReaders = []Reader{IcebergGo, DuckDB, PyIceberg}

// SkipEnv names the environment variable listing readers to skip,
// comma-separated.
const SkipEnv = "TIMELAKE_SKIP_READERS"

// Query says what a reader summarizes.
type Query struct {
	Time   string     // time column: timestamptz, timestamp or long (microseconds)
	Series []string   // series columns: distinct_series counts their distinct tuples
	Sums   []string   // int, long, float or double columns to sum
	Range  *TimeRange // nil: a full scan
	Latest bool       // also Summary.Latest: the row of the greatest time of each series
	// Values (iceberg-go only) also gives Summary.Values: each row's values
	// of these columns, nested ones too.
	Values []string
}

// TimeRange is the filter Range <= time < To, in microseconds since the epoch.
type TimeRange struct{ FromUS, ToUS int64 }

// Summary is what one reader saw in one table version. Its JSON form is the
// line the reader commands print.
type Summary struct {
	Reader         string           `json:"reader"`
	Rows           int64            `json:"rows"`
	Sums           map[string]Sum   `json:"sums"`     // nulls skipped; 0 for no values
	NonNull        map[string]int64 `json:"non_null"` // non-null values of each summed column
	DistinctSeries int64            `json:"distinct_series"`
	MinTimeUS      *int64           `json:"min_time_us"` // nil when there are no rows
	MaxTimeUS      *int64           `json:"max_time_us"`
	PlannedFiles   int64            `json:"planned_files"` // data files planned for the scan; -1 if unknown
	Error          string           `json:"error"`         // empty unless the reader failed
	// Latest (with Query.Latest) is the row of the greatest time of each
	// series: the series columns, "time_us" and the summed columns, numbers
	// as json.Number (exact), sorted by series.
	Latest []map[string]any `json:"latest,omitempty"`
	// Values (with Query.Values; iceberg-go only) is one JSON object per
	// row, sorted by series and time: the series columns, "time_us" and
	// each named column as the JSON text Timelake's scan prints for it
	// (interop/cmd/icebergread/values.go).
	Values []json.RawMessage `json:"values,omitempty"`
}

// args are the reader command-line flags for q, shared by all readers.
func (q Query) args() []string {
	a := []string{"--time", q.Time, "--series", strings.Join(q.Series, ","), "--sum", strings.Join(q.Sums, ",")}
	if q.Range != nil {
		a = append(a, "--from", strconv.FormatInt(q.Range.FromUS, 10), "--to", strconv.FormatInt(q.Range.ToUS, 10))
	}
	if q.Latest {
		a = append(a, "--latest")
	}
	if len(q.Values) > 0 {
		a = append(a, "--values", strings.Join(q.Values, ","))
	}
	return a
}

// Readers returns the readers to run: all of them less those named in
// TIMELAKE_SKIP_READERS. Each is made ready (built, or loaded once) and a
// reader that cannot be fails t with the exact error.
func Readers(t testing.TB) []Reader {
	t.Helper()
	skip, err := parseSkip(os.Getenv(SkipEnv))
	if err != nil {
		t.Fatal(err)
	}
	var out []Reader
	for _, r := range AllReaders {
		if skip[r] {
			t.Logf("interoptest: reader %s skipped by %s=%s", r, SkipEnv, os.Getenv(SkipEnv))
			continue
		}
		if err := ready(r); err != nil {
			t.Fatalf("interoptest: reader %s is not usable: %v", r, err)
		}
		out = append(out, r)
	}
	return out
}

func parseSkip(env string) (map[Reader]bool, error) {
	skip := map[Reader]bool{}
	for _, name := range strings.Split(env, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !slices.Contains(AllReaders, Reader(name)) {
			return nil, fmt.Errorf("%s: unknown reader %q (known: %v)", SkipEnv, name, AllReaders)
		}
		skip[Reader(name)] = true
	}
	return skip, nil
}

// Summarize runs reader r on one metadata file and returns its summary. A
// reader that fails (its summary has an error, or the command failed) fails
// t with the reader's message; use Run to inspect failures instead.
func Summarize(t testing.TB, r Reader, metadataPath string, q Query) Summary {
	t.Helper()
	return SummarizeVersions(t, r, []string{metadataPath}, q)[0]
}

// SummarizeVersions is Summarize for several metadata files (e.g. every
// version of a table) in one run of the reader, which pays its start-up once.
func SummarizeVersions(t testing.TB, r Reader, metadataPaths []string, q Query) []Summary {
	t.Helper()
	out, err := Run(r, metadataPaths, q)
	if err != nil {
		t.Fatalf("interoptest: %s: %v", r, err)
	}
	for _, s := range out {
		if s.Error != "" {
			t.Fatalf("interoptest: %s failed to read a table: %s", r, s.Error)
		}
	}
	return out
}

// Run runs reader r on the metadata files and returns one summary per file,
// in order; a file the reader could not read has a summary with Error set.
// The error is for a reader that could not run at all or printed something
// that is not one summary per file.
func Run(r Reader, metadataPaths []string, q Query) ([]Summary, error) {
	if err := ready(r); err != nil {
		return nil, err
	}
	if len(q.Values) > 0 && r != IcebergGo {
		return nil, fmt.Errorf("%s: Query.Values is read by iceberg-go only", r)
	}
	var cmd *exec.Cmd
	switch r {
	case IcebergGo:
		// Go's flag package wants flags before the paths, and one dash is enough.
		args := q.args()
		cmd = exec.Command(icebergReadBin, append(args, metadataPaths...)...)
	case DuckDB, PyIceberg:
		args := append([]string{filepath.Join(Root(), "interop", "readers.py"), string(r)}, q.args()...)
		cmd = exec.Command(pythonBin, append(args, metadataPaths...)...)
	case DuckDBV3:
		args := append([]string{filepath.Join(Root(), "interop", "readers.py"), string(DuckDB)}, q.args()...)
		cmd = exec.Command(pythonV3Bin, append(args, metadataPaths...)...)
	default:
		return nil, fmt.Errorf("unknown reader %q", r)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var out []Summary
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var s Summary
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber() // Latest's values stay exact
		if err := d.Decode(&s); err != nil {
			return nil, fmt.Errorf("%s printed a line that is not a summary: %v\nline: %s\nstderr: %s", r, err, sc.Text(), stderr.String())
		}
		out = append(out, s)
	}
	if len(out) != len(metadataPaths) {
		return nil, fmt.Errorf("%s printed %d summaries for %d metadata files (%v)\nstderr: %s", r, len(out), len(metadataPaths), runErr, stderr.String())
	}
	// A non-zero exit with a summary per file means some files failed:
	// their summaries say why.
	return out, nil
}

// Root returns the repository root (the main module's directory).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Python returns the venv python of scripts/pyenv.sh (with duckdb and its
// extensions, pyiceberg and pyarrow), creating the venv on first use in the
// process; it fails t if that is impossible.
func Python(t testing.TB) string {
	t.Helper()
	if err := preparePython(); err != nil {
		t.Fatalf("interoptest: %v", err)
	}
	return pythonBin
}

// PythonV3 returns the venv python of scripts/pyenv.sh v3 (DuckDB 1.5 and
// its iceberg extension, which reads format 3), creating the venv on first
// use in the process; it fails t if that is impossible.
func PythonV3(t testing.TB) string {
	t.Helper()
	if err := ready(DuckDBV3); err != nil {
		t.Fatalf("interoptest: %v", err)
	}
	return pythonV3Bin
}

var (
	pythonOnce sync.Once
	pythonBin  string
	pythonErr  error

	pythonV3Once sync.Once
	pythonV3Bin  string
	pythonV3Err  error

	icebergReadOnce sync.Once
	icebergReadBin  string
	icebergReadErr  error

	checkMu   sync.Mutex
	checked   = map[Reader]bool{}
	checkErrs = map[Reader]error{}
)

func preparePython() error {
	pythonOnce.Do(func() {
		cmd := exec.Command("bash", filepath.Join(Root(), "scripts", "pyenv.sh"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			pythonErr = fmt.Errorf("scripts/pyenv.sh: %v\n%s", err, stderr.String())
			return
		}
		pythonBin = strings.TrimSpace(string(out))
	})
	return pythonErr
}

// ready makes r runnable, once per process: the iceberg-go binary built, a
// Python reader loaded by `readers.py check`.
func ready(r Reader) error {
	switch r {
	case IcebergGo:
		icebergReadOnce.Do(func() { icebergReadBin, icebergReadErr = buildIcebergRead() })
		return icebergReadErr
	case DuckDB, PyIceberg:
	case DuckDBV3:
		pythonV3Once.Do(func() {
			out, err := exec.Command("bash", filepath.Join(Root(), "scripts", "pyenv.sh"), "v3").Output()
			if err != nil {
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					err = fmt.Errorf("%v\n%s", err, ee.Stderr)
				}
				pythonV3Err = fmt.Errorf("scripts/pyenv.sh v3: %w", err)
				return
			}
			pythonV3Bin = strings.TrimSpace(string(out))
		})
		return pythonV3Err
	default:
		return fmt.Errorf("unknown reader %q", r)
	}
	if err := preparePython(); err != nil {
		return err
	}
	checkMu.Lock()
	defer checkMu.Unlock()
	if !checked[r] {
		cmd := exec.Command(pythonBin, filepath.Join(Root(), "interop", "readers.py"), "check", string(r))
		if out, err := cmd.CombinedOutput(); err != nil {
			checkErrs[r] = fmt.Errorf("readers.py check %s: %v\n%s", r, err, out)
		}
		checked[r] = true
	}
	return checkErrs[r]
}

// buildIcebergRead builds interop/cmd/icebergread into the user cache
// directory, named by a hash of the interop module's Go sources, so test
// processes share one binary per source version. The rename makes
// concurrent builds safe.
func buildIcebergRead() (string, error) {
	mod := filepath.Join(Root(), "interop")
	h := sha256.New()
	err := filepath.WalkDir(mod, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() || !(strings.HasSuffix(name, ".go") || name == "go.mod" || name == "go.sum") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(mod, path)
		fmt.Fprintf(h, "%s %d\n", rel, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hashing the interop module: %w", err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "timelake-interop")
	bin := filepath.Join(dir, "icebergread-"+runtime.GOOS+"-"+runtime.GOARCH+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "build-*")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, "build", "-o", tmp.Name(), "./cmd/icebergread")
	cmd.Dir = mod
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/icebergread in %s: %v\n%s", mod, err, out)
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		return "", err
	}
	return bin, nil
}
