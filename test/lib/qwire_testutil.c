/* Helpers of the quorum wire tests (qwire_testutil.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "lib/qwire_testutil.h"

const lr_qwire W1 = {1, "cluster-a"};
const lr_qwire W2 = {2, "cluster-a"};

void wire_init(wire *x)
{
    memset(x, 0, sizeof(*x));
    cr_assert_eq(logrep_msg_new(NULL, &x->tx), LOGREP_OK);
    cr_assert_eq(logrep_msg_new(NULL, &x->rx), LOGREP_OK);
    lr_buf_init(&x->recs, &lr_alloc_default);
}

void wire_free(wire *x)
{
    logrep_msg_free(x->tx);
    logrep_msg_free(x->rx);
    free(x->frame);
    lr_buf_free(&x->recs);
}

int is_resp(lr_qmsg_type t)
{
    return t == LR_QM_VOTE_RESP || t == LR_QM_BEGIN_RESP || t == LR_QM_END_RESP ||
           t == LR_QM_FETCH_RESP || t == LR_QM_FSNAP_RESP;
}

/* Opens tx as the message of api `key` at `ver`. */
logrep_struct *open_as(wire *x, int key, int ver, int resp)
{
    logrep_err err = resp ? logrep_msg_init_response(x->tx, key, ver, 7)
                          : logrep_msg_init_request(x->tx, key, ver, 7, "q");
    cr_assert_eq(err, LOGREP_OK, "open api %d v%d: %s", key, ver, logrep_err_name(err));
    return logrep_msg_root(x->tx);
}

void open_type(wire *x, lr_qmsg_type t, int ver)
{
    open_as(x, lr_qwire_api(t, NULL), ver, is_resp(t));
}

/* tx -> bytes -> rx. */
void transmit(wire *x)
{
    const uint8_t *p;
    size_t len;
    cr_assert_eq(logrep_msg_encode_flat(x->tx, &p, &len), LOGREP_OK, "%s",
                 logrep_msg_errmsg(x->tx));
    free(x->frame);
    x->frame = malloc(len);
    memcpy(x->frame, p, len);
    x->len = len;
    logrep_err err = logrep_msg_is_response(x->tx)
                         ? logrep_msg_decode_response(x->rx, logrep_msg_api_key(x->tx),
                                                      logrep_msg_version(x->tx), x->frame, len)
                         : logrep_msg_decode_request(x->rx, x->frame, len);
    cr_assert_eq(err, LOGREP_OK, "decode: %s", logrep_msg_errmsg(x->rx));
}

/* m -> frame -> lr_qmsg. For responses, req is the request answered. */
int send_msg(wire *x, const lr_qwire *w, const lr_qwire *wr, const lr_qmsg *m, int ver,
                    const lr_qmsg *req, lr_qmsg *out)
{
    open_type(x, m->type, ver);
    int err = lr_qwire_encode(w, x->tx, m, 2, 1000, &x->recs);
    cr_assert_eq(err, 0, "encode type %d v%d: %d", m->type, ver, err);
    transmit(x);
    return is_resp(m->type) ? lr_qwire_decode_response(wr, x->rx, req, m->from, out)
                            : lr_qwire_decode_request(wr, x->rx, out);
}


/* m through the wire comes back the same. */
void trip(wire *x, const lr_qwire *w, const lr_qwire *wr, const lr_qmsg *m, int ver,
                 const lr_qmsg *req)
{
    lr_qmsg out;
    cr_assert_eq(send_msg(x, w, wr, m, ver, req, &out), 0, "type %d v%d", m->type, ver);
    same(m, &out);
}

lr_qmsg blank(lr_qmsg_type t, int32_t from, int32_t epoch)
{
    return (lr_qmsg){.type = t, .from = from, .epoch = epoch, .leader_id = -1, .last_epoch = -1,
                     .last_fetched_epoch = -1, .hw = -1, .div_epoch = -1, .div_end_offset = -1,
                     .snap_epoch = -1, .size = -1};
}

static void same_entries(const lr_qmsg *a, const lr_qmsg *b)
{
    cr_assert_eq(a->n_entries, b->n_entries);
    for (size_t i = 0; i < a->n_entries; i++) {
        cr_assert_eq(a->entries[i].epoch, b->entries[i].epoch, "entry %zu", i);
        cr_assert_eq(a->entries[i].control, b->entries[i].control, "entry %zu", i);
        cr_assert_eq(a->entries[i].len, b->entries[i].len, "entry %zu", i);
        if (a->entries[i].len)
            cr_assert_arr_eq(a->entries[i].data, b->entries[i].data, a->entries[i].len);
    }
}

/* The snapshot and the position a FetchSnapshot asks for or answers. */
static void same_piece(const lr_qmsg *a, const lr_qmsg *b)
{
    cr_assert_eq(a->snap_end, b->snap_end);
    cr_assert_eq(a->snap_epoch, b->snap_epoch);
    cr_assert_eq(a->position, b->position);
}

