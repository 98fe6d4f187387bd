"""Writes flat Parquet files with pyarrow (and DuckDB) in many variants, for parquet's Go
reader tests, and prints a JSON manifest: for each file its name and the
expected column values (timestamps as int micros, non-finite floats as
strings "NaN"/"Inf"/"-Inf").

Usage: python pyarrow_write.py OUTDIR [ROWS]
"""
import json
import math
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def data(n):
    ts = [1_700_000_000_000_000 + i * 1_000_123 if i % 9 != 4 else None for i in range(n)]
    return {
        "ts_us": pa.array(ts, pa.timestamp("us", tz="UTC")),
        "ts_ms": pa.array([None if v is None else v // 1000 * 1000 for v in ts], pa.timestamp("ms", tz="UTC")),
        "ts_ns": pa.array([None if v is None else v for v in ts], pa.timestamp("us")).cast(pa.timestamp("ns")),
        "host": pa.array([f"host-{i % 37:02d}" for i in range(n)], pa.string()),
        "note": pa.array([None if i % 5 == 2 else ("ünïcødé-" * (i % 4)) + str(i % 50) for i in range(n)], pa.string()),
        "i64": pa.array([(i * 2654435761) % (1 << 40) - (1 << 39) if i % 6 else None for i in range(n)], pa.int64()),
        "i32": pa.array([(i * 7919) % 100000 - 50000 for i in range(n)], pa.int32()),
        "i16": pa.array([i % 1000 - 500 for i in range(n)], pa.int16()),
        "u32": pa.array([(i * 2654435761) % (1 << 32) for i in range(n)], pa.uint32()),
        "f64": pa.array([float("nan") if i % 17 == 3 else (None if i % 10 == 1 else i * 0.5 - 7) for i in range(n)], pa.float64()),
        "f32": pa.array([i * 0.25 for i in range(n)], pa.float32()),
        "flag": pa.array([None if i % 11 == 0 else i % 3 == 0 for i in range(n)], pa.bool_()),
    }


def expected(table):
    out = {}
    for name in table.column_names:
        col = table.column(name)
        if pa.types.is_timestamp(col.type):
            unit = col.type.unit
            vals = col.cast(pa.int64()).to_pylist()
            scale = {"s": 1_000_000, "ms": 1000, "us": 1, "ns": None}[unit]
            vals = [None if v is None else (v // 1000 if scale is None else v * scale) for v in vals]
        else:
            vals = col.to_pylist()
        out[name] = [plain(v) for v in vals]
    return out


def plain(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Inf" if v > 0 else "-Inf"
    return v


def main(outdir, n):
    table = pa.table(data(n))
    no_ts_ns = table.drop(["ts_ns"])
    variants = [
        ("snappy_v1_dict", table, dict(compression="snappy", data_page_version="1.0", use_dictionary=True)),
        ("zstd_v2_dict", table, dict(compression="zstd", data_page_version="2.0", use_dictionary=True)),
        ("gzip_v1_plain", table, dict(compression="gzip", data_page_version="1.0", use_dictionary=False)),
        ("none_v2_plain", table, dict(compression="none", data_page_version="2.0", use_dictionary=False)),
        ("zstd_v2_delta", table, dict(compression="zstd", data_page_version="2.0", use_dictionary=False,
                                      column_encoding={"i64": "DELTA_BINARY_PACKED", "i32": "DELTA_BINARY_PACKED",
                                                       "ts_us": "DELTA_BINARY_PACKED", "host": "DELTA_BYTE_ARRAY",
                                                       "note": "DELTA_LENGTH_BYTE_ARRAY", "flag": "RLE",
                                                       "f64": "BYTE_STREAM_SPLIT", "f32": "BYTE_STREAM_SPLIT"})),
        ("snappy_v1_small_pages", table, dict(compression="snappy", data_page_version="1.0", data_page_size=512,
                                              row_group_size=max(1, n // 3), write_page_index=True)),
        ("int96", no_ts_ns, dict(compression="snappy", use_deprecated_int96_timestamps=True)),
    ]
    manifest = []
    for name, t, kw in variants:
        path = os.path.join(outdir, name + ".parquet")
        pq.write_table(t, path, **kw)
        manifest.append({"file": name + ".parquet", "expected": expected(t)})
    # DuckDB's writer too (v1 pages by default; V2 adds delta encodings)
    import duckdb
    con = duckdb.connect()
    con.register("t", table)
    for name, opts in [("duckdb_v1", "COMPRESSION zstd"), ("duckdb_v2", "COMPRESSION snappy, PARQUET_VERSION v2")]:
        path = os.path.join(outdir, name + ".parquet")
        con.execute(f"COPY t TO '{path}' (FORMAT parquet, {opts}, ROW_GROUP_SIZE 2048)")
        manifest.append({"file": name + ".parquet", "expected": expected(table)})
    json.dump(manifest, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5000)
