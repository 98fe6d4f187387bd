//go:build wasip1 || windows || plan9

package benchcpu

// Now is unknown here: 0.
func Now() int64 { return 0 }
