/* An in-memory, lossless network of nodes and a test client, for tests
 * that drive nodes with Kafka wire frames. */
#ifndef LOGREP_NET_TESTUTIL_H
#define LOGREP_NET_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include <logrep.h>
#include <logrep/node.h>
#include <logrep/proto.h>
#include <logrep/storage.h>

#define MAXN 4
#define CLIENT (-1)

typedef struct lr_memnet lr_memnet;

/* Nodes 1..n on a memnet (lib/sim/memnet.h), with the test client as
 * endpoint CLIENT. */
typedef struct net {
    logrep_node *node[MAXN + 1];
    logrep_storage *st[MAXN + 1];
    lr_memnet *mn;
    int down[MAXN + 1];
    const logrep_allocator *alloc[MAXN + 1]; /* set before start_node; NULL: malloc */
    char err[160];                           /* logrep_node_new's reason */
    int64_t now;
    int n;
    int64_t requests_sent[MAXN + 1][80]; /* delivered, by sending node and API key */
} net;

/* controller.quorum.voters for the nodes started next (NULL: "1@sim:9093")
 * and how many of them (1..net_controllers) are combined nodes. */
extern const char *net_voters;
/* Set before setup: nodes get crash-simulating storages
 * (logrep_storage_crash_new), for fault injection; default memory ones. */
extern int net_crash_storage;
extern int net_controllers;
void start_node(net *w, int id);
/* start_node() returning logrep_node_new's error instead of asserting. */
logrep_err start_node_err(net *w, int id);
/* n nodes: node 1 broker+controller, the others brokers. */
void setup(net *w, int n);
void kill_node(net *w, int id);
void teardown(net *w);
void pump(net *w);
void run(net *w, int64_t ms);
/* Sends a request from the test client to node `to` on its PLAINTEXT
 * listener; returns the conn. */
uint64_t client_send(net *w, int to, logrep_msg *m);
/* The same on the listener named (NULL: a connection never named). */
uint64_t client_send_on(net *w, int to, const char *listener, logrep_msg *m);
/* Another request on the client's connection c (answers come in order). */
void client_send_again(net *w, uint64_t c, logrep_msg *m);
/* File segments the network has read for nodes so far (POSIX storage). */
long net_file_segments(void);
/* 1 when the answer on c waits for the client (not taken yet). */
int client_has(net *w, uint64_t c);
/* 1 when the connection was closed without an answer. */
int client_closed(net *w, uint64_t c);
/* Waits (running the cluster) for the response on conn and decodes it. */
void client_wait(net *w, uint64_t c, int api, int version, logrep_msg *resp, int64_t max_ms);
/* client_wait() that also ends when the node closed the connection:
 * 1 answered (decoded into resp), 0 closed, -1 neither within max_ms. */
int client_answer(net *w, uint64_t c, int api, int version, logrep_msg *resp, int64_t max_ms);
int64_t fint(logrep_struct *s, const char *name);
/* CreateTopics v5 through node `via`, with one config (key NULL: none);
 * asserts success. */
void create_topic_cfg(net *w, int via, const char *name, int parts, int rf, const char *key,
                      const char *value);
void create_topic(net *w, int via, const char *name, int parts, int rf);
/* The request of create_topic_full, for a test that sends it its own way
 * (logrep_msg_free it). */
logrep_msg *create_topic_request(const char *name, int parts, int rf, const char *const *configs);
/* CreateTopics v7 of one topic with config name/value pairs
 * (NULL-terminated, or NULL); returns its error code, the message into msg
 * and the topic id into id (either may be NULL). */
int create_topic_full(net *w, int via, const char *name, int parts, int rf,
                      const char *const *configs, char *msg, size_t msize, uint8_t id[16]);
/* The same asserting success. */
void create_topic_with(net *w, int via, const char *name, int parts, int rf,
                       const char *const *configs);
/* Name/value pairs, NULL-terminated, that every node a test starts also
 * gets (NULL: none); tests set it before setup() and reset it after. */
extern const char *const *extra_conf;
/* When set, nodes started later log INFO and above to it (tests that
 * assert what a node logs; reset it after). */
