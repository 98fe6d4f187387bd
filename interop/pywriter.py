"""pyiceberg as an outside writer of a table in a directory (scripts/pyenv.sh's venv).

    python pywriter.py append    TABLE_DIR ROWS.json
    python pywriter.py overwrite TABLE_DIR ROWS.json [--filter EXPR]   # replace the rows matching EXPR (all by default)
    python pywriter.py delete    TABLE_DIR --filter EXPR                # e.g. "host = 'web-1'"
    python pywriter.py expire    TABLE_DIR [--older-than-ms MS]         # every snapshot but the current one older than MS (now)
    python pywriter.py create    TABLE_DIR ROWS.json --spec SPEC [--format-version 1|2] [--tags]
        # a table of pyiceberg's own shape at TABLE_DIR (ts timestamptz, host string, cpu double,
        # mem long; SPEC e.g. "day(ts),bucket(4,host)", "identity(host)", "none"), then an append
        # of ROWS, published as metadata/v1.metadata.json; --tags adds a column
        # tags map<string, string> (in ROWS a JSON object, or null)

ROWS.json is a JSON array of objects keyed by column name, timestamps as RFC
3339 strings. Only the keys present are given to pyiceberg (so a writer that
does not know Timelake's _ingest_ts leaves it out).

pyiceberg commits through a catalog. Here it is a throw-away SqlCatalog
(SQLite in a temporary directory) that register_table()s the table's current
metadata file (metadata/version-hint.text, else the greatest
metadata/vN.metadata.json). pyiceberg then writes its new metadata file under
its own name, metadata/<5-digit version>-<uuid>.metadata.json, which neither
a Hadoop catalog nor Timelake looks for. So this script publishes it the way
Hadoop-catalog writers commit: it creates metadata/v{N+1}.metadata.json with
the same bytes, exclusively (O_EXCL: losing a race is an error, nothing is
overwritten), then rewrites version-hint.text. pyiceberg's own file stays
behind (an orphan to Iceberg's orphan cleanup once nothing references it; the
metadata-log of a later version does name it if pyiceberg committed twice).

Prints one JSON line: {"version": N+1, "metadata": path, "pyiceberg_metadata":
path, "snapshot_id": id, "summary": {...}}, or {"error": "..."} and exit 1.
"""
import datetime
import json
import os
import re
import shutil
import sys
import tempfile
import time

import pyarrow as pa

VERSION_FILE = re.compile(r"^v(\d+)\.metadata\.json$")


def current_version(table_dir):
    md = os.path.join(table_dir, "metadata")
    v = None
    try:
        with open(os.path.join(md, "version-hint.text")) as f:
            v = int(f.read().strip())
    except (OSError, ValueError):
        pass
    if v is None:
        vs = [int(m.group(1)) for m in map(VERSION_FILE.match, os.listdir(md)) if m]
        if not vs:
            raise ValueError(f"{table_dir}: no metadata/vN.metadata.json")
        v = max(vs)
    while os.path.exists(os.path.join(md, f"v{v + 1}.metadata.json")):  # the hint may be stale
        v += 1
    return v


def parse_time(s):
    d = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    if d.tzinfo is None:
        d = d.replace(tzinfo=datetime.timezone.utc)
    return d


def arrow_rows(tbl, rows):
    full = tbl.schema().as_arrow()
    keys = set().union(*(r.keys() for r in rows)) if rows else set()
    unknown = keys - set(full.names)
    if unknown:
        raise ValueError(f"rows have columns the table does not: {sorted(unknown)}")
    fields = [f for f in full if f.name in keys]
    conv = []
    for r in rows:
        o = {}
        for f in fields:
            v = r.get(f.name)
            if v is not None and pa.types.is_map(f.type):
                v = list(v.items())
            if v is not None and pa.types.is_timestamp(f.type):
                v = parse_time(v)
                if f.type.tz is None:  # a timestamp without zone: its UTC wall clock
                    v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
            o[f.name] = v
        conv.append(o)
    return pa.Table.from_pylist(conv, schema=pa.schema(fields))


def publish(table_dir, version, pyiceberg_metadata):
    src = pyiceberg_metadata.removeprefix("file://")
    dst = os.path.join(table_dir, "metadata", f"v{version}.metadata.json")
    fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(fd, "wb") as out, open(src, "rb") as f:
        shutil.copyfileobj(f, out)
    with open(os.path.join(table_dir, "metadata", "version-hint.text"), "w") as f:
        f.write(str(version))
    return dst


