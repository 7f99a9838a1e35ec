/* Consumer protocol assignments and the tables of `logrep groups`. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "groups_fmt.h"

typedef struct rd {
    const uint8_t *p;
    size_t len, off;
} rd;

static int rd_i16(rd *r, int16_t *v)
{
    if (r->len - r->off < 2)
        return -1;
    *v = (int16_t)(uint16_t)((unsigned)r->p[r->off] << 8 | r->p[r->off + 1]);
    r->off += 2;
    return 0;
}

static int rd_i32(rd *r, int32_t *v)
{
    if (r->len - r->off < 4)
        return -1;
    const uint8_t *b = r->p + r->off;
    *v = (int32_t)((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]);
    r->off += 4;
    return 0;
}

static int bad(const rd *r, char *err, size_t errlen, const char *fmt, ...)
{
    char what[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (errlen)
        snprintf(err, errlen, "%s at byte %zu of %zu", what, r->off, r->len);
    return -1;
}

int grp_decode_assignment(const uint8_t *p, size_t len, grp_assignment *out, char *err,
                          size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->user_data_len = -1;
    if (errlen)
        err[0] = 0;
    if (len == 0)
        return 0;
    rd r = {p, len, 0};
    int32_t ntopics, ulen;
    if (rd_i16(&r, &out->version))
        return bad(&r, err, errlen, "truncated version");
    if (out->version < 0)
        return bad(&r, err, errlen, "negative version %d", out->version);
    if (rd_i32(&r, &ntopics))
        return bad(&r, err, errlen, "truncated topic count");
    /* A topic takes 6 bytes at least: the count is bounded by the input. */
    if (ntopics < 0 || (size_t)ntopics > (r.len - r.off) / 6)
        return bad(&r, err, errlen, "bad topic count %" PRId32, ntopics);
    for (int32_t t = 0; t < ntopics; t++) {
        int16_t tlen;
        int32_t np;
        if (rd_i16(&r, &tlen)) {
            bad(&r, err, errlen, "truncated topic %" PRId32, t);
            goto fail;
        }
        if (tlen < 0 || (size_t)tlen > r.len - r.off) {
            bad(&r, err, errlen, "bad topic name length %d", tlen);
            goto fail;
        }
        const char *topic = (const char *)r.p + r.off;
        r.off += (size_t)tlen;
        if (rd_i32(&r, &np)) {
            bad(&r, err, errlen, "truncated partition count of topic %" PRId32, t);
            goto fail;
        }
        if (np < 0 || (size_t)np > (r.len - r.off) / 4) {
            bad(&r, err, errlen, "bad partition count %" PRId32, np);
            goto fail;
        }
        if (np > 0) {
            grp_tp *n = realloc(out->tps, (out->ntps + (size_t)np) * sizeof *n);
            if (!n) {
                grp_assignment_free(out);
                if (errlen)
                    snprintf(err, errlen, "out of memory");
                return -2;
            }
            out->tps = n;
        }
        for (int32_t i = 0; i < np; i++) {
            int32_t part = -1;
            rd_i32(&r, &part); /* np was checked against the bytes left */
            if (part < 0) {
                bad(&r, err, errlen, "negative partition %" PRId32, part);
                goto fail;
            }
            out->tps[out->ntps++] = (grp_tp){topic, tlen, part};
        }
    }
    if (rd_i32(&r, &ulen)) {
        bad(&r, err, errlen, "truncated user data length");
        goto fail;
    }
    if (ulen < -1 || (ulen > 0 && (size_t)ulen > r.len - r.off)) {
        bad(&r, err, errlen, "bad user data length %" PRId32, ulen);
        goto fail;
    }
    out->user_data = ulen < 0 ? NULL : r.p + r.off;
    out->user_data_len = ulen;
    return 0;
fail:
    grp_assignment_free(out);
    return -1;
}

void grp_assignment_free(grp_assignment *a)
{
    free(a->tps);
    a->tps = NULL;
    a->ntps = 0;
}

