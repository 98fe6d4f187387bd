"""Inserts rows with pyiceberg into a table under its current schema, as a
user would after another engine changed the schema.

    python pyiceberg_insert.py METADATA_JSON ROWS_JSON WORKDIR

ROWS_JSON is a list of objects keyed by the current schema's column names
(timestamps as microseconds; a missing key is null). The table is registered
in a SQLite catalog in WORKDIR and appended to; stdout is the new metadata
file's location (the Go test copies it to the next v<N>.metadata.json, as
the table is storage-only).
"""

import json
import sys

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog


def main():
    metadata, rows_path, work = sys.argv[1:4]
    with open(rows_path) as f:
        rows = json.load(f)
    cat = SqlCatalog("t", uri=f"sqlite:///{work}/catalog.db", warehouse=f"file://{work}")
    cat.create_namespace_if_not_exists("db")
    tbl = cat.register_table("db.t", metadata)
    schema = tbl.schema().as_arrow()
    data = pa.Table.from_pylist(rows, schema=schema)
    tbl.append(data)
    print(tbl.metadata_location)


if __name__ == "__main__":
    main()
