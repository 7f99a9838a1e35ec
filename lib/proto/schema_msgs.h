/* The request and response structs of every API, defined in the schema
 * table files by family and gathered in schema_msgs.c's lr_proto_apis. */
#ifndef LR_PROTO_SCHEMA_MSGS_H
#define LR_PROTO_SCHEMA_MSGS_H

#include "proto/schema.h"

extern const lr_pstruct lr_ps_produce_req, lr_ps_produce_resp;
extern const lr_pstruct lr_ps_fetch_req, lr_ps_fetch_resp;
extern const lr_pstruct lr_ps_list_offsets_req, lr_ps_list_offsets_resp;
extern const lr_pstruct lr_ps_metadata_req, lr_ps_metadata_resp;
extern const lr_pstruct lr_ps_offset_commit_req, lr_ps_offset_commit_resp;
extern const lr_pstruct lr_ps_offset_fetch_req, lr_ps_offset_fetch_resp;
extern const lr_pstruct lr_ps_find_coordinator_req, lr_ps_find_coordinator_resp;
extern const lr_pstruct lr_ps_join_group_req, lr_ps_join_group_resp;
extern const lr_pstruct lr_ps_heartbeat_req, lr_ps_heartbeat_resp;
extern const lr_pstruct lr_ps_leave_group_req, lr_ps_leave_group_resp;
extern const lr_pstruct lr_ps_sync_group_req, lr_ps_sync_group_resp;
extern const lr_pstruct lr_ps_describe_groups_req, lr_ps_describe_groups_resp;
extern const lr_pstruct lr_ps_list_groups_req, lr_ps_list_groups_resp;
extern const lr_pstruct lr_ps_api_versions_req, lr_ps_api_versions_resp;
extern const lr_pstruct lr_ps_create_topics_req, lr_ps_create_topics_resp;
extern const lr_pstruct lr_ps_delete_topics_req, lr_ps_delete_topics_resp;
extern const lr_pstruct lr_ps_delete_records_req, lr_ps_delete_records_resp;
extern const lr_pstruct lr_ps_init_producer_id_req, lr_ps_init_producer_id_resp;
extern const lr_pstruct lr_ps_offset_for_leader_epoch_req, lr_ps_offset_for_leader_epoch_resp;
extern const lr_pstruct lr_ps_add_partitions_to_txn_req, lr_ps_add_partitions_to_txn_resp;
extern const lr_pstruct lr_ps_add_offsets_to_txn_req, lr_ps_add_offsets_to_txn_resp;
extern const lr_pstruct lr_ps_end_txn_req, lr_ps_end_txn_resp;
extern const lr_pstruct lr_ps_write_txn_markers_req, lr_ps_write_txn_markers_resp;
extern const lr_pstruct lr_ps_txn_offset_commit_req, lr_ps_txn_offset_commit_resp;
extern const lr_pstruct lr_ps_describe_configs_req, lr_ps_describe_configs_resp;
extern const lr_pstruct lr_ps_alter_configs_req, lr_ps_alter_configs_resp;
extern const lr_pstruct lr_ps_delete_groups_req, lr_ps_delete_groups_resp;
extern const lr_pstruct lr_ps_offset_delete_req, lr_ps_offset_delete_resp;
extern const lr_pstruct lr_ps_incremental_alter_configs_req, lr_ps_incremental_alter_configs_resp;
extern const lr_pstruct lr_ps_vote_req, lr_ps_vote_resp;
extern const lr_pstruct lr_ps_begin_quorum_epoch_req, lr_ps_begin_quorum_epoch_resp;
extern const lr_pstruct lr_ps_end_quorum_epoch_req, lr_ps_end_quorum_epoch_resp;
extern const lr_pstruct lr_ps_describe_quorum_req, lr_ps_describe_quorum_resp;
extern const lr_pstruct lr_ps_alter_partition_req, lr_ps_alter_partition_resp;
extern const lr_pstruct lr_ps_fetch_snapshot_req, lr_ps_fetch_snapshot_resp;
extern const lr_pstruct lr_ps_broker_registration_req, lr_ps_broker_registration_resp;
extern const lr_pstruct lr_ps_broker_heartbeat_req, lr_ps_broker_heartbeat_resp;
extern const lr_pstruct lr_ps_allocate_producer_ids_req, lr_ps_allocate_producer_ids_resp;

#endif
