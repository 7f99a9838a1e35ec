/* Configuration internals: typed, id-indexed access for the library. */
#ifndef LR_BASE_CONF_H
#define LR_BASE_CONF_H

#include <stdint.h>
#include <logrep.h>
#include "base/alloc.h"
#include "base/log.h"

enum lr_conf_type { LR_CONF_INT, LR_CONF_BOOL, LR_CONF_STR };

#define LR_CONF_PROP(id, name, type, idef, min, max, sdef, allowed, doc) LR_CONF_##id,
typedef enum lr_conf_id {
#include "base/conf_props.h"
    LR_CONF__COUNT
} lr_conf_id;
#undef LR_CONF_PROP

typedef struct lr_conf_val {
    int64_t i;
    char *s; /* string properties only; owned */
} lr_conf_val;

struct logrep_conf {
    lr_alloc alloc;
    lr_log log;
    lr_conf_val vals[LR_CONF__COUNT];
};

/* Typed access; conf may be NULL (defaults). */
int64_t lr_conf_int(const logrep_conf *conf, lr_conf_id id);
const char *lr_conf_str(const logrep_conf *conf, lr_conf_id id);
/* Allocator and logger of a conf, or the defaults for NULL. */
const lr_alloc *lr_conf_alloc(const logrep_conf *conf);
lr_log lr_conf_log(const logrep_conf *conf);

#endif
