#!/usr/bin/env python3
"""Hostile traffic against one broker: malformed frames, an oversized size
prefix, an unknown API key, an unsupported version, a request left
half-sent, and a connection flood. Each must close (or be answered on)
only its own connection. Afterwards a well-formed ApiVersions request on a
fresh connection must still be answered. Prints what happened; exit 0 on
success."""
import socket
import struct
import sys
import time

host, port = sys.argv[1], int(sys.argv[2])


def conn():
    s = socket.create_connection((host, port), timeout=5)
    s.settimeout(5)
    return s


def request(api, ver, corr, body=b"", client=b"bad"):
    hdr = struct.pack(">hhih", api, ver, corr, len(client)) + client
    msg = hdr + body
    return struct.pack(">i", len(msg)) + msg


def closed(s, wait=5.0):
    """True when the peer closes the connection within `wait` seconds."""
    s.settimeout(wait)
    try:
        while True:
            d = s.recv(65536)
            if not d:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def api_versions_ok():
    s = conn()
    s.sendall(request(18, 0, 7))
    hdr = b""
    while len(hdr) < 4:
        d = s.recv(4 - len(hdr))
        if not d:
            return False
        hdr += d
    (n,) = struct.unpack(">i", hdr)
    body = b""
    while len(body) < n:
        d = s.recv(n - len(body))
        if not d:
            return False
        body += d
    s.close()
    corr, err = struct.unpack(">ih", body[:6])
    return corr == 7 and err == 0


failures = []


def check(name, ok):
    print(f"  {'ok  ' if ok else 'FAIL'} {name}")
    if not ok:
        failures.append(name)


# A bystander connection that must survive everything.
bystander = conn()

s = conn()
s.sendall(struct.pack(">i", -5) + b"xxxx")
check("negative size prefix closes the connection", closed(s))

s = conn()
s.sendall(struct.pack(">i", 2_000_000_000))
check("oversized size prefix closes the connection", closed(s))

s = conn()
s.sendall(struct.pack(">i", 3) + b"\x00\x01\x02")
check("truncated header closes the connection", closed(s))

s = conn()
s.sendall(request(999, 0, 1))
check("unknown API key closes the connection", closed(s))

s = conn()
s.sendall(request(3, 30000, 1))
check("unsupported Metadata version closes the connection", closed(s))

s = conn()
s.sendall(request(0, 7, 1, b"\xff" * 40))
check("garbage Produce body closes the connection", closed(s))

half = conn()
half.sendall(struct.pack(">i", 100) + b"\x00\x12\x00")  # 3 of 100 bytes

flood = []
try:
    for _ in range(300):
        flood.append(socket.create_connection((host, port), timeout=5))
except OSError:
    pass
check(f"flood of {len(flood)} connections accepted or refused", True)
for f in flood:
    f.close()

check("a fresh client is answered during a half-sent request", api_versions_ok())
bystander.sendall(request(18, 0, 9))
bystander.settimeout(5)
try:
    got = bystander.recv(4)
    check("the bystander connection still works", len(got) == 4)
except OSError:
    check("the bystander connection still works", False)
half.close()
bystander.close()
time.sleep(0.2)
check("the broker answers after all of it", api_versions_ok())
sys.exit(1 if failures else 0)
