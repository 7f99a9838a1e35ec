/* logrep dump: prints record batches the way Kafka's kafka-dump-log does.
 * A file argument is read as concatenated v2 batches (a .log segment is
 * one); a directory argument is a partition directory (cmd_dump_dir). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include <logrep.h>

static void print_text(const uint8_t *p, int32_t len)
{
    if (len < 0) {
        fputs("null", stdout);
        return;
    }
    /* Printed as text, as kafka-dump-log's default decoder does; bytes that
     * would break the line are escaped. */
    for (int32_t i = 0; i < len; i++) {
        uint8_t c = p[i];
        if (c == '\n')
            fputs("\\n", stdout);
        else if (c < 0x20 || c == 0x7f)
            printf("\\x%02x", c);
        else
            putchar(c);
    }
}

static int dump_records(logrep_batch_reader *r, const logrep_batch_header *h)
{
    logrep_record rec;
    logrep_err err;
    int ts_log_append = (h->attributes & LOGREP_ATTR_LOG_APPEND_TIME) != 0;
    while ((err = logrep_batch_reader_next(r, &rec)) == LOGREP_OK) {
        printf("| offset: %" PRId64 " %s: %" PRId64 " keySize: %d valueSize: %d sequence: %d headerKeys: [",
               rec.offset, ts_log_append ? "LogAppendTime" : "CreateTime", rec.timestamp,
               rec.key_len, rec.value_len, rec.sequence);
        size_t cur = 0;
        logrep_header hd;
        int first = 1;
        while (logrep_record_header_next(&rec, &cur, &hd) == LOGREP_OK) {
            if (!first)
                fputs(",", stdout);
            print_text(hd.key, hd.key_len);
            first = 0;
        }
        fputs("]", stdout);
        if (h->attributes & LOGREP_ATTR_CONTROL) {
            logrep_control c;
            if (logrep_control_parse(&rec, &c) != LOGREP_OK) {
                printf(" invalid control record\n");
                return 1;
            }
            if (c.type == LOGREP_CONTROL_ABORT || c.type == LOGREP_CONTROL_COMMIT)
                printf(" endTxnMarker: %s coordinatorEpoch: %d\n",
                       c.type == LOGREP_CONTROL_COMMIT ? "COMMIT" : "ABORT", c.coordinator_epoch);
            else
                printf(" controlType: %d\n", c.type);
            continue;
        }
        fputs(" key: ", stdout);
        print_text(rec.key, rec.key_len);
        fputs(" payload: ", stdout);
        print_text(rec.value, rec.value_len);
        putchar('\n');
    }
    if (err != LOGREP_ERR__END) {
        printf("| error: %s\n", logrep_batch_reader_errmsg(r));
        return 1;
    }
    return 0;
}

/* Dumps one buffer of concatenated batches; returns 0 when all valid. */
static int dump_buffer(const uint8_t *buf, size_t len, int data_log, logrep_batch_reader *r)
{
    size_t pos = 0;
    int bad = 0;
    while (pos < len) {
        logrep_batch_header h;
        logrep_err err = logrep_batch_header_parse(buf + pos, len - pos, &h);
        if (err == LOGREP_ERR__AGAIN) {
            printf("Found %zu trailing bytes at position %zu: truncated batch\n", len - pos, pos);
            return 1;
        }
        if (err != LOGREP_OK) {
            printf("Found invalid batch at position %zu: %s\n", pos, logrep_err_str(err));
            return 1;
        }
        size_t size = (size_t)h.batch_length + LOGREP_LOG_OVERHEAD;
        err = logrep_batch_reader_open(r, buf + pos, len - pos, NULL);
        int valid = err == LOGREP_OK;
        int32_t last_seq = h.base_sequence < 0 ? -1 : logrep_seq_increment(h.base_sequence, h.last_offset_delta);
        printf("baseOffset: %" PRId64 " lastOffset: %" PRId64 " count: %d baseSequence: %d lastSequence: %d"
               " producerId: %" PRId64 " producerEpoch: %d partitionLeaderEpoch: %d"
               " isTransactional: %s isControl: %s position: %zu %s: %" PRId64
               " size: %zu magic: %d compresscodec: %s crc: %" PRIu32 " isvalid: %s\n",
               h.base_offset, logrep_batch_last_offset(&h), h.record_count, h.base_sequence, last_seq,
               h.producer_id, h.producer_epoch, h.partition_leader_epoch,
               h.attributes & LOGREP_ATTR_TRANSACTIONAL ? "true" : "false",
               h.attributes & LOGREP_ATTR_CONTROL ? "true" : "false", pos,
               h.attributes & LOGREP_ATTR_LOG_APPEND_TIME ? "LogAppendTime" : "CreateTime",
               h.max_timestamp, size, h.magic,
               logrep_compression_name(h.attributes & LOGREP_ATTR_COMPRESSION_MASK), h.crc,
               valid ? "true" : "false");
        if (!valid) {
            printf("| error: %s\n", logrep_batch_reader_errmsg(r));
            bad = 1;
        } else if (data_log) {
            bad |= dump_records(r, &h);
        } else if (logrep_batch_reader_validate(r) != LOGREP_OK) {
            printf("| error: %s\n", logrep_batch_reader_errmsg(r));
            bad = 1;
        }
        pos += size;
    }
    return bad;
}

static int dump_file(const char *path, int data_log, logrep_batch_reader *r)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "logrep dump: %s: %s\n", path, strerror(errno));
        return 2;
    }
    size_t len;
    uint8_t *buf = tool_read_stream(f, &len);
    fclose(f);
    if (!buf) {
        fprintf(stderr, "logrep dump: %s: read failed\n", path);
        free(buf);
        return 2;
    }
    printf("Dumping %s\n", path);
    int rc = dump_buffer(buf, len, data_log, r);
    free(buf);
    return rc;
}

int cmd_dump(int argc, char **argv)
{
    int data_log = 0, nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--print-data-log") == 0)
            data_log = 1;
        else if (argv[i][0] == '-' && argv[i][1] == '-')
            continue; /* options of directory dumps */
        else
            nfiles++;
    }
    if (nfiles == 0) {
        fprintf(stderr, "usage: logrep dump [--print-data-log] FILE|DIR...\n");
        return 2;
    }
    logrep_batch_reader *r;
    if (logrep_batch_reader_new(NULL, &r) != LOGREP_OK)
        return 2;
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] == '-')
            continue;
        struct stat st;
        int one;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            /* The options, then this directory. */
            char **sub = malloc(sizeof *sub * (size_t)(argc + 1));
            int k = 0;
            if (!sub)
                return 2;
            for (int j = 0; j < argc; j++)
                if (j == 0 || (argv[j][0] == '-' && argv[j][1] == '-'))
                    sub[k++] = argv[j];
            sub[k++] = argv[i];
            sub[k] = NULL;
            if (cmd_dump_dir) {
                one = cmd_dump_dir(k, sub);
            } else {
                fprintf(stderr, "logrep dump: %s is a directory\n", argv[i]);
                one = 2;
            }
            free(sub);
        } else {
            one = dump_file(argv[i], data_log, r);
        }
        if (one > rc)
            rc = one;
    }
    logrep_batch_reader_free(r);
    return rc;
}
