package faultstore_test

import (
	"context"
	"fmt"

	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
)

// A commit's conditional write succeeds but its response is lost: the writer
// must find out by reading, not by writing again.
func Example() {
	ctx := context.Background()
	s := faultstore.New(memstore.New(), faultstore.Rule{
		Op:     faultstore.OpPutIfAbsent,
		Key:    "metadata/v*.metadata.json",
		Nth:    1,
		Action: faultstore.LoseResponse,
	})
	created, err := s.PutIfAbsent(ctx, "metadata/v2.metadata.json", []byte("commit 7f3a"))
	fmt.Println(created, err)
	got, _ := s.Get(ctx, "metadata/v2.metadata.json")
	fmt.Printf("%s\n", got)
	fmt.Println(s.Writes("metadata/v2.metadata.json"), s.RepeatedWrites())
	// Output:
	// false faultstore: putIfAbsent "metadata/v2.metadata.json": injected fault
	// commit 7f3a
	// 1 []
}
