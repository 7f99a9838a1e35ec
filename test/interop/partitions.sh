#!/bin/bash
# One broker started with RLIMIT_NOFILE at 4096: a topic of 9,999
# partitions (the most one CreateTopics may make: 10,000 records with the
# topic's own) is created and opened with its ~30,000 files under the
# storage's descriptor pool (half the limit), and produce and fetch work on
# partitions opened first, in between and last.
#
#   test/interop/partitions.sh BUILD_DIR
set -u
B=${1:-build}
SRC=$(cd "$(dirname "$0")" && pwd)
BROKER=$B/logrep-broker
T0=$(date +%s)
SUITE=partitions
N=9999
LIMIT=4096
[ -x "$BROKER" ] || { echo "partitions: $BROKER missing"; exit 1; }
. "$SRC/cluster.sh"
suite_traps

CL_EXTRA_PROPS=$'default.replication.factor=1\nmin.insync.replicas=1'
# On tmpfs when there is one: this suite is about descriptors, not about
# how fast a shared disk syncs 30,000 files.
[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
cluster_init 1
# The broker inherits the lowered limit (and so derives its pool from it).
ulimit -n $LIMIT || { fail "ulimit" "cannot lower RLIMIT_NOFILE"; suite_exit "$T0"; }
node_start 1
if ! cluster_wait_ready; then
    fail "broker starts" "see logs"
    suite_exit "$T0"
fi
pid=$(node_pid 1)
port=$(eval echo "\$CL_PORT_1")
url=$(sed -n 's/^metrics.listener=//p' "$CL_DIR/node1.properties")
metric() { timeout 10 curl -s "$url/metrics" | sed -n "s/^$1{node=\"1\"} //p"; }
fds() { ls "/proc/$pid/fd" 2>/dev/null | wc -l; }
topics() { timeout 60 python3 "$SRC/topics.py" 127.0.0.1 "$port" "$@"; }

t_create() {
    local before; before=$(fds)
    local r; r=$(topics create wide $N 1) || return 1
    [ "${r%% *}" = 0 ] || { echo "create: $r"; return 1; }
    local t=0 opened=0 peak=0 n
    while [ $t -lt 600 ]; do
        opened=$(grep -c 'wide-[0-9]*: opened' "$CL_DIR/node1.log")
        n=$(fds); [ "$n" -gt "$peak" ] && peak=$n
        [ "$opened" -ge $N ] && break
        sleep 0.2; t=$((t+1))
    done
    [ "$opened" -ge $N ] || { echo "$opened of $N partitions opened"; return 1; }
    grep -q 'opening .*wide-' "$CL_DIR/node1.log" && { grep 'opening .*wide-' "$CL_DIR/node1.log" | head -3; return 1; }
    local cap open over files
    cap=$(metric logrep_storage_max_open_files)
    open=$(metric logrep_storage_open_files)
    over=$(metric logrep_storage_over_cap_opens_total)
    files=$(find "$CL_DIR/data1" -path '*wide-*' -type f | wc -l)
    [ "$cap" = $((LIMIT / 2)) ] || { echo "pool cap $cap"; return 1; }
    [ "$open" -le "$cap" ] && [ "$over" = 0 ] || { echo "open $open over cap $over"; return 1; }
    [ "$files" -gt $((LIMIT * 2)) ] || { echo "only $files files"; return 1; }
    echo "note: $files files, $before descriptors before, peak $peak while opening, pool $open of $cap"
}
check "a topic of $N partitions opens under RLIMIT_NOFILE $LIMIT" t_create

t_produce_fetch() {
    local p r
    for p in 0 5000 $((N - 1)); do
        r=$(topics produce wide $p) || return 1
        [ "$r" = 0 ] || { echo "produce $p: $r"; return 1; }
        r=$(topics fetch wide $p) || return 1
        [ "$r" = 0 ] || { echo "fetch $p: $r"; return 1; }
    done
    local n; n=$(fds)
    [ "$n" -lt $((LIMIT / 2 + 64)) ] || { echo "$n descriptors"; return 1; }
    echo "note: $n descriptors, $(metric logrep_storage_reopens_total) reopens, $(metric logrep_storage_evictions_total) evictions"
}
check "produce and fetch on partitions 0, 5000 and $((N - 1))" t_produce_fetch

suite_exit "$T0"
