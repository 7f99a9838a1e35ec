/* The POSIX storage's bounded descriptor pool (docs/storage.md, "Open
 * files"): clean files closed and reopened under a tiny cap, dirty and
 * file_fd files never closed, renames and removals of closed files, reopen
 * failures, a log of many segments, and a node hosting thousands of
 * partitions under a lowered RLIMIT_NOFILE. */
#include "log_testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/net_testutil.h"

/* A scratch directory, on tmpfs when there is one (fsync is free there). */
static void scratch(char *dir, size_t size)
{
    struct stat st;
    snprintf(dir, size, "%s/logrep-pool-XXXXXX", stat("/dev/shm", &st) == 0 ? "/dev/shm" : "/tmp");
    cr_assert_not_null(mkdtemp(dir));
}

static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[1024];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            rm_tree(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static logrep_storage *pool_new(int cap)
{
    logrep_conf *c = logrep_conf_new();
    char v[16];
    snprintf(v, sizeof v, "%d", cap);
    cr_assert_eq(logrep_conf_set(c, "logrep.max.open.files", v, NULL, 0), 0);
    logrep_storage *st;
    cr_assert_eq(logrep_storage_posix_new(c, &st), 0);
    logrep_conf_free(c);
    return st;
}

static logrep_storage_fd_stats stats(const logrep_storage *st)
{
    logrep_storage_fd_stats s;
    cr_assert_eq(logrep_storage_posix_fd_stats(st, &s), 0);
    return s;
}

static logrep_file *mk(logrep_storage *st, const char *dir, const char *name, const char *data,
                       int sync)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    logrep_file *f;
    cr_assert_eq(st->open(st->ctx, path, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &f), 0, "%s", path);
    cr_assert_eq(st->write(st->ctx, f, 0, data, strlen(data)), 0);
    if (sync)
        cr_assert_eq(st->sync(st->ctx, f), 0);
    return f;
}

static void expect(logrep_storage *st, logrep_file *f, const char *data)
{
    char buf[128];
    size_t n;
    cr_assert_eq(st->read(st->ctx, f, 0, buf, sizeof buf, &n), 0);
    cr_assert_eq(n, strlen(data), "%zu bytes, want '%s'", n, data);
    cr_assert_eq(memcmp(buf, data, n), 0, "'%.*s', want '%s'", (int)n, buf, data);
    uint64_t size;
    cr_assert_eq(st->size(st->ctx, f, &size), 0);
    cr_assert_eq(size, strlen(data));
}

/* Whether the pool has the file's descriptor closed now. */
static int closed(const logrep_storage *st, const logrep_file *f)
{
    int fd;
    return logrep_storage_posix_peek_fd(st, f, &fd) == LOGREP_ERR__UNSUPPORTED;
}

/* expect(), the contents being prefix followed by i. */
static void expect_n(logrep_storage *st, logrep_file *f, const char *prefix, int i)
{
    char data[32];
    snprintf(data, sizeof data, "%s%d", prefix, i);
    expect(st, f, data);
}

/* Closes the files, checks the pool let go of every descriptor, and
 * frees the storage and the directory. */
static void done(logrep_storage *st, logrep_file *const *f, size_t n, const char *dir)
{
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(st->close(st->ctx, f[i]), 0);
    logrep_storage_fd_stats s = stats(st);
    cr_assert_eq(s.open, 0);
    cr_assert_eq(s.held, 0);
    logrep_storage_free(st);
    rm_tree(dir);
}

