"""Byte-level views of Parquet, Avro and Puffin files, for readers.py
(parquet-meta, avro-meta, puffin-meta, deletion-vectors)."""
import io
import json
import struct

import pyarrow.parquet as pq


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"



# ---------------------------------------------------------------- Parquet

class Thrift:
    """A reader of Thrift's compact protocol, enough for Parquet's footer and
    page headers. Structs become {field id: value}."""

    def __init__(self, buf, pos=0):
        self.buf, self.pos = buf, pos

    def byte(self):
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def varint(self):
        shift = v = 0
        while True:
            b = self.byte()
            v |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return v

    def zigzag(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def value(self, typ):
        if typ in (1, 2):  # bool inside a struct: the type is the value
            return typ == 1
        if typ == 3:
            return struct.unpack("b", bytes([self.byte()]))[0]
        if typ in (4, 5, 6):
            return self.zigzag()
        if typ == 7:
            self.pos += 8
            return struct.unpack("<d", self.buf[self.pos - 8:self.pos])[0]
        if typ == 8:
            n = self.varint()
            self.pos += n
            return bytes(self.buf[self.pos - n:self.pos])
        if typ in (9, 10):
            h = self.byte()
            n, et = h >> 4, h & 0x0F
            if n == 15:
                n = self.varint()
            if et in (1, 2):  # bool inside a list: one byte each
                return [self.byte() == 1 for _ in range(n)]
            return [self.value(et) for _ in range(n)]
        if typ == 11:
            n = self.varint()
            if n == 0:
                return {}
            kv = self.byte()
            return {self.value(kv >> 4): self.value(kv & 0x0F) for _ in range(n)}
        if typ == 12:
            return self.struct()
        raise ValueError(f"thrift: unknown type {typ} at byte {self.pos}")

    def struct(self):
        out, fid = {}, 0
        while True:
            h = self.byte()
            if h == 0:
                return out
            delta, typ = h >> 4, h & 0x0F
            fid = fid + delta if delta else self.zigzag()
            out[fid] = self.value(typ)


PAGE_TYPES = {0: "DATA_PAGE", 1: "INDEX_PAGE", 2: "DICTIONARY_PAGE", 3: "DATA_PAGE_V2"}
ENCODINGS = {0: "PLAIN", 2: "PLAIN_DICTIONARY", 3: "RLE", 4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED",
             6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY", 8: "RLE_DICTIONARY", 9: "BYTE_STREAM_SPLIT"}


def parquet_pages(path):
    """Per column chunk, from the footer parsed here: its pages (from the page
    headers) and its page index (column index and offset index)."""
    with open(path, "rb") as f:
        buf = f.read()
    if buf[:4] != b"PAR1" or buf[-4:] != b"PAR1":
        raise ValueError(f"{path}: not a Parquet file (no PAR1 magic)")
    n = struct.unpack("<I", buf[-8:-4])[0]
    meta = Thrift(buf, len(buf) - 8 - n).struct()
    out = []
    for rg_i, rg in enumerate(meta.get(4, [])):
        for col_i, cc in enumerate(rg.get(1, [])):
            md = cc.get(3, {})
            chunk = {
                "row_group": rg_i, "column": col_i,
                "path": ".".join(p.decode() for p in md.get(3, [])),
                "has_column_index": 6 in cc, "has_offset_index": 4 in cc,
                "pages": [],
            }
            start = md.get(9)
            if md.get(11) is not None and 0 < md[11] < start:
                start = md[11]
            pos, end = start, start + md.get(7, 0)
            while pos < end:
                t = Thrift(buf, pos)
                h = t.struct()
                page = {"type": PAGE_TYPES.get(h.get(1), h.get(1)), "compressed_size": h.get(3),
                        "uncompressed_size": h.get(2)}
                sub = h.get(5) or h.get(7) or h.get(8) or {}
                page["num_values"] = sub.get(1)
                if 8 in h:
                    page["num_rows"], page["num_nulls"] = sub.get(3), sub.get(2)
                    page["encoding"] = ENCODINGS.get(sub.get(4), sub.get(4))
                else:
                    page["encoding"] = ENCODINGS.get(sub.get(2), sub.get(2))
                chunk["pages"].append(page)
                pos = t.pos + h.get(3, 0)
            if 4 in cc:
                oi = Thrift(buf, cc[4]).struct()
                firsts = [loc.get(3) for loc in oi.get(1, [])]
                ends = firsts[1:] + [rg.get(3)]
                chunk["offset_index_rows"] = [e - s for s, e in zip(firsts, ends)]
            if 6 in cc:
                ci = Thrift(buf, cc[6]).struct()
                chunk["column_index_pages"] = len(ci.get(1, []))
                chunk["column_index_null_counts"] = ci.get(5)
            out.append(chunk)
    sorting = [[{"column": s.get(1), "descending": s.get(2), "nulls_first": s.get(3)} for s in rg.get(4, [])]
               for rg in meta.get(4, [])]
    return out, sorting


def rows_as_dicts(c, sql):
    cur = c.execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def parquet_meta(path):
    import duckdb
    c = duckdb.connect()
    p = sql_str(path)
    chunks, sorting = parquet_pages(path)
    return {
        "file": rows_as_dicts(c, f"SELECT * EXCLUDE (file_name) FROM parquet_file_metadata({p})"),
        "key_value": {k.decode(): v.decode(errors="replace") for k, v in
                      c.execute(f"SELECT key, value FROM parquet_kv_metadata({p})").fetchall()},
        "schema": rows_as_dicts(c, f"SELECT * EXCLUDE (file_name) FROM parquet_schema({p})"),
        "columns": rows_as_dicts(c, f"SELECT * EXCLUDE (file_name, key_value_metadata, geo_bbox, geo_types) "
                                    f"FROM parquet_metadata({p}) ORDER BY row_group_id, column_id"),
        "sorting_columns": sorting,
        "chunks": chunks,
    }


# ---------------------------------------------------------------- Avro

def avro_meta(path):
    """Avro object container file: header metadata, schema, and the data
    blocks (record counts; every sync marker checked)."""
    with open(path, "rb") as f:
        buf = f.read()
    if buf[:4] != b"Obj\x01":
        raise ValueError(f"{path}: not an Avro object container file (no Obj\\x01 magic)")
    t = Thrift(buf, 4)  # Avro longs are zigzag varints too

    def blob():
        n = t.zigzag()
        t.pos += n
        return bytes(buf[t.pos - n:t.pos])

    meta = {}
    while True:
        count = t.zigzag()
        if count == 0:
            break
        if count < 0:
            count = -count
            t.zigzag()  # block size in bytes
        for _ in range(count):
            k = blob().decode()
            meta[k] = blob()
    sync = buf[t.pos:t.pos + 16]
    t.pos += 16
    blocks = []
    while t.pos < len(buf):
        records, size = t.zigzag(), t.zigzag()
        t.pos += size
        if buf[t.pos:t.pos + 16] != sync:
            raise ValueError(f"{path}: block {len(blocks)} does not end with the header's sync marker")
        t.pos += 16
        blocks.append(records)
    text = {}
    for k, v in meta.items():
        try:
            text[k] = v.decode()
        except UnicodeDecodeError:
            text[k] = "hex:" + v.hex()
    return {"metadata": text, "schema": json.loads(meta.get("avro.schema", b"null")),
            "codec": text.get("avro.codec", "null"), "blocks": len(blocks), "records": sum(blocks)}


# ---------------------------------------------------------------- Puffin

def puffin_meta(path):
    """A Puffin file read by pyiceberg's reader: the footer, and for each blob
    its payload's length and, when it is Parquet, its rows and columns."""
    import io
    import pyarrow.parquet as pq
    from pyiceberg.table.puffin import PuffinFile
    with open(path, "rb") as f:
        buf = f.read()
    pf = PuffinFile(buf)
    blobs = []
    for b in pf.footer.blobs:
        payload = pf.get_blob_payload(b)
        out = {"type": b.type, "snapshot_id": b.snapshot_id, "sequence_number": b.sequence_number,
               "fields": b.fields, "offset": b.offset, "length": len(payload)}
        if payload[:4] == b"PAR1":
            t = pq.read_table(io.BytesIO(payload), use_threads=False)
            out["parquet_rows"] = t.num_rows
            out["parquet_columns"] = t.column_names
        blobs.append(out)
    return {"properties": pf.footer.properties, "blobs": blobs}


def deletion_vectors(path):
    """The deletion vectors of a Puffin file, decoded by pyiceberg (pyroaring)."""
    from pyiceberg.table.puffin import PuffinFile
    from pyiceberg.table.deletion_vector import deletion_vectors_from_puffin_file
    with open(path, "rb") as f:
        pf = PuffinFile(f.read())
    props = {b.properties.get("referenced-data-file"): b.properties for b in pf.footer.blobs}
    return {"vectors": [{"referenced_data_file": dv.referenced_data_file, "properties": props[dv.referenced_data_file],
                         "positions": dv.to_vector().to_pylist()} for dv in deletion_vectors_from_puffin_file(pf)]}