/* Everything the quorum reads of m's type came back. */
void same(const lr_qmsg *a, const lr_qmsg *b)
{
    cr_assert_eq(a->type, b->type);
    cr_assert_eq(a->from, b->from);
    cr_assert_eq(a->epoch, b->epoch);
    switch (a->type) {
    case LR_QM_VOTE_REQ:
        cr_assert_eq(a->last_epoch, b->last_epoch);
        cr_assert_eq(a->end_offset, b->end_offset);
        cr_assert_eq(a->pre_vote, b->pre_vote);
        break;
    case LR_QM_END_REQ:
        cr_assert_eq(a->n_successors, b->n_successors);
        for (size_t i = 0; i < a->n_successors; i++)
            cr_assert_eq(a->successors[i], b->successors[i]);
        /* fall through */
    case LR_QM_BEGIN_REQ: cr_assert_eq(a->leader_id, b->leader_id); break;
    case LR_QM_FETCH_REQ:
        cr_assert_eq(a->fetch_offset, b->fetch_offset);
        cr_assert_eq(a->last_fetched_epoch, b->last_fetched_epoch);
        cr_assert_eq(a->observer, b->observer);
        break;
    case LR_QM_VOTE_RESP:
        cr_assert_eq(a->granted, b->granted);
        cr_assert_eq(a->pre_vote, b->pre_vote);
        /* fall through */
    case LR_QM_BEGIN_RESP:
    case LR_QM_END_RESP:
        cr_assert_eq(a->error, b->error);
        cr_assert_eq(a->leader_id, b->leader_id);
        break;
    case LR_QM_FETCH_RESP:
        cr_assert_eq(a->error, b->error);
        cr_assert_eq(a->leader_id, b->leader_id);
        cr_assert_eq(a->hw, b->hw);
        cr_assert_eq(a->div_epoch, b->div_epoch);
        cr_assert_eq(a->div_end_offset, b->div_end_offset);
        cr_assert_eq(a->base_offset, b->base_offset);
        cr_assert_eq(a->last_fetched_epoch, b->last_fetched_epoch);
        same_entries(a, b);
        break;
    case LR_QM_FSNAP_REQ:
        same_piece(a, b);
        cr_assert_eq(a->observer, b->observer);
        cr_assert_eq(b->leader_id, -1); /* not on the wire */
        /* len is MaxBytes: 0 sends the default, more than INT32_MAX the cap. */
        cr_assert_eq(b->len, a->len == 0          ? (size_t)LR_QWIRE_FSNAP_MAX_BYTES
                             : a->len > INT32_MAX ? (size_t)INT32_MAX
                                                  : a->len);
        break;
    case LR_QM_FSNAP_RESP:
        cr_assert_eq(a->error, b->error);
        cr_assert_eq(a->leader_id, b->leader_id);
        same_piece(a, b);
        /* An error answer carries no piece. */
        cr_assert_eq(a->error ? -1 : a->size, b->size);
        cr_assert_eq(a->error ? 0 : a->len, b->len);
        if (b->len)
            cr_assert_arr_eq(a->data, b->data, b->len);
        break;
    }
}

const uint8_t LC[6] = {0, 0, 0, 0, 0, 1};

void hex_eq(const uint8_t *got, size_t len, const char *hex)
{
    uint8_t want[512];
    size_t n = 0;
    for (const char *p = hex; *p;) {
        if (*p == ' ' || *p == '\n') {
            p++;
            continue;
        }
        unsigned b;
        cr_assert_eq(sscanf(p, "%2x", &b), 1);
        cr_assert_lt(n, sizeof want);
        want[n++] = (uint8_t)b;
        p += 2;
    }
    cr_assert_eq(len, n, "length %zu, want %zu", len, n);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(got[i], want[i], "byte %zu: %02x, want %02x", i, got[i], want[i]);
}

logrep_struct *partition_of(logrep_msg *m, const char *topics)
{
    logrep_struct *r = logrep_msg_root(m);
    logrep_struct *t = logrep_struct_elem(r, logrep_struct_field(r, topics), 0);
    return logrep_struct_elem(t, logrep_struct_field(t, "Partitions"), 0);
}

void set_int(logrep_struct *s, const char *f, int64_t v)
{
    cr_assert_eq(logrep_struct_set_int(s, logrep_struct_field(s, f), v), 0, "%s", f);
}


/* m encoded, then changed by `mut` before it goes on the wire; what the
 * receiver's decode says. */
int mutated(const lr_qmsg *m, int ver, const lr_qmsg *req, mutate_fn mut)
{
    wire x;
    wire_init(&x);
    open_type(&x, m->type, ver);
    cr_assert_eq(lr_qwire_encode(&W1, x.tx, m, 2, 0, &x.recs), 0);
    mut(x.tx);
    transmit(&x);
    lr_qmsg out;
    int rc = is_resp(m->type) ? lr_qwire_decode_response(&W2, x.rx, req, m->from, &out)
                              : lr_qwire_decode_request(&W2, x.rx, &out);
    wire_free(&x);
    return rc;
}

lr_qmsg some(lr_qmsg_type t)
{
    lr_qmsg m = blank(t, is_resp(t) ? 2 : 1, 4);
    m.leader_id = 1;
    m.end_offset = 3;
    m.fetch_offset = 3;
    m.last_epoch = m.last_fetched_epoch = 2;
    m.base_offset = 3;
    if (t == LR_QM_VOTE_REQ || t == LR_QM_FETCH_REQ)
        m.leader_id = -1;
    return m;
}

void cluster_other(logrep_msg *m)
{
    logrep_struct *r = logrep_msg_root(m);
    logrep_struct_set_bytes(r, logrep_struct_field(r, "ClusterId"), "cluster-b", 9);
}
void resp_top_error(logrep_msg *m)
{
    set_int(logrep_msg_root(m), "ErrorCode", LOGREP_ERR_INCONSISTENT_CLUSTER_ID);
}
void nothing(logrep_msg *m) { (void)m; }
