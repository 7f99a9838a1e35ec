/* Partition-directory commands: append, verify, recover, offsets, and
 * `dump DIR`. They go through the library's log and POSIX storage, except
 * verify, which reads the files itself so that it never changes them. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/uuid.h"
#include "cmd.h"
#include "controller/metadata.h"
#include <logrep.h>
#include <logrep/log.h>
#include <logrep/storage.h>


static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const uint8_t *p)
{
    return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

static void print_log(void *ctx, int level, const char *subsys, const char *msg, size_t len)
{
    (void)ctx;
    (void)subsys;
    fprintf(stderr, "%s: %.*s\n", level <= LOGREP_LEVEL_WARN ? "warning" : "info", (int)len, msg);
}

/* Opens the partition with the POSIX storage; 0 or an exit status. */
int tool_open_log(const char *dir, logrep_conf *conf, int64_t now_ms, logrep_storage **st,
                  logrep_log **log)
{
    if (logrep_storage_posix_new(conf, st)) {
        fprintf(stderr, "logrep: out of memory\n");
        return 2;
    }
    logrep_conf_set_logger(conf, print_log, NULL, LOGREP_LEVEL_INFO);
    logrep_err err = logrep_log_open(conf, *st, dir, now_ms, log);
    if (err) {
        fprintf(stderr, "logrep: %s: %s (%s)\n", dir, logrep_err_str(err), logrep_err_name(err));
        logrep_storage_free(*st);
        return err == LOGREP_ERR__CORRUPT ? 1 : 2;
    }
    return 0;
}

int tool_close_log(logrep_log *log, logrep_storage *st, logrep_conf *conf, int rc)
{
    logrep_err err = logrep_log_close(log);
    if (err) {
        fprintf(stderr, "logrep: close: %s\n", logrep_err_name(err));
        if (!rc)
            rc = 2;
    }
    logrep_storage_free(st);
    logrep_conf_free(conf);
    return rc;
}

int cmd_append(int argc, char **argv)
{
    logrep_conf *conf = logrep_conf_new();
    int32_t epoch = 0;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--segment-bytes") == 0 && i + 1 < argc) {
            char err[128];
            if (logrep_conf_set(conf, "segment.bytes", argv[++i], err, sizeof err)) {
                fprintf(stderr, "logrep append: %s\n", err);
                logrep_conf_free(conf);
                return 2;
            }
        } else if (strcmp(argv[i], "--epoch") == 0 && i + 1 < argc) {
            epoch = (int32_t)strtol(argv[++i], NULL, 10);
        } else {
            break;
        }
    }
    if (argc - i < 2 || epoch < 0) {
        fprintf(stderr, "usage: logrep append [--segment-bytes N] [--epoch E] DIR FILE...\n");
        logrep_conf_free(conf);
        return 2;
    }
    logrep_storage *st;
    logrep_log *log;
    int rc = tool_open_log(argv[i], conf, 0, &st, &log);
    if (rc) {
        logrep_conf_free(conf);
        return rc;
    }
    if (logrep_log_latest_epoch(log) < epoch)
        logrep_log_epoch_assign(log, epoch, logrep_log_end_offset(log));
    for (int f = i + 1; f < argc && !rc; f++) {
        size_t len;
        uint8_t *buf = tool_read_file(argv[f], &len);
        if (!buf) {
            perror(argv[f]);
            rc = 2;
            break;
        }
        size_t pos = 0;
        while (pos < len) {
            size_t size;
            logrep_err err = logrep_batch_verify(buf + pos, len - pos, &size);
            if (err) {
                fprintf(stderr, "%s: position %zu: %s\n", argv[f], pos, logrep_err_str(err));
                rc = 1;
                break;
            }
            logrep_log_append_info info;
            err = logrep_log_append_leader(log, buf + pos, size, epoch, 0, &info);
            if (err) {
                fprintf(stderr, "%s: position %zu: append: %s\n", argv[f], pos,
                        logrep_err_name(err));
                rc = 1;
                break;
            }
            printf("%s: batch at position %zu: base offset %" PRId64 ", %d records\n", argv[f],
                   pos, info.first_offset, info.records);
            pos += size;
        }
        free(buf);
    }
    return tool_close_log(log, st, conf, rc);
}

