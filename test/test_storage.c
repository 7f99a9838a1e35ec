/* Storage backends: the vtable contract on POSIX and memory, and the crash
 * simulator's keep/drop/tear and fault injection. */
#include "log_testutil.h"

#include <errno.h>
#include <unistd.h>

static void sto_contract(logrep_storage *st, const char *dir)
{
    char path[512], path2[512];
    snprintf(path, sizeof path, "%s/a", dir);
    snprintf(path2, sizeof path2, "%s/b", dir);
    cr_assert_eq(st->version, LOGREP_STORAGE_VERSION);
    logrep_err err = st->mkdir(st->ctx, dir);
    cr_assert(err == 0 || err == LOGREP_ERR__EXISTS);
    cr_assert_eq(st->mkdir(st->ctx, dir), LOGREP_ERR__EXISTS);
    logrep_file *f;
    cr_assert_eq(st->open(st->ctx, path, LOGREP_OPEN_READ, &f), LOGREP_ERR__NOENT);
    cr_assert_eq(st->open(st->ctx, path, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &f), 0);
    cr_assert_eq(st->write(st->ctx, f, 0, "hello", 5), 0);
    cr_assert_eq(st->write(st->ctx, f, 8, "xy", 2), 0); /* gap reads as zeros */
    uint64_t size;
    cr_assert_eq(st->size(st->ctx, f, &size), 0);
    cr_assert_eq(size, 10);
    char buf[16];
    size_t n;
    cr_assert_eq(st->read(st->ctx, f, 3, buf, 16, &n), 0);
    cr_assert_eq(n, 7);
    cr_assert_eq(memcmp(buf, "lo\0\0\0xy", 7), 0);
    cr_assert_eq(st->read(st->ctx, f, 50, buf, 16, &n), 0);
    cr_assert_eq(n, 0);
    cr_assert_eq(st->sync(st->ctx, f), 0);
    cr_assert_eq(st->truncate(st->ctx, f, 4), 0);
    cr_assert_eq(st->size(st->ctx, f, &size), 0);
    cr_assert_eq(size, 4);
    cr_assert_eq(st->close(st->ctx, f), 0);
    logrep_file *g;
    cr_assert_eq(st->open(st->ctx, path, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE | LOGREP_OPEN_EXCL,
                          &g),
                 LOGREP_ERR__EXISTS);
    cr_assert_eq(st->rename(st->ctx, path, path2), 0);
    cr_assert_eq(st->open(st->ctx, path, LOGREP_OPEN_READ, &g), LOGREP_ERR__NOENT);
    if (st->sync_dir)
        cr_assert_eq(st->sync_dir(st->ctx, dir), 0);
    cr_assert_eq(st->remove(st->ctx, path2), 0);
    cr_assert_eq(st->remove(st->ctx, path2), LOGREP_ERR__NOENT);
}

static int sto_count(void *ctx, const char *name)
{
    (void)name;
    (*(int *)ctx)++;
    return 0;
}

static void sto_list(logrep_storage *st, const char *dir)
{
    char path[512];
    for (int i = 0; i < 3; i++) {
        logrep_file *f;
        snprintf(path, sizeof path, "%s/f%d", dir, i);
        cr_assert_eq(st->open(st->ctx, path, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &f), 0);
        st->close(st->ctx, f);
    }
    int n = 0;
    cr_assert_eq(st->list(st->ctx, dir, sto_count, &n), 0);
    cr_assert_eq(n, 3);
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/f%d", dir, i);
        cr_assert_eq(st->remove(st->ctx, path), 0);
    }
    cr_assert_eq(st->list(st->ctx, "no-such-dir-here", sto_count, &n), LOGREP_ERR__NOENT);
}

Test(storage, memory_contract)
{
    logrep_storage *st;
    cr_assert_eq(logrep_storage_memory_new(NULL, &st), 0);
    sto_contract(st, "m");
    sto_list(st, "m");
    logrep_storage_free(st);
}

Test(storage, posix_contract)
{
    char dir[] = "/tmp/logrep-storage-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(rmdir(dir), 0);
    logrep_storage *st;
    cr_assert_eq(logrep_storage_posix_new(NULL, &st), 0);
    sto_contract(st, dir);
    sto_list(st, dir);
    logrep_file *f;
    char path[512];
    snprintf(path, sizeof path, "%s/z", dir);
    cr_assert_eq(st->open(st->ctx, path, LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &f), 0);
    int fd = -1;
    cr_assert_eq(st->file_fd(st->ctx, f, &fd), 0);
    cr_assert_geq(fd, 0);
    st->close(st->ctx, f);
    st->remove(st->ctx, path);
    cr_assert_eq(st->open(st->ctx, "/nonexistent/x", LOGREP_OPEN_READ, &f), LOGREP_ERR__NOENT);
    cr_assert_neq(st->last_errno(st->ctx), 0);
    rmdir(dir);
    logrep_storage_free(st);
}

