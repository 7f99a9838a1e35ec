#!/bin/bash
# Groups suite: consumer groups of real clients against a 3-node cluster:
# kcat -G members, librdkafka members of each assignor (one killed with
# kill -9 mid-stream), librdkafka's group admin calls, a kafkajs group,
# and kill -9 of the group coordinator's node while a member commits.
# Every wait is bounded; client processes and the cluster are always
# stopped and the cluster's directory removed.
#
#   test/interop/groups.sh BUILD_DIR
#
# Prints one line per check and a summary line; exit status 1 on failure.
set -u
B=${1:-build}
SRC=$(cd "$(dirname "$0")" && pwd)
BROKER=$B/logrep-broker
RDK_CHECK=$B/test/rdk_check
RDK_GROUP=$B/test/rdk_group
ADMIN_BIN=$B/test/rdk_groups_admin
T0=$(date +%s)
SUITE=groups

for f in "$BROKER" "$RDK_CHECK" "$RDK_GROUP" "$ADMIN_BIN"; do
    [ -x "$f" ] || { echo "groups: $f missing"; exit 1; }
done
command -v kcat >/dev/null || { echo "groups: kcat missing (make deps)"; exit 1; }

. "$SRC/cluster.sh"

# Client processes started in the background, stopped on any exit.
BG=""
bg_add() { BG="$BG $1"; }
bg_stop_all() {
    local p
    for p in $BG; do kill -KILL "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
    BG=""
}
# A check, then whatever it left running is stopped.
gcheck() { check "$@"; bg_stop_all; }
trap 'bg_stop_all; suite_on_exit' EXIT
trap 'exit 130' INT TERM

K() { timeout 30 kcat -b "$BOOTSTRAP" -X socket.timeout.ms=20000 "$@"; }
ADMIN() { timeout 40 "$ADMIN_BIN" "$BOOTSTRAP" "$@" 2>>"$CL_DIR/admin.err"; }
now_ms() { date +%s%3N; }
# until SECONDS CMD...: CMD every 0.2 s until it succeeds (status 1 after).
until_ok() {
    local end=$(( $(now_ms) + $1 * 1000 )); shift
    while ! "$@" >/dev/null 2>&1; do
        [ "$(now_ms)" -lt "$end" ] || return 1
        sleep 0.2
    done
}
# stop_wait PID...: SIGTERM, then up to 20 s for a clean exit, then SIGKILL.
stop_wait() {
    local p t
    for p in "$@"; do kill -TERM "$p" 2>/dev/null; done
    for p in "$@"; do
        t=0
        while kill -0 "$p" 2>/dev/null && [ $t -lt 200 ]; do sleep 0.1; t=$((t+1)); done
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
}
create_topic() { "$RDK_CHECK" "$BOOTSTRAP" --create "$1" "$2" 3 >/dev/null; }

# A short initial rebalance delay: members started together still join
# the first generation together.
CL_EXTRA_PROPS=$'group.initial.rebalance.delay.ms=1000'
cluster_init 3
cluster_start
if ! cluster_wait_ready; then
    fail "cluster of 3 combined nodes starts" "see logs"
    exit 1
fi
pass "cluster of 3 combined nodes starts ($(( $(date +%s) - T0 )) s)"

