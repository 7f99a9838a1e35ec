#include <logrep.h>

#define LR_STR2(x) #x
#define LR_STR(x) LR_STR2(x)

LOGREP_API const char *logrep_version_string(void)
{
    return LR_STR(LOGREP_VERSION_MAJOR) "." LR_STR(LOGREP_VERSION_MINOR) "." LR_STR(
        LOGREP_VERSION_PATCH);
}

LOGREP_API uint32_t logrep_version_number(void)
{
    return LOGREP_VERSION_NUMBER;
}
