#include "base/buf.h"

#include <string.h>

void lr_buf_init(lr_buf *b, const lr_alloc *a)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->alloc = a;
}

void lr_buf_free(lr_buf *b)
{
    lr_free(b->alloc, b->data, b->cap);
    b->data = NULL;
    b->len = b->cap = 0;
}

int lr_buf_reserve(lr_buf *b, size_t extra)
{
    /* Always leaves data non-NULL, so data + len is valid pointer math. */
    if (b->data && extra <= b->cap - b->len)
        return 0;
    if (extra > SIZE_MAX / 2 - b->len)
        return LOGREP_ERR__NOMEM;
    size_t need = b->len + extra;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    uint8_t *p = lr_realloc(b->alloc, b->data, b->cap, cap);
    if (!p)
        return LOGREP_ERR__NOMEM;
    b->data = p;
    b->cap = cap;
    return 0;
}

int lr_buf_append(lr_buf *b, const void *data, size_t n)
{
    int err = lr_buf_reserve(b, n);
    if (err)
        return err;
    if (n)
        memcpy(b->data + b->len, data, n);
    b->len += n;
    return 0;
}
