/* Producer state expiry (producer.id.expiration.ms) during logrep_log_tick. */
#include "log_testutil.h"

/* A log in memory whose producers expire after 60 s idle. */
static logrep_log *expiring_log(logrep_storage **st, logrep_conf **conf)
{
    cr_assert_eq(logrep_storage_memory_new(NULL, st), 0);
    *conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(*conf, "producer.id.expiration.ms", "60000", NULL, 0), 0);
    logrep_log *log;
    cr_assert_eq(logrep_log_open(*conf, *st, "p-0", 0, &log), 0);
    return log;
}

Test(log_producers, idle_producers_expire_on_tick)
{
    logrep_storage *st;
    logrep_conf *conf;
    logrep_log *log = expiring_log(&st, &conf);
    size_t len;
    uint8_t *a = lt_batch(2, 10, 1000, 7, 0, &len); /* producer 7, last seen at 1001 */
    logrep_log_append_info info;
    cr_assert_eq(logrep_log_append_leader(log, a, len, 0, 1000, &info), 0);
    free(a);
    uint8_t *b = lt_batch(1, 10, 50000, 8, 0, &len); /* producer 8, at 50000 */
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 50000, &info), 0);
    free(b);
    logrep_producer_entry e;
    cr_assert_eq(logrep_log_tick(log, 60000, NULL), 0);
    cr_assert_eq(logrep_log_producer(log, 7, &e), LOGREP_OK, "not idle long enough yet");
    cr_assert_eq(logrep_log_tick(log, 61002, NULL), 0);
    cr_assert_eq(logrep_log_producer(log, 7, &e), LOGREP_ERR__NOENT);
    cr_assert_eq(logrep_log_producer(log, 8, &e), LOGREP_OK);
    cr_assert_eq(logrep_log_close(log), 0);
    logrep_conf_free(conf);
    logrep_storage_free(st);
}

/* Ticks skip the expiry scan until some producer may be old enough; a
 * batch whose timestamp is older than its producer's last one moves that
 * bound back, and the producer still expires on time. */
Test(log_producers, expiry_follows_timestamps_that_go_back)
{
    logrep_storage *st;
    logrep_conf *conf;
    logrep_log *log = expiring_log(&st, &conf);
    size_t len;
    logrep_log_append_info info;
    uint8_t *a = lt_batch(1, 10, 50000, 7, 0, &len); /* producer 7 at 50000 */
    cr_assert_eq(logrep_log_append_leader(log, a, len, 0, 50000, &info), 0);
    free(a);
    uint8_t *b = lt_batch(1, 10, 40000, 8, 0, &len); /* producer 8 at 40000 */
    cr_assert_eq(logrep_log_append_leader(log, b, len, 0, 50000, &info), 0);
    free(b);
    logrep_producer_entry e;
    /* Nothing is old enough: these ticks change nothing. */
    for (int64_t t = 60000; t <= 100000; t += 10000)
        cr_assert_eq(logrep_log_tick(log, t, NULL), 0);
    cr_assert_eq(logrep_log_producer(log, 7, &e), LOGREP_OK);
    cr_assert_eq(logrep_log_producer(log, 8, &e), LOGREP_OK);
    /* Producer 8 expires after 40000 + 60000. */
    cr_assert_eq(logrep_log_tick(log, 100001, NULL), 0);
    cr_assert_eq(logrep_log_producer(log, 8, &e), LOGREP_ERR__NOENT);
    cr_assert_eq(logrep_log_producer(log, 7, &e), LOGREP_OK);
    /* Producer 7's next batch carries an older timestamp (CreateTime is
     * the client's): it is idle since 20000 now. */
    uint8_t *c = lt_batch(1, 10, 20000, 7, 1, &len);
    cr_assert_eq(logrep_log_append_leader(log, c, len, 0, 100001, &info), 0);
    free(c);
    cr_assert_eq(logrep_log_tick(log, 100002, NULL), 0);
    cr_assert_eq(logrep_log_producer(log, 7, &e), LOGREP_ERR__NOENT);
    cr_assert_eq(logrep_log_close(log), 0);
    logrep_conf_free(conf);
    logrep_storage_free(st);
}
