/* A growable byte buffer on a per-instance allocator. */
#ifndef LR_BASE_BUF_H
#define LR_BASE_BUF_H

#include <stddef.h>
#include <stdint.h>
#include "base/alloc.h"

typedef struct lr_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    const lr_alloc *alloc;
} lr_buf;

void lr_buf_init(lr_buf *b, const lr_alloc *a);
void lr_buf_free(lr_buf *b);
/* Ensures room for `extra` more bytes. 0 or LOGREP_ERR__NOMEM. */
int lr_buf_reserve(lr_buf *b, size_t extra);
int lr_buf_append(lr_buf *b, const void *data, size_t n);
static inline void lr_buf_clear(lr_buf *b) { b->len = 0; }

#endif
