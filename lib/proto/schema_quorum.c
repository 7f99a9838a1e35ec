/* Schema tables of the controller's APIs: AlterPartition, broker
 * registration and heartbeats, the KRaft quorum (Vote, Begin/EndQuorumEpoch,
 * DescribeQuorum, FetchSnapshot), AllocateProducerIds. */
#include "proto/schema_msgs.h"

#define X LR_PV_INF

/* LR_F(name, type, element type, versions, nullable versions, tagged from,
 *      tag, default, flags, sub-struct) */

/* AlterPartition request */
static const lr_pfield s_alter_partition_req_broker_state_f[] = {
    LR_F(BrokerId, INT32, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(BrokerEpoch, INT64, 0, 3, X, -1, -1, -1, -1, -1, 0, NULL),
};
static const lr_pstruct s_alter_partition_req_broker_state = {"BrokerState", 2, s_alter_partition_req_broker_state_f};

static const lr_pfield s_alter_partition_req_partition_data_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(NewIsr, ARRAY, LOGREP_FT_INT32, 0, 2, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(NewIsrWithEpochs, ARRAY, LOGREP_FT_STRUCT, 3, X, -1, -1, -1, -1, 0, 0, &s_alter_partition_req_broker_state),
    LR_F(LeaderRecoveryState, INT8, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(PartitionEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_alter_partition_req_partition_data = {"PartitionData", 6, s_alter_partition_req_partition_data_f};

static const lr_pfield s_alter_partition_req_topic_data_f[] = {
    LR_F(TopicName, STRING, 0, 0, 1, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(TopicId, UUID, 0, 2, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_alter_partition_req_partition_data),
};
static const lr_pstruct s_alter_partition_req_topic_data = {"TopicData", 3, s_alter_partition_req_topic_data_f};

static const lr_pfield s_alter_partition_req_alter_partition_request_f[] = {
    LR_F(BrokerId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(BrokerEpoch, INT64, 0, 0, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_alter_partition_req_topic_data),
};
const lr_pstruct lr_ps_alter_partition_req = {"AlterPartitionRequest", 3, s_alter_partition_req_alter_partition_request_f};

/* AlterPartition response */
static const lr_pfield s_alter_partition_resp_partition_data_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Isr, ARRAY, LOGREP_FT_INT32, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderRecoveryState, INT8, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(PartitionEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_alter_partition_resp_partition_data = {"PartitionData", 7, s_alter_partition_resp_partition_data_f};

static const lr_pfield s_alter_partition_resp_topic_data_f[] = {
    LR_F(TopicName, STRING, 0, 0, 1, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(TopicId, UUID, 0, 2, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_alter_partition_resp_partition_data),
};
static const lr_pstruct s_alter_partition_resp_topic_data = {"TopicData", 3, s_alter_partition_resp_topic_data_f};

static const lr_pfield s_alter_partition_resp_alter_partition_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_alter_partition_resp_topic_data),
};
const lr_pstruct lr_ps_alter_partition_resp = {"AlterPartitionResponse", 3, s_alter_partition_resp_alter_partition_response_f};

/* BrokerRegistration request */
static const lr_pfield s_broker_registration_req_listener_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Host, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Port, UINT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(SecurityProtocol, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_broker_registration_req_listener = {"Listener", 4, s_broker_registration_req_listener_f};

static const lr_pfield s_broker_registration_req_feature_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MinSupportedVersion, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MaxSupportedVersion, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_broker_registration_req_feature = {"Feature", 3, s_broker_registration_req_feature_f};

static const lr_pfield s_broker_registration_req_broker_registration_request_f[] = {
    LR_F(BrokerId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ClusterId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(IncarnationId, UUID, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Listeners, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_broker_registration_req_listener),
    LR_F(Features, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_broker_registration_req_feature),
    LR_F(Rack, STRING, 0, 0, X, 0, X, -1, -1, 0, 0, NULL),
    LR_F(IsMigratingZkBroker, BOOL, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LogDirs, ARRAY, LOGREP_FT_UUID, 2, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(PreviousBrokerEpoch, INT64, 0, 3, X, -1, -1, -1, -1, -1, 0, NULL),
};
const lr_pstruct lr_ps_broker_registration_req = {"BrokerRegistrationRequest", 9, s_broker_registration_req_broker_registration_request_f};

/* BrokerRegistration response */
static const lr_pfield s_broker_registration_resp_broker_registration_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(BrokerEpoch, INT64, 0, 0, X, -1, -1, -1, -1, -1, 0, NULL),
};
const lr_pstruct lr_ps_broker_registration_resp = {"BrokerRegistrationResponse", 3, s_broker_registration_resp_broker_registration_response_f};

/* BrokerHeartbeat request */
static const lr_pfield s_broker_heartbeat_req_broker_heartbeat_request_f[] = {
    LR_F(BrokerId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(BrokerEpoch, INT64, 0, 0, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(CurrentMetadataOffset, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(WantFence, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(WantShutDown, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(OfflineLogDirs, ARRAY, LOGREP_FT_UUID, 1, X, -1, -1, 1, 0, 0, 0, NULL),
};
const lr_pstruct lr_ps_broker_heartbeat_req = {"BrokerHeartbeatRequest", 6, s_broker_heartbeat_req_broker_heartbeat_request_f};

/* BrokerHeartbeat response */
static const lr_pfield s_broker_heartbeat_resp_broker_heartbeat_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(IsCaughtUp, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(IsFenced, BOOL, 0, 0, X, -1, -1, -1, -1, 1, 0, NULL),
    LR_F(ShouldShutDown, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_broker_heartbeat_resp = {"BrokerHeartbeatResponse", 5, s_broker_heartbeat_resp_broker_heartbeat_response_f};

/* Vote request. v1 adds the voter key (VoterId, directory ids), v2
 * PreVote; v2 also renamed the Candidate* fields to Replica* (the bytes
 * are the same): the names here are the newer ones. */
static const lr_pfield s_vote_req_partition_data_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ReplicaEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ReplicaId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ReplicaDirectoryId, UUID, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(VoterDirectoryId, UUID, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LastOffsetEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LastOffset, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(PreVote, BOOL, 0, 2, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_vote_req_partition_data = {"PartitionData", 8, s_vote_req_partition_data_f};

static const lr_pfield s_vote_req_topic_data_f[] = {
    LR_F(TopicName, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_vote_req_partition_data),
};
static const lr_pstruct s_vote_req_topic_data = {"TopicData", 2, s_vote_req_topic_data_f};

static const lr_pfield s_vote_req_vote_request_f[] = {
    LR_F(ClusterId, STRING, 0, 0, X, 0, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(VoterId, INT32, 0, 1, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_vote_req_topic_data),
};
const lr_pstruct lr_ps_vote_req = {"VoteRequest", 3, s_vote_req_vote_request_f};

/* Vote response */
static const lr_pfield s_vote_resp_partition_data_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(VoteGranted, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_vote_resp_partition_data = {"PartitionData", 5, s_vote_resp_partition_data_f};

static const lr_pfield s_vote_resp_topic_data_f[] = {
    LR_F(TopicName, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_vote_resp_partition_data),
};
static const lr_pstruct s_vote_resp_topic_data = {"TopicData", 2, s_vote_resp_topic_data_f};

static const lr_pfield s_vote_resp_node_endpoint_f[] = {
    LR_F(NodeId, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Host, STRING, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Port, UINT16, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_vote_resp_node_endpoint = {"NodeEndpoint", 3, s_vote_resp_node_endpoint_f};

static const lr_pfield s_vote_resp_vote_response_f[] = {
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_vote_resp_topic_data),
    LR_F(NodeEndpoints, ARRAY, LOGREP_FT_STRUCT, 1, X, -1, -1, 1, 0, 0, 0, &s_vote_resp_node_endpoint),
};
const lr_pstruct lr_ps_vote_resp = {"VoteResponse", 3, s_vote_resp_vote_response_f};

/* BeginQuorumEpoch request */
static const lr_pfield s_begin_quorum_epoch_req_partition_data_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(VoterDirectoryId, UUID, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_begin_quorum_epoch_req_partition_data = {"PartitionData", 4, s_begin_quorum_epoch_req_partition_data_f};

static const lr_pfield s_begin_quorum_epoch_req_topic_data_f[] = {
    LR_F(TopicName, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_begin_quorum_epoch_req_partition_data),
};
static const lr_pstruct s_begin_quorum_epoch_req_topic_data = {"TopicData", 2, s_begin_quorum_epoch_req_topic_data_f};

static const lr_pfield s_begin_quorum_epoch_req_leader_endpoint_f[] = {
    LR_F(Name, STRING, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Host, STRING, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Port, UINT16, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_begin_quorum_epoch_req_leader_endpoint = {"LeaderEndpoint", 3, s_begin_quorum_epoch_req_leader_endpoint_f};

static const lr_pfield s_begin_quorum_epoch_req_begin_quorum_epoch_request_f[] = {
    LR_F(ClusterId, STRING, 0, 0, X, 0, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(VoterId, INT32, 0, 1, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_begin_quorum_epoch_req_topic_data),
    LR_F(LeaderEndpoints, ARRAY, LOGREP_FT_STRUCT, 1, X, -1, -1, -1, -1, 0, 0, &s_begin_quorum_epoch_req_leader_endpoint),
};
const lr_pstruct lr_ps_begin_quorum_epoch_req = {"BeginQuorumEpochRequest", 4, s_begin_quorum_epoch_req_begin_quorum_epoch_request_f};

/* BeginQuorumEpoch response */
static const lr_pfield s_begin_quorum_epoch_resp_partition_data_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_begin_quorum_epoch_resp_partition_data = {"PartitionData", 4, s_begin_quorum_epoch_resp_partition_data_f};

static const lr_pfield s_begin_quorum_epoch_resp_topic_data_f[] = {
    LR_F(TopicName, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_begin_quorum_epoch_resp_partition_data),
};
static const lr_pstruct s_begin_quorum_epoch_resp_topic_data = {"TopicData", 2, s_begin_quorum_epoch_resp_topic_data_f};

static const lr_pfield s_begin_quorum_epoch_resp_node_endpoint_f[] = {
    LR_F(NodeId, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Host, STRING, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Port, UINT16, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_begin_quorum_epoch_resp_node_endpoint = {"NodeEndpoint", 3, s_begin_quorum_epoch_resp_node_endpoint_f};

static const lr_pfield s_begin_quorum_epoch_resp_begin_quorum_epoch_response_f[] = {
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_begin_quorum_epoch_resp_topic_data),
    LR_F(NodeEndpoints, ARRAY, LOGREP_FT_STRUCT, 1, X, -1, -1, 1, 0, 0, 0, &s_begin_quorum_epoch_resp_node_endpoint),
};
const lr_pstruct lr_ps_begin_quorum_epoch_resp = {"BeginQuorumEpochResponse", 3, s_begin_quorum_epoch_resp_begin_quorum_epoch_response_f};

/* EndQuorumEpoch request */
static const lr_pfield s_end_quorum_epoch_req_replica_info_f[] = {
    LR_F(CandidateId, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CandidateDirectoryId, UUID, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_end_quorum_epoch_req_replica_info = {"ReplicaInfo", 2, s_end_quorum_epoch_req_replica_info_f};

static const lr_pfield s_end_quorum_epoch_req_partition_data_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(PreferredSuccessors, ARRAY, LOGREP_FT_INT32, 0, 0, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(PreferredCandidates, ARRAY, LOGREP_FT_STRUCT, 1, X, -1, -1, -1, -1, 0, 0, &s_end_quorum_epoch_req_replica_info),
};
static const lr_pstruct s_end_quorum_epoch_req_partition_data = {"PartitionData", 5, s_end_quorum_epoch_req_partition_data_f};

static const lr_pfield s_end_quorum_epoch_req_topic_data_f[] = {
    LR_F(TopicName, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_end_quorum_epoch_req_partition_data),
};
static const lr_pstruct s_end_quorum_epoch_req_topic_data = {"TopicData", 2, s_end_quorum_epoch_req_topic_data_f};

static const lr_pfield s_end_quorum_epoch_req_leader_endpoint_f[] = {
    LR_F(Name, STRING, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Host, STRING, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Port, UINT16, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_end_quorum_epoch_req_leader_endpoint = {"LeaderEndpoint", 3, s_end_quorum_epoch_req_leader_endpoint_f};

static const lr_pfield s_end_quorum_epoch_req_end_quorum_epoch_request_f[] = {
    LR_F(ClusterId, STRING, 0, 0, X, 0, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_end_quorum_epoch_req_topic_data),
    LR_F(LeaderEndpoints, ARRAY, LOGREP_FT_STRUCT, 1, X, -1, -1, -1, -1, 0, 0, &s_end_quorum_epoch_req_leader_endpoint),
};
const lr_pstruct lr_ps_end_quorum_epoch_req = {"EndQuorumEpochRequest", 3, s_end_quorum_epoch_req_end_quorum_epoch_request_f};

/* EndQuorumEpoch response */
static const lr_pfield s_end_quorum_epoch_resp_partition_data_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_end_quorum_epoch_resp_partition_data = {"PartitionData", 4, s_end_quorum_epoch_resp_partition_data_f};

static const lr_pfield s_end_quorum_epoch_resp_topic_data_f[] = {
    LR_F(TopicName, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_end_quorum_epoch_resp_partition_data),
};
static const lr_pstruct s_end_quorum_epoch_resp_topic_data = {"TopicData", 2, s_end_quorum_epoch_resp_topic_data_f};

static const lr_pfield s_end_quorum_epoch_resp_node_endpoint_f[] = {
    LR_F(NodeId, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Host, STRING, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Port, UINT16, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_end_quorum_epoch_resp_node_endpoint = {"NodeEndpoint", 3, s_end_quorum_epoch_resp_node_endpoint_f};

static const lr_pfield s_end_quorum_epoch_resp_end_quorum_epoch_response_f[] = {
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_end_quorum_epoch_resp_topic_data),
    LR_F(NodeEndpoints, ARRAY, LOGREP_FT_STRUCT, 1, X, -1, -1, 1, 0, 0, 0, &s_end_quorum_epoch_resp_node_endpoint),
};
const lr_pstruct lr_ps_end_quorum_epoch_resp = {"EndQuorumEpochResponse", 3, s_end_quorum_epoch_resp_end_quorum_epoch_response_f};

/* DescribeQuorum request: the same at every version (v1 and v2 change
 * the response only). */
static const lr_pfield s_describe_quorum_req_partition_data_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_describe_quorum_req_partition_data = {"PartitionData", 1, s_describe_quorum_req_partition_data_f};

static const lr_pfield s_describe_quorum_req_topic_data_f[] = {
    LR_F(TopicName, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_describe_quorum_req_partition_data),
};
static const lr_pstruct s_describe_quorum_req_topic_data = {"TopicData", 2, s_describe_quorum_req_topic_data_f};

static const lr_pfield s_describe_quorum_req_describe_quorum_request_f[] = {
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_describe_quorum_req_topic_data),
};
const lr_pstruct lr_ps_describe_quorum_req = {"DescribeQuorumRequest", 1, s_describe_quorum_req_describe_quorum_request_f};

/* DescribeQuorum response. v1 adds the replicas' fetch and caught-up
 * times, v2 the error messages, the replicas' directory ids and Nodes.
 * Voters and observers share one struct. */
static const lr_pfield s_describe_quorum_resp_replica_state_f[] = {
    LR_F(ReplicaId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ReplicaDirectoryId, UUID, 0, 2, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LogEndOffset, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LastFetchTimestamp, INT64, 0, 1, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(LastCaughtUpTimestamp, INT64, 0, 1, X, -1, -1, -1, -1, -1, 0, NULL),
};
static const lr_pstruct s_describe_quorum_resp_replica_state = {"ReplicaState", 5, s_describe_quorum_resp_replica_state_f};

static const lr_pfield s_describe_quorum_resp_partition_data_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorMessage, STRING, 0, 2, X, 2, X, -1, -1, 0, 0, NULL),
    LR_F(LeaderId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(HighWatermark, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CurrentVoters, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_describe_quorum_resp_replica_state),
    LR_F(Observers, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_describe_quorum_resp_replica_state),
};
static const lr_pstruct s_describe_quorum_resp_partition_data = {"PartitionData", 8, s_describe_quorum_resp_partition_data_f};

static const lr_pfield s_describe_quorum_resp_topic_data_f[] = {
    LR_F(TopicName, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_describe_quorum_resp_partition_data),
};
static const lr_pstruct s_describe_quorum_resp_topic_data = {"TopicData", 2, s_describe_quorum_resp_topic_data_f};

static const lr_pfield s_describe_quorum_resp_listener_f[] = {
    LR_F(Name, STRING, 0, 2, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Host, STRING, 0, 2, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Port, UINT16, 0, 2, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_describe_quorum_resp_listener = {"Listener", 3, s_describe_quorum_resp_listener_f};

static const lr_pfield s_describe_quorum_resp_node_f[] = {
    LR_F(NodeId, INT32, 0, 2, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Listeners, ARRAY, LOGREP_FT_STRUCT, 2, X, -1, -1, -1, -1, 0, 0, &s_describe_quorum_resp_listener),
};
static const lr_pstruct s_describe_quorum_resp_node = {"Node", 2, s_describe_quorum_resp_node_f};

static const lr_pfield s_describe_quorum_resp_describe_quorum_response_f[] = {
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorMessage, STRING, 0, 2, X, 2, X, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_describe_quorum_resp_topic_data),
    LR_F(Nodes, ARRAY, LOGREP_FT_STRUCT, 2, X, -1, -1, -1, -1, 0, 0, &s_describe_quorum_resp_node),
};
const lr_pstruct lr_ps_describe_quorum_resp = {"DescribeQuorumResponse", 4, s_describe_quorum_resp_describe_quorum_response_f};

/* FetchSnapshot request */
static const lr_pfield s_fetch_snapshot_req_snapshot_id_f[] = {
    LR_F(EndOffset, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Epoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_fetch_snapshot_req_snapshot_id = {"SnapshotId", 2, s_fetch_snapshot_req_snapshot_id_f};

static const lr_pfield s_fetch_snapshot_req_partition_snapshot_f[] = {
    LR_F(Partition, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CurrentLeaderEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(SnapshotId, STRUCT, 0, 0, X, -1, -1, -1, -1, 0, 0, &s_fetch_snapshot_req_snapshot_id),
    LR_F(Position, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ReplicaDirectoryId, UUID, 0, 1, X, -1, -1, 1, 0, 0, 0, NULL),
};
static const lr_pstruct s_fetch_snapshot_req_partition_snapshot = {"PartitionSnapshot", 5, s_fetch_snapshot_req_partition_snapshot_f};

static const lr_pfield s_fetch_snapshot_req_topic_snapshot_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_fetch_snapshot_req_partition_snapshot),
};
static const lr_pstruct s_fetch_snapshot_req_topic_snapshot = {"TopicSnapshot", 2, s_fetch_snapshot_req_topic_snapshot_f};

static const lr_pfield s_fetch_snapshot_req_fetch_snapshot_request_f[] = {
    LR_F(ClusterId, STRING, 0, 0, X, 0, X, 0, 0, 0, LR_PF_DEFNULL, NULL),
    LR_F(ReplicaId, INT32, 0, 0, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(MaxBytes, INT32, 0, 0, X, -1, -1, -1, -1, INT32_MAX, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_fetch_snapshot_req_topic_snapshot),
};
const lr_pstruct lr_ps_fetch_snapshot_req = {"FetchSnapshotRequest", 4, s_fetch_snapshot_req_fetch_snapshot_request_f};

/* FetchSnapshot response */
static const lr_pfield s_fetch_snapshot_resp_snapshot_id_f[] = {
    LR_F(EndOffset, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Epoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_fetch_snapshot_resp_snapshot_id = {"SnapshotId", 2, s_fetch_snapshot_resp_snapshot_id_f};

static const lr_pfield s_fetch_snapshot_resp_leader_id_and_epoch_f[] = {
    LR_F(LeaderId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_fetch_snapshot_resp_leader_id_and_epoch = {"LeaderIdAndEpoch", 2, s_fetch_snapshot_resp_leader_id_and_epoch_f};

static const lr_pfield s_fetch_snapshot_resp_partition_snapshot_f[] = {
    LR_F(Index, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(SnapshotId, STRUCT, 0, 0, X, -1, -1, -1, -1, 0, 0, &s_fetch_snapshot_resp_snapshot_id),
    LR_F(CurrentLeader, STRUCT, 0, 0, X, -1, -1, 0, 0, 0, 0, &s_fetch_snapshot_resp_leader_id_and_epoch),
    LR_F(Size, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Position, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(UnalignedRecords, RECORDS, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_fetch_snapshot_resp_partition_snapshot = {"PartitionSnapshot", 7, s_fetch_snapshot_resp_partition_snapshot_f};

static const lr_pfield s_fetch_snapshot_resp_topic_snapshot_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_fetch_snapshot_resp_partition_snapshot),
};
static const lr_pstruct s_fetch_snapshot_resp_topic_snapshot = {"TopicSnapshot", 2, s_fetch_snapshot_resp_topic_snapshot_f};

static const lr_pfield s_fetch_snapshot_resp_node_endpoint_f[] = {
    LR_F(NodeId, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Host, STRING, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Port, UINT16, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_fetch_snapshot_resp_node_endpoint = {"NodeEndpoint", 3, s_fetch_snapshot_resp_node_endpoint_f};

static const lr_pfield s_fetch_snapshot_resp_fetch_snapshot_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_fetch_snapshot_resp_topic_snapshot),
    LR_F(NodeEndpoints, ARRAY, LOGREP_FT_STRUCT, 1, X, -1, -1, 1, 0, 0, 0, &s_fetch_snapshot_resp_node_endpoint),
};
const lr_pstruct lr_ps_fetch_snapshot_resp = {"FetchSnapshotResponse", 4, s_fetch_snapshot_resp_fetch_snapshot_response_f};

/* AllocateProducerIds request */
static const lr_pfield s_allocate_producer_ids_req_allocate_producer_ids_request_f[] = {
    LR_F(BrokerId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(BrokerEpoch, INT64, 0, 0, X, -1, -1, -1, -1, -1, 0, NULL),
};
const lr_pstruct lr_ps_allocate_producer_ids_req = {"AllocateProducerIdsRequest", 2, s_allocate_producer_ids_req_allocate_producer_ids_request_f};

/* AllocateProducerIds response */
static const lr_pfield s_allocate_producer_ids_resp_allocate_producer_ids_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerIdStart, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerIdLen, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_allocate_producer_ids_resp = {"AllocateProducerIdsResponse", 4, s_allocate_producer_ids_resp_allocate_producer_ids_response_f};
