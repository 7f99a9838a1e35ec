#!/usr/bin/env python3
"""A broker out of descriptors: connections beyond RLIMIT_NOFILE wait in the
backlog while the broker stays idle (no accept spin), and are served once
descriptors free. Usage: descriptors.py PORT PID. Exit 1 on failure."""
import socket
import struct
import sys
import time

port, pid = int(sys.argv[1]), int(sys.argv[2])
HZ = 100  # USER_HZ of /proc/PID/stat


def cpu_s():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / HZ


def api_versions(s, corr):
    body = struct.pack(">hhih", 18, 0, corr, 4) + b"desc"
    s.sendall(struct.pack(">i", len(body)) + body)


def answered(s, timeout):
    s.settimeout(timeout)
    try:
        return len(s.recv(4)) == 4
    except OSError:
        return False


socks = []
for i in range(120):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    api_versions(s, i)
    socks.append(s)
served = sum(answered(s, 0.5 if i < 10 else 0.05) for i, s in enumerate(socks))
if served >= len(socks):
    print(f"all {served} connections served: the limit did not bite")
    sys.exit(1)
c0 = cpu_s()
time.sleep(2)
used = cpu_s() - c0
if used > 0.3:
    print(f"broker used {used:.2f} s of CPU in 2 s while out of descriptors")
    sys.exit(1)
for s in socks:
    s.close()
time.sleep(0.5)
s = socket.create_connection(("127.0.0.1", port), timeout=5)
api_versions(s, 999)
if not answered(s, 5):
    print("no answer after descriptors were freed")
    sys.exit(1)
s.close()
print(f"note: {served} of {len(socks)} served at the limit, {used:.2f} s CPU in 2 s")
