/* Helpers of the quorum wire tests (test_quorum_wire*.c): one exchange
 * through the wire codec (lib/quorum/qwire.h), messages to send, their
 * comparison, golden bytes, and frames changed on their way. */
#ifndef LOGREP_QWIRE_TESTUTIL_H
#define LOGREP_QWIRE_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include <logrep/proto.h>
#include "base/buf.h"
#include "quorum/qwire.h"

/* One exchange: tx is filled and encoded, its frame copied (the decoder
 * borrows it) and decoded into rx. */
typedef struct wire {
    logrep_msg *tx, *rx;
    uint8_t *frame;
    size_t len;
    lr_buf recs;
} wire;

extern const lr_qwire W1; /* node 1 */
extern const lr_qwire W2; /* node 2 */
/* A LeaderChange control record's body. */
extern const uint8_t LC[6];

void wire_init(wire *x);
void wire_free(wire *x);
int is_resp(lr_qmsg_type t);
/* Opens tx as the message of api `key` at `ver`. */
logrep_struct *open_as(wire *x, int key, int ver, int resp);
void open_type(wire *x, lr_qmsg_type t, int ver);
/* tx -> bytes -> rx. */
void transmit(wire *x);
/* m -> frame -> lr_qmsg. For responses, req is the request answered. */
int send_msg(wire *x, const lr_qwire *w, const lr_qwire *wr, const lr_qmsg *m, int ver,
             const lr_qmsg *req, lr_qmsg *out);
/* m through the wire comes back the same. */
void trip(wire *x, const lr_qwire *w, const lr_qwire *wr, const lr_qmsg *m, int ver,
          const lr_qmsg *req);
lr_qmsg blank(lr_qmsg_type t, int32_t from, int32_t epoch);
/* Everything the quorum reads of m's type came back. */
void same(const lr_qmsg *a, const lr_qmsg *b);
/* A message of type t with every field the quorum reads set. */
lr_qmsg some(lr_qmsg_type t);

/* got[0..len) is the hex string (spaces and newlines ignored). */
void hex_eq(const uint8_t *got, size_t len, const char *hex);

/* Refusals: the first partition of the message's `topics` array. */
logrep_struct *partition_of(logrep_msg *m, const char *topics);
void set_int(logrep_struct *s, const char *f, int64_t v);
typedef void (*mutate_fn)(logrep_msg *m);
/* m encoded, then changed by `mut` before it goes on the wire; what the
 * receiver's decode says. */
int mutated(const lr_qmsg *m, int ver, const lr_qmsg *req, mutate_fn mut);
/* The mutation that changes nothing. */
void nothing(logrep_msg *m);
/* Another cluster's ClusterId. */
void cluster_other(logrep_msg *m);
/* A response's top-level ErrorCode set to INCONSISTENT_CLUSTER_ID. */
void resp_top_error(logrep_msg *m);

#endif
