/* An embedded event log: three replicas of one partition in one program,
 * over the public replica API (logrep/partition.h) and disk storage, with
 * a transport (wire.c: pipes) and a controller of the program's own. The
 * leader is killed mid-stream, a new one is elected from the ISR, the dead
 * replica restarts from its disk, truncates what it alone had and catches
 * up; then every acknowledged event is checked on every replica.
 * This file is the main thread: the controller and the client. Each
 * replica runs in its own thread (replica.c). See README.md. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "appliance.h"

#define EVENTS 300
#define CRASH_AT 100   /* events acknowledged when the leader dies */
#define RESTART_AT 200 /* ... when it comes back */
#define IN_FLIGHT 5    /* an idempotent producer keeps at most 5 in flight */
#define PRODUCER_ID 4242
#define PHASE_LIMIT_MS 20000

typedef struct cluster {
    wire w;
    replica r[NODES];
    logrep_leadership lead; /* the controller's decision */
    logrep_partition_state st[NODES];
    int state[EVENTS]; /* 0 to send, 1 in flight, 2 acknowledged */
    uint32_t attempt[EVENTS];
    int64_t offset[EVENTS];
    int acked, resent, refused, bad_acks;
    int64_t retry_at;
} cluster;

/* A one-record batch; with seq >= 0 from the appliance's idempotent
 * producer, so that an event sent again is appended once. */
static uint8_t *batch(const char *value, int32_t seq, uint32_t *len)
{
    logrep_batch_builder *b;
    const uint8_t *out;
    size_t n;
    uint8_t *copy = NULL;
    if (logrep_batch_builder_new(NULL, &b) != LOGREP_OK)
        return NULL;
    if (seq >= 0)
        logrep_batch_builder_set_producer(b, PRODUCER_ID, 0, seq);
    if (logrep_batch_builder_add(b, now_ms(), NULL, -1, value, (int32_t)strlen(value), NULL,
                                 0) == LOGREP_OK &&
        logrep_batch_builder_finish(b, &out, &n) == LOGREP_OK && (copy = malloc(n))) {
        memcpy(copy, out, n);
        *len = (uint32_t)n;
    }
    logrep_batch_builder_free(b);
    return copy;
}

/* ------------------------------------------------------------ controller */

static void publish(cluster *c, int except)
{
    for (int id = 1; id < NODES; id++)
        if (c->r[id].alive && id != except) {
            msg m = {.type = M_APPLY, .lead = c->lead};
            wire_send(&c->w, 0, id, &m, NULL, 0);
        }
}

static void print_lead(const char *what, const logrep_leadership *l)
{
    printf("controller: %s: replica %d leads epoch %d, ISR {", what, l->leader, l->leader_epoch);
    for (int i = 0; i < l->n_isr; i++)
        printf(i ? ",%d" : "%d", l->isr[i]);
    printf("} (partition epoch %d)\n", l->partition_epoch);
}

static void elect(cluster *c, int leader, const int32_t *isr, int n_isr, const char *why)
{
    c->lead.leader = leader;
    c->lead.leader_epoch++;
    c->lead.partition_epoch++;
    c->lead.n_isr = n_isr;
    memmove(c->lead.isr, isr, (size_t)n_isr * sizeof *isr);
    print_lead(why, &c->lead);
    publish(c, 0);
}

/* AlterPartition: an ISR change of the current leader, based on the
 * current partition epoch, adding only live replicas, is committed. */