Test(pool, clean_files_are_closed_and_reopened)
{
    char dir[64], name[16], data[32];
    scratch(dir, sizeof dir);
    logrep_storage *st = pool_new(3);
    logrep_file *f[20];
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "f%d", i);
        snprintf(data, sizeof data, "data of %d", i);
        f[i] = mk(st, dir, name, data, 1);
        cr_assert_leq(stats(st).open, 3);
    }
    logrep_storage_fd_stats s = stats(st);
    cr_assert_eq(s.max_open, 3);
    cr_assert_eq(s.evictions, 17);
    cr_assert_eq(s.over_cap, 0);
    cr_assert_eq(s.reopens, 0);
    for (int i = 0; i < 20; i++) {
        cr_assert(i >= 17 || closed(st, f[i]), "f%d open", i);
        expect_n(st, f[i], "data of ", i);
        cr_assert_leq(stats(st).open, 3);
    }
    cr_assert_geq(stats(st).reopens, 17);
    /* A reopen neither creates nor truncates: appends land after the data. */
    cr_assert_eq(st->write(st->ctx, f[0], 9, "+", 1), 0);
    cr_assert_eq(st->sync(st->ctx, f[0]), 0);
    for (int i = 1; i < 8; i++)
        expect_n(st, f[i], "data of ", i);
    cr_assert(closed(st, f[0]));
    expect(st, f[0], "data of 0+");
    cr_assert_eq(st->truncate(st->ctx, f[0], 4), 0);
    cr_assert_eq(st->sync(st->ctx, f[0]), 0);
    expect(st, f[0], "data");
    /* Syncing a closed (so clean) file needs no descriptor. */
    uint64_t reopens = stats(st).reopens;
    cr_assert(closed(st, f[9]));
    cr_assert_eq(st->sync(st->ctx, f[9]), 0);
    cr_assert_eq(stats(st).reopens, reopens);
    done(st, f, 20, dir);
}

/* Written and not synced: never closed, however far over the cap. */
Test(pool, dirty_files_stay_open)
{
    char dir[64], name[16], data[32];
    scratch(dir, sizeof dir);
    logrep_storage *st = pool_new(2);
    logrep_file *f[8];
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "d%d", i);
        snprintf(data, sizeof data, "dirty %d", i);
        f[i] = mk(st, dir, name, data, 0);
    }
    logrep_storage_fd_stats s = stats(st);
    cr_assert_eq(s.open, 8);
    cr_assert_eq(s.evictions, 0);
    cr_assert_eq(s.over_cap, 6, "%llu", (unsigned long long)s.over_cap);
    /* A truncate dirties as a write does. */
    cr_assert_eq(st->sync(st->ctx, f[0]), 0);
    cr_assert_eq(st->truncate(st->ctx, f[0], 5), 0);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(st->sync(st->ctx, f[i]), 0);
    /* All clean now: the next open brings the pool back under its cap. */
    logrep_file *g = mk(st, dir, "g", "g", 1);
    cr_assert_leq(stats(st).open, 2);
    cr_assert_eq(stats(st).evictions, 7);
    expect(st, f[0], "dirty");
    for (int i = 1; i < 8; i++)
        expect_n(st, f[i], "dirty ", i);
    st->close(st->ctx, g);
    done(st, f, 8, dir);
}

/* Renames and removals through the storage of files the pool has closed:
 * each handle keeps the file it had, as an open descriptor would. */
Test(pool, rename_and_remove_of_closed_files)
{
    char dir[64], path[512], path2[512];
    scratch(dir, sizeof dir);
    logrep_storage *st = pool_new(2);
    logrep_file *a = mk(st, dir, "a", "AAA", 1);
    logrep_file *x = mk(st, dir, "x", "XXX", 1);
    logrep_file *t = mk(st, dir, "t", "TTT", 1);
    logrep_file *s = mk(st, dir, "s", "SSS", 1);
    cr_assert(closed(st, a) && closed(st, x));
    /* A file renamed while closed reopens under its new name. */
    snprintf(path, sizeof path, "%s/a", dir);
    snprintf(path2, sizeof path2, "%s/a.deleted", dir);
    cr_assert_eq(st->rename(st->ctx, path, path2), 0);
    expect(st, a, "AAA");
    /* Removed while closed: still readable (reopened before the unlink),
     * and never closed again. */
    snprintf(path, sizeof path, "%s/x", dir);
    cr_assert_eq(st->remove(st->ctx, path), 0);
    cr_assert_eq(access(path, F_OK), -1);
    cr_assert_eq(stats(st).held, 1);
    logrep_file *y = mk(st, dir, "y", "Y", 1), *z = mk(st, dir, "z", "Z", 1);
    expect(st, x, "XXX");
    /* s renamed over t: t's handle keeps the replaced file, s follows. */
    snprintf(path, sizeof path, "%s/s", dir);
    snprintf(path2, sizeof path2, "%s/t", dir);
    cr_assert_eq(st->rename(st->ctx, path, path2), 0);
    logrep_file *w = mk(st, dir, "w", "W", 1), *v = mk(st, dir, "v", "V", 1);
    expect(st, t, "TTT");
    expect(st, s, "SSS");
    logrep_file *fresh;
    cr_assert_eq(st->open(st->ctx, path2, LOGREP_OPEN_READ, &fresh), 0);
    expect(st, fresh, "SSS");
    st->close(st->ctx, fresh);
    /* A failed rename moves nothing. */
    snprintf(path, sizeof path, "%s/nope", dir);
    cr_assert_eq(st->rename(st->ctx, path, path2), LOGREP_ERR__NOENT);
    expect(st, s, "SSS");
    logrep_file *all[] = {a, x, t, s, y, z, w, v};
    done(st, all, sizeof all / sizeof *all, dir);
}

