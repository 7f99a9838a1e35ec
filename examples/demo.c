/* A tour of liblogrep's codec layer: keyed records are spread over the
 * partitions of a topic with Kafka's murmur2 partitioner, packed into one
 * compressed v2 batch per partition, stamped with offsets and a leader
 * epoch the way a partition leader does, then read back and checked. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logrep.h>

#define PARTITIONS 6
#define RECORDS 1200

static int check(logrep_err err, const char *what)
{
    if (err != LOGREP_OK) {
        fprintf(stderr, "demo: %s: %s (%s)\n", what, logrep_err_name(err), logrep_err_str(err));
        exit(1);
    }
    return 0;
}

int main(void)
{
    printf("liblogrep %s demo: topic \"orders\", %d partitions, %d keyed records\n\n",
           logrep_version_string(), PARTITIONS, RECORDS);

    logrep_conf *conf = logrep_conf_new();
    char errbuf[128];
    check(logrep_conf_set(conf, "logrep.random.seed", "42", errbuf, sizeof errbuf), "conf");

    logrep_partitioner *part;
    check(logrep_partitioner_new(conf, PARTITIONS, &part), "partitioner");
    logrep_batch_builder *builders[PARTITIONS];
    int codecs[PARTITIONS] = {LOGREP_COMPRESSION_NONE, LOGREP_COMPRESSION_GZIP,
                              LOGREP_COMPRESSION_SNAPPY, LOGREP_COMPRESSION_LZ4,
                              LOGREP_COMPRESSION_ZSTD, LOGREP_COMPRESSION_LZ4};
    for (int p = 0; p < PARTITIONS; p++) {
        check(logrep_batch_builder_new(conf, &builders[p]), "builder");
        check(logrep_batch_builder_set_compression(builders[p], codecs[p], 0), "compression");
        /* An idempotent producer: id 1000, epoch 0, sequences from 0. */
        check(logrep_batch_builder_set_producer(builders[p], 1000, 0, 0), "producer");
    }

    int per_partition[PARTITIONS] = {0};
    size_t raw_bytes = 0;
    for (int i = 0; i < RECORDS; i++) {
        char key[32], value[96];
        int kl = snprintf(key, sizeof key, "customer-%d", i % 97);
        int vl = snprintf(value, sizeof value,
                          "{\"order\":%d,\"customer\":%d,\"amount\":%d.%02d}", i, i % 97,
                          (i * 37) % 500, i % 100);
        int32_t p = logrep_partitioner_choose(part, key, (size_t)kl, (size_t)(kl + vl));
        logrep_header h = {(const uint8_t *)"source", 6, (const uint8_t *)"demo", 4};
        check(logrep_batch_builder_add(builders[p], 1700000000000LL + i, key, kl, value, vl, &h, 1),
              "add");
        per_partition[p]++;
        raw_bytes += (size_t)(kl + vl);
    }

    printf("%-10s %-7s %8s %10s %12s %12s %s\n", "partition", "codec", "records", "bytes",
           "base offset", "last offset", "check");
    logrep_batch_reader *reader;
    check(logrep_batch_reader_new(conf, &reader), "reader");
    size_t batch_bytes = 0;
    int failures = 0;
    for (int p = 0; p < PARTITIONS; p++) {
        const uint8_t *out;
        size_t len;
        check(logrep_batch_builder_finish(builders[p], &out, &len), "finish");
        uint8_t *batch = malloc(len);
        memcpy(batch, out, len);
        batch_bytes += len;

        /* The leader assigns offsets and its epoch in place; the CRC does
         * not cover those fields, so the batch stays valid. */
        int64_t base = 100 * p;
        check(logrep_batch_stamp(batch, len, base, 7), "stamp");
        check(logrep_batch_verify(batch, len, NULL), "verify");

        logrep_batch_header h;
        check(logrep_batch_reader_open(reader, batch, len, &h), "open");
        logrep_record rec;
        int n = 0, ok = 1;
        while (logrep_batch_reader_next(reader, &rec) == LOGREP_OK) {
            if (logrep_murmur2_partition(rec.key, (size_t)rec.key_len, PARTITIONS) != p ||
                rec.offset != base + n || rec.sequence != n)
                ok = 0;
            n++;
        }
        ok = ok && n == per_partition[p] && h.partition_leader_epoch == 7;
        failures += !ok;
        printf("%-10d %-7s %8d %10zu %12" PRId64 " %12" PRId64 " %s\n", p,
               logrep_compression_name(codecs[p]), n, len, h.base_offset,
               logrep_batch_last_offset(&h), ok ? "ok" : "MISMATCH");
        free(batch);
    }
    printf("\n%zu bytes of keys and values in %zu bytes of batches (%.2fx)\n", raw_bytes,
           batch_bytes, (double)raw_bytes / (double)batch_bytes);
    printf("every record is in the partition Kafka's murmur2 partitioner picks for its key: %s\n",
           failures ? "NO" : "yes");

    logrep_batch_reader_free(reader);
    for (int p = 0; p < PARTITIONS; p++)
        logrep_batch_builder_free(builders[p]);
    logrep_partitioner_free(part);
    logrep_conf_free(conf);
    return failures ? 1 : 0;
}
