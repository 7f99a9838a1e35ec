/* Fuzz target: arbitrary bytes as a stream of v2 record batches, read the
 * way a broker reads a produce request or a segment: header, CRC,
 * decompression with a small limit, every record and header. The first
 * input byte is a flag: when its low bit is set each batch's CRC is
 * recomputed first, so mutations reach the record parser. Each batch with
 * a valid CRC also goes through the leader-side check of a produce
 * (logrep_batch_reader_check), which must agree with the reader. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/endian.h"
#include <logrep.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static logrep_conf *conf;
    if (!conf) {
        conf = logrep_conf_new();
        logrep_conf_set(conf, "logrep.decompress.max.bytes", "1048576", NULL, 0);
    }
    if (size < 1)
        return 0;
    int fix_crc = data[0] & 1;
    data++;
    size--;
    /* A private copy so the CRC can be fixed up. */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    logrep_batch_reader *r;
    if (logrep_batch_reader_new(conf, &r) != LOGREP_OK) {
        free(buf);
        return 0;
    }
    size_t pos = 0;
    while (pos < size) {
        uint8_t *p = buf + pos;
        size_t left = size - pos;
        logrep_batch_header h;
        if (logrep_batch_header_parse(p, left, &h) != LOGREP_OK)
            break;
        size_t total = (size_t)h.batch_length + 12;
        if (fix_crc)
            lr_put_be32(p + 17, logrep_crc32c(0, p + 21, total - 21));
        size_t vsize;
        int checked = -1;
        if (logrep_batch_verify(p, left, &vsize) == LOGREP_OK && h.record_count >= 0)
            checked = logrep_batch_reader_check(r, p, vsize, NULL) == LOGREP_OK;
        if (logrep_batch_reader_open(r, p, left, NULL) == LOGREP_OK) {
            logrep_record rec;
            logrep_err e;
            while ((e = logrep_batch_reader_next(r, &rec)) == LOGREP_OK) {
                size_t cur = 0;
                logrep_header hd;
                while (logrep_record_header_next(&rec, &cur, &hd) == LOGREP_OK)
                    ;
                logrep_control c;
                if (h.attributes & LOGREP_ATTR_CONTROL)
                    logrep_control_parse(&rec, &c);
            }
            /* The check accepts exactly what the reader reads to the end. */
            if (checked >= 0 && checked != (e == LOGREP_ERR__END))
                abort();
        }
        pos += total;
    }
    logrep_batch_reader_free(r);
    free(buf);
    return 0;
}
