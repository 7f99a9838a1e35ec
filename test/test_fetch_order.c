/* A Fetch answer that must wait behind an earlier answer on its
 * connection carries its records as bytes, not as file segments: a
 * descriptor may be closed (its segment deleted by retention or a topic
 * deletion) and its number reused before the answer's turn comes. An
 * answer sent at once still goes as file segments (the sendfile path). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/net_testutil.h"

static char dir[64], cwd[1024];

/* One broker+controller on POSIX files under a scratch directory. */
static void posix_node(net *w)
{
    strcpy(dir, "/tmp/logrep-order.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(chdir(dir), 0); /* the harness's log.dirs is "data" */
    memset(w, 0, sizeof *w);
    w->n = 1;
    w->now = 1000;
    cr_assert_eq(logrep_storage_posix_new(NULL, &w->st[1]), 0);
    start_node(w, 1);
    run(w, 1000);
}

static void done(net *w)
{
    teardown(w);
    cr_assert_eq(chdir(cwd), 0);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

static int32_t records_len(logrep_msg *resp)
{
    logrep_struct *rs = logrep_msg_root(resp);
    logrep_struct *p = elem(elem(rs, "Responses", 0), "Partitions", 0);
    const uint8_t *b;
    int32_t len = -1;
    logrep_struct_bytes(p, logrep_struct_field(p, "Records"), &b, &len);
    return len;
}

Test(fetch_order, a_queued_answer_holds_bytes_not_descriptors, .timeout = 60)
{
    net w;
    posix_node(&w);
    create_topic(&w, 1, "quiet", 1, 1);
    create_topic(&w, 1, "busy", 1, 1);
    int64_t base;
    cr_assert_eq(produce(&w, 1, "busy", 0, "v0", -1, &base), 0);
    logrep_msg *m, *resp;
    cr_assert_eq(logrep_msg_new(NULL, &m), 0);
    cr_assert_eq(logrep_msg_new(NULL, &resp), 0);

    /* Alone, the answer goes out at once, as a file segment. */
    long before = net_file_segments();
    fetch_request(m, "busy", 0, 0, 0, 1);
    uint64_t c = client_send(&w, 1, m);
    client_wait(&w, c, LOGREP_API_FETCH, 11, resp, 2000);
    cr_assert_gt(records_len(resp), 0);
    cr_assert_eq(net_file_segments(), before + 1, "sent at once: by descriptor");

    /* Behind a parked long-poll on the same connection, it waits: bytes. */
    c = client_send(&w, 1, (fetch_request(m, "quiet", 0, 0, 300, 1), m));
    pump(&w);
    fetch_request(m, "busy", 0, 0, 0, 1);
    client_send_again(&w, c, m);
    pump(&w);
    cr_assert_not(client_has(&w, c), "both wait for the long-poll");
    before = net_file_segments();
    client_wait(&w, c, LOGREP_API_FETCH, 11, resp, 2000); /* the long-poll, empty */
    cr_assert_eq(records_len(resp), 0);
    client_wait(&w, c, LOGREP_API_FETCH, 11, resp, 2000);
    cr_assert_gt(records_len(resp), 0, "the queued answer has its records");
    cr_assert_eq(net_file_segments(), before, "a queued answer holds no descriptor");

    logrep_msg_free(m);
    logrep_msg_free(resp);
    done(&w);
}
