"""Creates a table with pyiceberg under argv[1], appends twice, and prints the metadata location
and the data files pyiceberg planned, for the Go reader to compare.

The venv has no SQL driver for pyiceberg's SqlCatalog, so a file-based catalog of a few lines
keeps the current metadata location in memory and writes vN.metadata.json files."""
import datetime as dt
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.catalog.noop import NoopCatalog
from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.serializers import FromInputFile, ToOutputFile
from pyiceberg.table import CommitTableResponse, Table
from pyiceberg.table.metadata import new_table_metadata
from pyiceberg.table.sorting import UNSORTED_SORT_ORDER
from pyiceberg.table.update import update_table_metadata
from pyiceberg.transforms import DayTransform
from pyiceberg.types import DoubleType, NestedField, StringType, TimestamptzType

from common import out


class FileCatalog(NoopCatalog):
    def __init__(self):
        super().__init__('files')
        self.io = PyArrowFileIO()
        self.tables = {}

    def _write(self, ident, metadata, version):
        loc = f'{metadata.location}/metadata/v{version}.metadata.json'
        ToOutputFile.table_metadata(metadata, self.io.new_output(loc))
        self.tables[ident] = (loc, version)
        return loc

    def create_table(self, identifier, schema, location=None, partition_spec=None, sort_order=UNSORTED_SORT_ORDER, properties={}):
        metadata = new_table_metadata(location=location, schema=schema, partition_spec=partition_spec,
                                      sort_order=sort_order, properties=properties)
        self._write(identifier, metadata, 1)
        return self.load_table(identifier)

    def load_table(self, identifier):
        loc, _ = self.tables[identifier]
        return Table(identifier, metadata=self.io_metadata(loc), metadata_location=loc, io=self.io, catalog=self)

    def io_metadata(self, loc):
        return FromInputFile.table_metadata(self.io.new_input(loc))

    def commit_table(self, table, requirements, updates):
        ident = table.name()
        loc, version = self.tables[ident]
        current = self.io_metadata(loc)
        for r in requirements:
            r.validate(current)
        metadata = update_table_metadata(current, updates, metadata_location=loc)
        new_loc = self._write(ident, metadata, version + 1)
        return CommitTableResponse(metadata=metadata, metadata_location=new_loc)


root = sys.argv[1]
cat = FileCatalog()
schema = Schema(
    NestedField(1, 'ts', TimestamptzType(), required=True),
    NestedField(2, 'host', StringType(), required=True),
    NestedField(3, 'cpu', DoubleType(), required=False),
    identifier_field_ids=[2, 1],
)
spec = PartitionSpec(PartitionField(source_id=1, field_id=1000, transform=DayTransform(), name='ts_day'))
tbl = cat.create_table(('ns', 'm'), schema=schema, location=f'{root}/wh/m', partition_spec=spec)
arrow_schema = pa.schema([
    pa.field('ts', pa.timestamp('us', tz='UTC'), nullable=False),
    pa.field('host', pa.string(), nullable=False),
    pa.field('cpu', pa.float64()),
])
# pyiceberg's own partitioned append needs pyiceberg-core (not in the venv): write one Parquet
# file per day with pyarrow and let pyiceberg add them (it computes stats and partition values).
utc = dt.timezone.utc
for day in [1, 2]:
    ts = [dt.datetime(2026, 11, day, h, tzinfo=utc) for h in range(3)]
    path = f'{root}/wh/m/data/ts_day=2026-11-0{day}/f{day}.parquet'
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pq.write_table(pa.table({'ts': ts, 'host': ['a', 'b', 'c'], 'cpu': [1.5, None, 3.5]}, schema=arrow_schema), path)
    tbl.add_files([path])
tbl = cat.load_table(('ns', 'm'))
files = [{'path': t.file.file_path, 'records': t.file.record_count} for t in tbl.scan().plan_files()]
out({'metadata': tbl.metadata_location, 'files': sorted(files, key=lambda f: f['path'])})
