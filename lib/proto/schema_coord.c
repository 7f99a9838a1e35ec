/* Schema tables of the coordinators' APIs: FindCoordinator, classic
 * groups and their offsets, transactions and their markers. */
#include "proto/schema_msgs.h"

#define X LR_PV_INF

/* LR_F(name, type, element type, versions, nullable versions, tagged from,
 *      tag, default, flags, sub-struct) */

/* FindCoordinator request */
static const lr_pfield s_find_coordinator_req_find_coordinator_request_f[] = {
    LR_F(Key, STRING, 0, 0, 3, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(KeyType, INT8, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CoordinatorKeys, ARRAY, LOGREP_FT_STRING, 4, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_find_coordinator_req = {"FindCoordinatorRequest", 3, s_find_coordinator_req_find_coordinator_request_f};

/* FindCoordinator response */
static const lr_pfield s_find_coordinator_resp_coordinator_f[] = {
    LR_F(Key, STRING, 0, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(NodeId, INT32, 0, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Host, STRING, 0, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Port, INT32, 0, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorMessage, STRING, 0, 4, X, 4, X, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_find_coordinator_resp_coordinator = {"Coordinator", 6, s_find_coordinator_resp_coordinator_f};

static const lr_pfield s_find_coordinator_resp_find_coordinator_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, 3, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorMessage, STRING, 0, 1, 3, 1, 3, -1, -1, 0, 0, NULL),
    LR_F(NodeId, INT32, 0, 0, 3, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Host, STRING, 0, 0, 3, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Port, INT32, 0, 0, 3, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Coordinators, ARRAY, LOGREP_FT_STRUCT, 4, X, -1, -1, -1, -1, 0, 0, &s_find_coordinator_resp_coordinator),
};
const lr_pstruct lr_ps_find_coordinator_resp = {"FindCoordinatorResponse", 7, s_find_coordinator_resp_find_coordinator_response_f};

/* JoinGroup request */
static const lr_pfield s_join_group_req_join_group_request_protocol_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Metadata, BYTES, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_join_group_req_join_group_request_protocol = {"JoinGroupRequestProtocol", 2, s_join_group_req_join_group_request_protocol_f};

static const lr_pfield s_join_group_req_join_group_request_f[] = {
    LR_F(GroupId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(SessionTimeoutMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(RebalanceTimeoutMs, INT32, 0, 1, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(MemberId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupInstanceId, STRING, 0, 5, X, 5, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(ProtocolType, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Protocols, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_join_group_req_join_group_request_protocol),
    LR_F(Reason, STRING, 0, 8, X, 8, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
};
const lr_pstruct lr_ps_join_group_req = {"JoinGroupRequest", 8, s_join_group_req_join_group_request_f};

/* JoinGroup response */
static const lr_pfield s_join_group_resp_join_group_response_member_f[] = {
    LR_F(MemberId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupInstanceId, STRING, 0, 5, X, 5, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(Metadata, BYTES, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_join_group_resp_join_group_response_member = {"JoinGroupResponseMember", 3, s_join_group_resp_join_group_response_member_f};

static const lr_pfield s_join_group_resp_join_group_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 2, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GenerationId, INT32, 0, 0, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(ProtocolType, STRING, 0, 7, X, 7, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(ProtocolName, STRING, 0, 0, X, 7, X, -1, -1, 0, 0, NULL),
    LR_F(Leader, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(SkipAssignment, BOOL, 0, 9, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MemberId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Members, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_join_group_resp_join_group_response_member),
};
const lr_pstruct lr_ps_join_group_resp = {"JoinGroupResponse", 9, s_join_group_resp_join_group_response_f};

/* SyncGroup request */
static const lr_pfield s_sync_group_req_sync_group_request_assignment_f[] = {
    LR_F(MemberId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Assignment, BYTES, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_sync_group_req_sync_group_request_assignment = {"SyncGroupRequestAssignment", 2, s_sync_group_req_sync_group_request_assignment_f};

static const lr_pfield s_sync_group_req_sync_group_request_f[] = {
    LR_F(GroupId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GenerationId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MemberId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupInstanceId, STRING, 0, 3, X, 3, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(ProtocolType, STRING, 0, 5, X, 5, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(ProtocolName, STRING, 0, 5, X, 5, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(Assignments, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_sync_group_req_sync_group_request_assignment),
};
const lr_pstruct lr_ps_sync_group_req = {"SyncGroupRequest", 7, s_sync_group_req_sync_group_request_f};

/* SyncGroup response */
static const lr_pfield s_sync_group_resp_sync_group_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProtocolType, STRING, 0, 5, X, 5, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(ProtocolName, STRING, 0, 5, X, 5, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(Assignment, BYTES, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_sync_group_resp = {"SyncGroupResponse", 5, s_sync_group_resp_sync_group_response_f};

/* Heartbeat request */
static const lr_pfield s_heartbeat_req_heartbeat_request_f[] = {
    LR_F(GroupId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GenerationId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MemberId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupInstanceId, STRING, 0, 3, X, 3, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
};
const lr_pstruct lr_ps_heartbeat_req = {"HeartbeatRequest", 4, s_heartbeat_req_heartbeat_request_f};

/* Heartbeat response */
static const lr_pfield s_heartbeat_resp_heartbeat_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_heartbeat_resp = {"HeartbeatResponse", 2, s_heartbeat_resp_heartbeat_response_f};

/* LeaveGroup request */
static const lr_pfield s_leave_group_req_member_identity_f[] = {
    LR_F(MemberId, STRING, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupInstanceId, STRING, 0, 3, X, 3, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(Reason, STRING, 0, 5, X, 5, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
};
static const lr_pstruct s_leave_group_req_member_identity = {"MemberIdentity", 3, s_leave_group_req_member_identity_f};

static const lr_pfield s_leave_group_req_leave_group_request_f[] = {
    LR_F(GroupId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MemberId, STRING, 0, 0, 2, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Members, ARRAY, LOGREP_FT_STRUCT, 3, X, -1, -1, -1, -1, 0, 0, &s_leave_group_req_member_identity),
};
const lr_pstruct lr_ps_leave_group_req = {"LeaveGroupRequest", 3, s_leave_group_req_leave_group_request_f};

/* LeaveGroup response */
static const lr_pfield s_leave_group_resp_member_response_f[] = {
    LR_F(MemberId, STRING, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupInstanceId, STRING, 0, 3, X, 3, X, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_leave_group_resp_member_response = {"MemberResponse", 3, s_leave_group_resp_member_response_f};

static const lr_pfield s_leave_group_resp_leave_group_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Members, ARRAY, LOGREP_FT_STRUCT, 3, X, -1, -1, -1, -1, 0, 0, &s_leave_group_resp_member_response),
};
const lr_pstruct lr_ps_leave_group_resp = {"LeaveGroupResponse", 3, s_leave_group_resp_leave_group_response_f};

/* OffsetCommit request */
static const lr_pfield s_offset_commit_req_offset_commit_request_partition_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CommittedOffset, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CommittedLeaderEpoch, INT32, 0, 6, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(CommitTimestamp, INT64, 0, 1, 1, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(CommittedMetadata, STRING, 0, 0, X, 0, X, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_offset_commit_req_offset_commit_request_partition = {"OffsetCommitRequestPartition", 5, s_offset_commit_req_offset_commit_request_partition_f};

static const lr_pfield s_offset_commit_req_offset_commit_request_topic_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_offset_commit_req_offset_commit_request_partition),
};
static const lr_pstruct s_offset_commit_req_offset_commit_request_topic = {"OffsetCommitRequestTopic", 2, s_offset_commit_req_offset_commit_request_topic_f};

static const lr_pfield s_offset_commit_req_offset_commit_request_f[] = {
    LR_F(GroupId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GenerationIdOrMemberEpoch, INT32, 0, 1, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(MemberId, STRING, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupInstanceId, STRING, 0, 7, X, 7, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(RetentionTimeMs, INT64, 0, 2, 4, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_offset_commit_req_offset_commit_request_topic),
};
const lr_pstruct lr_ps_offset_commit_req = {"OffsetCommitRequest", 6, s_offset_commit_req_offset_commit_request_f};

/* OffsetCommit response */
static const lr_pfield s_offset_commit_resp_offset_commit_response_partition_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_offset_commit_resp_offset_commit_response_partition = {"OffsetCommitResponsePartition", 2, s_offset_commit_resp_offset_commit_response_partition_f};

static const lr_pfield s_offset_commit_resp_offset_commit_response_topic_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_offset_commit_resp_offset_commit_response_partition),
};
static const lr_pstruct s_offset_commit_resp_offset_commit_response_topic = {"OffsetCommitResponseTopic", 2, s_offset_commit_resp_offset_commit_response_topic_f};

static const lr_pfield s_offset_commit_resp_offset_commit_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_offset_commit_resp_offset_commit_response_topic),
};
const lr_pstruct lr_ps_offset_commit_resp = {"OffsetCommitResponse", 2, s_offset_commit_resp_offset_commit_response_f};

/* OffsetFetch request */
static const lr_pfield s_offset_fetch_req_offset_fetch_request_topic_f[] = {
    LR_F(Name, STRING, 0, 0, 7, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(PartitionIndexes, ARRAY, LOGREP_FT_INT32, 0, 7, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_offset_fetch_req_offset_fetch_request_topic = {"OffsetFetchRequestTopic", 2, s_offset_fetch_req_offset_fetch_request_topic_f};

static const lr_pfield s_offset_fetch_req_offset_fetch_request_topics_f[] = {
    LR_F(Name, STRING, 0, 8, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(PartitionIndexes, ARRAY, LOGREP_FT_INT32, 8, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_offset_fetch_req_offset_fetch_request_topics = {"OffsetFetchRequestTopics", 2, s_offset_fetch_req_offset_fetch_request_topics_f};

static const lr_pfield s_offset_fetch_req_offset_fetch_request_group_f[] = {
    LR_F(GroupId, STRING, 0, 8, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MemberId, STRING, 0, 9, X, 9, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(MemberEpoch, INT32, 0, 9, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 8, X, 8, X, -1, -1, 0, 0, &s_offset_fetch_req_offset_fetch_request_topics),
};
static const lr_pstruct s_offset_fetch_req_offset_fetch_request_group = {"OffsetFetchRequestGroup", 4, s_offset_fetch_req_offset_fetch_request_group_f};

static const lr_pfield s_offset_fetch_req_offset_fetch_request_f[] = {
    LR_F(GroupId, STRING, 0, 0, 7, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, 7, 2, 7, -1, -1, 0, 0, &s_offset_fetch_req_offset_fetch_request_topic),
    LR_F(Groups, ARRAY, LOGREP_FT_STRUCT, 8, X, -1, -1, -1, -1, 0, 0, &s_offset_fetch_req_offset_fetch_request_group),
    LR_F(RequireStable, BOOL, 0, 7, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_offset_fetch_req = {"OffsetFetchRequest", 4, s_offset_fetch_req_offset_fetch_request_f};

/* OffsetFetch response */
static const lr_pfield s_offset_fetch_resp_offset_fetch_response_partition_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, 7, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CommittedOffset, INT64, 0, 0, 7, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CommittedLeaderEpoch, INT32, 0, 5, 7, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(Metadata, STRING, 0, 0, 7, 0, 7, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, 7, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_offset_fetch_resp_offset_fetch_response_partition = {"OffsetFetchResponsePartition", 5, s_offset_fetch_resp_offset_fetch_response_partition_f};

static const lr_pfield s_offset_fetch_resp_offset_fetch_response_topic_f[] = {
    LR_F(Name, STRING, 0, 0, 7, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, 7, -1, -1, -1, -1, 0, 0, &s_offset_fetch_resp_offset_fetch_response_partition),
};
static const lr_pstruct s_offset_fetch_resp_offset_fetch_response_topic = {"OffsetFetchResponseTopic", 2, s_offset_fetch_resp_offset_fetch_response_topic_f};

static const lr_pfield s_offset_fetch_resp_offset_fetch_response_partitions_f[] = {
    LR_F(PartitionIndex, INT32, 0, 8, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CommittedOffset, INT64, 0, 8, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CommittedLeaderEpoch, INT32, 0, 8, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(Metadata, STRING, 0, 8, X, 8, X, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 8, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_offset_fetch_resp_offset_fetch_response_partitions = {"OffsetFetchResponsePartitions", 5, s_offset_fetch_resp_offset_fetch_response_partitions_f};

static const lr_pfield s_offset_fetch_resp_offset_fetch_response_topics_f[] = {
    LR_F(Name, STRING, 0, 8, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 8, X, -1, -1, -1, -1, 0, 0, &s_offset_fetch_resp_offset_fetch_response_partitions),
};
static const lr_pstruct s_offset_fetch_resp_offset_fetch_response_topics = {"OffsetFetchResponseTopics", 2, s_offset_fetch_resp_offset_fetch_response_topics_f};

static const lr_pfield s_offset_fetch_resp_offset_fetch_response_group_f[] = {
    LR_F(GroupId, STRING, 0, 8, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 8, X, -1, -1, -1, -1, 0, 0, &s_offset_fetch_resp_offset_fetch_response_topics),
    LR_F(ErrorCode, INT16, 0, 8, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_offset_fetch_resp_offset_fetch_response_group = {"OffsetFetchResponseGroup", 3, s_offset_fetch_resp_offset_fetch_response_group_f};

static const lr_pfield s_offset_fetch_resp_offset_fetch_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, 7, -1, -1, -1, -1, 0, 0, &s_offset_fetch_resp_offset_fetch_response_topic),
    LR_F(ErrorCode, INT16, 0, 2, 7, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Groups, ARRAY, LOGREP_FT_STRUCT, 8, X, -1, -1, -1, -1, 0, 0, &s_offset_fetch_resp_offset_fetch_response_group),
};
const lr_pstruct lr_ps_offset_fetch_resp = {"OffsetFetchResponse", 4, s_offset_fetch_resp_offset_fetch_response_f};

/* ListGroups request */
static const lr_pfield s_list_groups_req_list_groups_request_f[] = {
    LR_F(StatesFilter, ARRAY, LOGREP_FT_STRING, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(TypesFilter, ARRAY, LOGREP_FT_STRING, 5, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_list_groups_req = {"ListGroupsRequest", 2, s_list_groups_req_list_groups_request_f};

/* ListGroups response */
static const lr_pfield s_list_groups_resp_listed_group_f[] = {
    LR_F(GroupId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProtocolType, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupState, STRING, 0, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupType, STRING, 0, 5, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_list_groups_resp_listed_group = {"ListedGroup", 4, s_list_groups_resp_listed_group_f};

static const lr_pfield s_list_groups_resp_list_groups_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Groups, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_list_groups_resp_listed_group),
};
const lr_pstruct lr_ps_list_groups_resp = {"ListGroupsResponse", 3, s_list_groups_resp_list_groups_response_f};

/* DescribeGroups request */
static const lr_pfield s_describe_groups_req_describe_groups_request_f[] = {
    LR_F(Groups, ARRAY, LOGREP_FT_STRING, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(IncludeAuthorizedOperations, BOOL, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_describe_groups_req = {"DescribeGroupsRequest", 2, s_describe_groups_req_describe_groups_request_f};

/* DescribeGroups response */
static const lr_pfield s_describe_groups_resp_described_group_member_f[] = {
    LR_F(MemberId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupInstanceId, STRING, 0, 4, X, 4, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(ClientId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ClientHost, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MemberMetadata, BYTES, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MemberAssignment, BYTES, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_describe_groups_resp_described_group_member = {"DescribedGroupMember", 6, s_describe_groups_resp_described_group_member_f};

static const lr_pfield s_describe_groups_resp_described_group_f[] = {
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupState, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProtocolType, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProtocolData, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Members, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_describe_groups_resp_described_group_member),
    LR_F(AuthorizedOperations, INT32, 0, 3, X, -1, -1, -1, -1, INT32_MIN, 0, NULL),
};
static const lr_pstruct s_describe_groups_resp_described_group = {"DescribedGroup", 7, s_describe_groups_resp_described_group_f};

static const lr_pfield s_describe_groups_resp_describe_groups_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Groups, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_describe_groups_resp_described_group),
};
const lr_pstruct lr_ps_describe_groups_resp = {"DescribeGroupsResponse", 2, s_describe_groups_resp_describe_groups_response_f};

/* DeleteGroups request */
static const lr_pfield s_delete_groups_req_delete_groups_request_f[] = {
    LR_F(GroupsNames, ARRAY, LOGREP_FT_STRING, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_delete_groups_req = {"DeleteGroupsRequest", 1, s_delete_groups_req_delete_groups_request_f};

/* DeleteGroups response */
static const lr_pfield s_delete_groups_resp_deletable_group_result_f[] = {
    LR_F(GroupId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_delete_groups_resp_deletable_group_result = {"DeletableGroupResult", 2, s_delete_groups_resp_deletable_group_result_f};

static const lr_pfield s_delete_groups_resp_delete_groups_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Results, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_delete_groups_resp_deletable_group_result),
};
const lr_pstruct lr_ps_delete_groups_resp = {"DeleteGroupsResponse", 2, s_delete_groups_resp_delete_groups_response_f};

/* InitProducerId request */
static const lr_pfield s_init_producer_id_req_init_producer_id_request_f[] = {
    LR_F(TransactionalId, STRING, 0, 0, X, 0, X, -1, -1, 0, 0, NULL),
    LR_F(TransactionTimeoutMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerId, INT64, 0, 3, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(ProducerEpoch, INT16, 0, 3, X, -1, -1, -1, -1, -1, 0, NULL),
};
const lr_pstruct lr_ps_init_producer_id_req = {"InitProducerIdRequest", 4, s_init_producer_id_req_init_producer_id_request_f};

/* InitProducerId response */
static const lr_pfield s_init_producer_id_resp_init_producer_id_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerId, INT64, 0, 0, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(ProducerEpoch, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_init_producer_id_resp = {"InitProducerIdResponse", 4, s_init_producer_id_resp_init_producer_id_response_f};

/* AddPartitionsToTxn request */
static const lr_pfield s_add_partitions_to_txn_req_add_partitions_to_txn_topic_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_INT32, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_add_partitions_to_txn_req_add_partitions_to_txn_topic = {"AddPartitionsToTxnTopic", 2, s_add_partitions_to_txn_req_add_partitions_to_txn_topic_f};

static const lr_pfield s_add_partitions_to_txn_req_add_partitions_to_txn_transaction_f[] = {
    LR_F(TransactionalId, STRING, 0, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerId, INT64, 0, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerEpoch, INT16, 0, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(VerifyOnly, BOOL, 0, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 4, X, -1, -1, -1, -1, 0, 0, &s_add_partitions_to_txn_req_add_partitions_to_txn_topic),
};
static const lr_pstruct s_add_partitions_to_txn_req_add_partitions_to_txn_transaction = {"AddPartitionsToTxnTransaction", 5, s_add_partitions_to_txn_req_add_partitions_to_txn_transaction_f};

static const lr_pfield s_add_partitions_to_txn_req_add_partitions_to_txn_request_f[] = {
    LR_F(Transactions, ARRAY, LOGREP_FT_STRUCT, 4, X, -1, -1, -1, -1, 0, 0, &s_add_partitions_to_txn_req_add_partitions_to_txn_transaction),
    LR_F(V3AndBelowTransactionalId, STRING, 0, 0, 3, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(V3AndBelowProducerId, INT64, 0, 0, 3, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(V3AndBelowProducerEpoch, INT16, 0, 0, 3, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(V3AndBelowTopics, ARRAY, LOGREP_FT_STRUCT, 0, 3, -1, -1, -1, -1, 0, 0, &s_add_partitions_to_txn_req_add_partitions_to_txn_topic),
};
const lr_pstruct lr_ps_add_partitions_to_txn_req = {"AddPartitionsToTxnRequest", 5, s_add_partitions_to_txn_req_add_partitions_to_txn_request_f};

/* AddPartitionsToTxn response */
static const lr_pfield s_add_partitions_to_txn_resp_add_partitions_to_txn_partition_result_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(PartitionErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_add_partitions_to_txn_resp_add_partitions_to_txn_partition_result = {"AddPartitionsToTxnPartitionResult", 2, s_add_partitions_to_txn_resp_add_partitions_to_txn_partition_result_f};

static const lr_pfield s_add_partitions_to_txn_resp_add_partitions_to_txn_topic_result_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ResultsByPartition, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_add_partitions_to_txn_resp_add_partitions_to_txn_partition_result),
};
static const lr_pstruct s_add_partitions_to_txn_resp_add_partitions_to_txn_topic_result = {"AddPartitionsToTxnTopicResult", 2, s_add_partitions_to_txn_resp_add_partitions_to_txn_topic_result_f};

static const lr_pfield s_add_partitions_to_txn_resp_add_partitions_to_txn_result_f[] = {
    LR_F(TransactionalId, STRING, 0, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(TopicResults, ARRAY, LOGREP_FT_STRUCT, 4, X, -1, -1, -1, -1, 0, 0, &s_add_partitions_to_txn_resp_add_partitions_to_txn_topic_result),
};
static const lr_pstruct s_add_partitions_to_txn_resp_add_partitions_to_txn_result = {"AddPartitionsToTxnResult", 2, s_add_partitions_to_txn_resp_add_partitions_to_txn_result_f};

static const lr_pfield s_add_partitions_to_txn_resp_add_partitions_to_txn_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ResultsByTransaction, ARRAY, LOGREP_FT_STRUCT, 4, X, -1, -1, -1, -1, 0, 0, &s_add_partitions_to_txn_resp_add_partitions_to_txn_result),
    LR_F(ResultsByTopicV3AndBelow, ARRAY, LOGREP_FT_STRUCT, 0, 3, -1, -1, -1, -1, 0, 0, &s_add_partitions_to_txn_resp_add_partitions_to_txn_topic_result),
};
const lr_pstruct lr_ps_add_partitions_to_txn_resp = {"AddPartitionsToTxnResponse", 4, s_add_partitions_to_txn_resp_add_partitions_to_txn_response_f};

/* AddOffsetsToTxn request */
static const lr_pfield s_add_offsets_to_txn_req_add_offsets_to_txn_request_f[] = {
    LR_F(TransactionalId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerId, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerEpoch, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_add_offsets_to_txn_req = {"AddOffsetsToTxnRequest", 4, s_add_offsets_to_txn_req_add_offsets_to_txn_request_f};

/* AddOffsetsToTxn response */
static const lr_pfield s_add_offsets_to_txn_resp_add_offsets_to_txn_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_add_offsets_to_txn_resp = {"AddOffsetsToTxnResponse", 2, s_add_offsets_to_txn_resp_add_offsets_to_txn_response_f};

/* EndTxn request */
static const lr_pfield s_end_txn_req_end_txn_request_f[] = {
    LR_F(TransactionalId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerId, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerEpoch, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Committed, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_end_txn_req = {"EndTxnRequest", 4, s_end_txn_req_end_txn_request_f};

/* EndTxn response */
static const lr_pfield s_end_txn_resp_end_txn_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerId, INT64, 0, 5, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(ProducerEpoch, INT16, 0, 5, X, -1, -1, -1, -1, -1, 0, NULL),
};
const lr_pstruct lr_ps_end_txn_resp = {"EndTxnResponse", 4, s_end_txn_resp_end_txn_response_f};

/* TxnOffsetCommit request */
static const lr_pfield s_txn_offset_commit_req_txn_offset_commit_request_partition_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CommittedOffset, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CommittedLeaderEpoch, INT32, 0, 2, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(CommittedMetadata, STRING, 0, 0, X, 0, X, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_txn_offset_commit_req_txn_offset_commit_request_partition = {"TxnOffsetCommitRequestPartition", 4, s_txn_offset_commit_req_txn_offset_commit_request_partition_f};

static const lr_pfield s_txn_offset_commit_req_txn_offset_commit_request_topic_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_txn_offset_commit_req_txn_offset_commit_request_partition),
};
static const lr_pstruct s_txn_offset_commit_req_txn_offset_commit_request_topic = {"TxnOffsetCommitRequestTopic", 2, s_txn_offset_commit_req_txn_offset_commit_request_topic_f};

static const lr_pfield s_txn_offset_commit_req_txn_offset_commit_request_f[] = {
    LR_F(TransactionalId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerId, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerEpoch, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GenerationId, INT32, 0, 3, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(MemberId, STRING, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupInstanceId, STRING, 0, 3, X, 3, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_txn_offset_commit_req_txn_offset_commit_request_topic),
};
const lr_pstruct lr_ps_txn_offset_commit_req = {"TxnOffsetCommitRequest", 8, s_txn_offset_commit_req_txn_offset_commit_request_f};

/* TxnOffsetCommit response */
static const lr_pfield s_txn_offset_commit_resp_txn_offset_commit_response_partition_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_txn_offset_commit_resp_txn_offset_commit_response_partition = {"TxnOffsetCommitResponsePartition", 2, s_txn_offset_commit_resp_txn_offset_commit_response_partition_f};

static const lr_pfield s_txn_offset_commit_resp_txn_offset_commit_response_topic_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_txn_offset_commit_resp_txn_offset_commit_response_partition),
};
static const lr_pstruct s_txn_offset_commit_resp_txn_offset_commit_response_topic = {"TxnOffsetCommitResponseTopic", 2, s_txn_offset_commit_resp_txn_offset_commit_response_topic_f};

static const lr_pfield s_txn_offset_commit_resp_txn_offset_commit_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_txn_offset_commit_resp_txn_offset_commit_response_topic),
};
const lr_pstruct lr_ps_txn_offset_commit_resp = {"TxnOffsetCommitResponse", 2, s_txn_offset_commit_resp_txn_offset_commit_response_f};

/* WriteTxnMarkers request */
static const lr_pfield s_write_txn_markers_req_writable_txn_marker_topic_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(PartitionIndexes, ARRAY, LOGREP_FT_INT32, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_write_txn_markers_req_writable_txn_marker_topic = {"WritableTxnMarkerTopic", 2, s_write_txn_markers_req_writable_txn_marker_topic_f};

static const lr_pfield s_write_txn_markers_req_writable_txn_marker_f[] = {
    LR_F(ProducerId, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerEpoch, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(TransactionResult, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_write_txn_markers_req_writable_txn_marker_topic),
    LR_F(CoordinatorEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_write_txn_markers_req_writable_txn_marker = {"WritableTxnMarker", 5, s_write_txn_markers_req_writable_txn_marker_f};

static const lr_pfield s_write_txn_markers_req_write_txn_markers_request_f[] = {
    LR_F(Markers, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_write_txn_markers_req_writable_txn_marker),
};
const lr_pstruct lr_ps_write_txn_markers_req = {"WriteTxnMarkersRequest", 1, s_write_txn_markers_req_write_txn_markers_request_f};

/* WriteTxnMarkers response */
static const lr_pfield s_write_txn_markers_resp_writable_txn_marker_partition_result_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_write_txn_markers_resp_writable_txn_marker_partition_result = {"WritableTxnMarkerPartitionResult", 2, s_write_txn_markers_resp_writable_txn_marker_partition_result_f};

static const lr_pfield s_write_txn_markers_resp_writable_txn_marker_topic_result_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_write_txn_markers_resp_writable_txn_marker_partition_result),
};
static const lr_pstruct s_write_txn_markers_resp_writable_txn_marker_topic_result = {"WritableTxnMarkerTopicResult", 2, s_write_txn_markers_resp_writable_txn_marker_topic_result_f};

static const lr_pfield s_write_txn_markers_resp_writable_txn_marker_result_f[] = {
    LR_F(ProducerId, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_write_txn_markers_resp_writable_txn_marker_topic_result),
};
static const lr_pstruct s_write_txn_markers_resp_writable_txn_marker_result = {"WritableTxnMarkerResult", 2, s_write_txn_markers_resp_writable_txn_marker_result_f};

static const lr_pfield s_write_txn_markers_resp_write_txn_markers_response_f[] = {
    LR_F(Markers, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_write_txn_markers_resp_writable_txn_marker_result),
};
const lr_pstruct lr_ps_write_txn_markers_resp = {"WriteTxnMarkersResponse", 1, s_write_txn_markers_resp_write_txn_markers_response_f};

/* OffsetDelete request */
static const lr_pfield s_offset_delete_req_partition_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_offset_delete_req_partition = {"OffsetDeleteRequestPartition", 1, s_offset_delete_req_partition_f};

static const lr_pfield s_offset_delete_req_topic_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_offset_delete_req_partition),
};
static const lr_pstruct s_offset_delete_req_topic = {"OffsetDeleteRequestTopic", 2, s_offset_delete_req_topic_f};

static const lr_pfield s_offset_delete_req_f[] = {
    LR_F(GroupId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_offset_delete_req_topic),
};
const lr_pstruct lr_ps_offset_delete_req = {"OffsetDeleteRequest", 2, s_offset_delete_req_f};

/* OffsetDelete response */
static const lr_pfield s_offset_delete_resp_partition_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_offset_delete_resp_partition = {"OffsetDeleteResponsePartition", 2, s_offset_delete_resp_partition_f};

static const lr_pfield s_offset_delete_resp_topic_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_offset_delete_resp_partition),
};
static const lr_pstruct s_offset_delete_resp_topic = {"OffsetDeleteResponseTopic", 2, s_offset_delete_resp_topic_f};

static const lr_pfield s_offset_delete_resp_f[] = {
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_offset_delete_resp_topic),
};
const lr_pstruct lr_ps_offset_delete_resp = {"OffsetDeleteResponse", 3, s_offset_delete_resp_f};
