"""Writes the Arrow IPC fixtures of arrowipc's tests with pyarrow, and
cases.json: for each case the fixture, the table schema, the append options
and what pyarrow says the aligned rows are (or the error expected).

    .venv/bin/python arrowipc/testdata/gen.py     (or: go test ./arrowipc -update)

Expected values are computed from pyarrow's own reading of the data:
integers and floats as they are, times as microseconds since the epoch
(floored), so the Go reader is checked against an independent decoder."""
import datetime as dt
import json
import math
import os

import pyarrow as pa
import pyarrow.ipc as ipc

HERE = os.path.dirname(os.path.abspath(__file__))
cases = []
UTC = dt.timezone.utc


def write(name, table, file=False, **opts):
    path = os.path.join(HERE, name)
    o = ipc.IpcWriteOptions(**opts)
    with pa.OSFile(path, "wb") as sink:
        w = (ipc.new_file if file else ipc.new_stream)(sink, table.schema, options=o)
        for b in table.to_batches():
            w.write_batch(b)
        w.close()
    return name


def micros(arr):
    """Expected timestamptz micros of an Arrow temporal array."""
    t = arr.type
    out = []
    if pa.types.is_timestamp(t):
        f = {"s": lambda v: v * 1_000_000, "ms": lambda v: v * 1000, "us": lambda v: v, "ns": lambda v: v // 1000}[t.unit]
        vals = arr.cast(pa.int64()).to_pylist()
    elif pa.types.is_date32(t):
        f, vals = (lambda v: v * 86_400_000_000), arr.cast(pa.int32()).to_pylist()
    elif pa.types.is_date64(t):
        f, vals = (lambda v: (v // 86_400_000) * 86_400_000_000), arr.cast(pa.int64()).to_pylist()
    else:
        raise TypeError(t)
    return [None if v is None else f(v) for v in vals]


def iso_micros(s):
    t = dt.datetime.fromisoformat(s)
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    d = t - dt.datetime(1970, 1, 1, tzinfo=UTC)
    return (d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds


def expect(table, types):
    """Rows as the Go test renders them: one list per row, in the order of types (name → column type)."""
    cols = []
    for name, typ in types:
        if name not in table.column_names:
            cols.append([None] * table.num_rows)
            continue
        a = table.column(name).combine_chunks()
        if pa.types.is_dictionary(a.type):
            a = a.dictionary_decode()
        if typ == "timestamptz" and not pa.types.is_string(a.type) and not pa.types.is_integer(a.type):
            cols.append(micros(a))
        elif typ == "timestamptz" and pa.types.is_integer(a.type):  # epoch ms (the default unit)
            cols.append([None if v is None else v * 1000 for v in a.to_pylist()])
        elif typ == "timestamptz":  # ISO strings, parsed by Python (no zone: UTC)
            cols.append([None if v is None else iso_micros(v) for v in a.to_pylist()])
        elif typ == "double":
            cols.append([None if v is None else float(v) for v in a.to_pylist()])
        else:
            cols.append(a.to_pylist())
    return [list(r) for r in zip(*cols)]


def case(name, file, schema, rows=None, error=None, options=None, repeat=1):
    """rows, repeated `repeat` times, are the expected rows."""
    c = {"name": name, "file": file, "table": schema, "options": options or {}, "repeat": repeat}
    if error:
        c["error"] = error
    else:
        c["rows"] = rows
    cases.append(c)


def tschema(time, series, cols):
    return {"time": time, "series": series, "columns": [{"name": n, "type": t, "required": r} for n, t, r in cols]}


# --- every flat type, nulls ---------------------------------------------------
N = 20
base = dt.datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
nul = lambda f: [None if i % 4 == 3 else f(i) for i in range(N)]
types_tbl = pa.table({
    "ts": pa.array([base + dt.timedelta(seconds=i, microseconds=i * 7) for i in range(N)], pa.timestamp("us", tz="UTC")),
    "host": pa.array([f"web-{i % 3}" for i in range(N)], pa.string()),
    "i8": pa.array(nul(lambda i: -128 + i * 13), pa.int8()),
    "i16": pa.array(nul(lambda i: -32768 + i * 3000), pa.int16()),
    "i32": pa.array(nul(lambda i: -(2**31) + i * 200_000_000), pa.int32()),
    "i64": pa.array(nul(lambda i: -(2**63) + i * 9 * 10**17), pa.int64()),
    "u8": pa.array(nul(lambda i: 255 - i), pa.uint8()),
    "u16": pa.array(nul(lambda i: 65535 - i), pa.uint16()),
    "u32": pa.array(nul(lambda i: 2**32 - 1 - i), pa.uint32()),
    "u64": pa.array(nul(lambda i: 2**63 - 1 - i), pa.uint64()),
    "f16": pa.array([None if i % 4 == 3 else x for i, x in enumerate([0.5, -2, 65504, 2**-24, 2**-20 * 3, 3.140625, -0.0, 1024] * 3)][:N], pa.float32()).cast(pa.float16()),
    "f32": pa.array(nul(lambda i: (i - 10) * 1.25e30), pa.float32()),
    "f64": pa.array(nul(lambda i: (i - 10) / 3), pa.float64()),
    "flag": pa.array(nul(lambda i: i % 3 == 0), pa.bool_()),
    "note": pa.array(nul(lambda i: "é" * (i % 5) + f"n{i}"), pa.large_string()),
    "word": pa.array(nul(lambda i: f"w{i % 2}"), pa.string()),
})
types_schema = tschema("ts", ["host"], [(c, "long", False) for c in ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]] +
                       [(c, "double", False) for c in ["f16", "f32", "f64"]] +
                       [("flag", "boolean", False), ("note", "string", False), ("word", "string", False)])
order = [("ts", "timestamptz"), ("host", "string")] + [(c["name"], c["type"]) for c in types_schema["columns"]]
types_rows = expect(types_tbl, order)
case("types stream", write("types.arrows", types_tbl), types_schema, types_rows)
case("types file", write("types.arrow", types_tbl, file=True), types_schema, types_rows)
case("types legacy framing", write("types-legacy.arrows", types_tbl, use_legacy_format=True), types_schema, types_rows)

# compressed bodies: 300 rows so that buffers compress (small ones are stored with length -1)
big = pa.concat_tables([types_tbl] * 15).combine_chunks()
assert expect(big, order) == types_rows * 15
case("zstd stream", write("types-zstd.arrows", big, compression="zstd"), types_schema, types_rows, repeat=15)
case("lz4 stream", write("types-lz4.arrows", big, compression="lz4"), types_schema, types_rows, repeat=15)
case("zstd file", write("types-zstd.arrow", big, file=True, compression="zstd"), types_schema, types_rows, repeat=15)

# --- time types -----------------------------------------------------------------
tv = [-86_400_123_456_789, -1, 0, 1, 1_764_410_400_123_456_789, 253_402_300_799_999_999_999]
n = len(tv)
times_tbl = pa.table({
    "ts": pa.array([v // 10**9 for v in tv], pa.timestamp("s")),
    "host": ["a"] * n,
    "t_ms": pa.array([v // 10**6 for v in tv], pa.timestamp("ms", tz="Europe/Paris")),
    "t_us": pa.array([v // 10**3 for v in tv], pa.timestamp("us", tz="+05:30")),
    "t_ns": pa.array(tv[:-1] + [None], pa.timestamp("ns")),
    "d32": pa.array([v // (86_400 * 10**9) for v in tv], pa.date32()),
    "d64": pa.array([v // 10**6 for v in tv], pa.date64()),
    "e_ms": pa.array([v // 10**6 for v in tv], pa.int64()),
    "t_str": pa.array(["1969-12-31T00:00:00Z", "1970-01-01T00:00:00.5Z", "2026-11-29", "2026-11-29T10:00:00+01:00", None, "9999-12-31T23:59:59.999999Z"]),
})
times_schema = tschema("ts", ["host"], [(c, "timestamptz", False) for c in ["t_ms", "t_us", "t_ns", "d32", "d64", "e_ms", "t_str"]])
order_t = [("ts", "timestamptz"), ("host", "string")] + [(c["name"], "timestamptz") for c in times_schema["columns"]]
case("time types", write("times.arrows", times_tbl), times_schema, expect(times_tbl, order_t))

# --- dictionaries -----------------------------------------------------------------
def dict_batches(index_type):
    out = []
    for k, hosts in enumerate([["a", "b", "a", None], ["b", "c", "c", "a"], ["d", "a", None, "e"]]):
        out.append(pa.record_batch({
            "ts": pa.array([base + dt.timedelta(minutes=10 * k + i) for i in range(4)], pa.timestamp("ms", tz="UTC")),
            "host": pa.array(["h"] * 4),
            "zone": pa.array(hosts, pa.string()).dictionary_encode().cast(pa.dictionary(index_type, pa.string())),
            "level": pa.array([k, k, None, k], pa.int64()).dictionary_encode(),
        }))
    return out


def write_batches(name, batches, file=False, **opts):
    path = os.path.join(HERE, name)
    with pa.OSFile(path, "wb") as sink:
        w = (ipc.new_file if file else ipc.new_stream)(sink, batches[0].schema, options=ipc.IpcWriteOptions(**opts))
        for b in batches:
            w.write_batch(b)
        w.close()
    return name


dict_schema = tschema("ts", ["host"], [("zone", "string", False), ("level", "long", False)])
order_d = [("ts", "timestamptz"), ("host", "string"), ("zone", "string"), ("level", "long")]
db = dict_batches(pa.int8())
dict_rows = expect(pa.Table.from_batches(db), order_d)
case("dictionary deltas", write_batches("dict-delta.arrows", db, emit_dictionary_deltas=True), dict_schema, dict_rows)
case("dictionary replacement", write_batches("dict-replace.arrows", db), dict_schema, dict_rows)
db16 = dict_batches(pa.uint16())
case("dictionary uint16 indices", write_batches("dict-u16.arrows", db16, emit_dictionary_deltas=True), dict_schema, expect(pa.Table.from_batches(db16), order_d))
unified = pa.Table.from_batches(db).unify_dictionaries().combine_chunks()
unified = pa.Table.from_batches(unified.to_batches(max_chunksize=4))
case("dictionary file, several batches", write_batches("dict.arrow", unified.to_batches(), file=True), dict_schema, expect(unified, order_d))
case("dictionary zstd", write_batches("dict-zstd.arrows", db, emit_dictionary_deltas=True, compression="zstd"), dict_schema, dict_rows)

# --- columns the reader does not read ------------------------------------------------
nested = pa.table({
    "ts": pa.array([base, base + dt.timedelta(seconds=1)], pa.timestamp("us", tz="UTC")),
    "host": ["a", "b"],
    "lst": pa.array([[1, 2], None], pa.list_(pa.int64())),
    "st": pa.array([{"x": 1, "y": "q"}, None], pa.struct([("x", pa.int32()), ("y", pa.string())])),
    "dec": pa.array([1, 2], pa.decimal128(10, 2)),
    "view": pa.array(["short", "a string longer than twelve bytes"], pa.string_view()),
    "mp": pa.array([[("k", 1)], []], pa.map_(pa.string(), pa.int64())),
    "bin": pa.array([b"\x00", None], pa.binary()),
    "dl": pa.array(["p", "q"]).dictionary_encode(),
    "cpu": [0.5, 1.5],
})
nested_file = write("nested.arrows", nested)
only_cpu = tschema("ts", ["host"], [("cpu", "double", False)])
case("skipped nested columns", nested_file, only_cpu, expect(nested, [("ts", "timestamptz"), ("host", "string"), ("cpu", "double")]), options={"ignoreUnknown": True})
case("unknown column", nested_file, only_cpu, error={"code": "UNKNOWN_COLUMN", "row": 0, "column": "lst"})
case("unsupported type", nested_file, tschema("ts", ["host"], [("cpu", "double", False), ("lst", "long", False)]),
     error={"code": "TYPE_MISMATCH", "row": 0, "column": "lst", "contains": "Arrow type list"}, options={"ignoreUnknown": True})
case("unsupported decimal", nested_file, tschema("ts", ["host"], [("dec", "double", False)]),
     error={"code": "TYPE_MISMATCH", "row": 0, "column": "dec", "contains": "decimal128"}, options={"ignoreUnknown": True})

# --- value errors, with the row and column named -------------------------------------------
def err_file(name, cols):
    return write(name, pa.table(cols))

ts3 = pa.array([base, base, base], pa.timestamp("us", tz="UTC"))
case("uint64 past int64", err_file("err-u64.arrows", {"ts": ts3, "host": ["a"] * 3, "v": pa.array([1, 2, 2**63], pa.uint64())}),
     tschema("ts", ["host"], [("v", "long", False)]), error={"code": "TYPE_MISMATCH", "row": 3, "column": "v"})
case("int32 column overflow", err_file("err-int.arrows", {"ts": ts3, "host": ["a"] * 3, "v": pa.array([1, 2**40, 3], pa.int64())}),
     tschema("ts", ["host"], [("v", "int", False)]), error={"code": "TYPE_MISMATCH", "row": 2, "column": "v"})
case("time past year 9999", err_file("err-time.arrows", {"ts": pa.array([0, 1, 253_402_300_800], pa.timestamp("s")), "host": ["a"] * 3}),
     tschema("ts", ["host"], []), error={"code": "TIME_OUT_OF_RANGE", "row": 3, "column": "ts"})
case("null series value", err_file("err-null.arrows", {"ts": ts3, "host": ["a", None, "c"]}),
     tschema("ts", ["host"], []), error={"code": "MISSING_COLUMN", "row": 2, "column": "host"})
case("text into a long", err_file("err-text.arrows", {"ts": ts3, "host": ["a"] * 3, "v": ["1", "x", "3"]}),
     tschema("ts", ["host"], [("v", "long", False)]), error={"code": "TYPE_MISMATCH", "row": 2, "column": "v"})
case("bool into a double", err_file("err-bool.arrows", {"ts": ts3, "host": ["a"] * 3, "v": [True, False, True]}),
     tschema("ts", ["host"], [("v", "double", False)]), error={"code": "TYPE_MISMATCH", "row": 1, "column": "v"})
case("_ingest_ts given", err_file("err-ingest.arrows", {"ts": ts3, "host": ["a"] * 3, "_ingest_ts": ts3}),
     tschema("ts", ["host"], []), error={"code": "UNKNOWN_COLUMN", "row": 0, "column": "_ingest_ts"})
case("schema only", write("empty.arrows", pa.table({"ts": pa.array([], pa.timestamp("us")), "host": pa.array([], pa.string())})),
     tschema("ts", ["host"], []), error={"code": "EMPTY_INPUT", "row": 0, "column": ""})

# --- the benchmark input: a stream of one 1,000-row batch of 5 columns -------------------------
M = 1000
bench = pa.table({
    "ts": pa.array([1_764_410_400_000 + i * 100 for i in range(M)], pa.timestamp("ms", tz="UTC")),
    "host": [f"host-{i % 50}" for i in range(M)],
    "cpu": [(i % 997) / 7 for i in range(M)],
    "mem": pa.array([i * 1024 for i in range(M)], pa.int64()),
    "note": [f"n{i % 5}" for i in range(M)],
})
bench_file = write("bench.arrows", bench)
batch_len = len(bench.to_batches()[0].serialize())
total = os.path.getsize(os.path.join(HERE, bench_file))
bench_info = {"file": bench_file, "schemaBytes": total - batch_len - 8, "batchBytes": batch_len, "rows": M,
              "table": tschema("ts", ["host"], [("cpu", "double", False), ("mem", "long", False), ("note", "string", False)])}

with open(os.path.join(HERE, "cases.json"), "w") as f:
    # one case per line: small diffs when a fixture changes
    f.write('{"pyarrow": %s, "bench": %s, "cases": [\n' % (json.dumps(pa.__version__), json.dumps(bench_info)))
    f.write(",\n".join(json.dumps(c) for c in cases))
    f.write("\n]}\n")
print(f"{len(cases)} cases")
