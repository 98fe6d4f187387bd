"""Writes the Parquet files other engines' writers make, with pyarrow: every
codec x data page version x encoding the Go reader supports, plus the odd
cases (a dictionary that falls back to PLAIN mid-chunk, many row groups and
pages, no page index, timestamps in every unit with and without a zone,
INT96, an INT32 column, a codec we refuse). Prints a JSON manifest: each
file's name, the encodings pyarrow put in it, the values pyarrow itself
reads back (timestamps as int micros, nanos floored; non-finite floats as
"NaN"/"Inf"/"-Inf"), or the error the Go reader must give.

Usage: python foreign_write.py OUTDIR [ROWS]
Run by parquet's TestReadForeignFiles (ROWS 3000); `go test ./parquet -run
TestReadCommittedForeignFiles -update` remakes testdata/foreign (ROWS 40).
"""
import json
import math
import os
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

CODECS = ["none", "snappy", "gzip", "lz4", "zstd"]  # pyarrow's "lz4" is LZ4_RAW
VERSIONS = ["1.0", "2.0"]


def data(n):
    ts = [1_700_000_000_000_000 + i * 1_000_123 + (i % 7) for i in range(n)]
    return pa.table({
        "ts": pa.array(ts, pa.timestamp("us", tz="UTC")),
        "host": pa.array([f"host-{(i * 7) % 23:02d}" for i in range(n)], pa.string()),
        "note": pa.array([None if i % 5 == 2 else ("é" * (i % 4)) + str(i % 50) for i in range(n)], pa.string()),
        "i64": pa.array([(i * 2654435761) % (1 << 40) - (1 << 39) if i % 6 else None for i in range(n)], pa.int64()),
        "i32": pa.array([(i * 7919) % 100000 - 50000 for i in range(n)], pa.int32()),
        "f64": pa.array([float("nan") if i % 17 == 3 else (None if i % 10 == 1 else i * 0.5 - 7) for i in range(n)], pa.float64()),
        "f32": pa.array([i * 0.25 for i in range(n)], pa.float32()),
        "flag": pa.array([None if i % 11 == 0 else i % 3 == 0 for i in range(n)], pa.bool_()),
    })


DELTA = {"ts": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED", "i32": "DELTA_BINARY_PACKED",
         "host": "DELTA_BYTE_ARRAY", "note": "DELTA_LENGTH_BYTE_ARRAY",
         "f64": "BYTE_STREAM_SPLIT", "f32": "BYTE_STREAM_SPLIT", "flag": "RLE"}

SCHEMES = {
    # dictionary pages, PLAIN_DICTIONARY (v1) / RLE_DICTIONARY (v2) data pages
    "dict": dict(use_dictionary=True),
    "plain": dict(use_dictionary=False),
    # what parquet-mr's v2 writer uses (and BYTE_STREAM_SPLIT, RLE booleans)
    "delta": dict(use_dictionary=False, column_encoding=DELTA),
}


def expected(path):
    """What pyarrow itself reads from the file."""
    table = pq.read_table(path)
    out = {}
    for name in table.column_names:
        col = table.column(name)
        if pa.types.is_timestamp(col.type):
            vals = col.cast(pa.int64()).to_pylist()
            unit = col.type.unit
            vals = [None if v is None else (v // 1000 if unit == "ns" else v * {"s": 1_000_000, "ms": 1000, "us": 1}[unit])
                    for v in vals]
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


def encodings(path):
    md = pq.ParquetFile(path).metadata
    encs = set()
    for r in range(md.num_row_groups):
        for c in range(md.num_columns):
            encs.update(md.row_group(r).column(c).encodings)
    return sorted(encs)


def main(outdir, n):
    table = data(n)
    common = dict(row_group_size=max(1, n // 3), data_page_size=1024, write_statistics=False)
    files = []  # (name, table, options, error)
    for codec in CODECS:
        for version in VERSIONS:
            for scheme, opts in SCHEMES.items():
                name = f"{codec}_v{version[0]}_{scheme}"
                files.append((name, table, dict(common, compression=codec, data_page_version=version, **opts), None))
        # format 1.0's PLAIN_DICTIONARY data pages (parquet-mr's v1 writer), v1 pages
        files.append((f"{codec}_v1_plaindict", table,
                      dict(common, compression=codec, data_page_version="1.0", use_dictionary=True, version="1.0"), None))
    # a dictionary past its limit: PLAIN pages after dictionary pages, in one chunk
    wide = table.append_column("id", pa.array([f"id-{i:06d}-{'x' * (i % 9)}" for i in range(n)], pa.string()))
    for version in VERSIONS:
        files.append((f"dict_fallback_v{version[0]}", wide,
                      dict(compression="snappy", data_page_version=version, dictionary_pagesize_limit=200,
                           data_page_size=256, row_group_size=n), None))
    # one row group, the page index written (the other files have none)
    files.append(("page_index", table, dict(compression="zstd", write_page_index=True, data_page_size=512), None))
    # timestamps in every unit, with and without isAdjustedToUTC
    base = [1_700_000_000_123_456_789 + i * 1_000_003_007 for i in range(n)]
    times = pa.table({
        **{f"ns_{z}": pa.array(base, pa.timestamp("ns", tz=tz)) for z, tz in (("utc", "UTC"), ("naive", None))},
        **{f"us_{z}": pa.array([b // 1000 for b in base], pa.timestamp("us", tz=tz)) for z, tz in (("utc", "UTC"), ("naive", None))},
        **{f"ms_{z}": pa.array([b // 1_000_000 for b in base], pa.timestamp("ms", tz=tz)) for z, tz in (("utc", "UTC"), ("naive", None))},
        "neg_ns": pa.array([-b for b in base], pa.timestamp("ns", tz="UTC")),
    })
    for version in VERSIONS:
        files.append((f"times_v{version[0]}", times, dict(compression="snappy", data_page_version=version,
                                                           coerce_timestamps=None, allow_truncated_timestamps=False), None))
    files.append(("int96", table.select(["ts", "host"]), dict(compression="snappy", use_deprecated_int96_timestamps=True), None))
    files.append(("brotli", table.select(["ts", "host"]), dict(compression="brotli"), "BROTLI"))
    manifest = []
    for name, t, kw, err in files:
        path = os.path.join(outdir, name + ".parquet")
        pq.write_table(t, path, **kw)
        entry = {"file": name + ".parquet", "encodings": encodings(path)}
        if err:
            entry["error"] = err
        else:
            entry["expected"] = expected(path)
        manifest.append(entry)
    json.dump(manifest, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3000)
