"""The reference answer of `timelake scan`, computed by DuckDB.

    scanref.py METADATA.json [--from TIME] [--to TIME] [--series COL=V[,V...]]...
               [--columns C,...] [--as-of SNAPSHOT|TIME] [--raw] [--limit N]
    scanref.py --serve      one query per stdin line, one answer per stdout line

The one-shot form prints the rows as `timelake scan --format ndjson` does: one
JSON object per row, sorted by (series..., time). --serve reads JSON lines
{"metadata": PATH, "args": [FLAG, ...]} (the flags as above) and answers each
with one JSON line {"lines": [ROW, ...], "error": ""}, ROW being the ndjson
line the one-shot form would print; a process answers many queries, and the
scan of a (metadata file, snapshot) is read once and kept.

How the answer is made
- Rows: DuckDB's iceberg_scan of the snapshot (snapshot_from_id; the current
  one by default), which applies position deletes, with its `filename`
  virtual column (the data file's path as the manifest has it) and
  `file_row_number`.
- Data sequence numbers: iceberg_scan does not expose them, and
  iceberg_metadata() gives only each entry's *manifest's* sequence number,
  which is not the file's once manifests are merged (an EXISTING entry keeps
  its own). So they are read with DuckDB's avro extension from the
  snapshot's manifest list (read_avro: manifest_path, sequence_number) and
  each data manifest (read_avro: status, sequence_number,
  data_file.file_path): a file's data sequence number is its entry's
  sequence_number, or, when null (an ADDED entry inheriting), the manifest's
  sequence_number from the manifest list (the Iceberg spec's inheritance).
  DELETED entries are left out. The rows are joined to it on filename =
  data_file.file_path.
- Dedup (unless --raw), README "Duplicates" / rows.Winner, in SQL:
    1. per key (series..., time) and per "has _ingest_ts", the first row of
       ORDER BY _ingest_ts DESC NULLS LAST, seq DESC — W, the best row with
       _ingest_ts, and N, the row without it of the greatest sequence number;
    2. of those (at most two per key), the first of ORDER BY seq DESC,
       (_ingest_ts IS NOT NULL) DESC: N wins only when its sequence number is
       greater than W's.
  A table without an _ingest_ts column ranks every row by sequence number.
  Complete ties (same _ingest_ts, or both null, and the same sequence
  number: possible only within one commit, which Timelake itself dedups)
  are broken by the greater filename, then the greater file_row_number;
  rows.Winner keeps "the last" of its own order there, so the differential
  test must not make such ties.
- Filters: time from <= t < to (microseconds), series IN lists (several
  --series on one column intersect), then ORDER BY series..., time and
  LIMIT. --raw keeps every row; rows of one key are then ordered by sequence
  number, filename, file_row_number (the scan need not agree on that order,
  so the test compares a key's raw rows as a multiset).
- --as-of: all digits above 10^12 is a snapshot id; else a time (append's
  rules; all digits: epoch milliseconds), the snapshot of the last
  snapshot-log entry at or before it (README "The CLI", `scan`).
- Output as `timelake scan --format ndjson` writes it (cmd/timelake/scan.go):
  times (timestamptz) RFC 3339 UTC with six fractional digits, longs exact,
  doubles and floats as Go's strconv.FormatFloat(v, 'g', -1, bits)
  (shortest digits; the exponent form when the decimal exponent is below -4
  or 6 and more: 1.234567e+06, 1e+06, 4.2637839168671364e+20, but 123456.5;
  README only says "JSON numbers", Go's encoding/json would differ),
  NaN/Infinity/-Infinity as strings, null, true/false, strings as JSON with
  non-ASCII as is and <, >, &, U+2028, U+2029 escaped, as Go's
  json.Marshal writes them. Columns in schema order: with --columns, the listed
  ones plus the time and series columns, which are always there; else every
  column but _ingest_ts.
"""

import argparse
import datetime
import decimal
import json
import math
import os
import re
import site
import struct
import sys

DUCKDB_EXTENSIONS = ["avro", "iceberg"]


def duckdb_connect():
    import duckdb
    d = os.path.join(site.getsitepackages()[0], "duckdb_ext", "extensions", f"v{duckdb.__version__}", "linux_amd64")
    c = duckdb.connect(config={"allow_unsigned_extensions": "true", "autoinstall_known_extensions": "false"})
    for e in DUCKDB_EXTENSIONS:
        c.execute(f"LOAD '{d}/{e}.duckdb_extension'")
    return c


