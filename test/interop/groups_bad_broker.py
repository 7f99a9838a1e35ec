#!/usr/bin/env python3
"""A hostile broker for `logrep groups`: it advertises old, non-flexible
versions of Metadata, FindCoordinator, ListGroups, DescribeGroups,
OffsetFetch and ListOffsets, and answers each with random values in the
right shapes (bad assignments, odd states, unknown brokers, errors), or,
in mutate mode, with random bytes of that answer changed; other modes
send a huge or negative size prefix, a truncated frame, or nothing.
Prints its port, then serves until killed.

    groups_bad_broker.py SEED shapes|mutate|big|neg|trunc|silent"""
import random
import socket
import struct
import sys
import threading

seed, mode = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(seed)
lsock = socket.socket()
lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
lsock.bind(("127.0.0.1", 0))
lsock.listen(16)
port = lsock.getsockname()[1]


def i16(v): return struct.pack(">h", v)
def i32(v): return struct.pack(">i", v)
def i64(v): return struct.pack(">q", v)
def arr(items): return i32(len(items)) + b"".join(items)


def st(x):
    if x is None:
        return i16(-1)
    x = x.encode() if isinstance(x, str) else x
    return i16(len(x)) + x


def by(x):
    return i32(-1) if x is None else i32(len(x)) + x


def name():
    return rnd.choice(["t", "u", "", "x" * rnd.randrange(40), "\x1b[31mred", "g"])


def assignment():
    k = rnd.randrange(4)
    if k == 0:
        return bytes(rnd.randrange(256) for _ in range(rnd.randrange(30)))
    if k == 1:
        return b""
    topics = [st(rnd.choice(["t", "u"])) +
              arr([i32(rnd.choice([0, 1, 2, -1, 99])) for _ in range(rnd.randrange(4))])
              for _ in range(rnd.randrange(3))]
    b = i16(rnd.choice([0, 1, 3, -1])) + arr(topics) + by(rnd.choice([None, b"ud"]))
    return b[:rnd.randrange(len(b))] if k == 3 else b


def body(key):
    if key == 18:  # ApiVersions, v0 layout (what a refused version gets)
        keys = [(3, 1, 1), (10, 0, 0), (15, 0, 0), (16, 0, 0), (9, 2, 2), (2, 1, 1), (18, 0, 0)]
        return i16(0) + arr([struct.pack(">hhh", *k) for k in keys])
    if key == 3:  # Metadata v1
        brokers = [i32(1) + st("127.0.0.1") + i32(port) + st(None)]
        if rnd.random() < 0.3:
            brokers.append(i32(2) + st("127.0.0.1") + i32(1) + st(None))

        def parts():
            return arr([i16(0) + i32(p) + i32(rnd.choice([1, 1, 2, -1])) + arr([i32(1)]) +
                        arr([i32(1)]) for p in range(rnd.randrange(4))])
        topics = [i16(rnd.choice([0, 0, 3])) + st(t) + b"\x00" + parts() for t in ["t", "u"]]
        return arr(brokers) + i32(1) + arr(topics)
    if key == 10:  # FindCoordinator v0
        return i16(rnd.choice([0, 0, 0, 15])) + i32(1) + st("127.0.0.1") + i32(port)
    if key == 16:  # ListGroups v0
        return i16(rnd.choice([0, 0, 14])) + arr(
            [st(name()) + st(rnd.choice(["consumer", "", "connect"])) for _ in range(rnd.randrange(5))])
    if key == 15:  # DescribeGroups v0
        members = [st(name()) + st(name()) + st(name()) + by(b"") + by(assignment())
                   for _ in range(rnd.randrange(4))]
        g = (i16(rnd.choice([0, 0, 0, 16, 69])) + st("g") +
             st(rnd.choice(["Stable", "Empty", "Dead", "PreparingRebalance", "Weird"])) +
             st(rnd.choice(["consumer", "", "connect"])) + st("range") + arr(members))
        return arr([g] * rnd.choice([1, 1, 1, 0, 2]))
    if key == 9:  # OffsetFetch v2
        topics = [st(rnd.choice(["t", "u", "v"])) + arr(
            [i32(rnd.choice([0, 1, 2, -3])) + i64(rnd.choice([-1, 0, 5, 1 << 62])) + st(None) +
             i16(rnd.choice([0, 0, 3])) for _ in range(rnd.randrange(4))])
            for _ in range(rnd.randrange(3))]
        return arr(topics) + i16(rnd.choice([0, 0, 0, 14]))
    if key == 2:  # ListOffsets v1
        topics = [st(rnd.choice(["t", "u"])) + arr(
            [i32(rnd.choice([0, 1, 2, 7])) + i16(rnd.choice([0, 0, 6])) + i64(-1) +
             i64(rnd.choice([-1, 0, 3, 15, 1 << 62])) for _ in range(rnd.randrange(4))])
            for _ in range(rnd.randrange(3))]
        return arr(topics)
    return b""


def recvn(c, n):
    b = b""
    while len(b) < n:
        x = c.recv(n - len(b))
        if not x:
            raise EOFError
        b += x
    return b


def serve(c):
    try:
        while True:
            n = struct.unpack(">i", recvn(c, 4))[0]
            key, _ver, corr = struct.unpack(">hhi", recvn(c, n)[:8])
            if key != 18 and mode == "big":
                c.sendall(struct.pack(">I", 0x7fffffff))
                continue
            if key != 18 and mode == "neg":
                c.sendall(struct.pack(">I", 0xffffffff))
                continue
            if key != 18 and mode == "trunc":
                c.sendall(i32(100) + b"x" * 10)
                return
            if key != 18 and mode == "silent":
                continue
            r = bytearray(i32(corr) + body(key))
            if mode == "mutate" and key != 18 and len(r) > 4:
                for _ in range(rnd.randrange(1, 4)):
                    r[rnd.randrange(4, len(r))] = rnd.randrange(256)
            c.sendall(i32(len(r)) + bytes(r))
    except (OSError, EOFError, struct.error):
        pass
    finally:
        c.close()


print(port, flush=True)
while True:
    conn, _ = lsock.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