/* A directory renamed (a partition retired) takes its closed files along. */
Test(pool, directory_rename_moves_closed_files)
{
    char dir[64], sub[128], sub2[128];
    scratch(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/p-0", dir);
    snprintf(sub2, sizeof sub2, "%s/p-0.x-delete", dir);
    logrep_storage *st = pool_new(1);
    cr_assert_eq(st->mkdir(st->ctx, sub), 0);
    logrep_file *f1 = mk(st, sub, "1.log", "one", 1), *f2 = mk(st, sub, "2.log", "two", 1);
    logrep_file *o = mk(st, dir, "p-00", "other", 1); /* a prefix, not below it */
    cr_assert_eq(st->rename(st->ctx, sub, sub2), 0);
    expect(st, f1, "one");
    expect(st, f2, "two");
    expect(st, o, "other");
    char path[256];
    snprintf(path, sizeof path, "%s/p-00", dir);
    cr_assert_eq(access(path, F_OK), 0);
    logrep_file *all[] = {f1, f2, o};
    done(st, all, 3, dir);
}

/* Removed or replaced behind the storage's back while closed: the next
 * call fails with an I/O error and the errno, and never reads another
 * file's bytes. */
Test(pool, reopen_failure_is_an_io_error)
{
    char dir[64], path[512], other[512];
    scratch(dir, sizeof dir);
    logrep_storage *st = pool_new(1);
    logrep_file *a = mk(st, dir, "a", "AAA", 1);
    logrep_file *b = mk(st, dir, "b", "BBB", 1);
    snprintf(path, sizeof path, "%s/a", dir);
    cr_assert_eq(unlink(path), 0);
    char buf[8];
    size_t n;
    uint64_t size;
    cr_assert_eq(st->read(st->ctx, a, 0, buf, sizeof buf, &n), LOGREP_ERR__IO);
    cr_assert_eq(st->last_errno(st->ctx), ENOENT);
    cr_assert_eq(st->size(st->ctx, a, &size), LOGREP_ERR__IO);
    cr_assert_eq(st->write(st->ctx, a, 0, "x", 1), LOGREP_ERR__IO);
    cr_assert_eq(st->truncate(st->ctx, a, 0), LOGREP_ERR__IO);
    int fd;
    cr_assert_eq(st->file_fd(st->ctx, a, &fd), LOGREP_ERR__IO);
    cr_assert_eq(access(path, F_OK), -1, "a reopen created the file");
    /* A failed reopen closes nothing: b is still open. */
    cr_assert_not(closed(st, b));
    /* Another file put under b's name, b closed meanwhile. */
    logrep_file *c = mk(st, dir, "c", "CCC", 1);
    cr_assert(closed(st, b));
    snprintf(path, sizeof path, "%s/b", dir);
    snprintf(other, sizeof other, "%s/other", dir);
    FILE *o = fopen(other, "w");
    cr_assert_not_null(o);
    fputs("OTHER", o);
    fclose(o);
    cr_assert_eq(rename(other, path), 0);
    cr_assert_eq(st->read(st->ctx, b, 0, buf, sizeof buf, &n), LOGREP_ERR__IO);
    cr_assert_eq(st->last_errno(st->ctx), ESTALE);
    expect(st, c, "CCC");
    logrep_file *all[] = {a, b, c};
    done(st, all, 3, dir);
}

/* file_fd's descriptor stays valid until close; peeking does not pin. */
Test(pool, file_fd_pins_and_peek_does_not)
{
    char dir[64];
    scratch(dir, sizeof dir);
    logrep_storage *st = pool_new(1);
    logrep_file *a = mk(st, dir, "a", "AAA", 1);
    int fd = -1, pfd = -1;
    cr_assert_eq(logrep_storage_posix_peek_fd(st, a, &pfd), 0);
    cr_assert_eq(st->file_fd(st->ctx, a, &fd), 0);
    cr_assert_eq(pfd, fd);
    logrep_file *b = mk(st, dir, "b", "BBB", 1), *c = mk(st, dir, "c", "CCC", 1);
    logrep_storage_fd_stats s = stats(st);
    cr_assert_eq(s.held, 1);
    cr_assert_geq(s.over_cap, 1);
    char buf[4];
    cr_assert_eq(pread(fd, buf, 3, 0), 3);
    cr_assert_eq(memcmp(buf, "AAA", 3), 0);
    /* b was closed for c: peek says so and does not reopen it. */
    cr_assert_eq(logrep_storage_posix_peek_fd(st, b, &pfd), LOGREP_ERR__UNSUPPORTED);
    cr_assert(closed(st, b), "peek reopened b");
    cr_assert_eq(logrep_storage_posix_peek_fd(NULL, b, &pfd), LOGREP_ERR__INVALID_ARG);
    logrep_storage *mem;
    cr_assert_eq(logrep_storage_memory_new(NULL, &mem), 0);
    cr_assert_eq(logrep_storage_posix_peek_fd(mem, b, &pfd), LOGREP_ERR__INVALID_ARG);
    logrep_storage_fd_stats ms;
    cr_assert_eq(logrep_storage_posix_fd_stats(mem, &ms), LOGREP_ERR__INVALID_ARG);
    logrep_storage_free(mem);
    logrep_file *all[] = {a, b, c};
    done(st, all, 3, dir);
}

/* An allocator that fails once `left` reaches 0 (-1: never), and checks
 * that every free names the size allocated. */
typedef struct falloc {
    long left, live;
} falloc;

static void *fa_alloc(void *ctx, size_t size)
{
    falloc *a = ctx;
    if (a->left == 0)
        return NULL;
    if (a->left > 0)
        a->left--;
    size_t *p = malloc(sizeof(size_t) + size);
    *p = size;
    a->live++;
    return p + 1;
}

static void *fa_realloc(void *ctx, void *p, size_t old_size, size_t new_size)
{
    void *q = fa_alloc(ctx, new_size);
    if (q && p) {
        cr_assert_eq(((size_t *)p)[-1], old_size);
        memcpy(q, p, old_size < new_size ? old_size : new_size);
        ((falloc *)ctx)->live--;
        free((size_t *)p - 1);
    }
    return q;
}

static void fa_free(void *ctx, void *p, size_t size)
{
    if (!p)
        return;
    cr_assert_eq(((size_t *)p)[-1], size, "freed %zu of %zu", size, ((size_t *)p)[-1]);
    ((falloc *)ctx)->live--;
    free((size_t *)p - 1);
}

/* Out of memory: open and rename fail with __NOMEM and change nothing;
 * every allocation is freed with its size. */
Test(pool, out_of_memory_changes_nothing)
{
    char dir[64], sub[128], sub2[128], path[256];
    scratch(dir, sizeof dir);
    falloc fa = {-1, 0};
    logrep_allocator a = {&fa, fa_alloc, fa_realloc, fa_free};
    logrep_conf *c = logrep_conf_new();
    cr_assert_eq(logrep_conf_set_allocator(c, &a), 0);
    cr_assert_eq(logrep_conf_set(c, "logrep.max.open.files", "1", NULL, 0), 0);
    logrep_storage *st;
    cr_assert_eq(logrep_storage_posix_new(c, &st), 0);
    logrep_conf_free(c);
    snprintf(sub, sizeof sub, "%s/d", dir);
    snprintf(sub2, sizeof sub2, "%s/e", dir);
    cr_assert_eq(st->mkdir(st->ctx, sub), 0);
    logrep_file *f[40];
    char name[16];
    for (int i = 0; i < 40; i++) { /* enough to grow the path table */
        snprintf(name, sizeof name, "f%d", i);
        f[i] = mk(st, sub, name, name, 1);
    }
    snprintf(path, sizeof path, "%s/new", dir);
    for (long k = 0; k < 2; k++) { /* the handle, its path */
        fa.left = k;
        logrep_file *g;
        cr_assert_eq(st->open(st->ctx, path, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &g),
                     LOGREP_ERR__NOMEM);
        cr_assert_eq(access(path, F_OK), -1, "created without a handle");
    }
    for (long k = 0; k < 6; k++) { /* two arrays, then each new path */
        fa.left = k;
        cr_assert_eq(st->rename(st->ctx, sub, sub2), LOGREP_ERR__NOMEM, "allocation %ld", k);
        cr_assert_eq(access(sub, F_OK), 0, "renamed while the handles could not follow");
        cr_assert_eq(fa.left, 0);
    }
    fa.left = -1;
    cr_assert_eq(stats(st).open, 1);
    cr_assert_eq(st->rename(st->ctx, sub, sub2), 0);
    for (int i = 0; i < 40; i++)
        expect_n(st, f[i], "f", i);
    done(st, f, 40, dir);
    cr_assert_eq(fa.live, 0);
}

/* The default cap is half the soft RLIMIT_NOFILE; running out of
 * descriptors below the cap closes a clean file and tries again. */
Test(pool, default_cap_and_out_of_descriptors)
{
    struct rlimit old, low;
    cr_assert_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
    logrep_storage *st;
    cr_assert_eq(logrep_storage_posix_new(NULL, &st), 0);
    rlim_t want = old.rlim_cur == RLIM_INFINITY || old.rlim_cur > (rlim_t)2 << 20 ? (rlim_t)1 << 20
                                                                                  : old.rlim_cur / 2;
    cr_assert_eq(stats(st).max_open, (uint64_t)want);
    char dir[64], name[16];
    scratch(dir, sizeof dir);
    /* Room for about 20 more descriptors than are open now. */
    int used = 0;
    for (int fd = 0; fd < 4096; fd++)
        used += fcntl(fd, F_GETFD) != -1;
    low = old;
    low.rlim_cur = (rlim_t)used + 20;
    cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
    logrep_file *f[60];
    for (int i = 0; i < 60; i++) {
        snprintf(name, sizeof name, "e%d", i);
        f[i] = mk(st, dir, name, name, 1);
    }
    cr_assert_gt(stats(st).evictions, 0);
    for (int i = 0; i < 60; i++)
        expect_n(st, f[i], "e", i);
    /* Dirty files cannot be given back: the limit then shows. */
    logrep_file *d[60];
    int opened = 0;
    logrep_err err = 0;
    for (; opened < 60; opened++) {
        char path[512];
        snprintf(path, sizeof path, "%s/dirty%d", dir, opened);
        if ((err = st->open(st->ctx, path, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &d[opened])))
            break;
        cr_assert_eq(st->write(st->ctx, d[opened], 0, "x", 1), 0);
    }
    cr_assert_lt(opened, 60);
    cr_assert_eq(err, LOGREP_ERR__IO);
    cr_assert_eq(st->last_errno(st->ctx), EMFILE);
    for (int i = 0; i < opened; i++)
        st->close(st->ctx, d[i]);
    cr_assert_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
    done(st, f, 60, dir);
}

/* A log of many segments over a pool of 4: appends, recovery after an
 * unclean stop and a clean reopen read every batch back. */
Test(pool, log_of_many_segments_over_a_tiny_pool, .timeout = 60)
{
    char dir[64], ldir[128];
    scratch(dir, sizeof dir);
    snprintf(ldir, sizeof ldir, "%s/t-0", dir);
    logrep_storage *st = pool_new(4);
    logrep_conf *c = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(c, "segment.bytes", "2048", NULL, 0), 0);
    cr_assert_eq(logrep_conf_set(c, "index.interval.bytes", "100", NULL, 0), 0);
    logrep_log *log;
    cr_assert_eq(logrep_log_open(c, st, ldir, 1000, &log), 0);
    for (int i = 0; i < 300; i++)
        lt_append(log, 3, 40, 1000 + i, 0);
    cr_assert_gt(logrep_log_segment_count(log), 20);
    cr_assert_eq(lt_check_log(log, st), 300);
    cr_assert_eq(logrep_log_flush(log, 2000), 0);
    /* More, unflushed, then an unclean stop: recovery scans them. */
    for (int i = 0; i < 100; i++)
        lt_append(log, 2, 40, 5000 + i, 0);
    int64_t end = logrep_log_end_offset(log);
    logrep_log_abandon(log);
    cr_assert_eq(stats(st).open, 0);
    cr_assert_eq(logrep_log_open(c, st, ldir, 3000, &log), 0);
    cr_assert_eq(logrep_log_end_offset(log), end);
    cr_assert_eq(lt_check_log(log, st), 400);
    /* Recovery rewrote indexes (dirty until flushed); flushed, reading
     * everything again keeps the pool at its cap. */
    cr_assert_eq(logrep_log_flush(log, 3000), 0);
    cr_assert_eq(lt_check_log(log, st), 400);
    cr_assert_leq(stats(st).open, 4);
    cr_assert_eq(logrep_log_close(log), 0);
    cr_assert_eq(logrep_log_open(c, st, ldir, 4000, &log), 0);
    cr_assert_eq(lt_check_log(log, st), 400);
    cr_assert_eq(logrep_log_close(log), 0);
    logrep_storage_fd_stats s = stats(st);
    cr_assert_eq(s.open, 0);
    cr_assert_gt(s.evictions, 50);
    cr_assert_gt(s.reopens, 50);
    logrep_conf_free(c);
    logrep_storage_free(st);
    rm_tree(dir);
}

