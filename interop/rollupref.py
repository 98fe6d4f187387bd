"""The reference answer of a rollup, computed by DuckDB.

    rollupref.py METADATA.json WIDTH_US AGGREGATES
    rollupref.py --serve    one query per stdin line {"metadata", "width", "aggregates"},
                            one answer per stdout line {"rows": [OBJECT, ...], "error": ""};
                            or {"plain": METADATA.json, "reader": "pyiceberg"|"duckdb"}: every
                            row of a (rollup) table as that reader reads it, as it is

AGGREGATES is a rollup's timelake.rollup.<name>.aggregates value as stored
(cpu:count,sum,min,max,first,last;mem:max: avg is already sum and count).
Prints one JSON object per bucket, sorted by (series..., bucket):
{"host": ..., "bucket": epoch microseconds, "row_count": n, "cpu_min": ...}

The raw table's current snapshot is read with DuckDB's iceberg_scan and
deduplicated in SQL by scanref.py's rule (README "Duplicates"), then

    SELECT series..., time_bucket(INTERVAL w MICROSECONDS, time), count(*),
           count(col), sum(col), min(col), max(col),
           first(col ORDER BY time), last(col ORDER BY time)
    GROUP BY ALL

first/last take the value of the earliest/latest row, null or not
(DuckDB's first and last do not skip nulls).
"""

import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scanref  # noqa: E402


def follow(md, schema, name):
    """The name in schema of the column a timelake.* property names: the
    property keeps the name at creation, and another engine's rename (Spark's
    RENAME COLUMN) changes the schema only; so, as Timelake does, the name is
    taken to a field id in the oldest schema that has it, then back to a name."""
    oldest = None
    for s in md.get("schemas", []):
        if any(f["name"] == name for f in s["fields"]) and (oldest is None or s["schema-id"] < oldest["schema-id"]):
            oldest = s
    if oldest is None:
        return name
    fid = next(f["id"] for f in oldest["fields"] if f["name"] == name)
    return next((f["name"] for f in schema["fields"] if f["id"] == fid), name)


def query(ref, path, width, aggs):
    md = ref.metadata(path)
    props = md.get("properties", {})
    snap = ref.snapshot(md, None)
    if snap is None:
        return []
    schema = ref.schema(md, snap)
    time_col = follow(md, schema, props["timelake.time-column"])
    series = [follow(md, schema, s) for s in props["timelake.series-columns"].split(",") if s]
    types = {f["name"]: f["type"] for f in schema["fields"]}
    name = ref.table(path, md, snap, schema)
    key = ", ".join([scanref.ident(s) for s in series] + [scanref.ident(time_col)])
    ing = scanref.ident("_ingest_ts") if "_ingest_ts" in types else "NULL"
    src = (f"(SELECT * EXCLUDE (__r2) FROM (SELECT *, row_number() OVER (PARTITION BY {key} "
           f"ORDER BY __seq DESC, ({ing} IS NOT NULL) DESC, __file DESC, __row DESC) AS __r2 "
           f"FROM (SELECT * EXCLUDE (__r1) FROM (SELECT *, row_number() OVER (PARTITION BY {key}, ({ing} IS NULL) "
           f"ORDER BY {ing} DESC NULLS LAST, __seq DESC, __file DESC, __row DESC) AS __r1 FROM {name}) "
           f"WHERE __r1 = 1)) WHERE __r2 = 1)")
    t = scanref.ident(time_col)
    sel = [scanref.ident(s) for s in series]
    sel.append(f"epoch_us(time_bucket(INTERVAL ({width}) MICROSECONDS, make_timestamp({t}))) AS bucket")
    sel.append("count(*) AS row_count")
    out = list(series) + ["bucket", "row_count"]
    fns = {"count": "count({c})", "sum": "sum({c})", "min": "min({c})", "max": "max({c})",
           "first": "first({c} ORDER BY " + t + ")", "last": "last({c} ORDER BY " + t + ")"}
    for part in aggs.split(";"):
        col, _, funcs = part.partition(":")
        for f in funcs.split(","):
            c = scanref.ident(col)
            if types[col] in ("timestamptz", "timestamp"):
                c = f"epoch_us({c})"
            sel.append(fns[f].format(c=c) + " AS " + scanref.ident(col + "_" + f))
            out.append(col + "_" + f)
    sql = (f"SELECT {', '.join(sel)} FROM {src} GROUP BY ALL "
           f"ORDER BY {', '.join([scanref.ident(s) for s in series] + ['bucket'])}")
    rows = []
    for row in ref.c.execute(sql).fetchall():
        obj = {}
        for k, v in zip(out, row):
            if isinstance(v, float) and not math.isfinite(v):
                v = repr(v)
            elif hasattr(v, "__int__") and not isinstance(v, (bool, float)):
                v = int(v)  # a HUGEINT sum
            obj[k] = v
        rows.append(obj)
    return rows


def plain(ref, path, reader):
    """Every row of the table at path as reader reads it: no dedup, sorted
    by the Timelake sort order (series..., time); times as epoch us."""
    md = ref.metadata(path)
    props = md.get("properties", {})
    order = [s for s in props["timelake.series-columns"].split(",") if s] + [props["timelake.time-column"]]
    if reader == "pyiceberg":
        from pyiceberg.table import StaticTable
        rows = StaticTable.from_metadata(path).scan().to_arrow().to_pylist()
    else:
        fields = ref.schema(md, ref.snapshot(md, None))["fields"]
        cols = [f"epoch_us({scanref.ident(f['name'])}) AS {scanref.ident(f['name'])}"
                if f["type"] in ("timestamptz", "timestamp") else scanref.ident(f["name"]) for f in fields]
        cur = ref.c.execute(f"SELECT {', '.join(cols)} FROM iceberg_scan({scanref.sql_str(path)})")
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, r)) for r in cur.fetchall()]
    out = []
    for r in rows:
        obj = {}
        for k, v in r.items():
            if hasattr(v, "timestamp"):
                v = int(v.timestamp()) * 1_000_000 + v.microsecond
            elif isinstance(v, float) and not math.isfinite(v):
                v = repr(v)
            obj[k] = v
        out.append(obj)
    out.sort(key=lambda o: [o[c] for c in order])
    return out


def main():
    ref = scanref.Ref()
    if sys.argv[1:] != ["--serve"]:
        for obj in query(ref, sys.argv[1], int(sys.argv[2]), sys.argv[3]):
            print(json.dumps(obj, ensure_ascii=False))
        return 0
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            q = json.loads(line)
            if "plain" in q:
                res = {"rows": plain(ref, q["plain"], q["reader"]), "error": ""}
            else:
                res = {"rows": query(ref, q["metadata"], int(q["width"]), q["aggregates"]), "error": ""}
        except Exception as e:  # noqa: BLE001 - reported per query
            res = {"rows": [], "error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(res, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
