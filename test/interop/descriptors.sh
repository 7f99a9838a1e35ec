#!/bin/bash
# One broker with RLIMIT_NOFILE lowered: out of descriptors it pauses
# accepting (no spin on the listener), logs once, counts it in metrics,
# and accepts again once descriptors free.
#
#   test/interop/descriptors.sh BUILD_DIR
set -u
B=${1:-build}
SRC=$(cd "$(dirname "$0")" && pwd)
BROKER=$B/logrep-broker
T0=$(date +%s)
SUITE=descriptors
[ -x "$BROKER" ] || { echo "descriptors: $BROKER missing"; exit 1; }
. "$SRC/cluster.sh"
suite_traps

CL_EXTRA_PROPS=$'default.replication.factor=1\nmin.insync.replicas=1'
cluster_init 1
node_start 1
if ! cluster_wait_ready; then
    fail "broker starts" "see logs"
    suite_exit "$T0"
fi
pid=$(node_pid 1)
prlimit --pid "$pid" --nofile=64:64 || { fail "prlimit" "cannot lower RLIMIT_NOFILE"; suite_exit "$T0"; }

metric() {
    local url; url=$(sed -n 's/^metrics.listener=//p' "$CL_DIR/node1.properties")
    timeout 10 curl -s "$url/metrics" | sed -n "s/^$1{node=\"1\"} //p"
}

t_exhausted() {
    python3 "$SRC/descriptors.py" "$(eval echo "\$CL_PORT_1")" "$pid" || return 1
    local paused; paused=$(metric logrep_broker_accept_paused_total)
    [ -n "$paused" ] && [ "$paused" -gt 0 ] || { echo "accept_paused_total: '$paused'"; return 1; }
    local logged; logged=$(grep -c 'pausing accepts' "$CL_DIR/node1.log")
    # Once per episode: far fewer lines than pauses.
    [ "$logged" -ge 1 ] && [ "$logged" -lt "$paused" ] || { echo "logged $logged times for $paused pauses"; return 1; }
    echo "note: paused $paused times, logged $logged"
}
check "out of descriptors: connections wait without an accept spin, served once descriptors free" \
    t_exhausted

suite_exit "$T0"