char *grp_strdup_clean(const char *p, int32_t len)
{
    if (!p || len < 0)
        len = 0;
    char *s = malloc((size_t)len + 1);
    if (!s)
        return NULL;
    for (int32_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        s[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    s[len] = 0;
    return s;
}

static int row_cmp(const void *a, const void *b)
{
    const grp_row *x = a, *y = b;
    if (!x->topic || !y->topic)
        return (x->topic == NULL) - (y->topic == NULL);
    int c = strcmp(x->topic, y->topic);
    if (c)
        return c;
    return (x->partition > y->partition) - (x->partition < y->partition);
}

void grp_sort_rows(grp_row *rows, size_t n)
{
    if (n > 1)
        qsort(rows, n, sizeof *rows, row_cmp);
}

static const char *str_or_dash(const char *s)
{
    return s ? s : "-";
}

static const char *num_or_dash(char *buf, size_t cap, int64_t v)
{
    if (v < 0)
        return "-";
    snprintf(buf, cap, "%" PRId64, v);
    return buf;
}

static int widen(int w, const char *s)
{
    size_t n = strlen(str_or_dash(s));
    return n > (size_t)w ? (n > INT32_MAX ? INT32_MAX : (int)n) : w;
}

void grp_print_describe(FILE *f, const grp_row *rows, size_t n)
{
    int wg = 15, wt = 15, wc = 15, wh = 15;
    for (size_t i = 0; i < n; i++) {
        wg = widen(wg, rows[i].group);
        wt = widen(wt, rows[i].topic);
        wc = widen(wc, rows[i].consumer_id);
        wh = widen(wh, rows[i].host);
    }
    fprintf(f, "\n%-*s %-*s %-10s %-15s %-15s %-15s %-*s %-*s %s\n", wg, "GROUP", wt, "TOPIC",
            "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", wc, "CONSUMER-ID", wh, "HOST",
            "CLIENT-ID");
    for (size_t i = 0; i < n; i++) {
        const grp_row *r = &rows[i];
        char pb[16], ob[24], lb[24], gb[24] = "-";
        /* Negative when the committed offset is past the end: shown. */
        if (r->offset >= 0 && r->log_end >= 0)
            snprintf(gb, sizeof gb, "%" PRId64, r->log_end - r->offset);
        fprintf(f, "%-*s %-*s %-10s %-15s %-15s %-15s %-*s %-*s %s\n", wg, str_or_dash(r->group),
                wt, str_or_dash(r->topic), num_or_dash(pb, sizeof pb, r->partition),
                num_or_dash(ob, sizeof ob, r->offset), num_or_dash(lb, sizeof lb, r->log_end),
                gb, wc, str_or_dash(r->consumer_id), wh, str_or_dash(r->host),
                str_or_dash(r->client_id));
    }
    fputc('\n', f);
}

void grp_print_list(FILE *f, const grp_listed *g, size_t n, int with_type, int with_state)
{
    if (!with_type && !with_state) {
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%s\n", str_or_dash(g[i].group));
        return;
    }
    int wg = 15, wt = 15;
    for (size_t i = 0; i < n; i++) {
        wg = widen(wg, g[i].group);
        wt = widen(wt, g[i].protocol_type);
    }
    if (with_type && with_state)
        fprintf(f, "%-*s %-*s %s\n", wg, "GROUP", wt, "PROTOCOL-TYPE", "STATE");
    else
        fprintf(f, "%-*s %s\n", wg, "GROUP", with_type ? "PROTOCOL-TYPE" : "STATE");
    for (size_t i = 0; i < n; i++) {
        const char *grp = str_or_dash(g[i].group);
        if (with_type && with_state)
            fprintf(f, "%-*s %-*s %s\n", wg, grp, wt, str_or_dash(g[i].protocol_type),
                    str_or_dash(g[i].state));
        else
            fprintf(f, "%-*s %s\n", wg, grp,
                    str_or_dash(with_type ? g[i].protocol_type : g[i].state));
    }
}
