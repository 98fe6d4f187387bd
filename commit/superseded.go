package commit

import (
	"bytes"
	"strconv"
)

// A storage-only table decides version N+1 by PutIfAbsent, so a version
// number must never become free again while a writer may still hold
// version N as its base: deleting vN+1 would let that writer "win" it a
// second time and fork the history. A version that falls out of the
// metadata log (write.metadata.delete-after-commit.enabled) is therefore
// not deleted after the commit but overwritten with a few bytes saying it
// was superseded: the key stays taken, the bytes go. Maintenance deletes
// it once older than the orphan grace, which bounds how long a commit may
// be in flight (its uploads are orphans to maintenance after that too).
//
// Readers never need a superseded version: Latest probes past it, and a
// writer that loses to one rebases on the newest version.

// supersededPrefix starts a superseded version's bytes. persisted: must not change.
const supersededPrefix = `{"timelake-superseded-version":`

// Superseded is what replaces version n once it has left the metadata log.
func Superseded(n int) []byte {
	return []byte(supersededPrefix + strconv.Itoa(n) + "}")
}

// IsSuperseded reports whether raw is a superseded version's bytes.
func IsSuperseded(raw []byte) bool { return bytes.HasPrefix(raw, []byte(supersededPrefix)) }
