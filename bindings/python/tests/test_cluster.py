"""The headline: a 3-node cluster in one Python process, over the
binding's in-memory network (a transport written in Python), each node on
POSIX storage in its own directory, with virtual time.

Node 1 is broker and controller, 2 and 3 brokers (as test/lib/net_testutil.c
sets them up). A topic with replication factor 3 and min.insync.replicas 2
is created, records are produced with acks=-1, a broker that leads
partitions is killed (freed with abandon, its connections closed), the
controller moves leadership once the broker's session expires, more
records are produced, the broker restarts from its directory and catches
up, and every acknowledged record is fetched back in order.

The same scenario runs twice: through the node's in-process calls
(<logrep/inproc.h>) and as a Kafka client over the wire (<logrep/proto.h>)."""

import pytest

from logrep import Err, LogrepError, build_batch, iter_records, lib
from logrep.node import Network

TOPIC = "events"
PARTITIONS = 3


def node_conf(i, root):
    return {
        "node.id": i,
        "process.roles": "broker,controller" if i == 1 else "broker",
        "controller.quorum.voters": "1@node1:9093",
        "advertised.listeners": "PLAINTEXT://node%d:9092" % i,
        "min.insync.replicas": 2,
        "log.dirs": str(root / ("node%d" % i)),
        "replica.fetch.wait.max.ms": 50,
        "file.delete.delay.ms": 500,
        # A dead broker is fenced (and leadership moves) 1 s after its
        # last heartbeat.
        "broker.session.timeout.ms": 1000,
        "broker.heartbeat.interval.ms": 100,
        "replica.lag.time.max.ms": 1000,
    }


def _has_inproc():
    try:
        lib.logrep_node_produce  # noqa: B018 - resolves the symbol
        lib.logrep_node_create_topic  # noqa: B018
        return True
    except AttributeError:
        return False


class Inproc:
    """The node's in-process calls."""

    name = "inproc"

    def __init__(self, net):
        self.net = net

    def create(self, via, name, partitions, rf, configs):
        n = self.net.node(via)
        return n.wait(n.create_topic(name, partitions, rf, configs), 15000).error

    def produce(self, leader, topic, partition, batch):
        n = self.net.node(leader)
        ev = n.wait(n.produce(topic, partition, batch, acks=-1, timeout_ms=5000), 10000)
        return ev.error, ev.base_offset

    def fetch(self, node, topic, partition, offset):
        n = self.net.node(node)
        ev = n.wait(n.fetch(topic, partition, offset, max_bytes=1 << 20), 5000)
        return ev.error, ev.high_watermark, ev.records


class Wire:
    """A Kafka client: CreateTopics v7, Produce v7, Fetch v11."""

    name = "wire"

    def __init__(self, net):
        self.net = net
        self.client = net.client("pytest")

    def create(self, via, name, partitions, rf, configs):
        r = self.client.call(via, "CreateTopics", 7, {
            "timeoutMs": 10000,
            "Topics": [{"Name": name, "NumPartitions": partitions, "ReplicationFactor": rf,
                        "Configs": [{"Name": k, "Value": str(v)} for k, v in configs.items()]}],
        }, max_ms=15000)
        return r.root["Topics"][0]["ErrorCode"]

    def produce(self, leader, topic, partition, batch):
        r = self.client.call(leader, "Produce", 7, {
            "Acks": -1, "TimeoutMs": 5000,
            "TopicData": [{"Name": topic, "PartitionData": [{"Index": partition,
                                                             "Records": batch}]}],
        })
        p = r.root["Responses"][0]["PartitionResponses"][0]
        return p["ErrorCode"], p["BaseOffset"]

    def fetch(self, node, topic, partition, offset):
        r = self.client.call(node, "Fetch", 11, {
            "ReplicaId": -1, "MaxWaitMs": 0, "MaxBytes": 1 << 20,
            "Topics": [{"Topic": topic, "Partitions": [{
                "Partition": partition, "FetchOffset": offset, "PartitionMaxBytes": 1 << 20}]}],
        })
        p = r.root["Responses"][0]["Partitions"][0]
        return p["ErrorCode"], p["HighWatermark"], p["Records"] or b""


APIS = [
    pytest.param(Inproc, marks=pytest.mark.skipif(
        not _has_inproc(), reason="this liblogrep has no in-process node calls yet")),
    Wire,
]


def leaders(net, topic=TOPIC):
    """{partition: leader id} as the leaders themselves say (the replica
    that is leader at the highest epoch)."""
    best = {}
    for nid, node in net.nodes.items():
        for p in node.partitions():
            if p.topic == topic and p.is_leader:
                if p.partition not in best or p.leader_epoch > best[p.partition][1]:
                    best[p.partition] = (nid, p.leader_epoch)
    return {k: v[0] for k, v in best.items()}


def replicas_in_sync(net, topic=TOPIC):
    """{partition: ISR size} at each leader."""
    out = {}
    for pid, nid in leaders(net, topic).items():
        out[pid] = net.node(nid).partition(topic, pid).isr
    return out


def fetch_all(api, net, node, partition):
    """Every record of a partition from `node`, from offset 0 to its HW."""
    out, offset = [], 0
    while True:
        err, hw, data = api.fetch(node, TOPIC, partition, offset)
        assert err == 0, Err(err)
        recs = [r for r in iter_records(data) if r.offset >= offset]
        out += recs
        if not recs or recs[-1].offset + 1 >= hw:
            return out, hw
        offset = recs[-1].offset + 1


