"""Outside readers of Iceberg tables, and byte-level views of Parquet and Avro files.

    readers.py duckdb    --time TS [--series A,B] [--sum X,Y] [--from US --to US] [--latest] METADATA.json...
    readers.py pyiceberg --time TS [--series A,B] [--sum X,Y] [--from US --to US] [--latest] METADATA.json...
    readers.py check duckdb|pyiceberg      load the reader only; prints {"reader":..,"version":..}
    readers.py duckdb-lineage TIME SERIES METADATA.json   each row's series, time, _row_id and
                                           _last_updated_sequence_number (DuckDB 1.5, format 3)
    readers.py ns-values duckdb|pyiceberg METADATA.json   every row of the table, timestamps as
                                           integer nanoseconds (DuckDB's epoch_ns), with each column's type
    readers.py map-rows METADATA.json      every row of the table by pyiceberg, one JSON line each:
                                           timestamps as integer microseconds, a nested value
                                           (map, list, struct) as Timelake's compact JSON text
    readers.py parquet-meta FILE.parquet   footer, schema, pages and page index as JSON
    readers.py avro-meta FILE.avro         header metadata, schema and block counts as JSON
    readers.py puffin-meta FILE.puffin     footer (pyiceberg's Puffin reader) and each blob's length
                                           (a Parquet blob's row count and columns, by pyarrow)
    readers.py deletion-vectors FILE.puffin  each deletion-vector-v1 blob as pyiceberg decodes it:
                                           its referenced data file, properties and positions

A scan prints one JSON line per metadata file, the same summary as
cmd/icebergread (iceberg-go):

    {"reader": "duckdb", "rows": 485, "sums": {"cpu": 27048.5, "mem": 3990189310033380895},
     "non_null": {"cpu": 417, "mem": 443}, "distinct_series": 30,
     "min_time_us": ..., "max_time_us": ..., "planned_files": 4, "error": ""}

With --from/--to every figure is of the scan filtered to from <= time < to,
and planned_files counts the data files the reader planned for it (-1 if the
reader cannot tell). Integer columns sum exactly, float columns as float64;
nulls are skipped; the sum of no values is 0. A metadata file that cannot be
read gives a line whose error says why, and the exit status is 1.
--latest adds "latest": the row of the greatest time of each series (series
columns, "time_us", the summed columns), sorted by series.
"""

import argparse
import json
import math
import os
import re
import site
import struct
import sys
import tempfile

import pyarrow as pa
import pyarrow.compute as pc

DUCKDB_EXTENSIONS = ["avro", "iceberg"]


# ---------------------------------------------------------------- summaries

def empty_summary(reader, sums):
    return {"reader": reader, "rows": 0, "sums": {}, "non_null": {c: 0 for c in sums},
            "distinct_series": 0, "min_time_us": None, "max_time_us": None,
            "planned_files": -1, "error": ""}


