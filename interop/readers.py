"""Outside readers of Iceberg tables, and byte-level views of Parquet and Avro files.

    readers.py duckdb    --time TS [--series A,B] [--sum X,Y] [--from US --to US] [--latest] METADATA.json...
    readers.py pyiceberg --time TS [--series A,B] [--sum X,Y] [--from US --to US] [--latest] METADATA.json...
    readers.py check duckdb|pyiceberg      load the reader only; prints {"reader":..,"version":..}
    readers.py duckdb-lineage TIME SERIES METADATA.json   each row's series, time, _row_id and
                                           _last_updated_sequence_number (DuckDB 1.5, format 3)
    readers.py ns-values duckdb|pyiceberg METADATA.json   every row of the table, timestamps as
                                           integer nanoseconds (DuckDB's epoch_ns), with each column's type
    readers.py map-rows METADATA.json      every row of the table by pyiceberg, one JSON line each:
                                           timestamps as integer microseconds, a map as the
                                           compact JSON text of an object in the file's order
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


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


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


def map_rows(path):
    """Every row of the table as pyiceberg reads it: a map column's value
    as compact JSON object text (its entries in the file's order, as
    Timelake prints it), a timestamp as integer microseconds."""
    from pyiceberg.table import StaticTable

    t = StaticTable.from_metadata(path).scan().to_arrow()
    cols = {}
    for name in t.column_names:
        col = t.column(name)
        if pa.types.is_timestamp(col.type):
            col = col.cast(pa.timestamp("us", tz=col.type.tz)).cast(pa.int64())
        vals = col.to_pylist()
        if pa.types.is_map(t.column(name).type):
            vals = [None if v is None else
                    "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + json.dumps(x, ensure_ascii=False)
                                   for k, x in v) + "}"
                    for v in vals]
        cols[name] = vals
    return [{n: cols[n][i] for n in t.column_names} for i in range(t.num_rows)]


# ---------------------------------------------------------------- Parquet

class Thrift:
    """A reader of Thrift's compact protocol, enough for Parquet's footer and
    page headers. Structs become {field id: value}."""

    def __init__(self, buf, pos=0):
        self.buf, self.pos = buf, pos

    def byte(self):
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def varint(self):
        shift = v = 0
        while True:
            b = self.byte()
            v |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return v

    def zigzag(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def value(self, typ):
        if typ in (1, 2):  # bool inside a struct: the type is the value
            return typ == 1
        if typ == 3:
            return struct.unpack("b", bytes([self.byte()]))[0]
        if typ in (4, 5, 6):
            return self.zigzag()
        if typ == 7:
            self.pos += 8
            return struct.unpack("<d", self.buf[self.pos - 8:self.pos])[0]
        if typ == 8:
            n = self.varint()
            self.pos += n
            return bytes(self.buf[self.pos - n:self.pos])
        if typ in (9, 10):
            h = self.byte()
            n, et = h >> 4, h & 0x0F
            if n == 15:
                n = self.varint()
            if et in (1, 2):  # bool inside a list: one byte each
                return [self.byte() == 1 for _ in range(n)]
            return [self.value(et) for _ in range(n)]
        if typ == 11:
            n = self.varint()
            if n == 0:
                return {}
            kv = self.byte()
            return {self.value(kv >> 4): self.value(kv & 0x0F) for _ in range(n)}
        if typ == 12:
            return self.struct()
        raise ValueError(f"thrift: unknown type {typ} at byte {self.pos}")

    def struct(self):
        out, fid = {}, 0
        while True:
            h = self.byte()
            if h == 0:
                return out
            delta, typ = h >> 4, h & 0x0F
            fid = fid + delta if delta else self.zigzag()
            out[fid] = self.value(typ)


PAGE_TYPES = {0: "DATA_PAGE", 1: "INDEX_PAGE", 2: "DICTIONARY_PAGE", 3: "DATA_PAGE_V2"}
ENCODINGS = {0: "PLAIN", 2: "PLAIN_DICTIONARY", 3: "RLE", 4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED",
             6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY", 8: "RLE_DICTIONARY", 9: "BYTE_STREAM_SPLIT"}


def parquet_pages(path):
    """Per column chunk, from the footer parsed here: its pages (from the page
    headers) and its page index (column index and offset index)."""
    with open(path, "rb") as f:
        buf = f.read()
    if buf[:4] != b"PAR1" or buf[-4:] != b"PAR1":
        raise ValueError(f"{path}: not a Parquet file (no PAR1 magic)")
    n = struct.unpack("<I", buf[-8:-4])[0]
    meta = Thrift(buf, len(buf) - 8 - n).struct()
    out = []
    for rg_i, rg in enumerate(meta.get(4, [])):
        for col_i, cc in enumerate(rg.get(1, [])):
            md = cc.get(3, {})
            chunk = {
                "row_group": rg_i, "column": col_i,
                "path": ".".join(p.decode() for p in md.get(3, [])),
                "has_column_index": 6 in cc, "has_offset_index": 4 in cc,
                "pages": [],
            }
            start = md.get(9)
            if md.get(11) is not None and 0 < md[11] < start:
                start = md[11]
            pos, end = start, start + md.get(7, 0)
            while pos < end:
                t = Thrift(buf, pos)
                h = t.struct()
                page = {"type": PAGE_TYPES.get(h.get(1), h.get(1)), "compressed_size": h.get(3),
                        "uncompressed_size": h.get(2)}
                sub = h.get(5) or h.get(7) or h.get(8) or {}
                page["num_values"] = sub.get(1)
                if 8 in h:
                    page["num_rows"], page["num_nulls"] = sub.get(3), sub.get(2)
                    page["encoding"] = ENCODINGS.get(sub.get(4), sub.get(4))
                else:
                    page["encoding"] = ENCODINGS.get(sub.get(2), sub.get(2))
                chunk["pages"].append(page)
                pos = t.pos + h.get(3, 0)
            if 4 in cc:
                oi = Thrift(buf, cc[4]).struct()
                firsts = [loc.get(3) for loc in oi.get(1, [])]
                ends = firsts[1:] + [rg.get(3)]
                chunk["offset_index_rows"] = [e - s for s, e in zip(firsts, ends)]
            if 6 in cc:
                ci = Thrift(buf, cc[6]).struct()
                chunk["column_index_pages"] = len(ci.get(1, []))
                chunk["column_index_null_counts"] = ci.get(5)
            out.append(chunk)
    sorting = [[{"column": s.get(1), "descending": s.get(2), "nulls_first": s.get(3)} for s in rg.get(4, [])]
               for rg in meta.get(4, [])]
    return out, sorting


def rows_as_dicts(c, sql):
    cur = c.execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def parquet_meta(path):
    import duckdb
    c = duckdb.connect()
    p = sql_str(path)
    chunks, sorting = parquet_pages(path)
    return {
        "file": rows_as_dicts(c, f"SELECT * EXCLUDE (file_name) FROM parquet_file_metadata({p})"),
        "key_value": {k.decode(): v.decode(errors="replace") for k, v in
                      c.execute(f"SELECT key, value FROM parquet_kv_metadata({p})").fetchall()},
        "schema": rows_as_dicts(c, f"SELECT * EXCLUDE (file_name) FROM parquet_schema({p})"),
        "columns": rows_as_dicts(c, f"SELECT * EXCLUDE (file_name, key_value_metadata, geo_bbox, geo_types) "
                                    f"FROM parquet_metadata({p}) ORDER BY row_group_id, column_id"),
        "sorting_columns": sorting,
        "chunks": chunks,
    }


# ---------------------------------------------------------------- Avro

def avro_meta(path):
    """Avro object container file: header metadata, schema, and the data
    blocks (record counts; every sync marker checked)."""
    with open(path, "rb") as f:
        buf = f.read()
    if buf[:4] != b"Obj\x01":
        raise ValueError(f"{path}: not an Avro object container file (no Obj\\x01 magic)")
    t = Thrift(buf, 4)  # Avro longs are zigzag varints too

    def blob():
        n = t.zigzag()
        t.pos += n
        return bytes(buf[t.pos - n:t.pos])

    meta = {}
    while True:
        count = t.zigzag()
        if count == 0:
            break
        if count < 0:
            count = -count
            t.zigzag()  # block size in bytes
        for _ in range(count):
            k = blob().decode()
            meta[k] = blob()
    sync = buf[t.pos:t.pos + 16]
    t.pos += 16
    blocks = []
    while t.pos < len(buf):
        records, size = t.zigzag(), t.zigzag()
        t.pos += size
        if buf[t.pos:t.pos + 16] != sync:
            raise ValueError(f"{path}: block {len(blocks)} does not end with the header's sync marker")
        t.pos += 16
        blocks.append(records)
    text = {}
    for k, v in meta.items():
        try:
            text[k] = v.decode()
        except UnicodeDecodeError:
            text[k] = "hex:" + v.hex()
    return {"metadata": text, "schema": json.loads(meta.get("avro.schema", b"null")),
            "codec": text.get("avro.codec", "null"), "blocks": len(blocks), "records": sum(blocks)}


# ---------------------------------------------------------------- Puffin

def puffin_meta(path):
    """A Puffin file read by pyiceberg's reader: the footer, and for each blob
    its payload's length and, when it is Parquet, its rows and columns."""
    import io
    import pyarrow.parquet as pq
    from pyiceberg.table.puffin import PuffinFile
    with open(path, "rb") as f:
        buf = f.read()
    pf = PuffinFile(buf)
    blobs = []
    for b in pf.footer.blobs:
        payload = pf.get_blob_payload(b)
        out = {"type": b.type, "snapshot_id": b.snapshot_id, "sequence_number": b.sequence_number,
               "fields": b.fields, "offset": b.offset, "length": len(payload)}
        if payload[:4] == b"PAR1":
            t = pq.read_table(io.BytesIO(payload), use_threads=False)
            out["parquet_rows"] = t.num_rows
            out["parquet_columns"] = t.column_names
        blobs.append(out)
    return {"properties": pf.footer.properties, "blobs": blobs}


def deletion_vectors(path):
    """The deletion vectors of a Puffin file, decoded by pyiceberg (pyroaring)."""
    from pyiceberg.table.puffin import PuffinFile
    from pyiceberg.table.deletion_vector import deletion_vectors_from_puffin_file
    with open(path, "rb") as f:
        pf = PuffinFile(f.read())
    props = {b.properties.get("referenced-data-file"): b.properties for b in pf.footer.blobs}
    return {"vectors": [{"referenced_data_file": dv.referenced_data_file, "properties": props[dv.referenced_data_file],
                         "positions": dv.to_vector().to_pylist()} for dv in deletion_vectors_from_puffin_file(pf)]}


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
