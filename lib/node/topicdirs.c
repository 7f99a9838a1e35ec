/* Partition directories that leave service: a deleted topic's partitions
 * are renamed `<topic>-<p>.<topic id hex>-delete`, directories the
 * metadata does not assign to this node (a topic deleted while the node
 * was down, a stale topic ID) `<topic>-<p>.<random hex>-stray` (KIP-516).
 * The rename is made durable before anything else, so a crash leaves
 * either the live name (the topic still exists and the directory is
 * served, or the stray scan retires it again) or the retired name, which
 * the next start removes. Removal waits file.delete.delay.ms, driven by
 * the tick. */
#include <stdio.h>
#include <string.h>

#include "node/node_int.h"

typedef struct name_list {
    logrep_node *n;
    char **v;
    size_t len, cap;
    int err;
} name_list;

static int collect(void *ctx, const char *name)
{
    name_list *l = ctx;
    if (l->len == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 16;
        char **nv = lr_realloc(&l->n->alloc, l->v, l->cap * sizeof *nv, ncap * sizeof *nv);
        if (!nv) {
            l->err = LOGREP_ERR__NOMEM;
            return LOGREP_ERR__NOMEM;
        }
        l->v = nv;
        l->cap = ncap;
    }
    if (!(l->v[l->len] = lr_strdup(&l->n->alloc, name))) {
        l->err = LOGREP_ERR__NOMEM;
        return LOGREP_ERR__NOMEM;
    }
    l->len++;
    return 0;
}

/* The entries of dir, copied: the list callback may not touch storage. */
static int list_dir(logrep_node *n, const char *dir, name_list *l)
{
    memset(l, 0, sizeof *l);
    l->n = n;
    int err = n->st->list(n->st->ctx, dir, collect, l);
    return l->err ? l->err : err;
}

static void list_free(name_list *l)
{
    for (size_t i = 0; i < l->len; i++)
        lr_strfree(&l->n->alloc, l->v[i]);
    lr_free(&l->n->alloc, l->v, l->cap * sizeof *l->v);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int schedule(logrep_node *n, const char *name, int64_t due_ms)
{
    for (size_t i = 0; i < n->dirs.n; i++)
        if (strcmp(n->dirs.v[i].name, name) == 0)
            return 0;
    if (n->dirs.n == n->dirs.cap) {
        size_t ncap = n->dirs.cap ? n->dirs.cap * 2 : 8;
        lr_retired *nv = lr_realloc(&n->alloc, n->dirs.v, n->dirs.cap * sizeof *nv,
                                    ncap * sizeof *nv);
        if (!nv)
            return LOGREP_ERR__NOMEM;
        n->dirs.v = nv;
        n->dirs.cap = ncap;
    }
    char *copy = lr_strdup(&n->alloc, name);
    if (!copy)
        return LOGREP_ERR__NOMEM;
    n->dirs.v[n->dirs.n].name = copy;
    n->dirs.v[n->dirs.n].due_ms = due_ms;
    n->dirs.n++;
    return 0;
}

static void hex(const uint8_t id[16], char out[33])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        out[2 * i] = digits[id[i] >> 4];
        out[2 * i + 1] = digits[id[i] & 15];
    }
    out[32] = 0;
}

int lr_dirs_retire(logrep_node *n, const char *topic, int32_t index, const uint8_t id[16],
                   int64_t now_ms)
{
    uint8_t tag[16];
    if (id) {
        memcpy(tag, id, 16);
    } else {
        uint64_t a = lr_prng_next(&n->rng), b = lr_prng_next(&n->rng);
        memcpy(tag, &a, 8);
        memcpy(tag + 8, &b, 8);
    }
    char h[33], from[1024], suffix[64], name[512], to[1024];
    hex(tag, h);
    snprintf(from, sizeof from, "%s/%s-%d", n->log_dir, topic, index);
    int sl = snprintf(suffix, sizeof suffix, "-%d.%s-%s", index, h, id ? "delete" : "stray");
    /* As Kafka: the topic prefix is cut so the name fits 255 bytes. */
    int keep = (int)strlen(topic);
    if (keep > 255 - sl)
        keep = 255 - sl;
    snprintf(name, sizeof name, "%.*s%s", keep, topic, suffix);
    snprintf(to, sizeof to, "%s/%s", n->log_dir, name);
    int err = n->st->rename(n->st->ctx, from, to);
    if (!err && n->st->sync_dir)
        err = n->st->sync_dir(n->st->ctx, n->log_dir);
    if (err) {
        LR_LOG(&n->logger, LOGREP_LEVEL_ERROR, "node", "retiring %s: %s", from, logrep_err_name(err));
        return err;
    }
    LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "node", "%s renamed %s", from, name);
    return schedule(n, name, now_ms + lr_conf_int(n->conf, LR_CONF_FILE_DELETE_DELAY_MS));
}

