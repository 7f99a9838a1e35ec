/* Kafka's checkpoint text files (CheckpointFile), partition.metadata, and
 * atomic replacement of small files through the storage. */
#include <stdio.h>
#include <string.h>

#include "base/uuid.h"
#include "log/log_int.h"

logrep_err lr_file_install(const logrep_storage *st, logrep_file *f, const char *tmp,
                           const char *dir, const char *path)
{
    logrep_err err = st->sync(st->ctx, f);
    logrep_err cerr = st->close(st->ctx, f);
    if (!err)
        err = cerr;
    if (!err)
        err = st->rename(st->ctx, tmp, path);
    if (err) {
        st->remove(st->ctx, tmp); /* best effort: a stray temporary is removed at open */
        return err;
    }
    return st->sync_dir ? st->sync_dir(st->ctx, dir) : LOGREP_OK;
}

logrep_err lr_file_replace(const logrep_storage *st, const char *dir, const char *name,
                           const void *data, size_t len)
{
    char path[LR_PATH_MAX], tmp[LR_PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path ||
        (size_t)snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, name) >= sizeof tmp)
        return LOGREP_ERR__INVALID_ARG;
    logrep_file *f;
    logrep_err err = st->open(st->ctx, tmp, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &f);
    if (err)
        return err;
    err = st->truncate(st->ctx, f, 0);
    if (!err)
        err = st->write(st->ctx, f, 0, data, len);
    if (err) {
        st->close(st->ctx, f);
        st->remove(st->ctx, tmp);
        return err;
    }
    return lr_file_install(st, f, tmp, dir, path);
}

