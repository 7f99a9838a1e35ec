#!/bin/bash
# Interop suite: a liblogrep cluster of 3 combined broker+controller
# nodes (logrep-broker processes on loopback, a metadata quorum of 3
# voters), driven by unmodified Kafka clients (kcat / librdkafka 2.0.2,
# kafkajs 2.2.4 when node is present). Every wait is bounded; the cluster
# is always stopped and its directory removed.
#
#   test/interop/run.sh BUILD_DIR
#
# Prints one line per check and a summary line; exit status 1 on failure.
set -u
B=${1:-build}
SRC=$(cd "$(dirname "$0")" && pwd)
BROKER=$B/logrep-broker
LOGREP=$B/logrep
RDK_CHECK=$B/test/rdk_check
RDK_ALTER=$B/test/rdk_alter
T0=$(date +%s)
SUITE=interop

for f in "$BROKER" "$LOGREP" "$RDK_CHECK" "$RDK_ALTER"; do
    [ -x "$f" ] || { echo "interop: $f missing"; exit 1; }
done
command -v kcat >/dev/null || { echo "interop: kcat missing (make deps)"; exit 1; }

. "$SRC/cluster.sh"

suite_traps

K() { timeout 30 kcat -b "$BOOTSTRAP" -X socket.timeout.ms=20000 "$@"; }

leader_of() { # leader_of TOPIC PARTITION
    K -L -t "$1" 2>/dev/null | sed -n "s/^ *partition $2, leader \([0-9-]*\),.*/\1/p"
}

# Retention checked every second, for topic_configs.sh; retired partition
# directories go soon (the lifecycle checks wait for it).
CL_EXTRA_PROPS=$'log.retention.check.interval.ms=1000\nfile.delete.delay.ms=3000\nlog.cleaner.backoff.ms=500'
cluster_init 3
cluster_start
if ! cluster_wait_ready; then
    fail "cluster of 3 combined nodes starts" "see logs"
    exit 1
fi
pass "cluster of 3 combined nodes starts ($(( $(date +%s) - T0 )) s)"

# ---- kcat -L
t_L() {
    local out; out=$(K -L)
    [ "$(echo "$out" | grep -c '^  broker ')" = 3 ] || { echo "$out"; return 1; }
    echo "$out" | grep -q '(controller)'
}
check "kcat -L lists 3 brokers and the controller" t_L

# ---- kcat -P with keys and headers, each codec; kcat -C reads them back
codec_round_trip() {
    local z=$1 topic=codec-$1
    local f=$CL_DIR/in-$z.txt
    for i in $(seq 1 300); do echo "key$((i % 7))|order $i: item=widget qty=$((i % 5)) note=repeated repeated repeated"; done > "$f"
    K -P -t "$topic" -p 0 -K '|' -z "$z" -H "codec=$z" -H "h2=v2" -l "$f" || return 1
    local got
    got=$(K -C -t "$topic" -p 0 -o beginning -e -q -f '%k|%s|%h\n')
    local want
    want=$(sed "s/\$/|codec=$z,h2=v2/" "$f")
    [ "$got" = "$want" ] || { echo "read back differs"; diff <(echo "$want") <(echo "$got") | head; return 1; }
    # The stored batches carry the codec (compression that helps is kept).
    "$LOGREP" dump "$CL_DIR"/data*/"$topic"-0/00000000000000000000.log 2>/dev/null |
        grep -qi "compresscodec: $z" || { echo "no $z batch on disk"; return 1; }
}
for z in gzip snappy lz4 zstd; do
    check "kcat -P -K -H -z $z, read back by kcat -C" codec_round_trip $z
done

# ---- kcat -C from the beginning, the end and an offset
t_offsets() {
    local n
    n=$(K -C -t codec-lz4 -p 0 -o beginning -e -q | wc -l)
    [ "$n" = 300 ] || { echo "beginning: $n"; return 1; }
    n=$(K -C -t codec-lz4 -p 0 -o end -e -q | wc -l)
    [ "$n" = 0 ] || { echo "end: $n"; return 1; }
    local line
    line=$(K -C -t codec-lz4 -p 0 -o 250 -e -q -f '%o %s\n' | head -1)
    [ "$line" = "250 order 251: item=widget qty=1 note=repeated repeated repeated" ] || { echo "offset 250: $line"; return 1; }
    n=$(K -C -t codec-lz4 -p 0 -o -10 -e -q | wc -l)
    [ "$n" = 10 ] || { echo "-o -10: $n"; return 1; }
}
check "kcat -C -o beginning / end / 250 / -10" t_offsets

