#!/bin/bash
# capture_all.sh: regenerates the golden vectors under test/vectors/ from real
# clients (kcat/librdkafka 2.0.2 and kafkajs 2.2.4) talking to librdkafka's
# in-process mock cluster through kafka_capture.py. Maintainer task: not run
# by the build or `make test`; the committed vectors are what tests use.
#
#   tools/capture/capture_all.sh [WORKDIR]
#
# Needs: librdkafka-dev 2.0.2 (rdkafka_mock.h), kcat, python3, node + npm
# (kafkajs is installed from package-lock.json into tools/capture/node_modules).
# Loopback only. Raw captures stay in WORKDIR (default: a fresh temp dir);
# select_vectors.py then writes test/vectors/{batches,requests,responses}.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${1:-$(mktemp -d /tmp/logrep-capture.XXXXXX)}
mkdir -p "$WORK/bin" "$WORK/cap" "$WORK/out"
echo "capture: work dir $WORK"

cc -O1 -Wall -o "$WORK/bin/mock_cluster" "$HERE/mock_cluster.c" -lrdkafka
cc -O1 -Wall -o "$WORK/bin/rdk_client" "$HERE/rdk_client.c" -lrdkafka
if [ ! -d "$HERE/node_modules/kafkajs" ]; then
    (cd "$HERE" && npm ci --no-audit --no-fund)
fi

PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

wait_line() { # file -> first line, waiting up to 10 s
    for _ in $(seq 100); do
        if [ -s "$1" ]; then head -1 "$1"; return 0; fi
        sleep 0.1
    done
    echo "capture: timed out waiting for $1" >&2
    return 1
}

# One single-broker mock cluster for every scenario (the log persists, so the
# consumers read what the producers wrote).
TOPICS="rdk-none:1 rdk-gzip:1 rdk-snappy:1 rdk-lz4:1 rdk-zstd:1 rdk-idem:1 rdk-txn:1 rdk-keyed:4
        kjs-none:1 kjs-gzip:1 kjs-idem:1 kjs-txn:1 kjs-keyed:4"
# shellcheck disable=SC2086
"$WORK/bin/mock_cluster" 1 900 $TOPICS > "$WORK/mock.boot" 2>&1 < /dev/null &
PIDS+=($!)
MOCK=$(wait_line "$WORK/mock.boot")
echo "capture: mock cluster at $MOCK"

# scenario NAME CMD... : runs CMD (with @BOOT@ replaced by the proxy's
# bootstrap list) through a fresh capture proxy writing to cap/NAME.
scenario() {
    local name=$1; shift
    rm -rf "$WORK/cap/$name"
    python3 "$HERE/kafka_capture.py" --out "$WORK/cap/$name" --upstream "$MOCK" \
        --controller-id 1 --ready-file "$WORK/cap/$name.ready" > /dev/null &
    local proxy=$!
    local boot
    boot=$(wait_line "$WORK/cap/$name.ready")
    local args=()
    for a in "$@"; do args+=("${a//@BOOT@/$boot}"); done
    echo "capture: $name: ${args[*]}"
    echo "$*" | sed "s|$WORK/bin/||g; s|$HERE/||g" > "$WORK/out/$name.cmd"
    if ! timeout 90 "${args[@]}" > "$WORK/out/$name.txt" 2> "$WORK/out/$name.err"; then
        echo "capture: $name failed:" >&2
        tail -20 "$WORK/out/$name.err" >&2
        kill "$proxy"
        return 1
    fi
    sleep 0.3
    kill "$proxy"
    wait "$proxy" 2>/dev/null || true
}

RDK="$WORK/bin/rdk_client"
KJS=(node "$HERE/kjs_client.js")

scenario rdk-metadata kcat -b @BOOT@ -L
for codec in none gzip snappy lz4 zstd; do
    scenario "rdk-produce-$codec" "$RDK" produce @BOOT@ "rdk-$codec" "$codec"
done
scenario rdk-idem "$RDK" produce @BOOT@ rdk-idem none idempotent
scenario rdk-txn "$RDK" txn @BOOT@ rdk-txn rdk-txn-group
scenario rdk-keyed "$RDK" keyed @BOOT@ rdk-keyed 16
# 5 per codec topic, 10 idempotent, 3 transactional (read_uncommitted), 16 keyed
scenario rdk-consume "$RDK" consume @BOOT@ rdk-group read_uncommitted 54 \
    rdk-none rdk-gzip rdk-snappy rdk-lz4 rdk-zstd rdk-idem rdk-txn rdk-keyed

scenario kjs-metadata "${KJS[@]}" metadata @BOOT@
scenario kjs-produce-none "${KJS[@]}" produce @BOOT@ kjs-none none
scenario kjs-produce-gzip "${KJS[@]}" produce @BOOT@ kjs-gzip gzip
scenario kjs-idem "${KJS[@]}" produce @BOOT@ kjs-idem none idempotent
scenario kjs-txn "${KJS[@]}" txn @BOOT@ kjs-txn kjs-txn-group
scenario kjs-keyed "${KJS[@]}" keyed @BOOT@ kjs-keyed 16
scenario kjs-consume "${KJS[@]}" consume @BOOT@ kjs-group 39 \
    kjs-none kjs-gzip kjs-idem kjs-txn kjs-keyed

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "kcat: $(kcat -V 2>&1 | grep -m1 Version)"
    echo "librdkafka-dev: $(dpkg-query -W -f='${Version}' librdkafka-dev)"
    echo "node: $(node --version)"
    echo "kafkajs: $(cd "$HERE" && npm ls kafkajs --depth=0 | grep -o 'kafkajs@[0-9.]*')"
} > "$WORK/versions.txt"
cat "$WORK/versions.txt"

python3 "$HERE/select_vectors.py" "$WORK" "$ROOT"