/* Removes a retired directory's files, then the directory. */
static int remove_dir(logrep_node *n, const char *name)
{
    char dir[1024], path[1536];
    snprintf(dir, sizeof dir, "%s/%s", n->log_dir, name);
    name_list l;
    int err = list_dir(n, dir, &l);
    for (size_t i = 0; !err && i < l.len; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, l.v[i]);
        err = n->st->remove(n->st->ctx, path);
        if (err == LOGREP_ERR__NOENT)
            err = 0;
    }
    list_free(&l);
    if (!err)
        err = n->st->remove(n->st->ctx, dir);
    if (err == LOGREP_ERR__NOENT)
        err = 0;
    if (!err && n->st->sync_dir)
        err = n->st->sync_dir(n->st->ctx, n->log_dir);
    return err;
}

void lr_dirs_tick(logrep_node *n, int64_t now_ms)
{
    if (!n->dirs.scanned) {
        /* Retired before the last stop: finish the job. */
        name_list l;
        if (list_dir(n, n->log_dir, &l) == 0) {
            n->dirs.scanned = 1;
            int64_t due = now_ms + lr_conf_int(n->conf, LR_CONF_FILE_DELETE_DELAY_MS);
            for (size_t i = 0; i < l.len; i++)
                if ((ends_with(l.v[i], "-delete") || ends_with(l.v[i], "-stray")) &&
                    schedule(n, l.v[i], due) != 0)
                    n->dirs.scanned = 0;
        }
        list_free(&l);
    }
    for (size_t i = 0; i < n->dirs.n;) {
        if (now_ms < n->dirs.v[i].due_ms || remove_dir(n, n->dirs.v[i].name) != 0) {
            i++; /* not yet, or a storage error: again next tick */
            continue;
        }
        LR_LOG(&n->logger, LOGREP_LEVEL_INFO, "node", "removed %s", n->dirs.v[i].name);
        lr_strfree(&n->alloc, n->dirs.v[i].name);
        n->dirs.v[i] = n->dirs.v[--n->dirs.n];
    }
}

void lr_dirs_free(logrep_node *n)
{
    for (size_t i = 0; i < n->dirs.n; i++)
        lr_strfree(&n->alloc, n->dirs.v[i].name);
    lr_free(&n->alloc, n->dirs.v, n->dirs.cap * sizeof *n->dirs.v);
}

/* Splits "<topic>-<partition>" (a live partition directory's name). */
static int parse_part_dir(const char *name, char *topic, size_t tsize, int32_t *index)
{
    const char *dash = strrchr(name, '-');
    if (!dash || dash == name || !dash[1] || strlen(dash + 1) > 9)
        return 0;
    int32_t v = 0;
    for (const char *p = dash + 1; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        v = v * 10 + (*p - '0');
    }
    size_t tl = (size_t)(dash - name);
    if (tl >= tsize)
        return 0;
    lr_md_str s = {name, (int32_t)tl};
    if (!lr_md_topic_name_legal(s))
        return 0;
    memcpy(topic, name, tl);
    topic[tl] = 0;
    *index = v;
    return 1;
}

void lr_dirs_scan_strays(logrep_node *n, int64_t now_ms)
{
    name_list l;
    if (list_dir(n, n->log_dir, &l) != 0) {
        list_free(&l);
        return; /* again after the next metadata apply */
    }
    int err = 0;
    for (size_t i = 0; i < l.len; i++) {
        char topic[LR_MD_MAX_TOPIC_NAME + 1];
        int32_t index;
        if (!parse_part_dir(l.v[i], topic, sizeof topic, &index) ||
            strcmp(topic, LR_METADATA_TOPIC) == 0 || lr_node_part(n, topic, index))
            continue;
        if (lr_dirs_retire(n, topic, index, NULL, now_ms) != 0)
            err = 1;
    }
    list_free(&l);
    if (!err)
        n->dirs.strays_scanned = 1;
}

int64_t lr_dirs_deadline(const logrep_node *n, int64_t now_ms)
{
    int64_t next = n->dirs.scanned ? INT64_MAX : now_ms + 100; /* the listing failed: retry */
    for (size_t i = 0; i < n->dirs.n; i++) {
        int64_t t = n->dirs.v[i].due_ms > now_ms ? n->dirs.v[i].due_ms : now_ms + 100;
        if (t < next)
            next = t;
    }
    return next;
}
