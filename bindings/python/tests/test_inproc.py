"""A node's in-process calls (<logrep/inproc.h>) on one node: produce,
fetch (and its long poll), list offsets, create and delete topics, their
errors; and the README's example."""

import os
import re

import pytest

from logrep import Err, LogrepError, build_batch, lib
from logrep.node import Network

from test_cluster import _has_inproc, node_conf

pytestmark = pytest.mark.skipif(not _has_inproc(),
                                reason="this liblogrep has no in-process node calls yet")

T0 = 1700000000000


@pytest.fixture
def one(tmp_path):
    net = Network()
    node = net.start(dict(node_conf(1, tmp_path), **{"min.insync.replicas": 1}))
    net.run(3000)
    yield net, node
    net.close()


def test_produce_fetch_list_offsets(one):
    net, n = one
    assert n.wait(n.create_topic("t", 2, 1, {"retention.ms": 3600000})).error == 0
    assert net.run_until(lambda: (n.partition("t", 1) or 0) and n.partition("t", 1).is_leader)
    ev = n.wait(n.produce("t", 1, build_batch([dict(value=b"a", timestamp=T0),
                                              dict(value=b"b", timestamp=T0 + 10)]),
                          acks=-1))
    assert ev.ok and ev.kind == "produce" and ev.base_offset == 0
    ev = n.wait(n.produce("t", 1, build_batch([b"c"]), acks=1))
    assert ev.base_offset == 2
    ev = n.wait(n.fetch("t", 1, 0))
    assert ev.ok and ev.high_watermark == 3
    assert [r.value for r in ev.record_list()] == [b"a", b"b", b"c"]
    assert n.wait(n.list_offsets("t", 1)).offset == 3  # LATEST: the high watermark
    assert n.wait(n.list_offsets("t", 1, lib.LOGREP_OFFSET_EARLIEST)).offset == 0
    ev = n.wait(n.list_offsets("t", 1, T0 + 5))
    assert (ev.offset, ev.timestamp) == (1, T0 + 10)


def test_fetch_long_poll(one):
    net, n = one
    n.wait(n.create_topic("t", 1, 1)).raise_for_error()
    net.run_until(lambda: n.partition("t", 0) and n.partition("t", 0).is_leader)
    token = n.fetch("t", 0, 0, max_wait_ms=500)
    net.run(100)
    assert n.poll() is None  # parked: nothing to return yet
    n.produce("t", 0, build_batch([b"late"]), acks=1)
    ev = n.wait(token, 300)
    assert [r.value for r in ev.record_list()] == [b"late"]


def test_errors_are_events_or_exceptions(one):
    net, n = one
    ev = n.wait(n.produce("nope", 0, build_batch([b"x"]), acks=-1))
    assert ev.error == Err.UNKNOWN_TOPIC_OR_PARTITION and not ev.ok
    with pytest.raises(LogrepError) as e:
        ev.raise_for_error()
    assert e.value.name == "UNKNOWN_TOPIC_OR_PARTITION"
    with pytest.raises(LogrepError) as e:
        n.produce("t", -1, b"x")
    assert e.value.code == Err.LOCAL_INVALID_ARG
    n.wait(n.create_topic("t", 1, 1)).raise_for_error()
    assert n.wait(n.create_topic("t", 1, 1)).error == Err.TOPIC_ALREADY_EXISTS
    assert n.wait(n.create_topic("r", 1, 3)).error == Err.INVALID_REPLICATION_FACTOR
    assert n.wait(n.delete_topic("t")).ok
    net.run(1000)
    assert n.partition("t", 0) is None
    assert n.wait(n.delete_topic("t")).error == Err.UNKNOWN_TOPIC_OR_PARTITION


def test_readme_example(tmp_path, monkeypatch):
    readme = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "README.md")
    code = re.search(r"```python\n(.*?)```", open(readme).read(), re.S).group(1)
    monkeypatch.setattr("tempfile.mkdtemp", lambda: str(tmp_path))
    exec(compile(code, "README.md", "exec"), {})
