package commit

import (
	"context"
	"testing"

	"github.com/timelake/timelake/store/memstore"
)

// TestLatestAfter: from a version the caller holds, the versions after it
// are probed when the hint is not ahead of it; else Latest decides.
func TestLatestAfter(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		setup   map[string]string
		known   int
		want    int
		wantRaw string // the metadata of the answer: "held" when it is the caller's own
	}{
		{"hint at known, nothing after", map[string]string{MetadataKey(1): "a", MetadataKey(2): "b", VersionHintKey: "2"}, 2, 2, "held"},
		{"hint at known, two after", map[string]string{MetadataKey(2): "b", MetadataKey(3): "c", MetadataKey(4): "d", VersionHintKey: "2"}, 2, 4, "d"},
		{"hint behind known", map[string]string{MetadataKey(2): "b", MetadataKey(3): "c", VersionHintKey: "1"}, 2, 3, "c"},
		{"hint ahead, the next versions trimmed", map[string]string{MetadataKey(2): "b", MetadataKey(8): "h", MetadataKey(9): "i", VersionHintKey: "8"}, 2, 9, "i"},
		{"no hint", map[string]string{MetadataKey(2): "b", MetadataKey(5): "e"}, 2, 5, "e"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := memstore.New()
			for k, v := range tc.setup {
				put(t, st, k, v)
			}
			v, err := LatestAfter(ctx, st, Version{N: tc.known, Raw: []byte("held")})
			if err != nil || v.N != tc.want || string(v.Raw) != tc.wantRaw {
				t.Errorf("LatestAfter = %d %q, %v; want %d %q", v.N, v.Raw, err, tc.want, tc.wantRaw)
			}
		})
	}
}
