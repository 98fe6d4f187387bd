package cowrite

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
)

// row is one row of the scenario table: ts timestamptz, host string, cpu
// double (required), mem long (optional). Keys (host, ts) are unique across
// the whole scenario, so no reader's dedup rule can change the figures.
type row struct {
	TS   int64 // microseconds
	Host string
	CPU  float64
	Mem  *int64
}

func (r row) key() string { return r.Host + "|" + strconv.FormatInt(r.TS, 10) }

// base is the first day of the scenario's data: in the past, so Timelake's
// compaction (cold after 1h) takes every partition.
var base = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC).UnixMicro()

// batch makes n rows for step k over hosts: three days, one hour per step,
// one minute per row, so every (host, ts) is new and later steps hold each
// series' latest row. cpu is a multiple of 1/4 (exact float sums); mem is
// near 2^52 (a float sum of them is wrong) and null for every 4th row.
func batch(k int, hosts []string, n int) []row {
	out := make([]row, n)
	for r := range out {
		ts := base + int64(r%3)*86_400_000_000 + int64(k)*3_600_000_000 + int64(r)*60_000_000
		out[r] = row{TS: ts, Host: hosts[r%len(hosts)], CPU: float64(k*100+r) / 4}
		if r%4 != 3 {
			m := int64(1)<<52 + int64(k)*1000 + int64(r)
			out[r].Mem = &m
		}
	}
	return out
}

// model is what the table must hold: the rows fed in, less those deleted,
// with the updates applied. It is computed from the inputs alone.
type model map[string]row

func (m model) add(rs []row) {
	for _, r := range rs {
		m[r.key()] = r
	}
}

