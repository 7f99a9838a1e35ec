#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>

void lr_logf(const lr_log *log, int level, const char *subsys, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1;
    log->fn(log->ctx, level, subsys, msg, len);
}
