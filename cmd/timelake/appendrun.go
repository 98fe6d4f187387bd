package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/table"
)

// appendProgress runs `append`'s batches: by default every batch of every
// FILE is staged (written and uploaded batch by batch, table.Appender) and
// committed once at the end, so a failure anywhere leaves the table as it
// was. With --commit-every N, every N batches commit on their own: a
// failure then leaves the commits before it in the table, and the error
// says which and where the input resumes.
type appendProgress struct {
	tb          *table.Table
	io          *io_
	progress    bool
	commitEvery int // batches per commit; 0: one commit
	start       time.Time

	results   []*table.AppendResult
	committed struct {
		commits, batches, rows, input, files int
		bytes                                int64
	}
	// Where the committed part ends, set at each commit: the file being
	// read then, its first row not committed, and the files read whole
	// before it.
	next       resume
	file       string   // the file being read
	doneFiles  []string // the files read whole
	readRows   int      // rows of file read so far (staged or committed)
	readLine   int      // the line the last row read ended on (0: unknown)
	app        *table.Appender
	stagedRows int             // rows staged in app
	warned     map[string]bool // time columns warned of as numeric (numerictime.go)
}

func (ap *appendProgress) run(ctx context.Context, a *args, format string, batchRows int, opt rows.Options, declared map[string]schema.Type) error {
	tb := ap.tb
	defer func() {
		if ap.app != nil {
			ap.app.Abort(ctx) // a failure: the staged files are deleted
		}
	}()
	for _, name := range a.pos[1:] {
		ap.file, ap.readRows, ap.readLine = name, 0, 0
		var changes []evolve.Change // the first batch of the file adds them
		var evolveTo func(cols []evolve.Column) (*schema.Table, error)
		var base *schema.Table // the schema the input's columns were matched against
		if a.bools["evolve"] {
			evolveTo = func(cols []evolve.Column) (*schema.Table, error) {
				base = tb.Schema()
				changes = evolve.Missing(base, cols)
				return tb.EvolvedSchema(changes)
			}
		}
		r, closeFn, err := openInput(name, format, tb, opt, ap.io.stdin, evolveTo, declared)
		if err != nil {
			return err
		}
		lines, _ := r.(interface{ EndLine() int })
		for {
			b, err := r.Next(batchRows)
			if err == io.EOF {
				break
			}
			if err != nil {
				closeFn()
				return fmt.Errorf("%s: %w", name, err)
			}
			if base != nil && changes == nil {
				// A later batch, aligned when the file was opened: an
				// earlier commit may have restarted on another writer's
				// schema change (Retarget).
				if changes, b, err = tb.Retarget(base, b); err != nil {
					closeFn()
					return fmt.Errorf("%s: %w", name, err)
				}
			}
			ap.readRows += b.Len
			ap.warnNumericTimes(r, opt.TimeUnit)
			if lines != nil {
				ap.readLine = lines.EndLine()
			}
			if err := ap.add(ctx, changes, b); err != nil {
				closeFn()
				return fmt.Errorf("%s: %w", name, err)
			}
			changes = nil
		}
		closeFn()
		ap.doneFiles = append(ap.doneFiles, name)
	}
	return ap.commit(ctx)
}

// add stages b, and commits when --commit-every batches are staged.
func (ap *appendProgress) add(ctx context.Context, changes []evolve.Change, b *rows.Batch) error {
	if ap.app == nil {
		app, err := ap.tb.NewAppender(table.AppendOptions{})
		if err != nil {
			return err
		}
		ap.app, ap.stagedRows = app, 0
	}
	if err := ap.app.Add(ctx, changes, b); err != nil {
		ap.app = nil // Add aborted it
		return err
	}
	ap.stagedRows += b.Len
	if ap.progress {
		el := time.Since(ap.start).Seconds()
		fmt.Fprintf(ap.io.stderr, "\r%s: %d rows read (%d committed, %.0f rows/s)   ", ap.file, ap.readRows, ap.committed.input, float64(ap.committed.input+ap.stagedRows)/max(el, 1e-9))
	}
	if batches, _, _ := ap.app.Staged(); ap.commitEvery > 0 && batches >= ap.commitEvery {
		return ap.commit(ctx)
	}
	return nil
}

// commit commits what is staged (nothing to do when nothing is).
func (ap *appendProgress) commit(ctx context.Context) error {
	app := ap.app
	if app == nil {
		return nil
	}
	ap.app = nil
	res, err := app.Commit(ctx)
	if err != nil {
		return err
	}
	ap.results = append(ap.results, res)
	c := &ap.committed
	c.commits++
	c.batches += res.Batches
	c.rows += res.Rows
	c.input += res.InputRows
	c.files += res.Files
	c.bytes += res.Bytes
	ap.next = resume{File: ap.file, Row: ap.readRows + 1, Skip: append([]string(nil), ap.doneFiles...)}
	if ap.readLine > 0 {
		ap.next.Line = ap.readLine + 1
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(ap.io.stderr, "timelake append: warning: %s\n", w)
	}
	return nil
}

// resume is where an append that failed after some commits goes on.
type resume struct {
	File string `json:"file"`
	Row  int    `json:"row"`            // the first data row not committed, 1-based
	Line int    `json:"line,omitempty"` // the line it starts on (text input)
	// Skip are the FILEs committed whole: leave them out of the next run.
	Skip []string `json:"skip_files,omitempty"`
}

func (ap *appendProgress) resumeAt() resume { return ap.next }

// failureJSON is `append --json`'s output when it fails: the error, its
// code, and what was committed before it.
func (ap *appendProgress) failureJSON(err error) map[string]any {
	versions, snaps := []int{}, []int64{}
	for _, r := range ap.results {
		versions = append(versions, r.Version)
		snaps = append(snaps, r.SnapshotID)
	}
	c := ap.committed
	out := map[string]any{"error": err.Error(), "code": table.Code(err),
		"committed": map[string]any{"commits": c.commits, "batches": c.batches, "input_rows": c.input, "rows": c.rows,
			"files": c.files, "bytes": c.bytes, "versions": versions, "snapshot_ids": snaps}}
	if c.commits > 0 {
		out["resume"] = ap.resumeAt()
	}
	return out
}

// describeCommitted says what a failed --commit-every append left in the
// table, for the error message.
func (ap *appendProgress) describeCommitted() string {
	c := ap.committed
	var ids []string
	for _, r := range ap.results {
		ids = append(ids, fmt.Sprintf("v%d (snapshot %d)", r.Version, r.SnapshotID))
	}
	at := ap.resumeAt()
	where := fmt.Sprintf("%s at data row %d", at.File, at.Row)
	if at.Line > 0 {
		where += fmt.Sprintf(" (line %d)", at.Line)
	}
	if len(at.Skip) > 0 {
		where += ", leaving out " + strings.Join(at.Skip, ", ")
	}
	stand := "stand"
	if c.commits == 1 {
		stand = "stands"
	}
	return fmt.Sprintf("%s before it %s: %s in %s; resume from %s", count(c.commits, "commit", "commits"), stand,
		count(c.input, "input row", "input rows"), strings.Join(ids, ", "), where)
}

// partialAppendError is an append that failed after committing part of
// its input (--commit-every): the message says what stands; the code is
// the failure's.
type partialAppendError struct {
	err error
	msg string
}

func (e *partialAppendError) Error() string { return e.err.Error() + "; " + e.msg }
func (e *partialAppendError) Unwrap() error { return e.err }
