package dirstore_test

import (
	"context"
	"fmt"
	"os"

	"github.com/timelake/timelake/store/dirstore"
)

func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "table")
	defer os.RemoveAll(dir)

	s, err := dirstore.Open(dir)
	if err != nil {
		panic(err)
	}
	defer s.Close()
	s.Put(ctx, "data/ts_day=2026-11-29/a.parquet", []byte("PAR1...PAR1"))
	created, _ := s.PutIfAbsent(ctx, "metadata/v1.metadata.json", []byte("{}"))
	objs, _ := s.List(ctx, "")
	fmt.Println(created)
	for _, o := range objs {
		fmt.Println(o.Key, o.Size)
	}
	// Output:
	// true
	// data/ts_day=2026-11-29/a.parquet 11
	// metadata/v1.metadata.json 2
}
