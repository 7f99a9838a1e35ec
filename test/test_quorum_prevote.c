/* Pre-vote (KIP-996, lr_quorum_conf.pre_vote): a voter that times out
 * first asks whether it could win, changing nothing, so that a voter cut
 * off from a healthy leader does not depose it when it comes back. */
#include <criterion/criterion.h>
#include <string.h>

#include "lib/quorum_testutil.h"

static const qt_params PRE = {.pre_vote = 1};

static qt_node *elect(qt_cluster *c)
{
    qt_node *l = qt_elect(c, 2000);
    cr_assert_not_null(l, "no leader");
    return l;
}

Test(quorum_prevote, timeout_asks_without_changing_the_epoch)
{
    qt_cluster *c = qt_new(3, 0, 31, &PRE);
    qt_node *n1 = qt_node_of(c, 1);
    n1->clock_off += 250;
    lr_quorum_tick(n1->q, qt_now(c, n1));
    cr_assert_eq(lr_quorum_role_of(n1->q), LR_QR_PROSPECTIVE);
    cr_assert_eq(lr_quorum_epoch(n1->q), 0);
    cr_assert_eq(n1->pending_seq, 0, "a pre-vote wrote quorum-state");
    cr_assert_eq(qt_count(c, 1, -1, LR_QM_VOTE_REQ), 2);
    cr_assert(c->net[0].m.pre_vote);
    cr_assert_eq(c->net[0].m.epoch, 1);
    /* The others grant without moving either; then it stands for real. */
    qt_deliver(c, LR_QM_VOTE_REQ);
    cr_assert_eq(lr_quorum_epoch(qt_node_of(c, 2)->q), 0);
    cr_assert_eq(qt_node_of(c, 2)->pending_seq, 0);
    qt_deliver(c, LR_QM_VOTE_RESP);
    cr_assert_eq(lr_quorum_role_of(n1->q), LR_QR_CANDIDATE);
    cr_assert_eq(lr_quorum_epoch(n1->q), 1);
    qt_settle(c);
    cr_assert_eq(lr_quorum_role_of(n1->q), LR_QR_LEADER);
    qt_free(c);
}

Test(quorum_prevote, a_follower_that_hears_its_leader_says_no)
{
    qt_cluster *c = qt_new(3, 0, 32, &PRE);
    qt_node *l = elect(c);
    qt_node *f = qt_node_of(c, l->id == 1 ? 2 : 1);
    int32_t e = lr_quorum_epoch(l->q);
    lr_qmsg r = {.type = LR_QM_VOTE_REQ, .from = l->id == 3 ? 2 : 3, .epoch = e + 1,
                 .leader_id = -1, .last_epoch = 99, .end_offset = 99, .pre_vote = 1};
    qt_inject(c, f->id, &r);
    cr_assert_eq(lr_quorum_epoch(f->q), e);
    cr_assert_eq(qt_count(c, f->id, r.from, LR_QM_VOTE_RESP), 1);
    cr_assert_not(c->net[c->n_net - 1].m.granted);
    qt_free(c);
}

Test(quorum_prevote, a_cut_off_voter_does_not_depose_the_leader)
{
    qt_cluster *c = qt_new(3, 0, 33, &PRE);
    qt_node *l = elect(c);
    int32_t e = lr_quorum_epoch(l->q);
    qt_node *f = qt_node_of(c, l->id == 1 ? 2 : 1);
    for (int j = 0; j < 3; j++)
        c->cut[f->id - 1][j] = c->cut[j][f->id - 1] = 1;
    qt_advance(c, 2000); /* it keeps asking, and nobody hears */
    cr_assert_eq(lr_quorum_epoch(f->q), e, "a pre-vote moved its epoch");
    memset(c->cut, 0, sizeof(c->cut));
    qt_advance(c, 500);
    cr_assert_eq(lr_quorum_role_of(l->q), LR_QR_LEADER);
    cr_assert_eq(lr_quorum_epoch(l->q), e, "the healthy leader was deposed");
    cr_assert_eq(lr_quorum_role_of(f->q), LR_QR_FOLLOWER);
    cr_assert_eq(qt_check(c), 0, "%s", c->why);
    qt_free(c);
}