extern logrep_logger_fn log_capture;
extern void *log_capture_ctx;
/* setup(w, 1) and the time it takes the node to register. */
void one_node(net *w);
logrep_struct *elem(logrep_struct *s, const char *name, int32_t i);
/* Leader of topic/partition per node `via`'s metadata; -1 if none. */
int leader_of(net *w, int via, const char *topic, int part, int32_t *epoch);
/* Builds into buf (cap bytes) one uncompressed batch of n records, key
 * "k", values "<prefix><i>" (at most 63 bytes), timestamps ts + i; returns
 * its length. */
size_t values_batch(uint8_t *buf, size_t cap, const char *prefix, int n, int64_t ts);
/* Sends one Produce v7 carrying `batch` as the partition's records;
 * returns the connection to wait on. */
uint64_t produce_send_raw(net *w, int to, const char *topic, int part, const void *batch,
                          size_t blen, int16_t acks);
/* The produce answer on c within max_ms: its error; its base offset and
 * log append time through the pointers when not NULL. */
int16_t produce_wait_full(net *w, uint64_t c, int64_t max_ms, int64_t *base,
                          int64_t *append_time);
int16_t produce_wait(net *w, uint64_t c, int64_t max_ms, int64_t *base);
/* Sends `batch` and waits (6 s) for the partition's error code. */
int16_t produce_raw(net *w, int to, const char *topic, int part, const void *batch,
                    size_t blen, int16_t acks, int64_t *base, int64_t *append_time);
/* Sends a one-record Produce v7; returns the connection to wait on. */
uint64_t produce_send(net *w, int to, const char *topic, int part, const char *value,
                      int16_t acks);
int16_t produce(net *w, int to, const char *topic, int part, const char *value, int16_t acks,
                int64_t *base);
/* Fetches from `offset`; returns the partition's error code, and through
 * *count how many records came back, checking the values against
 * "v<offset>" (and, with *attrs, ORing the batches' attributes). */
int16_t fetch_records(net *w, int from, const char *topic, int part, int64_t offset,
                      int64_t *hw, int *count_out, int *attrs);
int fetch_count(net *w, int from, const char *topic, int part, int64_t offset, int64_t *hw);
/* Builds in m a consumer Fetch v11 of one partition from `offset`, waiting
 * up to max_wait_ms for min_bytes. */
void fetch_request(logrep_msg *m, const char *topic, int part, int64_t offset, int32_t max_wait_ms,
                   int32_t min_bytes);

/* DeleteTopics v4 of one topic through node `via`; its error code. */
int delete_topic_wire(net *w, int via, const char *name);
/* Three nodes and topic dt (one partition, RF 3); returns its leader. */
int three_nodes_with_dt(net *w);

/* ---- a controller quorum (docs/quorum.md, "In the node") ---- */

/* controller.quorum.voters of three combined nodes 1..3. */
#define NET_VOTERS3 "1@sim:9093,2@sim:9093,3@sim:9093"
/* Nodes 1..3 voters (combined), the others brokers; conf as extra_conf. */
void net_quorum_setup(net *w, int nodes, const char *const *conf);
/* teardown(), and the globals above back to a single controller. */
void net_quorum_teardown(net *w);
/* The active controller's id, -1 when none (asserts there is one at most). */
int net_active(net *w);
/* Runs until an active controller exists and every live node is
 * registered and unfenced in it (at most max_ms); its id. */
int net_settle(net *w, int64_t max_ms);
/* The first live node other than `not`. */
int net_live_other(net *w, int not);
/* Produces n records v<first>..v<first+n-1> to each of parts partitions
 * of topic through their leaders (acks=all), retrying through leader
 * changes; asserts each lands at offset i. */
void net_produce_all(net *w, const char *topic, int parts, int first, int n);
/* Every partition has a live leader, and all n records read back. */
void net_check_all(net *w, const char *topic, int parts, int n);

struct lr_md_image;
/* 1 when two metadata images are the same: the same next offset and the
 * same snapshot records (lr_md_snapshot_records). */
int net_image_same(const struct lr_md_image *a, const struct lr_md_image *b);

#endif
