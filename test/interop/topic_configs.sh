# Topic configs applied per partition, LogAppendTime and retention, with
# kcat and librdkafka against the running cluster. Sourced by run.sh after
# its restart check (retention removes the first segments that check
# looks for); needs log.retention.check.interval.ms=1000 on the brokers.
# Every wait is bounded.

# Earliest offset of TOPIC partition 0 (ListOffsets -2).
earliest() {
    K -Q -t "$1:0:-2" 2>/dev/null | sed -n 's/.*offset \([0-9-]*\).*/\1/p' | head -1
}

# .log files of TOPIC-0 on node I.
seg_count() {
    ls "$CL_DIR/data$2/$1-0/"*.log 2>/dev/null | wc -l
}

# A counter of node I's metrics endpoint.
metric() {
    local url; url=$(sed -n 's/^metrics.listener=//p' "$CL_DIR/node$1.properties")
    timeout 10 curl -s "$url/metrics" | sed -n "s/^$2{node=\"$1\"} //p"
}

t_log_append_time() {
    "$RDK_CHECK" "$BOOTSTRAP" --create cfg-lat 1 3 message.timestamp.type=LogAppendTime || return 1
    "$RDK_CHECK" "$BOOTSTRAP" --create cfg-ct 1 3 || return 1
    seq 1 5 | K -P -t cfg-lat -p 0 -X request.required.acks=-1 || return 1
    seq 1 5 | K -P -t cfg-ct -p 0 -X request.required.acks=-1 || return 1
    local lat ct
    lat=$(K -C -t cfg-lat -p 0 -o beginning -e -q -J)
    ct=$(K -C -t cfg-ct -p 0 -o beginning -e -q -J)
    [ "$(echo "$lat" | grep -c '"tstype":"logappend"')" = 5 ] || { echo "cfg-lat: $lat"; return 1; }
    [ "$(echo "$ct" | grep -c '"tstype":"create"')" = 5 ] || { echo "cfg-ct: $ct"; return 1; }
}
check "message.timestamp.type=LogAppendTime at CreateTopics: kcat reads logappend timestamps" \
    t_log_append_time

t_max_message_bytes() {
    "$RDK_CHECK" "$BOOTSTRAP" --create cfg-max 1 3 max.message.bytes=1000 || return 1
    local big; big=$(head -c 2000 /dev/zero | tr '\0' x)
    local out
    out=$(echo "$big" | K -P -t cfg-max -p 0 -X message.send.max.retries=0 2>&1)
    echo "$out" | grep -qi "too large" || { echo "2000 B accepted: $out"; return 1; }
    echo small | K -P -t cfg-max -p 0 || return 1
    [ "$(K -C -t cfg-max -p 0 -o beginning -e -q)" = small ]
}
check "max.message.bytes=1000 at CreateTopics: a 2000 B record is refused, a small one kept" \
    t_max_message_bytes

t_retention() {
    "$RDK_CHECK" "$BOOTSTRAP" --create cfg-ret 1 3 segment.bytes=1024 retention.ms=3000 || return 1
    # One record per batch so segment.bytes rolls every few batches.
    for i in $(seq 1 40); do printf 'record %03d padding padding padding padding padding\n' "$i"; done |
        K -P -t cfg-ret -p 0 -X batch.num.messages=1 -X linger.ms=0 -X request.required.acks=-1 ||
        return 1
    local i n
    for i in 1 2 3; do
        n=$(seg_count cfg-ret "$i")
        [ "$n" -ge 3 ] || { echo "node $i: $n segments with segment.bytes=1024"; return 1; }
    done
    local deleted0=0
    for i in 1 2 3; do deleted0=$((deleted0 + $(metric "$i" logrep_node_log_segments_deleted_total))); done
    local start=0 w
    for w in $(seq 1 40); do
        start=$(earliest cfg-ret)
        [ -n "$start" ] && [ "$start" -gt 0 ] && [ "$(seg_count cfg-ret 1)" = 1 ] &&
            [ "$(seg_count cfg-ret 2)" = 1 ] && [ "$(seg_count cfg-ret 3)" = 1 ] && break
        sleep 0.5
    done
    [ -n "$start" ] && [ "$start" -gt 0 ] || { echo "log start still $start after 20 s"; return 1; }
    for i in 1 2 3; do
        n=$(seg_count cfg-ret "$i")
        [ "$n" = 1 ] || { echo "node $i keeps $n segments"; return 1; }
    done
    local deleted1=0
    for i in 1 2 3; do deleted1=$((deleted1 + $(metric "$i" logrep_node_log_segments_deleted_total))); done
    [ "$deleted1" -gt "$deleted0" ] || { echo "metrics: deleted $deleted0 -> $deleted1"; return 1; }
    # Below the log start: OFFSET_OUT_OF_RANGE (no reset, so the error shows).
    local out
    out=$(K -C -t cfg-ret -p 0 -o 0 -e -X auto.offset.reset=error 2>&1 | head -5)
    echo "$out" | grep -qi "out of range" || { echo "offset 0: $out"; return 1; }
    n=$(K -C -t cfg-ret -p 0 -o beginning -e -q | wc -l)
    [ "$n" = $((40 - start)) ] || { echo "from the start $start: $n records"; return 1; }
    # A restarted broker keeps the advanced start.
    node_kill 2 TERM
    node_start 2
    cluster_wait_ready || return 1
    local p2; eval "p2=\$CL_PORT_2"
    local s2
    s2=$(timeout 30 kcat -b "127.0.0.1:$p2" -Q -t cfg-ret:0:-2 2>/dev/null |
         sed -n 's/.*offset \([0-9-]*\).*/\1/p' | head -1)
    [ "$(seg_count cfg-ret 2)" = 1 ] || { echo "node 2 after restart: $(seg_count cfg-ret 2) segments"; return 1; }
    [ -n "$s2" ] && [ "$s2" -ge "$start" ] || { echo "start after restart: $s2 (was $start)"; return 1; }
}
check "segment.bytes and retention.ms=3000 at CreateTopics: segments deleted, log start moves, offset 0 out of range, kept over a restart" \
    t_retention

