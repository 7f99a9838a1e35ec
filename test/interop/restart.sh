#!/bin/bash
# Restart suite: nodes killed or stopped and started again must serve every
# acknowledged record again, within seconds of the last node's start.
#
#   test/interop/restart.sh BUILD_DIR
#
# Cases: one combined broker+controller node after kill -9; a cluster of
# 3 combined nodes (a metadata quorum of 3 voters) stopped with SIGTERM
# of the active controller first, of the active controller last, and
# killed with kill -9 all at once; a new cluster whose third node starts
# a second after the other two. Each prints the time from the last
# node's start to all data readable, which must come within 20 s. Every
# wait is bounded; clusters are always stopped and removed.
set -u
B=${1:-build}
SRC=$(cd "$(dirname "$0")" && pwd)
BROKER=$B/logrep-broker
T0=$(date +%s)
SUITE=restart
[ -x "$BROKER" ] || { echo "restart: $BROKER missing"; exit 1; }
command -v kcat >/dev/null || { echo "restart: kcat missing (make deps)"; exit 1; }

. "$SRC/cluster.sh"

suite_traps

K() { timeout 30 kcat -b "$BOOTSTRAP" -X socket.timeout.ms=20000 "$@"; }
now_ms() { date +%s%3N; }

TOPICS=""
# produce TOPIC N: N records acknowledged with acks=all (kcat fails on any
# undelivered record); remembers the topic for read_all.
produce() {
    local topic=$1 n=$2
    seq 1 "$n" | sed "s/^/$topic record /" |
        K -P -t "$topic" -X acks=all -X message.timeout.ms=20000 || return 1
    TOPICS="$TOPICS $topic"
}
# Every record of every produced topic, sorted, one line each.
read_all() {
    local t
    for t in $TOPICS; do
        timeout 10 kcat -b "$BOOTSTRAP" -X socket.timeout.ms=5000 -C -t "$t" -o beginning -e -q \
            -f "$t %p %o %s\n" 2>/dev/null
    done | sort
}
# After the last node started at $1 (ms): until read_all equals $2's
# content (20 s at most); prints the time it took (and $3).
wait_readable() {
    local start=$1 want=$2 got
    while [ $(( $(now_ms) - start )) -lt 20000 ]; do
        got=$(read_all)
        if [ "$got" = "$(cat "$want")" ]; then
            echo "note: readable $(( $(now_ms) - start )) ms after the last node started${3:-}"
            return 0
        fi
        sleep 0.5
    done
    echo "after 20 s: $(echo "$got" | grep -c .) of $(grep -c . "$want") records readable"
    return 1
}

# ---- one combined node, kill -9, restart
t_single() {
    produce quick 1000 || return 1
    read_all > "$CL_DIR/want"
    [ "$(grep -c . "$CL_DIR/want")" = 1000 ] || { echo "before: $(grep -c . "$CL_DIR/want") records"; return 1; }
    node_kill 1 KILL
    node_start 1
    wait_readable "$(now_ms)" "$CL_DIR/want"
}
CL_EXTRA_PROPS=$'default.replication.factor=1\nmin.insync.replicas=1\nnum.partitions=1'
cluster_init 1
cluster_start
cluster_wait_ready || { fail "single node starts"; exit 1; }
check "one broker+controller node: kill -9 and restart serves all 1000 acknowledged records" t_single
cluster_stop
TOPICS=""
CL_EXTRA_PROPS=""

# ---- three combined nodes: stop all (how: $1), start all. The active
# controller is found from the metrics pages when the stop begins.
t_cluster() {
    local how=$1 topic=$2 i a others
    produce "$topic" 20000 || return 1
    read_all > "$CL_DIR/want"
    [ "$(grep -c "^$topic " "$CL_DIR/want")" = 20000 ] || { echo "before: $(grep -c "^$topic " "$CL_DIR/want") records of $topic"; return 1; }
    a=$(wait_active_controller) || { echo "no active controller"; return 1; }
    others=$(seq 1 3 | grep -vx "$a" | tr '\n' ' ')
    case $how in
    controller-first) for i in $a $others; do node_kill "$i" TERM; done ;;
    controller-last) for i in $others $a; do node_kill "$i" TERM; done ;;
    kill-all)
        for i in 1 2 3; do kill -KILL "$(node_pid "$i")"; done
        for i in 1 2 3; do node_kill "$i" KILL; done ;;
    esac
    cluster_start
    wait_readable "$(now_ms)" "$CL_DIR/want" " (node $a was the active controller)"
}
cluster_init 3
cluster_start
cluster_wait_ready || { fail "cluster of 3 nodes starts"; exit 1; }
check "3 combined nodes, SIGTERM active controller first, all restarted: every acknowledged record readable" \
    t_cluster controller-first r-first
check "3 combined nodes, SIGTERM active controller last, all restarted: every acknowledged record readable" \
    t_cluster controller-last r-last
check "3 combined nodes, kill -9 of all at once, all restarted: every acknowledged record readable" \
    t_cluster kill-all r-kill

# ---- a new cluster, two nodes started a second before the third
t_late_node() {
    node_start 2
    node_start 3
    sleep 1 # their first connections to node 1 are refused
    node_start 1
    local start t=0 n; start=$(now_ms)
    # They try again after a short backoff, not at some later timer (a
    # new broker has none before a minute). Only node 1 is asked: a
    # request to another node would wake it.
    while [ $t -lt 20 ]; do
        n=$(timeout 10 kcat -b "127.0.0.1:$CL_PORT_1" -L -m 5 2>/dev/null | grep -c '^  broker ')
        if [ "$n" = 3 ]; then
            echo "note: all registered $(( $(now_ms) - start )) ms after the last node started"
            return 0
        fi
        sleep 0.5; t=$((t+1))
    done
    echo "after 10 s node 1 knows $n of 3 brokers"
    return 1
}
cluster_stop
cluster_init 3
check "new cluster of 3 combined nodes, node 1 started a second after the others: all registered within 10 s" \
    t_late_node

suite_exit "$T0"
