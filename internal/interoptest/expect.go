package interoptest

import (
	"math/big"
	"strconv"
)

// Row is one row of a test table's expected content, as summaries see it:
// the time, the series key (the series columns joined, any way that keeps
// distinct series distinct), and the two summed columns of the test tables,
// cpu (double) and mem (long); nil is null.
type Row struct {
	TimeUS int64
	Series string
	CPU    *float64
	Mem    *int64
}

// Expect is the summary a reader must give for a table holding rows, with
// Sums and NonNull for "cpu" and "mem", restricted to r when it is not nil.
// PlannedFiles is -1 (unknown): set it when the test knows the pruning.
func Expect(rows []Row, r *TimeRange) Summary {
	s := Summary{Sums: map[string]Sum{}, NonNull: map[string]int64{"cpu": 0, "mem": 0}, PlannedFiles: -1}
	var cpu float64
	mem := new(big.Int)
	series := map[string]bool{}
	for _, row := range rows {
		if r != nil && (row.TimeUS < r.FromUS || row.TimeUS >= r.ToUS) {
			continue
		}
		s.Rows++
		series[row.Series] = true
		if row.CPU != nil {
			cpu += *row.CPU
			s.NonNull["cpu"]++
		}
		if row.Mem != nil {
			mem.Add(mem, big.NewInt(*row.Mem))
			s.NonNull["mem"]++
		}
		if s.MinTimeUS == nil || row.TimeUS < *s.MinTimeUS {
			v := row.TimeUS
			s.MinTimeUS = &v
		}
		if s.MaxTimeUS == nil || row.TimeUS > *s.MaxTimeUS {
			v := row.TimeUS
			s.MaxTimeUS = &v
		}
	}
	s.Sums["cpu"] = Sum(strconv.FormatFloat(cpu, 'e', -1, 64))
	s.Sums["mem"] = Sum(mem.String())
	s.DistinctSeries = int64(len(series))
	return s
}