# ---- 1. kcat -G: three members of one group share a 6-partition topic
# kg_run NAME: 3 kcat -G members of group kg-group reading kg into
# $CL_DIR/NAME-{1,2,3}.{out,err}; stopped (and committing) once the
# values listed in $CL_DIR/NAME.want are all read, plus a second.
kg_run() {
    local name=$1 i pids=""
    for i in 1 2 3; do
        timeout 60 kcat -b "$BOOTSTRAP" -G kg-group -X session.timeout.ms=6000 \
            -X heartbeat.interval.ms=500 -X auto.commit.interval.ms=200 \
            -X auto.offset.reset=earliest -u -f '%s\n' kg \
            > "$CL_DIR/$name-$i.out" 2> "$CL_DIR/$name-$i.err" &
        pids="$pids $!"; bg_add $!
    done
    kg_all_read() { [ -z "$(sort -u "$CL_DIR/$name"-?.out | comm -13 - "$CL_DIR/$name.want")" ]; }
    local rc=0
    until_ok 30 kg_all_read || rc=1
    sleep 1
    stop_wait $pids
    [ $rc = 0 ] || echo "not all read in 30 s: $(sort -u "$CL_DIR/$name"-?.out | comm -13 - "$CL_DIR/$name.want" | wc -l) missing"
    return $rc
}
t_kcat_group() {
    create_topic kg 6 || return 1
    local f=$CL_DIR/kg.in i
    for i in $(seq 1 300); do echo "k$((i % 17))|kg-$i"; done > "$f"
    K -P -t kg -K '|' -X acks=all -l "$f" || return 1
    sed 's/.*|//' "$f" | sort > "$CL_DIR/kg1.want"
    kg_run kg1 || return 1
    local total uniq rebalanced=0
    total=$(cat "$CL_DIR"/kg1-?.out | wc -l)
    uniq=$(sort -u "$CL_DIR"/kg1-?.out | wc -l)
    # A member assigned more than once saw a rebalance.
    for i in 1 2 3; do
        [ "$(grep -c 'assigned:' "$CL_DIR/kg1-$i.err")" -le 1 ] || rebalanced=1
        [ -s "$CL_DIR/kg1-$i.out" ] || { echo "member $i read nothing"; grep '%' "$CL_DIR/kg1-$i.err" | tail -3; return 1; }
    done
    [ "$uniq" = 300 ] || { echo "$uniq distinct of 300"; return 1; }
    if [ "$total" != 300 ] && [ $rebalanced = 0 ]; then
        echo "$total records read for 300, without a rebalance"; return 1
    fi
    # Second run: only the records produced since.
    for i in $(seq 301 360); do echo "k$((i % 17))|kg-$i"; done > "$f"
    K -P -t kg -K '|' -X acks=all -l "$f" || return 1
    sed 's/.*|//' "$f" | sort > "$CL_DIR/kg2.want"
    kg_run kg2 || return 1
    local old
    old=$(sort -u "$CL_DIR"/kg2-?.out | comm -23 - "$CL_DIR/kg2.want" | wc -l)
    [ "$old" = 0 ] || { echo "second run read $old records committed by the first"; return 1; }
    echo "note: first run $total reads of 300 ($( [ $rebalanced = 1 ] && echo rebalanced || echo one generation)), second run $(cat "$CL_DIR"/kg2-?.out | wc -l) of 60"
}
gcheck "kcat -G: 3 members read 300 records of 6 partitions once; a second run reads only the 60 new" t_kcat_group

