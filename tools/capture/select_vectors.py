#!/usr/bin/env python3
"""select_vectors: turns a capture_all.sh work dir into test/vectors/.

    select_vectors.py WORKDIR REPO_ROOT

* batches/: the v2 batches each consumer fetched (Fetch v11 responses of
  the rdk-consume / kjs-consume scenarios), one file per topic-partition,
  plus a sidecar .txt with the records as the consuming client reported them.
* requests/: the first request frame of each (client, API, version), named
  <client>-<ApiName>-v<N>.bin; Produce/InitProducerId/FindCoordinator from
  special scenarios get a -<variant> suffix (codec, idempotent,
  transactional).
* responses/: the first mock response frame of each (API, version),
  mock-<ApiName>-v<N>.bin (Fetch: the first one that carries records).
* MANIFEST.tsv: every file with its scenario, capture command and raw frame.
* fuzz/corpus/fuzz_batch/: a few single-batch seeds.
"""

import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import extract_batches as xb  # noqa: E402

CLIENT = {"rdk": "librdkafka", "kjs": "kafkajs"}
CLIENT_VERSION = {"librdkafka": "librdkafka 2.0.2", "kafkajs": "kafkajs 2.2.4"}
SCENARIOS = [
    "rdk-metadata", "rdk-produce-none", "rdk-produce-gzip", "rdk-produce-snappy",
    "rdk-produce-lz4", "rdk-produce-zstd", "rdk-idem", "rdk-txn", "rdk-keyed",
    "rdk-consume",
    "kjs-metadata", "kjs-produce-none", "kjs-produce-gzip", "kjs-idem", "kjs-txn",
    "kjs-keyed", "kjs-consume",
]


def variant(scenario, api):
    m = re.match(r"\w+-produce-(\w+)$", scenario)
    if m and api == "Produce":
        return "" if m.group(1) == "none" else "-" + m.group(1)
    if scenario.endswith("-idem") and api == "Produce":
        return "-idempotent"
    if scenario.endswith("-txn") and api in ("Produce", "InitProducerId", "FindCoordinator"):
        return "-transactional"
    return None


def frames(work, scenario):
    idx = os.path.join(work, "cap", scenario, "index.tsv")
    if not os.path.exists(idx):
        return []
    out = []
    with open(idx) as f:
        for line in f:
            seq, direction, conn, api, ver, corr, size, name = line.rstrip("\n").split("\t")
            out.append((direction, api, int(ver), os.path.join(work, "cap", scenario, name)))
    return out


def cmd_of(work, scenario):
    p = os.path.join(work, "out", scenario + ".cmd")
    return open(p).read().strip() if os.path.exists(p) else "?"


def batch_name(topic, part, nparts):
    client, what = topic.split("-", 1)
    what = {"idem": "idempotent", "txn": "transactional"}.get(what, what)
    name = "%s-%s" % (CLIENT[client], what)
    if nparts > 1:
        name += "-p%d" % part
    return name


