#!/bin/bash
# `logrep groups` against a 3-node cluster of logrep-broker processes:
# kcat -G consumer groups commit offsets, then --list and --describe must
# show the groups, their members, the committed offsets, the log end
# offsets and the lag (log end - committed). Every wait is bounded.
#
#   test/interop/groups_tool.sh BUILD_DIR
set -u
B=${1:-build}
SRC=$(cd "$(dirname "$0")" && pwd)
BROKER=$B/logrep-broker
LOGREP=$B/logrep
T0=$(date +%s)
SUITE=groups-tool

for f in "$BROKER" "$LOGREP"; do
    [ -x "$f" ] || { echo "$SUITE: $f missing"; exit 1; }
done
command -v kcat >/dev/null || { echo "$SUITE: kcat missing (make deps)"; exit 1; }

. "$SRC/cluster.sh"
suite_traps

K() { timeout 30 kcat -b "$BOOTSTRAP" -X socket.timeout.ms=20000 "$@"; }
# The first FindCoordinator creates __consumer_offsets: a generous timeout.
G() { timeout 60 "$LOGREP" groups --bootstrap-server "$BOOTSTRAP" --timeout 30000 "$@"; }
TOPIC=gt
GROUP=gt-a

# Prints "CURRENT LOG-END LAG CONSUMER-ID HOST CLIENT-ID" of a row of
# $CL_DIR/describe.out.
row() { # row GROUP TOPIC PARTITION
    awk -v g="$1" -v t="$2" -v p="$3" '$1 == g && $2 == t && $3 == p {print $4, $5, $6, $7, $8, $9}' \
        "$CL_DIR/describe.out"
}
describe() { # describe ARGS...: stdout in describe.out, stderr in describe.err
    G --describe "$@" > "$CL_DIR/describe.out" 2> "$CL_DIR/describe.err"
}

# A consumer of $GROUP in the background (auto-commit every 300 ms).
CONSUMER_PID=
consumer_start() {
    timeout 120 kcat -b "$BOOTSTRAP" -G "$GROUP" -X auto.offset.reset=earliest \
        -X auto.commit.interval.ms=300 -q -u "$TOPIC" > "$CL_DIR/consumer.out" 2> "$CL_DIR/consumer.err" &
    CONSUMER_PID=$!
}
consumer_stop() { # SIGTERM: kcat leaves the group and commits on close
    [ -n "$CONSUMER_PID" ] || return 0
    kill -TERM "$CONSUMER_PID" 2>/dev/null
    wait "$CONSUMER_PID" 2>/dev/null
    CONSUMER_PID=
}
on_exit() { consumer_stop; suite_on_exit; }
trap on_exit EXIT

produce() { # produce PARTITION COUNT
    seq 1 "$2" | sed "s/^/p$1 /" | K -P -t "$TOPIC" -p "$1"
}

cluster_init 3
cluster_start
if ! cluster_wait_ready; then
    fail "cluster of 3 combined nodes starts" "see logs"
    exit 1
fi
pass "cluster of 3 combined nodes starts ($(( $(date +%s) - T0 )) s)"

t_list_none() {
    local out; out=$(G --list) || { echo "exit status $?: $out"; return 1; }
    [ -z "$out" ] || { echo "listed: $out"; return 1; }
}
check "--list with no group: nothing, exit 0" t_list_none

t_unreachable() {
    local out st port; port=$(free_port)
    out=$(timeout 30 "$LOGREP" groups --bootstrap-server "127.0.0.1:$port" --timeout 2000 --list 2>&1)
    st=$?
    [ $st = 2 ] || { echo "exit status $st: $out"; return 1; }
    echo "$out" | grep -q "^Error: cannot connect to 127.0.0.1:$port" || { echo "$out"; return 1; }
    out=$(timeout 30 "$LOGREP" groups --bootstrap-server "127.0.0.1:$port" --timeout 2000 \
        --describe --group "$GROUP" 2>&1)
    st=$?
    [ $st = 2 ] || { echo "describe: exit status $st: $out"; return 1; }
}
check "an unreachable server: an error and exit status 2" t_unreachable