logrep_err lr_file_read_all(const logrep_storage *st, const lr_alloc *a, const char *path,
                            size_t max, char **out, size_t *len, size_t *alloc_len)
{
    logrep_file *f;
    logrep_err err = st->open(st->ctx, path, LOGREP_OPEN_READ, &f);
    if (err)
        return err;
    uint64_t size;
    char *buf = NULL;
    size_t n = 0;
    err = st->size(st->ctx, f, &size);
    if (!err && size > max)
        err = LOGREP_ERR__CORRUPT;
    if (!err && !(buf = lr_malloc(a, (size_t)size + 1)))
        err = LOGREP_ERR__NOMEM;
    if (!err)
        err = st->read(st->ctx, f, 0, buf, (size_t)size, &n);
    st->close(st->ctx, f);
    if (err) {
        if (buf)
            lr_free(a, buf, (size_t)size + 1);
        return err;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    *alloc_len = (size_t)size + 1;
    return LOGREP_OK;
}

/* ---- line tokenizer ---- */

typedef struct cursor {
    const char *p, *end;
} cursor;

/* Next line without its terminator; 0 at the end of text. */
static int next_line(cursor *c, const char **ls, const char **le)
{
    if (c->p >= c->end)
        return 0;
    const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
    *ls = c->p;
    *le = nl ? nl : c->end;
    c->p = nl ? nl + 1 : c->end;
    if (*le > *ls && (*le)[-1] == '\r')
        (*le)--;
    return 1;
}

static int is_ws(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* Splits a line into up to max whitespace-separated fields. */
static int split(const char *ls, const char *le, const char **fs, size_t *fl, int max)
{
    int n = 0;
    while (ls < le) {
        while (ls < le && is_ws(*ls))
            ls++;
        if (ls >= le)
            break;
        const char *s = ls;
        while (ls < le && !is_ws(*ls))
            ls++;
        if (n == max)
            return max + 1;
        fs[n] = s;
        fl[n] = (size_t)(ls - s);
        n++;
    }
    return n;
}

/* Strict decimal int64: optional '-', digits, no overflow. */
static int parse_i64(const char *s, size_t len, int64_t *out)
{
    int neg = 0;
    size_t i = 0;
    if (len && s[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i == len || len - i > 19)
        return -1;
    uint64_t v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
        return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* Reads the "version\ncount\n" header. Returns 1 for an empty file. */
static int parse_head(cursor *c, int64_t *count)
{
    const char *ls, *le, *fs[2];
    size_t fl[2];
    int64_t version;
    if (c->p == c->end)
        return 1;
    if (!next_line(c, &ls, &le) || split(ls, le, fs, fl, 1) != 1 ||
        parse_i64(fs[0], fl[0], &version) || version != 0)
        return -1;
    if (!next_line(c, &ls, &le) || split(ls, le, fs, fl, 1) != 1 ||
        parse_i64(fs[0], fl[0], count) || *count < 0)
        return -1;
    return 0;
}

/* After the entries only empty lines may follow. */
static int rest_empty(cursor *c)
{
    const char *ls, *le, *fs[1];
    size_t fl[1];
    while (next_line(c, &ls, &le))
        if (split(ls, le, fs, fl, 1) != 0)
            return 0;
    return 1;
}

logrep_err lr_ckpt_parse_epochs(const char *text, size_t len, const lr_alloc *a,
                                lr_epoch_entry **out, size_t *n, size_t *cap)
{
    cursor c = {text, text + len};
    int64_t count;
    *out = NULL;
    *n = *cap = 0;
    int h = parse_head(&c, &count);
    if (h == 1)
        return LOGREP_OK;
    /* Each line needs at least 4 bytes: bounds the allocation by the text. */
    if (h || (uint64_t)count > len / 4 + 1)
        return LOGREP_ERR__CORRUPT;
    lr_epoch_entry *v = count ? lr_calloc(a, (size_t)count, sizeof *v) : NULL;
    if (count && !v)
        return LOGREP_ERR__NOMEM;
    for (int64_t i = 0; i < count; i++) {
        const char *ls, *le, *fs[2];
        size_t fl[2];
        int64_t e, s;
        if (!next_line(&c, &ls, &le) || split(ls, le, fs, fl, 2) != 2 ||
            parse_i64(fs[0], fl[0], &e) || parse_i64(fs[1], fl[1], &s) || e < 0 ||
            e > INT32_MAX || s < 0 ||
            (i && (e <= v[i - 1].epoch || s < v[i - 1].start)))
            goto bad;
        v[i].epoch = (int32_t)e;
        v[i].start = s;
    }
    if (!rest_empty(&c))
        goto bad;
    *out = v;
    *n = *cap = (size_t)count;
    return LOGREP_OK;
bad:
    if (v)
        lr_free(a, v, (size_t)count * sizeof *v);
    return LOGREP_ERR__CORRUPT;
}

size_t lr_ckpt_format_epochs(const lr_epoch_entry *e, size_t n, char *buf, size_t size)
{
    size_t off = 0;
    int w = snprintf(buf, size, "0\n%zu\n", n);
    if (w < 0 || (size_t)w >= size)
        return 0;
    off = (size_t)w;
    for (size_t i = 0; i < n; i++) {
        w = snprintf(buf + off, size - off, "%d %lld\n", (int)e[i].epoch, (long long)e[i].start);
        if (w < 0 || (size_t)w >= size - off)
            return 0;
        off += (size_t)w;
    }
    return off;
}

logrep_err lr_ckpt_parse_offset(const char *text, size_t len, const char *topic,
                                int32_t partition, int64_t *offset)
{
    cursor c = {text, text + len};
    int64_t count;
    int h = parse_head(&c, &count);
    if (h == 1)
        return LOGREP_ERR__NOENT;
    if (h)
        return LOGREP_ERR__CORRUPT;
    int found = 0;
    size_t tlen = strlen(topic);
    for (int64_t i = 0; i < count; i++) {
        const char *ls, *le, *fs[3];
        size_t fl[3];
        int64_t p, o;
        if (!next_line(&c, &ls, &le) || split(ls, le, fs, fl, 3) != 3 ||
            parse_i64(fs[1], fl[1], &p) || parse_i64(fs[2], fl[2], &o) || p < 0 ||
            p > INT32_MAX || o < 0)
            return LOGREP_ERR__CORRUPT;
        if (fl[0] == tlen && memcmp(fs[0], topic, tlen) == 0 && p == partition) {
            *offset = o;
            found = 1;
        }
    }
    if (!rest_empty(&c))
        return LOGREP_ERR__CORRUPT;
    return found ? LOGREP_OK : LOGREP_ERR__NOENT;
}

size_t lr_ckpt_format_offset(const char *topic, int32_t partition, int64_t offset, char *buf,
                             size_t size)
{
    int w = snprintf(buf, size, "0\n1\n%s %d %lld\n", topic, (int)partition, (long long)offset);
    return (w < 0 || (size_t)w >= size) ? 0 : (size_t)w;
}

/* ---- partition.metadata: the topic id in Kafka's Uuid text form ---- */

size_t lr_partition_metadata_format(const uint8_t id[16], char *buf, size_t size)
{
    char enc[23];
    lr_uuid_to_str(id, enc);
    int w = snprintf(buf, size, "version: 0\ntopic_id: %s", enc);
    return (w < 0 || (size_t)w >= size) ? 0 : (size_t)w;
}

/* "key: value" with whitespace after the colon. */
static int kv(const char *ls, const char *le, const char *key, const char **vs, const char **ve)
{
    size_t kl = strlen(key);
    if ((size_t)(le - ls) < kl + 2 || memcmp(ls, key, kl) != 0 || ls[kl] != ':' ||
        !is_ws(ls[kl + 1]))
        return -1;
    ls += kl + 1;
    while (ls < le && is_ws(*ls))
        ls++;
    while (le > ls && is_ws(le[-1]))
        le--;
    *vs = ls;
    *ve = le;
    return 0;
}

logrep_err lr_partition_metadata_parse(const char *text, size_t len, uint8_t id[16])
{
    cursor c = {text, text + len};
    const char *ls, *le, *vs, *ve;
    if (!next_line(&c, &ls, &le) || kv(ls, le, "version", &vs, &ve) || ve - vs != 1 ||
        *vs != '0')
        return LOGREP_ERR__CORRUPT;
    if (!next_line(&c, &ls, &le) || kv(ls, le, "topic_id", &vs, &ve) || ve - vs != 22 ||
        !rest_empty(&c))
        return LOGREP_ERR__CORRUPT;
    uint8_t out[16];
    if (lr_uuid_from_str(vs, (size_t)(ve - vs), out) != 0)
        return LOGREP_ERR__CORRUPT;
    int nonzero = 0;
    for (int i = 0; i < 16; i++)
        nonzero |= out[i];
    if (!nonzero)
        return LOGREP_ERR__CORRUPT;
    memcpy(id, out, 16);
    return LOGREP_OK;
}
