/* Internal to the in-memory file systems: their state, shared by
 * memfs.c (the file system, its calls, the fault gate) and memfs_crash.c
 * (the crash variant: pending writes, injected faults, power loss). */
#ifndef LR_STORAGE_MEMFS_INT_H
#define LR_STORAGE_MEMFS_INT_H

#include <stddef.h>
#include <stdint.h>

#include <logrep/storage.h>
#include "base/alloc.h"
#include "base/hashmap.h"

typedef struct mem_op {
    struct mem_op *next;
    uint64_t seq;     /* global order, to find the most recent write */
    uint64_t pos;     /* write position, or the new size of a truncation */
    size_t len;       /* bytes of a write (a torn write keeps fewer) */
    size_t alloc_len; /* bytes allocated in data */
    int is_trunc;
    uint8_t data[];
} mem_op;

typedef struct mem_bytes {
    uint8_t *p;
    size_t len, cap;
} mem_bytes;

typedef struct mem_node {
    struct mem_node *next;
    char *path;
    int is_dir;
    int linked;       /* still has a name */
    int refs;         /* open files */
    mem_bytes cur;    /* what reads see */
    mem_bytes dur;    /* crash variant: the durable image */
    mem_op *ops, *ops_tail;
} mem_node;

struct logrep_file {
    mem_node *node;
    int writable;
};

typedef struct mem_fs {
    logrep_storage vt;
    lr_alloc alloc;
    int crash;
    uint32_t sector;
    mem_node *nodes;
    lr_hashmap by_path; /* linked nodes; values: mem_node * */
    uint64_t seq;
    uint64_t counts[5];
    int last_errno;
    /* fault injection */
    uint32_t fault_mask;
    uint64_t fault_countdown;
    logrep_err fault_err;
    int fault_persistent;
    int fault_fired;
    /* power loss */
    uint64_t crash_countdown;
    int stopped;
} mem_fs;

/* memfs.c */
int lr_memfs_bytes_resize(mem_fs *fs, mem_bytes *b, size_t len);
int lr_memfs_bytes_write(mem_fs *fs, mem_bytes *b, uint64_t pos, const void *data, size_t len);
/* The memory file system behind s (with need_crash, only the crash
 * variant); NULL for any other storage. */
mem_fs *lr_memfs_as(const logrep_storage *s, int need_crash);

/* memfs_crash.c */
void lr_memfs_ops_free(mem_fs *fs, mem_node *n);
/* Records a pending operation (crash variant). */
logrep_err lr_memfs_op_add(mem_fs *fs, mem_node *n, uint64_t pos, const void *data, size_t len,
                           int is_trunc);
/* A sync: n's pending operations reach its durable image. */
void lr_memfs_apply_ops_durable(mem_fs *fs, mem_node *n);

#endif
