/* The quorum's messages on the wire: lr_qmsg <-> Kafka's KRaft RPCs
 * (Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch and FetchSnapshot of the
 * metadata partition) and DescribeQuorum answers (docs/quorum.md, "On the
 * wire").
 *
 * Everything is about one partition: __cluster_metadata (topic id
 * 0...01), partition 0. The node opens the message (logrep_msg_init_request
 * at lr_qwire_api's key and version, or logrep_msg_init_response_to the
 * request it answers), lr_qwire_encode fills it, and the proto layer
 * turns it into bytes. Received bodies go through lr_qwire_decode_request
 * or lr_qwire_decode_response, which check every field the quorum reads.
 *
 * Return values: 0; LOGREP_ERR__INVALID_ARG for a message the quorum
 * cannot take (another topic or partition, counts other than one, a
 * required tagged field missing, negative epochs or offsets, error codes
 * below -1, a version too old to carry what the quorum needs); a wire
 * code when the message is well formed but refused as a whole (see each
 * function); LOGREP_ERR__NOMEM. Nothing is trusted and nothing crashes.
 */
#ifndef LR_QUORUM_QWIRE_H
#define LR_QUORUM_QWIRE_H

#include <stdint.h>

#include <logrep/proto.h>
#include "base/buf.h"
#include "quorum/quorum.h"

#define LR_QWIRE_TOPIC "__cluster_metadata"

/* The versions the node speaks: the newest the schemas have. */
enum {
    LR_QWIRE_VOTE_V = 2,  /* PreVote */
    LR_QWIRE_BEGIN_V = 1,
    LR_QWIRE_END_V = 1,   /* PreferredCandidates */
    LR_QWIRE_FETCH_V = 17, /* ReplicaState, ReplicaDirectoryId */
    LR_QWIRE_FSNAP_V = 1   /* ReplicaDirectoryId (Kafka 3.8+; 3.7 sends 0) */
};

/* A FetchSnapshot request's MaxBytes when the message's len is 0 (the
 * leader's default piece, conf.max_snapshot_bytes 0). */
#define LR_QWIRE_FSNAP_MAX_BYTES (1 << 20)

/* This node, for what the messages carry beyond lr_qmsg. */
typedef struct lr_qwire {
    int32_t node_id;
    /* Sent in requests; a received request naming another one is refused
     * (LOGREP_ERR_INCONSISTENT_CLUSTER_ID). NULL: sent as null, and any
     * accepted. */
    const char *cluster_id;
} lr_qwire;

/* The API key of a message type, and in *version (may be NULL) the
 * version the node sends; -1 for an unknown type. */
int lr_qwire_api(lr_qmsg_type t, int *version);

/* Fills msg, opened as the request or response of m's API at any version
 * of it, from m, sent to node `to`. Fields lr_qmsg does not have are set
 * to Kafka's defaults (zero directory ids, no endpoints). A version that
 * cannot carry m (a pre-vote below Vote 2, an observer's fetch below
 * Fetch 17, any Fetch below 12, an observer's FetchSnapshot below 1) is
 * LOGREP_ERR__INVALID_ARG.
 *
 * Fetch responses: m's entries become record batches in *recs (cleared
 * first), which the message borrows: keep it unchanged until msg is
 * encoded. now_ms stamps the batches. Other types ignore recs and now_ms.
 * A Fetch answer with a snapshot id (snap_end > 0) carries no entries,
 * divergence or error (else LOGREP_ERR__INVALID_ARG).
 *
 * FetchSnapshot: the request needs snap_end > 0, snap_epoch >= 0,
 * position >= 0; its MaxBytes is m->len (0: LR_QWIRE_FSNAP_MAX_BYTES).
 * The response's bytes (data, len) are borrowed like recs, and without
 * an error need 0 <= position <= size, len <= size - position; an error
 * answer sends no bytes.
 *
 * Fetch requests carry no leader id; observer is carried as a replica
 * directory id: a fetcher whose fetches count (a voter) sends none (the
 * zero uuid: the voter set names no directory ids), one that must not
 * count (observer) sends lr_qwire_observer_dir, so the leader treats it
 * as a replica that is not the voter of that id. */
int lr_qwire_encode(const lr_qwire *w, logrep_msg *msg, const lr_qmsg *m, int32_t to,
                    int64_t now_ms, lr_buf *recs);

