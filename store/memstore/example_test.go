package memstore_test

import (
	"context"
	"fmt"

	"github.com/timelake/timelake/store/memstore"
)

func Example() {
	ctx := context.Background()
	s := memstore.New()
	first, _ := s.PutIfAbsent(ctx, "metadata/v1.metadata.json", []byte(`{"format-version":2}`))
	second, _ := s.PutIfAbsent(ctx, "metadata/v1.metadata.json", []byte(`{}`))
	objs, _ := s.List(ctx, "metadata/")
	fmt.Println(first, second)
	for _, o := range objs {
		fmt.Println(o.Key, o.Size, o.LastModified.Format("2006-01-02T15:04:05.000Z"))
	}
	// Output:
	// true false
	// metadata/v1.metadata.json 20 2026-01-01T00:00:00.000Z
}
