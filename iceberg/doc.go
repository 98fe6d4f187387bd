// Package iceberg reads and writes the Apache Iceberg (format v2) files of a
// Timelake table: table metadata JSON, manifests and manifest lists (Avro),
// and column bounds in Iceberg's single-value serialization.
//
// It is written by hand on top of package avro, not generated from a
// general Avro or Iceberg library: outside readers (DuckDB, pyiceberg,
// iceberg-go, Java, JavaScript readers) depend on exact details — the
// manifest header keys, the field-id attributes and type names in the Avro
// schemas, null (inherited) snapshot ids and sequence numbers on ADDED
// entries — and writing them field by field keeps those details visible and
// the WebAssembly build small. There is no reflection on the Avro side and
// no I/O: callers pass bytes, ids, times and sync markers in.
//
// The files of one snapshot, from the top:
//
//	vN.metadata.json ─ current-snapshot-id ─► snapshot ─ manifest-list ─► snap-….avro
//	                                                                        │ manifest_file (path, counts,
//	                                                                        │ partition bounds, seq numbers)
//	                                                                        ▼
//	                                                                 <uuid>-m0.avro
//	                                                                   manifest_entry (status, data_file:
//	                                                                   path, partition, stats, bounds)
//
// Writing an append (the caller uploads the bytes):
//
//	m := iceberg.NewTableMetadata(tbl, tableUUID, "s3://b/t", nowMs, nil)
//	var man bytes.Buffer
//	mf, err := iceberg.WriteManifest(&man, m.Schemas[0], m.PartitionSpecs[0], entries, syncA)
//	mf.ManifestPath = "s3://b/t/metadata/" + manifestUUID + "-m0.avro"
//	mf.Assign(snapshotID, m.LastSequenceNumber+1)
//	var list bytes.Buffer
//	err = iceberg.WriteManifestList(&list, snapshotID, nil, mf.SequenceNumber, []iceberg.ManifestFile{mf}, syncB)
//	// … add the snapshot to m, then m.Marshal()
package iceberg
