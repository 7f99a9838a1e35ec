/* `logrep groups`, its pure parts linked in (tools/logrep/groups_fmt.c):
 * the consumer protocol assignment decoder on good, truncated and garbage
 * bytes (each input in a buffer of its exact size, so ASan sees any read
 * past it), and the tables kafka-consumer-groups prints. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groups_fmt.h"

typedef struct wbuf {
    uint8_t b[512];
    size_t n;
} wbuf;

static void put16(wbuf *w, int v)
{
    w->b[w->n++] = (uint8_t)((unsigned)v >> 8);
    w->b[w->n++] = (uint8_t)v;
}

static void put32(wbuf *w, int64_t v)
{
    for (int s = 24; s >= 0; s -= 8)
        w->b[w->n++] = (uint8_t)((uint32_t)v >> s);
}

static void putstr(wbuf *w, const char *s)
{
    put16(w, (int)strlen(s));
    memcpy(w->b + w->n, s, strlen(s));
    w->n += strlen(s);
}

/* version 1: orders [0, 2], t [5], user data "ud" */
static wbuf good(void)
{
    wbuf w = {.n = 0};
    put16(&w, 1);
    put32(&w, 2);
    putstr(&w, "orders");
    put32(&w, 2);
    put32(&w, 0);
    put32(&w, 2);
    putstr(&w, "t");
    put32(&w, 1);
    put32(&w, 5);
    put32(&w, 2);
    w.b[w.n++] = 'u';
    w.b[w.n++] = 'd';
    return w;
}

/* Decodes a heap copy of exactly len bytes. */
static int decode(const uint8_t *p, size_t len, grp_assignment *a, char *err, size_t errlen)
{
    uint8_t *copy = malloc(len ? len : 1);
    cr_assert(copy);
    memcpy(copy, p, len);
    int r = grp_decode_assignment(copy, len, a, err, errlen);
    /* Whatever was decoded points inside the copy. */
    for (size_t i = 0; r == 0 && i < a->ntps; i++) {
        const uint8_t *t = (const uint8_t *)a->tps[i].topic;
        cr_assert(t >= copy && t + a->tps[i].topic_len <= copy + len);
        cr_assert_geq(a->tps[i].partition, 0);
    }
    if (r == 0 && a->user_data)
        cr_assert(a->user_data >= copy && a->user_data + a->user_data_len <= copy + len);
    grp_assignment_free(a);
    free(copy);
    return r;
}