class QueryError(Exception):
    pass


# ---------------------------------------------------------------- parsing

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
TIME_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?"
                     r"(Z|z|[+-]\d{2}:?\d{2})?)?$")


def parse_time(s):
    """A time as the append parses it, in microseconds: RFC 3339 (zone
    optional, UTC; up to 9 fractional digits, floored), a date alone, or an
    integer of epoch milliseconds."""
    s = s.strip()
    if re.fullmatch(r"-?\d+", s):
        return int(s) * 1000
    m = TIME_RE.match(s)
    if not m:
        raise QueryError(f"bad time {s!r}")
    y, mo, d, h, mi, sec, frac, zone = m.groups()
    dt = datetime.datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(sec or 0),
                           tzinfo=datetime.timezone.utc)
    us = (dt - EPOCH) // datetime.timedelta(microseconds=1)
    if frac:
        us += int((frac + "000000")[:6])
    if zone and zone not in ("Z", "z"):
        sign = -1 if zone[0] == "-" else 1
        z = zone[1:].replace(":", "")
        us -= sign * (int(z[:2]) * 60 + int(z[2:])) * 60 * 1_000_000
    return us


def parse_args(argv):
    p = argparse.ArgumentParser(prog="scanref.py")
    p.add_argument("metadata", nargs="?")
    p.add_argument("--serve", action="store_true")
    p.add_argument("--from", dest="from_", default=None)
    p.add_argument("--to", default=None)
    p.add_argument("--series", action="append", default=[])
    p.add_argument("--columns", default=None)
    p.add_argument("--as-of", default=None)
    p.add_argument("--raw", action="store_true")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--format", default="ndjson", choices=["ndjson"])
    p.add_argument("--stats", action="store_true")  # accepted, nothing printed
    return p.parse_args(argv)


# ---------------------------------------------------------------- formatting

