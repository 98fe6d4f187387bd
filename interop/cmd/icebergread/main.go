// Command icebergread reads an Iceberg table with iceberg-go and prints one
// JSON summary per metadata file, the same summary as `readers.py duckdb` and
// `readers.py pyiceberg`, so the three outside readers can be compared.
//
//	icebergread -time ts -series host -sum cpu,mem [-from US -to US] [-latest] [-values COL,…] METADATA.json...
//
// With -catalog-uri (and -table NS.T, optional -warehouse, -token or
// -credential ID:SECRET) the table is loaded through that Iceberg REST catalog
// instead, with iceberg-go's REST client, and one line is printed.
//
// Each metadata file is opened with table.NewFromLocation on the local file
// system (plain paths and file:// URIs). The scan is planned (PlanFiles: the
// file count is reported as planned_files) and read to Arrow; with -from and
// -to the scan has the row filter from <= time < to, and every figure is of the
// filtered scan. Output, one line per metadata file:
//
//	{"reader":"iceberg-go","rows":485,"sums":{"cpu":27048.5,"mem":3990189310033380895},
//	 "non_null":{"cpu":416,"mem":441},"distinct_series":30,"min_time_us":...,
//	 "max_time_us":...,"planned_files":4,"error":""}
//
// Integer sums are exact (arbitrary precision), float sums are float64 and
// always printed with a '.' or an exponent; non-finite ones as the strings
// "NaN", "Infinity", "-Infinity". A file that cannot be read gives a line whose
// error says why, and the exit status is 1.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/big"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	icebergio "github.com/apache/iceberg-go/io"
	_ "github.com/apache/iceberg-go/io/gocloud" // s3:// (and gs://, azure) FileIO for tables loaded through a catalog
	"github.com/apache/iceberg-go/table"
)

// query is what to summarize; see the package comment.
type query struct {
	time     string
	series   []string
	sums     []string
	filtered bool
	from, to int64    // microseconds, [from, to)
	latest   bool     // also the row of the greatest time of each series
	values   []string // with -values: each row's values of these columns (values.go)
}

// summary is the JSON line printed per metadata file; its field names are
// shared with readers.py and internal/interoptest.
type summary struct {
	Reader         string                     `json:"reader"`
	Rows           int64                      `json:"rows"`
	Sums           map[string]json.RawMessage `json:"sums"`
	NonNull        map[string]int64           `json:"non_null"`
	DistinctSeries int64                      `json:"distinct_series"`
	MinTimeUS      *int64                     `json:"min_time_us"`
	MaxTimeUS      *int64                     `json:"max_time_us"`
	PlannedFiles   int64                      `json:"planned_files"`
	Error          string                     `json:"error"`
	Latest         []map[string]any           `json:"latest,omitempty"` // with -latest
	Values         []json.RawMessage          `json:"values,omitempty"` // with -values (values.go)
}