static void on_proposal(cluster *c, const msg *in)
{
    msg out = {.type = M_ISR_RESULT, .isr = in->isr};
    if (in->from != c->lead.leader || in->isr.leader_epoch != c->lead.leader_epoch)
        out.error = LOGREP_ERR_FENCED_LEADER_EPOCH;
    else if (in->isr.partition_epoch != c->lead.partition_epoch)
        out.error = LOGREP_ERR_INVALID_UPDATE_VERSION;
    for (int i = 0; i < in->isr.n_isr && !out.error; i++)
        if (in->isr.isr[i] < 1 || in->isr.isr[i] >= NODES || !c->r[in->isr.isr[i]].alive)
            out.error = LOGREP_ERR_INELIGIBLE_REPLICA;
    if (!out.error) {
        c->lead.partition_epoch++;
        c->lead.n_isr = in->isr.n_isr;
        memcpy(c->lead.isr, in->isr.isr, (size_t)in->isr.n_isr * sizeof *in->isr.isr);
        out.isr.partition_epoch = c->lead.partition_epoch;
        print_lead("ISR change", &c->lead);
        publish(c, c->lead.leader);
    }
    wire_send(&c->w, 0, in->from, &out, NULL, 0);
}

/* ------------------------------------------------------------ client */

static void on_produced(cluster *c, const msg *in, int64_t now)
{
    uint32_t i = (uint32_t)in->prod.token, attempt = (uint32_t)(in->prod.token >> 32);
    if (in->prod.pending || i >= EVENTS)
        return; /* acks=all: the outcome comes later, as an event */
    if (in->prod.error == LOGREP_OK) {
        if (c->state[i] == 2 && c->offset[i] != in->prod.base_offset)
            c->bad_acks++; /* acknowledged at two offsets: would be a bug */
        c->acked += c->state[i] != 2;
        c->state[i] = 2;
        c->offset[i] = in->prod.base_offset;
    } else if (attempt == c->attempt[i] && c->state[i] == 1) {
        if (++c->refused <= 10)
            printf("client: event %u refused by replica %d (%s): sent again\n", i, in->from,
                   logrep_err_name(in->prod.error));
        c->state[i] = 0; /* sent again, in order, shortly */
        c->retry_at = now + 20;
    }
}

/* Keeps up to IN_FLIGHT events on their way to the leader, lowest first. */
static void send_events(cluster *c, int64_t now)
{
    int busy = 0, to = c->lead.leader;
    for (int i = 0; i < EVENTS; i++)
        busy += c->state[i] == 1;
    for (int i = 0; i < EVENTS && busy < IN_FLIGHT && now >= c->retry_at && c->r[to].alive; i++) {
        if (c->state[i] != 0)
            continue;
        char value[32];
        uint32_t len;
        snprintf(value, sizeof value, "event-%d", i);
        uint8_t *b = batch(value, i, &len);
        msg m = {.type = M_PRODUCE, .seq = (uint64_t)c->attempt[i] << 32 | (uint32_t)i};
        if (b && wire_send(&c->w, 0, to, &m, b, len) == 0) {
            c->state[i] = 1;
            busy++;
        }
        free(b);
    }
}

/* Runs the controller and the client until done(c), or fails. */
static int pump(cluster *c, int (*done)(const cluster *))
{
    int64_t limit = now_ms() + PHASE_LIMIT_MS;
    while (!done(c)) {
        msg in;
        uint8_t *data;
        send_events(c, now_ms());
        int got = now_ms() > limit ? -1 : wire_recv(&c->w, 0, 10, &in, &data);
        if (got < 0)
            return -1;
        if (got == 0)
            continue;
        if (in.type == M_STATUS)
            c->st[in.from] = in.state;
        else if (in.type == M_PROPOSAL)
            on_proposal(c, &in);
        else if (in.type == M_PRODUCED)
            on_produced(c, &in, now_ms());
        free(data);
    }
    return 0;
}

static int crash_due(const cluster *c) { return c->acked >= CRASH_AT; }
static int restart_due(const cluster *c) { return c->acked >= RESTART_AT; }
static int converged(const cluster *c)
{
    int64_t end = c->st[c->lead.leader].log_end_offset;
    int ok = c->acked == EVENTS && c->lead.n_isr == NODES - 1;
    for (int id = 1; id < NODES; id++)
        ok = ok && c->st[id].high_watermark == end && c->st[id].log_end_offset == end &&
             c->st[id].leader_epoch == c->lead.leader_epoch;
    return ok;
}

