# Shell helpers for a liblogrep cluster of logrep-broker processes on
# loopback: free ports, a temporary directory, bounded waits, cleanup.
# Source it; set BROKER (path to logrep-broker) first.
#
#   cluster_init N         ports and properties for nodes 1..N, each a
#                          combined broker+controller node: with N >= 2 the
#                          controllers are a quorum of N voters
#   cluster_ports N [V]    only the ports and the directory (V: nodes 1..V
#                          are the controllers, default all N)
#   node_lib_props I [H]   node I's library properties (voters at host H)
#   active_controller      the id of the node whose metrics page says it
#                          is the active controller (empty: none or several)
#   wait_active_controller until one is (30 s at most); prints its id
#   node_start I           start node I (log in $CL_DIR/nodeI.log)
#   node_kill I [SIG]      signal node I (default KILL) and wait for it
#   cluster_wait_ready     until kcat -L lists every started broker
#   cluster_stop           SIGTERM all, SIGKILL stragglers, remove the dir
#   BOOTSTRAP              127.0.0.1:port,... of the PLAINTEXT listeners
#
# A suite sets SUITE (its name in every line) and uses the bookkeeping:
#   check NAME CMD...      runs CMD in this shell (node pids stay known),
#                          output in $CL_DIR/check.out; its lines starting
#                          with "note: " are appended to the ok line
#   pass NAME / fail NAME [WHY]
#   suite_exit             the summary line and the exit status
#   suite_traps            on exit: the nodes' log tails after a failure,
#                          then cluster_stop

# A port to listen on, below the kernel's ephemeral range: one the kernel
# hands out (bind to 0) is free now, but the nodes' own outgoing
# connections draw their local ports from that range, and one of them
# can take it before the node meant to listen there starts (seen: "listen
# on ...: Address already in use"). Ports already handed out for this
# cluster ($CL_DIR/.ports) are not handed out again: nothing listens on
# them yet, so binding alone would not tell.
free_port() {
    python3 -c '
import os, random, socket, sys
d = sys.argv[1]
f = os.path.join(d, ".ports") if d and os.path.isdir(d) else None
used = set()
if f and os.path.exists(f):
    used = {int(x) for x in open(f).read().split()}
lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
top = max(lo - 1, 11000)
port = None
for _ in range(500):
    p = random.randint(10000, top)
    if p in used:
        continue
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        s.close()
    port = p
    break
if port is None:
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
if f:
    open(f, "a").write("%d\n" % port)
print(port)
' "${CL_DIR:-}"
}

# Ports and a directory for nodes 1..N: CL_N, CL_DIR, CL_VOTERS (nodes
# 1..CL_VOTERS are controllers: V, default all N), CL_PORT_I, CL_CPORT_I
# (node I's controller listener), CL_MPORT_I (its metrics page) and
# BOOTSTRAP.
cluster_ports() {
    CL_N=$1
    CL_VOTERS=${2:-$1}
    CL_DIR=$(mktemp -d "${TMPDIR:-/tmp}/logrep-cluster.XXXXXX")
    BOOTSTRAP=""
    local i
    for i in $(seq 1 "$CL_N"); do
        local p; p=$(free_port)
        eval "CL_PORT_$i=$p"
        eval "CL_CPORT_$i=$(free_port)"
        eval "CL_MPORT_$i=$(free_port)"
        eval "CL_PID_$i="
        BOOTSTRAP="${BOOTSTRAP:+$BOOTSTRAP,}127.0.0.1:$p"
    done
}

# The library's properties of node I, one key=value a line (nodes
# 1..CL_VOTERS are broker+controller); CTL_HOST names the voters in
# controller.quorum.voters (default 127.0.0.1).
node_lib_props() { # node_lib_props I [CTL_HOST]
    local i=$1 p cp v voters=""
    eval "p=\$CL_PORT_$i"
    eval "cp=\$CL_CPORT_$i"
    for v in $(seq 1 "$CL_VOTERS"); do
        local vp; eval "vp=\$CL_CPORT_$v"
        voters="${voters:+$voters,}$v@${2:-127.0.0.1}:$vp"
    done
    echo "node.id=$i"
    if [ "$i" -le "$CL_VOTERS" ]; then
        echo "process.roles=broker,controller"
        echo "listeners=PLAINTEXT://127.0.0.1:$p,CONTROLLER://127.0.0.1:$cp"
    else
        echo "process.roles=broker"
        echo "listeners=PLAINTEXT://127.0.0.1:$p"
    fi
    echo "advertised.listeners=PLAINTEXT://127.0.0.1:$p"
    echo "controller.quorum.voters=$voters"
    echo "log.dirs=$CL_DIR/data$i"
    echo "num.partitions=3"
    echo "default.replication.factor=3"
    echo "min.insync.replicas=2"
    echo "replica.lag.time.max.ms=10000"
    echo "broker.session.timeout.ms=6000"
    echo "broker.heartbeat.interval.ms=500"
}

