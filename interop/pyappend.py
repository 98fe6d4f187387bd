"""Appends rows to a Timelake table with pyiceberg, as another engine would.

    pyappend.py TABLE_DIR CATALOG_DIR ROWS_JSON

The table's newest vN.metadata.json is registered in a SqlCatalog (SQLite in
CATALOG_DIR), the rows (a JSON list of objects; times as ISO 8601 strings,
_ingest_ts among them or not) are appended by pyiceberg, and pyiceberg's new
metadata file is copied to v{N+1}.metadata.json, where storage-only readers
and writers find the next version. Prints {"version": N+1, "snapshot_id": …}.
"""

import datetime
import glob
import json
import os
import re
import shutil
import sys

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog


def main(table_dir, catalog_dir, rows_json):
    versions = glob.glob(os.path.join(table_dir, "metadata", "v*.metadata.json"))
    n = max(int(re.search(r"v(\d+)\.metadata\.json$", p).group(1)) for p in versions)
    cat = SqlCatalog("c", uri=f"sqlite:///{catalog_dir}/catalog.db", warehouse=f"file://{catalog_dir}")
    cat.create_namespace_if_not_exists("ns")
    t = cat.register_table(("ns", f"t{n}"), os.path.join(table_dir, "metadata", f"v{n}.metadata.json"))
    schema = t.schema().as_arrow()
    rows = json.loads(rows_json)
    cols = {}
    for f in schema:
        vals = [r.get(f.name) for r in rows]
        if pa.types.is_timestamp(f.type):
            vals = [None if v is None else datetime.datetime.fromisoformat(v.replace("Z", "+00:00")) for v in vals]
        cols[f.name] = vals
    t.append(pa.Table.from_pydict(cols, schema=schema))
    shutil.copy(t.metadata_location.removeprefix("file://"), os.path.join(table_dir, "metadata", f"v{n + 1}.metadata.json"))
    print(json.dumps({"version": n + 1, "snapshot_id": t.metadata.current_snapshot_id}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
    os._exit(0)  # pyarrow's native threads sometimes abort the interpreter's teardown
