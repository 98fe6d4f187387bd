"""Writes data files the way other engines do, for table's compaction tests.

Usage: python foreign_files.py SPEC.json OUTDIR
SPEC is a list of {"name", "rows": {column: [values]}, "options": {...}}:
columns are ts and _ingest_ts (int micros, timestamp us UTC), host, region
(string), cpu (double), mem (long); "field_ids": false leaves the Parquet
field ids out (else the table's: ts 1, host 2, region 3, cpu 4, mem 5,
_ingest_ts 6); "sorting": true declares sorting_columns (host, ts); the rest
of "options" go to pyarrow.parquet.write_table.
"""
import json
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

TYPES = {"ts": pa.timestamp("us", tz="UTC"), "host": pa.string(), "region": pa.string(),
         "cpu": pa.float64(), "mem": pa.int64(), "_ingest_ts": pa.timestamp("us", tz="UTC")}
IDS = {"ts": 1, "host": 2, "region": 3, "cpu": 4, "mem": 5, "_ingest_ts": 6}


def main(spec_path, outdir):
    with open(spec_path) as f:
        spec = json.load(f)
    for s in spec:
        ids = s.get("field_ids", True)
        fields, arrays = [], []
        for name, vals in s["rows"].items():
            md = {b"PARQUET:field_id": str(IDS[name]).encode()} if ids else None
            # what pyiceberg does: required columns not null
            fields.append(pa.field(name, TYPES[name], nullable=name not in ("ts", "host", "region", "_ingest_ts"), metadata=md))
            arrays.append(pa.array(vals, TYPES[name]))
        table = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
        opts = dict(s.get("options", {}))
        if s.get("sorting"):
            opts["sorting_columns"] = [pq.SortingColumn(table.column_names.index("host")),
                                       pq.SortingColumn(table.column_names.index("ts"))]
        pq.write_table(table, os.path.join(outdir, s["name"]), **opts)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