def go_str(s):
    """s as Go's json.Marshal writes it: UTF-8 as is, <, >, & and U+2028/9
    escaped as \\u00XX, other control characters as Python writes them."""
    return (json.dumps(s, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


_days = {}


def fmt_time(us):
    d, rest = divmod(us, 86_400_000_000)
    p = _days.get(d)
    if p is None:
        p = _days[d] = (EPOCH + datetime.timedelta(days=d)).strftime('"%Y-%m-%dT')
    s, frac = divmod(rest, 1_000_000)
    h, s = divmod(s, 3600)
    return p + "%02d:%02d:%02d.%06dZ\"" % (h, s // 60, s % 60, frac)


def go_g(f, bits=64):
    """f as Go's strconv.FormatFloat(f, 'g', -1, bits) writes it, which is
    what timelake scan prints (NaN/Infinity quoted, as JSON has none)."""
    if math.isnan(f):
        return '"NaN"'
    if math.isinf(f):
        return '"Infinity"' if f > 0 else '"-Infinity"'
    if bits == 32:
        s = next(c for c in ("%.*g" % (p, f) for p in range(1, 10))
                 if struct.unpack("<f", struct.pack("<f", float(c)))[0] == f)
    else:
        s = repr(f)
    sign, digits, exp = decimal.Decimal(s).normalize().as_tuple()
    neg = "-" if sign else ""
    if f == 0:
        return neg + "0"
    digits = "".join(map(str, digits))
    nd, dp = len(digits), len(digits) + exp  # the point after dp digits
    eprec = 6
    if eprec > nd and nd >= dp:
        eprec = nd
    x = dp - 1
    if x < -4 or x >= eprec:
        mant = digits[0] + ("." + digits[1:] if nd > 1 else "")
        return f"{neg}{mant}e{'-' if x < 0 else '+'}{abs(x):02d}"
    if dp <= 0:
        return neg + "0." + "0" * (-dp) + digits
    if dp >= nd:
        return neg + digits + "0" * (dp - nd)
    return neg + digits[:dp] + "." + digits[dp:]


def fmt_double(v):
    # the fast path: repr is Go's shortest 'g' form in this range, but for a
    # trailing ".0"
    a = abs(v)
    if 1e-4 <= a < 1e5:
        s = repr(v)
        return s[:-2] if s.endswith(".0") else s
    return go_g(v, 64)


def fmt_value(v, typ):
    if v is None:
        return "null"
    if typ == "timestamptz" or typ == "timestamp":
        return fmt_time(v)
    if typ == "double":
        return fmt_double(v)
    if typ == "float":
        return go_g(v, 32)
    if typ == "boolean":
        return "true" if v else "false"
    if typ in ("long", "int"):
        return str(int(v))
    if typ == "string":
        return go_str(v)
    return json.dumps(v, ensure_ascii=False, default=str)


# ---------------------------------------------------------------- the table

def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def ident(s):
    return '"' + s.replace('"', '""') + '"'


def local(uri):
    return uri[len("file://"):] if uri.startswith("file://") else uri


class Ref:
    def __init__(self):
        self.c = duckdb_connect()
        self.meta = {}    # path -> parsed metadata.json
        self.tables = {}  # (path, snapshot id) -> name of the materialized scan
        self.n = 0

    def metadata(self, path):
        if path not in self.meta:
            with open(path) as f:
                self.meta[path] = json.load(f)
        return self.meta[path]

    def snapshot(self, md, as_of):
        snaps = md.get("snapshots") or []
        if as_of is None:
            sid = md.get("current-snapshot-id")
            if sid is None or sid == -1:
                return None
            return next(s for s in snaps if s["snapshot-id"] == sid)
        if re.fullmatch(r"\d+", as_of) and int(as_of) > 10**12:
            for s in snaps:
                if s["snapshot-id"] == int(as_of):
                    return s
            raise QueryError(f"unknown snapshot {as_of}")
        t = parse_time(as_of)
        # the snapshot current at t: the snapshot log's last entry at or before t
        log = md.get("snapshot-log") or [{"snapshot-id": s["snapshot-id"], "timestamp-ms": s["timestamp-ms"]} for s in snaps]
        best = None
        for e in log:
            if e["timestamp-ms"] * 1000 <= t:
                best = e
        if best is None:
            raise QueryError(f"no snapshot at or before {as_of}")
        for s in snaps:
            if s["snapshot-id"] == best["snapshot-id"]:
                return s
        raise QueryError(f"the snapshot current at {as_of} ({best['snapshot-id']}) is not retained")

    def schema(self, md, snap):
        sid = snap.get("schema-id", md.get("current-schema-id")) if snap else md.get("current-schema-id")
        for s in md["schemas"]:
            if s["schema-id"] == sid:
                return s
        raise QueryError(f"no schema {sid}")

    def file_seqs(self, snap):
        """data file path -> data sequence number, from the snapshot's
        manifest list and data manifests (DuckDB read_avro)."""
        ml = local(snap["manifest-list"])
        manifests = self.c.execute(
            f"SELECT manifest_path, sequence_number FROM read_avro({sql_str(ml)}) WHERE content = 0").fetchall()
        seqs = {}
        for mp, mseq in manifests:
            for path, seq in self.c.execute(
                    f"SELECT data_file.file_path, coalesce(sequence_number, {int(mseq)}) "
                    f"FROM read_avro({sql_str(local(mp))}) WHERE status <> 2").fetchall():
                seqs[path] = seq
        return seqs

    def table(self, path, md, snap, schema):
        key = (path, snap["snapshot-id"])
        if key in self.tables:
            return self.tables[key]
        self.n += 1
        name = f"scan{self.n}"
        seqs = self.file_seqs(snap)
        self.c.execute(f"CREATE TEMP TABLE seq{self.n} (file_path VARCHAR, seq BIGINT)")
        if seqs:
            self.c.executemany(f"INSERT INTO seq{self.n} VALUES (?, ?)", list(seqs.items()))
        cols = []
        for f in schema["fields"]:
            q = ident(f["name"])
            cols.append(f"epoch_us({q}) AS {q}" if f["type"] in ("timestamptz", "timestamp") else q)
        self.c.execute(
            f"CREATE TEMP TABLE {name} AS SELECT {', '.join(cols)}, s.seq AS __seq, "
            f"d.filename AS __file, d.file_row_number AS __row "
            f"FROM iceberg_scan({sql_str(path)}, snapshot_from_id={snap['snapshot-id']}) d "
            f"LEFT JOIN seq{self.n} s ON s.file_path = d.filename")
        missing = self.c.execute(f"SELECT count(*) FROM {name} WHERE __seq IS NULL").fetchone()[0]
        if missing:
            raise QueryError(f"{missing} rows of files not in the snapshot's manifests")
        self.tables[key] = name
        return name

    def query(self, path, a):
        md = self.metadata(path)
        props = md.get("properties", {})
        time_col = props.get("timelake.time-column")
        series = [s for s in props.get("timelake.series-columns", "").split(",") if s]
        if not time_col:
            raise QueryError("no timelake.time-column property")
        snap = self.snapshot(md, a.as_of)
        schema = self.schema(md, snap)
        types = {f["name"]: f["type"] if isinstance(f["type"], str) else "other" for f in schema["fields"]}
        names = [f["name"] for f in schema["fields"]]
        if a.columns is not None:
            want = [c for c in a.columns.split(",") if c]
            for c in want:
                if c not in types:
                    raise QueryError(f"unknown column {c!r}")
            # the time and series columns are always there, all in schema order
            proj = [n for n in names if n in want or n == time_col or n in series]
        else:
            proj = [n for n in names if n != "_ingest_ts"]
        where = []
        if a.from_ is not None:
            where.append(f"{ident(time_col)} >= {parse_time(a.from_)}")
        if a.to is not None:
            where.append(f"{ident(time_col)} < {parse_time(a.to)}")
        for f in a.series:
            col, _, vals = f.partition("=")
            if col not in series:
                raise QueryError(f"{col!r} is not a series column")
            vs = vals.split(",")
            if types[col] in ("long", "int"):
                lits = [str(int(v)) for v in vs]
            else:
                lits = [sql_str(v) for v in vs]
            where.append(f"{ident(col)} IN ({', '.join(lits)})")
        if snap is None:
            return []
        name = self.table(path, md, snap, schema)
        keycols = [ident(s) for s in series] + [ident(time_col)]
        key = ", ".join(keycols)
        src = name
        if not a.raw:
            ing = ident("_ingest_ts") if "_ingest_ts" in types else "NULL"
            src = (f"(SELECT * EXCLUDE (__r2) FROM (SELECT *, row_number() OVER (PARTITION BY {key} "
                   f"ORDER BY __seq DESC, ({ing} IS NOT NULL) DESC, __file DESC, __row DESC) AS __r2 "
                   f"FROM (SELECT * EXCLUDE (__r1) FROM (SELECT *, row_number() OVER (PARTITION BY {key}, ({ing} IS NULL) "
                   f"ORDER BY {ing} DESC NULLS LAST, __seq DESC, __file DESC, __row DESC) AS __r1 FROM {name}) "
                   f"WHERE __r1 = 1)) WHERE __r2 = 1)")
        sql = f"SELECT {', '.join(ident(c) for c in proj)} FROM {src}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY {key}, __seq, __file, __row"
        if a.limit is not None:
            sql += f" LIMIT {int(a.limit)}"
        fmts = []
        for c in proj:
            f = {"timestamptz": fmt_time, "timestamp": fmt_time, "double": fmt_double,
                 "long": str, "int": str}.get(types[c])
            fmts.append((json.dumps(c, ensure_ascii=False) + ":", f, types[c]))
        out = []
        for row in self.c.execute(sql).fetchall():
            out.append("{" + ",".join(k + ("null" if v is None else f(v) if f else fmt_value(v, t))
                                      for (k, f, t), v in zip(fmts, row)) + "}")
        return out


def main():
    a = parse_args(sys.argv[1:])
    ref = Ref()
    if not a.serve:
        if not a.metadata:
            print("scanref.py: a metadata file or --serve", file=sys.stderr)
            return 2
        try:
            for line in ref.query(a.metadata, a):
                print(line)
        except QueryError as e:
            print(f"scanref.py: {e}", file=sys.stderr)
            return 1
        return 0
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            q = json.loads(line)
            qa = parse_args(q.get("args", []))
            res = {"lines": ref.query(q["metadata"], qa), "error": ""}
        except (QueryError, SystemExit, Exception) as e:  # noqa: BLE001 - reported per query
            res = {"lines": [], "error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(res, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
