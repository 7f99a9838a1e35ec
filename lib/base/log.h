/* Per-instance logging. Formatting happens only when the level is enabled. */
#ifndef LR_BASE_LOG_H
#define LR_BASE_LOG_H

#include <logrep.h>

typedef struct lr_log {
    logrep_logger_fn fn;
    void *ctx;
    int level;
} lr_log;

#if defined(__GNUC__)
#define LR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define LR_PRINTF(a, b)
#endif

void lr_logf(const lr_log *log, int level, const char *subsys, const char *fmt, ...)
    LR_PRINTF(4, 5);

#define LR_LOG(log, lvl, subsys, ...)                                    \
    do {                                                                 \
        if ((log) && (log)->fn && (lvl) <= (log)->level)                 \
            lr_logf((log), (lvl), (subsys), __VA_ARGS__);                \
    } while (0)

#endif
