#!/bin/bash
# `logrep quorum` against three logrep-broker processes that are all
# voters of the metadata quorum: --describe --status and --replication
# from the leader (found among the three controller listeners), a
# follower alone (NOT_LEADER_OR_FOLLOWER naming the leader, exit 1), a
# broker listener (forwarded to the active controller); then the leader is killed
# and the tool must find the new one in a later epoch. Every wait is
# bounded; the brokers are always stopped and the directory removed.
#
#   test/interop/quorum_tool.sh BUILD_DIR
set -u
B=${1:-build}
SRC=$(cd "$(dirname "$0")" && pwd)
BROKER=$B/logrep-broker
LOGREP=$B/logrep
T0=$(date +%s)
SUITE=quorum-tool

for f in "$BROKER" "$LOGREP"; do
    [ -x "$f" ] || { echo "$SUITE: $f missing"; exit 1; }
done

. "$SRC/cluster.sh"
suite_traps

cluster_ports 3
VOTERS=""
for i in 1 2 3; do
    eval "CL_CPORT_$i=$(free_port)"
    eval "VOTERS=\"\${VOTERS:+\$VOTERS,}$i@127.0.0.1:\$CL_CPORT_$i\""
done
CONTROLLERS=""
for i in 1 2 3; do
    eval "p=\$CL_PORT_$i; c=\$CL_CPORT_$i"
    CONTROLLERS="${CONTROLLERS:+$CONTROLLERS,}127.0.0.1:$c"
    cat > "$CL_DIR/node$i.properties" <<EOF
node.id=$i
process.roles=broker,controller
listeners=PLAINTEXT://127.0.0.1:$p,CONTROLLER://127.0.0.1:$c
advertised.listeners=PLAINTEXT://127.0.0.1:$p
controller.quorum.voters=$VOTERS
log.dirs=$CL_DIR/data$i
num.partitions=3
default.replication.factor=3
min.insync.replicas=2
broker.session.timeout.ms=6000
broker.heartbeat.interval.ms=500
controlled.shutdown.timeout.ms=5000
EOF
done

Q() { timeout 30 "$LOGREP" quorum --timeout 5000 "$@"; }
field() { awk -v k="$1:" '$1 == k {print $2}' "$CL_DIR/status.out"; }

# Until the voters describe a quorum whose leader has committed its
# LeaderChange record (30 s at most). A leader answers as soon as it is
# elected, with HighWatermark -1 until a majority has fetched, as Kafka's
# does; the checks below are about a settled quorum.
wait_described() {
    local t=0
    while [ $t -lt 60 ]; do
        if Q --bootstrap-server "$CONTROLLERS" --describe --status > "$CL_DIR/status.out" 2> "$CL_DIR/status.err" &&
           [ "$(field HighWatermark)" -ge 1 ]; then
            return 0
        fi
        sleep 0.5; t=$((t+1))
    done
    cat "$CL_DIR/status.out" "$CL_DIR/status.err"
    return 1
}

cluster_start
if wait_described; then
    pass "three voters describe their quorum ($(( $(date +%s) - T0 )) s)"
else
    fail "three voters describe their quorum" "see logs"
    exit 1
fi
LEADER=$(field LeaderId)
EPOCH=$(field LeaderEpoch)

t_status() {
    cat "$CL_DIR/status.out"
    [ "$(sed -n 's/^\([A-Za-z]*\): *.*/\1/p' "$CL_DIR/status.out" | tr '\n' ' ')" = \
      "ClusterId LeaderId LeaderEpoch HighWatermark MaxFollowerLag MaxFollowerLagTimeMs CurrentVoters CurrentObservers " ] || return 1
    case "$LEADER" in 1|2|3) ;; *) return 1 ;; esac
    [ "$EPOCH" -ge 1 ] && [ "$(field HighWatermark)" -ge 1 ] || return 1
    [ "$(field CurrentVoters)" = "[1,2,3]" ] || return 1
    echo "note: leader $LEADER, epoch $EPOCH"
}
check "--describe --status: the eight lines, voters [1,2,3]" t_status

# Until the leader has heard from both followers (10 s at most): the
# last voter may not have fetched yet when the other made the majority.
wait_fetched() {
    local t=0
    while [ $t -lt 20 ]; do
        Q --bootstrap-server "$CONTROLLERS" --describe --replication > "$CL_DIR/repl.out" &&
            [ "$(awk '$6 == "Follower" && $4 != -1' "$CL_DIR/repl.out" | wc -l)" = 2 ] && return 0
        sleep 0.5; t=$((t+1))
    done
    return 1
}

t_replication() {
    wait_fetched || return 1
    Q --bootstrap-server "$CONTROLLERS" --describe --replication > "$CL_DIR/repl.out" || return 1
    cat "$CL_DIR/repl.out"
    [ "$(head -1 "$CL_DIR/repl.out" | tr -s ' \t' ' ')" = \
      "NodeId LogEndOffset Lag LastFetchTimestamp LastCaughtUpTimestamp Status " ] || return 1
    [ "$(sed -n 2p "$CL_DIR/repl.out" | awk '{print $1, $6}')" = "$LEADER Leader" ] || return 1
    [ "$(grep -c 'Follower' "$CL_DIR/repl.out")" = 2 ] || return 1
    # The brokers' clock is the wall clock: times as "N ms ago".
    Q --bootstrap-server "$CONTROLLERS" --describe --replication --human-readable > "$CL_DIR/human.out" || return 1
    cat "$CL_DIR/human.out"
    [ "$(grep -c '[0-9] ms ago' "$CL_DIR/human.out")" = 3 ]
}
check "--describe --replication [--human-readable]: the leader's row first, two followers" t_replication

FOLLOWER=$(( LEADER % 3 + 1 ))
t_follower() {
    local c st
    eval "c=\$CL_CPORT_$FOLLOWER"
    Q --bootstrap-server "127.0.0.1:$c" --describe > "$CL_DIR/f.out" 2>&1
    st=$?
    cat "$CL_DIR/f.out"
    [ $st = 1 ] && grep -q "NOT_LEADER_OR_FOLLOWER: .*the leader is node $LEADER (epoch $EPOCH)" "$CL_DIR/f.out"
}
check "a follower alone: NOT_LEADER_OR_FOLLOWER naming the leader, exit 1" t_follower

t_broker_listener() {
    local st
    Q --bootstrap-server "127.0.0.1:$CL_PORT_1" --describe > "$CL_DIR/b.out" 2>&1
    st=$?
    cat "$CL_DIR/b.out"
    [ $st = 0 ] && grep -q "LeaderId:" "$CL_DIR/b.out"
}
check "a broker listener: forwarded to the active controller" t_broker_listener

node_kill "$LEADER" KILL
t_failover() {
    local t=0
    while [ $t -lt 60 ]; do
        if Q --bootstrap-server "$CONTROLLERS" --describe --status > "$CL_DIR/status.out" 2> "$CL_DIR/status.err" &&
           [ "$(field LeaderId)" != "$LEADER" ]; then
            cat "$CL_DIR/status.out"
            [ "$(field LeaderEpoch)" -gt "$EPOCH" ] || return 1
            echo "note: leader $(field LeaderId) in epoch $(field LeaderEpoch)"
            return 0
        fi
        sleep 0.5; t=$((t+1))
    done
    cat "$CL_DIR/status.err"
    return 1
}
check "after kill -9 of the leader: a new leader in a later epoch" t_failover

suite_exit "$T0"
