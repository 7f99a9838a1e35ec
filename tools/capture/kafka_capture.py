#!/usr/bin/env python3
"""kafka_capture: loopback TCP proxy that records Kafka request/response frames.

Sits between a Kafka client and the broker(s) of a mock cluster. Each
upstream broker address gets its own local listener. Both directions are
split into frames by the 4-byte big-endian size prefix. Every request frame
is written as-is (size prefix included) and its header (api_key, api_version,
correlation_id) remembered; the response with the same correlation id on that
connection is written under the same api key/version:

    OUT/NNNNN-req-<ApiName>-v<N>.bin
    OUT/NNNNN-resp-<ApiName>-v<N>.bin
    OUT/index.tsv      seq, direction, conn, api, version, corr id, size

Files hold the bytes exactly as they crossed the wire from the sender. To keep
the client talking through the proxy, responses that advertise broker
addresses (Metadata v0-v8, FindCoordinator v0-v2) get their port fields
rewritten to the matching proxy port before being forwarded (the host string
is left alone, so frame sizes do not change). With --controller-id N, a
Metadata v1+ response whose ControllerId is not a broker id gets N instead
(librdkafka 2.0.2's mock answers ControllerId 0, and kafkajs sends
InitProducerId to the controller). The recorded response files are always the
mock's unmodified bytes.

Usage:
    kafka_capture.py --out DIR --upstream 127.0.0.1:PORT[,127.0.0.1:PORT...]
                     [--controller-id N] [--ready-file F]
Prints "127.0.0.1:LOCALPORT,..." (proxy bootstrap list, same order as the
upstreams) on stdout once listening, and runs until SIGTERM/SIGINT.
Loopback only.
"""

import argparse
import asyncio
import os
import signal
import struct
import sys

API_NAMES = {
    0: "Produce", 1: "Fetch", 2: "ListOffsets", 3: "Metadata",
    4: "LeaderAndIsr", 5: "StopReplica", 6: "UpdateMetadata",
    7: "ControlledShutdown", 8: "OffsetCommit", 9: "OffsetFetch",
    10: "FindCoordinator", 11: "JoinGroup", 12: "Heartbeat", 13: "LeaveGroup",
    14: "SyncGroup", 15: "DescribeGroups", 16: "ListGroups",
    17: "SaslHandshake", 18: "ApiVersions", 19: "CreateTopics",
    20: "DeleteTopics", 21: "DeleteRecords", 22: "InitProducerId",
    23: "OffsetForLeaderEpoch", 24: "AddPartitionsToTxn",
    25: "AddOffsetsToTxn", 26: "EndTxn", 27: "WriteTxnMarkers",
    28: "TxnOffsetCommit", 29: "DescribeAcls", 30: "CreateAcls",
    31: "DeleteAcls", 32: "DescribeConfigs", 33: "AlterConfigs",
    34: "AlterReplicaLogDirs", 35: "DescribeLogDirs", 36: "SaslAuthenticate",
    37: "CreatePartitions", 38: "CreateDelegationToken",
    39: "RenewDelegationToken", 40: "ExpireDelegationToken",
    41: "DescribeDelegationToken", 42: "DeleteGroups",
    43: "ElectLeaders", 44: "IncrementalAlterConfigs",
    45: "AlterPartitionReassignments", 46: "ListPartitionReassignments",
    47: "OffsetDelete", 48: "DescribeClientQuotas", 49: "AlterClientQuotas",
    50: "DescribeUserScramCredentials", 51: "AlterUserScramCredentials",
}


def api_name(key):
    return API_NAMES.get(key, "Api%d" % key)


class Reader:
    """Minimal big-endian reader over a bytes object."""

    def __init__(self, buf, pos=0):
        self.buf = buf
        self.pos = pos

    def i16(self):
        v = struct.unpack_from(">h", self.buf, self.pos)[0]
        self.pos += 2
        return v

    def i32(self):
        v = struct.unpack_from(">i", self.buf, self.pos)[0]
        self.pos += 4
        return v

    def string(self):
        n = self.i16()
        if n > 0:
            self.pos += n
        return n


