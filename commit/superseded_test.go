package commit

import (
	"context"
	"testing"

	"github.com/timelake/timelake/store/memstore"
)

// TestSupersededVersions: a version replaced by its marker keeps its number
// taken (a writer on the base before it loses and rebases on the newest),
// and Latest probes past markers, from a stale hint or a listing.
func TestSupersededVersions(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	for n := 1; n <= 5; n++ {
		raw := []byte("v" + string(rune('0'+n)))
		if n <= 3 {
			raw = Superseded(n)
		}
		put(t, st, MetadataKey(n), string(raw))
	}
	if !IsSuperseded(Superseded(12)) || IsSuperseded([]byte(`{"format-version":2}`)) {
		t.Fatal("IsSuperseded does not tell a marker from metadata")
	}
	// (A hint ahead of every version is ErrVersionMissing: TestLatest.)
	for _, hint := range []string{"2", ""} {
		if hint != "" {
			put(t, st, VersionHintKey, hint)
		} else {
			_ = st.Delete(ctx, []string{VersionHintKey})
		}
		v, err := Latest(ctx, st)
		if err != nil || v.N != 5 || string(v.Raw) != "v5" {
			t.Errorf("hint %q: Latest = %d %q, %v; want version 5", hint, v.N, v.Raw, err)
		}
	}
	// A writer whose base is version 2 proposes version 3: taken by the
	// marker, it loses to the newest version and rebuilds on it.
	c := &change{id: "late"}
	res, err := Commit(ctx, st, Options{}, Version{N: 2, Raw: Superseded(2)}, c.fixed(), c.rebuild, c.isOurs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Version.N != 6 || len(c.rebuilds) != 2 || c.rebuilds[1] != 5 {
		t.Errorf("committed version %d after rebuilds on %v; want version 6, rebuilt on 5", res.Version.N, c.rebuilds)
	}
	// Only markers: no version to open.
	only := memstore.New()
	put(t, only, MetadataKey(1), string(Superseded(1)))
	if _, err := Latest(ctx, only); err == nil {
		t.Error("Latest over nothing but a marker: no error")
	}
}
