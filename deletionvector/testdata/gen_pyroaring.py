"""Writes the deletion-vector-v1 blobs of testdata/pyroaring-*.bin with
pyroaring (CRoaring's portable 64-bit serialization), framed as the Puffin
spec says: length (big-endian) of magic + vector, magic, vector, CRC-32
(big-endian). decode_test.go builds the same position sets and checks them.
Run with the repo's .venv: .venv/bin/python deletionvector/testdata/gen_pyroaring.py
"""
import os
import struct
import zlib

from pyroaring import BitMap64

MAGIC = bytes([0xD1, 0xD3, 0x39, 0x64])

CASES = {
    "sparse": [0, 5, 7, 1000, 65535, 65536, 70000],
    "dense": list(range(0, 100000, 2)),
    "runs": list(range(10, 50000)) + list(range(200000, 200100)) + [300000],
    "buckets": [1, 1 << 32, (1 << 32) + 7, (5 << 32) + 65536 * 3],
}


def blob(positions, optimize):
    bm = BitMap64(positions)
    if optimize:
        bm.run_optimize()
    body = MAGIC + bm.serialize()
    return struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


here = os.path.dirname(os.path.abspath(__file__))
for name, pos in CASES.items():
    with open(os.path.join(here, f"pyroaring-{name}.bin"), "wb") as f:
        f.write(blob(pos, name == "runs"))
