package commit

import (
	"context"
	"strconv"
	"strings"

	"github.com/timelake/timelake/store"
)

// LatestAfter is Latest for a caller that holds version known (a Table
// that just committed it): when version-hint.text names known or an older
// version, known's metadata is not read again — only the versions after
// it are probed, one read when there is none. Otherwise (a hint ahead of
// known: its next versions may be gone, trimmed from the history) it is
// Latest. Two small reads where Latest makes three, one of them the whole
// metadata file.
func LatestAfter(ctx context.Context, st store.Store, known Version) (Version, error) {
	if known.N <= 0 || known.Location != "" {
		return Latest(ctx, st)
	}
	b, err := store.GetLimited(ctx, st, VersionHintKey, maxHintBytes)
	if err != nil {
		return Latest(ctx, st)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n <= 0 || n > known.N {
		return Latest(ctx, st)
	}
	v, err := probeForward(ctx, st, known)
	if err == nil && v.N > known.N && IsSuperseded(v.Raw) {
		return Version{}, errSupersededHead(v)
	}
	return v, err
}
