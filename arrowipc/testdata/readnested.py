"""Reads an Arrow IPC stream with pyarrow for arrowipc's nested writer tests
and prints what pyarrow sees as JSON: each field's type text, nullability
and the PARQUET:field_id of every field under it (by path), and each
column's values per row as JSON text in Timelake's form (a struct an object
of its fields, a map an object with its keys as strings, timestamps as
scan prints them, NaN and infinities as strings), after validating every
batch in full.

    .venv/bin/python arrowipc/testdata/readnested.py STREAM
    .venv/bin/python arrowipc/testdata/readnested.py FILE.parquet   (pyarrow's own reading of a Parquet file, alike)"""
import json
import math
import sys

import pyarrow as pa
import pyarrow.ipc as ipc


def untimed(t):
    """t with every timestamp leaf an int64, so that nanoseconds convert."""
    if pa.types.is_timestamp(t):
        return pa.int64()
    if pa.types.is_map(t):
        return pa.map_(pa.field("key", untimed(t.key_type), nullable=False), t.item_field.with_type(untimed(t.item_type)))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        f = t.value_field.with_type(untimed(t.value_type))
        return pa.list_(f) if pa.types.is_list(t) else pa.large_list(f)
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(untimed(t.field(i).type)) for i in range(t.num_fields)])
    return t


def civil(n, digits, zone):
    per = 10**digits
    s, frac = divmod(n, per)
    days, rem = divmod(s, 86400)
    import datetime as dt
    d = dt.date(1970, 1, 1) + dt.timedelta(days=days)
    text = "%04d-%02d-%02dT%02d:%02d:%02d.%0*d" % (d.year, d.month, d.day, rem // 3600, rem // 60 % 60, rem % 60, digits, frac)
    return text + ("Z" if zone else "")


def conv(v, t):
    if v is None:
        return None
    if pa.types.is_timestamp(t):
        return civil(v, 9 if t.unit == "ns" else 6, t.tz is not None)
    if pa.types.is_map(t):
        return {str(key(k, t.key_type)): conv(x, t.item_type) for k, x in v}
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [conv(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {t.field(i).name: conv(v[t.field(i).name], t.field(i).type) for i in range(t.num_fields)}
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return "NaN" if math.isnan(v) else ("+Inf" if v > 0 else "-Inf")
    return v


def key(k, t):
    c = conv(k, t)
    if isinstance(c, bool):
        return "true" if c else "false"
    return c


def ids(f, path, out):
    md = f.metadata or {}
    if b"PARQUET:field_id" in md:
        out[path] = md[b"PARQUET:field_id"].decode()
    t = f.type
    kids = []
    if pa.types.is_map(t):
        kids = [t.key_field, t.item_field]
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        kids = [t.value_field]
    elif pa.types.is_struct(t):
        kids = [t.field(i) for i in range(t.num_fields)]
    for k in kids:
        ids(k, path + "." + k.name, out)
        if not k.nullable:
            out[path + "." + k.name + "!"] = "required"
    return out


if sys.argv[1].endswith(".parquet"):
    import pyarrow.parquet as pq
    t = pq.read_table(sys.argv[1])
    sch, batches = t.schema, t.to_batches()
else:
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    r = ipc.open_stream(pa.BufferReader(data))
    sch, batches = r.schema, r
out = {"schema": [{"name": f.name, "type": str(f.type), "nullable": f.nullable, "ids": ids(f, f.name, {})} for f in sch], "rows": []}
for b in batches:
    b.validate(full=True)
    cols = []
    for f, col in zip(b.schema, b.columns):
        vals = col.cast(untimed(f.type)).to_pylist()
        cols.append([None if v is None else json.dumps(conv(v, f.type), separators=(",", ":"), ensure_ascii=False) for v in vals])
    out["rows"] += [list(x) for x in zip(*cols)]
json.dump(out, sys.stdout)