func main() {
	var q query
	var series, sums string
	flag.StringVar(&q.time, "time", "", "time column (timestamp/timestamptz or long microseconds)")
	flag.StringVar(&series, "series", "", "series columns, comma-separated")
	flag.StringVar(&sums, "sum", "", "numeric columns to sum, comma-separated")
	from := flag.String("from", "", "filtered scan: time >= this (microseconds)")
	to := flag.String("to", "", "filtered scan: time < this (microseconds)")
	flag.BoolVar(&q.latest, "latest", false, "also print the row of the greatest time of each series (series columns, time_us, the summed columns)")
	values := flag.String("values", "", "also print each row's values of these columns, nested ones as JSON (values.go), comma-separated")
	var cat catalogFlags
	flag.StringVar(&cat.uri, "catalog-uri", "", "read -table through this Iceberg REST catalog (http://host:port) instead of metadata files")
	flag.StringVar(&cat.warehouse, "warehouse", "", "with -catalog-uri: the warehouse to ask the catalog for")
	flag.StringVar(&cat.token, "token", "", "with -catalog-uri: a bearer token")
	flag.StringVar(&cat.credential, "credential", "", "with -catalog-uri: ID:SECRET for the OAuth2 client_credentials exchange")
	flag.StringVar(&cat.table, "table", "", "with -catalog-uri: the table, NS.T")
	flag.Parse()
	q.series = splitList(series)
	q.sums = splitList(sums)
	q.values = splitList(*values)
	if q.time == "" || (flag.NArg() == 0) == (cat.uri == "") || (cat.uri != "" && cat.table == "") || (*from == "") != (*to == "") {
		fmt.Fprintln(os.Stderr, "usage: icebergread -time COL [-series A,B] [-sum X,Y] [-from US -to US] METADATA.json...")
		fmt.Fprintln(os.Stderr, "       icebergread -time COL ... -catalog-uri URI [-warehouse W] [-token T | -credential ID:SECRET] -table NS.T")
		os.Exit(2)
	}
	if *from != "" {
		var err1, err2 error
		q.from, err1 = strconv.ParseInt(*from, 10, 64)
		q.to, err2 = strconv.ParseInt(*to, 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			fmt.Fprintln(os.Stderr, "icebergread: -from/-to:", err)
			os.Exit(2)
		}
		q.filtered = true
	}

	status := 0
	enc := json.NewEncoder(os.Stdout)
	if cat.uri != "" {
		s, err := summarizeCatalog(context.Background(), cat, q)
		if err != nil {
			s = summary{Reader: "iceberg-go", PlannedFiles: -1, Error: fmt.Sprintf("%s %s: %v", cat.uri, cat.table, err)}
			status = 1
		}
		if err := enc.Encode(s); err != nil {
			fmt.Fprintln(os.Stderr, "icebergread:", err)
			os.Exit(1)
		}
		os.Exit(status)
	}
	for _, path := range flag.Args() {
		s, err := summarize(context.Background(), path, q)
		if err != nil {
			s = summary{Reader: "iceberg-go", PlannedFiles: -1, Error: fmt.Sprintf("%s: %v", path, err)}
			status = 1
		}
		if err := enc.Encode(s); err != nil {
			fmt.Fprintln(os.Stderr, "icebergread:", err)
			os.Exit(1)
		}
	}
	os.Exit(status)
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func summarize(ctx context.Context, path string, q query) (summary, error) {
	fsys := func(ctx context.Context) (icebergio.IO, error) { return icebergio.LocalFS{}, nil }
	tbl, err := table.NewFromLocation(ctx, table.Identifier{"interop", "t"}, path, fsys, nil)
	if err != nil {
		return summary{}, fmt.Errorf("open: %w", err)
	}
	return summarizeTable(ctx, tbl, q)
}

// catalogFlags say which table of which REST catalog to read.
type catalogFlags struct {
	uri, warehouse, token, credential, table string
}

// summarizeCatalog loads cat.table through iceberg-go's REST catalog client
// (its FileIO from the table's location and the load-table config, so vended
// S3 settings apply) and summarizes it.
func summarizeCatalog(ctx context.Context, cat catalogFlags, q query) (summary, error) {
	var opts []rest.Option
	if cat.warehouse != "" {
		opts = append(opts, rest.WithWarehouseLocation(cat.warehouse))
	}
	if cat.token != "" {
		opts = append(opts, rest.WithOAuthToken(cat.token))
	}
	if cat.credential != "" {
		opts = append(opts, rest.WithCredential(cat.credential))
	}
	c, err := rest.NewCatalog(ctx, "timelake", cat.uri, opts...)
	if err != nil {
		return summary{}, fmt.Errorf("catalog: %w", err)
	}
	ns, name, ok := strings.Cut(cat.table, ".")
	if !ok {
		return summary{}, fmt.Errorf("-table %q: want NS.T", cat.table)
	}
	tbl, err := c.LoadTable(ctx, catalog.ToIdentifier(ns, name))
	if err != nil {
		return summary{}, fmt.Errorf("load table: %w", err)
	}
	return summarizeTable(ctx, tbl, q)
}

func summarizeTable(ctx context.Context, tbl *table.Table, q query) (summary, error) {
	opts := []table.ScanOption{table.WithSelectedFields(append(append(append([]string{q.time}, q.series...), q.sums...), q.values...)...)}
	if q.filtered {
		f, ok := tbl.Schema().FindFieldByName(q.time)
		if !ok {
			return summary{}, fmt.Errorf("time column %q not in the table schema", q.time)
		}
		ref := iceberg.Reference(q.time)
		var filter iceberg.BooleanExpression
		switch f.Type.(type) {
		case iceberg.TimestampType, iceberg.TimestampTzType:
			filter = iceberg.NewAnd(iceberg.GreaterThanEqual(ref, iceberg.Timestamp(q.from)), iceberg.LessThan(ref, iceberg.Timestamp(q.to)))
		case iceberg.Int64Type:
			filter = iceberg.NewAnd(iceberg.GreaterThanEqual(ref, q.from), iceberg.LessThan(ref, q.to))
		default:
			return summary{}, fmt.Errorf("time column %q has type %s; want timestamp, timestamptz or long", q.time, f.Type)
		}
		opts = append(opts, table.WithRowFilter(filter))
	}
	isInt := map[string]bool{}
	for _, name := range q.sums {
		f, ok := tbl.Schema().FindFieldByName(name)
		if !ok {
			return summary{}, fmt.Errorf("column %q to sum is not in the table schema", name)
		}
		switch f.Type.(type) {
		case iceberg.Int32Type, iceberg.Int64Type:
			isInt[name] = true
		case iceberg.Float32Type, iceberg.Float64Type:
		default:
			return summary{}, fmt.Errorf("column %q to sum has type %s; want int, long, float or double", name, f.Type)
		}
	}
	scan := tbl.Scan(opts...)
	defer scan.Close()

	tasks, err := scan.PlanFiles(ctx)
	if err != nil {
		return summary{}, fmt.Errorf("plan files: %w", err)
	}
	acc := newAccumulator(q, isInt)
	_, records, err := scan.ToArrowRecords(ctx)
	if err != nil {
		return summary{}, fmt.Errorf("scan to arrow: %w", err)
	}
	for rec, err := range records {
		if err != nil {
			return summary{}, fmt.Errorf("read records: %w", err)
		}
		err = acc.add(rec)
		rec.Release()
		if err != nil {
			return summary{}, err
		}
	}
	s := acc.summary()
	s.PlannedFiles = int64(len(tasks))
	return s, nil
}

// accumulator folds Arrow record batches into a summary.
type accumulator struct {
	q        query
	rows     int64
	ints     map[string]*big.Int // integer columns (by the table schema): exact sums
	floats   map[string]float64  // floating-point columns
	nonNull  map[string]int64
	series   map[string]struct{}
	min, max *int64
	latest   map[string]latestRow // by series key, with q.latest
	values   []valueRow           // with q.values
}

// latestRow is the row of the greatest time seen for one series.
type latestRow struct {
	timeUS int64
	values map[string]any // series and summed columns, as Arrow marshals them
}

func newAccumulator(q query, isInt map[string]bool) *accumulator {
	a := &accumulator{q: q, ints: map[string]*big.Int{}, floats: map[string]float64{},
		nonNull: map[string]int64{}, series: map[string]struct{}{}, latest: map[string]latestRow{}}
	for _, name := range q.sums {
		if isInt[name] {
			a.ints[name] = new(big.Int)
		} else {
			a.floats[name] = 0
		}
		a.nonNull[name] = 0
	}
	return a
}

func column(rec arrow.RecordBatch, name string) (arrow.Array, error) {
	idx := rec.Schema().FieldIndices(name)
	if len(idx) != 1 {
		return nil, fmt.Errorf("column %q: found %d times in the scan's Arrow schema %s", name, len(idx), rec.Schema())
	}
	return rec.Column(idx[0]), nil
}

func (a *accumulator) add(rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	a.rows += int64(n)

	tcol, err := column(rec, a.q.time)
	if err != nil {
		return err
	}
	micros, err := timeMicros(tcol)
	if err != nil {
		return fmt.Errorf("time column %q: %w", a.q.time, err)
	}
	for i := 0; i < n; i++ {
		if tcol.IsNull(i) {
			continue
		}
		v := micros(i)
		if a.min == nil || v < *a.min {
			a.min = &v
		}
		if a.max == nil || v > *a.max {
			a.max = &v
		}
	}

	scols := make([]arrow.Array, len(a.q.series))
	for k, name := range a.q.series {
		if scols[k], err = column(rec, name); err != nil {
			return err
		}
	}
	var key strings.Builder
	for i := 0; i < n; i++ {
		key.Reset()
		for _, c := range scols {
			if c.IsNull(i) {
				key.WriteString("\x00null")
			} else {
				s := c.ValueStr(i)
				fmt.Fprintf(&key, "\x00%d:%s", len(s), s)
			}
		}
		a.series[key.String()] = struct{}{}
		if a.q.latest && !tcol.IsNull(i) {
			if err := a.keepLatest(rec, key.String(), i, micros(i)); err != nil {
				return err
			}
		}
	}

	if len(a.q.values) > 0 {
		if err := a.addValues(rec, micros); err != nil {
			return err
		}
	}
	for _, name := range a.q.sums {
		c, err := column(rec, name)
		if err != nil {
			return err
		}
		a.nonNull[name] += int64(c.Len() - c.NullN())
		if err := a.sum(name, c); err != nil {
			return fmt.Errorf("sum of column %q: %w", name, err)
		}
	}
	return nil
}

func (a *accumulator) keepLatest(rec arrow.RecordBatch, key string, i int, t int64) error {
	if cur, ok := a.latest[key]; ok && cur.timeUS >= t {
		return nil
	}
	r := latestRow{timeUS: t, values: map[string]any{}}
	for _, name := range append(append([]string{}, a.q.series...), a.q.sums...) {
		c, err := column(rec, name)
		if err != nil {
			return err
		}
		r.values[name] = c.GetOneForMarshal(i)
	}
	a.latest[key] = r
	return nil
}

func timeMicros(c arrow.Array) (func(int) int64, error) {
	switch c := c.(type) {
	case *array.Timestamp:
		unit := c.DataType().(*arrow.TimestampType).Unit
		return func(i int) int64 {
			v := int64(c.Value(i))
			switch unit {
			case arrow.Second:
				return v * 1_000_000
			case arrow.Millisecond:
				return v * 1_000
			case arrow.Nanosecond:
				return v / 1_000 // truncates; Iceberg timestamps are micros, so not reached for its tables
			}
			return v
		}, nil
	case *array.Int64:
		return func(i int) int64 { return c.Value(i) }, nil
	}
	return nil, fmt.Errorf("arrow type %s is not a timestamp or int64", c.DataType())
}

func (a *accumulator) sum(name string, c arrow.Array) error {
	total, isInt := a.ints[name]
	var v big.Int
	switch c := c.(type) {
	case *array.Int64:
		if !isInt {
			break
		}
		for i := 0; i < c.Len(); i++ {
			if c.IsValid(i) {
				total.Add(total, v.SetInt64(c.Value(i)))
			}
		}
		return nil
	case *array.Int32:
		if !isInt {
			break
		}
		for i := 0; i < c.Len(); i++ {
			if c.IsValid(i) {
				total.Add(total, v.SetInt64(int64(c.Value(i))))
			}
		}
		return nil
	case *array.Float64:
		if isInt {
			break
		}
		for i := 0; i < c.Len(); i++ {
			if c.IsValid(i) {
				a.floats[name] += c.Value(i)
			}
		}
		return nil
	case *array.Float32:
		if isInt {
			break
		}
		for i := 0; i < c.Len(); i++ {
			if c.IsValid(i) {
				a.floats[name] += float64(c.Value(i))
			}
		}
		return nil
	}
	return fmt.Errorf("arrow type %s does not match the table schema's type (integer: %v)", c.DataType(), isInt)
}

func (a *accumulator) summary() summary {
	s := summary{Reader: "iceberg-go", Rows: a.rows, Sums: map[string]json.RawMessage{},
		NonNull: a.nonNull, DistinctSeries: int64(len(a.series)), MinTimeUS: a.min, MaxTimeUS: a.max}
	for _, name := range a.q.sums {
		if total, ok := a.ints[name]; ok {
			s.Sums[name] = json.RawMessage(total.String())
		} else {
			s.Sums[name] = formatFloat(a.floats[name])
		}
	}
	if len(a.q.values) > 0 {
		s.Values = a.sortedValues()
	}
	if a.q.latest {
		keys := make([]string, 0, len(a.latest))
		for k := range a.latest {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		s.Latest = []map[string]any{}
		for _, k := range keys {
			r := a.latest[k]
			m := map[string]any{"time_us": r.timeUS}
			for name, v := range r.values {
				if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
					v = formatFloat(f)
				}
				m[name] = v
			}
			s.Latest = append(s.Latest, m)
		}
	}
	return s
}

// formatFloat prints f so that it reads back as a float: with a '.' or an
// exponent, or as a string for NaN and the infinities (not JSON numbers).
func formatFloat(f float64) json.RawMessage {
	switch {
	case math.IsNaN(f):
		return json.RawMessage(`"NaN"`)
	case math.IsInf(f, 1):
		return json.RawMessage(`"Infinity"`)
	case math.IsInf(f, -1):
		return json.RawMessage(`"-Infinity"`)
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return json.RawMessage(s)
}
