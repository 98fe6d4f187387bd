"""Writes the Parquet files the Go test describes on stdin:
[{"path": ..., "rows": [{"ts": micros, "host": ..., "cpu": ..., "mem": ..., "ok": ..., "_ingest_ts": micros}]}]
with Iceberg field ids, and prints [{"path", "size"}]."""
import json
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

from common import out


def fld(name, typ, fid, nullable):
    return pa.field(name, typ, nullable=nullable, metadata={b'PARQUET:field_id': str(fid).encode()})


schema = pa.schema([
    fld('ts', pa.timestamp('us', tz='UTC'), 1, False),
    fld('host', pa.string(), 2, False),
    fld('cpu', pa.float64(), 3, True),
    fld('mem', pa.int64(), 4, True),
    fld('ok', pa.bool_(), 5, True),
    fld('_ingest_ts', pa.timestamp('us', tz='UTC'), 6, False),
])

files = json.load(sys.stdin)
result = []
for f in files:
    cols = {n: [r[n] for r in f['rows']] for n in schema.names}
    table = pa.table({n: pa.array(cols[n], type=schema.field(n).type) for n in schema.names}, schema=schema)
    os.makedirs(os.path.dirname(f['path']), exist_ok=True)
    pq.write_table(table, f['path'])
    result.append({'path': f['path'], 'size': os.path.getsize(f['path'])})
out(result)
