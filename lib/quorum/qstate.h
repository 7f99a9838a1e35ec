/* The quorum-state file: what lr_quorum_state holds, on disk in the
 * metadata partition's directory (docs/quorum.md, "The quorum-state
 * file"). JSON as Kafka's quorum-state (data_version 0) with two fields
 * of ours:
 *
 *   {"clusterId":"","leaderId":2,"leaderEpoch":7,"votedId":-1,
 *    "appliedOffset":0,"currentVoters":[{"voterId":1},{"voterId":2}],
 *    "abstaining":false,"floorEpoch":-1,"data_version":0}
 *
 * (one line, no spaces). Reading takes exactly that: whitespace, any key
 * order and unknown keys with simple values (string, number, true, false,
 * null) are tolerated; anything else is corruption, never trusted. */
#ifndef LR_QUORUM_QSTATE_H
#define LR_QUORUM_QSTATE_H

#include <stddef.h>
#include <stdint.h>

#include <logrep/storage.h>
#include "quorum/quorum.h"

#define LR_QSTATE_FILE "quorum-state"
/* Larger files are corrupt (what we write is well under 1 KiB). */
#define LR_QSTATE_MAX_BYTES 4096

typedef struct lr_qstate_file {
    lr_quorum_state state;
    int32_t voters[LR_QUORUM_MAX_VOTERS]; /* currentVoters */
    size_t n_voters;
} lr_qstate_file;

/* Reads dir/quorum-state through st into *out.
 * 0; LOGREP_ERR__NOENT when the file (or dir) is missing: the host starts
 * the quorum with boot.state = NULL; LOGREP_ERR__CORRUPT when it is
 * malformed, truncated, too large or out of range: nothing in it is
 * trusted, the host starts as after a disk loss (boot.disk_lost = 1,
 * docs/quorum.md); storage errors. *out is untouched on error. */
int lr_qstate_read(const logrep_storage *st, const char *dir, lr_qstate_file *out);

/* Replaces dir/quorum-state with s and voters, durably: quorum-state.tmp
 * is written and synced, renamed over, and the directory synced. Then
 * lr_quorum_state_durable may be called. On error the old file is intact
 * (the rename is the commit point) and the temporary removed.
 * 0; LOGREP_ERR__INVALID_ARG (a value the reader would refuse, more than
 * LR_QUORUM_MAX_VOTERS voters, a path too long); storage errors. The
 * format step of a new node writes {0, -1, -1, 0, -1} this way. */
int lr_qstate_write(const logrep_storage *st, const char *dir, const lr_quorum_state *s,
                    const int32_t *voters, size_t n_voters);

/* The text, for the functions above and for tests. format: the length
 * written into buf (no NUL), 0 when s or voters are invalid or cap is too
 * small. parse: 0 or LOGREP_ERR__CORRUPT (*out untouched then). */
size_t lr_qstate_format(const lr_quorum_state *s, const int32_t *voters, size_t n_voters,
                        char *buf, size_t cap);
int lr_qstate_parse(const char *text, size_t len, lr_qstate_file *out);

#endif
