package main

import (
	"encoding/json"
	"flag"
	"os"
	"runtime"
	"time"
)

// result is the one JSON line a run prints. Times are per operation, in ms;
// CPU is the process's (natively getrusage, in Node process.cpuUsage: every
// thread, V8's compiler and GC threads included).
type result struct {
	Target     string    `json:"target"` // GOOS/GOARCH
	Shape      string    `json:"shape"`
	Go         string    `json:"go"`
	GOGC       string    `json:"gogc"`
	GOMAXPROCS int       `json:"gomaxprocs"`
	Workload   string    `json:"workload"`
	Warmup     int       `json:"warmup"`
	WallMs     []float64 `json:"wallMs"`
	CPUMs      []float64 `json:"cpuMs,omitempty"`
	// MainMs is the CPU time of Node's main thread alone (the one that runs
	// the WebAssembly), from /proc; the rest of CPUMs is V8's other threads
	// (compilers, its collector). Not measured natively.
	MainMs []float64 `json:"mainMs,omitempty"`
	// NumGC is the collections during the timed operations.
	NumGC uint32 `json:"numGC"`
}

func main() {
	appends := flag.Int("appends", 60, "timed warm appends of 1,000 rows")
	warm := flag.Int("warmup", 150, "untimed appends first (V8 tiers up for ~100)")
	compacts := flag.Int("compacts", 8, "timed compactions of 8 × 1,000 rows")
	cwarm := flag.Int("cwarmup", 10, "untimed compactions first")
	serve := flag.Bool("serve", false, "js only: export the appends to JavaScript instead of timing them here")
	flag.Parse()
	if *serve {
		serveJS() // blocks; the JavaScript runner times the calls
		return
	}
	a := newAppender()
	for range *warm {
		a.prepare()
		a.once()
	}
	emit(loop("append 1000", *warm, *appends, a.prepare, a.once))
	if *compacts > 0 {
		c := newCompactor()
		for range *cwarm {
			c.prepare()
			c.once()
		}
		emit(loop("compact 8 x 1000", *cwarm, *compacts, c.prepare, c.once))
	}
}

// loop times n calls of once, each after an untimed prepare.
func loop(workload string, warm, n int, prepare, once func()) result {
	r := result{Target: runtime.GOOS + "/" + runtime.GOARCH, Shape: "command", Go: runtime.Version(),
		GOGC: os.Getenv("GOGC"), GOMAXPROCS: runtime.GOMAXPROCS(0), Workload: workload, Warmup: warm}
	var ms runtime.MemStats
	var gcs uint32
	for range n {
		prepare()
		runtime.ReadMemStats(&ms)
		gc0 := ms.NumGC
		m0, c0 := mainNow(), cpuNow()
		t0 := time.Now()
		once()
		wall := time.Since(t0)
		c1, m1 := cpuNow(), mainNow()
		runtime.ReadMemStats(&ms)
		gcs += ms.NumGC - gc0
		r.WallMs = append(r.WallMs, float64(wall.Nanoseconds())/1e6)
		if c0 >= 0 && c1 >= 0 {
			r.CPUMs = append(r.CPUMs, float64(c1-c0)/1e6)
		}
		if m0 >= 0 && m1 >= 0 {
			r.MainMs = append(r.MainMs, float64(m1-m0)/1e6)
		}
	}
	r.NumGC = gcs
	return r
}

func emit(r result) {
	if r.GOGC == "" {
		r.GOGC = "100"
	}
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(append(b, '\n'))
}