func (m model) rows() []row {
	out := make([]row, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out
}

// summary is the figures every reader must give.
func (m model) summary() interoptest.Summary {
	var rs []interoptest.Row
	for _, r := range m {
		cpu := r.CPU
		rs = append(rs, interoptest.Row{TimeUS: r.TS, Series: r.Host, CPU: &cpu, Mem: r.Mem})
	}
	return interoptest.Expect(rs, nil)
}

// latest is the row of the greatest time of each series.
func (m model) latest() map[string]row {
	out := map[string]row{}
	for _, r := range m {
		if cur, ok := out[r.Host]; !ok || r.TS > cur.TS {
			out[r.Host] = r
		}
	}
	return out
}

// diffLatest lists how got (series -> row) differs from want.
func diffLatest(want, got map[string]row) []string {
	var d []string
	hosts := map[string]bool{}
	for h := range want {
		hosts[h] = true
	}
	for h := range got {
		hosts[h] = true
	}
	var names []string
	for h := range hosts {
		names = append(names, h)
	}
	sort.Strings(names)
	for _, h := range names {
		w, wok := want[h]
		g, gok := got[h]
		switch {
		case !gok:
			d = append(d, fmt.Sprintf("latest[%s]: missing, want %s", h, fmtRow(w)))
		case !wok:
			d = append(d, fmt.Sprintf("latest[%s]: got %s, want no such series", h, fmtRow(g)))
		case g.TS != w.TS || g.CPU != w.CPU || fmtMem(g.Mem) != fmtMem(w.Mem):
			d = append(d, fmt.Sprintf("latest[%s]: got %s, want %s", h, fmtRow(g), fmtRow(w)))
		}
	}
	return d
}

func fmtRow(r row) string {
	return fmt.Sprintf("{ts %s cpu %v mem %s}", time.UnixMicro(r.TS).UTC().Format(time.RFC3339Nano), r.CPU, fmtMem(r.Mem))
}

// sparkValues is a row's (ts, host, cpu, mem) as Spark SQL literals, typed
// as the columns are (so the same text works on a table that accepts any
// schema, where Spark no longer casts).
func sparkValues(r row) string {
	return fmt.Sprintf("%s, '%s', CAST(%v AS DOUBLE), CAST(%s AS BIGINT)", sparkTS(r.TS), r.Host, r.CPU, strings.ToUpper(fmtMem(r.Mem)))
}

func fmtMem(p *int64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatInt(*p, 10)
}

// latestFromRows reads latest rows as a reader printed them: series column
// host, the time as time_us (Spark) or ts in RFC 3339 (the Timelake CLI).
func latestFromRows(rs []map[string]any) (map[string]row, error) {
	out := map[string]row{}
	for _, m := range rs {
		var r row
		r.Host = fmt.Sprint(m["host"])
		switch {
		case m["time_us"] != nil:
			v, err := strconv.ParseInt(fmt.Sprint(m["time_us"]), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("time_us %v: %v", m["time_us"], err)
			}
			r.TS = v
		default:
			tm, err := time.Parse(time.RFC3339Nano, fmt.Sprint(m["ts"]))
			if err != nil { // a timestamp without zone prints its wall clock
				tm, err = time.Parse("2006-01-02T15:04:05.999999999", fmt.Sprint(m["ts"]))
			}
			if err != nil {
				return nil, fmt.Errorf("ts %v: %v", m["ts"], err)
			}
			r.TS = tm.UnixMicro()
		}
		cpu, err := strconv.ParseFloat(fmt.Sprint(m["cpu"]), 64)
		if err != nil {
			cpu = math.NaN()
		}
		r.CPU = cpu
		if m["mem"] != nil {
			v, err := strconv.ParseInt(fmt.Sprint(m["mem"]), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("mem %v: %v", m["mem"], err)
			}
			r.Mem = &v
		}
		if _, dup := out[r.Host]; dup {
			return nil, fmt.Errorf("series %s twice in the latest rows", r.Host)
		}
		out[r.Host] = r
	}
	return out, nil
}

// decodeJSON decodes with numbers kept exact.
func decodeJSON(b []byte, v any) error {
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	return d.Decode(v)
}

// tlInfo is what the scenario reads from `timelake info --json`.
type tlInfo struct {
	Version int    `json:"version"`
	Rows    int64  `json:"rows"`
	Files   int64  `json:"files"`
	MinTime string `json:"min-time"`
	MaxTime string `json:"max-time"`
}

// diffInfo compares `timelake info` with the expected figures it carries:
// rows and the time range.
func diffInfo(want interoptest.Summary, got tlInfo) []string {
	var d []string
	if got.Rows != want.Rows {
		d = append(d, fmt.Sprintf("rows: got %d, want %d", got.Rows, want.Rows))
	}
	for _, c := range []struct {
		name string
		got  string
		want *int64
	}{{"min-time", got.MinTime, want.MinTimeUS}, {"max-time", got.MaxTime, want.MaxTimeUS}} {
		w := ""
		if c.want != nil {
			w = time.UnixMicro(*c.want).UTC().Format(time.RFC3339Nano)
		}
		if g := normTime(c.got); g != w {
			d = append(d, fmt.Sprintf("%s: got %q, want %q", c.name, c.got, w))
		}
	}
	return d
}

// normTime rewrites an RFC 3339 time in the form diffInfo compares.
func normTime(s string) string {
	if s == "" {
		return ""
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// deleteHost drops host h's rows; addCPU adds d to the cpu of h's rows.
func (m model) deleteHost(h string) {
	for k, r := range m {
		if r.Host == h {
			delete(m, k)
		}
	}
}

// deleteWhere drops the rows del says.
func (m model) deleteWhere(del func(row) bool) {
	for k, r := range m {
		if del(r) {
			delete(m, k)
		}
	}
}

func (m model) addCPU(h string, d float64) {
	for k, r := range m {
		if r.Host == h {
			r.CPU += d
			m[k] = r
		}
	}
}

// sparkDeleteHost deletes host h's rows of table name with Spark,
// merge-on-read (position deletes).
func sparkDeleteHost(spark *interoptest.Spark, name, h string) error {
	if _, err := spark.SQL("ALTER TABLE " + name + " SET TBLPROPERTIES ('write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read')"); err != nil {
		return err
	}
	_, err := spark.SQL("DELETE FROM " + name + " WHERE host = '" + h + "'")
	return err
}

// failer records a difference: who (a writer or reader) and what.
type failer func(who, format string, a ...any)

// agreeSparkAndTimelake compares Spark's reading of table name, and
// Timelake's info and latest (tl runs the CLI command given, with its
// TABLE), with the model.
func agreeSparkAndTimelake(fail failer, spark *interoptest.Spark, name string, want interoptest.Summary, wantLatest map[string]row, tl func(cmd string) ([]byte, error)) {
	if spark == nil { // a scenario without Spark: Timelake's answers only
		agreeTimelake(fail, want, wantLatest, tl)
		return
	}
	if got, err := spark.Summary(name, query); err != nil {
		fail("spark", "%v", err)
	} else {
		for _, d := range interoptest.Diff(want, got) {
			fail("spark", "%s", d)
		}
	}
	if rs, err := spark.Latest(name, "ts", []string{"host"}, []string{"cpu", "mem"}); err != nil {
		fail("spark", "latest: %v", err)
	} else if got, err := latestFromRows(rs); err != nil {
		fail("spark", "latest: %v", err)
	} else {
		for _, d := range diffLatest(wantLatest, got) {
			fail("spark", "%s", d)
		}
	}
	agreeTimelake(fail, want, wantLatest, tl)
}

// agreeTimelake checks timelake info and latest against the model.
func agreeTimelake(fail failer, want interoptest.Summary, wantLatest map[string]row, tl func(cmd string) ([]byte, error)) {
	if out, err := tl("info"); err != nil {
		fail("tl info", "%v", err)
	} else {
		var info tlInfo
		if err := json.Unmarshal(out, &info); err != nil {
			fail("tl info", "output %q: %v", out, err)
		}
		for _, d := range diffInfo(want, info) {
			fail("tl info", "%s", d)
		}
	}
	if out, err := tl("latest"); err != nil {
		fail("tl latest", "%v", err)
	} else {
		var rs []map[string]any
		if err := decodeJSON(out, &rs); err != nil {
			fail("tl latest", "output %q: %v", out, err)
		} else if got, err := latestFromRows(rs); err != nil {
			fail("tl latest", "%v", err)
		} else {
			for _, d := range diffLatest(wantLatest, got) {
				fail("tl latest", "%s", d)
			}
		}
	}
}
