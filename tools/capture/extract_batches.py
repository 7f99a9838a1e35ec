#!/usr/bin/env python3
"""extract_batches: pulls v2 record batches out of captured Fetch responses.

    extract_batches.py CAPTURE_DIR OUT_DIR PREFIX [TOPIC ...]

Reads every *-resp-Fetch-v<N>.bin frame (N = 4..11, non-flexible) in
CAPTURE_DIR (written by kafka_capture.py), and for each topic-partition
(optionally only the TOPICs given) concatenates the complete batches it
returned, in offset order, without duplicates (a batch fetched twice is kept
once; a partial batch at the end of a response is dropped, as clients do).
Writes OUT_DIR/PREFIX<topic>-p<partition>.bin and prints, per file, the
aborted-transaction list the broker sent with it ("aborted PID FIRST").
"""

import glob
import os
import re
import struct
import sys


class R:
    def __init__(self, b, p=0):
        self.b, self.p = b, p

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.b, self.p)
        self.p += struct.calcsize(fmt)
        return v[0] if len(v) == 1 else v

    def string(self):
        n = self.take(">h")
        s = self.b[self.p:self.p + max(n, 0)].decode()
        self.p += max(n, 0)
        return s

    def bytes_(self):
        n = self.take(">i")
        if n < 0:
            return None
        v = self.b[self.p:self.p + n]
        self.p += n
        return v


def parse_fetch(frame, ver):
    r = R(frame, 8)                      # size, correlation id
    if ver >= 1:
        r.take(">i")                     # throttle
    if ver >= 7:
        r.take(">h")                     # error code
        r.take(">i")                     # session id
    out = []
    for _ in range(r.take(">i")):
        topic = r.string()
        for _ in range(r.take(">i")):
            part = r.take(">i")
            r.take(">h")                 # error
            r.take(">q")                 # high watermark
            aborted = []
            if ver >= 4:
                r.take(">q")             # last stable offset
                if ver >= 5:
                    r.take(">q")         # log start offset
                n = r.take(">i")
                for _ in range(max(n, 0)):
                    aborted.append(r.take(">qq"))
            if ver >= 11:
                r.take(">i")             # preferred read replica
            recs = r.bytes_() or b""
            out.append((topic, part, aborted, recs))
    return out


def split_batches(recs):
    pos = 0
    while pos + 12 <= len(recs):
        base, blen = struct.unpack_from(">qi", recs, pos)
        end = pos + 12 + blen
        if blen < 0 or end > len(recs):
            break                        # partial trailing batch
        yield base, recs[pos:end]
        pos = end


def main():
    cap, outdir, prefix = sys.argv[1:4]
    only = set(sys.argv[4:])
    files = sorted(glob.glob(os.path.join(cap, "*-resp-Fetch-v*.bin")))
    parts = {}
    for f in files:
        ver = int(re.search(r"-v(\d+)\.bin$", f).group(1))
        with open(f, "rb") as fh:
            frame = fh.read()
        for topic, part, aborted, recs in parse_fetch(frame, ver):
            if only and topic not in only:
                continue
            d = parts.setdefault((topic, part), {"batches": {}, "aborted": set()})
            d["aborted"].update(aborted)
            for base, b in split_batches(recs):
                prev = d["batches"].get(base)
                if prev is not None and prev != b:
                    sys.exit("%s-%d: batch at %d differs between fetches" % (topic, part, base))
                d["batches"][base] = b
    os.makedirs(outdir, exist_ok=True)
    for (topic, part), d in sorted(parts.items()):
        if not d["batches"]:
            continue
        name = os.path.join(outdir, "%s%s-p%d.bin" % (prefix, topic, part))
        with open(name, "wb") as fh:
            for base in sorted(d["batches"]):
                fh.write(d["batches"][base])
        print("%s %d batches" % (name, len(d["batches"])))
        for pid, first in sorted(d["aborted"]):
            print("  aborted %d %d" % (pid, first))


if __name__ == "__main__":
    main()
