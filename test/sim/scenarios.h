/* The data-driven scenarios in this folder, one per file (test/test_sim_data.c). */
SCENARIO(leader_crash_acks_all)
SCENARIO(min_isr_refuses_acks_all)
SCENARIO(isolated_leader)
SCENARIO(controlled_shutdown)
SCENARIO(follower_disk_full)
SCENARIO(unclean_election)
SCENARIO(whole_cluster_kill)