int cmd_recover(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: logrep recover DIR\n");
        return 2;
    }
    logrep_conf *conf = logrep_conf_new();
    logrep_storage *st;
    logrep_log *log;
    int rc = tool_open_log(argv[1], conf, 0, &st, &log);
    if (rc) {
        logrep_conf_free(conf);
        return rc;
    }
    const logrep_log_recovery *r = logrep_log_recovery_info(log);
    printf("recovery point %" PRId64 "\n", r->recovery_point);
    printf("segments recovered %d, indexes rebuilt %d, segments deleted %d\n",
           r->segments_recovered, r->indexes_rebuilt, r->segments_deleted);
    printf("bytes truncated %" PRId64 ", epoch entries removed %d, stray files removed %d\n",
           r->bytes_truncated, r->epoch_entries_removed, r->files_removed);
    printf("log start offset %" PRId64 ", log end offset %" PRId64 "\n", r->log_start_offset,
           r->log_end_offset);
    return tool_close_log(log, st, conf, 0);
}

int cmd_offsets(int argc, char **argv)
{
    const char *dir = NULL;
    int64_t ts = 0;
    int by_time = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--time") == 0 && i + 1 < argc) {
            ts = strtoll(argv[++i], NULL, 10);
            by_time = 1;
        } else if (!dir) {
            dir = argv[i];
        } else {
            dir = NULL;
            break;
        }
    }
    if (!dir) {
        fprintf(stderr, "usage: logrep offsets DIR [--time MS]\n");
        return 2;
    }
    logrep_conf *conf = logrep_conf_new();
    logrep_storage *st;
    logrep_log *log;
    int rc = tool_open_log(dir, conf, 0, &st, &log);
    if (rc) {
        logrep_conf_free(conf);
        return rc;
    }
    if (by_time) {
        int64_t off, found;
        logrep_err err = logrep_log_offset_for_time(log, ts, &off, &found);
        if (err == LOGREP_ERR__NOENT)
            printf("offset -1\n");
        else if (err)
            fprintf(stderr, "logrep offsets: %s\n", logrep_err_name(err)), rc = 1;
        else
            printf("offset %" PRId64 " timestamp %" PRId64 "\n", off, found);
    } else {
        printf("log start offset %" PRId64 "\nlog end offset %" PRId64 "\n",
               logrep_log_start_offset(log), logrep_log_end_offset(log));
    }
    return tool_close_log(log, st, conf, rc);
}

/* ---- directory listing shared by verify and dump ---- */

typedef struct seglist {
    int64_t *base;
    size_t n;
} seglist;

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int list_segments(const char *dir, seglist *out)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return 2;
    }
    out->base = NULL;
    out->n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l != 24 || strcmp(e->d_name + 20, ".log") != 0 ||
            strspn(e->d_name, "0123456789") != 20)
            continue;
        int64_t *nb = realloc(out->base, sizeof *nb * (out->n + 1));
        if (!nb)
            break;
        out->base = nb;
        out->base[out->n++] = strtoll(e->d_name, NULL, 10);
    }
    closedir(d);
    qsort(out->base, out->n, sizeof *out->base, cmp64);
    return 0;
}

static void seg_path(char *buf, size_t size, const char *dir, int64_t base, const char *sfx)
{
    snprintf(buf, size, "%s/%020" PRId64 "%s", dir, base, sfx);
}

/* ---- verify ---- */

typedef struct vstate {
    const char *dir;
    int bad;
    int64_t next;   /* offset after the previous batch */
} vstate;

static void vbad(vstate *v, const char *what, const char *file, long long a)
{
    printf("INCONSISTENT %s: %s %lld\n", file, what, a);
    v->bad = 1;
}

/* Position of the batch whose last offset is `off`, or -1. */
static int64_t batch_pos_for(const uint8_t *log, size_t len, int64_t pos, int64_t off)
{
    while ((size_t)pos + 61 <= len) {
        int64_t last = be64(log + pos) + (int32_t)be32(log + pos + 23);
        if (last == off)
            return pos;
        if (last > off)
            return -1;
        pos += 12 + (int64_t)be32(log + pos + 8);
    }
    return -1;
}

