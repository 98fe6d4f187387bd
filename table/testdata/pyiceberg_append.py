"""Appends rows with pyiceberg to a Timelake table, as a user who knows
nothing of Timelake would: only the user's columns, no _ingest_ts.

    python pyiceberg_append.py METADATA_JSON ROWS_JSON WORKDIR

ROWS_JSON is a list of {"ts": micros, "host", "shard", "cpu", "mem"}. The
table is registered in a SQLite catalog in WORKDIR and appended to; stdout
is the new metadata file's location (the catalog's; the Go test copies it
to the next v<N>.metadata.json, as the table is storage-only).
"""

import json
import sys

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog


def main():
    metadata, rows_path, work = sys.argv[1:4]
    with open(rows_path) as f:
        rows = json.load(f)
    rows.sort(key=lambda r: (r["host"], r["shard"], r["ts"]))  # the table's sort order
    cat = SqlCatalog("t", uri=f"sqlite:///{work}/catalog.db", warehouse=f"file://{work}")
    cat.create_namespace_if_not_exists("db")
    tbl = cat.register_table("db.t", metadata)
    schema = pa.schema([
        pa.field("ts", pa.timestamp("us", tz="UTC"), nullable=False),
        pa.field("host", pa.string(), nullable=False),
        pa.field("shard", pa.int64(), nullable=False),
        pa.field("cpu", pa.float64()),
        pa.field("mem", pa.int64(), nullable=False),
    ])
    data = pa.Table.from_pylist(rows, schema=schema)
    tbl.append(data)
    print(tbl.metadata_location)


if __name__ == "__main__":
    main()