static int open_descriptors(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n - 3; /* ".", ".." and the listing's own */
}

/* One node on POSIX files with RLIMIT_NOFILE at 512 (so a pool of 256):
 * a topic of 3000 partitions (9000 files) is created and opened, and
 * produce and fetch (file segments, as a sendfile host gets them) work on
 * partitions opened first, last and in between. */
Test(pool, node_hosts_thousands_of_partitions_under_a_low_rlimit, .timeout = 60)
{
    char dir[64], cwd[1024];
    scratch(dir, sizeof dir);
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(chdir(dir), 0); /* the harness's log.dirs is "data" */
    struct rlimit old, low;
    cr_assert_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
    low = old;
    low.rlim_cur = 512;
    cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
    net w;
    memset(&w, 0, sizeof w);
    w.n = 1;
    w.now = 1000;
    cr_assert_eq(logrep_storage_posix_new(NULL, &w.st[1]), 0);
    cr_assert_eq(stats(w.st[1]).max_open, 256);
    start_node(&w, 1);
    run(&w, 1000);
    create_topic(&w, 1, "wide", 3000, 1);
    for (int i = 0; i < 2000 && logrep_node_partition_count(w.node[1]) < 3000; i++)
        run(&w, 10);
    cr_assert_eq(logrep_node_partition_count(w.node[1]), 3000);
    static const int parts[] = {0, 1234, 2999};
    for (int k = 0; k < 3; k++) {
        int64_t base = -1;
        cr_assert_eq(produce(&w, 1, "wide", parts[k], "v0", -1, &base), 0, "partition %d", parts[k]);
        cr_assert_eq(base, 0);
        int64_t hw;
        cr_assert_eq(fetch_count(&w, 1, "wide", parts[k], 0, &hw), 1, "partition %d", parts[k]);
        cr_assert_eq(hw, 1);
    }
    logrep_storage_fd_stats s = stats(w.st[1]);
    cr_assert_leq(s.open, 256);
    cr_assert_gt(s.evictions, 8000);
    cr_assert_eq(s.over_cap, 0);
    cr_assert_geq(s.held, 3, "fetched segments keep their descriptor");
    int fds = open_descriptors();
    cr_assert_lt(fds, 300, "%d descriptors open", fds);
    logrep_node_stats ns;
    logrep_node_stats_get(w.node[1], &ns);
    cr_assert_eq(ns.offline_partitions, 0);
    teardown(&w);
    cr_assert_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
    cr_assert_eq(chdir(cwd), 0);
    rm_tree(dir);
}
