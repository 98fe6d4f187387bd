"""Outside clients of an Iceberg REST catalog: pyiceberg and DuckDB reading,
writing and maintaining a table through the catalog, not through a metadata
file. Run with the venv python of scripts/pyenv.sh.

    catalogclient.py pyiceberg create  CONN --table NS.T --schema "ts timestamptz required, host string required, cpu double"
    catalogclient.py pyiceberg append  CONN --table NS.T --rows ROWS.ndjson
    catalogclient.py pyiceberg expire  CONN --table NS.T (--older-than-ms MS | --keep-last N)
    catalogclient.py pyiceberg read    CONN --table NS.T --time TS [--series A,B] [--sum X,Y] [--from US --to US] [--latest]
    catalogclient.py duckdb    read    CONN --table NS.T --time TS ...   (as pyiceberg read)
    catalogclient.py duckdb    update  CONN --table NS.T --set "cpu = cpu * 2" --where "host = 'a'"
    catalogclient.py duckdb    delete  CONN --table NS.T --where "cpu < 3"
    catalogclient.py duckdb    create  CONN --table NS.T --columns "ts TIMESTAMPTZ, host VARCHAR, cpu DOUBLE" --rows ROWS.ndjson
        (DuckDB's CREATE TABLE in the catalog, then an INSERT of the rows: a table of DuckDB's own shape)

CONN is --uri http://127.0.0.1:PORT --warehouse W [--token T | --credential ID:SECRET]
[--s3-env]. --token is a bearer token sent as is; --credential does the
OAuth2 client_credentials exchange at URI/v1/oauth/tokens. --s3-env gives the
client the S3 settings of the environment (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY, AWS_REGION; path-style) for an s3:// warehouse;
without it the client gets them from the catalog (vended in the load-table
config) or not at all.

read prints the summary line of readers.py (same fields as cmd/icebergread),
with "reader" "pyiceberg" or "duckdb". Every other command prints one JSON
line: {"ok": true, ...} (rows affected, the new metadata location, ...), or
{"ok": false, "error": ...} with exit status 1.

ROWS.ndjson is JSON Lines, one object per row keyed by column name; a
timestamp/timestamptz column takes integer microseconds since the epoch, a
missing key or null is a null. The rows are built into a pyarrow table with
the table's own Arrow schema (required columns non-nullable) and appended as
one pyiceberg commit.

expire is pyiceberg 0.12's table.maintenance.expire_snapshots(): it has
older_than(datetime) and by_ids() (no keep-last); --keep-last N expires by
id every snapshot but the newest N, skipping the ones pyiceberg protects (the
heads of branches and tags). It commits the metadata change only: pyiceberg
0.12 deletes no files.
"""

import argparse
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import readers  # noqa: E402

DUCKDB_EXTENSIONS = ["httpfs", "avro", "iceberg"]  # httpfs: the REST client and s3://


def s3_env_props():
    return {
        "s3.endpoint": os.environ["AWS_ENDPOINT_URL"],
        "s3.access-key-id": os.environ["AWS_ACCESS_KEY_ID"],
        "s3.secret-access-key": os.environ["AWS_SECRET_ACCESS_KEY"],
        "s3.region": os.environ.get("AWS_REGION", "us-east-1"),
        "s3.path-style-access": "true",
    }


# ---------------------------------------------------------------- pyiceberg

def py_catalog(a):
    from pyiceberg.catalog import load_catalog

    props = {"type": "rest", "uri": a.uri, "warehouse": a.warehouse}
    if a.token:
        props["token"] = a.token
    if a.credential:
        props["credential"] = a.credential
        props["oauth2-server-uri"] = a.uri.rstrip("/") + "/v1/oauth/tokens"
    if a.s3_env:
        props.update(s3_env_props())
    return load_catalog("timelake", **props)


TYPES = {
    "timestamptz": "TimestamptzType", "timestamp": "TimestampType", "string": "StringType",
    "double": "DoubleType", "float": "FloatType", "long": "LongType", "int": "IntegerType",
    "boolean": "BooleanType",
}


def parse_schema(text):
    import pyiceberg.types as T
    from pyiceberg.schema import Schema

    fields = []
    for i, part in enumerate(p.strip() for p in text.split(",") if p.strip()):
        words = part.split()
        if len(words) not in (2, 3) or words[1] not in TYPES or (len(words) == 3 and words[2] != "required"):
            raise ValueError(f"schema field {part!r}: want 'NAME TYPE [required]', TYPE one of {sorted(TYPES)}")
        fields.append(T.NestedField(i + 1, words[0], getattr(T, TYPES[words[1]])(), required=len(words) == 3))
    return Schema(*fields)


