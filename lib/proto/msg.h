/* Message and node internals shared by the decoder, encoder and accessors. */
#ifndef LR_PROTO_MSG_H
#define LR_PROTO_MSG_H

#include <stdint.h>
#include <logrep/proto.h>
#include "base/alloc.h"
#include "base/buf.h"
#include "proto/arena.h"
#include "proto/schema.h"

/* One value slot. Strings, bytes, uuids and in-memory records point at
 * their bytes (input or borrowed); file-backed records point at an
 * lr_pfile. Arrays of structs point at logrep_struct[len], other arrays at
 * lr_pv[len]. */
typedef struct lr_pv {
    union {
        int64_t i;
        double f;
        const uint8_t *p;
        const struct lr_pfile *file;
        logrep_struct *node;
        struct lr_pv *vals;
    } u;
    int32_t len;      /* bytes or elements; -1 null */
    uint8_t present;  /* tagged field decoded or set */
    uint8_t is_file;  /* records given as a file range */
} lr_pv;

typedef struct lr_pfile {
    int64_t file, pos;
} lr_pfile;

/* An encoded segment outside the message buffer, following offset off. */
typedef struct lr_pext {
    size_t off;
    logrep_seg seg;
} lr_pext;

typedef struct lr_ptag {
    uint32_t tag, len;
    const uint8_t *p;
} lr_ptag;

struct logrep_struct {
    const lr_pstruct *s;
    lr_pv *v;
    lr_ptag *unknown;
    uint32_t nunknown;
    logrep_msg *m;
};

enum { LR_MSG_EMPTY, LR_MSG_HEADER, LR_MSG_FULL };

struct logrep_msg {
    lr_alloc alloc;
    int64_t max_bytes;
    lr_arena arena;
    const lr_papi *api;
    int16_t key, ver;
    uint8_t is_resp, state, hver;
    logrep_struct hdr;
    logrep_struct *root;
    lr_buf out;
    logrep_seg *segs;
    size_t nsegs, segcap;
    lr_pext *ext;           /* encoder scratch: external segments */
    size_t extcap;
    char errmsg[200];
};

/* Node with every field at its default; NULL when out of memory. */
logrep_struct *lr_pnode_new(logrep_msg *m, const lr_pstruct *s);
int lr_pnode_init(logrep_msg *m, logrep_struct *n, const lr_pstruct *s);
/* The default value of a field. */
void lr_pv_default(const lr_pfield *f, lr_pv *v);
void lr_msg_seterr(logrep_msg *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Resets to empty, keeping memory. */
void lr_msg_clear(logrep_msg *m);
/* Header version of a request/response at api version v. */
int lr_proto_req_hver(const lr_papi *api, int v);
int lr_proto_resp_hver(const lr_papi *api, int v);

int lr_proto_decode_struct(logrep_msg *m, const uint8_t *base, const uint8_t **pp,
                           const uint8_t *end, int ver, int flex, logrep_struct *n);

#endif
