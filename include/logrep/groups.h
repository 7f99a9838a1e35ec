/* liblogrep: consumer groups and committed offsets on a node, in process.
 *
 * The group coordinator of a node (docs/groups.md) serves Kafka clients
 * over the wire; these calls give an embedding host the same coordinator
 * without wire frames: commit and fetch a group's offsets, describe and
 * list groups, and read every committed offset with its lag. They act on
 * the groups this node coordinates (it leads their `__consumer_offsets`
 * partition, loaded); others answer LOGREP_ERR_NOT_COORDINATOR (or
 * LOGREP_ERR_COORDINATOR_LOAD_IN_PROGRESS, or
 * LOGREP_ERR_COORDINATOR_NOT_AVAILABLE when the offsets topic does not
 * exist yet): ask the node that coordinates the group, as FindCoordinator
 * tells a client.
 *
 * Commits complete through the node's event queue (<logrep/inproc.h>).
 *
 * Threads: the calls belong to the node's thread, like every node call;
 * callbacks run inside the call and must not call back into the node.
 */
#ifndef LOGREP_GROUPS_H
#define LOGREP_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include <logrep.h>
#include <logrep/inproc.h>
#include <logrep/node.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One partition's committed offset. */
typedef struct logrep_group_offset {
    const char *topic;
    int32_t partition;
    int64_t offset;       /**< -1: none committed (fetch) */
    int32_t leader_epoch; /**< -1: none */
    const char *metadata; /**< NULL: none */
    int16_t error;        /**< fetch: the partition's error (UNSTABLE_OFFSET_COMMIT) */
} logrep_group_offset;

/** The node that coordinates `group`, as FindCoordinator answers a
 *  client: it leads the group's `__consumer_offsets` partition. The first
 *  call on a cluster without that topic asks the controller to create it
 *  (offsets.topic.num.partitions, offsets.topic.replication.factor capped
 *  by the live brokers, compacted) and answers COORDINATOR_NOT_AVAILABLE:
 *  ask again after ticks, as a client retries.
 *  @return LOGREP_OK with *node_id set; LOGREP_ERR_COORDINATOR_NOT_AVAILABLE
 *  with *node_id -1 (no topic yet, its partition has no live leader, or
 *  this node runs no coordinator); LOGREP_ERR__INVALID_ARG (a NULL
 *  argument). */
LOGREP_API logrep_err logrep_node_group_coordinator(logrep_node *node, const char *group,
                                                    int64_t now_ms, int32_t *node_id);

/** Commits offsets[0..count) for `group` as a simple commit (no member or
 *  generation, as Kafka's admin AlterConsumerGroupOffsets does; refused
 *  with UNKNOWN_MEMBER_ID while the group has members). The node copies
 *  what it needs. The outcome comes later as a LOGREP_NODE_EV_COMMIT event
 *  (logrep_node_poll) carrying `token`, once the records are committed in
 *  the offsets partition (or failed): an acknowledged commit is never
 *  lost by a coordinator failover.
 *  The event's error is the group's (NOT_COORDINATOR on a node that does
 *  not coordinate it, UNKNOWN_MEMBER_ID, COORDINATOR_NOT_AVAILABLE when
 *  the append failed ...), its errors[] each partition's.
 *  @return LOGREP_OK (an event will follow); without an event:
 *  LOGREP_ERR__INVALID_ARG (NULL group or offsets with count > 0, a NULL
 *  topic), LOGREP_ERR__NOMEM, LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION (a
 *  partition the cluster does not have: nothing is committed). */
LOGREP_API logrep_err logrep_node_commit_offsets(logrep_node *node, const char *group,
                                                 const logrep_group_offset *offsets,
                                                 size_t count, uint64_t token, int64_t now_ms);

/** Fills offset, leader_epoch, metadata and error of each offsets[i]
 *  (topic and partition given) with what `group` committed; metadata
 *  points into the node until its next call. Only committed
 *  (acknowledged) offsets are shown.
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG, LOGREP_ERR__NOMEM, or the
 *  group's error (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
 *  INVALID_GROUP_ID). */
LOGREP_API logrep_err logrep_node_fetch_offsets(logrep_node *node, const char *group,
                                                logrep_group_offset *offsets, size_t count);

/** A group member, as DescribeGroups shows it. Strings and bytes are
 *  borrowed for the callback. */
typedef struct logrep_group_member {
    const char *member_id;
    const char *instance_id; /**< NULL: dynamic member */
    const char *client_id;
    const char *client_host;
    const uint8_t *metadata; /**< the group's protocol's metadata */
    size_t metadata_len;
    const uint8_t *assignment;
    size_t assignment_len;
} logrep_group_member;

/** A group. state is "Empty", "PreparingRebalance", "CompletingRebalance",
 *  "Stable" or "Dead" (an unknown group); members is NULL from
 *  logrep_node_list_groups. Borrowed for the callback. */
typedef struct logrep_group_info {
    const char *group_id;
    const char *state;
    const char *protocol_type; /**< "" when none */
    const char *protocol;      /**< the chosen assignor, "" when none */
    const char *leader;        /**< "" when none */
    int32_t generation;
    const logrep_group_member *members;
    size_t n_members;
} logrep_group_info;

typedef void (*logrep_group_fn)(void *ctx, const logrep_group_info *g);

/** Describes `group` through fn (called once on success).
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG, LOGREP_ERR__NOMEM, or the
 *  group's error (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
 *  INVALID_GROUP_ID). */
LOGREP_API logrep_err logrep_node_describe_group(logrep_node *node, const char *group,
                                                 logrep_group_fn fn, void *ctx);

/** Calls fn for every group this node coordinates (members not filled).
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG, LOGREP_ERR__NOMEM, or
 *  COORDINATOR_LOAD_IN_PROGRESS while an offsets partition loads (the
 *  loaded ones are listed all the same). */
LOGREP_API logrep_err logrep_node_list_groups(logrep_node *node, logrep_group_fn fn, void *ctx);

/** A committed offset with its lag. */
typedef struct logrep_group_lag {
    const char *group;
    const char *topic;
    int32_t partition;
    int64_t offset;         /**< committed */
    int64_t high_watermark; /**< -1: this node does not host the partition */
    int64_t lag;            /**< high_watermark - offset (at least 0); -1 unknown */
} logrep_group_lag;

typedef void (*logrep_group_lag_fn)(void *ctx, const logrep_group_lag *l);

/** Calls fn for every committed offset of every group this node
 *  coordinates, with the lag where this node hosts the partition (its
 *  replica's high watermark). For metrics; Kafka's tools compute the same
 *  from ListOffsets.
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG, LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_node_group_lags(logrep_node *node, logrep_group_lag_fn fn,
                                             void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* LOGREP_GROUPS_H */