static void verify_segment(vstate *v, int64_t base)
{
    char path[4200];
    seg_path(path, sizeof path, v->dir, base, ".log");
    size_t len;
    uint8_t *log = tool_read_file(path, &len);
    if (!log) {
        vbad(v, "cannot read", path, 0);
        return;
    }
    size_t pos = 0;
    int64_t max_ts = -1;
    while (pos < len) {
        size_t size;
        logrep_err err = logrep_batch_verify(log + pos, len - pos, &size);
        if (err) {
            vbad(v, "invalid batch at position", path, (long long)pos);
            break;
        }
        logrep_batch_header h;
        logrep_batch_header_parse(log + pos, size, &h);
        if (h.base_offset < v->next || h.base_offset < base)
            vbad(v, "offsets go backwards at position", path, (long long)pos);
        v->next = logrep_batch_last_offset(&h) + 1;
        if (h.max_timestamp > max_ts)
            max_ts = h.max_timestamp;
        pos += size;
    }
    size_t ilen;
    seg_path(path, sizeof path, v->dir, base, ".index");
    uint8_t *idx = tool_read_file(path, &ilen);
    if (!idx) {
        vbad(v, "missing", path, 0);
    } else {
        if (ilen % 8)
            vbad(v, "size not a multiple of 8", path, (long long)ilen);
        int64_t prev = -1, ppos = 0;
        for (size_t i = 0; i + 8 <= ilen; i += 8) {
            int64_t off = base + (int32_t)be32(idx + i);
            int64_t p = be32(idx + i + 4);
            if (off <= prev || p < ppos || batch_pos_for(log, pos, p, off) != p) {
                vbad(v, "entry does not point at its batch", path, (long long)(i / 8));
                break;
            }
            prev = off;
            ppos = p;
        }
        free(idx);
    }
    seg_path(path, sizeof path, v->dir, base, ".timeindex");
    uint8_t *ti = tool_read_file(path, &ilen);
    if (ti) {
        if (ilen % 12)
            vbad(v, "size not a multiple of 12", path, (long long)ilen);
        int64_t pts = -1, poff = base - 1;
        for (size_t i = 0; i + 12 <= ilen; i += 12) {
            int64_t ts = be64(ti + i), off = base + (int32_t)be32(ti + i + 8);
            if (ts <= pts || off < poff || off >= v->next || ts > max_ts) {
                vbad(v, "entry out of order or beyond the data", path, (long long)(i / 12));
                break;
            }
            pts = ts;
            poff = off;
        }
        free(ti);
    }
    free(log);
}

static void verify_epochs(vstate *v)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/leader-epoch-checkpoint", v->dir);
    size_t len;
    char *text = (char *)tool_read_file(path, &len);
    if (!text)
        return;
    char *t = realloc(text, len + 1);
    if (!t) {
        free(text);
        return;
    }
    text = t;
    text[len] = 0;
    long long version, count, e, s, pe = -1, ps = -1;
    int used = 0;
    if (len && (sscanf(text, "%lld %lld%n", &version, &count, &used) != 2 || version != 0)) {
        vbad(v, "bad header", path, 0);
    } else if (len) {
        char *p = text + used;
        for (long long i = 0; i < count; i++) {
            if (sscanf(p, "%lld %lld%n", &e, &s, &used) != 2 || e <= pe || s < ps || s < 0) {
                vbad(v, "bad entry", path, i);
                break;
            }
            if (s > v->next)
                vbad(v, "epoch start beyond the log end:", path, s);
            p += used;
            pe = e;
            ps = s;
        }
    }
    free(text);
}

/* Replays a metadata log directory (the controller's __cluster_metadata-0)
 * into an image, reading the files only; NULL when it cannot be read. */
