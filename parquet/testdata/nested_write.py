"""Writes Parquet files with nested columns, as pyarrow (pyiceberg's writer)
makes them: map<string,string>, list<long>, struct<a:long,b:string>,
list<list<long>> and a struct of a list and a map, with every kind of
null and empty value, in data pages v1 and v2, dictionary and plain
encoded (and one in the DELTA encodings and BYTE_STREAM_SPLIT), in
several row groups and pages; and a file with the non-
compliant list element name ("item") older pyarrow wrote. Each field
carries a Parquet field id. expected.json holds each nested column's rows
as the compact JSON text the Go reader must give (null for a null row).

Usage: python nested_write.py OUTDIR   (remakes testdata/nested; run by
hand: ../../.venv/bin/python testdata/nested_write.py testdata/nested)
"""
import json
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def fid(name, typ, i, nullable=True):
    return pa.field(name, typ, nullable=nullable, metadata={b"PARQUET:field_id": str(i).encode()})


def schema(el):
    """The columns, lists' elements named el."""
    return pa.schema([
        fid("ts", pa.int64(), 1, False),
        fid("tags", pa.map_(fid("key", pa.string(), 11, False), fid("value", pa.string(), 12)), 2),
        fid("nums", pa.list_(fid(el, pa.int64(), 13)), 3),
        fid("st", pa.struct([fid("a", pa.int64(), 14), fid("b", pa.string(), 15)]), 4),
        fid("ll", pa.list_(fid(el, pa.list_(fid(el, pa.int64(), 17)), 16)), 5),
        fid("deep", pa.struct([
            fid("xs", pa.list_(fid(el, pa.int64(), 19)), 18),
            fid("m", pa.map_(fid("key", pa.string(), 21, False), fid("value", pa.string(), 22)), 20),
        ]), 6),
    ])


TAGS = [[("host", "a"), ("dc", "x")], [], None, [("k", None)], [("é\n\"q", "v\t")], [("host", "b")]]
NUMS = [[1, 2, 3], [], None, [None, 5], [None], [-(1 << 62)]]
ST = [{"a": 1, "b": "x"}, None, {"a": None, "b": None}, {"a": 3, "b": None}, {"a": None, "b": "ü"}]
LL = [[[1, 2], [], None, [3]], [], None, [[None]], [[4], [5, 6]]]
DEEP = [{"xs": [1], "m": [("a", "b")]}, None, {"xs": None, "m": None}, {"xs": [], "m": []}, {"xs": [None, 2], "m": [("z", None)]}]


def rows(n):
    return {
        "ts": list(range(n)),
        "tags": [TAGS[i % len(TAGS)] for i in range(n)],
        "nums": [NUMS[i % len(NUMS)] for i in range(n)],
        "st": [ST[i % len(ST)] for i in range(n)],
        "ll": [LL[i % len(LL)] for i in range(n)],
        "deep": [DEEP[i % len(DEEP)] for i in range(n)],
    }


def as_json(v, t):
    """The value v of arrow type t as the Go reader renders it: maps as
    objects, in order."""
    if v is None:
        return None
    if pa.types.is_map(t):
        return {k: as_json(x, t.item_type) for k, x in v}
    if pa.types.is_list(t):
        return [as_json(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {f.name: as_json(v[f.name], f.type) for f in t}
    return v


def main(out):
    n = 40
    data = rows(n)
    os.makedirs(out, exist_ok=True)
    variants = {
        "v1_dict": dict(data_page_version="1.0", use_dictionary=True, compression="snappy"),
        "v1_plain": dict(data_page_version="1.0", use_dictionary=False, compression="none"),
        "v2_dict": dict(data_page_version="2.0", use_dictionary=True, compression="zstd"),
        "v2_plain": dict(data_page_version="2.0", use_dictionary=False, compression="zstd"),
        "item_names": dict(data_page_version="1.0", use_dictionary=True, use_compliant_nested_type=False),
        # the DELTA encodings and BYTE_STREAM_SPLIT in nested leaves
        "v2_delta": dict(data_page_version="2.0", use_dictionary=False, compression="gzip", column_encoding={
            "tags.key_value.key": "DELTA_BYTE_ARRAY", "tags.key_value.value": "DELTA_LENGTH_BYTE_ARRAY",
            "nums.list.element": "DELTA_BINARY_PACKED", "st.a": "BYTE_STREAM_SPLIT", "st.b": "DELTA_BYTE_ARRAY",
            "ll.list.element.list.element": "DELTA_BINARY_PACKED", "deep.xs.list.element": "DELTA_BINARY_PACKED"}),
    }
    for name, kw in variants.items():
        table = pa.table(data, schema=schema("item" if name == "item_names" else "element"))
        pq.write_table(table, os.path.join(out, name + ".parquet"), row_group_size=16,
                       data_page_size=64, write_batch_size=8, **kw)
    # table/tags.parquet: a data file of a Timelake table (ts 1, host 2,
    # _ingest_ts 3) to which a tags map (4: key 5, value 6) was added, as
    # pyiceberg writes one: not sorted (table/nested_test.go)
    os.makedirs(os.path.join(out, "table"), exist_ok=True)
    us = 1_795_737_600_000_000  # 2026-11-27T00:00:00Z
    tags = pa.table({
        "ts": [us + 3_000_000, us, us + 2_000_000, us + 1_000_000, us + 4_000_000, us + 5_000_000],
        "host": ["b", "a", "b", "a", "b", "a"],
        "tags": [[("k", None)], [("job", "api"), ("instance", "10.0.0.1:9090")], None, [], [("job", "db")], [("é", "v\n")]],
    }, schema=pa.schema([
        fid("ts", pa.timestamp("us", tz="UTC"), 1, False),
        fid("host", pa.string(), 2, False),
        fid("tags", pa.map_(fid("key", pa.string(), 5, False), fid("value", pa.string(), 6)), 4),
    ]))
    pq.write_table(tags, os.path.join(out, "table", "tags.parquet"))
    expected = {}
    for col in ["tags", "nums", "st", "ll", "deep"]:
        expected[col] = [None if v is None else json.dumps(as_json(v, schema("element").field(col).type), separators=(",", ":"), ensure_ascii=False)
                         for v in data[col]]
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
