"""Reads an Arrow IPC stream with pyarrow for arrowipc's writer tests and
prints what pyarrow sees as JSON: the schema (name, type, nullable, field
metadata), the rows of each batch (validated in full) and the rows of the
whole stream read at once.

    .venv/bin/python arrowipc/testdata/readstream.py STREAM

Values: null, true/false, integers and timestamps (as int64 microseconds)
in decimal, floats as the hex of their float64 bits (NaN as "NaN"),
strings as "s:" and the string."""
import json
import math
import struct
import sys

import pyarrow as pa
import pyarrow.ipc as ipc


def cell(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        return format(struct.unpack("<Q", struct.pack("<d", v))[0], "x")
    if isinstance(v, str):
        return "s:" + v
    raise TypeError(type(v))


def table_rows(t):
    cols = []
    for f, col in zip(t.schema, t.columns):
        if pa.types.is_timestamp(f.type):
            col = col.cast(pa.int64())
        cols.append([cell(v) for v in col.to_pylist()])
    return [list(r) for r in zip(*cols)] if cols else []


with open(sys.argv[1], "rb") as f:
    data = f.read()
r = ipc.open_stream(pa.BufferReader(data))
out = {
    "schema": [
        {
            "name": f.name,
            "type": str(f.type),
            "nullable": f.nullable,
            "metadata": {k.decode(): v.decode() for k, v in (f.metadata or {}).items()},
        }
        for f in r.schema
    ],
    "batches": [],
    "rows": [],
}
for b in r:
    b.validate(full=True)
    out["batches"].append(b.num_rows)
    out["rows"] += table_rows(b)
whole = ipc.open_stream(pa.BufferReader(data)).read_all()
whole.validate(full=True)
out["all"] = table_rows(whole)
json.dump(out, sys.stdout)