# ---- kcat -Q: offset for a timestamp
t_query() {
    seq 1 20 | sed 's/^/early /' | K -P -t times -p 0 || return 1
    sleep 1.2
    local ts; ts=$(( $(date +%s%3N) ))
    sleep 0.3
    seq 1 5 | sed 's/^/late /' | K -P -t times -p 0 || return 1
    local out; out=$(K -Q -t "times:0:$ts")
    echo "$out" | grep -q 'offset 20\b' || { echo "$out"; return 1; }
}
check "kcat -Q finds the offset for a timestamp" t_query

# ---- librdkafka idempotent acks=all producer, checked read-back
check "librdkafka idempotent acks=all: every acked record once, murmur2 partition, key order" \
    "$RDK_CHECK" "$BOOTSTRAP" rdk 6 4 20000

# ---- kafkajs
"$SRC/install-kafkajs.sh"
if command -v node >/dev/null && [ -f "$SRC/node_modules/kafkajs/package.json" ]; then
    check "kafkajs producer (not idempotent), acks=-1" \
        timeout 90 node "$SRC/kafkajs_check.js" "$BOOTSTRAP" kjs-plain 1000 0
    check "kafkajs idempotent producer" \
        timeout 90 node "$SRC/kafkajs_check.js" "$BOOTSTRAP" kjs-idem 1000 1
else
    echo "interop: skip kafkajs (node or kafkajs not available)"
fi

# ---- bad input against one broker; the others and its clients unaffected
t_bad() {
    python3 "$SRC/bad_input.py" 127.0.0.1 "$CL_PORT_2" || return 1
    kill -0 "$(node_pid 2)" || { echo "broker 2 died"; return 1; }
    [ "$(K -C -t codec-lz4 -p 0 -o beginning -e -q | wc -l)" = 300 ]
}
if command -v python3 >/dev/null; then
    check "bad input (malformed, oversized, unknown API, half-sent, flood) closes only that connection" t_bad
fi

# ---- kill -9 of the active controller, which also leads a partition,
# during acks=all produce: another voter becomes the active controller,
# the dead node's leaderships move, and the node comes back after that
t_kill_controller() {
    K -L -t failover >/dev/null 2>&1   # auto-create (3 partitions)
    local victim="" p l w
    for w in $(seq 1 40); do
        victim=$(active_controller)
        if [ -n "$victim" ]; then
            for p in 0 1 2; do
                [ "$(leader_of failover $p)" = "$victim" ] && break 2
            done
        fi
        victim=""
        sleep 0.25
    done
    [ -n "$victim" ] || { echo "no partition led by the active controller"; return 1; }
    "$RDK_CHECK" "$BOOTSTRAP" failover 3 14 10000 > "$CL_DIR/failover.out" 2>&1 &
    local cpid=$!
    sleep 2.5
    node_kill "$victim" KILL
    local t_kill; t_kill=$(date +%s%3N)
    local ctl="" moved=""
    for w in $(seq 1 60); do
        [ -n "$ctl" ] || ctl=$(active_controller)
        if [ -z "$moved" ] && ! K -L -t failover 2>/dev/null | grep -q "leader $victim,"; then
            moved=$(( $(date +%s%3N) - t_kill ))
        fi
        [ -n "$ctl" ] && [ -n "$moved" ] && break
        sleep 0.25
    done
    node_start "$victim"
    local rc=0
    wait $cpid || rc=$?
    grep '^rdk_check' "$CL_DIR/failover.out"
    [ -n "$ctl" ] || { echo "no new active controller within 15 s of the kill"; return 1; }
    [ -n "$moved" ] || { echo "node $victim still leads a partition 15 s after the kill"; return 1; }
    echo "note: node $victim killed; node $ctl active controller, leaderships moved after $moved ms"
    [ $rc = 0 ] || return 1
    cluster_wait_ready
}
check "kill -9 of the active controller (a partition leader) during acks=all produce loses and duplicates nothing" t_kill_controller

