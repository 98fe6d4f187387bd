"""Helpers shared by the interop scripts (run by interop_test.go)."""
import json
from collections.abc import Mapping
import site
import sys

import duckdb


def duck():
    """A DuckDB connection with the avro and iceberg extensions loaded offline."""
    d = site.getsitepackages()[0] + '/duckdb_ext/extensions/v1.4.4/linux_amd64/'
    c = duckdb.connect(config={'allow_unsigned_extensions': 'true', 'autoinstall_known_extensions': 'false'})
    for e in ['avro', 'iceberg']:
        c.execute(f"LOAD '{d}{e}.duckdb_extension'")
    return c


def plain(v):
    """JSON-friendly form of values read by pyarrow / DuckDB / pyiceberg."""
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    if isinstance(v, Mapping):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if hasattr(v, 'isoformat'):
        return v.isoformat()
    if hasattr(v, 'value') and not isinstance(v, (int, float, str, bool)):  # enums
        return v.value
    return v


def out(obj):
    json.dump(plain(obj), sys.stdout, sort_keys=True)