# ---- a hostile broker: errors and exit status 1 or 2, never a crash (the
# ASan build when there is one: make test builds it)
t_bad_broker() {
    local bin=$LOGREP seed mode pid port a out st ok=0 runs=0
    [ -x "$B/asan/logrep" ] && bin=$B/asan/logrep
    for seed in $(seq 1 40); do
        case $seed in 1) mode=big ;; 2) mode=neg ;; 3) mode=trunc ;; 4) mode=silent ;;
            *) mode=$([ $((seed % 2)) = 0 ] && echo mutate || echo shapes) ;; esac
        : > "$CL_DIR/bad.port"
        python3 "$SRC/groups_bad_broker.py" "$seed" "$mode" > "$CL_DIR/bad.port" &
        pid=$!
        local t=0
        while [ ! -s "$CL_DIR/bad.port" ] && [ $t -lt 100 ]; do sleep 0.05; t=$((t+1)); done
        port=$(head -1 "$CL_DIR/bad.port")
        [ -n "$port" ] || { kill "$pid"; echo "the fake broker did not start"; return 1; }
        for a in "--list --state --protocol-type" "--describe --group g" "--describe --all-groups"; do
            # exitcode: a sanitizer report must not pass for exit status 1
            out=$(ASAN_OPTIONS=detect_leaks=1:exitcode=99 UBSAN_OPTIONS=halt_on_error=1 \
                timeout 30 "$bin" groups --bootstrap-server "127.0.0.1:$port" --timeout 300 $a 2>&1)
            st=$?
            runs=$((runs+1))
            if [ $st -gt 2 ] || echo "$out" | grep -q 'Sanitizer\|runtime error'; then
                kill "$pid"; wait "$pid" 2>/dev/null
                echo "seed $seed $mode [$a]: exit status $st"; echo "$out" | tail -8
                return 1
            fi
            [ $st = 0 ] && ok=$((ok+1))
        done
        kill "$pid"; wait "$pid" 2>/dev/null
    done
    echo "note: $runs runs of $(basename "$(dirname "$bin")")/logrep, $ok with exit status 0"
}
check "random, mutated, oversized, truncated and missing answers: no crash" t_bad_broker

# ---- a group that consumed everything and left: offsets committed, lag 0
t_commit() {
    local p
    for p in 0 1 2; do produce $p 10 || return 1; done
    local n
    n=$(timeout 60 kcat -b "$BOOTSTRAP" -G "$GROUP" -X auto.offset.reset=earliest -e -q "$TOPIC" | wc -l)
    [ "$n" = 30 ] || { echo "consumed $n of 30"; return 1; }
    describe --group "$GROUP" || { echo "exit status $?"; cat "$CL_DIR/describe.err"; return 1; }
    grep -q "^Consumer group '$GROUP' has no active members.$" "$CL_DIR/describe.err" ||
        { cat "$CL_DIR/describe.err"; return 1; }
    grep -q '^GROUP  *TOPIC  *PARTITION  *CURRENT-OFFSET  *LOG-END-OFFSET  *LAG  *CONSUMER-ID  *HOST  *CLIENT-ID$' \
        "$CL_DIR/describe.out" || { cat "$CL_DIR/describe.out"; return 1; }
    for p in 0 1 2; do
        [ "$(row "$GROUP" "$TOPIC" $p)" = "10 10 0 - - -" ] ||
            { echo "partition $p: $(row "$GROUP" "$TOPIC" $p)"; cat "$CL_DIR/describe.out"; return 1; }
    done
}
check "kcat -G -e consumes 30 records; --describe: committed 10, end 10, lag 0, no members" t_commit

t_lag() {
    produce 0 5 && produce 2 2 || return 1
    describe --group "$GROUP" || { echo "exit status $?"; return 1; }
    local want p
    for want in "0 10 15 5" "1 10 10 0" "2 10 12 2"; do
        p=${want%% *}
        [ "$(row "$GROUP" "$TOPIC" $p)" = "${want#* } - - -" ] ||
            { echo "partition $p: $(row "$GROUP" "$TOPIC" $p), want ${want#* }"; return 1; }
    done
}
check "--describe after producing more: lag = log end - committed (5, 0, 2)" t_lag

