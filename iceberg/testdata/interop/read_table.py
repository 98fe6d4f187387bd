"""Reads the table Go wrote at argv[1] with pyiceberg and DuckDB; prints what each sees."""
import sys

from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.manifest import ManifestFile, read_manifest_list
from pyiceberg.table import StaticTable

from common import duck, out

table_dir = sys.argv[1]
meta = table_dir + '/metadata/'
io = PyArrowFileIO()
con = duck()
res = {}


def rows(arrow):
    return sorted([[r['host'], r['ts'].isoformat(), r['cpu'], r['mem'], r['ok']] for r in arrow.to_pylist()])


for version in ['v1', 'v2']:
    t = StaticTable.from_metadata(meta + version + '.metadata.json')
    res['pyiceberg_' + version] = rows(t.scan().to_arrow())
    d = con.execute(f"SELECT host, ts, cpu, mem, ok FROM iceberg_scan('{meta}{version}.metadata.json')").fetch_arrow_table()
    res['duckdb_' + version] = rows(d)

t = StaticTable.from_metadata(meta + 'v2.metadata.json')
snap = t.current_snapshot()
res['snapshot_id'] = snap.snapshot_id
manifests = list(read_manifest_list(io.new_input(snap.manifest_list)))
res['pyiceberg_list'] = [{
    'path': m.manifest_path, 'length': m.manifest_length, 'spec_id': m.partition_spec_id,
    'content': int(m.content), 'seq': m.sequence_number, 'min_seq': m.min_sequence_number,
    'added_snapshot_id': m.added_snapshot_id, 'added_files': m.added_files_count,
    'existing_files': m.existing_files_count, 'deleted_files': m.deleted_files_count,
    'added_rows': m.added_rows_count,
    'partitions': [[p.contains_null, p.contains_nan, p.lower_bound, p.upper_bound] for p in m.partitions or []],
} for m in manifests]
entries = []
for m in manifests:
    for e in m.fetch_manifest_entry(io, discard_deleted=False):
        f = e.data_file
        entries.append({
            'status': int(e.status), 'snapshot_id': e.snapshot_id, 'seq': e.sequence_number,
            'file_seq': e.file_sequence_number, 'path': f.file_path, 'format': str(f.file_format.name),
            'partition': f.partition[0], 'records': f.record_count, 'size': f.file_size_in_bytes,
            'value_counts': f.value_counts, 'null_counts': f.null_value_counts,
            'lower': f.lower_bounds, 'upper': f.upper_bounds, 'sort_order_id': f.sort_order_id,
            'split_offsets': f.split_offsets,
        })
res['pyiceberg_entries'] = sorted(entries, key=lambda e: e['path'])
res['duckdb_list'] = con.execute(
    f"SELECT manifest_path, added_snapshot_id, sequence_number, added_files_count FROM read_avro('{snap.manifest_list}')").fetchall()
res['duckdb_manifest'] = sorted(con.execute(
    f"SELECT status, snapshot_id, sequence_number, data_file.file_path, data_file.record_count, data_file.partition "
    f"FROM read_avro('{manifests[0].manifest_path}')").fetchall(), key=lambda r: r[3])
out(res)
