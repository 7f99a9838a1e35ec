/* A snapshot checked and read as its bytes arrive (FetchSnapshot answers
 * into memory, never to disk): the same file format and the same checks
 * as lr_qsnap_check (qsnap.h), made batch by batch. Data records go to
 * the caller's function as soon as their batch checked, so the caller
 * builds aside and uses what it built only once lr_qsnap_stream_finish
 * returned 0: a snapshot that is not whole is never to be trusted.
 *
 * Memory: one batch at most (LR_QBATCH_MAX_BYTES), held only when it
 * arrives in pieces. */
#ifndef LR_QUORUM_QSNAP_STREAM_H
#define LR_QUORUM_QSNAP_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "quorum/qsnap.h"

typedef struct lr_qsnap_stream lr_qsnap_stream;

/* Starts reading snapshot `id` of `size` bytes (the sender's total); fn
 * gets each data record (offset from 1). 0; LOGREP_ERR__INVALID_ARG
 * (negative id, size 0, fn NULL); LOGREP_ERR__NOMEM. */
int lr_qsnap_stream_new(const logrep_conf *conf, lr_qsnap_id id, uint64_t size, lr_qsnap_fn fn,
                        void *ctx, lr_qsnap_stream **out);
/* Takes [pos, pos+len) of the file. pos must be the bytes taken so far
 * (lr_qsnap_stream_position): a gap or an overlap is refused with
 * LOGREP_ERR__INVALID_ARG, bytes past `size` with LOGREP_ERR__LIMIT,
 * nothing taken and the stream usable. A batch that does not check gives
 * LOGREP_ERR__CORRUPT or LOGREP_ERR__UNSUPPORTED (the reason in the
 * info's why), fn's non-zero value stops it: the stream is failed then
 * and answers that error from now on. LOGREP_ERR__NOMEM. */
int lr_qsnap_stream_feed(lr_qsnap_stream *s, uint64_t pos, const void *data, size_t len);
uint64_t lr_qsnap_stream_position(const lr_qsnap_stream *s);
/* All `size` bytes taken and the footer last: 0 (info, may be NULL,
 * filled). LOGREP_ERR__INVALID_ARG (bytes missing); LOGREP_ERR__CORRUPT
 * (a torn last batch, no footer; why says); the stream's error. */
int lr_qsnap_stream_finish(lr_qsnap_stream *s, lr_qsnap_info *info);
/* The reason the stream failed ("" when it did not). */
const char *lr_qsnap_stream_why(const lr_qsnap_stream *s);
void lr_qsnap_stream_free(lr_qsnap_stream *s);

#endif
