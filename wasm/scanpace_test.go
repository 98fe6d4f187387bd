//go:build js && wasm

package main

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// TestCollectScanFollowsTheLiveHeap: a scan whose live heap is past the
// soft limit (many files merged) is collected in proportion to what it
// allocates, not again and again: with 48 MiB live and 240 MiB allocated in
// 64 KiB pieces (a batch or range read between them), at most 240/24 + 3
// collections (10 here), where the fixed pacing (every 8 MiB, and the
// runtime on its own whenever the heap neared the 40 MiB limit) made 65,
// each of them marking the 48 MiB. The limit is back where it was once the
// scan ends.
func TestCollectScanFollowsTheLiveHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // as main runs it
	base := debug.SetMemoryLimit(memoryLimit)
	defer debug.SetMemoryLimit(base)
	runtime.GC()

	// the live heap of a wide merge: pointer-free pages and string headers
	const liveMiB = 48
	live := make([][]int64, 0, liveMiB)
	for range liveMiB / 2 {
		live = append(live, make([]int64, 1<<17)) // 1 MiB
	}
	strs := make([][]string, 0, liveMiB)
	for range liveMiB / 2 {
		s := make([]string, 1<<16) // 1 MiB of headers
		for i := range s {
			s[i] = "host"
		}
		strs = append(strs, s)
	}
	runtime.GC()
	metrics.Read(heapAllocs)
	allocsAtLastGC = heapAllocs[0].Value.Uint64()

	cycles := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(cycles)
	before := cycles[0].Value.Uint64()
	scansRunning++
	const allocMiB = 240
	var sink []byte
	for range allocMiB * 16 {
		sink = make([]byte, 64<<10)
		sink[0] = 1
		collectScan()
	}
	if lim := debug.SetMemoryLimit(-1); lim <= memoryLimit {
		t.Errorf("soft limit %d during a scan with %d MiB live, want it raised above %d", lim, liveMiB, memoryLimit)
	}
	scansRunning--
	scanEnded()
	metrics.Read(cycles)
	n := cycles[0].Value.Uint64() - before
	t.Logf("%d collections for %d MiB allocated with %d MiB live", n, allocMiB, liveMiB)
	if want := uint64(allocMiB/(liveMiB/2) + 3); n > want {
		t.Errorf("%d collections for %d MiB allocated with %d MiB live, want at most %d", n, allocMiB, liveMiB, want)
	}
	if lim := debug.SetMemoryLimit(-1); lim != memoryLimit {
		t.Errorf("soft limit %d after the scan, want %d back", lim, memoryLimit)
	}
	runtime.KeepAlive(live)
	runtime.KeepAlive(strs)
	runtime.KeepAlive(sink)
}

// TestStoreCallsPaceALargeLiveHeap: a call that is not a scan (expiry of a
// table of 1,000 snapshots) with its live heap past the soft limit is paced
// at its store calls as a scan is: with 48 MiB live and 240 MiB allocated
// by 64 KiB reads through a JavaScript store, at most 20 collections, where
// the runtime on its own, the heap at the 40 MiB limit, collected on every
// few allocations (thousands; the expiry took 100x its CPU). The limit is
// back where it was after the call.
func TestStoreCallsPaceALargeLiveHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // as main runs it
	base := debug.SetMemoryLimit(memoryLimit)
	defer debug.SetMemoryLimit(base)
	runtime.GC()

	const liveMiB = 48
	live := make([][]int64, 0, liveMiB)
	for range liveMiB {
		live = append(live, make([]int64, 1<<17)) // 1 MiB
	}
	runtime.GC()
	metrics.Read(heapAllocs)
	allocsAtLastGC = heapAllocs[0].Value.Uint64()

	cycles := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(cycles)
	before := cycles[0].Value.Uint64()
	st, _ := testJSStore(64<<10, false)
	ctx := context.Background()
	const allocMiB = 240
	var sink []byte
	for range allocMiB * 16 {
		b, err := st.Get(ctx, "metadata/snap-1-1-x.avro")
		if err != nil {
			t.Fatal(err)
		}
		sink = b
	}
	if lim := debug.SetMemoryLimit(-1); lim <= memoryLimit {
		t.Errorf("soft limit %d during a call with %d MiB live, want it raised above %d", lim, liveMiB, memoryLimit)
	}
	scanEnded() // as async does after every call
	metrics.Read(cycles)
	n := cycles[0].Value.Uint64() - before
	t.Logf("%d collections for %d MiB read with %d MiB live", n, allocMiB, liveMiB)
	// The pacing alone makes allocMiB/(liveMiB/2) = 10; the runtime adds
	// collections of its own by the soft limit, as many again at most
	// (9 alone, 16 after TestCollectScanFollowsTheLiveHeap, whose freed
	// heap is counted until reused).
	if want := uint64(2 * allocMiB / (liveMiB / 2)); n > want {
		t.Errorf("%d collections for %d MiB read with %d MiB live, want at most %d", n, allocMiB, liveMiB, want)
	}
	if lim := debug.SetMemoryLimit(-1); lim != memoryLimit {
		t.Errorf("soft limit %d after the call, want %d back", lim, memoryLimit)
	}
	runtime.KeepAlive(live)
	runtime.KeepAlive(sink)
}
