/* The checker (check.c): a partition's replica log as a node holds it,
 * parsed from its storage into record ids and batch epochs, and cached
 * until the storage, the log's bounds or the node's incarnation change. */
#include <stdlib.h>

#include "node/node_int.h"
#include "sim/sim_int.h"

static int grow_rlog(lr_sim_rlog *r, size_t n)
{
    if (n <= r->cap)
        return 0;
    size_t ncap = r->cap ? r->cap : 64;
    while (ncap < n)
        ncap *= 2;
    uint64_t *ids = realloc(r->ids, ncap * sizeof *ids);
    if (!ids)
        return -1;
    r->ids = ids;
    int32_t *ep = realloc(r->epochs, ncap * sizeof *ep);
    if (!ep)
        return -1;
    r->epochs = ep;
    r->cap = ncap;
    return 0;
}

static int read_bytes(logrep_sim *s, int32_t id, logrep_file *f, uint64_t pos, size_t len)
{
    if (len > s->rbuf_cap) {
        uint8_t *nb = realloc(s->rbuf, len);
        if (!nb)
            return -1;
        s->rbuf = nb;
        s->rbuf_cap = len;
    }
    const logrep_storage *st = s->st[id];
    size_t got = 0;
    if (st->read(st->ctx, f, pos, s->rbuf, len, &got) != LOGREP_OK || got != len)
        return -1;
    return 0;
}

const lr_sim_rlog *lr_sim_replica_log(logrep_sim *s, int32_t id, int32_t part)
{
    logrep_node *n = s->node[id];
    if (!n || id > s->nb)
        return NULL;
    lr_npart *np = lr_node_part(n, LR_SIM_TOPIC, part);
    if (!np)
        return NULL;
    logrep_log *log = lr_partition_log(np->rep);
    lr_sim_rlog *r = &s->cp[part].rlog[id];
    uint64_t ops = logrep_storage_op_count(s->st[id], LOGREP_STORAGE_OP_WRITE |
                                                          LOGREP_STORAGE_OP_TRUNCATE |
                                                          LOGREP_STORAGE_OP_META);
    int64_t start = logrep_log_start_offset(log), leo = logrep_log_end_offset(log);
    if (r->valid && r->key_ops == ops && r->key_leo == leo && r->key_start == start &&
        r->key_inc == s->inc[id])
        return r;
    r->valid = 0;
    if (leo < start || grow_rlog(r, (size_t)(leo - start) + 1) != 0)
        return NULL;
    for (int64_t o = start; o < leo; o++) {
        r->ids[o - start] = 0;
        r->epochs[o - start] = -1;
    }
    int64_t off = start;
    while (off < leo) {
        logrep_log_slice sl;
        if (logrep_log_read(log, off, 1 << 20, INT64_MAX, 1, &sl) != LOGREP_OK || sl.length == 0)
            break;
        if (read_bytes(s, id, sl.file, sl.position, (size_t)sl.length) != 0)
            break;
        size_t pos = 0;
        while (pos < sl.length) {
            logrep_batch_header h;
            if (logrep_batch_reader_open(s->rd, s->rbuf + pos, (size_t)sl.length - pos, &h) != LOGREP_OK)
                break;
            int64_t last = h.base_offset + h.last_offset_delta;
            for (int64_t o = h.base_offset; o <= last && o < leo; o++)
                if (o >= start)
                    r->epochs[o - start] = h.partition_leader_epoch;
            logrep_record rec;
            while (!(h.attributes & LOGREP_ATTR_CONTROL) &&
                   logrep_batch_reader_next(s->rd, &rec) == LOGREP_OK) {
                if (rec.offset < start || rec.offset >= leo || rec.value_len != 8)
                    continue;
                uint64_t v = 0;
                for (int k = 0; k < 8; k++)
                    v = v << 8 | rec.value[k];
                r->ids[rec.offset - start] = v;
            }
            pos += (size_t)h.batch_length + 12;
        }
        if (sl.next_offset <= off)
            break;
        off = sl.next_offset;
    }
    if (off < leo) {
        lr_sim_fail(s, "harness: node %d partition %d log unreadable at %lld (LEO %lld)", id, part,
                    (long long)off, (long long)leo);
        return NULL;
    }
    r->valid = 1;
    r->key_ops = ops;
    r->key_leo = leo;
    r->key_start = start;
    r->key_inc = s->inc[id];
    r->start = start;
    r->leo = leo;
    return r;
}
