#!/bin/bash
# Interop suite: a 3-node liblogrep cluster of logrep-broker processes on
# loopback, driven by unmodified Kafka clients (kcat / librdkafka 2.0.2,
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
T0=$(date +%s)
PASS=0
FAIL=0
FAILED=""

for f in "$BROKER" "$LOGREP" "$RDK_CHECK"; do
    [ -x "$f" ] || { echo "interop: $f missing"; exit 1; }
done
command -v kcat >/dev/null || { echo "interop: kcat missing (make deps)"; exit 1; }

. "$SRC/cluster.sh"

on_exit() {
    if [ "$FAIL" != 0 ] && [ -n "${CL_DIR:-}" ] && [ -d "$CL_DIR" ]; then
        for i in 1 2 3; do
            echo "---- node $i log (last 15 lines)"
            tail -15 "$CL_DIR/node$i.log" 2>/dev/null
        done
    fi
    cluster_stop
}
trap on_exit EXIT
trap 'exit 130' INT TERM

pass() { PASS=$((PASS+1)); echo "interop: ok   $1"; }
fail() { FAIL=$((FAIL+1)); FAILED="$FAILED; $1"; echo "interop: FAIL $1${2:+: $2}"; }
check() { # check NAME COMMAND... (runs in this shell: node pids stay known)
    local name=$1; shift
    if "$@" > "$CL_DIR/check.out" 2>&1; then
        pass "$name"
    else
        fail "$name" "$(grep -v '^%[0-9]|' "$CL_DIR/check.out" | tail -5)"
    fi
}
K() { timeout 30 kcat -b "$BOOTSTRAP" -X socket.timeout.ms=20000 "$@"; }

leader_of() { # leader_of TOPIC PARTITION
    K -L -t "$1" 2>/dev/null | sed -n "s/^ *partition $2, leader \([0-9-]*\),.*/\1/p"
}

# Retention checked every second, for topic_configs.sh.
CL_EXTRA_PROPS="log.retention.check.interval.ms=1000"
cluster_init 3
cluster_start
if ! cluster_wait_ready; then
    fail "cluster of 3 brokers starts" "see logs"
    exit 1
fi
pass "cluster of 3 brokers starts ($(( $(date +%s) - T0 )) s)"

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

# ---- kill -9 of a partition leader (not the controller) during acks=all produce
t_kill_leader() {
    K -L -t failover >/dev/null 2>&1   # auto-create (3 partitions)
    local victim="" p l
    for w in $(seq 1 40); do
        for p in 0 1 2; do
            l=$(leader_of failover $p)
            if [ -n "$l" ] && [ "$l" != 1 ] && [ "$l" != -1 ]; then victim=$l; break 2; fi
        done
        sleep 0.25
    done
    [ -n "$victim" ] || { echo "no partition led by a non-controller broker"; return 1; }
    "$RDK_CHECK" "$BOOTSTRAP" failover 3 8 10000 > "$CL_DIR/failover.out" 2>&1 &
    local cpid=$!
    sleep 2.5
    node_kill "$victim" KILL
    sleep 3
    node_start "$victim"
    local rc=0
    wait $cpid || rc=$?
    cat "$CL_DIR/failover.out" | grep '^rdk_check'
    [ $rc = 0 ] || return 1
    cluster_wait_ready
}
check "kill -9 of a partition leader during acks=all produce loses and duplicates nothing" t_kill_leader

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

# ---- topic configs, LogAppendTime, retention (deletes first segments: last)
. "$SRC/topic_configs.sh"

T=$(( $(date +%s) - T0 ))
if [ "$FAIL" = 0 ]; then
    echo "interop: $PASS checks passed, 0 failed (${T} s)"
    exit 0
fi
echo "interop: $PASS checks passed, $FAIL FAILED (${T} s):${FAILED}"
exit 1