/* ------------------------------------------------------------ replicas */

/* Opens (or reopens: crash recovery) the replica's log and starts its thread. */
static int start(cluster *c, int id)
{
    replica *r = &c->r[id];
    logrep_log *log;
    logrep_err err = logrep_log_open(r->conf, r->st, r->dir, now_ms(), &log);
    if (!err) {
        const logrep_log_recovery *rec = logrep_log_recovery_info(log);
        printf("replica %d: log opened: offsets %lld..%lld, %s\n", id,
               (long long)rec->log_start_offset, (long long)rec->log_end_offset,
               rec->clean ? "clean" : "recovered after a crash");
        err = logrep_partition_new(r->conf, id, log, &r->p);
    }
    if (err) {
        fprintf(stderr, "replica %d: %s\n", id, logrep_err_name(err));
        return -1;
    }
    r->fetching = 0;
    r->fetch_at = 0;
    memset(&r->shown, 0, sizeof r->shown);
    msg m = {.type = M_APPLY, .lead = c->lead}; /* read once the thread runs */
    if (c->lead.leader_epoch >= 0)
        wire_send(&c->w, 0, id, &m, NULL, 0);
    r->alive = pthread_create(&r->thread, NULL, replica_run, r) == 0;
    return r->alive ? 0 : -1;
}

static void crash_leader(cluster *c)
{
    int dead = c->lead.leader, n = 0;
    uint32_t len = 0;
    uint8_t *b = batch("a write only the dying leader holds", -1, &len);
    msg m = {.type = M_CRASH};
    wire_send(&c->w, 0, dead, &m, b, len);
    free(b);
    pthread_join(c->r[dead].thread, NULL);
    c->r[dead].alive = 0;
    for (int i = 0; i < EVENTS; i++)
        if (c->state[i] == 1) { /* unanswered: sent again to the next leader */
            c->state[i] = 0;
            c->attempt[i]++;
            c->resent++;
        }
    int32_t isr[LOGREP_PARTITION_MAX_REPLICAS];
    for (int i = 0; i < c->lead.n_isr; i++)
        if (c->lead.isr[i] != dead)
            isr[n++] = c->lead.isr[i];
    elect(c, isr[0], isr, n, "leader lost");
}

/* Reads replica id's log through: each acknowledged event must be at its
 * offset, and no event twice. Returns the faults. */
static int verify(cluster *c, int id)
{
    logrep_partition *p = c->r[id].p;
    logrep_log *log = logrep_partition_log(p);
    int64_t off = logrep_log_start_offset(log), end = logrep_log_end_offset(log);
    int *at = calloc((size_t)end + 1, sizeof *at), seen[EVENTS] = {0}, dups = 0, missing = 0;
    logrep_batch_reader *rd = NULL;
    if (logrep_batch_reader_new(NULL, &rd) != LOGREP_OK)
        off = -1; /* nothing read: every event counts as missing */
    while (at && off >= 0 && off < end) {
        logrep_log_slice s;
        uint8_t *buf = NULL;
        if (logrep_log_read(log, off, 1 << 20, INT64_MAX, 1, &s) != LOGREP_OK || !s.length ||
            !(buf = malloc(s.length)) || logrep_partition_read_slice(p, &s, buf, s.length)) {
            free(buf);
            break;
        }
        logrep_batch_header h;
        for (size_t pos = 0; pos < s.length; pos += (size_t)h.batch_length + LOGREP_LOG_OVERHEAD) {
            logrep_record rec;
            if (logrep_batch_reader_open(rd, buf + pos, s.length - pos, &h) != LOGREP_OK)
                break;
            while (logrep_batch_reader_next(rd, &rec) == LOGREP_OK) {
                int i;
                char v[32] = "";
                memcpy(v, rec.value, rec.value_len < 31 ? (size_t)rec.value_len : 31);
                if (sscanf(v, "event-%d", &i) == 1 && i >= 0 && i < EVENTS) {
                    at[rec.offset] = i + 1;
                    dups += seen[i]++ > 0;
                }
            }
        }
        off = s.next_offset;
        free(buf);
    }
    logrep_batch_reader_free(rd);
    for (int i = 0; i < EVENTS; i++)
        missing += c->state[i] == 2 && (!at || off < end || at[c->offset[i]] != i + 1);
    printf("verify: replica %d holds %lld records; %d of %d acknowledged events missing, %d "
           "duplicated\n", id, (long long)end, missing, c->acked, dups);
    free(at);
    return missing + dups;
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    struct stat sb;
    char sub[600];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) > 0 && lstat(sub, &sb) == 0)
            S_ISDIR(sb.st_mode) ? remove_tree(sub) : (void)unlink(sub);
    if (d)
        closedir(d);
    rmdir(path);
}

