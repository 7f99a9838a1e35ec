#include "storage/storage.h"

#include <errno.h>

logrep_err lr_storage_errno_to_err(int e)
{
    switch (e) {
    case 0:
        return LOGREP_OK;
    case ENOSPC:
#ifdef EDQUOT
    case EDQUOT:
#endif
        return LOGREP_ERR__NOSPACE;
    case ENOENT:
    case ENOTDIR:
        return LOGREP_ERR__NOENT;
    case EEXIST:
        return LOGREP_ERR__EXISTS;
    case ENOMEM:
        return LOGREP_ERR__NOMEM;
    default:
        return LOGREP_ERR__IO;
    }
}

LOGREP_API void logrep_storage_free(logrep_storage *s)
{
    if (s && s->destroy)
        s->destroy(s->ctx);
}
