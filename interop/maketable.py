"""Writes small reference files with pyiceberg and pyarrow, to validate the readers.

    python maketable.py [--plain-paths] OUTDIR
                                            an Iceberg table, see below; its locations
                                            are file:// URIs, or absolute paths with
                                            --plain-paths
    python maketable.py --parquet FILE      one Parquet file with a known page layout:
        10,000 rows (ts, host, cpu, mem with field ids 1-4), row groups of 6,000
        rows, pages of at most 1,000 rows, data page v2, page index, ZSTD,
        DELTA_BINARY_PACKED for ts and mem, a dictionary for host, sorting
        columns (host, ts)

OUTDIR/warehouse/ gets a table `db.metrics` (a SQLite catalog beside it) with

    ts      timestamptz, required     the time column, partitioned by day(ts)
    host    string, required          the series column
    cpu     double, nullable          some nulls
    mem     long, nullable            some nulls
    ok      boolean

written by three appends over three days (the second append touches two days,
so one day holds files of two appends). Stdout: one JSON object

    {"versions": [{"metadata": PATH, "files": N, "expected": SUMMARY,
                   "expected_filtered": SUMMARY, "expected_bounds": SUMMARY}, ...],
     "time": "ts", "series": ["host"], "sums": ["cpu", "mem"],
     "from_us": F, "to_us": T, "bounds_from_us": BF, "bounds_to_us": BT}

one entry per metadata file (the empty table first), where SUMMARY is what
readers.py prints, computed by pyarrow from the rows appended so far, and
planned_files the data files whose rows meet the range. expected_filtered is
for [F, T), one whole day: partition pruning alone gives its file count.
expected_bounds is for [BF, BT), one hour of that day where only one of its
two files has rows: only pruning by column bounds gives its file count.
"""

import argparse
import datetime
import json
import os
import sys

import pyarrow as pa
import pyarrow.compute as pc
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import DayTransform
from pyiceberg.types import BooleanType, DoubleType, LongType, NestedField, StringType, TimestamptzType

from readers import summarize_arrow

DAY_US = 86_400_000_000
DAY0 = int(datetime.datetime(2026, 11, 27, tzinfo=datetime.timezone.utc).timestamp()) * 1_000_000

SCHEMA = Schema(
    NestedField(1, "ts", TimestamptzType(), required=True),
    NestedField(2, "host", StringType(), required=True),
    NestedField(3, "cpu", DoubleType(), required=False),
    NestedField(4, "mem", LongType(), required=False),
    NestedField(5, "ok", BooleanType(), required=True),
)
SPEC = PartitionSpec(PartitionField(source_id=1, field_id=1000, transform=DayTransform(), name="ts_day"))

ARROW_SCHEMA = pa.schema([
    pa.field("ts", pa.timestamp("us", tz="UTC"), nullable=False),
    pa.field("host", pa.string(), nullable=False),
    pa.field("cpu", pa.float64()),
    pa.field("mem", pa.int64()),
    pa.field("ok", pa.bool_(), nullable=False),
])


def batch(seed, days, hosts, per_host):
    """Rows for hosts × days × per_host points, deterministic from seed."""
    cols = {n: [] for n in ARROW_SCHEMA.names}
    i = 0
    for d in days:
        for h in range(hosts):
            for k in range(per_host):
                i += 1
                cols["ts"].append(DAY0 + d * DAY_US + k * 3_600_000_000 + h * 1_000 + seed)
                cols["host"].append(f"host-{h:03d}")
                cols["cpu"].append(None if i % 7 == 0 else (i * 37 % 1000) / 8 + seed)
                # large longs so an int64 sum would lose digits as a double
                cols["mem"].append(None if i % 11 == 0 else (1 << 53) + i * 1_000_003 + seed)
                cols["ok"].append(i % 3 == 0)
    cols["ts"] = pa.array(cols["ts"], pa.int64()).cast(pa.timestamp("us", tz="UTC"))
    return pa.table(cols, schema=ARROW_SCHEMA)


