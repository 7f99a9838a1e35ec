/* Fault sweep of a node (lib/node) driven over the wire through
 * test/lib/net_testutil: one broker+controller, and a 3-node cluster
 * (RF 3, min ISR 2) whose node 2 is the faulty one. Under the fault:
 * CreateTopics, Produce acks=1 and acks=all, Fetch, ListOffsets,
 * Metadata and a restart of the faulty node. Every allocation of that
 * node, and every write and sync of its storage, fails once and from
 * there on. Each run: every request is answered, with a code a Kafka
 * client knows for that API, or its connection closes; once the fault
 * clears the node serves again (restarted if it stopped, which it must
 * have logged), every acknowledged record reads back, also after a
 * restart, and nothing leaks. docs/testing.md. */
#include "sweep_node.h"

static long sn_workload(const sw_fault *f, int n, int *seen)
{
    sn_run *r = sn_setup(f, n);
    net *w = &r->w;
    logrep_storage *st = w->st[r->F];
    uint64_t ops0 = logrep_storage_op_count(st, f->ops);
    sw_arm(f, &r->heap, st);

    /* Under the fault. */
    sn_create(r, r->F, "u");
    for (int i = 0; i < 6; i++)
        sn_produce(r, i % r->parts, i % 2 ? 1 : -1);
    /* Reads at each partition's leader, which is the faulty node for
     * the single node and for one partition of the cluster. */
    for (int part = 0; part < r->parts; part++) {
        int64_t hw, next;
        int to = r->leader[part];
        if (to >= 1 && w->node[to])
            sn_fetch(r, to, part, 0, NULL, &hw, &next);
        if (to >= 1 && w->node[to])
            sn_list_offsets(r, to, part);
    }
    if (w->node[r->F])
        sn_metadata(r, r->F);
    sn_stop(r, 0);
    sn_start(r);
    run(w, n == 1 ? 1000 : 3000); /* the old incarnation's session ends */
    if (n > 1 || w->node[r->F])
        sn_metadata(r, n == 1 ? r->F : 1);
    for (int i = 0; i < 4; i++)
        sn_produce(r, i % r->parts, i % 2 ? -1 : 1);

    long calls = f->alloc ? r->heap.allocs : (long)(logrep_storage_op_count(st, f->ops) - ops0);
    if (!f->k)
        cr_assert(!r->seen && !r->logged && !r->warned, "the counting run failed: %s", r->last);
    *seen = r->seen || r->logged || r->warned || (f->alloc && r->heap.failed);
    sw_clear(f, &r->heap, st);

    /* The fault cleared: the node serves again, or it stopped and said so
     * and serves once restarted. */
    if (!w->node[r->F])
        cr_assert_eq(sn_start(r), LOGREP_OK);
    run(w, 2000);
    if (!sn_usable(r)) {
        cr_assert(r->logged, "%s: the node neither recovered nor logged an error", r->what);
        sn_stop(r, 0);
        cr_assert_eq(sn_start(r), LOGREP_OK);
        run(w, 3000);
        cr_assert(sn_usable(r), "%s: not usable after a restart", r->what);
    }
    sn_check(r, "after the fault");
    if (r->created_u)
        cr_assert(sn_has_u(r, 1), "%s: topic u was created but is gone", r->what);
    sn_stop(r, 0);
    cr_assert_eq(sn_start(r), LOGREP_OK);
    run(w, 3000);
    sn_check(r, "after a restart");
    sn_teardown(r);
    return calls;
}

static long sn_single(const sw_fault *f, int *seen) { return sn_workload(f, 1, seen); }
static long sn_cluster(const sw_fault *f, int *seen) { return sn_workload(f, 3, seen); }

#define SN_RUNS (-32) /* values of k per sweep in `make test` */

static void sn_storage(sw_workload wl)
{
    sw_sweep(wl, 0, LOGREP_STORAGE_OP_WRITE, LOGREP_ERR__IO, sw_stride(SN_RUNS));
    sw_sweep(wl, 0, LOGREP_STORAGE_OP_WRITE, LOGREP_ERR__NOSPACE, sw_stride(SN_RUNS));
    sw_sweep(wl, 0, LOGREP_STORAGE_OP_SYNC, LOGREP_ERR__IO, sw_stride(SN_RUNS));
    sw_sweep(wl, 0, LOGREP_STORAGE_OP_SYNC, LOGREP_ERR__NOSPACE, sw_stride(SN_RUNS));
}

Test(sweep_node, single_every_allocation_fails)
{
    sw_sweep(sn_single, 1, 0, LOGREP_ERR__NOMEM, sw_stride(SN_RUNS));
}

Test(sweep_node, single_every_write_and_sync_fails)
{
    sn_storage(sn_single);
}

Test(sweep_node, cluster_every_allocation_fails)
{
    sw_sweep(sn_cluster, 1, 0, LOGREP_ERR__NOMEM, sw_stride(SN_RUNS));
}

Test(sweep_node, cluster_every_write_and_sync_fails)
{
    sn_storage(sn_cluster);
}
