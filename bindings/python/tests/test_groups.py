"""Committed offsets on an embedded node (<logrep/groups.h>) from Python:
finding the coordinator (which creates __consumer_offsets), an admin
commit completing as an event, fetching, describing and listing, the
lag, and the errors of a node that is not the coordinator."""

import pytest

from logrep import LogrepError, build_batch, lib
from logrep.node import Network

from test_cluster import node_conf


def coordinator(net, node, group):
    """Asks until the offsets topic exists and the group's partition has
    a leader, as a client retries FindCoordinator."""
    found = []
    assert node.group_coordinator(group) is None  # the first ask creates the topic
    assert net.run_until(lambda: found.append(node.group_coordinator(group)) or found[-1], 20000)
    return found[-1]


@pytest.fixture
def one(tmp_path):
    net = Network()
    conf = dict(node_conf(1, tmp_path), **{"min.insync.replicas": 1,
                                           "offsets.topic.num.partitions": 3,
                                           "offsets.topic.replication.factor": 1})
    node = net.start(conf)
    net.run(3000)
    yield net, node
    net.close()


def test_commit_fetch_describe(one):
    net, n = one
    n.wait(n.create_topic("t", 2, 1)).raise_for_error()
    assert net.run_until(lambda: n.partition("t", 1) and n.partition("t", 1).is_leader)
    n.wait(n.produce("t", 1, build_batch([b"a", b"b", b"c"]), acks=1)).raise_for_error()

    assert n.node_id == coordinator(net, n, "g")
    # The coordinator loads its offsets partition before it answers.
    assert net.run_until(lambda: _loaded(n, "g"), 10000)

    ev = n.wait(n.commit_offsets("g", {("t", 0): 0, ("t", 1): (2, "meta", 0)}))
    assert ev.kind == "commit" and ev.ok and ev.errors == [0, 0]

    got = n.fetch_offsets("g", [("t", 0), ("t", 1), ("t", 9)])
    assert got[("t", 0)][0] == 0
    assert got[("t", 1)] == (2, "meta", 0)
    assert got[("t", 9)][0] == -1  # nothing committed there

    g = n.describe_group("g")
    assert g["group_id"] == "g" and g["state"] == "Empty" and g["members"] == []
    assert [x["group_id"] for x in n.list_groups()] == ["g"]
    lags = {(x["topic"], x["partition"]): x for x in n.group_lags()}
    assert lags[("t", 1)]["high_watermark"] == 3 and lags[("t", 1)]["lag"] == 1

    # A partition the cluster does not have: refused at once, no event.
    with pytest.raises(LogrepError) as e:
        n.commit_offsets("g", {("nope", 0): 1})
    assert e.value.name == "UNKNOWN_TOPIC_OR_PARTITION"


def _loaded(n, group):
    try:
        n.fetch_offsets(group, [])
        return True
    except LogrepError as e:
        if e.name == "COORDINATOR_LOAD_IN_PROGRESS":
            return False
        raise


def test_not_coordinator(tmp_path):
    with Network() as net:
        nodes = {i: net.start(dict(node_conf(i, tmp_path), **{
            "offsets.topic.num.partitions": 1,
            "offsets.topic.replication.factor": 1})) for i in (1, 2)}
        net.run(3000)
        nodes[1].wait(nodes[1].create_topic("t", 1, 1)).raise_for_error()
        c = coordinator(net, nodes[1], "g")
        # Every node names the same coordinator; the other refuses.
        assert nodes[2].group_coordinator("g") == c
        other = nodes[2 if c == 1 else 1]
        with pytest.raises(LogrepError) as e:
            other.fetch_offsets("g", [("t", 0)])
        assert e.value.name == "NOT_COORDINATOR"
        assert net.run_until(lambda: _loaded(nodes[c], "g"), 10000)
        ev = other.wait(other.commit_offsets("g", {("t", 0): 1}))
        assert ev.error_name == "NOT_COORDINATOR" and ev.errors == [lib.LOGREP_ERR_NOT_COORDINATOR]
