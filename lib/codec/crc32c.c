/* CRC-32C through ISA-L, which picks the widest instructions the CPU has. */
#include <logrep.h>

#include <isa-l/crc.h>
#include <limits.h>

LOGREP_API uint32_t logrep_crc32c(uint32_t crc, const void *data, size_t len)
{
    /* ISA-L's crc32_iscsi works on the raw register (no final xor) and takes
     * an int length; chain in chunks below INT_MAX. */
    const unsigned char *p = data;
    uint32_t c = ~crc;
    while (len > 0) {
        size_t n = len > (size_t)INT_MAX ? (size_t)1 << 30 : len;
        c = crc32_iscsi((unsigned char *)p, (int)n, c);
        p += n;
        len -= n;
    }
    return ~c;
}
