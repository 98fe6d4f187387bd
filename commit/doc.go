// Package commit carries out the two-step commit of a table change through a
// Store, the only place where a version of the table is decided.
//
// A table version N is the object metadata/vN.metadata.json. Every change
// (an append, a compaction) is committed so:
//
//  1. Upload the change's fixed files (data files, manifest) in parallel. They
//     do not depend on the version they land on and are uploaded once.
//  2. Build the files that do depend on the base version (manifest list,
//     last-value index) and the next metadata, upload them, then make one
//     conditional write: PutIfAbsent(v{N+1}.metadata.json). Exactly one
//     writer wins each N.
//  3. On a conflict, load the winner, rebuild step 2 on top of it (a rebase:
//     data files are never uploaded twice) and try v{N+2}, with bounded,
//     jittered backoff. A change that cannot be rebased (a compaction whose
//     inputs the winner removed) returns ErrDropped from its Rebuild.
//  4. An outcome that is unknown (an error from PutIfAbsent, or false on a
//     retry of our own request) is resolved by reading v{N+1}: the change
//     carries a commit id, and a version that holds it is ours.
//
// The caller writes version-hint.text and head.json afterwards (both hints).
//
//	res, err := commit.Commit(ctx, st, commit.Options{Sleep: sleep, Rand: rnd},
//		base, dataFiles, rebuild, isOurs)
package commit