def write_parquet(path):
    import pyarrow.parquet as pq
    fields = [pa.field("ts", pa.timestamp("us", tz="UTC"), nullable=False), pa.field("host", pa.string(), nullable=False),
              pa.field("cpu", pa.float64()), pa.field("mem", pa.int64())]
    schema = pa.schema([f.with_metadata({"PARQUET:field_id": str(i + 1)}) for i, f in enumerate(fields)])
    n = 10_000
    t = pa.table({
        "ts": pa.array([DAY0 + i * 1_000_000 for i in range(n)], pa.int64()).cast(pa.timestamp("us", tz="UTC")),
        "host": [f"host-{i // 2500}" for i in range(n)],
        "cpu": [None if i % 10 == 0 else i / 4 for i in range(n)],
        "mem": list(range(n)),
    }, schema=schema)
    pq.write_table(t, path, row_group_size=6_000, max_rows_per_page=1_000, data_page_version="2.0",
                   write_page_index=True, compression="zstd", use_dictionary=["host"],
                   column_encoding={"ts": "DELTA_BINARY_PACKED", "mem": "DELTA_BINARY_PACKED"},
                   sorting_columns=[pq.SortingColumn(1), pq.SortingColumn(0)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--parquet", metavar="FILE")
    ap.add_argument("--plain-paths", action="store_true")
    ap.add_argument("outdir", nargs="?")
    args = ap.parse_args()
    if args.parquet:
        write_parquet(args.parquet)
        return
    if not args.outdir:
        ap.error("OUTDIR is required")
    out = os.path.abspath(args.outdir)
    os.makedirs(out + "/warehouse", exist_ok=True)
    warehouse = f"{out}/warehouse" if args.plain_paths else f"file://{out}/warehouse"
    cat = SqlCatalog("ref", uri=f"sqlite:///{out}/catalog.db", warehouse=warehouse)
    cat.create_namespace("db")
    tbl = cat.create_table("db.metrics", schema=SCHEMA, partition_spec=SPEC)

    appends = [batch(1, [0], 20, 6), batch(2, [1, 2], 30, 4), batch(3, [1], 25, 5)]
    day1 = DAY0 + DAY_US
    q = {"time": "ts", "series": ["host"], "sums": ["cpu", "mem"], "from_us": day1, "to_us": day1 + DAY_US,
         # within day 1, after the last row of append 2: only column bounds prune append 2's file
         "bounds_from_us": day1 + 4 * 3_600_000_000 - 1_000_000, "bounds_to_us": day1 + 5 * 3_600_000_000}
    versions = []
    written = []

    def files_overlapping(lo, hi):
        """Data files whose rows meet [lo, hi): pyiceberg writes one file per
        append and day here, so each file's time range is known from the input."""
        n = 0
        for a in written:
            ts = a["ts"].cast(pa.int64()).to_pylist()
            for d in sorted({t // DAY_US for t in ts}):
                in_day = [t for t in ts if t // DAY_US == d]
                n += min(in_day) < hi and max(in_day) >= lo
        return n

    def record():
        rows = pa.concat_tables(written) if written else ARROW_SCHEMA.empty_table()
        ts = rows["ts"].cast(pa.int64())
        v = {"metadata": tbl.metadata_location.removeprefix("file://")}
        v["files"] = len(tbl.inspect.files()) if tbl.current_snapshot() else 0
        if v["files"] != files_overlapping(-2**63, 2**63 - 1):
            raise RuntimeError(f"pyiceberg wrote {v['files']} files, not one per append and day")
        for key, lo, hi in [("expected", None, None), ("expected_filtered", q["from_us"], q["to_us"]),
                            ("expected_bounds", q["bounds_from_us"], q["bounds_to_us"])]:
            sel = rows if lo is None else rows.filter(pc.and_(pc.greater_equal(ts, lo), pc.less(ts, hi)))
            v[key] = summarize_arrow(sel, q["time"], q["series"], q["sums"])
            v[key]["planned_files"] = v["files"] if lo is None else files_overlapping(lo, hi)
        versions.append(v)

    record()
    for a in appends:
        tbl.append(a)
        written.append(a)
        record()
    json.dump(dict(q, versions=versions), sys.stdout)
    print()


if __name__ == "__main__":
    main()
