#!/bin/bash
# The minimal broker (examples/minimal/, build/examples/minimal-broker) on
# loopback, driven by kcat: a 1-node cluster (metadata, produce, consume,
# a restart on the same data), then a 3-node cluster whose brokers name
# the controller by host name ("localhost": the resolver thread's path)
# with replication factor 3 and acks=all. Every wait is bounded; the
# brokers are always stopped and the directory removed.
#
#   test/interop/minimal.sh BUILD_DIR
set -u
B=${1:-build}
SRC=$(cd "$(dirname "$0")" && pwd)
MINI=$B/examples/minimal-broker
T0=$(date +%s)
SUITE=minimal

[ -x "$MINI" ] || { echo "minimal: $MINI missing"; exit 1; }
command -v kcat >/dev/null || { echo "minimal: kcat missing (make deps)"; exit 1; }

. "$SRC/cluster.sh"

# The minimal broker takes library properties as key=value arguments:
# nodeI.args holds them, one a line (later ones win). CTL_HOST: how the
# brokers name the controller in controller.quorum.voters.
mini_init() { # mini_init N CTL_HOST
    cluster_ports "$1" 1 # node 1 is the only controller
    local i
    for i in $(seq 1 "$CL_N"); do
        {
            node_lib_props "$i" "$2"
            if [ "$CL_N" = 1 ]; then
                echo "default.replication.factor=1"
                echo "min.insync.replicas=1"
            fi
        } > "$CL_DIR/node$i.args"
    done
}

node_start() { # overrides cluster.sh's: arguments instead of a properties file
    local i=$1 args
    mapfile -t args < "$CL_DIR/node$i.args"
    "$MINI" "${args[@]}" >> "$CL_DIR/node$i.log" 2>&1 &
    eval "CL_PID_$i=$!"
}

K() { timeout 30 kcat -b "$BOOTSTRAP" -X socket.timeout.ms=20000 "$@"; }

suite_traps

# Produces N keyed records to TOPIC with acks=all and reads them back.
round_trip() { # round_trip TOPIC N
    local topic=$1 n=$2 f=$CL_DIR/in-$1.txt
    for i in $(seq 1 "$n"); do echo "k$((i % 5)):record $i of $topic"; done > "$f"
    K -P -t "$topic" -K : -X request.required.acks=all -l "$f" || return 1
    local got
    got=$(K -C -t "$topic" -o beginning -e -q -f '%k:%s\n' | sort)
    [ "$got" = "$(sort "$f")" ] || { echo "read back differs:"; diff <(sort "$f") <(echo "$got") | head; return 1; }
    # One key, one partition.
    local spread
    spread=$(K -C -t "$topic" -o beginning -e -q -f '%k %p\n' | sort -u | awk '{print $1}' | uniq -d)
    [ -z "$spread" ] || { echo "keys on several partitions: $spread"; return 1; }
}

# ---------------------------------------------------------------- 1 node
mini_init 1 127.0.0.1
cluster_start
if cluster_wait_ready; then
    pass "1 minimal broker starts ($(( $(date +%s) - T0 )) s)"
else
    fail "1 minimal broker starts" "see logs"
    exit 1
fi

t_meta1() {
    local out; out=$(K -L)
    echo "$out" | grep -q '^  broker 1 at 127.0.0.1:.* (controller)' || { echo "$out"; return 1; }
}
check "kcat -L: one broker, the controller" t_meta1

check "kcat -P 500 keyed records (acks=all), kcat -C reads them back" round_trip one 500

t_topic_meta() {
    local out; out=$(K -L -t one)
    [ "$(echo "$out" | grep -c 'partition [0-2], leader 1, replicas: 1, isrs: 1')" = 3 ] ||
        { echo "$out"; return 1; }
}
check "kcat -L -t: 3 partitions led by node 1" t_topic_meta

t_restart() {
    node_kill 1 TERM
    node_start 1
    cluster_wait_ready || return 1
    local n; n=$(K -C -t one -o beginning -e -q | wc -l)
    [ "$n" = 500 ] || { echo "after restart: $n records"; return 1; }
}
check "SIGTERM and restart: the records are still there" t_restart
cluster_stop

# ---------------------------------------------------------------- 3 nodes
T1=$(date +%s)
mini_init 3 localhost
cluster_start
if cluster_wait_ready; then
    pass "3 minimal brokers start, the controller named by host name ($(( $(date +%s) - T1 )) s)"
else
    fail "3 minimal brokers start" "see logs"
    exit 1
fi

t_meta3() {
    local out; out=$(K -L)
    [ "$(echo "$out" | grep -c '^  broker ')" = 3 ] || { echo "$out"; return 1; }
    echo "$out" | grep -q '(controller)'
}
check "kcat -L lists 3 brokers and the controller" t_meta3

# The controller's host name was looked up off the loop: a broker that
# named it runs the resolver thread beside its loop.
t_resolver() {
    local pid; pid=$(node_pid 2)
    local n; n=$(ls "/proc/$pid/task" | wc -l)
    [ "$n" = 2 ] || { echo "node 2 runs $n threads"; return 1; }
}
check "brokers resolved the controller's host name on the resolver thread" t_resolver

check "kcat -P 1000 keyed records (acks=all, RF 3), kcat -C reads them back" round_trip three 1000

t_isr3() {
    local t=0 out
    while [ $t -lt 40 ]; do
        out=$(K -L -t three)
        [ "$(echo "$out" | grep -c 'replicas: [1-3],[1-3],[1-3], isrs: [1-3],[1-3],[1-3]')" = 3 ] && return 0
        sleep 0.5; t=$((t+1))
    done
    echo "$out"; return 1
}
check "kcat -L -t: every partition has 3 replicas, all in sync" t_isr3

# Followers copy the leader's batches as they are: every partition's
# segment is the same on the three nodes.
t_replicas_same() {
    local p
    for p in 0 1 2; do
        local f=00000000000000000000.log
        [ -s "$CL_DIR/data1/three-$p/$f" ] || { echo "partition $p: empty on node 1"; return 1; }
        cmp "$CL_DIR/data1/three-$p/$f" "$CL_DIR/data2/three-$p/$f" &&
            cmp "$CL_DIR/data1/three-$p/$f" "$CL_DIR/data3/three-$p/$f" || return 1
    done
}
check "the 3 replicas of each partition hold the same bytes" t_replicas_same

suite_exit "$T0"
