"""Changes a Timelake table's schema with pyiceberg, as a user who knows
nothing of Timelake would, and optionally appends rows under the new schema.

    python pyiceberg_evolve.py METADATA_JSON WORKDIR CHANGES_JSON [ROWS_JSON]

CHANGES_JSON is a list of changes, made in one update_schema() commit:
    ["add", NAME, TYPE]       add_column (optional), TYPE long/int/double/float/string/boolean
    ["rename", OLD, NEW]      rename_column
    ["widen", NAME, TYPE]     update_column(NAME, field_type=TYPE): int→long, float→double
    ["optional", NAME]        update_column(NAME, required=False)
    ["drop", NAME]            delete_column
ROWS_JSON, when given, is a list of rows (time columns as microseconds)
appended after the change, with every column of the new schema but
_ingest_ts. The table is registered in a SQLite catalog in WORKDIR; stdout's
last line is the newest metadata file's location (the Go test copies it to
the next v<N>.metadata.json, as the table is storage-only).
"""

import json
import sys

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.types import BooleanType, DoubleType, FloatType, IntegerType, LongType, StringType

TYPES = {"long": LongType(), "int": IntegerType(), "double": DoubleType(), "float": FloatType(),
         "string": StringType(), "boolean": BooleanType()}


def main():
    metadata, work, changes_path = sys.argv[1:4]
    with open(changes_path) as f:
        changes = json.load(f)
    cat = SqlCatalog("t", uri=f"sqlite:///{work}/catalog.db", warehouse=f"file://{work}")
    cat.create_namespace_if_not_exists("db")
    tbl = cat.register_table("db.t", metadata)
    with tbl.update_schema() as u:
        for c in changes:
            op = c[0]
            if op == "add":
                u.add_column(c[1], TYPES[c[2]])
            elif op == "rename":
                u.rename_column(c[1], c[2])
            elif op == "widen":
                u.update_column(c[1], field_type=TYPES[c[2]])
            elif op == "optional":
                u.update_column(c[1], required=False)
            elif op == "drop":
                u.delete_column(c[1])
            else:
                raise ValueError(f"unknown change {c!r}")
    tbl = cat.load_table("db.t")
    if len(sys.argv) > 4:
        with open(sys.argv[4]) as f:
            rows = json.load(f)
        schema = pa.schema([f for f in tbl.schema().as_arrow() if f.name != "_ingest_ts"])
        series = tbl.properties["timelake.series-columns"].split(",")
        # Timelake's series properties name the columns at creation: follow
        # them by field id to the current names, as Timelake does.
        first = tbl.metadata.schemas[0]
        names = [tbl.schema().find_field(first.find_field(s).field_id).name for s in series]
        time = tbl.schema().find_field(first.find_field(tbl.properties["timelake.time-column"]).field_id).name
        rows.sort(key=lambda r: tuple(r[n] for n in names) + (r[time],))  # the table's sort order
        tbl.append(pa.Table.from_pylist(rows, schema=schema))
        tbl = cat.load_table("db.t")
    print(tbl.metadata_location)


if __name__ == "__main__":
    main()
