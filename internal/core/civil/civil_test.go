package civil

import (
	"testing"
	"time"
)

// The date and clock agree with package time's, which the core may not
// call, across eras, leap days and the years before 0001 and after 9999.
func TestAppendDateClockMatchTime(t *testing.T) {
	for _, days := range []int64{-1_000_000, -719_529, -719_528, -719_162, -1, 0, 1, 59, 60, 11_016, 11_017, 2_932_896, 2_932_897, 1_000_000} {
		for _, us := range []int64{0, 1, 999_999, 3_600_000_000, 86_399_999_999} {
			got := string(AppendClock(append(AppendDate(nil, days), 'T'), us, 1_000_000))
			tm := time.UnixMicro(days*86_400_000_000 + us).UTC()
			want := tm.Format("2006-01-02T15:04:05.000000")
			if y := tm.Year(); y < 0 {
				want = "-" + pad4(-y) + tm.Format("-01-02T15:04:05.000000")
			} else if y > 9999 {
				want = tm.Format("2006") + tm.Format("-01-02T15:04:05.000000")
			}
			if got != want {
				t.Errorf("days %d, us %d: %s, want %s", days, us, got, want)
			}
		}
	}
	if got := string(AppendClock(nil, 86_399_999_999_999, 1_000_000_000)); got != "23:59:59.999999999" {
		t.Errorf("nanosecond clock: %s", got)
	}
}

func pad4(y int) string { return string(Pad(nil, int64(y), 4)) }

func TestFloorDiv(t *testing.T) {
	for _, c := range [][3]int64{{7, 2, 3}, {-7, 2, -4}, {-8, 2, -4}, {7, -2, -4}, {0, 5, 0}, {-1, 86_400, -1}} {
		if got := FloorDiv(c[0], c[1]); got != c[2] {
			t.Errorf("FloorDiv(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}