cluster_init() {
    cluster_ports "$1"
    local i
    for i in $(seq 1 "$CL_N"); do
        {
            node_lib_props "$i"
            echo "log.segment.bytes=1048576"
            echo "controlled.shutdown.timeout.ms=5000"
            echo "metrics.listener=http://127.0.0.1:$(eval "echo \$CL_MPORT_$i")"
            # Both ways record bytes leave: node 2 sendfile()s them, the
            # others stage them for writev (the default); node 3 keeps
            # the smallest page-cache window.
            [ "$i" = 2 ] && echo "logrep.sendfile=true"
            [ "$i" = 3 ] && echo "logrep.page.cache.window.bytes=8388608"
            echo "${CL_EXTRA_PROPS:-}"
        } > "$CL_DIR/node$i.properties"
    done
}

node_start() {
    local i=$1
    # CL_PRELOAD: a library the brokers (only) run with (disk_full.sh).
    ${CL_PRELOAD:+env LD_PRELOAD=$CL_PRELOAD} "$BROKER" "$CL_DIR/node$i.properties" >> "$CL_DIR/node$i.log" 2>&1 &
    eval "CL_PID_$i=$!"
}

node_pid() { eval "echo \${CL_PID_$1:-}"; }

node_kill() {
    local i=$1 sig=${2:-KILL} pid
    pid=$(node_pid "$i")
    [ -n "$pid" ] || return 0
    kill -"$sig" "$pid" 2>/dev/null
    local t=0
    while kill -0 "$pid" 2>/dev/null && [ $t -lt 300 ]; do sleep 0.1; t=$((t+1)); done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null; fi
    wait "$pid" 2>/dev/null
    eval "CL_PID_$i="
}

cluster_start() {
    local i
    for i in $(seq 1 "$CL_N"); do node_start "$i"; done
}

# Until kcat -L from every broker lists all N brokers (60 s at most).
cluster_wait_ready() {
    local t=0 ok
    while [ $t -lt 120 ]; do
        ok=1
        local i
        for i in $(seq 1 "$CL_N"); do
            local p; eval "p=\$CL_PORT_$i"
            local n
            n=$(timeout 10 kcat -b "127.0.0.1:$p" -L -m 5 2>/dev/null | grep -c '^  broker ')
            [ "$n" = "$CL_N" ] || ok=0
        done
        [ $ok = 1 ] && return 0
        sleep 0.5; t=$((t+1))
    done
    echo "cluster not ready after 60 s" >&2
    return 1
}

# The active controller, from the metrics pages of the running nodes
# (logrep_node_is_controller 1): its id, or nothing when no node or more
# than one says so.
active_controller() {
    local i pid mp found=""
    for i in $(seq 1 "$CL_N"); do
        pid=$(node_pid "$i")
        [ -n "$pid" ] || continue
        eval "mp=\${CL_MPORT_$i:-}"
        [ -n "$mp" ] || continue
        if curl -s -m 2 "http://127.0.0.1:$mp/metrics" 2>/dev/null | grep -q '^logrep_node_is_controller{[^}]*} 1$'; then
            [ -z "$found" ] || return 0
            found=$i
        fi
    done
    echo "$found"
}
wait_active_controller() {
    local t=0 a
    while [ $t -lt 60 ]; do
        a=$(active_controller)
        [ -n "$a" ] && { echo "$a"; return 0; }
        sleep 0.5; t=$((t+1))
    done
    return 1
}

cluster_stop() {
    local i
    [ -n "${CL_N:-}" ] || return 0
    for i in $(seq "$CL_N" -1 1); do
        local pid; pid=$(node_pid "$i")
        [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
    done
    for i in $(seq "$CL_N" -1 1); do node_kill "$i" TERM; done
    if [ -n "${CL_DIR:-}" ] && [ -d "$CL_DIR" ]; then
        if [ -n "${KEEP_CLUSTER_DIR:-}" ]; then echo "kept $CL_DIR" >&2; else rm -rf "$CL_DIR"; fi
    fi
}

PASS=0
FAIL=0
FAILED=""
pass() { PASS=$((PASS+1)); echo "$SUITE: ok   $1"; }
fail() { FAIL=$((FAIL+1)); FAILED="$FAILED; $1"; echo "$SUITE: FAIL $1${2:+: $2}"; }
check() {
    local name=$1; shift
    if "$@" > "$CL_DIR/check.out" 2>&1; then
        pass "$name$(sed -n 's/^note: /: /p' "$CL_DIR/check.out" | tr -d '\n')"
    else
        fail "$name" "$(grep -v '^%[0-9]|' "$CL_DIR/check.out" | tail -5)"
    fi
}

suite_on_exit() {
    if [ "$FAIL" != 0 ] && [ -n "${CL_DIR:-}" ] && [ -d "$CL_DIR" ]; then
        local i
        for i in $(seq 1 "${CL_N:-0}"); do
            echo "---- node $i log (last 15 lines)"
            tail -15 "$CL_DIR/node$i.log" 2>/dev/null
        done
    fi
    cluster_stop
}
suite_traps() {
    trap suite_on_exit EXIT
    trap 'exit 130' INT TERM
}

suite_exit() { # suite_exit T0
    local t=$(( $(date +%s) - $1 ))
    if [ "$FAIL" = 0 ]; then
        echo "$SUITE: $PASS checks passed, 0 failed (${t} s)"
        exit 0
    fi
    echo "$SUITE: $PASS checks passed, $FAIL FAILED (${t} s):${FAILED}"
    exit 1
}
