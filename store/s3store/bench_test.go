package s3store_test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"testing"

	"github.com/timelake/timelake/store/s3store"
)

// Request costs against the local test server (loopback, so mostly the
// client's and the server's own work: signing, hashing, HTTP, files).
func BenchmarkS3(b *testing.B) {
	bucket := os.Getenv("TIMELAKE_S3_BUCKET")
	if bucket == "" || os.Getenv("AWS_ENDPOINT_URL") == "" {
		b.Skip("no S3 server: eval \"$(bash scripts/s3server.sh start)\" first")
	}
	var r [6]byte
	rand.Read(r[:])
	c, err := s3store.ConfigFromEnv("s3://"+bucket+"/bench/"+hex.EncodeToString(r[:]), os.Getenv)
	if err != nil {
		b.Fatal(err)
	}
	s, err := s3store.New(c)
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	for _, size := range []int{4 << 10, 1 << 20} {
		data := make([]byte, size)
		b.Run(fmt.Sprintf("Put/%dKiB", size>>10), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for i := 0; b.Loop(); i++ {
				if err := s.Put(ctx, fmt.Sprintf("data/p%d", i%8), data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("GetRange4KiB/of%dKiB", size>>10), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.GetRange(ctx, "data/p0", int64(size)-4096, 4096); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("PutIfAbsent/exists", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if ok, err := s.PutIfAbsent(ctx, "data/p0", []byte("x")); err != nil || ok {
				b.Fatal(ok, err)
			}
		}
	})
}
