package main

import (
	"fmt"

	"github.com/timelake/timelake/arrowipc"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// newArrowInput reads an Arrow IPC stream or file (held whole in memory, as
// Parquet input is) through the core's arrowipc reader, which aligns a
// record batch at a time to the table and hands out --batch-rows rows per
// Next.
func newArrowInput(data []byte, t *schema.Table, opt rows.Options) (batchReader, error) {
	r, err := arrowipc.NewReader(data, t, opt)
	if err != nil {
		return nil, fmt.Errorf("arrow: %w", err)
	}
	return r, nil
}
