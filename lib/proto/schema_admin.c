/* Schema tables of the admin APIs: topics, configs, DeleteRecords. */
#include "proto/schema_msgs.h"

#define X LR_PV_INF

/* LR_F(name, type, element type, versions, nullable versions, tagged from,
 *      tag, default, flags, sub-struct) */

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
const lr_pstruct lr_ps_create_topics_req = {"CreateTopicsRequest", 3, s_create_topics_req_create_topics_request_f};

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
const lr_pstruct lr_ps_create_topics_resp = {"CreateTopicsResponse", 2, s_create_topics_resp_create_topics_response_f};

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
const lr_pstruct lr_ps_delete_topics_req = {"DeleteTopicsRequest", 3, s_delete_topics_req_delete_topics_request_f};

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
const lr_pstruct lr_ps_delete_topics_resp = {"DeleteTopicsResponse", 2, s_delete_topics_resp_delete_topics_response_f};

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
const lr_pstruct lr_ps_describe_configs_req = {"DescribeConfigsRequest", 3, s_describe_configs_req_describe_configs_request_f};

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
const lr_pstruct lr_ps_describe_configs_resp = {"DescribeConfigsResponse", 2, s_describe_configs_resp_describe_configs_response_f};

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
const lr_pstruct lr_ps_alter_configs_req = {"AlterConfigsRequest", 2, s_alter_configs_req_alter_configs_request_f};

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
const lr_pstruct lr_ps_alter_configs_resp = {"AlterConfigsResponse", 2, s_alter_configs_resp_alter_configs_response_f};

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
const lr_pstruct lr_ps_incremental_alter_configs_req = {"IncrementalAlterConfigsRequest", 2, s_incremental_alter_configs_req_incremental_alter_configs_request_f};

const lr_pstruct lr_ps_incremental_alter_configs_resp = {"IncrementalAlterConfigsResponse", 2, s_alter_configs_resp_alter_configs_response_f};

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
const lr_pstruct lr_ps_delete_records_req = {"DeleteRecordsRequest", 2, s_delete_records_req_delete_records_request_f};

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
const lr_pstruct lr_ps_delete_records_resp = {"DeleteRecordsResponse", 2, s_delete_records_resp_delete_records_response_f};