extern const uint8_t lr_qwire_observer_dir[16];

/* A decoded request. `from` is the sender: the Vote's ReplicaId, the
 * Begin/EndQuorumEpoch's LeaderId, the Fetch's ReplicaState.ReplicaId (a
 * fetch with ReplicaId -1, a broker reading the log as a consumer, is not
 * the quorum's: LOGREP_ERR__INVALID_ARG). Requests that name another
 * cluster id return LOGREP_ERR_INCONSISTENT_CLUSTER_ID, another voter
 * (VoterId, when set) LOGREP_ERR_INVALID_VOTER_KEY: answer them with
 * lr_qwire_error_response. Fetch requests decode leader_id as -1.
 *
 * FetchSnapshot (from = ReplicaId, epoch = CurrentLeaderEpoch, the
 * snapshot id, position, len = MaxBytes, observer as for Fetch): exactly
 * one topic with one partition that is not __cluster_metadata partition 0
 * returns LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION; the host answers it with
 * lr_qwire_fsnap_unknown_response, the error on that partition as Kafka
 * does. Other counts, ReplicaId -1, MaxBytes <= 0, snapshot ids with
 * EndOffset <= 0 or a negative epoch, and negative positions are
 * LOGREP_ERR__INVALID_ARG (Kafka would answer a negative position
 * POSITION_OUT_OF_RANGE; no correct fetcher sends one). */
int lr_qwire_decode_request(const lr_qwire *w, logrep_msg *msg, lr_qmsg *out);

/* A decoded response to the request `req` that the node sent to `from`
 * (responses name neither the responder nor, for Fetch, the offset and
 * epoch they answer: they come from req, as do Vote's pre_vote). Fetch
 * entries point into msg's frame and msg's memory: valid until msg is
 * decoded, initialised or freed again, and while the frame lives. A
 * response whose top-level ErrorCode is set returns that code (> 0, or
 * LOGREP_ERR_UNKNOWN_SERVER_ERROR): the request failed as a whole and
 * there is nothing for the quorum.
 *
 * Fetch: a SnapshotId other than {-1, -1} sets snap_end/snap_epoch and
 * must come alone (records, a divergence or an error beside it are
 * refused), with EndOffset > 0 and an epoch >= 0.
 *
 * FetchSnapshot: CurrentLeader is required (leader_id, epoch). An answer
 * with a partition error takes the snapshot id and position from req
 * (Kafka leaves them at 0) and has no bytes; otherwise the SnapshotId must
 * be req's, 0 <= position <= size and len <= size - position, and
 * data/len (UnalignedRecords) point into the frame, valid as entries are. */
int lr_qwire_decode_response(const lr_qwire *w, logrep_msg *msg, const lr_qmsg *req,
                             int32_t from, lr_qmsg *out);

/* Fills an opened response of any of these APIs (Fetch from 7) with a
 * top-level error (a wire code, not 0) and no partitions, as Kafka
 * answers a request it refuses as a whole. */
int lr_qwire_error_response(logrep_msg *resp, int16_t code);

/* Answers a FetchSnapshot request for another topic or partition (its
 * decode returned LOGREP_ERR_UNKNOWN_TOPIC_OR_PARTITION): resp, opened as
 * its response, names the request's first topic and partition with
 * UNKNOWN_TOPIC_OR_PARTITION and no leader (Kafka's
 * handleFetchSnapshotRequest). LOGREP_ERR__INVALID_ARG when req names
 * none. */
int lr_qwire_fsnap_unknown_response(logrep_msg *resp, logrep_msg *req);

/* Answers a DescribeQuorum request: resp is opened as its response. A
 * request that does not name exactly __cluster_metadata partition 0 is
 * answered UNKNOWN_TOPIC_OR_PARTITION on every partition it named; a
 * description with an error (not the leader) that error on partition 0,
 * with the leader and epoch known here. Times: d's are in the quorum's
 * clock; each is sent as wall_now_ms - (d->now_ms - t), so a host whose
 * quorum clock is monotonic passes the wall-clock time of d->now_ms (and
 * one that drives the quorum with wall-clock time passes d->now_ms). */
int lr_qwire_describe_response(logrep_msg *resp, logrep_msg *req, const lr_quorum_desc *d,
                               int64_t wall_now_ms);

#endif
