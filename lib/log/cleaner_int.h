/* The cleaner's pass, shared by the files of the cleaner: cleaner.c (the
 * pass: when one is due, the key map, the API), cleaner_rewrite.c (the
 * groups of segments rewritten), cleaner_swap.c (Kafka's file protocol
 * that swaps a group in). */
#ifndef LR_LOG_CLEANER_INT_H
#define LR_LOG_CLEANER_INT_H

#include "base/buf.h"
#include "codec/compress.h"
#include "log/log_int.h"

enum { PH_MAP = 1, PH_CLEAN = 2 };

/* Reads of the source segments go through a buffer of this size at most
 * (less when the call's budget is smaller). */
#define CLEAN_READ_CHUNK (256u * 1024)
/* Output is written to the .cleaned file once this much is pending. */
#define CLEAN_WRITE_CHUNK (256u * 1024)

struct lr_clean_pass {
    int phase;
    int64_t now_ms;      /* the pass's time: horizons are set and judged by it */
    int64_t first_dirty, uncleanable, end;
    lr_keymap map;
    int64_t seg_base;    /* the segment being read, and where */
    uint64_t pos;
    /* read buffer: bytes [rpos, rpos + rlen) of segment rseg */
    uint8_t *rbuf;
    size_t rcap, rlen;
    uint64_t rpos;
    int64_t rseg;
    size_t chunk;        /* read size: the budget, within CLEAN_READ_CHUNK */
    /* the group being written: segments with bases in [out.base, g_next) */
    int64_t g_next;
    int group_open;
    lr_segment out;      /* the new segment's state; its .log.cleaned is f_log */
    logrep_file *f_log;
    uint64_t written;    /* bytes of f_log written */
    lr_buf wbuf, oib, tib, scratch;
    logrep_record *recs;
    size_t recs_cap;
    lr_codec_cache codecs;
    uint64_t bytes_read, bytes_written, records_removed;
};

/* cleaner.c */
/* The index of the first segment with base >= `base` (nsegs: none). */
size_t lr_clean_seg_index(const logrep_log *log, int64_t base);
/* The batch at pos of s: its bytes (in the read buffer) and header. */
logrep_err lr_clean_read_batch(logrep_log *log, lr_clean_pass *p, lr_segment *s, uint64_t pos,
                               const uint8_t **bp, logrep_batch_header *h);
/* Opens the batch's records in log->rd; __CORRUPT for any failure but NOMEM. */
logrep_err lr_clean_open_records(logrep_log *log, const uint8_t *b, const logrep_batch_header *h);
/* The pass is done: the checkpoint moves to its end, counters, freed. */
logrep_err lr_clean_finish_pass(logrep_log *log, lr_clean_pass *p, int64_t now_ms);

/* cleaner_rewrite.c */
/* One step of phase 2: a batch filtered, or a group opened or installed. */
logrep_err lr_clean_step(logrep_log *log, lr_clean_pass *p, int64_t now_ms, uint64_t *used);
/* Writes the pending output to the group's .log.cleaned. */
logrep_err lr_clean_flush_out(logrep_log *log, lr_clean_pass *p);

/* cleaner_swap.c */
/* Removes the .cleaned and .swap files of the group at base. */
void lr_clean_remove_temp(logrep_log *log, int64_t base);
/* Writes and commits the open group's new segment (up to .log.swap), then
 * installs it in place of the group's segments. */
logrep_err lr_clean_commit_group(logrep_log *log, lr_clean_pass *p);
logrep_err lr_clean_install_group(logrep_log *log, lr_clean_pass *p);

#endif
