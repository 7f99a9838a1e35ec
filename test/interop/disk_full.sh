#!/bin/bash
# Full-disk suite: one logrep-broker with log.dirs of 16 MB, filled
# by an acks=all librdkafka producer (kcat). The producer must get a Kafka
# error within its timeout, the broker must log and count the episode,
# acknowledged records must read back, and produces must succeed again
# once a filler file is deleted (docs/storage.md, "A full log directory").
#
#   test/interop/disk_full.sh BUILD_DIR
#
# The tmpfs is mounted in a private user+mount namespace when the kernel
# allows it (no privileges needed), else directly (root). Where neither
# works (some containers) the directory is an ordinary one and an
# LD_PRELOAD shim (test/interop/enospc_shim.c, built by the Makefile)
# fails the broker's writes into it with ENOSPC past the same 16 MB.
# LOGREP_DF_MODE=tmpfs or =shim forces one mode (tmpfs fails when it
# cannot mount); the output says which mode ran.
set -u
B=${1:-build}
SRC=$(cd "$(dirname "$0")" && pwd)
SUITE=disk_full
T0=$(date +%s)
DF_MODE=${LOGREP_DF_MODE:-auto}

if [ -z "${DF_INNER:-}" ] && [ "$DF_MODE" != shim ]; then
    probe=$(mktemp -d "${TMPDIR:-/tmp}/logrep-df-probe.XXXXXX")
    if unshare --user --map-root-user --mount sh -c "mount -t tmpfs -o size=1m tmpfs '$probe'" 2>/dev/null; then
        rmdir "$probe"
        DF_INNER=userns exec unshare --user --map-root-user --mount "$0" "$@"
    fi
    if unshare --mount sh -c "mount -t tmpfs -o size=1m tmpfs '$probe'" 2>/dev/null; then
        rmdir "$probe"
        DF_INNER=mountns exec unshare --mount "$0" "$@"
    fi
    rmdir "$probe"
    if [ "$DF_MODE" = tmpfs ]; then
        echo "$SUITE: FAIL cannot mount a size-limited tmpfs (neither in a user namespace nor as root)"
        exit 1
    fi
fi
DF_INNER=${DF_INNER:-shim}
SHIM=$(cd "$B" && pwd)/test/enospc_shim.so
if [ "$DF_INNER" = shim ] && [ ! -f "$SHIM" ]; then
    echo "$SUITE: FAIL $SHIM missing (make $B/test/enospc_shim.so)"
    exit 1
fi
echo "$SUITE: mode $DF_INNER"

BROKER=$B/logrep-broker
command -v kcat >/dev/null || { echo "$SUITE: kcat missing (make deps)"; exit 1; }
[ -x "$BROKER" ] || { echo "$SUITE: $BROKER missing"; exit 1; }
. "$SRC/cluster.sh"
suite_traps

CL_EXTRA_PROPS=$'min.insync.replicas=1\ndefault.replication.factor=1\nnum.partitions=1\nlog.segment.bytes=2097152'
cluster_init 1
DATA=$CL_DIR/data1
mkdir -p "$DATA"
if [ "$DF_INNER" = shim ]; then
    export LOGREP_ENOSPC_DIR=$DATA LOGREP_ENOSPC_BYTES=$((16 << 20))
    CL_PRELOAD=$SHIM
    WHERE="in a 16 MB budget (ENOSPC shim, no tmpfs mounted)"
else
    mount -t tmpfs -o size=16m tmpfs "$DATA" || { fail "mount tmpfs ($DF_INNER)"; suite_exit "$T0"; }
    WHERE="on a 16 MB tmpfs (mounted in a $DF_INNER namespace)"
fi
umount_data() { [ "$DF_INNER" = shim ] || umount "$DATA" 2>/dev/null; }
trap 'node_kill 1 TERM; umount_data; suite_on_exit' EXIT
node_start 1
cluster_wait_ready || { fail "broker starts"; suite_exit "$T0"; }
pass "broker $WHERE starts"

METRICS=$(sed -n 's|^metrics.listener=http://||p' "$CL_DIR/node1.properties")
metric() { curl -s "http://$METRICS/metrics" | sed -n "s/^$1{node=\"1\"[^}]*} //p" | head -1; }
P() { timeout 60 kcat -b "$BOOTSTRAP" -P -t df -p 0 -X acks=all -X message.timeout.ms=8000 "$@"; }

# A filler leaves 4 MB, then 6 MB of records more than fill it.
head -c $((12 << 20)) /dev/zero > "$DATA/filler" 2>/dev/null
python3 -c "
for i in range(6000): print('rec%06d-' % i + 'x' * 1000)" > "$CL_DIR/in.txt"

t_fill() {
    local t=$(date +%s)
    P -X retries=0 -l "$CL_DIR/in.txt" > "$CL_DIR/fill.out" 2>&1
    local d=$(( $(date +%s) - t ))
    grep -q 'Disk error' "$CL_DIR/fill.out" || { tail -3 "$CL_DIR/fill.out"; return 1; }
    [ "$d" -lt 30 ] || { echo "took $d s"; return 1; }
    echo "note: $(grep -c 'Delivery failed' "$CL_DIR/fill.out") records refused with KAFKA_STORAGE_ERROR in ${d} s"
}
check "producer gets KAFKA_STORAGE_ERROR within its timeout" t_fill

t_log() { grep -q 'append of .* failed.*errno 28' "$CL_DIR/node1.log"; }
check "broker log names the full disk (errno 28)" t_log

t_metrics() {
    local e f; e=$(metric logrep_node_append_errors_total); f=$(metric logrep_node_append_failing_partitions)
    # The gauge may be 0 again: smaller batches fit after a large one failed.
    [ "${e:-0}" -gt 0 ] && [ -n "$f" ] || { echo "errors=$e failing=$f"; return 1; }
    echo "note: $e failed appends counted"
}
check "metrics count the failed appends" t_metrics

t_read() {
    local hw; hw=$(metric logrep_partition_high_watermark)
    [ "${hw:-0}" -gt 0 ] || { echo "hw=$hw"; return 1; }
    timeout 30 kcat -b "$BOOTSTRAP" -C -t df -p 0 -o beginning -e -q > "$CL_DIR/out.txt" || return 1
    [ "$(wc -l < "$CL_DIR/out.txt")" = "$hw" ] || { echo "read $(wc -l < "$CL_DIR/out.txt") of $hw"; return 1; }
    # Refused batches leave gaps; what was kept is input lines, in order.
    python3 - "$CL_DIR/in.txt" "$CL_DIR/out.txt" <<'PY' || return 1
import sys
src = open(sys.argv[1]).read().split('\n')
last = -1
for line in open(sys.argv[2]).read().split('\n')[:-1]:
    i = int(line[3:9])
    if i <= last or src[i] != line:
        sys.exit('record %r out of order or damaged' % line[:12])
    last = i
PY
    echo "note: $hw acknowledged records intact"
}
check "acknowledged records consume back intact" t_read

t_resume() {
    rm -f "$DATA/filler"
    echo "after-free" | P > "$CL_DIR/resume.out" 2>&1 || { cat "$CL_DIR/resume.out"; return 1; }
    timeout 30 kcat -b "$BOOTSTRAP" -C -t df -p 0 -o -1 -e -q | grep -qx after-free || return 1
    [ "$(metric logrep_node_append_failing_partitions)" = 0 ] || return 1
    grep -q 'appends succeed again' "$CL_DIR/node1.log"
}
check "produces succeed again once space is freed" t_resume

suite_exit "$T0"
