"""Prints, as JSON, what pyarrow and DuckDB see in a Parquet file.

Usage: python inspect_file.py FILE [--no-duckdb]
Called by parquet's Go tests (TestPyarrowReadsOurFile). Non-finite floats
are written as the strings "NaN", "Inf", "-Inf"; timestamps as ints in their
unit (pyarrow), as int micros (DuckDB; TIMESTAMP_NS as int nanos).
"""
import json
import math
import site
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def plain(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Inf" if v > 0 else "-Inf"
    return v


def main(path, with_duckdb=True):
    table = pq.read_table(path)
    cols = {}
    for name in table.column_names:
        col = table.column(name)
        if pa.types.is_timestamp(col.type):
            col = col.cast(pa.int64())
        cols[name] = [plain(v) for v in col.to_pylist()]
    pf = pq.ParquetFile(path)
    md = pf.metadata
    arrow_schema = pf.schema_arrow
    field_ids = {}
    types = {}
    for i, f in enumerate(arrow_schema):
        meta = f.metadata or {}
        field_ids[f.name] = int(meta.get(b"PARQUET:field_id", b"0"))
        types[f.name] = str(f.type)
    row_groups = []
    for r in range(md.num_row_groups):
        rg = md.row_group(r)
        chunks = []
        for c in range(rg.num_columns):
            cc = rg.column(c)
            st = cc.statistics
            stats = None
            if st is not None:
                stats = {"null_count": st.null_count, "has_min_max": st.has_min_max}
                if st.has_min_max:
                    try:
                        mn, mx = st.min, st.max
                    except ValueError:  # nanoseconds a datetime cannot hold: the raw ints
                        mn, mx = st.min_raw, st.max_raw
                    if hasattr(mn, "timestamp"):
                        mn, mx = str(mn), str(mx)
                    stats["min"], stats["max"] = plain(mn), plain(mx)
            chunks.append({
                "path": cc.path_in_schema,
                "encodings": sorted(cc.encodings),
                "compression": cc.compression,
                "has_column_index": cc.has_column_index,
                "has_offset_index": cc.has_offset_index,
                "has_dictionary_page": cc.has_dictionary_page,
                "statistics": stats,
            })
        sorting = []
        for s in (rg.sorting_columns or []):
            sorting.append({"column_index": s.column_index, "descending": s.descending, "nulls_first": s.nulls_first})
        row_groups.append({"num_rows": rg.num_rows, "columns": chunks, "sorting_columns": sorting})
    out = {
        "num_rows": md.num_rows,
        "columns": cols,
        "field_ids": field_ids,
        "types": types,
        "row_groups": row_groups,
        "logical_types": [str(md.schema.column(i).logical_type) for i in range(md.num_columns)],
        "duckdb": duckdb_metadata(path) if with_duckdb else None,
    }
    json.dump(out, sys.stdout)


def duckdb_metadata(path):
    import duckdb
    c = duckdb.connect()
    rows = c.execute(
        "SELECT row_group_id, path_in_schema, encodings, compression, num_values FROM parquet_metadata(?) ORDER BY row_group_id, column_id",
        [path],
    ).fetchall()
    count = c.execute("SELECT count(*) FROM read_parquet(?)", [path]).fetchone()[0]
    desc = c.execute("DESCRIBE SELECT * FROM read_parquet(?)", [path]).fetchall()
    exprs = []
    duck_types = {}
    for name, typ, *_ in desc:
        duck_types[name] = typ
        q = '"' + name.replace('"', '""') + '"'
        # TIMESTAMP_NS (a naive TIMESTAMP(NANOS)) in nanoseconds, other timestamps in
        # microseconds (DuckDB reads TIMESTAMP(NANOS, isAdjustedToUTC) as microseconds)
        fn = "epoch_ns" if typ == "TIMESTAMP_NS" else "epoch_us"
        exprs.append(f"{fn}({q})" if typ.startswith("TIMESTAMP") else q)
    data = c.execute(f"SELECT {', '.join(exprs)} FROM read_parquet(?)", [path]).fetchall()
    values = {d[0]: [plain(r[i]) for r in data] for i, d in enumerate(desc)}
    return {
        "count": count,
        "columns": values,
        "types": duck_types,
        "chunks": [{"row_group": r[0], "path": r[1], "encodings": r[2], "compression": r[3], "num_values": r[4]} for r in rows],
    }


if __name__ == "__main__":
    # --no-duckdb: pyarrow alone (DuckDB does not read the old LZ4 codec)
    main(sys.argv[1], with_duckdb="--no-duckdb" not in sys.argv[2:])
