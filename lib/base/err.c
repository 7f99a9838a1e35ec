#include <logrep.h>

#include <stddef.h>

typedef struct err_entry {
    int code;
    const char *name;
    const char *desc;
    int retriable;
} err_entry;

#define LR_ERR_ENTRY(code, name, desc, retriable) {code, name, desc, retriable},
static const err_entry err_table[] = {
#include "err_table.h"
};
#undef LR_ERR_ENTRY

static const err_entry *find(int err)
{
    /* Wire codes are dense from -1; local codes dense from -100 down. */
    size_t n = sizeof(err_table) / sizeof(err_table[0]);
    for (size_t i = 0; i < n; i++)
        if (err_table[i].code == err)
            return &err_table[i];
    return NULL;
}

LOGREP_API const char *logrep_err_name(int err)
{
    const err_entry *e = find(err);
    return e ? e->name : "UNKNOWN";
}

LOGREP_API const char *logrep_err_str(int err)
{
    const err_entry *e = find(err);
    return e ? e->desc : "Unknown error code.";
}

LOGREP_API int logrep_err_is_retriable(int err)
{
    const err_entry *e = find(err);
    return e ? e->retriable : 0;
}