# ---- full cluster restart keeps everything; directories pass logrep verify
snapshot() {
    local t
    for t in codec-gzip codec-snappy codec-lz4 codec-zstd times rdk failover; do
        K -C -t "$t" -o beginning -e -q -f "$t %p %o %k %s\n" 2>/dev/null | sort
    done | md5sum
}
t_restart() {
    local before after
    before=$(snapshot)
    for i in 3 2 1; do node_kill "$i" TERM; done
    # Kafka's layout, and every partition directory verifies.
    local d n=0
    for d in "$CL_DIR"/data*/*-[0-9]*; do
        [ -d "$d" ] || continue
        case "$d" in *__cluster_metadata*) continue ;; esac
        ls "$d"/00000000000000000000.log "$d"/00000000000000000000.index \
           "$d"/00000000000000000000.timeindex >/dev/null || return 1
        "$LOGREP" verify "$d" >"$CL_DIR/verify.out" 2>&1 || { echo "logrep verify $d failed:"; tail -3 "$CL_DIR/verify.out"; return 1; }
        n=$((n+1))
    done
    [ $n -ge 30 ] || { echo "only $n partition directories"; return 1; }
    cluster_start
    cluster_wait_ready || return 1
    for w in $(seq 1 60); do
        after=$(snapshot)
        [ "$before" = "$after" ] && return 0
        sleep 0.5
    done
    echo "data differs after restart"
    return 1
}
check "full cluster restart keeps all data; partition directories pass logrep verify" t_restart

# ---- topic lifecycle: delete and re-create under a live producer and
# consumer; the metadata log closed to clients; bad names refused at once
TOPICS() { timeout 30 python3 "$SRC/topics.py" 127.0.0.1 "$@"; }
dirs_of() { ls -d "$CL_DIR"/data*/"$1" 2>/dev/null; }
topic_id_of() { sed -n 's/^topic_id: //p' "$1/partition.metadata"; }
t_delete_recreate() { # t_delete_recreate PORT RF
    local port=$1 rf=$2 r d
    r=$(TOPICS "$port" create dt 1 "$rf"); [ "${r%% *}" = 0 ] || { echo "create: $r"; return 1; }
    seq 1 100 | sed 's/^/old /' | K -P -t dt -p 0 || return 1
    [ "$(K -C -t dt -p 0 -o beginning -e -q | grep -c '^old ')" = 100 ] || { echo "100 old records not read"; return 1; }
    local old_id; old_id=$(topic_id_of "$(dirs_of dt-0 | head -1)")
    [ -n "$old_id" ] || { echo "no topic id in partition.metadata"; return 1; }
    timeout 12 kcat -b "$BOOTSTRAP" -C -t dt -p 0 -o beginning -q > "$CL_DIR/live-consumer.out" 2>&1 &
    local cpid=$!
    (for i in $(seq 1 50); do echo "live $i"; sleep 0.1; done) |
        timeout 30 kcat -b "$BOOTSTRAP" -P -t dt -p 0 -X message.timeout.ms=15000 > "$CL_DIR/live-producer.out" 2>&1 &
    local ppid=$!
    sleep 1
    r=$(TOPICS "$port" delete dt); [ "$r" = 0 ] || { echo "delete: $r"; return 1; }
    for w in $(seq 1 40); do [ -z "$(dirs_of dt-0)" ] && break; sleep 0.25; done
    # The producer's metadata requests may have auto-created it already.
    r=$(TOPICS "$port" create dt 1 "$rf"); case "${r%% *}" in 0|36) ;; *) echo "re-create: $r"; return 1 ;; esac
    wait $ppid; wait $cpid
    for w in $(seq 1 40); do [ "$(leader_of dt 0)" -ge 1 ] 2>/dev/null && break; sleep 0.25; done
    seq 1 20 | sed 's/^/new /' | K -P -t dt -p 0 -X message.timeout.ms=15000 || return 1
    local got; got=$(K -C -t dt -p 0 -o beginning -e -q)
    [ "$(echo "$got" | grep -c '^old ')" = 0 ] || { echo "the re-created topic serves old records"; return 1; }
    [ "$(echo "$got" | grep -c '^new ')" = 20 ] || { echo "new records missing: $(echo "$got" | grep -c '^new ')"; return 1; }
    for i in $(seq 1 "$CL_N"); do kill -0 "$(node_pid "$i")" || { echo "broker $i died"; return 1; }; done
    # Removed after file.delete.delay.ms; every replica has the new id.
    for w in $(seq 1 60); do [ -z "$(dirs_of 'dt-0.*-delete')" ] && break; sleep 0.25; done
    [ -z "$(dirs_of 'dt-0.*-delete')" ] || { echo "left: $(dirs_of 'dt-0.*-delete')"; return 1; }
    for w in $(seq 1 40); do [ "$(dirs_of dt-0 | wc -l)" = "$rf" ] && break; sleep 0.25; done
    [ "$(dirs_of dt-0 | wc -l)" = "$rf" ] || { echo "replicas: $(dirs_of dt-0)"; return 1; }
    for d in $(dirs_of dt-0); do
        [ "$(topic_id_of "$d")" != "$old_id" ] || { echo "$d has the deleted topic's id"; return 1; }
    done
}
check "delete and re-create under a live producer and consumer (3 nodes): new id, empty log, old directories removed" \
    t_delete_recreate "$CL_PORT_1" 3

