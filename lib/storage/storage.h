/* Helpers shared by the storage backends. */
#ifndef LR_STORAGE_STORAGE_H
#define LR_STORAGE_STORAGE_H

#include <logrep/storage.h>

/* The library error for an errno value: ENOSPC/EDQUOT -> __NOSPACE,
 * ENOENT/ENOTDIR -> __NOENT, EEXIST -> __EXISTS, ENOMEM -> __NOMEM,
 * anything else -> __IO. */
logrep_err lr_storage_errno_to_err(int e);

#endif