static lr_md_image *load_metadata(const char *mddir)
{
    seglist sl;
    if (list_segments(mddir, &sl))
        return NULL;
    lr_md_image *img = lr_md_new(NULL);
    logrep_batch_reader *r = NULL;
    if (!img || logrep_batch_reader_new(NULL, &r)) {
        lr_md_free(img);
        free(sl.base);
        return NULL;
    }
    for (size_t i = 0; i < sl.n; i++) {
        char path[4400];
        seg_path(path, sizeof path, mddir, sl.base[i], ".log");
        size_t len, pos = 0;
        uint8_t *log = tool_read_file(path, &len);
        logrep_batch_header h;
        while (log && pos < len && logrep_batch_reader_open(r, log + pos, len - pos, &h) == LOGREP_OK) {
            logrep_record rec;
            while (!(h.attributes & LOGREP_ATTR_CONTROL) && logrep_batch_reader_next(r, &rec) == LOGREP_OK)
                if (rec.value_len > 0)
                    lr_md_apply_bytes(img, rec.value, (size_t)rec.value_len);
            pos += (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
        }
        free(log);
    }
    logrep_batch_reader_free(r);
    free(sl.base);
    return img;
}

/* partition.metadata's topic id against the metadata's for the topic the
 * directory is named after (KIP-516: a mismatch is a stray directory). */
static void verify_topic_id(vstate *v, const lr_md_image *img)
{
    const char *base = strrchr(v->dir, '/');
    base = base ? base + 1 : v->dir;
    const char *dash = strrchr(base, '-');
    if (!dash || dash == base || !dash[1] || strspn(dash + 1, "0123456789") != strlen(dash + 1))
        return; /* not a live partition's name (retired, or not a partition) */
    char topic[LR_MD_MAX_TOPIC_NAME + 1];
    size_t tl = (size_t)(dash - base);
    if (tl > LR_MD_MAX_TOPIC_NAME)
        return;
    memcpy(topic, base, tl);
    topic[tl] = 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/partition.metadata", v->dir);
    size_t len;
    char *text = (char *)tool_read_file(path, &len);
    const lr_md_topic *t = lr_md_topic_by_name(img, topic);
    char want[23] = "";
    if (t)
        lr_uuid_to_str(t->id, want);
    const char *id = NULL;
    for (size_t i = 0; text && i + 10 <= len; i++)
        if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, "topic_id: ", 10) == 0) {
            id = text + i + 10;
            break;
        }
    size_t idlen = id ? strcspn(id, "\n") : 0;
    if (id && id + idlen > text + len)
        idlen = (size_t)(text + len - id);
    if (!t) {
        printf("INCONSISTENT %s: topic %s is not in the metadata (a stray directory)\n", v->dir, topic);
        v->bad = 1;
    } else if (id && (idlen != strlen(want) || memcmp(id, want, idlen) != 0)) {
        printf("INCONSISTENT %s: topic id %.*s, the metadata has %s for %s (a stray directory)\n",
               path, (int)(idlen > 64 ? 64 : idlen), id, want, topic);
        v->bad = 1;
    }
    free(text);
}

/* The cleaner's progress as its checkpoint and the segment sizes tell it
 * (the same split logrep_log_cleaner_info() makes): segments wholly below
 * the first dirty offset are clean, the other closed ones dirty. */
static void verify_cleaner(const vstate *v, const seglist *sl)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/cleaner-offset-checkpoint", v->dir);
    size_t len;
    uint8_t *text = tool_read_file(path, &len);
    long long first_dirty = -1;
    int present = text != NULL;
    if (text) {
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line - 1 ? len : sizeof line - 1),
                 (const char *)text);
        char *last = strrchr(line, ' ');
        if (strncmp(line, "0\n1\n", 4) == 0 && last)
            first_dirty = strtoll(last + 1, NULL, 10);
        free(text);
    }
    if (first_dirty < 0) {
        printf("cleaner: %s\n", present ? "cleaner-offset-checkpoint unreadable" : "never ran here");
        return;
    }
    uint64_t clean = 0, dirty = 0;
    for (size_t i = 0; i + 1 < sl->n; i++) {
        struct stat sb;
        seg_path(path, sizeof path, v->dir, sl->base[i], ".log");
        uint64_t size = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
        if (sl->base[i + 1] <= first_dirty)
            clean += size;
        else
            dirty += size;
    }
    printf("cleaner: first dirty offset %lld, clean %llu bytes, dirty %llu bytes, dirty ratio %.3f\n",
           first_dirty, (unsigned long long)clean, (unsigned long long)dirty,
           clean + dirty ? (double)dirty / (double)(clean + dirty) : 0.0);
}