def create(a, table_dir):
    """pyiceberg creates the table in its own shape and appends the rows."""
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import (BucketTransform, DayTransform, HourTransform, IdentityTransform,
                                      MonthTransform, TruncateTransform, YearTransform)
    from pyiceberg.types import DoubleType, LongType, MapType, NestedField, StringType, TimestampType, TimestamptzType

    cols = [NestedField(1, "ts", TimestampType() if a.naive else TimestamptzType(), required=False), NestedField(2, "host", StringType(), required=False),
            NestedField(3, "cpu", DoubleType(), required=False), NestedField(4, "mem", LongType(), required=False)]
    if a.tags:
        cols.append(NestedField(5, "tags", MapType(6, StringType(), 7, StringType(), value_required=False), required=False))
    schema = Schema(*cols)
    ids = {"ts": 1, "host": 2, "cpu": 3, "mem": 4}
    fields = []
    for item in ([] if a.spec in (None, "", "none") else re.findall(r"\w+\([^)]*\)", a.spec)):
        name, args = item[:-1].split("(", 1)
        args = [x.strip() for x in args.split(",")]
        col = args[-1]
        tr = {"year": YearTransform, "month": MonthTransform, "day": DayTransform, "hour": HourTransform,
              "identity": IdentityTransform}.get(name)
        if tr is not None:
            transform, fname = tr(), col if name == "identity" else f"{col}_{name}"
        elif name == "bucket":
            transform, fname = BucketTransform(int(args[0])), f"{col}_bucket"
        elif name == "truncate":
            transform, fname = TruncateTransform(int(args[0])), f"{col}_trunc"
        else:
            raise ValueError(f"unknown transform in spec: {item}")
        fields.append(PartitionField(source_id=ids[col], field_id=1000 + len(fields), transform=transform, name=fname))
    os.makedirs(os.path.join(table_dir, "metadata"), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        cat = SqlCatalog("w", uri=f"sqlite:///{tmp}/catalog.db", warehouse=f"file://{tmp}")
        cat.create_namespace("ns")
        tbl = cat.create_table(("ns", "t"), schema=schema, partition_spec=PartitionSpec(*fields),
                               location=f"file://{table_dir}", properties={"format-version": str(a.format_version)})
        with open(a.rows) as f:
            tbl.append(arrow_rows(tbl, json.load(f)))
        tbl = cat.load_table(("ns", "t"))
        dst = publish(table_dir, 1, tbl.metadata_location)
        print(json.dumps({"version": 1, "metadata": dst, "pyiceberg_metadata": tbl.metadata_location, "committed": True}))
    return 0


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("op", choices=["append", "overwrite", "delete", "expire", "create"])
    ap.add_argument("table_dir")
    ap.add_argument("rows", nargs="?")
    ap.add_argument("--filter")
    ap.add_argument("--older-than-ms", type=int)
    ap.add_argument("--spec")
    ap.add_argument("--format-version", type=int, default=2)
    ap.add_argument("--naive", action="store_true")  # create: ts is a timestamp without zone
    ap.add_argument("--tags", action="store_true")  # create: with a column tags map<string, string>
    a = ap.parse_args(argv)
    table_dir = os.path.abspath(a.table_dir)
    if a.op == "create":
        return create(a, table_dir)

    from pyiceberg.catalog.sql import SqlCatalog
    v = current_version(table_dir)
    with tempfile.TemporaryDirectory() as tmp:
        cat = SqlCatalog("w", uri=f"sqlite:///{tmp}/catalog.db", warehouse=f"file://{tmp}")
        cat.create_namespace("ns")
        tbl = cat.register_table(("ns", "t"), os.path.join(table_dir, "metadata", f"v{v}.metadata.json"))
        before = tbl.metadata_location
        if a.op in ("append", "overwrite"):
            with open(a.rows) as f:
                data = arrow_rows(tbl, json.load(f))
            if a.op == "append":
                tbl.append(data)
            elif a.filter:
                tbl.overwrite(data, overwrite_filter=a.filter)
            else:
                tbl.overwrite(data)
        elif a.op == "delete":
            if not a.filter:
                raise ValueError("delete needs --filter")
            tbl.delete(a.filter)
        else:
            cutoff = a.older_than_ms if a.older_than_ms is not None else int(time.time() * 1000)
            cur = tbl.current_snapshot()
            ids = [s.snapshot_id for s in tbl.snapshots()
                   if s.timestamp_ms < cutoff and (cur is None or s.snapshot_id != cur.snapshot_id)]
            if ids:
                tbl.maintenance.expire_snapshots().by_ids(ids).commit()
        tbl = cat.load_table(("ns", "t"))
        if tbl.metadata_location == before:
            print(json.dumps({"version": v, "metadata": before, "pyiceberg_metadata": None, "committed": False}))
            return 0
        dst = publish(table_dir, v + 1, tbl.metadata_location)
        snap = tbl.current_snapshot()
        print(json.dumps({"version": v + 1, "metadata": dst, "pyiceberg_metadata": tbl.metadata_location,
                          "committed": True, "snapshot_id": str(snap.snapshot_id) if snap else None,
                          "summary": snap.summary.additional_properties | {"operation": snap.summary.operation.value} if snap else None}))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception as e:
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
        sys.exit(1)
