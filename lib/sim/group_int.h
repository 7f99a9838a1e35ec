/* Consumer group members' internals, shared by the files that implement
 * them: group_client.c (driving, creation, public calls), group_rebalance.c
 * (membership and rebalance), group_consume.c (consuming and committing)
 * and group_wire.c (requests, consumer protocol bytes). The rest of the
 * simulator sees members through sim_int.h. */
#ifndef LR_SIM_GROUP_INT_H
#define LR_SIM_GROUP_INT_H

#include <stdint.h>

#include "sim/sim_int.h"

#define GM_TIMEOUT_MS 3000
#define GM_BACKOFF_MS 100

static inline const char *lr_sim_gm_group(const lr_sim_actor *a)
{
    return a->gm->group_id;
}

/* group_rebalance.c: state changes */
/* Back to JoinGroup: the assignment is revoked (eager protocol). */
void lr_sim_gm_rejoin(logrep_sim *s, lr_sim_actor *a, const char *why, int reset_id);
void lr_sim_gm_lose_coordinator(logrep_sim *s, lr_sim_actor *a, const char *why);
int lr_sim_gm_coordinator_error(int e);
/* An error no correct coordinator answers this member's requests with. */
void lr_sim_gm_unexpected(logrep_sim *s, lr_sim_actor *a, const char *api, int e);
void lr_sim_gm_gone(logrep_sim *s, lr_sim_actor *a, const char *why);
/* group_rebalance.c: answers */
void lr_sim_gm_on_find(logrep_sim *s, lr_sim_actor *a, logrep_struct *root);
void lr_sim_gm_on_join(logrep_sim *s, lr_sim_actor *a, logrep_struct *root);
void lr_sim_gm_on_sync(logrep_sim *s, lr_sim_actor *a, logrep_struct *root);
void lr_sim_gm_on_heartbeat(logrep_sim *s, lr_sim_actor *a, logrep_struct *root);

/* group_consume.c */
/* The offsets of one answer: parts of topics (v0-7) or of the group (v8+). */
void lr_sim_gm_on_ofetch(logrep_sim *s, lr_sim_actor *a, logrep_struct *root);
void lr_sim_gm_on_commit(logrep_sim *s, lr_sim_actor *a, logrep_struct *root);
void lr_sim_gm_on_metadata(logrep_sim *s, lr_sim_actor *a, logrep_struct *root);
/* A Fetch answer of the partition a->partition. */
void lr_sim_gm_on_fetch(logrep_sim *s, lr_sim_actor *a, logrep_struct *root);
/* The next request of a member in the stable phase. */
int lr_sim_gm_stable_step(logrep_sim *s, lr_sim_actor *a);

/* group_wire.c: each sends one request, in flight in AS_GROUP; 0 or -1. */
int lr_sim_gm_send_find(logrep_sim *s, lr_sim_actor *a);
int lr_sim_gm_send_join(logrep_sim *s, lr_sim_actor *a);
/* The leader's carries the assignment of its members. */
int lr_sim_gm_send_sync(logrep_sim *s, lr_sim_actor *a);
int lr_sim_gm_send_ofetch(logrep_sim *s, lr_sim_actor *a);
int lr_sim_gm_send_heartbeat(logrep_sim *s, lr_sim_actor *a);
int lr_sim_gm_send_leave(logrep_sim *s, lr_sim_actor *a);
/* Commits the positions of parts; the checker hears of it. */
int lr_sim_gm_send_commit(logrep_sim *s, lr_sim_actor *a, const int32_t *parts, int32_t n);
/* The partitions of the topic in an assignment; -1 when malformed. */
int32_t lr_sim_gm_parse_assignment(const uint8_t *b, int32_t len, int32_t *parts);

#endif