int cmd_verify(int argc, char **argv)
{
    const char *mddir = NULL;
    if (argc == 4 && strcmp(argv[1], "--metadata") == 0) {
        mddir = argv[2];
        argv += 2;
        argc -= 2;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: logrep verify [--metadata METADATA_DIR] DIR\n");
        return 2;
    }
    seglist sl;
    int rc = list_segments(argv[1], &sl);
    if (rc)
        return rc;
    vstate v = {argv[1], 0, 0};
    for (size_t i = 0; i < sl.n; i++)
        verify_segment(&v, sl.base[i]);
    verify_epochs(&v);
    verify_cleaner(&v, &sl);
    /* A controller's log dir holds the metadata log beside the partitions. */
    char sibling[4200];
    if (!mddir) {
        const char *slash = strrchr(argv[1], '/');
        int dl = slash ? (int)(slash - argv[1]) : 1;
        snprintf(sibling, sizeof sibling, "%.*s/%s-0", dl, slash ? argv[1] : ".", LR_MD_METADATA_TOPIC);
        DIR *d = strstr(argv[1], LR_MD_METADATA_TOPIC) ? NULL : opendir(sibling);
        if (d) {
            closedir(d);
            mddir = sibling;
        }
    }
    lr_md_image *img = mddir ? load_metadata(mddir) : NULL;
    if (mddir && !img) {
        fprintf(stderr, "logrep: %s: cannot read the metadata log\n", mddir);
        free(sl.base);
        return 2;
    }
    if (img)
        verify_topic_id(&v, img);
    lr_md_free(img);
    printf("%s: %zu segments, log end offset %lld: %s\n", argv[1], sl.n, (long long)v.next,
           v.bad ? "INCONSISTENT" : "ok");
    free(sl.base);
    return v.bad ? 1 : 0;
}

/* ---- dump DIR ---- */

static void dump_indexes(const char *dir, int64_t base)
{
    char path[4200];
    size_t len;
    seg_path(path, sizeof path, dir, base, ".index");
    uint8_t *b = tool_read_file(path, &len);
    printf("Dumping %s\n", path);
    for (size_t i = 0; b && i + 8 <= len; i += 8)
        printf("offset: %" PRId64 " position: %u\n", base + (int32_t)be32(b + i), be32(b + i + 4));
    free(b);
    seg_path(path, sizeof path, dir, base, ".timeindex");
    b = tool_read_file(path, &len);
    printf("Dumping %s\n", path);
    for (size_t i = 0; b && i + 12 <= len; i += 12)
        printf("timestamp: %" PRId64 " offset: %" PRId64 "\n", be64(b + i),
               base + (int32_t)be32(b + i + 8));
    free(b);
}

int cmd_dump_dir(int argc, char **argv)
{
    const char *dir = argv[argc - 1];
    int indexes = 0;
    char **sub = malloc(sizeof *sub * (size_t)(argc + 1));
    if (!sub)
        return 2;
    int k = 0;
    sub[k++] = argv[0];
    for (int i = 1; i < argc - 1; i++) {
        if (strcmp(argv[i], "--indexes") == 0)
            indexes = 1;
        else
            sub[k++] = argv[i];
    }
    seglist sl;
    int rc = list_segments(dir, &sl);
    for (size_t i = 0; !rc && i < sl.n; i++) {
        char path[4200];
        seg_path(path, sizeof path, dir, sl.base[i], ".log");
        sub[k] = path;
        int one = cmd_dump(k + 1, sub);
        if (one > rc)
            rc = one;
        if (indexes)
            dump_indexes(dir, sl.base[i]);
    }
    if (indexes) {
        char path[4200];
        size_t len;
        snprintf(path, sizeof path, "%s/leader-epoch-checkpoint", dir);
        uint8_t *b = tool_read_file(path, &len);
        if (b) {
            printf("Dumping %s\n%.*s", path, (int)len, (const char *)b);
            free(b);
        }
    }
    free(sl.base);
    free(sub);
    return rc;
}
