/*
 * liblogrep storage vtable and the backends shipped with the library.
 *
 * The log layer reaches the disk only through a logrep_storage: a versioned
 * table of file operations supplied by the host (or one of the backends
 * below). The library does no I/O of its own.
 *
 * Contract common to every method:
 *  - Every method takes the table's `ctx` first. Paths are NUL-terminated,
 *    '/'-separated, and passed exactly as the log builds them from the
 *    directory given to logrep_log_open() ("dir/00000000000000000000.log").
 *  - Methods return LOGREP_OK, LOGREP_ERR__IO (any I/O failure),
 *    LOGREP_ERR__NOSPACE (out of space or quota), LOGREP_ERR__NOENT (no such
 *    file or directory), LOGREP_ERR__EXISTS (exclusive create of an existing
 *    file), LOGREP_ERR__NOMEM. The OS error number of the last failure is
 *    kept by the backend and read with last_errno.
 *  - Every method may block (disk I/O); none is called from a callback.
 *  - A storage is used by one thread at a time, like every handle; the log
 *    never calls it concurrently. One storage may serve many logs.
 *  - Methods are only ever appended; a method present at `version` N is
 *    present in every later version. The log reads only the methods of the
 *    versions it knows, and refuses a table with `version` 0 or a NULL
 *    required method with LOGREP_ERR__UNSUPPORTED.
 */
#ifndef LOGREP_STORAGE_H
#define LOGREP_STORAGE_H

#include <logrep.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Version of the table described in this header. */
#define LOGREP_STORAGE_VERSION 1

/** An open file, defined by the backend. */
typedef struct logrep_file logrep_file;

/** open() flags. */
enum {
    LOGREP_OPEN_READ = 0,      /**< open an existing file read-only */
    LOGREP_OPEN_WRITE = 1,     /**< open an existing file read-write */
    LOGREP_OPEN_CREATE = 2,    /**< with WRITE: create when absent */
    LOGREP_OPEN_EXCL = 4       /**< with CREATE: fail with __EXISTS when present */
};

/** Directory listing callback: one call per entry name (not "." or
 *  ".."), in no particular order. `name` is valid during the call only.
 *  A non-zero return stops the listing and is returned by list(). */
typedef int (*logrep_list_fn)(void *ctx, const char *name);

typedef struct logrep_storage {
    /** LOGREP_STORAGE_VERSION of the header the table was written for. */
    uint32_t version;
    /** Passed first to every method. */
    void *ctx;

    /* ---- version 1 ---- */

    /** Opens `path` with LOGREP_OPEN_* flags. Required.
     *  @return LOGREP_OK, __NOENT, __EXISTS, __IO, __NOSPACE, __NOMEM. */
    logrep_err (*open)(void *ctx, const char *path, int flags, logrep_file **out);

    /** Closes a file; it is released even when an error is returned.
     *  Closing does not sync. Required. */
    logrep_err (*close)(void *ctx, logrep_file *f);

    /** Positional read of up to `len` bytes at `pos`. `*nread` receives
     *  the count: less than len only at end of file (0 at or past it).
     *  Required. @return LOGREP_OK or __IO. */
    logrep_err (*read)(void *ctx, logrep_file *f, uint64_t pos, void *buf,
                       size_t len, size_t *nread);

    /** Positional write of all `len` bytes at `pos`, extending the file
     *  (with zeros over any gap). Not durable until sync(). On failure any
     *  prefix of the bytes may have been written. Required.
     *  @return LOGREP_OK, __IO, __NOSPACE. */
    logrep_err (*write)(void *ctx, logrep_file *f, uint64_t pos,
                        const void *buf, size_t len);

    /** Makes the file's data and size durable (fdatasync). Required.
     *  @return LOGREP_OK or __IO. After a failed sync the durable state of
     *  the file is unknown; the log treats it as unflushed. */
    logrep_err (*sync)(void *ctx, logrep_file *f);

    /** Current size of the file in bytes. Required. @return LOGREP_OK, __IO. */
    logrep_err (*size)(void *ctx, logrep_file *f, uint64_t *out);

    /** Sets the file size (shrinks or zero-extends). Not durable until
     *  sync(). Required. @return LOGREP_OK, __IO, __NOSPACE. */
    logrep_err (*truncate)(void *ctx, logrep_file *f, uint64_t size);

    /** Atomically renames `from` over `to` (replacing it). The rename is
     *  durable once sync_dir() of the directory returned (immediately
     *  when sync_dir is NULL). Required. @return LOGREP_OK, __NOENT, __IO. */
    logrep_err (*rename)(void *ctx, const char *from, const char *to);

    /** Deletes a file or an empty directory. Required.
     *  @return LOGREP_OK, __NOENT, __IO. */
    logrep_err (*remove)(void *ctx, const char *path);

    /** Lists the entries of directory `path`. Required.
     *  @return LOGREP_OK, __NOENT, __IO, or the callback's non-zero value. */
    logrep_err (*list)(void *ctx, const char *path, logrep_list_fn fn, void *fn_ctx);

    /** Creates directory `path` (one level). Required.
     *  @return LOGREP_OK, __EXISTS, __NOENT (parent missing), __IO. */
    logrep_err (*mkdir)(void *ctx, const char *path);

    /** Makes creations, renames and removals in directory `path` durable
     *  (fsync of the directory). May be NULL when the backend's namespace
     *  operations are durable on return. @return LOGREP_OK or __IO. */
    logrep_err (*sync_dir)(void *ctx, const char *path);

    /** Zero-copy hint: a file descriptor from which a host may sendfile()
     *  the byte ranges the log returns for reads. Valid while the file is
     *  open (a backend that closes idle descriptors keeps this one). May be
     *  NULL, and may return __UNSUPPORTED per file; hosts then copy the
     *  bytes with read(). @return LOGREP_OK, __UNSUPPORTED, or __IO (the
     *  backend could not reopen the file). */
    logrep_err (*file_fd)(void *ctx, logrep_file *f, int *fd);

    /** Read-on-demand mapping of [pos, pos+len) of a file, for index
     *  lookups without copying. `*out` stays valid until unmap() with the
     *  same arguments and must not be written. May be NULL (the log then
     *  uses read()); may return __UNSUPPORTED for any call.
     *  @return LOGREP_OK, __UNSUPPORTED, __IO. */
    logrep_err (*map)(void *ctx, logrep_file *f, uint64_t pos, size_t len,
                      const void **out);
    /** Releases a mapping from map(). Required when map is set. */
    void (*unmap)(void *ctx, logrep_file *f, const void *p, uint64_t pos, size_t len);

    /** The OS error number (errno) of the last failed method, 0 when none
     *  or unknown. May be NULL. */
    int (*last_errno)(void *ctx);

    /** Releases the backend, called by logrep_storage_free(). Files must
     *  be closed first. May be NULL for host tables the host releases. */
    void (*destroy)(void *ctx);
} logrep_storage;