# ---- 2. librdkafka members per assignor; one killed with kill -9
ASSIGNORS="range roundrobin cooperative-sticky"
# rg_latest A M: member M's latest "GEN LIST" of assignor A's run.
rg_latest() { awk '$2 == "own" { g = $3; l = $5 } END { print g, l }' "$CL_DIR/rg-$1-$2.log" 2>/dev/null; }
# rg_stable A GEN_MIN M...: members M all in one generation >= GEN_MIN
# whose lists are disjoint, non-empty, and cover the 6 partitions.
rg_stable() {
    local a=$1 min=$2 m g="" lists="" gl
    shift 2
    for m in "$@"; do
        gl=$(rg_latest "$a" "$m")
        set -- $gl
        [ $# = 2 ] && [ "$2" != - ] && [ "$1" -ge "$min" ] || return 1
        [ -z "$g" ] || [ "$g" = "$1" ] || return 1
        g=$1; lists="$lists,$2"
    done
    [ "$(echo "$lists" | tr ',' '\n' | grep . | sort -n | tr '\n' ' ')" = "0 1 2 3 4 5 " ]
}
rg_gen() { rg_latest "$1" "$2" | cut -d' ' -f1; }
rg_pid() { cat "$CL_DIR/rg-$1-$2.pid"; }
rg_member() { # rg_member A M [OPTIONS]: a member in the background
    local a=$1 m=$2; shift 2
    "$RDK_GROUP" "$BOOTSTRAP" "rg-$a-group" "rg-$a" "$a" "$m" "$@" > "$CL_DIR/rg-$a-$m.log" 2>&1 &
    echo $! > "$CL_DIR/rg-$a-$m.pid"; bg_add $!
}
# Every assignor's group runs at once (a producer, 3 members, m3 killed
# once they are stable, the survivors stopped, a fresh member m4 drains);
# a step that fails for assignor A leaves its reason in $CL_DIR/rg-A.result.
rg_run() {
    local a m
    for a in $ASSIGNORS; do
        rm -f "$CL_DIR/rg-$a.result"
        create_topic "rg-$a" 6 || { echo "create rg-$a failed" > "$CL_DIR/rg-$a.result"; continue; }
        "$RDK_GROUP" "$BOOTSTRAP" --produce "rg-$a" 600 50 > "$CL_DIR/rg-$a.prod" 2>&1 &
        echo $! > "$CL_DIR/rg-$a-prod.pid"; bg_add $!
        for m in m1 m2 m3; do rg_member "$a" $m; done
    done
    for a in $ASSIGNORS; do
        [ -e "$CL_DIR/rg-$a.result" ] && continue
        if ! until_ok 20 rg_stable "$a" 0 m1 m2 m3; then
            echo "no stable generation of 3 members in 20 s: $(for m in m1 m2 m3; do echo -n "$m: $(rg_latest $a $m); "; done)" > "$CL_DIR/rg-$a.result"
            continue
        fi
        echo "$(rg_gen "$a" m1) $(now_ms)" > "$CL_DIR/rg-$a.kill"
        kill -KILL "$(rg_pid "$a" m3)"
    done
    for a in $ASSIGNORS; do
        [ -e "$CL_DIR/rg-$a.result" ] && continue
        local gen tk; read -r gen tk < "$CL_DIR/rg-$a.kill"
        if ! until_ok 20 rg_stable "$a" $((gen + 1)) m1 m2; then
            echo "the survivors do not own the 6 partitions 20 s after the kill: m1: $(rg_latest $a m1); m2: $(rg_latest $a m2)" > "$CL_DIR/rg-$a.result"
            continue
        fi
        # When the survivors' last assignment callbacks ran.
        local tm; tm=$(for m in m1 m2; do awk '$2 == "own" { t = $1 } END { print t }' "$CL_DIR/rg-$a-$m.log"; done | sort -n | tail -1)
        echo "$((tm - tk))" > "$CL_DIR/rg-$a.moved"
    done
    # The survivors stop (committing) while the producer still writes: the
    # fresh member has records to read from the commits on.
    sleep 1
    for a in $ASSIGNORS; do
        [ -e "$CL_DIR/rg-$a.result" ] || stop_wait "$(rg_pid "$a" m1)" "$(rg_pid "$a" m2)"
    done
    for a in $ASSIGNORS; do
        local p; p=$(cat "$CL_DIR/rg-$a-prod.pid")
        local t=0; while kill -0 "$p" 2>/dev/null && [ $t -lt 300 ]; do sleep 0.1; t=$((t+1)); done
        stop_wait "$p"
    done
    for a in $ASSIGNORS; do
        [ -e "$CL_DIR/rg-$a.result" ] && continue
        rg_member "$a" m4 --drain
    done
    for a in $ASSIGNORS; do
        [ -e "$CL_DIR/rg-$a.result" ] && continue
        local p; p=$(rg_pid "$a" m4)
        local t=0; while kill -0 "$p" 2>/dev/null && [ $t -lt 300 ]; do sleep 0.1; t=$((t+1)); done
        kill -0 "$p" 2>/dev/null && echo "the fresh member did not reach the end in 30 s" > "$CL_DIR/rg-$a.result"
        stop_wait "$p"
    done
}
# The checks on one assignor's logs.
rg_verify() {
    local a=$1 d=$CL_DIR
    if [ -e "$d/rg-$a.result" ]; then cat "$d/rg-$a.result"; return 1; fi
    grep -q 'failed' "$d/rg-$a.prod" && { grep failed "$d/rg-$a.prod"; return 1; }
    local moved; moved=$(cat "$d/rg-$a.moved")
    [ "$moved" -le 10000 ] || { echo "partitions moved $moved ms after the kill (session.timeout.ms 6000)"; return 1; }
    # No partition owned by two members in one generation.
    local clash
    clash=$(for m in m1 m2 m3 m4; do awk -v m=$m '$2 == "own" && $5 != "-" { print $3, m, $5 }' "$d/rg-$a-$m.log"; done |
        awk '{ if ($1 < 0) { print "generation unknown:", $0; next }
               n = split($3, ps, ","); for (i = 1; i <= n; i++) { k = $1 " " ps[i];
               if (k in o && o[k] != $2) print "generation " $1 " partition " ps[i] ": " o[k] " and " $2; o[k] = $2 } }')
    [ -z "$clash" ] || { echo "$clash" | head -3; return 1; }
    # The fresh member starts at the last acknowledged commit of each
    # partition (the kill -9'd member's commits included).
    local want got
    want=$(cat "$d"/rg-$a-m[123].log | awk '$2 == "commit" { print $1, $3, $4 }' | sort -n -s -k1,1 |
        awk '{ c[$2] = $3 } END { for (p in c) print p, c[p] }' | sort)
    got=$(awk '$2 == "committed" { print $3, $4 }' "$d/rg-$a-m4.log" | sort)
    [ "$want" = "$got" ] || { echo "fresh member's committed offsets: $(echo $got) (last acknowledged commits: $(echo $want))"; return 1; }
    local late
    late=$(awk '$2 == "committed" { c[$3] = $4 } $2 == "msg" && !($3 in f) { f[$3] = $4 }
                END { for (p in f) if (f[p] != c[p]) print "partition " p ": first read " f[p] ", committed " c[p] }' "$d/rg-$a-m4.log")
    [ -z "$late" ] || { echo "fresh member: $late" | head -3; return 1; }
    # At-least-once: everything acknowledged was consumed, at its offset.
    awk '$2 == "ack" { print $3, $4, $5 }' "$d/rg-$a.prod" | sort -u > "$d/rg-$a.acked"
    cat "$d"/rg-$a-m?.log | awk '$2 == "msg" { print $3, $4, $5 }' | sort -u > "$d/rg-$a.read"
    local acked missing reads
    acked=$(wc -l < "$d/rg-$a.acked")
    missing=$(comm -23 "$d/rg-$a.acked" "$d/rg-$a.read" | wc -l)
    [ "$acked" = 600 ] || { echo "$acked of 600 acknowledged"; return 1; }
    [ "$missing" = 0 ] || { echo "$missing acknowledged records never consumed, e.g. $(comm -23 "$d/rg-$a.acked" "$d/rg-$a.read" | head -1)"; return 1; }
    reads=$(cat "$d"/rg-$a-m?.log | grep -c ' msg ')
    echo "note: moved ${moved} ms after the kill; $reads reads of 600, fresh member read $(grep -c ' msg ' "$d/rg-$a-m4.log")"
}
rg_run
for a in $ASSIGNORS; do
    gcheck "librdkafka $a: 3 members, one kill -9'd: survivors take its partitions, no partition owned twice per generation, a fresh member resumes at the commits, nothing acknowledged unread" \
        rg_verify "$a"
done

# ---- 3. librdkafka's group admin calls, on a group with one member
# (adm-group), after it left, and on a group made by a commit alone
# expect WHAT WANT GOT: a mismatch is printed and remembered in BAD (the
# next expectations still run: each failure is seen).
BAD=0
expect() {
    [ "$2" = "$3" ] || { echo "$1: want '$2', got '$(echo $3)'"; BAD=1; }
}
lines() { sort | tr '\n' ' ' | sed 's/ $//'; }
ADM_PID=""
t_admin_member() {
    create_topic adm 3 || return 1
    local p r
    for p in 0 1 2; do seq 1 10 | sed "s/^/adm-$p-/" | K -P -t adm -p $p -X acks=all || return 1; done
    "$RDK_GROUP" "$BOOTSTRAP" adm-group adm range a1 > "$CL_DIR/adm-a1.log" 2>&1 &
    ADM_PID=$!; bg_add $ADM_PID
    adm_committed() { for p in 0 1 2; do grep -q " commit $p 10\$" "$CL_DIR/adm-a1.log" || return 1; done; }
    until_ok 20 adm_committed || { echo "the member did not commit 10 on each partition"; tail -3 "$CL_DIR/adm-a1.log"; return 1; }
    BAD=0
    r=$(ADMIN describe adm-group)
    expect "describe" "Stable range members 1" "$(echo "$r" | awk '/^group/ { print $3, $4, $7, $8 }')"
    expect "describe member" "member rdk_group-a1 adm:0,adm:1,adm:2" "$(echo "$r" | grep '^member')"
    expect "offsets" "adm 0 10 adm 1 10 adm 2 10" "$(ADMIN offsets adm-group | lines)"
    expect "delete a group with a member" "adm-group NON_EMPTY_GROUP" "$(ADMIN delete adm-group)"
    expect "delete offsets of a subscribed topic" "adm 0 GROUP_SUBSCRIBED_TO_TOPIC" "$(ADMIN delete-offsets adm-group adm:0)"
    expect "alter offsets of a group with a member" "adm 0 UNKNOWN_MEMBER_ID" "$(ADMIN alter adm-group adm:0=5)"
    expect "alter offsets of a new group" "adm 2 NO_ERROR" "$(ADMIN alter adm-simple adm:2=7)"
    expect "offsets of the simple group" "adm 2 7" "$(ADMIN offsets adm-simple)"
    return $BAD
}
check "librdkafka admin, a group with a member: DescribeConsumerGroups, ListConsumerGroupOffsets; NON_EMPTY_GROUP, GROUP_SUBSCRIBED_TO_TOPIC, UNKNOWN_MEMBER_ID" t_admin_member
t_admin_list() { # t_admin_list WANT
    local r; r=$(ADMIN list) || return 1
    echo "$r" | grep '^error' && return 1
    BAD=0
    expect "list" "$1" "$(echo "$r" | grep '^adm-' | lines)"
    return $BAD
}
check "librdkafka admin: ListConsumerGroups lists a Stable consumer group and a simple group" \
    t_admin_list "adm-group Stable consumer adm-simple Empty simple"
t_admin_empty() {
    [ -n "$ADM_PID" ] && stop_wait "$ADM_PID"
    BAD=0
    expect "describe after the member left" "Empty members 0" \
        "$(ADMIN describe adm-group | awk '/^group/ { print $3, $7, $8 }')"
    expect "alter offsets of an empty group" "adm 0 NO_ERROR" "$(ADMIN alter adm-group adm:0=5)"
    expect "delete offsets of an empty group" "adm 1 NO_ERROR" "$(ADMIN delete-offsets adm-group adm:1)"
    expect "offsets after alter and delete" "adm 0 5 adm 2 10" "$(ADMIN offsets adm-group | lines)"
    expect "delete two groups" "adm-group NO_ERROR adm-simple NO_ERROR" "$(ADMIN delete adm-group adm-simple | lines)"
    expect "describe a deleted group" "Dead" "$(ADMIN describe adm-group | awk '/^group/ { print $3 }')"
    expect "offsets of a deleted group" "" "$(ADMIN offsets adm-group)"
    expect "delete a deleted group" "adm-group GROUP_ID_NOT_FOUND" "$(ADMIN delete adm-group)"
    return $BAD
}
gcheck "librdkafka admin, after the member left: AlterConsumerGroupOffsets, DeleteConsumerGroupOffsets, DeleteGroups (and GROUP_ID_NOT_FOUND)" t_admin_empty
check "librdkafka admin: ListConsumerGroups lists no deleted group" t_admin_list ""

# ---- 4. kafkajs consumer group
"$SRC/install-kafkajs.sh"
if command -v node >/dev/null && [ -f "$SRC/node_modules/kafkajs/package.json" ]; then
    gcheck "kafkajs: eachMessage and commits, a second member joins and the pair reads on, a restarted group resumes at the commits" \
        timeout 90 node "$SRC/kafkajs_group.js" "$BOOTSTRAP" kjs-group-topic kjs-group
else
    echo "groups: skip kafkajs (node or kafkajs not available)"
fi

# ---- 5. kill -9 of the coordinator's node while a member commits
t_coordinator_kill() {
    create_topic ck 3 || return 1
    local f=$CL_DIR/ck.in i
    seq 1 3000 | sed 's/^/ck-/' > "$f"
    K -P -t ck -X acks=all -l "$f" || return 1
    # A group whose coordinator is not node 1 (the only controller: with
    # it gone no leader would move).
    local g="" c end=$(( $(now_ms) + 30000 ))
    for i in $(seq 1 12); do
        [ "$(now_ms)" -lt "$end" ] || break
        c=$(timeout 10 "$ADMIN_BIN" "$BOOTSTRAP" describe "ck-group-$i" | awk '/^group/ { print $6 }')
        if [ -n "$c" ] && [ "$c" != 1 ] && [ "$c" -ge 2 ] 2>/dev/null; then g=ck-group-$i; break; fi
    done
    [ -n "$g" ] || { echo "no group of ck-group-1..12 has a coordinator other than node 1"; return 1; }
    "$RDK_GROUP" "$BOOTSTRAP" "$g" ck range c1 --delay-ms 3 > "$CL_DIR/ck-c1.log" 2>&1 &
    local cpid=$!; bg_add $cpid
    ck_commits() { [ "$(grep -c ' commit ' "$CL_DIR/ck-c1.log")" -ge 6 ]; }
    until_ok 20 ck_commits || { echo "no commits in 20 s"; tail -3 "$CL_DIR/ck-c1.log"; return 1; }
    local tk; tk=$(now_ms)
    node_kill "$c" KILL
    # The last commit of each partition acknowledged before the kill.
    local before
    before=$(awk -v tk="$tk" '$2 == "commit" && $1 < tk { c[$3] = $4 } END { for (p in c) print p, c[p] }' "$CL_DIR/ck-c1.log" | sort)
    ck_recommits() { awk -v tk="$tk" '$2 == "commit" && $1 > tk { n++ } END { exit !(n > 0) }' "$CL_DIR/ck-c1.log"; }
    until_ok 30 ck_recommits || { echo "no commit acknowledged in 30 s after the coordinator's kill"; grep error "$CL_DIR/ck-c1.log" | tail -3; return 1; }
    local moved=$(( $(awk -v tk="$tk" '$2 == "commit" && $1 > tk { print $1; exit }' "$CL_DIR/ck-c1.log") - tk ))
    local c2; c2=$(ADMIN describe "$g" | awk '/^group/ { print $6 }')
    [ -n "$c2" ] && [ "$c2" != "$c" ] || { echo "coordinator after the kill: '$c2' (was $c)"; return 1; }
    local after p o
    after=$(timeout 30 "$RDK_GROUP" "$BOOTSTRAP" "$g" ck --committed 3 | awk '$2 == "committed" { print $3, $4 }')
    while read -r p o; do
        local now; now=$(echo "$after" | awk -v p="$p" '$1 == p { print $2 }')
        [ -n "$now" ] && [ "$now" -ge "$o" ] || { echo "partition $p: committed $now after the kill, $o acknowledged before"; return 1; }
    done <<< "$before"
    node_start "$c"
    cluster_wait_ready || return 1
    stop_wait $cpid
    # The cluster serves the group again: a fresh member reads the rest.
    "$RDK_GROUP" "$BOOTSTRAP" "$g" ck range c2 --drain > "$CL_DIR/ck-c2.log" 2>&1 &
    local dpid=$!; bg_add $dpid
    local t=0; while kill -0 $dpid 2>/dev/null && [ $t -lt 300 ]; do sleep 0.1; t=$((t+1)); done
    kill -0 $dpid 2>/dev/null && { stop_wait $dpid; echo "the fresh member did not reach the end in 30 s"; return 1; }
    wait $dpid
    local missing
    missing=$(cat "$CL_DIR"/ck-c?.log | awk '$2 == "msg" { print $5 }' | sort -u | comm -13 - <(sort "$f") | wc -l)
    [ "$missing" = 0 ] || { echo "$missing records never consumed"; return 1; }
    echo "note: coordinator $c killed, commits acknowledged again after $moved ms by node $c2"
}
gcheck "kill -9 of the coordinator's node while a member commits: commits survive on the new coordinator; after its restart the group reads on" t_coordinator_kill

suite_exit "$T0"
