/* Schema tables of every implemented API: requests and responses.
 * Field layouts, version ranges, nullability, tags and defaults follow
 * Apache Kafka's message definitions; see schema.h for the row format. */
#include "proto/schema.h"

#define X LR_PV_INF

/* LR_F(name, type, element type, versions, nullable versions, tagged from,
 *      tag, default, flags, sub-struct) */

/* ApiVersions request */
static const lr_pfield s_api_versions_req_api_versions_request_f[] = {
    LR_F(ClientSoftwareName, STRING, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ClientSoftwareVersion, STRING, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_api_versions_req_api_versions_request = {"ApiVersionsRequest", 2, s_api_versions_req_api_versions_request_f};

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
static const lr_pstruct s_api_versions_resp_api_versions_response = {"ApiVersionsResponse", 7, s_api_versions_resp_api_versions_response_f};

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
static const lr_pstruct s_metadata_req_metadata_request = {"MetadataRequest", 4, s_metadata_req_metadata_request_f};

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
static const lr_pstruct s_metadata_resp_metadata_response = {"MetadataResponse", 6, s_metadata_resp_metadata_response_f};

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
static const lr_pstruct s_produce_req_produce_request = {"ProduceRequest", 4, s_produce_req_produce_request_f};

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
static const lr_pstruct s_produce_resp_produce_response = {"ProduceResponse", 3, s_produce_resp_produce_response_f};

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
static const lr_pstruct s_fetch_req_fetch_request = {"FetchRequest", 12, s_fetch_req_fetch_request_f};

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
static const lr_pstruct s_fetch_resp_fetch_response = {"FetchResponse", 5, s_fetch_resp_fetch_response_f};

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
static const lr_pstruct s_list_offsets_req_list_offsets_request = {"ListOffsetsRequest", 4, s_list_offsets_req_list_offsets_request_f};

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
static const lr_pstruct s_list_offsets_resp_list_offsets_response = {"ListOffsetsResponse", 2, s_list_offsets_resp_list_offsets_response_f};

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
static const lr_pstruct s_offset_for_leader_epoch_req_offset_for_leader_epoch_request = {"OffsetForLeaderEpochRequest", 2, s_offset_for_leader_epoch_req_offset_for_leader_epoch_request_f};

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
static const lr_pstruct s_offset_for_leader_epoch_resp_offset_for_leader_epoch_response = {"OffsetForLeaderEpochResponse", 2, s_offset_for_leader_epoch_resp_offset_for_leader_epoch_response_f};

/* CreateTopics request */
static const lr_pfield s_create_topics_req_creatable_replica_assignment_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(BrokerIds, ARRAY, LOGREP_FT_INT32, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_create_topics_req_creatable_replica_assignment = {"CreatableReplicaAssignment", 2, s_create_topics_req_creatable_replica_assignment_f};

static const lr_pfield s_create_topics_req_creatable_topic_config_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Value, STRING, 0, 0, X, 0, X, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_create_topics_req_creatable_topic_config = {"CreatableTopicConfig", 2, s_create_topics_req_creatable_topic_config_f};

static const lr_pfield s_create_topics_req_creatable_topic_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(NumPartitions, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ReplicationFactor, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Assignments, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_create_topics_req_creatable_replica_assignment),
    LR_F(Configs, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_create_topics_req_creatable_topic_config),
};
static const lr_pstruct s_create_topics_req_creatable_topic = {"CreatableTopic", 5, s_create_topics_req_creatable_topic_f};

static const lr_pfield s_create_topics_req_create_topics_request_f[] = {
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_create_topics_req_creatable_topic),
    LR_F(timeoutMs, INT32, 0, 0, X, -1, -1, -1, -1, 60000, 0, NULL),
    LR_F(validateOnly, BOOL, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_create_topics_req_create_topics_request = {"CreateTopicsRequest", 3, s_create_topics_req_create_topics_request_f};

/* CreateTopics response */
static const lr_pfield s_create_topics_resp_creatable_topic_configs_f[] = {
    LR_F(Name, STRING, 0, 5, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Value, STRING, 0, 5, X, 5, X, -1, -1, 0, 0, NULL),
    LR_F(ReadOnly, BOOL, 0, 5, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ConfigSource, INT8, 0, 5, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(IsSensitive, BOOL, 0, 5, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_create_topics_resp_creatable_topic_configs = {"CreatableTopicConfigs", 5, s_create_topics_resp_creatable_topic_configs_f};

static const lr_pfield s_create_topics_resp_creatable_topic_result_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(TopicId, UUID, 0, 7, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorMessage, STRING, 0, 1, X, 0, X, -1, -1, 0, 0, NULL),
    LR_F(TopicConfigErrorCode, INT16, 0, 5, X, -1, -1, 5, 0, 0, 0, NULL),
    LR_F(NumPartitions, INT32, 0, 5, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(ReplicationFactor, INT16, 0, 5, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(Configs, ARRAY, LOGREP_FT_STRUCT, 5, X, 5, X, -1, -1, 0, 0, &s_create_topics_resp_creatable_topic_configs),
};
static const lr_pstruct s_create_topics_resp_creatable_topic_result = {"CreatableTopicResult", 8, s_create_topics_resp_creatable_topic_result_f};

static const lr_pfield s_create_topics_resp_create_topics_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 2, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_create_topics_resp_creatable_topic_result),
};
static const lr_pstruct s_create_topics_resp_create_topics_response = {"CreateTopicsResponse", 2, s_create_topics_resp_create_topics_response_f};

/* DeleteTopics request */
static const lr_pfield s_delete_topics_req_delete_topic_state_f[] = {
    LR_F(Name, STRING, 0, 6, X, 6, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(TopicId, UUID, 0, 6, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_delete_topics_req_delete_topic_state = {"DeleteTopicState", 2, s_delete_topics_req_delete_topic_state_f};

static const lr_pfield s_delete_topics_req_delete_topics_request_f[] = {
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 6, X, -1, -1, -1, -1, 0, 0, &s_delete_topics_req_delete_topic_state),
    LR_F(TopicNames, ARRAY, LOGREP_FT_STRING, 0, 5, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(TimeoutMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_delete_topics_req_delete_topics_request = {"DeleteTopicsRequest", 3, s_delete_topics_req_delete_topics_request_f};

/* DeleteTopics response */
static const lr_pfield s_delete_topics_resp_deletable_topic_result_f[] = {
    LR_F(Name, STRING, 0, 0, X, 6, X, -1, -1, 0, 0, NULL),
    LR_F(TopicId, UUID, 0, 6, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorMessage, STRING, 0, 5, X, 5, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
};
static const lr_pstruct s_delete_topics_resp_deletable_topic_result = {"DeletableTopicResult", 4, s_delete_topics_resp_deletable_topic_result_f};

static const lr_pfield s_delete_topics_resp_delete_topics_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Responses, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_delete_topics_resp_deletable_topic_result),
};
static const lr_pstruct s_delete_topics_resp_delete_topics_response = {"DeleteTopicsResponse", 2, s_delete_topics_resp_delete_topics_response_f};

/* DescribeConfigs request */
static const lr_pfield s_describe_configs_req_describe_configs_resource_f[] = {
    LR_F(ResourceType, INT8, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ResourceName, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ConfigurationKeys, ARRAY, LOGREP_FT_STRING, 0, X, 0, X, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_describe_configs_req_describe_configs_resource = {"DescribeConfigsResource", 3, s_describe_configs_req_describe_configs_resource_f};

static const lr_pfield s_describe_configs_req_describe_configs_request_f[] = {
    LR_F(Resources, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_describe_configs_req_describe_configs_resource),
    LR_F(IncludeSynonyms, BOOL, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(IncludeDocumentation, BOOL, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_describe_configs_req_describe_configs_request = {"DescribeConfigsRequest", 3, s_describe_configs_req_describe_configs_request_f};

/* DescribeConfigs response */
static const lr_pfield s_describe_configs_resp_describe_configs_synonym_f[] = {
    LR_F(Name, STRING, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Value, STRING, 0, 1, X, 0, X, -1, -1, 0, 0, NULL),
    LR_F(Source, INT8, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_describe_configs_resp_describe_configs_synonym = {"DescribeConfigsSynonym", 3, s_describe_configs_resp_describe_configs_synonym_f};

static const lr_pfield s_describe_configs_resp_describe_configs_resource_result_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Value, STRING, 0, 0, X, 0, X, -1, -1, 0, 0, NULL),
    LR_F(ReadOnly, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(IsDefault, BOOL, 0, 0, 0, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ConfigSource, INT8, 0, 1, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(IsSensitive, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Synonyms, ARRAY, LOGREP_FT_STRUCT, 1, X, -1, -1, -1, -1, 0, 0, &s_describe_configs_resp_describe_configs_synonym),
    LR_F(ConfigType, INT8, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Documentation, STRING, 0, 3, X, 0, X, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_describe_configs_resp_describe_configs_resource_result = {"DescribeConfigsResourceResult", 9, s_describe_configs_resp_describe_configs_resource_result_f};

static const lr_pfield s_describe_configs_resp_describe_configs_result_f[] = {
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorMessage, STRING, 0, 0, X, 0, X, -1, -1, 0, 0, NULL),
    LR_F(ResourceType, INT8, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ResourceName, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Configs, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_describe_configs_resp_describe_configs_resource_result),
};
static const lr_pstruct s_describe_configs_resp_describe_configs_result = {"DescribeConfigsResult", 5, s_describe_configs_resp_describe_configs_result_f};

static const lr_pfield s_describe_configs_resp_describe_configs_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Results, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_describe_configs_resp_describe_configs_result),
};
static const lr_pstruct s_describe_configs_resp_describe_configs_response = {"DescribeConfigsResponse", 2, s_describe_configs_resp_describe_configs_response_f};

/* AlterConfigs request */
static const lr_pfield s_alter_configs_req_alterable_config_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Value, STRING, 0, 0, X, 0, X, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_alter_configs_req_alterable_config = {"AlterableConfig", 2, s_alter_configs_req_alterable_config_f};

static const lr_pfield s_alter_configs_req_alter_configs_resource_f[] = {
    LR_F(ResourceType, INT8, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ResourceName, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Configs, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_alter_configs_req_alterable_config),
};
static const lr_pstruct s_alter_configs_req_alter_configs_resource = {"AlterConfigsResource", 3, s_alter_configs_req_alter_configs_resource_f};

static const lr_pfield s_alter_configs_req_alter_configs_request_f[] = {
    LR_F(Resources, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_alter_configs_req_alter_configs_resource),
    LR_F(ValidateOnly, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_alter_configs_req_alter_configs_request = {"AlterConfigsRequest", 2, s_alter_configs_req_alter_configs_request_f};

/* AlterConfigs response (IncrementalAlterConfigs answers in the same layout) */
static const lr_pfield s_alter_configs_resp_alter_configs_resource_response_f[] = {
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorMessage, STRING, 0, 0, X, 0, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(ResourceType, INT8, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ResourceName, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_alter_configs_resp_alter_configs_resource_response = {"AlterConfigsResourceResponse", 4, s_alter_configs_resp_alter_configs_resource_response_f};

static const lr_pfield s_alter_configs_resp_alter_configs_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Responses, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_alter_configs_resp_alter_configs_resource_response),
};
static const lr_pstruct s_alter_configs_resp_alter_configs_response = {"AlterConfigsResponse", 2, s_alter_configs_resp_alter_configs_response_f};

/* IncrementalAlterConfigs request */
static const lr_pfield s_incremental_alter_configs_req_alterable_config_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ConfigOperation, INT8, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Value, STRING, 0, 0, X, 0, X, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_incremental_alter_configs_req_alterable_config = {"AlterableConfig", 3, s_incremental_alter_configs_req_alterable_config_f};

static const lr_pfield s_incremental_alter_configs_req_alter_configs_resource_f[] = {
    LR_F(ResourceType, INT8, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ResourceName, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Configs, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_incremental_alter_configs_req_alterable_config),
};
static const lr_pstruct s_incremental_alter_configs_req_alter_configs_resource = {"AlterConfigsResource", 3, s_incremental_alter_configs_req_alter_configs_resource_f};

static const lr_pfield s_incremental_alter_configs_req_incremental_alter_configs_request_f[] = {
    LR_F(Resources, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_incremental_alter_configs_req_alter_configs_resource),
    LR_F(ValidateOnly, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_incremental_alter_configs_req_incremental_alter_configs_request = {"IncrementalAlterConfigsRequest", 2, s_incremental_alter_configs_req_incremental_alter_configs_request_f};

static const lr_pstruct s_incremental_alter_configs_resp_incremental_alter_configs_response = {"IncrementalAlterConfigsResponse", 2, s_alter_configs_resp_alter_configs_response_f};

/* FindCoordinator request */
static const lr_pfield s_find_coordinator_req_find_coordinator_request_f[] = {
    LR_F(Key, STRING, 0, 0, 3, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(KeyType, INT8, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CoordinatorKeys, ARRAY, LOGREP_FT_STRING, 4, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_find_coordinator_req_find_coordinator_request = {"FindCoordinatorRequest", 3, s_find_coordinator_req_find_coordinator_request_f};

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
static const lr_pstruct s_find_coordinator_resp_find_coordinator_response = {"FindCoordinatorResponse", 7, s_find_coordinator_resp_find_coordinator_response_f};

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
static const lr_pstruct s_join_group_req_join_group_request = {"JoinGroupRequest", 8, s_join_group_req_join_group_request_f};

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
static const lr_pstruct s_join_group_resp_join_group_response = {"JoinGroupResponse", 9, s_join_group_resp_join_group_response_f};

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
static const lr_pstruct s_sync_group_req_sync_group_request = {"SyncGroupRequest", 7, s_sync_group_req_sync_group_request_f};

/* SyncGroup response */
static const lr_pfield s_sync_group_resp_sync_group_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProtocolType, STRING, 0, 5, X, 5, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(ProtocolName, STRING, 0, 5, X, 5, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
    LR_F(Assignment, BYTES, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_sync_group_resp_sync_group_response = {"SyncGroupResponse", 5, s_sync_group_resp_sync_group_response_f};

/* Heartbeat request */
static const lr_pfield s_heartbeat_req_heartbeat_request_f[] = {
    LR_F(GroupId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GenerationId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(MemberId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupInstanceId, STRING, 0, 3, X, 3, X, -1, -1, 0, LR_PF_DEFNULL, NULL),
};
static const lr_pstruct s_heartbeat_req_heartbeat_request = {"HeartbeatRequest", 4, s_heartbeat_req_heartbeat_request_f};

/* Heartbeat response */
static const lr_pfield s_heartbeat_resp_heartbeat_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_heartbeat_resp_heartbeat_response = {"HeartbeatResponse", 2, s_heartbeat_resp_heartbeat_response_f};

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
static const lr_pstruct s_leave_group_req_leave_group_request = {"LeaveGroupRequest", 3, s_leave_group_req_leave_group_request_f};

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
static const lr_pstruct s_leave_group_resp_leave_group_response = {"LeaveGroupResponse", 3, s_leave_group_resp_leave_group_response_f};

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
static const lr_pstruct s_offset_commit_req_offset_commit_request = {"OffsetCommitRequest", 6, s_offset_commit_req_offset_commit_request_f};

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
static const lr_pstruct s_offset_commit_resp_offset_commit_response = {"OffsetCommitResponse", 2, s_offset_commit_resp_offset_commit_response_f};

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
static const lr_pstruct s_offset_fetch_req_offset_fetch_request = {"OffsetFetchRequest", 4, s_offset_fetch_req_offset_fetch_request_f};

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
static const lr_pstruct s_offset_fetch_resp_offset_fetch_response = {"OffsetFetchResponse", 4, s_offset_fetch_resp_offset_fetch_response_f};

/* ListGroups request */
static const lr_pfield s_list_groups_req_list_groups_request_f[] = {
    LR_F(StatesFilter, ARRAY, LOGREP_FT_STRING, 4, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(TypesFilter, ARRAY, LOGREP_FT_STRING, 5, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_list_groups_req_list_groups_request = {"ListGroupsRequest", 2, s_list_groups_req_list_groups_request_f};

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
static const lr_pstruct s_list_groups_resp_list_groups_response = {"ListGroupsResponse", 3, s_list_groups_resp_list_groups_response_f};

/* DescribeGroups request */
static const lr_pfield s_describe_groups_req_describe_groups_request_f[] = {
    LR_F(Groups, ARRAY, LOGREP_FT_STRING, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(IncludeAuthorizedOperations, BOOL, 0, 3, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_describe_groups_req_describe_groups_request = {"DescribeGroupsRequest", 2, s_describe_groups_req_describe_groups_request_f};

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
static const lr_pstruct s_describe_groups_resp_describe_groups_response = {"DescribeGroupsResponse", 2, s_describe_groups_resp_describe_groups_response_f};

/* DeleteGroups request */
static const lr_pfield s_delete_groups_req_delete_groups_request_f[] = {
    LR_F(GroupsNames, ARRAY, LOGREP_FT_STRING, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_delete_groups_req_delete_groups_request = {"DeleteGroupsRequest", 1, s_delete_groups_req_delete_groups_request_f};

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
static const lr_pstruct s_delete_groups_resp_delete_groups_response = {"DeleteGroupsResponse", 2, s_delete_groups_resp_delete_groups_response_f};

/* InitProducerId request */
static const lr_pfield s_init_producer_id_req_init_producer_id_request_f[] = {
    LR_F(TransactionalId, STRING, 0, 0, X, 0, X, -1, -1, 0, 0, NULL),
    LR_F(TransactionTimeoutMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerId, INT64, 0, 3, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(ProducerEpoch, INT16, 0, 3, X, -1, -1, -1, -1, -1, 0, NULL),
};
static const lr_pstruct s_init_producer_id_req_init_producer_id_request = {"InitProducerIdRequest", 4, s_init_producer_id_req_init_producer_id_request_f};

/* InitProducerId response */
static const lr_pfield s_init_producer_id_resp_init_producer_id_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerId, INT64, 0, 0, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(ProducerEpoch, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_init_producer_id_resp_init_producer_id_response = {"InitProducerIdResponse", 4, s_init_producer_id_resp_init_producer_id_response_f};

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
static const lr_pstruct s_add_partitions_to_txn_req_add_partitions_to_txn_request = {"AddPartitionsToTxnRequest", 5, s_add_partitions_to_txn_req_add_partitions_to_txn_request_f};

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
static const lr_pstruct s_add_partitions_to_txn_resp_add_partitions_to_txn_response = {"AddPartitionsToTxnResponse", 4, s_add_partitions_to_txn_resp_add_partitions_to_txn_response_f};

/* AddOffsetsToTxn request */
static const lr_pfield s_add_offsets_to_txn_req_add_offsets_to_txn_request_f[] = {
    LR_F(TransactionalId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerId, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerEpoch, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(GroupId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_add_offsets_to_txn_req_add_offsets_to_txn_request = {"AddOffsetsToTxnRequest", 4, s_add_offsets_to_txn_req_add_offsets_to_txn_request_f};

/* AddOffsetsToTxn response */
static const lr_pfield s_add_offsets_to_txn_resp_add_offsets_to_txn_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_add_offsets_to_txn_resp_add_offsets_to_txn_response = {"AddOffsetsToTxnResponse", 2, s_add_offsets_to_txn_resp_add_offsets_to_txn_response_f};

/* EndTxn request */
static const lr_pfield s_end_txn_req_end_txn_request_f[] = {
    LR_F(TransactionalId, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerId, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerEpoch, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Committed, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_end_txn_req_end_txn_request = {"EndTxnRequest", 4, s_end_txn_req_end_txn_request_f};

/* EndTxn response */
static const lr_pfield s_end_txn_resp_end_txn_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerId, INT64, 0, 5, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(ProducerEpoch, INT16, 0, 5, X, -1, -1, -1, -1, -1, 0, NULL),
};
static const lr_pstruct s_end_txn_resp_end_txn_response = {"EndTxnResponse", 4, s_end_txn_resp_end_txn_response_f};

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
static const lr_pstruct s_txn_offset_commit_req_txn_offset_commit_request = {"TxnOffsetCommitRequest", 8, s_txn_offset_commit_req_txn_offset_commit_request_f};

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
static const lr_pstruct s_txn_offset_commit_resp_txn_offset_commit_response = {"TxnOffsetCommitResponse", 2, s_txn_offset_commit_resp_txn_offset_commit_response_f};

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
static const lr_pstruct s_write_txn_markers_req_write_txn_markers_request = {"WriteTxnMarkersRequest", 1, s_write_txn_markers_req_write_txn_markers_request_f};

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
static const lr_pstruct s_write_txn_markers_resp_write_txn_markers_response = {"WriteTxnMarkersResponse", 1, s_write_txn_markers_resp_write_txn_markers_response_f};

/* DeleteRecords request */
static const lr_pfield s_delete_records_req_delete_records_partition_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Offset, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_delete_records_req_delete_records_partition = {"DeleteRecordsPartition", 2, s_delete_records_req_delete_records_partition_f};

static const lr_pfield s_delete_records_req_delete_records_topic_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_delete_records_req_delete_records_partition),
};
static const lr_pstruct s_delete_records_req_delete_records_topic = {"DeleteRecordsTopic", 2, s_delete_records_req_delete_records_topic_f};

static const lr_pfield s_delete_records_req_delete_records_request_f[] = {
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_delete_records_req_delete_records_topic),
    LR_F(TimeoutMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_delete_records_req_delete_records_request = {"DeleteRecordsRequest", 2, s_delete_records_req_delete_records_request_f};

/* DeleteRecords response */
static const lr_pfield s_delete_records_resp_delete_records_partition_result_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LowWatermark, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_delete_records_resp_delete_records_partition_result = {"DeleteRecordsPartitionResult", 3, s_delete_records_resp_delete_records_partition_result_f};

static const lr_pfield s_delete_records_resp_delete_records_topic_result_f[] = {
    LR_F(Name, STRING, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Partitions, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_delete_records_resp_delete_records_partition_result),
};
static const lr_pstruct s_delete_records_resp_delete_records_topic_result = {"DeleteRecordsTopicResult", 2, s_delete_records_resp_delete_records_topic_result_f};

static const lr_pfield s_delete_records_resp_delete_records_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(Topics, ARRAY, LOGREP_FT_STRUCT, 0, X, -1, -1, -1, -1, 0, 0, &s_delete_records_resp_delete_records_topic_result),
};
static const lr_pstruct s_delete_records_resp_delete_records_response = {"DeleteRecordsResponse", 2, s_delete_records_resp_delete_records_response_f};

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
static const lr_pstruct s_alter_partition_req_alter_partition_request = {"AlterPartitionRequest", 3, s_alter_partition_req_alter_partition_request_f};

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
static const lr_pstruct s_alter_partition_resp_alter_partition_response = {"AlterPartitionResponse", 3, s_alter_partition_resp_alter_partition_response_f};

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
static const lr_pstruct s_broker_registration_req_broker_registration_request = {"BrokerRegistrationRequest", 9, s_broker_registration_req_broker_registration_request_f};

/* BrokerRegistration response */
static const lr_pfield s_broker_registration_resp_broker_registration_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(BrokerEpoch, INT64, 0, 0, X, -1, -1, -1, -1, -1, 0, NULL),
};
static const lr_pstruct s_broker_registration_resp_broker_registration_response = {"BrokerRegistrationResponse", 3, s_broker_registration_resp_broker_registration_response_f};

/* BrokerHeartbeat request */
static const lr_pfield s_broker_heartbeat_req_broker_heartbeat_request_f[] = {
    LR_F(BrokerId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(BrokerEpoch, INT64, 0, 0, X, -1, -1, -1, -1, -1, 0, NULL),
    LR_F(CurrentMetadataOffset, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(WantFence, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(WantShutDown, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(OfflineLogDirs, ARRAY, LOGREP_FT_UUID, 1, X, -1, -1, 1, 0, 0, 0, NULL),
};
static const lr_pstruct s_broker_heartbeat_req_broker_heartbeat_request = {"BrokerHeartbeatRequest", 6, s_broker_heartbeat_req_broker_heartbeat_request_f};

/* BrokerHeartbeat response */
static const lr_pfield s_broker_heartbeat_resp_broker_heartbeat_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(IsCaughtUp, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(IsFenced, BOOL, 0, 0, X, -1, -1, -1, -1, 1, 0, NULL),
    LR_F(ShouldShutDown, BOOL, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_broker_heartbeat_resp_broker_heartbeat_response = {"BrokerHeartbeatResponse", 5, s_broker_heartbeat_resp_broker_heartbeat_response_f};

/* Vote request */
static const lr_pfield s_vote_req_partition_data_f[] = {
    LR_F(PartitionIndex, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CandidateEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CandidateId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CandidateDirectoryId, UUID, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(VoterDirectoryId, UUID, 0, 1, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LastOffsetEpoch, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(LastOffset, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_vote_req_partition_data = {"PartitionData", 7, s_vote_req_partition_data_f};

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
static const lr_pstruct s_vote_req_vote_request = {"VoteRequest", 3, s_vote_req_vote_request_f};

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
static const lr_pstruct s_vote_resp_vote_response = {"VoteResponse", 3, s_vote_resp_vote_response_f};

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
static const lr_pstruct s_begin_quorum_epoch_req_begin_quorum_epoch_request = {"BeginQuorumEpochRequest", 4, s_begin_quorum_epoch_req_begin_quorum_epoch_request_f};

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
static const lr_pstruct s_begin_quorum_epoch_resp_begin_quorum_epoch_response = {"BeginQuorumEpochResponse", 3, s_begin_quorum_epoch_resp_begin_quorum_epoch_response_f};

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
static const lr_pstruct s_end_quorum_epoch_req_end_quorum_epoch_request = {"EndQuorumEpochRequest", 3, s_end_quorum_epoch_req_end_quorum_epoch_request_f};

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
static const lr_pstruct s_end_quorum_epoch_resp_end_quorum_epoch_response = {"EndQuorumEpochResponse", 3, s_end_quorum_epoch_resp_end_quorum_epoch_response_f};

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
static const lr_pstruct s_fetch_snapshot_req_fetch_snapshot_request = {"FetchSnapshotRequest", 4, s_fetch_snapshot_req_fetch_snapshot_request_f};

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
static const lr_pstruct s_fetch_snapshot_resp_fetch_snapshot_response = {"FetchSnapshotResponse", 4, s_fetch_snapshot_resp_fetch_snapshot_response_f};

/* AllocateProducerIds request */
static const lr_pfield s_allocate_producer_ids_req_allocate_producer_ids_request_f[] = {
    LR_F(BrokerId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(BrokerEpoch, INT64, 0, 0, X, -1, -1, -1, -1, -1, 0, NULL),
};
static const lr_pstruct s_allocate_producer_ids_req_allocate_producer_ids_request = {"AllocateProducerIdsRequest", 2, s_allocate_producer_ids_req_allocate_producer_ids_request_f};

/* AllocateProducerIds response */
static const lr_pfield s_allocate_producer_ids_resp_allocate_producer_ids_response_f[] = {
    LR_F(ThrottleTimeMs, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ErrorCode, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerIdStart, INT64, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ProducerIdLen, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
static const lr_pstruct s_allocate_producer_ids_resp_allocate_producer_ids_response = {"AllocateProducerIdsResponse", 4, s_allocate_producer_ids_resp_allocate_producer_ids_response_f};

const lr_papi lr_proto_apis[] = {
    {0, 0, 11, 9, "Produce", &s_produce_req_produce_request, &s_produce_resp_produce_response},
    {1, 0, 17, 12, "Fetch", &s_fetch_req_fetch_request, &s_fetch_resp_fetch_response},
    {2, 0, 10, 6, "ListOffsets", &s_list_offsets_req_list_offsets_request, &s_list_offsets_resp_list_offsets_response},
    {3, 0, 12, 9, "Metadata", &s_metadata_req_metadata_request, &s_metadata_resp_metadata_response},
    {8, 0, 9, 8, "OffsetCommit", &s_offset_commit_req_offset_commit_request, &s_offset_commit_resp_offset_commit_response},
    {9, 0, 9, 6, "OffsetFetch", &s_offset_fetch_req_offset_fetch_request, &s_offset_fetch_resp_offset_fetch_response},
    {10, 0, 6, 3, "FindCoordinator", &s_find_coordinator_req_find_coordinator_request, &s_find_coordinator_resp_find_coordinator_response},
    {11, 0, 9, 6, "JoinGroup", &s_join_group_req_join_group_request, &s_join_group_resp_join_group_response},
    {12, 0, 4, 4, "Heartbeat", &s_heartbeat_req_heartbeat_request, &s_heartbeat_resp_heartbeat_response},
    {13, 0, 5, 4, "LeaveGroup", &s_leave_group_req_leave_group_request, &s_leave_group_resp_leave_group_response},
    {14, 0, 5, 4, "SyncGroup", &s_sync_group_req_sync_group_request, &s_sync_group_resp_sync_group_response},
    {15, 0, 5, 5, "DescribeGroups", &s_describe_groups_req_describe_groups_request, &s_describe_groups_resp_describe_groups_response},
    {16, 0, 5, 3, "ListGroups", &s_list_groups_req_list_groups_request, &s_list_groups_resp_list_groups_response},
    {18, 0, 4, 3, "ApiVersions", &s_api_versions_req_api_versions_request, &s_api_versions_resp_api_versions_response},
    {19, 0, 7, 5, "CreateTopics", &s_create_topics_req_create_topics_request, &s_create_topics_resp_create_topics_response},
    {20, 0, 6, 4, "DeleteTopics", &s_delete_topics_req_delete_topics_request, &s_delete_topics_resp_delete_topics_response},
    {21, 0, 2, 2, "DeleteRecords", &s_delete_records_req_delete_records_request, &s_delete_records_resp_delete_records_response},
    {22, 0, 5, 2, "InitProducerId", &s_init_producer_id_req_init_producer_id_request, &s_init_producer_id_resp_init_producer_id_response},
    {23, 0, 4, 4, "OffsetForLeaderEpoch", &s_offset_for_leader_epoch_req_offset_for_leader_epoch_request, &s_offset_for_leader_epoch_resp_offset_for_leader_epoch_response},
    {24, 0, 5, 3, "AddPartitionsToTxn", &s_add_partitions_to_txn_req_add_partitions_to_txn_request, &s_add_partitions_to_txn_resp_add_partitions_to_txn_response},
    {25, 0, 4, 3, "AddOffsetsToTxn", &s_add_offsets_to_txn_req_add_offsets_to_txn_request, &s_add_offsets_to_txn_resp_add_offsets_to_txn_response},
    {26, 0, 4, 3, "EndTxn", &s_end_txn_req_end_txn_request, &s_end_txn_resp_end_txn_response},
    {27, 0, 1, 1, "WriteTxnMarkers", &s_write_txn_markers_req_write_txn_markers_request, &s_write_txn_markers_resp_write_txn_markers_response},
    {28, 0, 4, 3, "TxnOffsetCommit", &s_txn_offset_commit_req_txn_offset_commit_request, &s_txn_offset_commit_resp_txn_offset_commit_response},
    {32, 0, 4, 4, "DescribeConfigs", &s_describe_configs_req_describe_configs_request, &s_describe_configs_resp_describe_configs_response},
    {33, 0, 2, 2, "AlterConfigs", &s_alter_configs_req_alter_configs_request, &s_alter_configs_resp_alter_configs_response},
    {42, 0, 2, 2, "DeleteGroups", &s_delete_groups_req_delete_groups_request, &s_delete_groups_resp_delete_groups_response},
    {44, 0, 1, 1, "IncrementalAlterConfigs", &s_incremental_alter_configs_req_incremental_alter_configs_request, &s_incremental_alter_configs_resp_incremental_alter_configs_response},
    {52, 0, 1, 0, "Vote", &s_vote_req_vote_request, &s_vote_resp_vote_response},
    {53, 0, 1, 1, "BeginQuorumEpoch", &s_begin_quorum_epoch_req_begin_quorum_epoch_request, &s_begin_quorum_epoch_resp_begin_quorum_epoch_response},
    {54, 0, 1, 1, "EndQuorumEpoch", &s_end_quorum_epoch_req_end_quorum_epoch_request, &s_end_quorum_epoch_resp_end_quorum_epoch_response},
    {56, 0, 3, 0, "AlterPartition", &s_alter_partition_req_alter_partition_request, &s_alter_partition_resp_alter_partition_response},
    {59, 0, 1, 0, "FetchSnapshot", &s_fetch_snapshot_req_fetch_snapshot_request, &s_fetch_snapshot_resp_fetch_snapshot_response},
    {62, 0, 4, 0, "BrokerRegistration", &s_broker_registration_req_broker_registration_request, &s_broker_registration_resp_broker_registration_response},
    {63, 0, 1, 0, "BrokerHeartbeat", &s_broker_heartbeat_req_broker_heartbeat_request, &s_broker_heartbeat_resp_broker_heartbeat_response},
    {67, 0, 0, 0, "AllocateProducerIds", &s_allocate_producer_ids_req_allocate_producer_ids_request, &s_allocate_producer_ids_resp_allocate_producer_ids_response},
};
const size_t lr_proto_api_count = sizeof lr_proto_apis / sizeof lr_proto_apis[0];

/* The same ranges in the public layout (logrep_proto_api_versions). */
const logrep_api_range lr_proto_ranges[] = {
    {0, 0, 11, 9},
    {1, 0, 17, 12},
    {2, 0, 10, 6},
    {3, 0, 12, 9},
    {8, 0, 9, 8},
    {9, 0, 9, 6},
    {10, 0, 6, 3},
    {11, 0, 9, 6},
    {12, 0, 4, 4},
    {13, 0, 5, 4},
    {14, 0, 5, 4},
    {15, 0, 5, 5},
    {16, 0, 5, 3},
    {18, 0, 4, 3},
    {19, 0, 7, 5},
    {20, 0, 6, 4},
    {21, 0, 2, 2},
    {22, 0, 5, 2},
    {23, 0, 4, 4},
    {24, 0, 5, 3},
    {25, 0, 4, 3},
    {26, 0, 4, 3},
    {27, 0, 1, 1},
    {28, 0, 4, 3},
    {32, 0, 4, 4},
    {33, 0, 2, 2},
    {42, 0, 2, 2},
    {44, 0, 1, 1},
    {52, 0, 1, 0},
    {53, 0, 1, 1},
    {54, 0, 1, 1},
    {56, 0, 3, 0},
    {59, 0, 1, 0},
    {62, 0, 4, 0},
    {63, 0, 1, 0},
    {67, 0, 0, 0},
};