def py_create(a):
    cat = py_catalog(a)
    ns = a.table.rsplit(".", 1)[0]
    cat.create_namespace_if_not_exists(ns)
    t = cat.create_table(a.table, schema=parse_schema(a.schema))
    return {"ok": True, "metadata_location": t.metadata_location, "location": t.location()}


def rows_table(tbl, path):
    import pyarrow as pa

    schema = tbl.schema().as_arrow()
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    cols = []
    for field in schema:
        vals = [r.get(field.name) for r in rows]
        if pa.types.is_timestamp(field.type):
            col = pa.array(vals, pa.int64()).cast(pa.timestamp("us", tz=field.type.tz))
            col = col.cast(field.type)
        else:
            col = pa.array(vals, field.type)
        cols.append(col)
    return pa.Table.from_arrays(cols, schema=schema)


def py_append(a):
    tbl = py_catalog(a).load_table(a.table)
    data = rows_table(tbl, a.rows)
    tbl.append(data)
    snap = tbl.current_snapshot()
    return {"ok": True, "rows": data.num_rows, "snapshot_id": snap.snapshot_id if snap else None,
            "metadata_location": tbl.metadata_location}


def py_expire(a):
    tbl = py_catalog(a).load_table(a.table)
    before = len(tbl.metadata.snapshots)
    exp = tbl.maintenance.expire_snapshots()
    if a.older_than_ms is not None:
        exp = exp.older_than(datetime.datetime.fromtimestamp(a.older_than_ms / 1000, tz=datetime.timezone.utc))
    else:
        protected = {ref.snapshot_id for ref in tbl.metadata.refs.values()}
        snaps = sorted(tbl.metadata.snapshots, key=lambda s: (s.timestamp_ms, s.sequence_number or 0))
        old = [s.snapshot_id for s in snaps[:max(0, len(snaps) - a.keep_last)] if s.snapshot_id not in protected]
        if not old:
            return {"ok": True, "expired": 0, "snapshots": before, "metadata_location": tbl.metadata_location}
        exp = exp.by_ids(old)
    exp.commit()
    tbl = py_catalog(a).load_table(a.table)
    after = len(tbl.metadata.snapshots)
    return {"ok": True, "expired": before - after, "snapshots": after, "metadata_location": tbl.metadata_location}


def py_read(a):
    tbl = py_catalog(a).load_table(a.table)
    return readers.pyiceberg_table_summary(tbl, a)


# ---------------------------------------------------------------- DuckDB

def duck_attach(a):
    readers.DUCKDB_EXTENSIONS = DUCKDB_EXTENSIONS
    c = readers.duckdb_connect()
    # READ_ONLY false: DuckDB attaches a remote path (an s3:// warehouse)
    # read-only unless told otherwise; a file:// one is read-write anyway.
    opts = ["TYPE iceberg", f"ENDPOINT {readers.sql_str(a.uri)}", "READ_ONLY false"]
    if a.token:
        c.execute(f"CREATE SECRET timelake_catalog (TYPE iceberg, TOKEN {readers.sql_str(a.token)})")
        opts.append("SECRET timelake_catalog")
    elif a.credential:
        cid, secret = a.credential.split(":", 1)
        c.execute(f"CREATE SECRET timelake_catalog (TYPE iceberg, CLIENT_ID {readers.sql_str(cid)}, "
                  f"CLIENT_SECRET {readers.sql_str(secret)}, "
                  f"OAUTH2_SERVER_URI {readers.sql_str(a.uri.rstrip('/') + '/v1/oauth/tokens')})")
        opts.append("SECRET timelake_catalog")
    else:
        opts.append("AUTHORIZATION_TYPE 'none'")
    if a.s3_env:
        p = s3_env_props()
        endpoint = p["s3.endpoint"]
        ssl = endpoint.startswith("https://")
        endpoint = endpoint.split("://", 1)[-1]
        c.execute(f"CREATE SECRET timelake_s3 (TYPE s3, KEY_ID {readers.sql_str(p['s3.access-key-id'])}, "
                  f"SECRET {readers.sql_str(p['s3.secret-access-key'])}, REGION {readers.sql_str(p['s3.region'])}, "
                  f"ENDPOINT {readers.sql_str(endpoint)}, URL_STYLE 'path', USE_SSL {str(ssl).lower()})")
    c.execute(f"ATTACH {readers.sql_str(a.warehouse)} AS cat ({', '.join(opts)})")
    return c


def duck_name(a):
    ns, t = a.table.rsplit(".", 1)
    return f"cat.{readers.sql_id(ns)}.{readers.sql_id(t)}"


