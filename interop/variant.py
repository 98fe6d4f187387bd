"""DuckDB (1.5) and Timelake's variant columns.

    variant.py compare SOURCE KEY COL EXPECTED.json
        reads column COL of SOURCE (iceberg:METADATA.json, DuckDB's
        iceberg_scan, or parquet:FILE, its read_parquet) with DuckDB's
        VARIANT, and compares every row's value, by the SQL expression KEY,
        with EXPECTED.json: {"key": [JSON text or null, variant_typeof or
        null]}. Numbers compare by value (DuckDB gives a decimal or a
        double, JSON text its digits), booleans as booleans. Prints
        {"rows": N, "mismatches": [...]}.
    variant.py write-table-file OUT.parquet
        writes a data file for a Timelake table (ts timestamptz, host string,
        v variant, _ingest_ts; field ids 1 to 4) as another engine would add
        it: rows of 2026-11-28 from 06:00, one per minute, host "d", v values
        of DuckDB's types (shredded).
    variant.py write-fixture OUT.parquet
        writes the fixture of TestReadVariantDuckDB with DuckDB's COPY: a
        variant column of every primitive type, objects and arrays, nulls
        (DuckDB shreds what it writes: typed_value columns beside value).
"""

import base64
import datetime
import json
import sys
import uuid
from decimal import Decimal

import readers


def norm(x):
    """x made comparable: numbers as Decimals, the types JSON lacks as the
    strings Timelake prints (docs/decisions/variant.md)."""
    if isinstance(x, datetime.datetime):
        if x.tzinfo is not None:
            return x.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        return x.strftime("%Y-%m-%dT%H:%M:%S.%f")
    if isinstance(x, datetime.date):
        return x.isoformat()
    if isinstance(x, datetime.time):
        return x.strftime("%H:%M:%S.%f")
    if isinstance(x, uuid.UUID):
        return str(x)
    if isinstance(x, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(x)).decode()
    if isinstance(x, bool):
        return ("bool", x)
    if isinstance(x, dict):
        return {k: norm(v) for k, v in x.items()}
    if isinstance(x, list):
        return [norm(v) for v in x]
    if isinstance(x, float):
        return Decimal(repr(x)) if x == x and abs(x) != float("inf") else ("float", repr(x))
    if isinstance(x, (int, Decimal)):
        return Decimal(x)
    return x


def compare(source, key, col, expected_path):
    kind, _, path = source.partition(":")
    scan = {"iceberg": "iceberg_scan", "parquet": "read_parquet"}[kind]
    c = readers.duckdb_connect()
    # col "s.v": field v of struct column s
    name, _, field = col.partition(".")
    expr = readers.sql_id(name)
    if field:
        expr = f"struct_extract({expr}, {readers.sql_str(field)})"
    q = (f"SELECT ({key})::VARCHAR, {expr}, variant_typeof({expr}), "
         f"{expr} IS NULL FROM {scan}({readers.sql_str(path)})")
    with open(expected_path) as f:
        expected = json.load(f)
    rows = c.execute(q).fetchall()
    bad = []
    for k, v, typ, null in rows:
        want = expected.get(k)
        if want is None:
            bad.append({"key": k, "error": "no such row expected"})
            continue
        text, want_type = want
        if text is None:
            if not null:
                bad.append({"key": k, "got": repr(v), "want": "SQL NULL"})
            continue
        if norm(v) != norm(json.loads(text, parse_float=Decimal)) or (want_type and typ != want_type):
            bad.append({"key": k, "got": repr(v), "got_type": typ, "want": text, "want_type": want_type})
    return {"rows": len(rows), "mismatches": bad}


def write_fixture(out):
    c = readers.duckdb_connect([])
    c.execute(f"""COPY (SELECT * FROM (VALUES
        (1, '{{"a":1,"b":[1.5,"x",null],"c":{{"d":true}}}}'::JSON::VARIANT),
        (2, NULL),
        (3, 'null'::JSON::VARIANT),
        (4, DATE '2024-03-01'::VARIANT),
        (5, TIMESTAMP '2024-03-01 12:00:00.123456'::VARIANT),
        (6, TIMESTAMPTZ '2024-03-01 12:00:00.5+00'::VARIANT),
        (7, 'f24f9b64-81fa-49d1-b74e-8c09a6e31c56'::UUID::VARIANT),
        (8, '\\x01\\x02\\x03'::BLOB::VARIANT),
        (9, 12.340::DECIMAL(5,3)::VARIANT),
        (10, 1.5::FLOAT::VARIANT),
        (11, 2.25::DOUBLE::VARIANT),
        (12, TIME '13:46:40.25'::VARIANT),
        (13, {{'k': [1, 2], 'z': {{'y': 'deep'}}}}::VARIANT),
        (14, 123456789012::BIGINT::VARIANT),
        (15, repeat('x', 70)::VARIANT),
        (16, 'short'::VARIANT),
        (17, -7::TINYINT::VARIANT),
        (18, 300::SMALLINT::VARIANT),
        (19, '[]'::JSON::VARIANT),
        (20, '{{}}'::JSON::VARIANT)
    ) t(id, v)) TO {readers.sql_str(out)} (FORMAT parquet, FIELD_IDS {{id: 1, v: 2}})""")


def write_table_file(out):
    c = readers.duckdb_connect([])
    c.execute(f"""COPY (SELECT TIMESTAMPTZ '2026-11-28 06:00:00+00' + to_minutes(id) AS ts, 'd' AS host, v,
        NULL::TIMESTAMPTZ AS _ingest_ts FROM (VALUES
        (0, '{{"a":1,"b":[1.5,"x",null]}}'::JSON::VARIANT),
        (1, DATE '2024-03-01'::VARIANT),
        (2, 12.340::DECIMAL(5,3)::VARIANT),
        (3, NULL),
        (4, {{'a': 2, 'c': 'y'}}::VARIANT),
        (5, 'text'::VARIANT)
    ) t(id, v)) TO {readers.sql_str(out)} (FORMAT parquet, FIELD_IDS {{ts: 1, host: 2, v: 3, _ingest_ts: 4}})""")


def main(argv):
    if len(argv) == 5 and argv[0] == "compare":
        print(json.dumps(compare(*argv[1:])))
        return 0
    if len(argv) == 2 and argv[0] == "write-fixture":
        write_fixture(argv[1])
        return 0
    if len(argv) == 2 and argv[0] == "write-table-file":
        write_table_file(argv[1])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