/** Frees a storage made by one of the constructors below (calls its
 *  destroy method, then releases the table). NULL is a no-op. Every log
 *  using it must be closed first. */
LOGREP_API void logrep_storage_free(logrep_storage *s);

/* ------------------------------------------------------------------------
 * Backends. Each constructor copies the allocator from conf (NULL: the
 * defaults) and returns a table owned by the caller, released with
 * logrep_storage_free().
 * ---------------------------------------------------------------------- */

/** POSIX files (open/pread/pwrite/fdatasync/rename, fsync of directories),
 *  the default. map is not provided.
 *
 *  Open files share a bounded pool of descriptors: at most
 *  `logrep.max.open.files` from conf (0, the default: half the soft
 *  RLIMIT_NOFILE at this call). Past it the least recently used clean file
 *  (nothing written or truncated since its last successful sync) has its
 *  descriptor closed, and reopened by the next call that needs it, without
 *  creating or truncating: a reopen that fails (the file was removed or
 *  replaced behind the storage's back) fails that call with
 *  LOGREP_ERR__IO, its errno in last_errno. A dirty file is never closed
 *  (closing could lose a writeback error), nor one whose descriptor
 *  file_fd handed out: file_fd's descriptor stays valid until close().
 *  The pool goes over its cap rather than close those, and counts it. A
 *  file renamed or removed through the storage while open keeps working
 *  as an open descriptor would (a renamed one follows its new name).
 *  Running out of descriptors (EMFILE) closes a clean file and retries.
 *  @return LOGREP_OK or LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_storage_posix_new(const logrep_conf *conf,
                                               logrep_storage **out);

/** Descriptor pool of a POSIX storage (logrep_storage_posix_fd_stats). */
typedef struct logrep_storage_fd_stats {
    uint64_t open;      /**< descriptors open now (files only) */
    uint64_t max_open;  /**< the pool's cap */
    uint64_t held;      /**< open files never closed by the pool: their
                             descriptor went out by file_fd, or they were
                             removed or replaced while open */
    uint64_t reopens;   /**< descriptors opened again after the pool closed them */
    uint64_t evictions; /**< clean files' descriptors closed by the pool */
    uint64_t over_cap;  /**< opens made at the cap because every open file
                             was dirty or held */
} logrep_storage_fd_stats;

/** The counters of a storage made by logrep_storage_posix_new(). Same
 *  thread rules as the storage. @return LOGREP_OK, or
 *  LOGREP_ERR__INVALID_ARG (NULL, or another kind of storage). */
LOGREP_API logrep_err logrep_storage_posix_fd_stats(const logrep_storage *s,
                                                    logrep_storage_fd_stats *out);

/** The descriptor of a POSIX storage's file for immediate use (a host's
 *  page-cache hints after a write), without pinning it as file_fd does:
 *  valid until the next call on the storage. Never reopens.
 *  @return LOGREP_OK; LOGREP_ERR__UNSUPPORTED when the pool has the file
 *  closed now; LOGREP_ERR__INVALID_ARG (NULL, or another kind of storage). */
