#!/usr/bin/env python3
"""Topic admin and raw requests against one broker, in the wire format of
the non-flexible API versions (CreateTopics v4, DeleteTopics v3, Metadata
v4, Produce v3, Fetch v4).

  topics.py HOST PORT create NAME PARTITIONS RF   -> "<error code> <message>"
  topics.py HOST PORT delete NAME                 -> "<error code>"
  topics.py HOST PORT metadata NAME|-             -> "<name> <error code>" per topic
  topics.py HOST PORT produce NAME PARTITION      -> "<error code>"
  topics.py HOST PORT fetch NAME PARTITION        -> "<error code>"

Exit status 0 when the broker answered."""
import socket
import struct
import sys

host, port, op = sys.argv[1], int(sys.argv[2]), sys.argv[3]
args = sys.argv[4:]


def s16(v):
    return struct.pack(">h", v)


def s32(v):
    return struct.pack(">i", v)


def string(s):
    b = s.encode()
    return s16(len(b)) + b


def call(api, ver, body):
    client = b"topics.py"
    msg = struct.pack(">hhih", api, ver, 41, len(client)) + client + body
    s = socket.create_connection((host, port), timeout=20)
    s.settimeout(20)
    s.sendall(s32(len(msg)) + msg)
    data = b""
    while len(data) < 4 or len(data) < 4 + struct.unpack(">i", data[:4])[0]:
        d = s.recv(65536)
        if not d:
            sys.exit("connection closed")
        data += d
    s.close()
    (corr,) = struct.unpack(">i", data[4:8])
    assert corr == 41, corr
    return Reader(data[8:])


class Reader:
    def __init__(self, b):
        self.b, self.p = b, 0

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.b, self.p)
        self.p += struct.calcsize(fmt)
        return v[0]

    def string(self):
        n = self.take(">h")
        if n < 0:
            return None
        v = self.b[self.p:self.p + n].decode()
        self.p += n
        return v

    def int32s(self):
        return [self.take(">i") for _ in range(self.take(">i"))]


CRC_TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    CRC_TABLE.append(c)


def crc32c(b):
    c = 0xFFFFFFFF
    for x in b:
        c = CRC_TABLE[(c ^ x) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def varint(v):
    v = (v << 1) ^ (v >> 63)
    out = b""
    while True:
        if v < 0x80:
            return out + bytes([v])
        out += bytes([(v & 0x7F) | 0x80])
        v >>= 7


def one_record_batch(value):
    rec = b"\x00" + varint(0) + varint(0) + varint(-1) + varint(len(value)) + value + varint(0)
    rec = varint(len(rec)) + rec
    after_crc = (s16(0) + s32(0) + struct.pack(">qq", 0, 0) + struct.pack(">qhi", -1, -1, -1)
                 + s32(1) + rec)
    body = s32(0) + b"\x02" + struct.pack(">I", crc32c(after_crc)) + after_crc
    return struct.pack(">q", 0) + s32(len(body)) + body


if op == "create":
    name, parts, rf = args[0], int(args[1]), int(args[2])
    body = (s32(1) + string(name) + s32(parts) + s16(rf) + s32(0) + s32(0)
            + s32(10000) + b"\x00")
    r = call(19, 4, body)
    r.take(">i")
    assert r.take(">i") == 1
    r.string()
    err = r.take(">h")
    print(err, r.string() or "")
elif op == "delete":
    r = call(20, 3, s32(1) + string(args[0]) + s32(10000))
    r.take(">i")
    assert r.take(">i") == 1
    r.string()
    print(r.take(">h"))
elif op == "metadata":
    topics = s32(-1) if args[0] == "-" else s32(1) + string(args[0])
    r = call(3, 4, topics + b"\x01")
    r.take(">i")
    for _ in range(r.take(">i")):
        r.take(">i"), r.string(), r.take(">i"), r.string()
    r.string()
    r.take(">i")
    for _ in range(r.take(">i")):
        err = r.take(">h")
        name = r.string()
        r.take(">b")
        for _ in range(r.take(">i")):
            r.take(">h"), r.take(">i"), r.take(">i"), r.int32s(), r.int32s()
        print(name, err)
elif op == "produce":
    batch = one_record_batch(b"raw")
    body = (s16(-1) + s16(1) + s32(10000) + s32(1) + string(args[0]) + s32(1)
            + s32(int(args[1])) + s32(len(batch)) + batch)
    r = call(0, 3, body)
    assert r.take(">i") == 1
    r.string()
    assert r.take(">i") == 1
    r.take(">i")
    print(r.take(">h"))
elif op == "fetch":
    body = (s32(-1) + s32(0) + s32(1) + s32(1 << 20) + b"\x00" + s32(1) + string(args[0])
            + s32(1) + s32(int(args[1])) + struct.pack(">q", 0) + s32(1 << 20))
    r = call(1, 4, body)
    r.take(">i")
    assert r.take(">i") == 1
    r.string()
    assert r.take(">i") == 1
    r.take(">i")
    print(r.take(">h"))
else:
    sys.exit("unknown op " + op)
