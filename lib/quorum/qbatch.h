/* Quorum log entries <-> record batches (v2), the bytes of the metadata
 * log on disk and in Fetch answers (docs/quorum.md, "The log on disk").
 *
 * A data entry is a record with a null key and the entry's bytes as value;
 * a control entry is a record of a control batch (attribute bit 0x20)
 * whose key is int16 version 0, int16 type. The batch's partition leader
 * epoch is the entries' epoch. Batches are uncompressed, non-transactional,
 * producer id -1, and records carry no headers.
 *
 * Pure functions: no allocation but `out`'s own growth, no state. */
#ifndef LR_QUORUM_QBATCH_H
#define LR_QUORUM_QBATCH_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "quorum/quorum.h"

/* Largest batch written or accepted (the header's size included). The
 * metadata log's max.message.bytes must be at least this for entries
 * that large; a larger length field in input is corruption. */
#define LR_QBATCH_MAX_BYTES (8u << 20)

/* Appends to out the record batches holding e[0..n) at offsets base,
 * base+1, ...: one batch per run of data entries (control == 0) of the
 * same epoch, a run split where its batch would pass LR_QBATCH_MAX_BYTES;
 * a batch of its own for each control entry. Timestamps are now_ms.
 * 0; LOGREP_ERR__INVALID_ARG (negative base, epoch or control, data NULL
 * with len > 0, offsets past INT64_MAX); LOGREP_ERR__LIMIT (one entry
 * does not fit a batch); LOGREP_ERR__NOMEM. On error out->len is as it
 * was. */
int lr_qbatch_encode(int64_t base, const lr_qentry *e, size_t n, int64_t now_ms, lr_buf *out);

/* One decoded record: its offset and the entry (pointers into the input,
 * valid during the call). A non-zero return stops the walk. */
typedef int (*lr_qbatch_fn)(void *ctx, int64_t offset, const lr_qentry *e);

/* Walks the whole batches in p[0..len), checking each entirely (length,
 * magic, CRC, header fields, every record) before calling fn for its
 * records in order; stops at a trailing partial batch. *consumed (may be
 * NULL) gets the bytes of the batches walked to their end. fn may be NULL
 * (check only).
 * Accepted: batches as lr_qbatch_encode writes them, also several
 * records per control batch and any key on data records. Refused with
 * LOGREP_ERR__CORRUPT: a bad CRC, magic other than 2, a length field
 * below the header or above LR_QBATCH_MAX_BYTES, no records, record
 * count and last offset delta that disagree, offset deltas other than
 * 0, 1, ..., a negative epoch or base offset, a malformed record, a null
 * value, record headers, a control key that is not 4 bytes of version
 * >= 0 and type > 0. A compressed batch gives LOGREP_ERR__UNSUPPORTED.
 * 0, one of those errors, or fn's non-zero value. */
int lr_qbatch_decode(const uint8_t *p, size_t len, lr_qbatch_fn fn, void *ctx, size_t *consumed);

#endif