LOGREP_API logrep_err logrep_storage_posix_peek_fd(const logrep_storage *s,
                                                   const logrep_file *f, int *fd);

/** A file system in memory. Nothing is durable beyond the storage's life;
 *  every operation is "durable" at once. map is provided (it points into
 *  the file's buffer), file_fd is not.
 *  @return LOGREP_OK or LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_storage_memory_new(const logrep_conf *conf,
                                                logrep_storage **out);

/** A crash-simulating file system in memory, after SQLite's test6.c.
 *  Each file has a durable image plus the ordered list of writes and
 *  truncations since its last sync. Creation, rename, removal and mkdir
 *  are durable on return (a journaling file system's ordered metadata);
 *  file contents are durable only after sync.
 *  logrep_storage_crash_simulate() applies a power loss.
 *  @return LOGREP_OK or LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_storage_crash_new(const logrep_conf *conf,
                                               uint32_t sector_size,
                                               logrep_storage **out);

/** Classes of operations for fault injection and counters (bit flags). */
enum {
    LOGREP_STORAGE_OP_READ = 1,      /**< read, size, map */
    LOGREP_STORAGE_OP_WRITE = 2,     /**< write */
    LOGREP_STORAGE_OP_SYNC = 4,      /**< sync, sync_dir */
    LOGREP_STORAGE_OP_TRUNCATE = 8,  /**< truncate */
    LOGREP_STORAGE_OP_META = 16,     /**< open, rename, remove, mkdir, list */
    LOGREP_STORAGE_OP_ALL = 31
};

/** How unsynced operations fare in a simulated crash. */
enum {
    LOGREP_CRASH_RANDOM = 0,    /**< each write kept, dropped, or torn at sector
                                     granularity, each truncation kept or dropped,
                                     chosen by the seed */
    LOGREP_CRASH_DROP_ALL = 1,  /**< only the durable image survives */
    LOGREP_CRASH_KEEP_ALL = 2   /**< everything survives (a process crash) */
};

/** Fails one class of operations: the `countdown`-th next call of any
 *  class in `op_mask` (1 = the very next) fails with `err`
 *  (LOGREP_ERR__IO: errno EIO; LOGREP_ERR__NOSPACE: errno ENOSPC) and has
 *  no effect; with `persistent` every later call in the class fails too,
 *  until logrep_storage_crash_inject() is called with countdown 0 (off).
 *  Only for storages made by logrep_storage_crash_new().
 *  @return LOGREP_OK or LOGREP_ERR__INVALID_ARG. */
LOGREP_API logrep_err logrep_storage_crash_inject(logrep_storage *s, uint32_t op_mask,
                                                  uint64_t countdown, logrep_err err,
                                                  int persistent);

/** Arms a simulated power loss: after `n` more write, truncate or sync
 *  calls (any file) have completed, every further call fails with
 *  LOGREP_ERR__IO, as a machine that has stopped. n = 0 disarms.
 *  logrep_storage_crash_simulate() then decides what reached the disk. */
LOGREP_API logrep_err logrep_storage_crash_after(logrep_storage *s, uint64_t n);

/** Simulates the power loss: every file's content becomes its durable
 *  image with the pending operations kept, dropped or torn as `mode`
 *  says, deterministically from `seed`. Then everything is durable and
 *  the storage works again (disarmed, no injected faults). Open files
 *  stay valid and see the new content.
 *  @return LOGREP_OK or LOGREP_ERR__INVALID_ARG. */
LOGREP_API logrep_err logrep_storage_crash_simulate(logrep_storage *s, uint64_t seed,
                                                    int mode);

/** A power loss that keeps every pending operation except the most recent
 *  write, of which only the first `keep_bytes` bytes reach the disk (the
 *  tear position is exact, not sector-rounded; keep_bytes >= its length
 *  keeps it whole). Afterwards the storage works again, as after
 *  logrep_storage_crash_simulate().
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG, or LOGREP_ERR__NOENT when
 *  no write is pending (nothing is changed then). */
LOGREP_API logrep_err logrep_storage_crash_tear_last(logrep_storage *s, size_t keep_bytes);

/** Length of the most recent pending (unsynced) write, so a test can tear
 *  it at every byte. @return LOGREP_OK, LOGREP_ERR__NOENT (none pending),
 *  LOGREP_ERR__INVALID_ARG. */
LOGREP_API logrep_err logrep_storage_crash_last_write(const logrep_storage *s, size_t *len);

/** Number of completed calls in the classes of `op_mask` since creation
 *  (memory and crash storages; 0 for others). */
LOGREP_API uint64_t logrep_storage_op_count(const logrep_storage *s, uint32_t op_mask);

#ifdef __cplusplus
}
#endif

#endif /* LOGREP_STORAGE_H */