def duck_read(a):
    c = duck_attach(a)
    return readers.duckdb_summary(c, None, a, scan=duck_name(a))


def duck_change(a, sql):
    c = duck_attach(a)
    n = c.execute(sql).fetchall()
    return {"ok": True, "rows": n[0][0] if n and n[0] else None}


def duck_update(a):
    return duck_change(a, f"UPDATE {duck_name(a)} SET {a.set} WHERE {a.where}")


def duck_delete(a):
    return duck_change(a, f"DELETE FROM {duck_name(a)} WHERE {a.where}")


def duck_create(a):
    c = duck_attach(a)
    ns = a.table.rsplit(".", 1)[0]
    c.execute(f"CREATE SCHEMA IF NOT EXISTS cat.{readers.sql_id(ns)}")
    c.execute(f"CREATE TABLE {duck_name(a)} ({a.columns})")
    # DuckDB inserts whole rows only (no column list): values in the
    # table's column order, a missing key as NULL.
    cols = [c.strip().split()[0] for c in a.columns.split(",")]
    n = 0
    with open(a.rows) as f:
        for line in f:
            r = json.loads(line)
            vals = []
            for k in cols:
                v = r.get(k)
                if v is None:
                    vals.append("NULL")
                elif k == "ts":  # integer microseconds
                    vals.append(f"make_timestamptz({int(v)})")
                elif isinstance(v, str):
                    vals.append(readers.sql_str(v))
                else:
                    vals.append(repr(v))
            c.execute(f"INSERT INTO {duck_name(a)} VALUES ({', '.join(vals)})")
            n += 1
    return {"ok": True, "rows": n}


# ---------------------------------------------------------------- main

COMMANDS = {
    ("pyiceberg", "create"): py_create, ("pyiceberg", "append"): py_append,
    ("pyiceberg", "expire"): py_expire, ("pyiceberg", "read"): py_read,
    ("duckdb", "read"): duck_read, ("duckdb", "update"): duck_update, ("duckdb", "delete"): duck_delete,
    ("duckdb", "create"): duck_create,
}


def main(argv):
    if len(argv) < 3 or (argv[1], argv[2]) not in COMMANDS:
        print(__doc__, file=sys.stderr)
        return 2
    client, cmd = argv[1], argv[2]
    ap = argparse.ArgumentParser(prog=f"catalogclient.py {client} {cmd}")
    ap.add_argument("--uri", required=True)
    ap.add_argument("--warehouse", required=True)
    ap.add_argument("--token", default="")
    ap.add_argument("--credential", default="", help="ID:SECRET for the client_credentials exchange")
    ap.add_argument("--s3-env", action="store_true")
    ap.add_argument("--table", required=True)
    if cmd == "read":
        ap.add_argument("--time", required=True)
        ap.add_argument("--series", default="")
        ap.add_argument("--sum", dest="sums", default="")
        ap.add_argument("--from", dest="from_us", type=int)
        ap.add_argument("--to", dest="to_us", type=int)
        ap.add_argument("--latest", action="store_true")
    elif cmd == "create" and client == "pyiceberg":
        ap.add_argument("--schema", required=True)
    elif cmd == "append":
        ap.add_argument("--rows", required=True)
    elif cmd == "expire":
        g = ap.add_mutually_exclusive_group(required=True)
        g.add_argument("--older-than-ms", type=int)
        g.add_argument("--keep-last", type=int)
    elif cmd == "update":
        ap.add_argument("--set", required=True)
        ap.add_argument("--where", required=True)
    elif cmd == "delete":
        ap.add_argument("--where", required=True)
    elif cmd == "create" and client == "duckdb":
        ap.add_argument("--columns", required=True)
        ap.add_argument("--rows", required=True)
    a = ap.parse_args(argv[3:])
    if "." not in a.table:
        ap.error("--table wants NS.T")
    if cmd == "read":
        a.series = [s for s in a.series.split(",") if s]
        a.sums = [s for s in a.sums.split(",") if s]
        if (a.from_us is None) != (a.to_us is None):
            ap.error("--from and --to go together")
        a.filtered = a.from_us is not None
    try:
        out = COMMANDS[(client, cmd)](a)
    except Exception as e:
        msg = f"{client} {cmd} {a.table}: {type(e).__name__}: {e}"
        if cmd == "read":
            out = readers.empty_summary(client, a.sums)
            out["error"] = msg
        else:
            out = {"ok": False, "error": msg}
        print(json.dumps(out, allow_nan=False), flush=True)
        return 1
    print(json.dumps(out, allow_nan=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