class Capture:
    def __init__(self, out, upstreams, controller_id):
        self.out = out
        self.upstreams = upstreams          # list of (host, port)
        self.port_map = {}                  # upstream port -> proxy port
        self.controller_id = controller_id
        self.seq = 0
        self.conn_seq = 0
        os.makedirs(out, exist_ok=True)
        self.index = open(os.path.join(out, "index.tsv"), "a", buffering=1)

    def write(self, direction, conn, key, ver, corr, frame):
        self.seq += 1
        name = "%05d-%s-%s-v%d.bin" % (self.seq, direction, api_name(key), ver)
        with open(os.path.join(self.out, name), "wb") as f:
            f.write(frame)
        self.index.write("%d\t%s\t%d\t%s\t%d\t%d\t%d\t%s\n" % (
            self.seq, direction, conn, api_name(key), ver, corr, len(frame), name))

    # -- response rewriting (ports only; sizes unchanged) -----------------
    def patch_port(self, buf, pos):
        port = struct.unpack_from(">i", buf, pos)[0]
        if port in self.port_map:
            struct.pack_into(">i", buf, pos, self.port_map[port])

    def rewrite(self, key, ver, frame):
        buf = bytearray(frame)
        try:
            if key == 3 and ver <= 8:
                r = Reader(buf, 8)          # size + correlation id
                if ver >= 3:
                    r.i32()                 # throttle
                n = r.i32()
                ids = set()
                for _ in range(max(n, 0)):
                    ids.add(r.i32())
                    r.string()
                    self.patch_port(buf, r.pos)
                    r.i32()
                    if ver >= 1:
                        r.string()          # rack
                if ver >= 2:
                    r.string()              # cluster id
                if ver >= 1 and self.controller_id is not None:
                    cid = struct.unpack_from(">i", buf, r.pos)[0]
                    if cid not in ids:
                        struct.pack_into(">i", buf, r.pos, self.controller_id)
            elif key == 10 and ver <= 2:
                r = Reader(buf, 8)
                if ver >= 1:
                    r.i32()                 # throttle
                r.i16()                     # error code
                if ver >= 1:
                    r.string()              # error message
                r.i32()                     # node id
                r.string()                  # host
                self.patch_port(buf, r.pos)
        except struct.error:
            pass
        return bytes(buf)

    # -- connection handling ---------------------------------------------
    async def handle(self, creader, cwriter, upstream):
        self.conn_seq += 1
        conn = self.conn_seq
        try:
            ureader, uwriter = await asyncio.open_connection(*upstream)
        except OSError:
            cwriter.close()
            return
        pending = {}

        async def read_frame(reader):
            hdr = await reader.readexactly(4)
            size = struct.unpack(">i", hdr)[0]
            body = await reader.readexactly(size)
            return hdr + body

        async def c2u():
            try:
                while True:
                    frame = await read_frame(creader)
                    key, ver, corr = struct.unpack_from(">hhi", frame, 4)
                    pending[corr] = (key, ver)
                    self.write("req", conn, key, ver, corr, frame)
                    uwriter.write(frame)
                    await uwriter.drain()
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                uwriter.close()

        async def u2c():
            try:
                while True:
                    frame = await read_frame(ureader)
                    corr = struct.unpack_from(">i", frame, 4)[0]
                    key, ver = pending.pop(corr, (-1, -1))
                    self.write("resp", conn, key, ver, corr, frame)
                    cwriter.write(self.rewrite(key, ver, frame))
                    await cwriter.drain()
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                cwriter.close()

        await asyncio.gather(c2u(), u2c())

    async def run(self, ready_file):
        servers = []
        for up in self.upstreams:
            srv = await asyncio.start_server(
                lambda r, w, up=up: self.handle(r, w, up), "127.0.0.1", 0)
            port = srv.sockets[0].getsockname()[1]
            self.port_map[up[1]] = port
            servers.append(srv)
        boot = ",".join("127.0.0.1:%d" % self.port_map[up[1]] for up in self.upstreams)
        print(boot, flush=True)
        if ready_file:
            with open(ready_file, "w") as f:
                f.write(boot + "\n")
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        for s in servers:
            s.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--controller-id", type=int, default=None)
    ap.add_argument("--ready-file")
    a = ap.parse_args()
    ups = []
    for hp in a.upstream.split(","):
        host, port = hp.rsplit(":", 1)
        if host not in ("127.0.0.1", "localhost"):
            sys.exit("loopback upstreams only")
        ups.append(("127.0.0.1", int(port)))
    asyncio.run(Capture(a.out, ups, a.controller_id).run(a.ready_file))


if __name__ == "__main__":
    main()