def main():
    work, root = sys.argv[1:3]
    vec = os.path.join(root, "test", "vectors")
    for sub in ("batches", "requests", "responses"):
        d = os.path.join(vec, sub)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    manifest = []

    # -- requests / responses ---------------------------------------------
    seen_req, seen_resp = set(), set()
    for sc in SCENARIOS:
        client = CLIENT[sc[:3]]
        for direction, api, ver, path in frames(work, sc):
            if api.startswith("Api-") or ver < 0:
                continue
            raw = open(path, "rb").read()
            if direction == "req":
                v = variant(sc, api) or ""
                if (client, api, ver, v) in seen_req:
                    continue
                seen_req.add((client, api, ver, v))
                n = "%s-%s-v%d%s.bin" % (client, api, ver, v)
                open(os.path.join(vec, "requests", n), "wb").write(raw)
                manifest.append(("requests/" + n, CLIENT_VERSION[client], sc,
                                 cmd_of(work, sc), os.path.basename(path)))
            else:
                if (api, ver) in seen_resp:
                    continue
                if api == "Fetch":
                    has = any(recs for _, _, _, recs in xb.parse_fetch(raw, ver))
                    if not has:
                        continue
                seen_resp.add((api, ver))
                n = "mock-%s-v%d.bin" % (api, ver)
                open(os.path.join(vec, "responses", n), "wb").write(raw)
                manifest.append(("responses/" + n, "librdkafka 2.0.2 mock cluster (answering %s)"
                                 % CLIENT_VERSION[client], sc, cmd_of(work, sc),
                                 os.path.basename(path)))

    # -- batches + sidecars ---------------------------------------------------
    for sc, prefix in (("rdk-consume", "rdk-"), ("kjs-consume", "kjs-")):
        client = CLIENT[prefix[:3]]
        parts = {}
        capdir = os.path.join(work, "cap", sc)
        for direction, api, ver, path in frames(work, sc):
            if direction != "resp" or api != "Fetch":
                continue
            raw = open(path, "rb").read()
            for topic, part, aborted, recs in xb.parse_fetch(raw, ver):
                if not topic.startswith(prefix):
                    continue
                d = parts.setdefault((topic, part), {"b": {}, "ab": set(), "src": os.path.basename(path)})
                d["ab"].update(aborted)
                for base, b in xb.split_batches(recs):
                    d["b"][base] = b
        records = {}
        with open(os.path.join(work, "out", sc + ".txt")) as f:
            for line in f:
                if line.startswith("record "):
                    fs = line.split()
                    records.setdefault((fs[1], int(fs[2])), []).append(" ".join(["record"] + fs[3:]))
        keyed_map = {}
        ksc = prefix + "keyed"
        kout = os.path.join(work, "out", ksc + ".txt")
        for line in open(kout):
            if line.startswith("keyed "):
                _, k, p = line.split()
                keyed_map[k] = int(p)
        nparts = {}
        for (topic, part) in list(parts) + list(records):
            nparts[topic] = max(nparts.get(topic, 1), part + 1)
        for t in nparts:
            if t.endswith("keyed"):
                nparts[t] = 4
        for (topic, part), d in sorted(parts.items()):
            if not d["b"]:
                continue
            name = batch_name(topic, part, nparts[topic])
            with open(os.path.join(vec, "batches", name + ".bin"), "wb") as fh:
                for base in sorted(d["b"]):
                    fh.write(d["b"][base])
            recs = sorted(records.get((topic, part), []), key=lambda r: int(r.split()[1]))
            with open(os.path.join(vec, "batches", name + ".txt"), "w") as fh:
                fh.write("# Records of %s.bin as %s reported them when consuming\n" % (name, CLIENT_VERSION[client]))
                fh.write("# (isolation read_uncommitted) from librdkafka 2.0.2's mock cluster.\n")
                fh.write("# Batch bytes: topic %s partition %d, from the Fetch v11 responses\n" % (topic, part))
                fh.write("# captured in scenario %s; format in test/vectors/README.md.\n" % sc)
                fh.write("client %s\n" % CLIENT_VERSION[client])
                fh.write("batches %d\n" % len(d["b"]))
                fh.write("partition %d\n" % part)
                fh.write("partition_count %d\n" % nparts[topic])
                if topic.endswith("keyed"):
                    fh.write("partitioner %s\n" % ("murmur2_random" if client == "librdkafka"
                                                   else "kafkajs-default(murmur2)"))
                for pid, first in sorted(d["ab"]):
                    fh.write("aborted %d %d\n" % (pid, first))
                for r in recs:
                    fh.write(r + "\n")
                if topic.endswith("keyed"):
                    for r in recs:
                        key = bytes.fromhex(r.split()[3][4:]).decode()
                        if keyed_map.get(key) != part:
                            sys.exit("keyed: %s reported in p%d, producer said %s" % (key, part, keyed_map.get(key)))
            for ext in (".bin", ".txt"):
                manifest.append(("batches/" + name + ext, CLIENT_VERSION[client], sc,
                                 cmd_of(work, sc), d["src"] + " (first)"))

    # -- fuzz seeds -----------------------------------------------------------
    fz = os.path.join(root, "fuzz", "corpus", "fuzz_batch")
    os.makedirs(fz, exist_ok=True)
    for n in ("librdkafka-none", "librdkafka-gzip", "librdkafka-snappy", "librdkafka-lz4",
              "librdkafka-zstd", "librdkafka-keyed-p2", "kafkajs-gzip", "kafkajs-none"):
        src = os.path.join(vec, "batches", n + ".bin")
        if os.path.exists(src):
            shutil.copy(src, os.path.join(fz, "golden-" + n + ".bin"))

    with open(os.path.join(vec, "MANIFEST.tsv"), "w") as fh:
        fh.write("file\tclient\tscenario\tcommand\traw capture frame\n")
        for row in sorted(manifest):
            fh.write("\t".join(row) + "\n")
    shutil.copy(os.path.join(work, "versions.txt"), os.path.join(vec, "CAPTURE-INFO.txt"))
    print("select: wrote %d files" % len(manifest))


if __name__ == "__main__":
    main()
