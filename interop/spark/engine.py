"""A long-lived Apache Spark engine with Apache Iceberg's Spark runtime.

A Spark session costs ~20 s to start on 2 cores, so a test group starts this
process once and sends it commands: one JSON object per line on stdin, one
JSON answer per line on stdout ({"ok": true, ...} or {"ok": false, "error":
"..."}). Spark's own output (and anything the JVM prints) goes to stderr:
stdout is kept for the answers alone.

    python engine.py --warehouse DIR --jar iceberg-spark-runtime-3.5_2.12-1.10.1.jar [--rest-uri URI [--rest-warehouse W]]

With --rest-uri a third catalog, `rest`, is an Iceberg REST catalog (its
token, if any, from TIMELAKE_CATALOG_TOKEN): rest.ns.t is the catalog's ns.t.

Two Hadoop catalogs name the same directory DIR, so a table whose files are in
DIR/ns/t (metadata/vN.metadata.json + version-hint.text, as Timelake writes
them) is both cat.ns.t and catp.ns.t. They differ in the form of their
warehouse, which Iceberg's Java file layer carries into every location it
writes: `cat` has the URI file:///DIR (Spark then writes file:/DIR/...),
`catp` the plain path DIR (Spark writes /DIR/... for metadata files and
file:/DIR/... for data files). Users configure both. Commands:

    {"op": "sql", "sql": "SELECT ..."}           -> {"rows": [{col: value}]}
    {"op": "summary", "table": "cat.ns.t", "time": "ts", "series": ["host"], "sums": ["cpu", "mem"]}
        -> {"summary": {...}} the figures of interop/readers.py, reader "spark"
    {"op": "latest", "table": ..., "time": ..., "series": [...], "cols": ["cpu", "mem"]}
        -> {"rows": [...]} the row of the greatest time of each series
    {"op": "remove_orphans", "table": "cat.ns.t", "older_than_ms": N}
        -> {"deleted": [locations]} the Java API (SparkActions.deleteOrphanFiles)
    {"op": "files", "table": "cat.ns.t"} -> {"rows": [...]} the files metadata table
    {"op": "df_append", "table": "cat.ns.t", "sql": "SELECT ...", "options": {...}}
        -> {} spark.sql(sql).writeTo(table).options(...).append()
    {"op": "quit"}

Values: timestamps as microseconds since the epoch (int), decimals as strings
(exact), everything else as JSON has it.
"""
import argparse
import datetime
import decimal
import json
import math
import os
import sys
import traceback

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def jsonable(v):
    if isinstance(v, datetime.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=datetime.timezone.utc)  # session time zone is UTC
        d = v - EPOCH
        return (d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if hasattr(v, "asDict"):
        return {k: jsonable(x) for k, x in v.asDict().items()}
    return v


def rows(df):
    return [{k: jsonable(x) for k, x in r.asDict().items()} for r in df.collect()]


def q(name):
    return "`" + name.replace("`", "``") + "`"


def session(warehouse, jar, memory, rest=None):
    from pyspark.sql import SparkSession
    b = (SparkSession.builder.master("local[2]").appName("timelake-engine")
         .config("spark.jars", jar)
         .config("spark.driver.memory", memory)
         .config("spark.driver.host", "127.0.0.1")
         .config("spark.driver.bindAddress", "127.0.0.1")
         .config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.shuffle.partitions", "2")
         .config("spark.default.parallelism", "2")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
         .config("spark.sql.catalog.cat", "org.apache.iceberg.spark.SparkCatalog")
         .config("spark.sql.catalog.cat.type", "hadoop")
         .config("spark.sql.catalog.cat.warehouse", "file://" + warehouse)
         .config("spark.sql.catalog.catp", "org.apache.iceberg.spark.SparkCatalog")
         .config("spark.sql.catalog.catp.type", "hadoop")
         .config("spark.sql.catalog.catp.warehouse", warehouse)
         # Other writers change the tables between commands: never answer
         # from a cached table.
         .config("spark.sql.catalog.cat.cache-enabled", "false")
         .config("spark.sql.catalog.catp.cache-enabled", "false"))
    if rest:
        # An Iceberg REST catalog as `rest`: rest.ns.t is the catalog's ns.t.
        b = (b.config("spark.sql.catalog.rest", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.rest.type", "rest")
             .config("spark.sql.catalog.rest.uri", rest["uri"])
             .config("spark.sql.catalog.rest.cache-enabled", "false"))
        if rest.get("warehouse"):
            b = b.config("spark.sql.catalog.rest.warehouse", rest["warehouse"])
        if rest.get("token"):
            b = b.config("spark.sql.catalog.rest.token", rest["token"])
    s = b.getOrCreate()
    s.sparkContext.setLogLevel("WARN")
    return s


class Engine:
    def __init__(self, spark):
        self.spark = spark
        self.jvm = spark._jvm

    def sql(self, cmd):
        return {"rows": rows(self.spark.sql(cmd["sql"]))}

    def summary(self, cmd):
        from pyspark.sql.types import ByteType, DoubleType, FloatType, IntegerType, LongType, ShortType
        df = self.spark.table(cmd["table"])
        types = {f.name: f.dataType for f in df.schema.fields}
        t, series, sums = cmd["time"], cmd.get("series", []), cmd.get("sums", [])
        ints = (ByteType, ShortType, IntegerType, LongType)
        sel = [f"count(*) AS n", f"min(unix_micros({q(t)})) AS lo", f"max(unix_micros({q(t)})) AS hi",
               (f"count(DISTINCT struct({', '.join(q(s) for s in series)})) AS ds" if series else "0 AS ds")]
        is_int = {}
        for i, c in enumerate(sums):
            if isinstance(types[c], ints):
                is_int[c] = True
                # exact at any size: a long sum in Spark overflows silently
                sel.append(f"CAST(sum(CAST({q(c)} AS DECIMAL(38,0))) AS STRING) AS s{i}")
            elif isinstance(types[c], (FloatType, DoubleType)):
                is_int[c] = False
                sel.append(f"sum(CAST({q(c)} AS DOUBLE)) AS s{i}")
            else:
                raise ValueError(f"column {c!r} to sum has type {types[c]}; want an integer or float")
            sel.append(f"count({q(c)}) AS c{i}")
        df.createOrReplaceTempView("summary_input")
        r = self.spark.sql(f"SELECT {', '.join(sel)} FROM summary_input").collect()[0]
        out = {"reader": "spark", "rows": r["n"], "sums": {}, "non_null": {}, "distinct_series": r["ds"],
               "min_time_us": r["lo"], "max_time_us": r["hi"], "planned_files": -1, "error": ""}
        for i, c in enumerate(sums):
            v = r[f"s{i}"]
            if is_int[c]:
                out["sums"][c] = int(v) if v is not None else 0
            else:
                out["sums"][c] = jsonable(float(v)) if v is not None else 0.0
            out["non_null"][c] = r[f"c{i}"]
        return {"summary": out}

    def latest(self, cmd):
        t, series, cols = cmd["time"], cmd["series"], cmd.get("cols", [])
        df = self.spark.table(cmd["table"])
        df.createOrReplaceTempView("latest_input")
        keys = ", ".join(q(s) for s in series)
        pick = ", ".join([keys, f"unix_micros({q(t)}) AS time_us"] + [q(c) for c in cols])
        sql = (f"SELECT {pick} FROM (SELECT *, row_number() OVER (PARTITION BY {keys} ORDER BY {q(t)} DESC) AS rn "
               f"FROM latest_input) WHERE rn = 1")
        return {"rows": rows(self.spark.sql(sql))}

    def df_append(self, cmd):
        # The DataFrame API (DataFrameWriterV2.append), which resolves columns
        # by name: a user's Spark job that knows only its own columns.
        w = self.spark.sql(cmd["sql"]).writeTo(cmd["table"])
        for k, v in cmd.get("options", {}).items():
            w = w.option(k, v)
        w.append()
        return {}

    def table(self, name):
        return self.jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(self.spark._jsparkSession, name)

    def remove_orphans(self, cmd):
        # The Java API: the SQL procedure is the same action. No minimum age
        # is enforced by the action itself; the cut-off is the caller's.
        actions = self.jvm.org.apache.iceberg.spark.actions.SparkActions.get(self.spark._jsparkSession)
        res = actions.deleteOrphanFiles(self.table(cmd["table"])).olderThan(int(cmd["older_than_ms"])).execute()
        return {"deleted": sorted(str(x) for x in res.orphanFileLocations())}

    def files(self, cmd):
        return {"rows": rows(self.spark.sql(f"SELECT * FROM {cmd['table']}.all_files"))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warehouse", required=True)
    ap.add_argument("--jar", required=True)
    ap.add_argument("--memory", default="1g")
    ap.add_argument("--rest-uri", help="an Iceberg REST catalog, as catalog `rest`")
    ap.add_argument("--rest-warehouse")
    a = ap.parse_args()
    rest = None
    if a.rest_uri:
        # The token comes from the environment, never the command line (ps).
        rest = {"uri": a.rest_uri, "warehouse": a.rest_warehouse, "token": os.environ.get("TIMELAKE_CATALOG_TOKEN")}

    # The answers get the real stdout; fd 1 becomes stderr for Spark, py4j
    # and the JVM (which inherits it).
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    try:
        eng = Engine(session(os.path.abspath(a.warehouse), a.jar, a.memory, rest))
        out.write(json.dumps({"ok": True, "ready": True, "spark": eng.spark.version}) + "\n")
    except Exception as e:
        out.write(json.dumps({"ok": False, "error": f"starting Spark: {e}"}) + "\n")
        return 1
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            cmd = json.loads(line)
            op = cmd.get("op")
            if op == "quit":
                out.write(json.dumps({"ok": True}) + "\n")
                break
            fn = getattr(eng, op, None) if op in ("sql", "summary", "latest", "remove_orphans", "files", "df_append") else None
            if fn is None:
                raise ValueError(f"unknown op {op!r}")
            ans = fn(cmd)
            ans["ok"] = True
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            msg = str(e)
            # py4j errors carry the whole Java stack: keep the first lines.
            ans = {"ok": False, "error": "\n".join(msg.strip().splitlines()[:6])}
        out.write(json.dumps(ans) + "\n")
    eng.spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