@pytest.mark.parametrize("api_cls", APIS)
def test_three_nodes_kill_a_leader_restart_nothing_acked_is_lost(tmp_path, api_cls):
    net = Network()
    try:
        nodes = {i: net.start(node_conf(i, tmp_path)) for i in (1, 2, 3)}
        assert nodes[1].is_controller and not nodes[2].is_controller
        api = api_cls(net)
        net.run_until(lambda: nodes[1].stats()["fenced_brokers"] == 0
                      and all(n.stats()["metadata_offset"] > 0 for n in nodes.values()), 5000)
        net.run(1000)  # every broker registered and unfenced

        # Created through a broker, which forwards it to the controller.
        assert api.create(2, TOPIC, PARTITIONS, 3, {"min.insync.replicas": 2}) == 0
        assert net.run_until(lambda: replicas_in_sync(net) == {p: 3 for p in range(PARTITIONS)},
                             10000), replicas_in_sync(net)

        acked = {p: [] for p in range(PARTITIONS)}  # values, in offset order

        def produce_round(tag, batches):
            lead = leaders(net)
            for p in range(PARTITIONS):
                for b in range(batches):
                    values = [b"%s-p%d-b%d-r%d" % (tag, p, b, r) for r in range(5)]
                    batch = build_batch([(b"k%d" % r, v) for r, v in enumerate(values)],
                                        compression="lz4" if b % 2 else None)
                    err, base = api.produce(lead[p], TOPIC, p, batch)
                    assert err == 0, "produce %s p%d: %s" % (tag, p, Err(err).name)
                    assert base == len(acked[p])  # offsets follow on, nothing skipped
                    acked[p] += values

        produce_round(b"before", 4)

        # Kill a broker (not the controller) that leads a partition.
        lead = leaders(net)
        victim = next(n for n in (2, 3) if n in lead.values())
        led = sorted(p for p, n in lead.items() if n == victim)
        net.node(victim).kill()
        assert net.node(victim) is None

        # Its session expires; the controller moves leadership and shrinks
        # the ISRs to the two live replicas.
        moved = net.run_until(lambda: all(n != victim for n in leaders(net).values())
                              and len(leaders(net)) == PARTITIONS
                              and all(v == 2 for v in replicas_in_sync(net).values()), 10000)
        assert moved, (leaders(net), replicas_in_sync(net))
        assert nodes[1].stats()["fenced_brokers"] == 1
        for p in led:
            assert net.node(leaders(net)[p]).partition(TOPIC, p).leader_epoch > 0

        produce_round(b"during", 3)  # ISR 2 == min.insync.replicas: accepted

        # Restart from its directory: recovery, then it catches up and
        # rejoins every ISR.
        nodes[victim] = net.start(node_conf(victim, tmp_path))
        assert net.run_until(lambda: replicas_in_sync(net) == {p: 3 for p in range(PARTITIONS)},
                             15000), replicas_in_sync(net)
        for p in range(PARTITIONS):
            mine = nodes[victim].partition(TOPIC, p)
            hw = net.node(leaders(net)[p]).partition(TOPIC, p).high_watermark
            assert mine.log_end_offset == hw == len(acked[p])

        produce_round(b"after", 2)

        # Every acknowledged record, in order, from each partition's leader.
        for p in range(PARTITIONS):
            recs, hw = fetch_all(api, net, leaders(net)[p], p)
            assert hw == len(acked[p])
            assert [r.offset for r in recs] == list(range(len(acked[p])))
            assert [r.value for r in recs] == acked[p]
        # The restarted broker's own copy, in its directory, holds them too.
        net.run(500)
        for p in range(PARTITIONS):
            assert (tmp_path / ("node%d" % victim) / ("%s-%d" % (TOPIC, p))).is_dir()
            info = nodes[victim].partition(TOPIC, p)
            assert info.log_end_offset == info.high_watermark == len(acked[p])
            if api.name == "inproc":  # a follower serves up to its high watermark
                recs, hw = fetch_all(api, net, victim, p)
                assert [r.value for r in recs] == acked[p]
    finally:
        net.close()
    assert not net.nodes


def test_network_frames_survive_any_split(tmp_path):
    """Bytes cut into 7-byte chunks still reach the nodes as whole frames
    (split again by logrep_proto_frame on arrival)."""
    net = Network(chunk=7)
    try:
        n1 = net.start(node_conf(1, tmp_path))
        net.run(2000)
        c = net.client()
        r = c.call(1, "Metadata", 9, {"Topics": [], "AllowAutoTopicCreation": False})
        assert [b["NodeId"] for b in r.root["Brokers"]] == [1]
        assert r.root["ControllerId"] == 1
        assert net.stats["frames_delivered"] > 0
        assert n1.stats()["requests"] > 0
    finally:
        net.close()


def test_node_errors(tmp_path):
    net = Network()
    with pytest.raises(LogrepError) as e:
        net.start({"node.id": 1, "process.roles": "bogus", "log.dirs": str(tmp_path)})
    assert e.value.code == Err.LOCAL_INVALID_CONF
    assert e.value.detail  # the node's reason
    n1 = net.start(node_conf(1, tmp_path))
    with pytest.raises(LogrepError) as e:
        net.start(node_conf(1, tmp_path))  # the same id twice
    assert e.value.code == Err.LOCAL_EXISTS
    n1.close()
    assert n1.closed and net.node(1) is None
    with pytest.raises(ValueError):
        n1.tick()
