/* Schema tables of the data path and its discovery: ApiVersions,
 * Metadata, Produce, Fetch, ListOffsets, OffsetForLeaderEpoch. */
#include "proto/schema_msgs.h"

#define X LR_PV_INF

/* LR_F(name, type, element type, versions, nullable versions, tagged from,
 *      tag, default, flags, sub-struct) */

/* ApiVersions request */
static const lr_pfield s_api_versions_req_api_versions_request_f[] = {
    LR_F(ClientSoftwareName, STRING, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ClientSoftwareVersion, STRING, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_api_versions_req = {"ApiVersionsRequest", 2, s_api_versions_req_api_versions_request_f};

/* ApiVersions response */
static const lr_pfield s_api_versions_resp_api_version_f[] = {
    LR_F(ApiKey, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MinVersion, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MaxVersion, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_api_versions_resp_api_version = {"ApiVersion", 3, s_api_versions_resp_api_version_f};

static const lr_pfield s_api_versions_resp_supported_feature_key_f[] = {
    LR_F(Name, STRING, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MinVersion, INT16, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MaxVersion, INT16, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_api_versions_resp_supported_feature_key = {"SupportedFeatureKey", 3, s_api_versions_resp_supported_feature_key_f};

static const lr_pfield s_api_versions_resp_finalized_feature_key_f[] = {
    LR_F(Name, STRING, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MaxVersionLevel, INT16, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MinVersionLevel, INT16, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_api_versions_resp_finalized_feature_key = {"FinalizedFeatureKey", 3, s_api_versions_resp_finalized_feature_key_f};

static const lr_pfield s_api_versions_resp_api_versions_response_f[] = {
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ApiKeys, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_api_versions_resp_api_version),
    LR_F(ThrottleTimeMs, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(SupportedFeatures, ARRAY, LOGREP_FT_STRUCT, 3, X, -1, -1, 3, 0, 0, 0, &s_api_versions_resp_supported_feature_key),
    LR_F(FinalizedFeaturesEpoch, INT64, 0, 3, X, -1, -1, 3, 1, -1, 0, NULL),
    LR_F(FinalizedFeatures, ARRAY, LOGREP_FT_STRUCT, 3, X, -1, -1, 3, 2, 0, 0, &s_api_versions_resp_finalized_feature_key),
    LR_F(ZkMigrationReady, BOOL, 0, 3, X, -1, -1, 3, 3, 0, 0, NULL),
};
const lr_pstruct lr_ps_api_versions_resp = {"ApiVersionsResponse", 7, s_api_versions_resp_api_versions_response_f};

/* Metadata request */
static const lr_pfield s_metadata_req_metadata_request_topic_f[] = {
    LR_F(TopicId, UUID, 0, 10, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Name, STRING, 0, 0, X, 10, X, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_metadata_req_metadata_request_topic = {"MetadataRequestTopic", 2, s_metadata_req_metadata_request_topic_f};

static const lr_pfield s_metadata_req_metadata_request_f[] = {
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, 1, X, -1, -1, 0, 0, &s_metadata_req_metadata_request_topic),
    LR_F(AllowAutoTopicCreation, BOOL, 0, 4, X, -1, -1, -1, -1, 1, 0, NULL),
    LR_F(IncludeClusterAuthorizedOperations, BOOL, 0, 8, 10, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(IncludeTopicAuthorizedOperations, BOOL, 0, 8, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_metadata_req = {"MetadataRequest", 4, s_metadata_req_metadata_request_f};

/* Metadata response */
static const lr_pfield s_metadata_resp_metadata_response_broker_f[] = {
    LR_F(NodeId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Host, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Port, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Rack, STRING, 0, 1, X, 1, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
};
static const lr_pstruct s_metadata_resp_metadata_response_broker = {"MetadataResponseBroker", 4, s_metadata_resp_metadata_response_broker_f};

static const lr_pfield s_metadata_resp_metadata_response_partition_f[] = {
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderEpoch, INT32, 0, 7, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(ReplicaNodes, ARRAY, LOGREP_FT_INT32, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(IsrNodes, ARRAY, LOGREP_FT_INT32, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(OfflineReplicas, ARRAY, LOGREP_FT_INT32, 5, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_metadata_resp_metadata_response_partition = {"MetadataResponsePartition", 7, s_metadata_resp_metadata_response_partition_f};

static const lr_pfield s_metadata_resp_metadata_response_topic_f[] = {
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Name, STRING, 0, 0, X, 12, X, -1, -1, 0, 0, NULL),
    LR_F(TopicId, UUID, 0, 10, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(IsInternal, BOOL, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_metadata_resp_metadata_response_partition),
    LR_F(TopicAuthorizedOperations, INT32, 0, 8, X, -1, -1, -1, -1, INT32_MIN, 0, NULL),
};
static const lr_pstruct s_metadata_resp_metadata_response_topic = {"MetadataResponseTopic", 6, s_metadata_resp_metadata_response_topic_f};

static const lr_pfield s_metadata_resp_metadata_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Brokers, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_metadata_resp_metadata_response_broker),
    LR_F(ClusterId, STRING, 0, 2, X, 2, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(ControllerId, INT32, 0, 1, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_metadata_resp_metadata_response_topic),
    LR_F(ClusterAuthorizedOperations, INT32, 0, 8, 10, -1, -1, -1, -1, INT32_MIN, 0, NULL),
};
const lr_pstruct lr_ps_metadata_resp = {"MetadataResponse", 6, s_metadata_resp_metadata_response_f};

/* Produce request */
static const lr_pfield s_produce_req_partition_produce_data_f[] = {
    LR_F(Index, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Records, RECORDS, 0, 0, X, 0, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
};
static const lr_pstruct s_produce_req_partition_produce_data = {"PartitionProduceData", 2, s_produce_req_partition_produce_data_f};

static const lr_pfield s_produce_req_topic_produce_data_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(PartitionData, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_produce_req_partition_produce_data),
};
static const lr_pstruct s_produce_req_topic_produce_data = {"TopicProduceData", 2, s_produce_req_topic_produce_data_f};

static const lr_pfield s_produce_req_produce_request_f[] = {
    LR_F(TransactionalId, STRING, 0, 3, X, 3, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(Acks, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(TimeoutMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(TopicData, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_produce_req_topic_produce_data),
};
const lr_pstruct lr_ps_produce_req = {"ProduceRequest", 4, s_produce_req_produce_request_f};

/* Produce response */
static const lr_pfield s_produce_resp_batch_index_and_error_message_f[] = {
    LR_F(BatchIndex, INT32, 0, 8, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(BatchIndexErrorMessage, STRING, 0, 8, X, 8, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
};
static const lr_pstruct s_produce_resp_batch_index_and_error_message = {"BatchIndexAndErrorMessage", 2, s_produce_resp_batch_index_and_error_message_f};

static const lr_pfield s_produce_resp_leader_id_and_epoch_f[] = {
    LR_F(LeaderId, INT32, 0, 10, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(LeaderEpoch, INT32, 0, 10, X, -1, -1, -1, -1, -1, 0, NULL),
};
static const lr_pstruct s_produce_resp_leader_id_and_epoch = {"LeaderIdAndEpoch", 2, s_produce_resp_leader_id_and_epoch_f};

static const lr_pfield s_produce_resp_partition_produce_response_f[] = {
    LR_F(Index, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(BaseOffset, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LogAppendTimeMs, INT64, 0, 2, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(LogStartOffset, INT64, 0, 5, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(RecordErrors, ARRAY, LOGREP_FT_STRUCT, 8, X, -1, -1, -1, -1, 0, 0, &s_produce_resp_batch_index_and_error_message),
    LR_F(ErrorMessage, STRING, 0, 8, X, 8, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(CurrentLeader, STRUCT, 0, 10, X, -1, -1, 10, 0, 0, 0, &s_produce_resp_leader_id_and_epoch),
};
static const lr_pstruct s_produce_resp_partition_produce_response = {"PartitionProduceResponse", 8, s_produce_resp_partition_produce_response_f};

static const lr_pfield s_produce_resp_topic_produce_response_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(PartitionResponses, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_produce_resp_partition_produce_response),
};
static const lr_pstruct s_produce_resp_topic_produce_response = {"TopicProduceResponse", 2, s_produce_resp_topic_produce_response_f};

static const lr_pfield s_produce_resp_node_endpoint_f[] = {
    LR_F(NodeId, INT32, 0, 10, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Host, STRING, 0, 10, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Port, INT32, 0, 10, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Rack, STRING, 0, 10, X, 10, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
};
static const lr_pstruct s_produce_resp_node_endpoint = {"NodeEndpoint", 4, s_produce_resp_node_endpoint_f};

static const lr_pfield s_produce_resp_produce_response_f[] = {
    LR_F(Responses, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_produce_resp_topic_produce_response),
    LR_F(ThrottleTimeMs, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(NodeEndpoints, ARRAY, LOGREP_FT_STRUCT, 10, X, -1, -1, 10, 0, 0, 0, &s_produce_resp_node_endpoint),
};
const lr_pstruct lr_ps_produce_resp = {"ProduceResponse", 3, s_produce_resp_produce_response_f};

/* Fetch request */
static const lr_pfield s_fetch_req_replica_state_f[] = {
    LR_F(ReplicaId, INT32, 0, 15, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(ReplicaEpoch, INT64, 0, 15, X, -1, -1, -1, -1, -1, 0, NULL),
};
static const lr_pstruct s_fetch_req_replica_state = {"ReplicaState", 2, s_fetch_req_replica_state_f};

static const lr_pfield s_fetch_req_fetch_partition_f[] = {
    LR_F(Partition, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CurrentLeaderEpoch, INT32, 0, 9, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(FetchOffset, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LastFetchedEpoch, INT32, 0, 12, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(LogStartOffset, INT64, 0, 5, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(PartitionMaxBytes, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ReplicaDirectoryId, UUID, 0, 17, X, -1, -1, 17, 0, 0, 0, NULL),
};
static const lr_pstruct s_fetch_req_fetch_partition = {"FetchPartition", 7, s_fetch_req_fetch_partition_f};

static const lr_pfield s_fetch_req_fetch_topic_f[] = {
    LR_F(Topic, STRING, 0, 0, 12, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(TopicId, UUID, 0, 13, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_fetch_req_fetch_partition),
};
static const lr_pstruct s_fetch_req_fetch_topic = {"FetchTopic", 3, s_fetch_req_fetch_topic_f};

static const lr_pfield s_fetch_req_forgotten_topic_f[] = {
    LR_F(Topic, STRING, 0, 7, 12, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(TopicId, UUID, 0, 13, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_INT32, 7, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_fetch_req_forgotten_topic = {"ForgottenTopic", 3, s_fetch_req_forgotten_topic_f};

static const lr_pfield s_fetch_req_fetch_request_f[] = {
    LR_F(ClusterId, STRING, 0, 12, X, 12, X, 12, 0, 0, LR_PF_DEFNULL, NULL),
    LR_F(ReplicaId, INT32, 0, 0, 14, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(ReplicaState, STRUCT, 0, 15, X, -1, -1, 15, 1, 0, 0, &s_fetch_req_replica_state),
    LR_F(MaxWaitMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MinBytes, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MaxBytes, INT32, 0, 3, X, -1, -1, -1, -1, INT32_MAX, 0, NULL),
    LR_F(IsolationLevel, INT8, 0, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(SessionId, INT32, 0, 7, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(SessionEpoch, INT32, 0, 7, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_fetch_req_fetch_topic),
    LR_F(ForgottenTopicsData, ARRAY, LOGREP_FT_STRUCT, 7, X, -1, -1, -1, -1, 0, 0, &s_fetch_req_forgotten_topic),
    LR_F(RackId, STRING, 0, 11, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_fetch_req = {"FetchRequest", 12, s_fetch_req_fetch_request_f};

/* Fetch response */
static const lr_pfield s_fetch_resp_epoch_end_offset_f[] = {
    LR_F(Epoch, INT32, 0, 12, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(EndOffset, INT64, 0, 12, X, -1, -1, -1, -1, -1, 0, NULL),
};
static const lr_pstruct s_fetch_resp_epoch_end_offset = {"EpochEndOffset", 2, s_fetch_resp_epoch_end_offset_f};

static const lr_pfield s_fetch_resp_leader_id_and_epoch_f[] = {
    LR_F(LeaderId, INT32, 0, 12, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(LeaderEpoch, INT32, 0, 12, X, -1, -1, -1, -1, -1, 0, NULL),
};
static const lr_pstruct s_fetch_resp_leader_id_and_epoch = {"LeaderIdAndEpoch", 2, s_fetch_resp_leader_id_and_epoch_f};

static const lr_pfield s_fetch_resp_snapshot_id_f[] = {
    LR_F(EndOffset, INT64, 0, 0, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(Epoch, INT32, 0, 0, X, -1, -1, -1, -1, -1, 0, NULL),
};
static const lr_pstruct s_fetch_resp_snapshot_id = {"SnapshotId", 2, s_fetch_resp_snapshot_id_f};

static const lr_pfield s_fetch_resp_aborted_transaction_f[] = {
    LR_F(ProducerId, INT64, 0, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(FirstOffset, INT64, 0, 4, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_fetch_resp_aborted_transaction = {"AbortedTransaction", 2, s_fetch_resp_aborted_transaction_f};

static const lr_pfield s_fetch_resp_partition_data_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(HighWatermark, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LastStableOffset, INT64, 0, 4, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(LogStartOffset, INT64, 0, 5, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(DivergingEpoch, STRUCT, 0, 12, X, -1, -1, 12, 0, 0, 0, &s_fetch_resp_epoch_end_offset),
    LR_F(CurrentLeader, STRUCT, 0, 12, X, -1, -1, 12, 1, 0, 0, &s_fetch_resp_leader_id_and_epoch),
    LR_F(SnapshotId, STRUCT, 0, 12, X, -1, -1, 12, 2, 0, 0, &s_fetch_resp_snapshot_id),
    LR_F(AbortedTransactions, ARRAY, LOGREP_FT_STRUCT, 4, X, 4, X, -1, -1, 0, 0, &s_fetch_resp_aborted_transaction),
    LR_F(PreferredReadReplica, INT32, 0, 11, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(Records, RECORDS, 0, 0, X, 0, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
};
static const lr_pstruct s_fetch_resp_partition_data = {"PartitionData", 11, s_fetch_resp_partition_data_f};

static const lr_pfield s_fetch_resp_fetchable_topic_response_f[] = {
    LR_F(Topic, STRING, 0, 0, 12, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(TopicId, UUID, 0, 13, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_fetch_resp_partition_data),
};
static const lr_pstruct s_fetch_resp_fetchable_topic_response = {"FetchableTopicResponse", 3, s_fetch_resp_fetchable_topic_response_f};

static const lr_pfield s_fetch_resp_node_endpoint_f[] = {
    LR_F(NodeId, INT32, 0, 16, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Host, STRING, 0, 16, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Port, INT32, 0, 16, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Rack, STRING, 0, 16, X, 16, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
};
static const lr_pstruct s_fetch_resp_node_endpoint = {"NodeEndpoint", 4, s_fetch_resp_node_endpoint_f};

static const lr_pfield s_fetch_resp_fetch_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 7, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(SessionId, INT32, 0, 7, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Responses, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_fetch_resp_fetchable_topic_response),
    LR_F(NodeEndpoints, ARRAY, LOGREP_FT_STRUCT, 16, X, -1, -1, 16, 0, 0, 0, &s_fetch_resp_node_endpoint),
};
const lr_pstruct lr_ps_fetch_resp = {"FetchResponse", 5, s_fetch_resp_fetch_response_f};

/* ListOffsets request */
static const lr_pfield s_list_offsets_req_list_offsets_partition_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CurrentLeaderEpoch, INT32, 0, 4, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(Timestamp, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MaxNumOffsets, INT32, 0, 0, 0, -1, -1, -1, -1, 1, 0, NULL),
};
static const lr_pstruct s_list_offsets_req_list_offsets_partition = {"ListOffsetsPartition", 4, s_list_offsets_req_list_offsets_partition_f};

static const lr_pfield s_list_offsets_req_list_offsets_topic_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_list_offsets_req_list_offsets_partition),
};
static const lr_pstruct s_list_offsets_req_list_offsets_topic = {"ListOffsetsTopic", 2, s_list_offsets_req_list_offsets_topic_f};

static const lr_pfield s_list_offsets_req_list_offsets_request_f[] = {
    LR_F(ReplicaId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(IsolationLevel, INT8, 0, 2, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_list_offsets_req_list_offsets_topic),
    LR_F(TimeoutMs, INT32, 0, 10, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_ps_list_offsets_req = {"ListOffsetsRequest", 4, s_list_offsets_req_list_offsets_request_f};

/* ListOffsets response */
static const lr_pfield s_list_offsets_resp_list_offsets_partition_response_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(OldStyleOffsets, ARRAY, LOGREP_FT_INT64, 0, 0, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Timestamp, INT64, 0, 1, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(Offset, INT64, 0, 1, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(LeaderEpoch, INT32, 0, 4, X, -1, -1, -1, -1, -1, 0, NULL),
};
static const lr_pstruct s_list_offsets_resp_list_offsets_partition_response = {"ListOffsetsPartitionResponse", 6, s_list_offsets_resp_list_offsets_partition_response_f};

static const lr_pfield s_list_offsets_resp_list_offsets_topic_response_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_list_offsets_resp_list_offsets_partition_response),
};
static const lr_pstruct s_list_offsets_resp_list_offsets_topic_response = {"ListOffsetsTopicResponse", 2, s_list_offsets_resp_list_offsets_topic_response_f};

static const lr_pfield s_list_offsets_resp_list_offsets_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 2, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_list_offsets_resp_list_offsets_topic_response),
};
const lr_pstruct lr_ps_list_offsets_resp = {"ListOffsetsResponse", 2, s_list_offsets_resp_list_offsets_response_f};

/* OffsetForLeaderEpoch request */
static const lr_pfield s_offset_for_leader_epoch_req_offset_for_leader_partition_f[] = {
    LR_F(Partition, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CurrentLeaderEpoch, INT32, 0, 2, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(LeaderEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_offset_for_leader_epoch_req_offset_for_leader_partition = {"OffsetForLeaderPartition", 3, s_offset_for_leader_epoch_req_offset_for_leader_partition_f};

static const lr_pfield s_offset_for_leader_epoch_req_offset_for_leader_topic_f[] = {
    LR_F(Topic, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_offset_for_leader_epoch_req_offset_for_leader_partition),
};
static const lr_pstruct s_offset_for_leader_epoch_req_offset_for_leader_topic = {"OffsetForLeaderTopic", 2, s_offset_for_leader_epoch_req_offset_for_leader_topic_f};

static const lr_pfield s_offset_for_leader_epoch_req_offset_for_leader_epoch_request_f[] = {
    LR_F(ReplicaId, INT32, 0, 3, X, -1, -1, -1, -1, -2, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_offset_for_leader_epoch_req_offset_for_leader_topic),
};
const lr_pstruct lr_ps_offset_for_leader_epoch_req = {"OffsetForLeaderEpochRequest", 2, s_offset_for_leader_epoch_req_offset_for_leader_epoch_request_f};

/* OffsetForLeaderEpoch response */
static const lr_pfield s_offset_for_leader_epoch_resp_epoch_end_offset_f[] = {
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partition, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LeaderEpoch, INT32, 0, 1, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(EndOffset, INT64, 0, 0, X, -1, -1, -1, -1, -1, 0, NULL),
};
static const lr_pstruct s_offset_for_leader_epoch_resp_epoch_end_offset = {"EpochEndOffset", 4, s_offset_for_leader_epoch_resp_epoch_end_offset_f};

static const lr_pfield s_offset_for_leader_epoch_resp_offset_for_leader_topic_result_f[] = {
    LR_F(Topic, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_offset_for_leader_epoch_resp_epoch_end_offset),
};
static const lr_pstruct s_offset_for_leader_epoch_resp_offset_for_leader_topic_result = {"OffsetForLeaderTopicResult", 2, s_offset_for_leader_epoch_resp_offset_for_leader_topic_result_f};

static const lr_pfield s_offset_for_leader_epoch_resp_offset_for_leader_epoch_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 2, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_offset_for_leader_epoch_resp_offset_for_leader_topic_result),
};
const lr_pstruct lr_ps_offset_for_leader_epoch_resp = {"OffsetForLeaderEpochResponse", 2, s_offset_for_leader_epoch_resp_offset_for_leader_epoch_response_f};