t_list() {
    local out
    out=$(G --list) || { echo "exit status $?"; return 1; }
    [ "$out" = "$GROUP" ] || { echo "--list: $out"; return 1; }
    out=$(G --list --state --protocol-type) || return 1
    echo "$out" | head -1 | grep -q '^GROUP  *PROTOCOL-TYPE  *STATE$' || { echo "$out"; return 1; }
    echo "$out" | grep -q "^$GROUP  *consumer  *Empty$" || { echo "$out"; return 1; }
    out=$(G --list --state Stable) || return 1
    [ "$out" = "GROUP           STATE" ] || { echo "--state Stable: $out"; return 1; }
}
check "--list, --list --state --protocol-type, --state filter" t_list

# ---- an active member: its id, host and client id beside its partitions
t_active() {
    consumer_start
    local t=0 ok=0 p r want
    while [ $t -lt 60 ]; do
        if describe --group "$GROUP" && ! grep -q 'no active members\|rebalancing' "$CL_DIR/describe.err"; then
            ok=1
            for want in "0 15" "1 10" "2 12"; do
                p=${want%% *}
                r=$(row "$GROUP" "$TOPIC" $p)
                # current = end (lag 0), and a member holds the partition
                case "$r" in "${want#* } ${want#* } 0 - - -" | "${want#* } ${want#* } 0 "*) ;; *) ok=0 ;; esac
                case "$r" in *" - - -" | "") ok=0 ;; esac
            done
            [ $ok = 1 ] && break
        fi
        sleep 0.5; t=$((t+1))
    done
    [ $ok = 1 ] || { cat "$CL_DIR/describe.out" "$CL_DIR/describe.err"; return 1; }
    # It resumed at the committed offsets: the 7 records produced since.
    [ "$(wc -l < "$CL_DIR/consumer.out")" = 7 ] || { echo "consumed $(wc -l < "$CL_DIR/consumer.out")"; return 1; }
    r=$(row "$GROUP" "$TOPIC" 0)
    set -- $r
    case "$4" in rdkafka-*) ;; *) echo "consumer id $4"; return 1 ;; esac
    case "$5" in *127.0.0.1) ;; *) echo "host $5"; return 1 ;; esac
    [ "$6" = rdkafka ] || { echo "client id $6"; return 1; }
    [ "$(row "$GROUP" "$TOPIC" 1 | cut -d' ' -f4)" = "$4" ] || { echo "two members?"; return 1; }
    local out; out=$(G --list --state) || return 1
    echo "$out" | grep -q "^$GROUP  *Stable$" || { echo "$out"; return 1; }
}
check "an active kcat -G member: lag 0 on every partition, its id, host and client id" t_active

t_leave() {
    consumer_stop
    local t=0
    while [ $t -lt 60 ]; do
        G --list --state 2>/dev/null | grep -q "^$GROUP  *Empty$" && break
        sleep 0.5; t=$((t+1))
    done
    describe --all-groups || { echo "exit status $?"; return 1; }
    grep -q "^Consumer group '$GROUP' has no active members.$" "$CL_DIR/describe.err" ||
        { cat "$CL_DIR/describe.err"; return 1; }
    [ "$(row "$GROUP" "$TOPIC" 0)" = "15 15 0 - - -" ] || { echo "$(row "$GROUP" "$TOPIC" 0)"; return 1; }
}
check "after the member leaves: Empty, --all-groups describes it" t_leave

t_unknown() {
    describe --group nope
    local st=$?
    [ $st = 1 ] || { echo "exit status $st"; return 1; }
    grep -q "^Error: Consumer group 'nope' does not exist.$" "$CL_DIR/describe.err" ||
        { cat "$CL_DIR/describe.err"; return 1; }
    [ ! -s "$CL_DIR/describe.out" ] || { cat "$CL_DIR/describe.out"; return 1; }
    # Several groups: the known one still described.
    describe --group nope --group "$GROUP"
    st=$?
    [ $st = 1 ] || { echo "two groups: exit status $st"; return 1; }
    [ "$(row "$GROUP" "$TOPIC" 2)" = "12 12 0 - - -" ] || { cat "$CL_DIR/describe.out"; return 1; }
}
check "an unknown group: 'does not exist', exit status 1; others still described" t_unknown

suite_exit "$T0"