int main(void)
{
    static cluster c; /* large: kept off the stack */
    char root[] = "/tmp/logrep-appliance-XXXXXX";
    int64_t began = now_ms(); /* the clock starts before any thread */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!mkdtemp(root) || wire_open(&c.w) != 0)
        return perror("appliance: setup"), 1;
    printf("appliance: 3 replicas of one partition under %s, %d events with acks=all\n", root,
           EVENTS);
    c.lead.leader_epoch = c.lead.partition_epoch = -1;
    for (int id = 1; id < NODES; id++) {
        replica *r = &c.r[id];
        r->id = id;
        r->w = &c.w;
        snprintf(r->dir, sizeof r->dir, "%s/replica-%d", root, id);
        mkdir(r->dir, 0700);
        strcat(r->dir, "/events-0");
        r->conf = logrep_conf_new();
        logrep_conf_set(r->conf, "min.insync.replicas", "2", NULL, 0);
        logrep_conf_set(r->conf, "replica.lag.time.max.ms", "5000", NULL, 0);
        logrep_conf_set(r->conf, "segment.bytes", "8192", NULL, 0); /* a few segments */
        c.lead.replicas[c.lead.n_replicas++] = id;
        if (!r->conf || logrep_storage_posix_new(NULL, &r->st) != LOGREP_OK || start(&c, id))
            return 1;
    }
    elect(&c, 1, c.lead.replicas, 3, "first election");
    int fail = pump(&c, crash_due), dead = c.lead.leader;
    printf("client: %d events acknowledged; now the leader dies\n", c.acked);
    crash_leader(&c);
    fail = fail || pump(&c, restart_due);
    printf("client: %d events acknowledged (%d sent again after the crash); replica %d "
           "restarts\n", c.acked, c.resent, dead);
    fail = fail || start(&c, dead) != 0 || pump(&c, converged);
    printf("client: %d events acknowledged; every replica at high watermark %lld, after %.2f s\n",
           c.acked, (long long)c.st[c.lead.leader].high_watermark,
           (double)(now_ms() - began) / 1000);
    for (int id = 1; id < NODES; id++) {
        msg m = {.type = M_STOP};
        if (c.r[id].alive && wire_send(&c.w, 0, id, &m, NULL, 0) == 0)
            pthread_join(c.r[id].thread, NULL); /* its replica is main's again */
    }
    int faults = fail ? 1 : c.bad_acks;
    for (int id = 1; id < NODES && !fail; id++)
        faults += verify(&c, id);
    for (int id = 1; id < NODES; id++) {
        logrep_partition_free(c.r[id].p, 0);
        logrep_storage_free(c.r[id].st);
        logrep_conf_free(c.r[id].conf);
    }
    wire_close(&c.w);
    remove_tree(root);
    if (faults)
        printf("appliance: FAILED (%d faults%s)\n", faults, fail ? ": a phase did not finish" : "");
    else
        printf("appliance: ok, every acknowledged event is on every replica, once\n");
    return faults ? 1 : 0;
}
