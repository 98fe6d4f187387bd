//go:build js && wasm

package main

import (
	"runtime/debug"
	"runtime/metrics"
)

// A streamed scan's collections, paced by its live heap.
//
// A scan merges every file it reads at once, and each file holds a window
// of decoded rows (in practice a decoded page per column: pages are decoded
// whole) and the bytes fetched for it, so its live heap grows with the files
// merged: 40 MiB or more for the 104 files of three months of the flights
// table (bench/flights.mjs). With the proportional collector off (main), two
// things made such a scan's collections grow faster than its rows:
//
//   - a collection every scanCollectAfter (8 MiB) allocated, each costing
//     time in proportion to the live heap: work ∝ rows × files;
//   - the runtime's soft limit (memoryLimit, 40 MiB): once the live heap
//     neared it the runtime collected again and again on its own, most of
//     the scan's CPU (61% in gcBgMarkWorker for two months of flights).
//
// Measured in Node on the flights table: 1 month 1.1 s, 3 months 18.3 s
// with the fixed pacing; 1.9 s and 5.8 s with the limit lifted alone.
// collectScan instead collects once the scan allocated half its live heap
// (at least scanCollectAfter) since the last collection, and keeps the
// soft limit above what that needs, as GOGC=50 would: the collections' work
// is then about twice the bytes allocated whatever the heap, and memory
// about 1.5× the live heap. A scan whose live heap stays small (a few
// files: the usual case, and workerd's) is collected as before: every
// 8 MiB, under 40 MiB. The limit is set back when the last scan ends.

var (
	heapLive = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	// scanBaseLimit is the soft limit before the first running scan raised
	// it; -1 when no scan raised it.
	scanBaseLimit int64 = -1
)

// collectScan collects when the scan allocated max(scanCollectAfter, half
// its live heap) since the last collection, first raising the soft limit
// to the live heap plus twice that, when the limit is lower.
func collectScan() {
	metrics.Read(heapLive)
	live := heapLive[0].Value.Uint64() // marked by the last collection
	n := max(uint64(scanCollectAfter), live/2)
	if want := int64(live + 2*n); want > debug.SetMemoryLimit(-1) {
		if scanBaseLimit < 0 {
			scanBaseLimit = debug.SetMemoryLimit(-1)
		}
		debug.SetMemoryLimit(want)
	}
	collectEvery(n)
}

// scanEnded sets the soft limit back once no scan runs.
func scanEnded() {
	if scansRunning == 0 && scanBaseLimit >= 0 {
		debug.SetMemoryLimit(scanBaseLimit)
		scanBaseLimit = -1
	}
}

// paceStoreCall runs before every store round trip. A scan is paced by
// collectScan. Any other call whose live heap passed half the soft limit
// is paced the same way: a table of 1,000 snapshots (its metadata,
// manifest lists and the expiry's sets) holds more than 40 MiB live, and
// with the proportional collector off the runtime then collected again and
// again on its own once the heap reached the limit: expiry + cleanup of
// 1,000 snapshots in Node took 128 s of CPU, 1.3 s with the limit lifted
// (bench/expirenode.mjs), and the appends building that table slowed the
// same way. Store calls are where every long call comes back to Go between
// pieces of work (manifests read, files written), as a scan's batches are.
// The limit is set back after the call (scanEnded, from async).
func paceStoreCall() {
	if scansRunning == 0 {
		metrics.Read(heapLive)
		if heapLive[0].Value.Uint64() < uint64(debug.SetMemoryLimit(-1))/2 {
			return
		}
	}
	collectScan()
}
