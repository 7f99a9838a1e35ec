/* Producer state expiry (producer.id.expiration.ms) during logrep_log_tick. */
#include "log_testutil.h"

Test(log_producers, idle_producers_expire_on_tick)
{
    logrep_storage *st;
    cr_assert_eq(logrep_storage_memory_new(NULL, &st), 0);
    logrep_conf *conf = logrep_conf_new();
    cr_assert_eq(logrep_conf_set(conf, "producer.id.expiration.ms", "60000", NULL, 0), 0);
    logrep_log *log;
    cr_assert_eq(logrep_log_open(conf, st, "p-0", 0, &log), 0);
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
