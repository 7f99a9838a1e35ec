# Log compaction (cleanup.policy=compact) with kcat and librdkafka against
# the running cluster. Sourced by run.sh; needs log.cleaner.backoff.ms
# short on the brokers. Every wait is bounded.

CMP_PAD=padpadpadpadpadpadpadpadpadpadpadpadpad

# The records a consumer must see from the start of cmp-0 once its closed
# segments are cleaned: the last value of k0..k34, at most a tombstone of
# k35..k39, and every filler.
cmp_expected_ok() { # cmp_expected_ok FILE (lines "key|value")
    local f=$1 k n
    for k in $(seq 0 34); do
        n=$(grep -c "^k$k|" "$f")
        [ "$n" = 1 ] || { echo "k$k: $n records"; return 1; }
        grep -qx "k$k|v30-$k-$CMP_PAD" "$f" || { echo "k$k: not its last value"; return 1; }
    done
    for k in $(seq 35 39); do
        n=$(grep -c "^k$k|" "$f")
        [ "$n" -le 1 ] || { echo "k$k: $n records"; return 1; }
        [ "$n" = 0 ] || grep -qx "k$k|NULL" "$f" || { echo "k$k: a value after its tombstone"; return 1; }
    done
    [ "$(grep -c '^f[0-9]*|filler' "$f")" = 400 ] || { echo "fillers: $(grep -c '^f[0-9]*|filler' "$f")"; return 1; }
}

t_compaction() {
    "$RDK_CHECK" "$BOOTSTRAP" --create cmp 1 3 cleanup.policy=compact segment.bytes=16384 \
        min.cleanable.dirty.ratio=0.01 delete.retention.ms=0 || return 1
    local f=$CL_DIR/cmp.txt r k i
    {
        for r in $(seq 1 30); do for k in $(seq 0 39); do echo "k$k|v$r-$k-$CMP_PAD"; done; done
        for k in $(seq 35 39); do echo "k$k|"; done
        for i in $(seq 1 400); do echo "f$i|filler-$i-$CMP_PAD"; done
    } > "$f"
    # Small batches: one batch must fit a 16 KiB segment.
    K -P -t cmp -p 0 -K '|' -Z -X batch.num.messages=20 -X request.required.acks=-1 -l "$f" || return 1
    local got=$CL_DIR/cmp.kcat w
    for w in $(seq 1 60); do
        K -C -t cmp -p 0 -o beginning -e -q -Z -f '%k|%s\n' > "$got" 2>/dev/null
        cmp_expected_ok "$got" >/dev/null && break
        sleep 0.5
    done
    cmp_expected_ok "$got" || { echo "kcat reads $(wc -l < "$got") records"; return 1; }
    # The same records through a librdkafka consumer, offsets increasing.
    "$RDK_CHECK" "$BOOTSTRAP" --dump cmp 0 > "$CL_DIR/cmp.rdk" || { echo "rdk_check --dump failed"; return 1; }
    sort -n -c "$CL_DIR/cmp.rdk" || { echo "offsets out of order"; return 1; }
    cut -d' ' -f2- "$CL_DIR/cmp.rdk" > "$CL_DIR/cmp.rdk.kv"
    diff -q "$got" "$CL_DIR/cmp.rdk.kv" >/dev/null || { echo "librdkafka reads other records than kcat"; diff "$got" "$CL_DIR/cmp.rdk.kv" | head -5; return 1; }
    # Offsets are kept: the last k0 record is where it was written (29 rounds of 40 before it).
    grep -q "^1160 k0|v30-0-" "$CL_DIR/cmp.rdk" || { echo "k0's last value moved: $(grep ' k0|' "$CL_DIR/cmp.rdk")"; return 1; }
    local passes=0 i
    for i in 1 2 3; do passes=$(( passes + $(metric "$i" logrep_log_cleaner_passes_total || echo 0) )); done
    [ "$passes" -ge 3 ] || { echo "cleaner passes on the 3 nodes: $passes"; return 1; }
    echo "note: $(wc -l < "$got") of $(wc -l < "$f") records left, $passes passes"
}
check "cleanup.policy=compact: kcat and librdkafka read the last value of every key from the start, offsets kept" \
    t_compaction

t_compaction_null_key() {
    local t=$(date +%s)
    echo nokey | K -P -t cmp -p 0 -X request.required.acks=-1 2> "$CL_DIR/nokey.err" &&
        { echo "a null key was accepted"; return 1; }
    # librdkafka's text of INVALID_RECORD (87).
    grep -qi "failed to validate record" "$CL_DIR/nokey.err" || { cat "$CL_DIR/nokey.err"; return 1; }
    [ $(( $(date +%s) - t )) -le 10 ] || { echo "took $(( $(date +%s) - t )) s"; return 1; }
}
check "a record without a key is refused on a compacted topic (INVALID_RECORD)" t_compaction_null_key

t_compaction_restart() {
    # Each replica cleans its own log (segment boundaries and tombstone
    # horizons may differ), so what must hold is what a consumer sees.
    local d w got=$CL_DIR/cmp.after
    node_kill 3 KILL
    d=$CL_DIR/data3/cmp-0
    "$LOGREP" verify "$d" > "$CL_DIR/verify-cmp.out" 2>&1 || { tail -3 "$CL_DIR/verify-cmp.out"; return 1; }
    grep -q '^cleaner: first dirty offset [1-9]' "$CL_DIR/verify-cmp.out" || { grep cleaner "$CL_DIR/verify-cmp.out"; return 1; }
    node_start 3
    cluster_wait_ready || return 1
    for w in $(seq 1 60); do
        K -C -t cmp -p 0 -o beginning -e -q -Z -f '%k|%s\n' > "$got" 2>/dev/null
        cmp_expected_ok "$got" >/dev/null && break
        sleep 0.5
    done
    cmp_expected_ok "$got"
}
check "kill -9 of a replica after compaction: its directory verifies, consumers read the last value of every key" \
    t_compaction_restart