static logrep_file *sto_crash_file(logrep_storage **st)
{
    cr_assert_eq(logrep_storage_crash_new(NULL, 4, st), 0);
    logrep_file *f;
    cr_assert_eq((*st)->open((*st)->ctx, "f", LOGREP_OPEN_WRITE | LOGREP_OPEN_CREATE, &f), 0);
    cr_assert_eq((*st)->write((*st)->ctx, f, 0, "AAAAAAAA", 8), 0);
    cr_assert_eq((*st)->sync((*st)->ctx, f), 0);
    cr_assert_eq((*st)->write((*st)->ctx, f, 8, "BBBBBBBB", 8), 0);
    cr_assert_eq((*st)->write((*st)->ctx, f, 0, "CC", 2), 0);
    return f;
}

static size_t sto_content(logrep_storage *st, logrep_file *f, char *buf)
{
    size_t n;
    cr_assert_eq(st->read(st->ctx, f, 0, buf, 64, &n), 0);
    buf[n] = 0;
    return n;
}

Test(storage, crash_modes)
{
    logrep_storage *st;
    char buf[65];
    logrep_file *f = sto_crash_file(&st);
    cr_assert_eq(logrep_storage_crash_simulate(st, 1, LOGREP_CRASH_DROP_ALL), 0);
    cr_assert_eq(sto_content(st, f, buf), 8);
    cr_assert_str_eq(buf, "AAAAAAAA");
    st->close(st->ctx, f);
    logrep_storage_free(st);

    f = sto_crash_file(&st);
    cr_assert_eq(logrep_storage_crash_simulate(st, 1, LOGREP_CRASH_KEEP_ALL), 0);
    cr_assert_eq(sto_content(st, f, buf), 16);
    cr_assert_str_eq(buf, "CCAAAAAABBBBBBBB");
    st->close(st->ctx, f);
    logrep_storage_free(st);

    f = sto_crash_file(&st);
    size_t wl;
    cr_assert_eq(logrep_storage_crash_last_write(st, &wl), 0);
    cr_assert_eq(wl, 2);
    cr_assert_eq(logrep_storage_crash_tear_last(st, 1), 0);
    sto_content(st, f, buf);
    cr_assert_str_eq(buf, "CAAAAAAABBBBBBBB");
    cr_assert_eq(logrep_storage_crash_last_write(st, &wl), LOGREP_ERR__NOENT);
    st->close(st->ctx, f);
    logrep_storage_free(st);

    /* Random: every sector of the durable image either old or new. */
    for (uint64_t seed = 0; seed < 50; seed++) {
        f = sto_crash_file(&st);
        cr_assert_eq(logrep_storage_crash_simulate(st, seed, LOGREP_CRASH_RANDOM), 0);
        size_t n = sto_content(st, f, buf);
        cr_assert(n == 8 || n == 16);
        for (size_t s = 0; s < n; s += 4) {
            int old = memcmp(buf + s, s < 8 ? "AAAA" : "\0\0\0\0", 4) == 0;
            int new_ = memcmp(buf + s, s == 0 ? "CCAA" : (s < 8 ? "AAAA" : "BBBB"), 4) == 0;
            cr_assert(old || new_, "seed %llu sector %zu", (unsigned long long)seed, s);
        }
        st->close(st->ctx, f);
        logrep_storage_free(st);
    }
}

Test(storage, crash_injection_and_power_off)
{
    logrep_storage *st;
    logrep_file *f = sto_crash_file(&st);
    cr_assert_eq(logrep_storage_crash_inject(st, LOGREP_STORAGE_OP_WRITE, 2, LOGREP_ERR__NOSPACE, 0),
                 0);
    cr_assert_eq(st->write(st->ctx, f, 0, "x", 1), 0);
    cr_assert_eq(st->write(st->ctx, f, 0, "x", 1), LOGREP_ERR__NOSPACE);
    cr_assert_eq(st->last_errno(st->ctx), ENOSPC);
    cr_assert_eq(st->write(st->ctx, f, 0, "x", 1), 0); /* transient */
    cr_assert_eq(logrep_storage_crash_inject(st, LOGREP_STORAGE_OP_SYNC, 1, LOGREP_ERR__IO, 1), 0);
    cr_assert_eq(st->sync(st->ctx, f), LOGREP_ERR__IO);
    cr_assert_eq(st->sync(st->ctx, f), LOGREP_ERR__IO); /* persistent */
    cr_assert_eq(st->write(st->ctx, f, 0, "x", 1), 0);
    cr_assert_eq(logrep_storage_crash_inject(st, 0, 0, LOGREP_ERR__IO, 0), 0);
    cr_assert_eq(st->sync(st->ctx, f), 0);
    cr_assert_eq(logrep_storage_crash_after(st, 1), 0);
    cr_assert_eq(st->write(st->ctx, f, 0, "y", 1), 0);
    cr_assert_eq(st->write(st->ctx, f, 0, "z", 1), LOGREP_ERR__IO); /* stopped */
    char buf[4];
    size_t n;
    cr_assert_eq(st->read(st->ctx, f, 0, buf, 1, &n), LOGREP_ERR__IO);
    cr_assert_eq(logrep_storage_crash_simulate(st, 3, LOGREP_CRASH_DROP_ALL), 0);
    cr_assert_eq(st->read(st->ctx, f, 0, buf, 1, &n), 0);
    cr_assert_eq(buf[0], 'x');
    cr_assert_eq(logrep_storage_crash_inject(NULL, 1, 1, LOGREP_ERR__IO, 0), LOGREP_ERR__INVALID_ARG);
    st->close(st->ctx, f);
    logrep_storage_free(st);
}
