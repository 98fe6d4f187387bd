package memstore_test

import (
	"testing"
	"time"

	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return memstore.New() })
}

func TestClock(t *testing.T) {
	ctx := t.Context()
	at := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	s := memstore.New(memstore.WithClock(func() time.Time { return at }))
	if err := s.Put(ctx, "a", []byte("x")); err != nil {
		t.Fatal(err)
	}
	objs, err := s.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || !objs[0].LastModified.Equal(at) {
		t.Errorf("List = %+v, want one object modified at %v", objs, at)
	}
}

func TestDefaultClockAdvances(t *testing.T) {
	ctx := t.Context()
	s := memstore.New()
	for _, k := range []string{"a", "b", "c"} {
		if err := s.Put(ctx, k, nil); err != nil {
			t.Fatal(err)
		}
	}
	objs, err := s.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(objs); i++ {
		if !objs[i].LastModified.After(objs[i-1].LastModified) {
			t.Errorf("%s modified at %v, not after %s at %v", objs[i].Key, objs[i].LastModified, objs[i-1].Key, objs[i-1].LastModified)
		}
	}
	// A lost PutIfAbsent does not touch the object's time.
	if created, err := s.PutIfAbsent(ctx, "a", []byte("y")); err != nil || created {
		t.Fatalf("PutIfAbsent(a) = %v, %v", created, err)
	}
	again, _ := s.List(ctx, "a")
	if !again[0].LastModified.Equal(objs[0].LastModified) {
		t.Errorf("lost PutIfAbsent changed LastModified from %v to %v", objs[0].LastModified, again[0].LastModified)
	}
}

func TestFakeClock(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := memstore.FakeClock(start, time.Second)
	for i := range 3 {
		if got, want := c(), start.Add(time.Duration(i)*time.Second); !got.Equal(want) {
			t.Errorf("call %d: got %v, want %v", i+1, got, want)
		}
	}
}

func BenchmarkPut(b *testing.B) {
	s := memstore.New()
	data := make([]byte, 64<<10)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := s.Put(b.Context(), "data/x.parquet", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetRange(b *testing.B) {
	s := memstore.New()
	if err := s.Put(b.Context(), "data/x.parquet", make([]byte, 1<<20)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(8 << 10)
	for b.Loop() {
		if _, err := s.GetRange(b.Context(), "data/x.parquet", 4096, 8<<10); err != nil {
			b.Fatal(err)
		}
	}
}