Test(tool_groups, assignment_good)
{
    wbuf w = good();
    grp_assignment a;
    char err[128];
    cr_assert_eq(grp_decode_assignment(w.b, w.n, &a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(a.version, 1);
    cr_assert_eq(a.ntps, 3);
    cr_assert_eq(a.tps[0].topic_len, 6);
    cr_assert(memcmp(a.tps[0].topic, "orders", 6) == 0);
    cr_assert_eq(a.tps[0].partition, 0);
    cr_assert_eq(a.tps[1].partition, 2);
    cr_assert_eq(a.tps[2].topic_len, 1);
    cr_assert_eq(a.tps[2].topic[0], 't');
    cr_assert_eq(a.tps[2].partition, 5);
    cr_assert_eq(a.user_data_len, 2);
    cr_assert(memcmp(a.user_data, "ud", 2) == 0);
    grp_assignment_free(&a);

    /* Later versions may append fields: the bytes after are ignored. */
    w.b[1] = 3;
    w.b[w.n++] = 0x7f;
    cr_assert_eq(decode(w.b, w.n, &a, err, sizeof err), 0, "%s", err);
}

Test(tool_groups, assignment_empty_and_null_user_data)
{
    grp_assignment a;
    char err[128];
    /* A member not assigned yet: no bytes at all. */
    cr_assert_eq(grp_decode_assignment(NULL, 0, &a, err, sizeof err), 0);
    cr_assert_eq(a.ntps, 0);
    grp_assignment_free(&a);

    wbuf w = {.n = 0};
    put16(&w, 0);
    put32(&w, 0);
    put32(&w, -1);
    cr_assert_eq(grp_decode_assignment(w.b, w.n, &a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(a.ntps, 0);
    cr_assert_null(a.user_data);
    cr_assert_eq(a.user_data_len, -1);
    grp_assignment_free(&a);
}

Test(tool_groups, assignment_truncated)
{
    wbuf w = good();
    grp_assignment a;
    char err[128];
    for (size_t len = 1; len < w.n; len++) {
        cr_assert_eq(decode(w.b, len, &a, err, sizeof err), -1, "prefix of %zu bytes", len);
        cr_assert(strstr(err, "at byte"), "%s", err);
    }
}

Test(tool_groups, assignment_bad_fields)
{
    grp_assignment a;
    char err[128];
    struct {
        int16_t version;
        int64_t ntopics, tlen, nparts, part, ulen;
        const char *why;
    } cases[] = {
        {-1, 1, 1, 1, 0, 0, "negative version"},
        {0, 0x7fffffff, 1, 1, 0, 0, "bad topic count"},
        {0, -1, 1, 1, 0, 0, "bad topic count"},
        {0, 1, -1, 1, 0, 0, "bad topic name length"},
        {0, 1, 30000, 1, 0, 0, "bad topic name length"},
        {0, 1, 1, 0x7fffffff, 0, 0, "bad partition count"},
        {0, 1, 1, -1, 0, 0, "bad partition count"},
        {0, 1, 1, 1, -7, 0, "negative partition"},
        {0, 1, 1, 1, 0, 1000, "bad user data length"},
        {0, 1, 1, 1, 0, -2, "bad user data length"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wbuf w = {.n = 0};
        put16(&w, cases[i].version);
        put32(&w, cases[i].ntopics);
        put16(&w, (int)cases[i].tlen);
        w.b[w.n++] = 'x';
        put32(&w, cases[i].nparts);
        put32(&w, cases[i].part);
        put32(&w, cases[i].ulen);
        cr_assert_eq(decode(w.b, w.n, &a, err, sizeof err), -1, "case %zu", i);
        cr_assert(strstr(err, cases[i].why), "case %zu: %s", i, err);
    }
}

/* Random bytes, and the good encoding with random bytes changed: the
 * decoder accepts or refuses, and never reads outside (ASan). */
Test(tool_groups, assignment_garbage)
{
    uint32_t x = 12345;
    grp_assignment a;
    char err[128];
    wbuf g0 = good();
    int accepted = 0;
    for (int iter = 0; iter < 20000; iter++) {
        uint8_t buf[96];
        size_t len;
        if (iter % 2) {
            memcpy(buf, g0.b, g0.n);
            len = g0.n;
            for (int k = 0; k < 1 + iter % 3; k++) {
                x = x * 1103515245u + 12345u;
                buf[(x >> 8) % len] = (uint8_t)(x >> 20);
            }
        } else {
            x = x * 1103515245u + 12345u;
            len = (x >> 16) % sizeof buf;
            for (size_t k = 0; k < len; k++) {
                x = x * 1103515245u + 12345u;
                /* Small values, so that counts and lengths sometimes fit. */
                buf[k] = (uint8_t)((x >> 16) % 4 ? (x >> 24) % 3 : x >> 24);
            }
        }
        int r = decode(buf, len, &a, err, sizeof err);
        cr_assert(r == 0 || r == -1, "iteration %d: %d", iter, r);
        accepted += r == 0;
    }
    cr_assert_gt(accepted, 0);
}

Test(tool_groups, strdup_clean)
{
    char *s = grp_strdup_clean("a\x1b[2Jb\0c\x7f", 9);
    cr_assert_str_eq(s, "a?[2Jb?c?");
    free(s);
    s = grp_strdup_clean(NULL, -1);
    cr_assert_str_eq(s, "");
    free(s);
}

static char *capture_describe(const grp_row *rows, size_t n)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    cr_assert(f);
    grp_print_describe(f, rows, n);
    fclose(f);
    return out;
}

Test(tool_groups, describe_table)
{
    grp_row rows[] = {
        {"my-group", "orders", 0, 5, 10, "consumer-1-abc", "/127.0.0.1", "consumer-1"},
        {"my-group", "orders", 1, -1, 7, "consumer-1-abc", "/127.0.0.1", "consumer-1"},
        {"my-group", "payments", 2, 3, -1, NULL, NULL, NULL},
        {"my-group", "payments", 3, 12, 10, NULL, NULL, NULL},
    };
    char *out = capture_describe(rows, 4);
    cr_assert_str_eq(out,
                     "\n"
                     "GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID\n"
                     "my-group        orders          0          5               10              5               consumer-1-abc  /127.0.0.1      consumer-1\n"
                     "my-group        orders          1          -               7               -               consumer-1-abc  /127.0.0.1      consumer-1\n"
                     "my-group        payments        2          3               -               -               -               -               -\n"
                     "my-group        payments        3          12              10              -2              -               -               -\n"
                     "\n");
    free(out);
}

Test(tool_groups, describe_table_widens)
{
    grp_row rows[] = {
        {"g", "t", 0, 0, 0, "consumer-1-0123456789abcdef0123456789abcd", "h", "c"},
        {"g", "t", 1, -1, -1, NULL, NULL, NULL},
    };
    char *out = capture_describe(rows, 2);
    cr_assert_str_eq(out,
                     "\n"
                     "GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID                               HOST            CLIENT-ID\n"
                     "g               t               0          0               0               0               consumer-1-0123456789abcdef0123456789abcd h               c\n"
                     "g               t               1          -               -               -               -                                         -               -\n"
                     "\n");
    free(out);
}

Test(tool_groups, sort_rows)
{
    grp_row rows[] = {
        {"g", "b", 1, 0, 0, NULL, NULL, NULL}, {"g", NULL, -1, 0, 0, NULL, NULL, NULL},
        {"g", "a", 10, 0, 0, NULL, NULL, NULL}, {"g", "a", 2, 0, 0, NULL, NULL, NULL},
    };
    grp_sort_rows(rows, 4);
    cr_assert_str_eq(rows[0].topic, "a");
    cr_assert_eq(rows[0].partition, 2);
    cr_assert_eq(rows[1].partition, 10);
    cr_assert_str_eq(rows[2].topic, "b");
    cr_assert_null(rows[3].topic);
}

Test(tool_groups, list_tables)
{
    grp_listed g[] = {
        {"console-consumer-12345-long", "consumer", "Stable"},
        {"idle", "", "Empty"},
    };
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    cr_assert(f);
    grp_print_list(f, g, 2, 0, 0);
    grp_print_list(f, g, 2, 0, 1);
    grp_print_list(f, g, 2, 1, 1);
    fclose(f);
    cr_assert_str_eq(out,
                     "console-consumer-12345-long\n"
                     "idle\n"
                     "GROUP                       STATE\n"
                     "console-consumer-12345-long Stable\n"
                     "idle                        Empty\n"
                     "GROUP                       PROTOCOL-TYPE   STATE\n"
                     "console-consumer-12345-long consumer        Stable\n"
                     "idle                                        Empty\n");
    free(out);
}
