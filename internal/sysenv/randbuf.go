package sysenv

import (
	"crypto/rand"
	"io"
	"sync"
)

// randBufSize is how many bytes of randomness one read of the system source
// fetches: an append takes a few dozen (uuids for its files, a snapshot id,
// a commit id), so one fetch serves about a hundred appends.
const randBufSize = 4096

// bufferedRand serves reads from a buffer refilled from src, one large read
// at a time. Under GOOS=js each read of crypto/rand is a call out to
// JavaScript's crypto.getRandomValues plus a timer that Go arms (and stops)
// to warn about a slow source: measured at about 0.4 ms of a 1-row append's
// ~8 ms in Node, for ~10 reads of 8–16 bytes. The bytes are the same
// cryptographic randomness; they only wait in this process's memory until
// used, which is fine for ids and jitter (nothing secret is derived from
// Env.Rand). Safe for concurrent use: an append's uploads run in parallel.
type bufferedRand struct {
	mu  sync.Mutex
	src io.Reader
	buf []byte // unread bytes
	arr []byte
}

func newBufferedRand(src io.Reader, size int) *bufferedRand {
	return &bufferedRand{src: src, arr: make([]byte, size)}
}

func (r *bufferedRand) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for n < len(p) {
		if len(r.buf) == 0 {
			if len(p)-n >= len(r.arr) { // a large read goes straight to the source
				m, err := io.ReadFull(r.src, p[n:])
				return n + m, err
			}
			if _, err := io.ReadFull(r.src, r.arr); err != nil {
				return n, err
			}
			r.buf = r.arr
		}
		c := copy(p[n:], r.buf)
		// Served bytes are zeroed so the buffer never holds randomness
		// already handed out.
		clear(r.buf[:c])
		r.buf = r.buf[c:]
		n += c
	}
	return n, nil
}

// sharedRand is the drivers' Env.Rand: one buffer per process.
var sharedRand io.Reader = newBufferedRand(rand.Reader, randBufSize)