def json_sum(v, is_int):
    """A sum as printed: int exact, float finite, or "NaN"/"Infinity"/"-Infinity"."""
    if v is None:
        return 0 if is_int else 0.0
    if is_int:
        return int(v)
    v = float(v)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def json_value(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    return v


def latest_rows(series_cols, tus, cols):
    """The row of the greatest time of each series: series_cols and cols map
    a name to a list of values, tus is the times in microseconds."""
    best = {}
    for i, v in enumerate(tus):
        if v is None:
            continue
        k = tuple(series_cols[s][i] for s in series_cols)
        if k not in best or v > best[k][0]:
            best[k] = (v, i)
    out = []
    for k in sorted(best, key=repr):
        v, i = best[k]
        r = {s: series_cols[s][i] for s in series_cols}
        r["time_us"] = v
        r.update({c: json_value(cols[c][i]) for c in cols})
        out.append(r)
    return out


def summarize_arrow(t, time, series, sums, reader="pyarrow", latest=False):
    """The summary of an Arrow table, computed with pyarrow."""
    out = empty_summary(reader, sums)
    out["rows"] = t.num_rows
    ts = t[time]
    if pa.types.is_timestamp(ts.type):
        ts = ts.cast(pa.timestamp("us", tz=ts.type.tz)).cast(pa.int64())
    out["min_time_us"] = pc.min(ts).as_py()
    out["max_time_us"] = pc.max(ts).as_py()
    if series and t.num_rows:
        out["distinct_series"] = t.select(series).group_by(series).aggregate([]).num_rows
    for c in sums:
        typ = t[c].type
        if not (pa.types.is_integer(typ) or pa.types.is_floating(typ)):
            raise ValueError(f"column {c!r} to sum has type {typ}; want an integer or float")
        if pa.types.is_integer(typ):
            # exact: Python ints, not pyarrow's int64 sum, which may overflow
            total = sum(v for v in t[c].to_pylist() if v is not None)
        else:
            total = pc.sum(t[c]).as_py()
        out["sums"][c] = json_sum(total, pa.types.is_integer(typ))
        out["non_null"][c] = t.num_rows - t[c].null_count
    if latest:
        out["latest"] = latest_rows({c: t[c].to_pylist() for c in series}, ts.to_pylist(),
                                    {c: t[c].to_pylist() for c in sums})
    return out


# ---------------------------------------------------------------- DuckDB

def duckdb_extension_path(e):
    """The extension e as pip installed it: duckdb-ext-E packages (DuckDB
    1.4) keep them in duckdb_ext/extensions/vX/linux_amd64, the
    duckdb-extension-E packages (1.5) in duckdb_extension_E/extensions/vX."""
    import duckdb
    site_dir = site.getsitepackages()[0]
    v = f"v{duckdb.__version__}"
    for p in (os.path.join(site_dir, "duckdb_ext", "extensions", v, "linux_amd64", f"{e}.duckdb_extension"),
              os.path.join(site_dir, f"duckdb_extension_{e}", "extensions", v, f"{e}.duckdb_extension")):
        if os.path.exists(p):
            return p
    raise RuntimeError(f"duckdb extension {e} for DuckDB {duckdb.__version__} is not installed")


def duckdb_connect(extensions=None):
    import duckdb
    c = duckdb.connect(config={"allow_unsigned_extensions": "true", "autoinstall_known_extensions": "false"})
    for e in extensions or DUCKDB_EXTENSIONS:
        c.execute(f"LOAD '{duckdb_extension_path(e)}'")
    c.execute("SET TimeZone='UTC'")
    return c


def duckdb_lineage(time_col, series_col, path):
    """Every row's series, time (microseconds), _row_id and
    _last_updated_sequence_number as DuckDB (1.5: format 3) reads them."""
    c = duckdb_connect()
    q = (f"SELECT {sql_id(series_col)}, epoch_us({sql_id(time_col)}), _row_id, _last_updated_sequence_number "
         f"FROM iceberg_scan({sql_str(path)}) ORDER BY 2, 1")
    return {"rows": [list(r) for r in c.execute(q).fetchall()]}


def ns_values(engine, path):
    """The table's rows, timestamps as integer nanoseconds, and its column
    types as the engine reads them: what a nanosecond column holds."""
    if engine == "duckdb":
        c = duckdb_connect()
        desc = c.execute(f"DESCRIBE SELECT * FROM iceberg_scan({sql_str(path)})").fetchall()
        exprs = [f"epoch_ns({sql_id(d[0])})" if d[1].startswith("TIMESTAMP") else sql_id(d[0]) for d in desc]
        rows = c.execute(f"SELECT {', '.join(exprs)} FROM iceberg_scan({sql_str(path)}) ORDER BY ALL").fetchall()
        return {"types": {d[0]: d[1] for d in desc}, "rows": [list(r) for r in rows]}
    from pyiceberg.table import StaticTable
    t = StaticTable.from_metadata("file://" + os.path.abspath(path)).scan().to_arrow()
    cols = []
    for f, col in zip(t.schema, t.columns):
        cols.append(col.cast(pa.int64()).to_pylist() if pa.types.is_timestamp(f.type) else col.to_pylist())
    rows = sorted(zip(*cols), key=lambda r: [(v is None, v) for v in r])
    return {"types": {f.name: str(f.type) for f in t.schema}, "rows": [list(r) for r in rows]}


def sql_id(s):
    return '"' + s.replace('"', '""') + '"'


INT_TYPES = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT"}


def duckdb_summary(c, path, q, scan=None):
    """The summary of iceberg_scan(path), or of the relation scan (e.g. a
    table of an attached catalog, cat.ns.t) when given."""
    scan = scan or f"iceberg_scan({sql_str(path)})"
    types = {r[0]: r[1] for r in c.execute(f"DESCRIBE SELECT * FROM {scan}").fetchall()}
    for col in [q.time] + q.series + q.sums:
        if col not in types:
            raise ValueError(f"column {col!r} not in the table (columns: {', '.join(types)})")
    t = sql_id(q.time)
    ttype = types[q.time]
    if ttype.startswith("TIMESTAMP"):
        tus = f"epoch_us({t})"
        lit = "make_timestamp({})" + ("::TIMESTAMPTZ" if "TIME ZONE" in ttype else "")
    elif ttype == "BIGINT":
        tus, lit = t, "{}"
    else:
        raise ValueError(f"time column {q.time!r} has type {ttype}; want a timestamp or BIGINT")
    is_int = {}
    for col in q.sums:
        if types[col] not in INT_TYPES and types[col] not in ("FLOAT", "DOUBLE"):
            raise ValueError(f"column {col!r} to sum has type {types[col]}; want an integer or float")
        is_int[col] = types[col] in INT_TYPES
    cols = ["count(*)", f"min({tus})", f"max({tus})"]
    cols.append(f"count(DISTINCT row({', '.join(sql_id(s) for s in q.series)}))" if q.series else "0")
    for col in q.sums:
        cols += [f"sum({sql_id(col)})", f"count({sql_id(col)})"]
    sql = f"SELECT {', '.join(cols)} FROM {scan}"
    if q.filtered:
        sql += f" WHERE {t} >= {lit.format(q.from_us)} AND {t} < {lit.format(q.to_us)}"

    # The profile of the query says how many files the scan read ("Total
    # Files Read" of the ICEBERG_SCAN operator), after pruning by partition
    # and column bounds.
    with tempfile.TemporaryDirectory() as tmp:
        prof = os.path.join(tmp, "profile.json")
        c.execute("PRAGMA enable_profiling='json'")
        c.execute(f"PRAGMA profiling_output={sql_str(prof)}")
        try:
            row = c.execute(sql).fetchall()[0]
        finally:
            c.execute("PRAGMA disable_profiling")
        with open(prof) as f:
            files = files_read(json.load(f))

    out = empty_summary("duckdb", q.sums)
    out["rows"], out["min_time_us"], out["max_time_us"], out["distinct_series"] = row[0], row[1], row[2], row[3]
    for k, col in enumerate(q.sums):
        out["sums"][col] = json_sum(row[4 + 2 * k], is_int[col])
        out["non_null"][col] = row[5 + 2 * k]
    out["planned_files"] = files if files is not None else -1
    if q.latest:
        keys = ", ".join(sql_id(x) for x in q.series)
        pick = ", ".join([sql_id(x) for x in q.series] + [f"{tus} AS time_us"] + [sql_id(x) for x in q.sums])
        where = f" WHERE {t} >= {lit.format(q.from_us)} AND {t} < {lit.format(q.to_us)}" if q.filtered else ""
        rows = c.execute(f"SELECT {pick} FROM (SELECT *, row_number() OVER (PARTITION BY {keys} ORDER BY {t} DESC) AS rn "
                         f"FROM {scan}{where}) WHERE rn = 1").fetchall()
        names = q.series + ["time_us"] + q.sums
        out["latest"] = sorted(({n: json_value(v) for n, v in zip(names, r)} for r in rows),
                               key=lambda r: repr(tuple(r[x] for x in q.series)))
    return out


def files_read(node):
    """The "Total Files Read" of the first ICEBERG_SCAN in a DuckDB JSON profile."""
    info = node.get("extra_info") or {}
    if info.get("Function") == "ICEBERG_SCAN" and "Total Files Read" in info:
        return int(info["Total Files Read"])
    for child in node.get("children", []):
        n = files_read(child)
        if n is not None:
            return n
    return None


# ---------------------------------------------------------------- pyiceberg

def pyiceberg_summary(path, q):
    from pyiceberg.table import StaticTable

    return pyiceberg_table_summary(StaticTable.from_metadata(path), q)


def pyiceberg_table_summary(tbl, q):
    """The summary of a pyiceberg Table (static, or loaded from a catalog)."""
    from pyiceberg.expressions import AlwaysTrue, And, GreaterThanOrEqual, LessThan

    row_filter = AlwaysTrue()
    if q.filtered:
        row_filter = And(GreaterThanOrEqual(q.time, q.from_us), LessThan(q.time, q.to_us))
    scan = tbl.scan(row_filter=row_filter, selected_fields=tuple(dict.fromkeys([q.time] + q.series + q.sums)))
    planned = len(list(scan.plan_files()))
    out = summarize_arrow(scan.to_arrow(), q.time, q.series, q.sums, reader="pyiceberg", latest=q.latest)
    out["planned_files"] = planned
    return out


def nested_text(v, t):
    """A nested value (pyarrow's Python value of type t) as the compact
    JSON text Timelake prints: struct fields in the type's order, map
    entries and list elements in the file's order, a map key as a string,
    floats as Go's shortest form (NaN and infinities as strings),
    timestamps as scan prints them."""
    if v is None:
        return "null"
    if pa.types.is_map(t):
        return "{" + ",".join(json.dumps(key_text(k, t.key_type), ensure_ascii=False) + ":" + nested_text(x, t.item_type)
                              for k, x in v) + "}"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return "[" + ",".join(nested_text(x, t.value_type) for x in v) + "]"
    if pa.types.is_struct(t):
        return "{" + ",".join(json.dumps(t.field(i).name, ensure_ascii=False) + ":" + nested_text(v[t.field(i).name], t.field(i).type)
                              for i in range(t.num_fields)) + "}"
    if pa.types.is_timestamp(t) or (pa.types.is_floating(t) and (math.isnan(v) or math.isinf(v))):
        return json.dumps(key_text(v, t))
    if pa.types.is_floating(t):
        return key_text(v, t)
    if pa.types.is_boolean(t):
        return "true" if v else "false"
    if pa.types.is_integer(t):
        return str(v)
    return json.dumps(v, ensure_ascii=False)


def key_text(v, t):
    """A primitive as Timelake prints it inside a nested value, unquoted."""
    if pa.types.is_boolean(t):
        return "true" if v else "false"
    if pa.types.is_floating(t):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "+Inf" if v > 0 else "-Inf"
        return float_text(v)
    if pa.types.is_timestamp(t):
        text = v.strftime("%Y-%m-%dT%H:%M:%S.%f")
        return text + ("Z" if t.tz else "")
    return str(v)


def float_text(v):
    """Go's strconv.FormatFloat(v, 'g', -1, 64): the shortest digits
    (Python's repr has the same), in exponent form when the exponent is
    below -4 or at least 6."""
    import decimal
    if v == 0:
        return "-0" if math.copysign(1, v) < 0 else "0"
    sign, digits, exp = decimal.Decimal(repr(v)).as_tuple()
    digits = list(digits)
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
        exp += 1
    ds = "".join(map(str, digits))
    dp = len(ds) + exp  # the decimal point's place in ds
    x = dp - 1
    out = "-" if sign else ""
    if x < -4 or x >= 6:
        out += ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
        return out + "e" + ("-" if x < 0 else "+") + ("%02d" % abs(x))
    if dp <= 0:
        return out + "0." + "0" * -dp + ds
    if dp >= len(ds):
        return out + ds + "0" * (dp - len(ds))
    return out + ds[:dp] + "." + ds[dp:]


def map_rows(path):
    """Every row of the table as pyiceberg reads it: a nested column's
    value as compact JSON text as Timelake prints it (nested_text), a
    timestamp as integer microseconds."""
    from pyiceberg.table import StaticTable

    t = StaticTable.from_metadata(path).scan().to_arrow()
    cols = {}
    for name in t.column_names:
        col = t.column(name)
        typ = col.type
        if pa.types.is_timestamp(typ):
            col = col.cast(pa.timestamp("us", tz=typ.tz)).cast(pa.int64())
        vals = col.to_pylist()
        if pa.types.is_map(typ) or pa.types.is_list(typ) or pa.types.is_large_list(typ) or pa.types.is_struct(typ):
            vals = [None if v is None else nested_text(v, typ) for v in vals]
        cols[name] = vals
    return [{n: cols[n][i] for n in t.column_names} for i in range(t.num_rows)]


from filemeta import avro_meta, deletion_vectors, parquet_meta, puffin_meta, sql_str  # noqa: E402  (byte-level views)


# ---------------------------------------------------------------- main

def scan_main(reader, argv):
    ap = argparse.ArgumentParser(prog=f"readers.py {reader}")
    ap.add_argument("--time", required=True)
    ap.add_argument("--series", default="")
    ap.add_argument("--sum", dest="sums", default="")
    ap.add_argument("--from", dest="from_us", type=int)
    ap.add_argument("--to", dest="to_us", type=int)
    ap.add_argument("--latest", action="store_true", help="also the row of the greatest time per series")
    ap.add_argument("metadata", nargs="+")
    q = ap.parse_args(argv)
    q.series = [s for s in q.series.split(",") if s]
    q.sums = [s for s in q.sums.split(",") if s]
    if (q.from_us is None) != (q.to_us is None):
        ap.error("--from and --to go together")
    q.filtered = q.from_us is not None

    status = 0
    try:
        summarize = pyiceberg_summary
        if reader == "duckdb":
            c = duckdb_connect()
            summarize = lambda path, q: duckdb_summary(c, path, q)  # noqa: E731
    except Exception as e:  # the reader cannot even load: every line says so
        summarize, load_error = None, f"loading {reader}: {type(e).__name__}: {e}"
    for path in q.metadata:
        try:
            if summarize is None:
                raise RuntimeError(load_error)
            out = summarize(path, q)
        except Exception as e:
            out = empty_summary(reader, q.sums)
            out["error"] = f"{path}: {type(e).__name__}: {e}"
            status = 1
        print(json.dumps(out, allow_nan=False), flush=True)
    return status


def check_main(reader):
    if reader == "duckdb":
        import duckdb
        c = duckdb_connect()
        exts = [r[0] for r in c.execute("SELECT extension_name FROM duckdb_extensions() WHERE loaded").fetchall()]
        missing = [e for e in DUCKDB_EXTENSIONS if e not in exts]
        if missing:
            raise RuntimeError(f"duckdb extensions not loaded: {missing}")
        version = duckdb.__version__
    elif reader == "pyiceberg":
        import pyiceberg
        from pyiceberg.table import StaticTable  # noqa: F401
        version = pyiceberg.__version__
    else:
        raise SystemExit(f"readers.py check: unknown reader {reader!r}")
    print(json.dumps({"reader": reader, "version": version}))
    return 0


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, rest = argv[1], argv[2:]
    if cmd in ("duckdb", "pyiceberg"):
        return scan_main(cmd, rest)
    if cmd == "check" and len(rest) == 1:
        return check_main(rest[0])
    if cmd == "duckdb-lineage" and len(rest) == 3:
        print(json.dumps(duckdb_lineage(*rest)))
        return 0
    if cmd == "ns-values" and len(rest) == 2:
        print(json.dumps(ns_values(*rest)))
        return 0
    if cmd == "map-rows" and len(rest) == 1:
        for r in map_rows(rest[0]):
            print(json.dumps(r, ensure_ascii=False))
        return 0
    if cmd == "parquet-meta" and len(rest) == 1:
        print(json.dumps(parquet_meta(rest[0]), default=str))
        return 0
    if cmd == "avro-meta" and len(rest) == 1:
        print(json.dumps(avro_meta(rest[0])))
        return 0
    if cmd == "deletion-vectors" and len(rest) == 1:
        print(json.dumps(deletion_vectors(rest[0])), flush=True)
        os._exit(0)  # as puffin-meta: skip the native threads' teardown
    if cmd == "puffin-meta" and len(rest) == 1:
        print(json.dumps(puffin_meta(rest[0])), flush=True)
        # pyarrow's and pyiceberg's native threads sometimes abort the
        # interpreter's teardown ("terminate called without an active
        # exception"): the answer is out, skip it.
        os._exit(0)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