t_metadata_topic() {
    local out r i
    out=$(K -L); echo "$out" | grep -q __cluster_metadata && { echo "listed by kcat -L"; return 1; }
    for i in 1 2; do
        local port; eval "port=\$CL_PORT_$i"
        TOPICS "$port" metadata - | grep -q __cluster_metadata && { echo "listed by node $i"; return 1; }
        r=$(TOPICS "$port" metadata __cluster_metadata); [ "$r" = "__cluster_metadata 17" ] || { echo "metadata: $r"; return 1; }
        r=$(TOPICS "$port" produce __cluster_metadata 0); [ "$r" = 17 ] || { echo "produce: $r"; return 1; }
        r=$(TOPICS "$port" fetch __cluster_metadata 0); [ "$r" = 17 ] || { echo "fetch: $r"; return 1; }
    done
    r=$(TOPICS "$CL_PORT_1" create __cluster_metadata 1 1)
    [ "$r" = "42 Creation of internal topic __cluster_metadata is prohibited." ] || { echo "create: $r"; return 1; }
    local t=$(date +%s)
    echo x | K -P -t __cluster_metadata 2> "$CL_DIR/md.err" && { echo "kcat -P succeeded"; return 1; }
    # librdkafka reports "Invalid topic" when the topic's own Metadata
    # answer (17, checked directly above) comes first, and "Unknown topic"
    # when a full Metadata answer without the name does: either is a refusal.
    grep -qE "Invalid topic|Unknown topic" "$CL_DIR/md.err" || { cat "$CL_DIR/md.err"; return 1; }
    [ $(( $(date +%s) - t )) -le 5 ] || { echo "kcat -P took $(( $(date +%s) - t )) s"; return 1; }
    # The nodes' own metadata replication goes on.
    r=$(TOPICS "$CL_PORT_1" create after-md 1 3); [ "${r%% *}" = 0 ] || { echo "create after-md: $r"; return 1; }
    echo y | K -P -t after-md -p 0 || return 1
    [ "$(K -C -t after-md -p 0 -o beginning -e -q)" = y ]
}
check "__cluster_metadata: not listed, Produce/Fetch/Metadata/CreateTopics refused, replication unaffected" t_metadata_topic

t_bad_names() {
    local r n long; long=$(printf 'a%.0s' $(seq 250))
    for n in bad/topic . .. "$long"; do
        r=$(TOPICS "$CL_PORT_2" create "$n" 1 1)
        case "$r" in "17 Topic name"*) ;; *) echo "create ${n:0:20}: $r"; return 1 ;; esac
        r=$(TOPICS "$CL_PORT_2" produce "$n" 0); [ "$r" = 17 ] || { echo "produce ${n:0:20}: $r"; return 1; }
    done
    r=$(TOPICS "$CL_PORT_1" create a.b 1 3); [ "${r%% *}" = 0 ] || { echo "create a.b: $r"; return 1; }
    r=$(TOPICS "$CL_PORT_1" create a_b 1 3)
    [ "$r" = "17 Topic 'a_b' collides with existing topic: a.b" ] || { echo "create a_b: $r"; return 1; }
    for n in bad/topic a_b; do
        local t=$(date +%s)
        echo x | K -P -t "$n" 2> "$CL_DIR/name.err" && { echo "kcat -P -t $n succeeded"; return 1; }
        # Either refusal, as for __cluster_metadata above; the broker's own
        # answer (17) is checked directly above.
        grep -qE "Invalid topic|Unknown topic" "$CL_DIR/name.err" || { cat "$CL_DIR/name.err"; return 1; }
        [ $(( $(date +%s) - t )) -le 5 ] || { echo "kcat -P -t $n took $(( $(date +%s) - t )) s"; return 1; }
    done
    K -L | grep -q '"a_b"' && { echo "a_b was created"; return 1; }
    return 0
}
check "invalid and colliding names refused at once (Produce auto-creation, CreateTopics)" t_bad_names

# ---- topic configs, LogAppendTime, retention (deletes first segments: last)
. "$SRC/topic_configs.sh"

# ---- log compaction
. "$SRC/compaction.sh"

# ---- the same lifecycle on one node
cluster_stop
CL_EXTRA_PROPS=$'file.delete.delay.ms=3000\ndefault.replication.factor=1\nmin.insync.replicas=1'
cluster_init 1
cluster_start
if cluster_wait_ready; then
    check "delete and re-create under a live producer and consumer (1 node)" t_delete_recreate "$CL_PORT_1" 1
else
    fail "cluster of 1 broker starts" "see logs"
fi

suite_exit "$T0"
