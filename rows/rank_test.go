package rows

import "testing"

func TestRankBeats(t *testing.T) {
	in := func(ts, seq int64) Rank { return Rank{Ingest: ts, HasIngest: true, Seq: seq} }
	null := func(seq int64) Rank { return Rank{Seq: seq} }
	for _, c := range []struct {
		name string
		a, b Rank
		want bool
	}{
		{"greater ingest", in(20, 1), in(10, 5), true},
		{"smaller ingest", in(10, 5), in(20, 1), false},
		{"same ingest, later seq", in(10, 5), in(10, 4), true},
		{"same ingest, earlier seq", in(10, 4), in(10, 5), false},
		{"equal", in(10, 4), in(10, 4), false},
		{"null, later seq", null(5), in(99, 4), true},
		{"null, earlier seq", null(3), in(1, 4), false},
		{"ingest, later seq than null", in(1, 6), null(5), true},
		{"same seq: ingest beats null", in(1, 5), null(5), true},
		{"same seq: null loses to ingest", null(5), in(1, 5), false},
		{"both null, later seq", null(6), null(5), true},
		{"both null, same seq", null(5), null(5), false},
	} {
		if got := c.a.Beats(c.b); got != c.want {
			t.Errorf("%s: %+v.Beats(%+v) = %v, want %v", c.name, c.a, c.b, got, c.want)
		}
	}
}

func TestRankWinner(t *testing.T) {
	in := func(ts, seq int64) Rank { return Rank{Ingest: ts, HasIngest: true, Seq: seq} }
	null := func(seq int64) Rank { return Rank{Seq: seq} }
	for _, c := range []struct {
		name  string
		ranks []Rank
		want  int
	}{
		{"one", []Rank{null(1)}, 0},
		{"ingest decides", []Rank{in(10, 9), in(30, 2), in(20, 5)}, 1},
		{"null after the best", []Rank{in(10, 3), null(4)}, 1},
		{"null before the best", []Rank{null(4), in(10, 5)}, 1},
		{"ties keep the last", []Rank{in(10, 5), in(10, 5)}, 1},
		{"null ties keep the last", []Rank{null(5), null(5)}, 1},
		// B(50, seq 9) beats A(100, 5) by nothing: A has the greater
		// _ingest_ts. N (seq 7) is later than A: N wins, whatever the order.
		{"cycle", []Rank{in(100, 5), in(50, 9), null(7)}, 2},
		{"cycle reordered", []Rank{null(7), in(50, 9), in(100, 5)}, 0},
	} {
		if got := Winner(c.ranks); got != c.want {
			t.Errorf("%s: Winner(%+v) = %d, want %d", c.name, c.ranks, got, c.want)
		}
		if len(c.ranks) == 2 {
			a, b := c.ranks[0], c.ranks[1]
			want := 1
			if a.Beats(b) {
				want = 0
			}
			if got := Winner(c.ranks); got != want {
				t.Errorf("%s: Winner = %d, Beats says %d", c.name, got, want)
			}
		}
	}
}
