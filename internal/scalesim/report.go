package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// CatalogCommitsPerMin is the commit rate per table that R2 Data Catalog
// sustains, about 20 a minute: a limit, stated, not measured here.
const CatalogCommitsPerMin = 20.0

// Derived are the figures of a report, per minute, per day and per million rows.
type Derived struct {
	Minutes, DayScale            float64 // simulated minutes; a day / the simulated time
	AppendsPerMin, CommitsPerMin float64 // appends; appends and maintenance commits
	AppendMsEach                 float64 // the writer's CPU per append
	WriterBusy                   float64 // the writer's CPU / wall time, appends and maintenance
	MaintainCPUDay               time.Duration
	APerM, BPerM, DelPerM        float64 // requests per million rows
	PtrAPerM, PtrBPerM           float64 // of them, naming the metadata pointer
	MinBatchSecondsCatalog       float64 // the shortest batch interval under the catalog's limit
}

func derive(r *Report) Derived {
	var d Derived
	d.Minutes = r.Duration.Minutes()
	d.DayScale = 24 * 60 / d.Minutes
	d.AppendsPerMin = float64(r.Appends) / d.Minutes
	d.CommitsPerMin = float64(r.Appends+r.MaintainCommits) / d.Minutes
	if r.Appends > 0 {
		d.AppendMsEach = float64(r.AppendCPU.Microseconds()) / 1000 / float64(r.Appends)
	}
	d.WriterBusy = float64(r.AppendCPU+r.MaintainCPU) / float64(r.Duration)
	d.MaintainCPUDay = time.Duration(float64(r.MaintainCPU) * d.DayScale)
	m := float64(r.Rows) / 1e6
	d.APerM = float64(r.ByClass[classA]) / m
	d.BPerM = float64(r.ByClass[classB]) / m
	d.DelPerM = float64(r.ByClass[free]) / m
	d.PtrAPerM = float64(r.Pointer[classA]) / m
	d.PtrBPerM = float64(r.Pointer[classB]) / m
	// Appends may take what maintenance leaves of the limit.
	if room := CatalogCommitsPerMin - float64(r.MaintainCommits)/d.Minutes; room > 0 {
		d.MinBatchSecondsCatalog = 60 / room
	}
	return d
}

func printReport(w io.Writer, r *Report) {
	d := derive(r)
	perSec := r.Producers * r.RowsPerSec
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	batch := fmt.Sprintf("every %d s", r.BatchSeconds)
	if r.BatchRows > 0 {
		batch += fmt.Sprintf(" or %d rows", r.BatchRows)
	}
	p("scenario: %d producers × %d rows/s = %d rows/s; batcher %s; maintenance every %s; %s partitions; %s simulated from %s (per-day figures ×%.1f)",
		r.Producers, r.RowsPerSec, perSec, batch, r.MaintainEvery, r.Partition, r.Duration, r.Start.Format(time.RFC3339), d.DayScale)
	p("")
	p("| measure | value |")
	p("| --- | --- |")
	p("| rows appended | %d |", r.Rows)
	p("| appends (commits) per minute | %.1f |", d.AppendsPerMin)
	p("| all commits per minute (with maintenance's) | %.2f |", d.CommitsPerMin)
	p("| appends per day | %.0f |", float64(r.Appends)*d.DayScale)
	p("| writer CPU per append (native) | %.2f ms |", d.AppendMsEach)
	p("| writer busy (append + maintenance CPU / wall time) | %.2f%% |", 100*d.WriterBusy)
	p("| maintenance runs, commits, merges | %d, %d, %d |", r.MaintainRuns, r.MaintainCommits, r.Merges)
	p("| maintenance CPU, simulated / per day (native) | %s / %s |", r.MaintainCPU.Round(time.Millisecond), d.MaintainCPUDay.Round(time.Millisecond))
	p("| compaction read / wrote (simulated) | %s / %s |", mib(r.MaintainRead), mib(r.MaintainWritten))
	p("| live data files in one partition, most before / after a maintenance run | %d / %d |", r.MaxFilesBefore, r.MaxFilesAfter)
	var fin []string
	for _, k := range sortedKeys(r.FinalFiles) {
		fin = append(fin, fmt.Sprintf("%s: %d", k, r.FinalFiles[k]))
	}
	p("| live data files per partition at the end | %s |", strings.Join(fin, ", "))
	p("| class A requests (PUT, LIST) per million rows | %.0f |", d.APerM)
	p("| class B requests (GET, range GET) per million rows | %.0f |", d.BPerM)
	commits := float64(r.Appends + r.MaintainCommits)
	p("| class A / B requests per commit (appends and maintenance) | %.1f / %.1f |", float64(r.ByClass[classA])/commits, float64(r.ByClass[classB])/commits)
	p("| DELETE requests per million rows (free on R2) | %.0f (%d objects in all) |", d.DelPerM, r.ObjectsDeleted)
	p("| of which the metadata pointer (vN.metadata.json, version-hint, head.json), A / B | %.0f / %.0f |", d.PtrAPerM, d.PtrBPerM)
	p("| with a REST catalog: class A / B per million rows at the store, + catalog commits | %.0f / %.0f, + %.0f |",
		d.APerM-d.PtrAPerM, d.BPerM-d.PtrBPerM, float64(r.Appends+r.MaintainCommits)/(float64(r.Rows)/1e6))
	p("| bytes stored at the end: data / metadata (%d objects) | %s / %s |", r.Objects, mib(r.DataBytes), mib(r.MetaByte))
	p("| of the data, live in the current snapshot (the rest awaits timelake.orphan-grace) | %s (%.1f bytes a row) |", mib(r.LiveDataBytes), float64(r.LiveDataBytes)/float64(max(r.Rows, 1)))
	p("| snapshots kept, metadata version | %d, v%d |", r.Snapshots, r.Version)
	p("| catalog limit %.0f commits/min: shortest batch interval | %.1f s (%.0f rows a batch at this rate) |",
		CatalogCommitsPerMin, d.MinBatchSecondsCatalog, d.MinBatchSecondsCatalog*float64(perSec))
}

func mib(n int64) string { return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20)) }
