/* `__consumer_offsets` records (docs/groups.md, Records).
 *
 * A record's key is int16 keyVersion + key struct, its value int16
 * valueVersion + value struct, or no value at all (a tombstone). The key
 * version is the record type: 0 and 1 offset commit, 2 group metadata
 * (classic groups); other types are refused with LOGREP_ERR__UNSUPPORTED so
 * a loader can skip them. Written: offset commit key v1, value v3 (v1 when
 * the commit carries an expire timestamp, as Kafka does), group metadata
 * key v2, value v3. Read: offset value v0-v4, group value v0-v4 (v4 is the
 * flexible encoding: compact strings, tagged fields, which are skipped).
 *
 * Decoding never allocates: strings and bytes are views into the input, and
 * the members of a group value are read with a cursor. Every length is
 * checked against the input; bad input is LOGREP_ERR__CORRUPT. */
#ifndef LR_GROUP_RECORDS_H
#define LR_GROUP_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include <logrep.h>
#include "base/buf.h"

enum {
    LR_GR_KEY_OFFSET_V0 = 0,
    LR_GR_KEY_OFFSET = 1,
    LR_GR_KEY_GROUP = 2,
};

/* A string or byte string inside a record: n == -1 is null. */
typedef struct lr_gr_slice {
    const uint8_t *p;
    int32_t n;
} lr_gr_slice;

static inline lr_gr_slice lr_gr_cstr(const char *s);

typedef struct lr_gr_key {
    int16_t version; /* the record type */
    lr_gr_slice group;
    lr_gr_slice topic; /* offset commit keys only */
    int32_t partition; /* offset commit keys only */
} lr_gr_key;

typedef struct lr_gr_offset {
    int16_t version;
    int64_t offset;
    int32_t leader_epoch; /* v3+, else -1 */
    lr_gr_slice metadata;
    int64_t commit_ts;
    int64_t expire_ts; /* v1 only, else -1 */
} lr_gr_offset;

typedef struct lr_gr_member {
    lr_gr_slice member_id;
    lr_gr_slice instance_id; /* v3+, else null */
    lr_gr_slice client_id;
    lr_gr_slice client_host;
    int32_t rebalance_timeout; /* v1+, else the session timeout */
    int32_t session_timeout;
    lr_gr_slice subscription;
    lr_gr_slice assignment;
} lr_gr_member;

typedef struct lr_gr_group {
    int16_t version;
    lr_gr_slice protocol_type;
    int32_t generation;
    lr_gr_slice protocol; /* nullable */
    lr_gr_slice leader;   /* nullable */
    int64_t state_ts;     /* v2+, else -1 */
    int32_t n_members;
    /* Decoding: where the members start (read them with lr_gr_member_next). */
    const uint8_t *members_at, *end;
} lr_gr_group;

/* Reads the key of any record. LOGREP_ERR__UNSUPPORTED for a record type
 * other than 0, 1, 2 (version filled in), LOGREP_ERR__CORRUPT. */
int lr_gr_decode_key(const uint8_t *p, size_t len, lr_gr_key *out);

/* Value decoders: 0, LOGREP_ERR__UNSUPPORTED (unknown version),
 * LOGREP_ERR__CORRUPT (also for trailing bytes). The group decoder checks
 * every member; the cursor then reads them without failing. */
int lr_gr_decode_offset(const uint8_t *p, size_t len, lr_gr_offset *out);
int lr_gr_decode_group(const uint8_t *p, size_t len, lr_gr_group *out);

typedef struct lr_gr_cursor {
    const uint8_t *p, *end;
    int16_t version;
    int32_t left;
} lr_gr_cursor;

void lr_gr_members(const lr_gr_group *g, lr_gr_cursor *c);
/* 1 and *m filled, or 0 after the last member. */
int lr_gr_member_next(lr_gr_cursor *c, lr_gr_member *m);

/* Encoders append to b: 0 or LOGREP_ERR__NOMEM (b may hold part of the
 * record then; clear it). Versions other than the written ones are for
 * tests and tools: keys 0/1, offset value 0-4, group value 0-4. */
int lr_gr_encode_offset_key(lr_buf *b, int16_t version, lr_gr_slice group, lr_gr_slice topic,
                            int32_t partition);
int lr_gr_encode_group_key(lr_buf *b, lr_gr_slice group);
int lr_gr_encode_offset(lr_buf *b, const lr_gr_offset *v);
int lr_gr_encode_group(lr_buf *b, const lr_gr_group *g, const lr_gr_member *members, size_t n);

/* The offset commit value version Kafka writes for v (3, or 1 with an
 * expire timestamp). */
int16_t lr_gr_offset_version(const lr_gr_offset *v);

/* Java's String.hashCode of the UTF-8 bytes decoded as Java decodes them
 * (UTF-16 code units; each malformed byte counts as U+FFFD). */
int32_t lr_gr_java_hash(const uint8_t *p, size_t len);

/* abs(hash) mod n with Kafka's Utils.abs (INT32_MIN -> 0); n > 0. */
int32_t lr_gr_partition_for(const uint8_t *group, size_t len, int32_t n);

static inline lr_gr_slice lr_gr_cstr(const char *s)
{
    lr_gr_slice x = {(const uint8_t *)s, -1};
    if (s) {
        size_t n = 0;
        while (s[n])
            n++;
        x.n = n > INT32_MAX ? INT32_MAX : (int32_t)n;
    }
    return x;
}

#endif