# compression.type=zstd: kcat produces gzip with keys and headers; every
# replica stores zstd and kcat reads the records back unchanged.
t_compression_type() {
    "$RDK_CHECK" "$BOOTSTRAP" --create cfg-zstd 1 3 compression.type=zstd || return 1
    local f=$CL_DIR/in-zstd.txt
    for i in $(seq 1 200); do echo "key$((i % 7))|order $i: qty=$((i % 5)) repeated repeated repeated"; done > "$f"
    K -P -t cfg-zstd -p 0 -K '|' -z gzip -H "h=v" -X request.required.acks=-1 -l "$f" || return 1
    local got
    got=$(K -C -t cfg-zstd -p 0 -o beginning -e -q -f '%k|%s|%h\n')
    [ "$(echo "$got" | sed 's/|h=v$//')" = "$(cat "$f")" ] || { echo "records differ"; return 1; }
    [ "$(echo "$got" | grep -c '|h=v$')" = 200 ] || { echo "headers lost"; return 1; }
    sleep 1
    local i d
    for i in 1 2 3; do
        d=$("$LOGREP" dump "$CL_DIR/data$i/cfg-zstd-0/"*.log 2>&1)
        echo "$d" | grep -q 'compresscodec: zstd' || { echo "node $i: $d" | head -5; return 1; }
        if echo "$d" | grep -q 'compresscodec: gzip'; then echo "node $i kept gzip"; return 1; fi
    done
}
check "compression.type=zstd at CreateTopics: a gzip batch is stored zstd on every replica, kcat reads it unchanged" \
    t_compression_type

# AlterConfigs through librdkafka's admin API (rd_kafka_AlterConfigs, which
# replaces the topic's set) and DescribeConfigs; the open log takes the
# change: a record over the lowered max.message.bytes is refused.
t_alter_configs_rdkafka() {
    "$RDK_CHECK" "$BOOTSTRAP" --create cfg-alter 1 3 retention.ms=600000 || return 1
    local out
    out=$("$RDK_ALTER" "$BOOTSTRAP" cfg-alter --validate cleanup.policy=compact)
    [ "$out" = ok ] || { echo "validate: $out"; return 1; }
    out=$("$RDK_ALTER" "$BOOTSTRAP" cfg-alter --get cleanup.policy)
    [ "$out" = "delete DEFAULT_CONFIG" ] || { echo "after validate: $out"; return 1; }
    out=$("$RDK_ALTER" "$BOOTSTRAP" cfg-alter cleanup.policy=compact,delete max.message.bytes=1000)
    [ "$out" = ok ] || { echo "alter: $out"; return 1; }
    out=$("$RDK_ALTER" "$BOOTSTRAP" cfg-alter --get cleanup.policy)
    [ "$out" = "compact,delete DYNAMIC_TOPIC_CONFIG" ] || { echo "cleanup.policy: $out"; return 1; }
    out=$("$RDK_ALTER" "$BOOTSTRAP" cfg-alter --get retention.ms)
    [ "$out" = "604800000 DEFAULT_CONFIG" ] || { echo "retention.ms not reset: $out"; return 1; }
    out=$("$RDK_ALTER" "$BOOTSTRAP" cfg-alter cleanup.policy=shred)
    case "$out" in "error 40 "*) ;; *) echo "bad value: $out"; return 1 ;; esac
    out=$("$RDK_ALTER" "$BOOTSTRAP" no-such-topic retention.ms=1)
    case "$out" in "error 3 "*) ;; *) echo "unknown topic: $out"; return 1 ;; esac
    local big; big=$(head -c 2000 /dev/zero | tr '\0' x)
    # Keyed records: the topic is compacted now, and refuses null keys.
    out=$(echo "k|$big" | K -P -t cfg-alter -p 0 -K '|' -X message.send.max.retries=0 2>&1)
    echo "$out" | grep -qi "too large" || { echo "2000 B accepted: $out"; return 1; }
    echo "k|small" | K -P -t cfg-alter -p 0 -K '|' -X request.required.acks=-1 || return 1
}
check "AlterConfigs with librdkafka: validate_only, replace, DescribeConfigs sources, errors, max.message.bytes applied" \
    t_alter_configs_rdkafka

# kafkajs admin.alterConfigs and describeConfigs.
if command -v node >/dev/null && [ -f "$SRC/node_modules/kafkajs/package.json" ]; then
    check "AlterConfigs with kafkajs: cleanup.policy set and described" \
        timeout 60 node "$SRC/kafkajs_alter.js" "$BOOTSTRAP" cfg-alter-kjs
fi
