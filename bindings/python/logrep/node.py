"""An embedded node (logrep_node) driven from Python, and an in-memory
network that carries its frames.

The node acts only through vtables: storage (a Storage, POSIX by default)
and a transport, here implemented in Python with ffi.callback by Network.
The transport callbacks never call into a node: they queue bytes, and
Network.pump() delivers them later, splitting each connection's byte
stream into frames with logrep_proto_frame(). Time is virtual: Network.now
in milliseconds, passed to every node call.

    net = Network()
    n1 = net.start({"node.id": 1, "process.roles": "broker,controller", ...})
    net.run(2000)
    ev = n1.wait(n1.create_topic("t", 1, 1))
"""

import collections
import itertools
import os

from ._ffi import ffi, lib
from ._handle import Handle
from .batch import iter_batches, iter_records
from .conf import as_conf
from .errors import LogrepError, check, err_name
from .groups import GroupsMixin
from .log import Storage, _struct_dict
from .proto import Message

__all__ = ["Network", "Node", "Client", "Event", "PartitionInfo", "EVENT_TYPES", "default_listener"]

#: logrep_node_event.type values and their names.
EVENT_TYPES = {
    lib.LOGREP_NODE_EV_COMMIT: "commit",
    lib.LOGREP_NODE_EV_PRODUCE: "produce",
    lib.LOGREP_NODE_EV_FETCH: "fetch",
    lib.LOGREP_NODE_EV_LIST_OFFSETS: "list_offsets",
    lib.LOGREP_NODE_EV_CREATE_TOPIC: "create_topic",
    lib.LOGREP_NODE_EV_DELETE_TOPIC: "delete_topic",
}

_IO = lib.LOGREP_ERR__IO


def default_listener(node_id, host, port):
    """The listener a connection to host:port arrives on: port 9093 (as in
    controller.quorum.voters "1@host:9093") is the controller's."""
    return "CONTROLLER" if port == 9093 else "PLAINTEXT"


# ---------------------------------------------------------------- events

class Event:
    """A completed in-process call (logrep_node_event), its data copied."""

    __slots__ = ("type", "token", "error", "errors", "base_offset", "log_append_time",
                 "log_start_offset", "high_watermark", "last_stable_offset", "records",
                 "offset", "timestamp", "leader_epoch")

    def __init__(self, ev):
        self.type = ev.type
        self.token = ev.token
        self.error = ev.error
        self.errors = [ev.errors[i] for i in range(ev.n_errors)] if ev.errors else []
        self.base_offset = ev.base_offset
        self.log_append_time = ev.log_append_time
        self.log_start_offset = ev.log_start_offset
        self.high_watermark = ev.high_watermark
        self.last_stable_offset = ev.last_stable_offset
        self.records = (bytes(ffi.buffer(ev.records, ev.records_len))
                        if ev.records != ffi.NULL and ev.records_len else b"")
        self.offset = ev.offset
        self.timestamp = ev.timestamp
        self.leader_epoch = ev.leader_epoch

    @property
    def kind(self):
        """"produce", "fetch", "list_offsets", "create_topic", ..."""
        return EVENT_TYPES.get(self.type, str(self.type))

    @property
    def ok(self):
        return self.error == 0

    @property
    def error_name(self):
        return err_name(self.error)

    def raise_for_error(self):
        """Raises LogrepError when the call failed; returns the event."""
        check(self.error, "node %s" % self.kind)
        return self

    def batches(self):
        """(BatchHeader, [Record]) of a fetch's batches."""
        return list(iter_batches(self.records))

    def record_list(self):
        """Every Record a fetch returned."""
        return list(iter_records(self.records))

    def __repr__(self):
        fields = ["%s token=%d" % (self.kind, self.token), self.error_name]
        if self.type == lib.LOGREP_NODE_EV_PRODUCE:
            fields.append("base_offset=%d" % self.base_offset)
        elif self.type == lib.LOGREP_NODE_EV_FETCH:
            fields.append("hw=%d records=%dB" % (self.high_watermark, len(self.records)))
        elif self.type == lib.LOGREP_NODE_EV_LIST_OFFSETS:
            fields.append("offset=%d" % self.offset)
        return "Event(%s)" % ", ".join(fields)


class PartitionInfo:
    """One partition replica on a node (logrep_node_partition_info)."""

    def __init__(self, info):
        d = _struct_dict(info, "logrep_node_partition_info")
        d["topic"] = ffi.string(info.topic).decode() if info.topic != ffi.NULL else None
        self.__dict__.update(d)

    @property
    def is_leader(self):
        return self.role == lib.LOGREP_ROLE_LEADER

    def as_dict(self):
        return dict(self.__dict__)

    def __repr__(self):
        return "PartitionInfo(%s-%d role=%d leader=%d epoch=%d leo=%d hw=%d isr=%d)" % (
            self.topic, self.partition, self.role, self.leader, self.leader_epoch,
            self.log_end_offset, self.high_watermark, self.isr)


# ---------------------------------------------------------------- network

class _End:
    """One end of a connection, owned by a node incarnation."""

    __slots__ = ("id", "owner", "peer", "accepted", "open", "rx", "inbox")

    def __init__(self, id_, owner, accepted):
        self.id = id_
        self.owner = owner  # _Endpoint
        self.peer = None  # the other _End
        self.accepted = accepted  # requests arrive here
        self.open = True
        self.rx = bytearray()  # bytes received, not yet a whole frame
        self.inbox = collections.deque()  # a client's frames received


class _Endpoint:
    """One incarnation of a node on the network: its transport table."""

    def __init__(self, network, node_id):
        self.network = network
        self.node_id = node_id
        self.node = None  # the Node while it runs
        self.handle = ffi.new_handle(self)
        self.transport = ffi.new("logrep_transport *")
        t = self.transport
        t.version = lib.LOGREP_TRANSPORT_VERSION
        t.ctx = self.handle
        t.send = network._cb_send
        t.connect = network._cb_connect
        t.close = network._cb_close

    @property
    def alive(self):
        return self.node is not None and not self.node.closed


class _ClientEndpoint:
    """A client of the network: not a node; its frames go to an inbox."""

    alive = True
    node = None

    def __init__(self, name):
        self.name = name


_FRAME, _ACCEPTED, _CLOSED = "frame", "accepted", "closed"


class Network:
    """An in-memory, lossless network between the nodes of one process,
    with virtual time. Each connection is a byte stream per direction:
    transport.send queues the bytes (split into chunks of `chunk` bytes
    when given, as TCP may cut them), pump() delivers them in order and
    the receiving side splits frames with logrep_proto_frame().

    listener(node_id, host, port) names the listener a connection arrives
    on (default_listener: port 9093 is "CONTROLLER", others "PLAINTEXT")."""

    def __init__(self, now_ms=1000, listener=default_listener, chunk=None,
                 max_frame_bytes=100 << 20):
        self.now = now_ms
        self.listener = listener
        self.chunk = chunk
        self.max_frame_bytes = max_frame_bytes
        self.endpoints = {}  # node id -> the current _Endpoint
        self._ends = {}
        self._end_ids = itertools.count(1)
        self._queue = collections.deque()
        self._errors = []  # exceptions raised inside transport callbacks
        self.stats = collections.Counter()
        # One set of callbacks for every node; ctx says which node calls.
        self._cb_send = ffi.callback(
            "logrep_err(void *, uint64_t, const logrep_seg *, size_t)", self._send)
        self._cb_connect = ffi.callback(
            "logrep_err(void *, int32_t, const char *, int32_t, uint64_t *)", self._connect)
        self._cb_close = ffi.callback("void(void *, uint64_t)", self._close)

    # -- nodes
    @property
    def nodes(self):
        """Running nodes by id."""
        return {i: ep.node for i, ep in self.endpoints.items() if ep.alive}

    def node(self, node_id):
        ep = self.endpoints.get(node_id)
        return ep.node if ep is not None and ep.alive else None

    def start(self, conf, storage=None, logger=None):
        """Creates a node on this network (see Node)."""
        return Node(self, conf, storage=storage, logger=logger)

    def client(self, client_id="python"):
        """A Kafka client on this network (see Client)."""
        return Client(self, client_id)

    def _attach(self, node_id):
        old = self.endpoints.get(node_id)
        if old is not None and old.alive:
            raise LogrepError(lib.LOGREP_ERR__EXISTS, "node %d is running" % node_id,
                              "Network.start")
        ep = _Endpoint(self, node_id)
        self.endpoints[node_id] = ep
        return ep

    def _detach(self, ep):
        """The node of ep is gone: its connections close, and the other
        ends' owners are told (as their sockets would)."""
        for end in list(self._ends.values()):
            if end.owner is ep and end.open:
                self._shut(end, notify_self=False)
        if self.endpoints.get(ep.node_id) is ep:
            ep.node = None

    def close(self):
        """Frees every running node, flushing its logs (not a controlled
        shutdown: see Node.shutdown)."""
        for n in list(self.nodes.values()):
            n.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- transport callbacks (queue only; never call a node)
    def _guard(self, fn, *args):
        try:
            return fn(*args)
        except BaseException as e:  # noqa: BLE001 - re-raised by pump()
            self._errors.append(e)
            return _IO

    def _send(self, ctx, conn, segs, nsegs):
        return self._guard(self._do_send, ffi.from_handle(ctx), conn, segs, nsegs)

    def _do_send(self, ep, conn, segs, nsegs):
        end = self._ends.get(conn)
        if end is None or not end.open or end.owner is not ep:
            return _IO
        parts = []
        for i in range(nsegs):
            s = segs[i]
            if s.data != ffi.NULL:
                parts.append(bytes(ffi.buffer(s.data, s.len)))
            else:  # a file segment: read it now (the descriptor is the storage's)
                data = os.pread(s.file, s.len, s.pos)
                if len(data) != s.len:
                    raise OSError("file segment: %d of %d bytes" % (len(data), s.len))
                parts.append(data)
                self.stats["file_segments"] += 1
        data = b"".join(parts)
        self.stats["frames_sent"] += 1
        self.stats["bytes_sent"] += len(data)
        step = self.chunk or len(data) or 1
        for i in range(0, len(data), step):
            self._queue.append((_FRAME, end.peer, data[i:i + step]))
        return 0

    def _connect(self, ctx, node_id, host, port, out):
        return self._guard(self._do_connect, ffi.from_handle(ctx), node_id,
                           ffi.string(host).decode(), port, out)

    def _do_connect(self, ep, node_id, host, port, out):
        a = self._open(ep, node_id, self.listener(node_id, host, port))
        if a is None:
            return _IO
        out[0] = a.id
        return 0

    def _open(self, ep, node_id, listener):
        """A connection from ep to node node_id's listener; its connecting
        end, or None when the node is not running."""
        target = self.endpoints.get(node_id)
        if target is None or not target.alive:
            self.stats["connects_refused"] += 1
            return None
        a = _End(next(self._end_ids), ep, accepted=False)
        b = _End(next(self._end_ids), target, accepted=True)
        a.peer, b.peer = b, a
        self._ends[a.id] = a
        self._ends[b.id] = b
        if listener:
            self._queue.append((_ACCEPTED, b, listener))
        self.stats["connects"] += 1
        return a

    def _close(self, ctx, conn):
        self._guard(self._do_close, ffi.from_handle(ctx), conn)

    def _do_close(self, ep, conn):
        end = self._ends.get(conn)
        if end is not None and end.open and end.owner is ep:
            self._shut(end, notify_self=False)

    def _shut(self, end, notify_self):
        """Closes end's connection; the peer's owner is told, and end's
        own when notify_self (the host, not the node, closed it)."""
        for e in (end, end.peer):
            e.open = False
            e.rx.clear()
            self._ends.pop(e.id, None)
        self._queue.append((_CLOSED, end.peer, None))
        if notify_self:
            self._queue.append((_CLOSED, end, None))

    # -- delivery
    def _deliver(self, kind, end, payload):
        node = end.owner.node
        if kind == _CLOSED:
            if node is not None and end.owner.alive:
                node._closed(end.id)
            return
        if not end.open or not end.owner.alive:
            self.stats["dropped"] += 1
            return
        if kind == _ACCEPTED:
            node._accepted(end.id, payload)
            return
        end.rx += payload
        flen = ffi.new("size_t *")
        while end.open and end.rx:
            buf = ffi.from_buffer(end.rx)
            rc = lib.logrep_proto_frame(buf, len(end.rx), self.max_frame_bytes, flen)
            del buf
            if rc == lib.LOGREP_ERR__AGAIN:
                return
            if rc:  # a bad size prefix: the receiving host drops the connection
                self.stats["bad_frames"] += 1
                self._shut(end, notify_self=True)
                return
            frame = bytes(end.rx[:flen[0]])
            del end.rx[:flen[0]]
            self.stats["frames_delivered"] += 1
            if node is None:
                end.inbox.append(frame)
            elif end.accepted:
                node._request(end.id, frame)
            else:
                node._response(end.id, frame)

    def _raise_pending(self):
        if self._errors:
            e, self._errors = self._errors[0], []
            raise e

    def pending(self):
        """Messages queued, not yet delivered."""
        return len(self._queue)

    def pump(self, max_messages=100000):
        """Delivers queued bytes and notifications in order, those raised
        meanwhile included; returns how many were delivered."""
        n = 0
        while self._queue and n < max_messages:
            kind, end, payload = self._queue.popleft()
            self._deliver(kind, end, payload)
            n += 1
            self._raise_pending()
        self._raise_pending()
        return n

    def tick(self):
        """Ticks every running node at now; returns the earliest time one
        of them wants to be called again."""
        nxt = None
        for node in list(self.nodes.values()):
            t = node.tick()
            nxt = t if nxt is None else min(nxt, t)
            self._raise_pending()
        return self.now + 60000 if nxt is None else nxt

    def step(self, until, max_step=None):
        """One round: tick every node, deliver what that queued, tick again
        while deliveries made work, then move the clock to the earliest
        timer (at least 1 ms, at most max_step, never past `until`)."""
        nxt = self.tick()
        rounds = 0
        while self.pump() and rounds < 50:
            nxt = self.tick()
            rounds += 1
        for node in self.nodes.values():
            node._collect()
        target = max(nxt, self.now + 1)
        if max_step is not None:
            target = min(target, self.now + max_step)
        self.now = max(self.now, min(target, until))

    def run(self, ms, max_step=None):
        """Runs ms of virtual time."""
        end = self.now + ms
        while self.now < end:
            self.step(end, max_step)

    def run_until(self, pred, max_ms=10000, max_step=None):
        """Runs until pred() is true (checked between rounds) or max_ms
        passed; returns pred()'s last value."""
        end = self.now + max_ms
        while True:
            v = pred()
            if v or self.now >= end:
                return v
            self.step(end, max_step)


class Client:
    """A Kafka client on a Network: sends request Messages to nodes over
    connections of its own (one per node and listener) and takes their
    responses, running the network while it waits."""

    def __init__(self, network, client_id="python"):
        self.network = network
        self.client_id = client_id
        self._ep = _ClientEndpoint(client_id)
        self._conns = {}
        self._corr = itertools.count(1)

    def _conn(self, node_id, listener):
        end = self._conns.get((node_id, listener))
        if end is None or not end.open:
            end = self.network._open(self._ep, node_id, listener)
            if end is None:
                raise ConnectionRefusedError("node %d is not running" % node_id)
            self._conns[(node_id, listener)] = end
        return end

    def call(self, node_id, api, version, body=None, max_ms=10000, listener="PLAINTEXT"):
        """Sends one request and returns the decoded response Message.
        Raises ConnectionError when the node closed the connection
        without an answer, TimeoutError after max_ms of virtual time."""
        end = self._conn(node_id, listener)
        corr = next(self._corr)
        with Message.request(api, version, corr, self.client_id, body) as req:
            frame = req.encode()
            api_key = req.api_key
        self.network._queue.append((_FRAME, end.peer, frame))
        if not self.network.run_until(lambda: end.inbox or not end.open, max_ms):
            raise TimeoutError("no answer from node %d within %d ms" % (node_id, max_ms))
        if not end.inbox:
            raise ConnectionError("node %d closed the connection" % node_id)
        resp = Message().decode_response(api_key, version, end.inbox.popleft())
        if resp.correlation_id != corr:
            raise ConnectionError("answer %d to request %d" % (resp.correlation_id, corr))
        return resp

    def close(self):
        for end in self._conns.values():
            if end.open:
                self.network._shut(end, notify_self=False)
        self._conns.clear()


# ---------------------------------------------------------------- node

class Node(GroupsMixin, Handle):
    """A logrep_node on a Network.

    conf: a Conf or a dict of properties (node.id, process.roles,
    controller.quorum.voters, advertised.listeners, log.dirs, ...).
    storage: a Storage (borrowed, must outlive the node), or None for a
    POSIX storage of the node's own, freed with it. logger: as
    Conf.set_logger (a callable or a logging.Logger).

    In-process calls (produce, fetch, list_offsets, create_topic,
    delete_topic, and commit_offsets of GroupsMixin) return a token at once; their outcome is an Event,
    collected after each network round and taken with wait(token) or
    poll(). Closing frees the node (close(abandon=True) as a power loss
    would) and closes its connections, which its peers see.
    """

    _what = "node"

    def __init__(self, network, conf, storage=None, logger=None):
        c, owned = as_conf(conf)
        if c is None:
            raise ValueError("a node needs a conf (node.id, process.roles, ...)")
        if logger is not None:
            if not owned:
                c = c.copy()
                owned = True
            c.set_logger(logger)
        self.network = network
        self.node_id = c.get_int("node.id")
        self._callbacks = c.callbacks  # the log hook outlives the node
        self._own_storage = storage is None
        self.storage = Storage.posix(c) if storage is None else storage
        self._ep = network._attach(self.node_id)
        self._tokens = itertools.count(1)
        self._ready = collections.OrderedDict()  # token -> Event
        self._ev = ffi.new("logrep_node_event *")
        err = ffi.new("char[256]")
        out = ffi.new("logrep_node **")
        try:
            rc = lib.logrep_node_new(c.ptr, self.storage.ptr, self._ep.transport, network.now,
                                     err, 256, out)
        finally:
            if owned:
                c.close()
        if rc:
            self._ep.node = None
            if self._own_storage:
                self.storage.close()
            raise LogrepError(rc, ffi.string(err).decode(errors="replace"), "logrep_node_new")
        self._h = out[0]
        self.storage._use()
        self._ep.node = self

    # -- lifetime
    def close(self, abandon=False):
        """Frees the node without a controlled shutdown; with abandon its
        logs are dropped unflushed (a power loss). Its connections close."""
        h, self._h = self._h, None
        if h is None:
            return
        lib.logrep_node_free(h, int(bool(abandon)))
        self.network._detach(self._ep)
        self.storage._release()
        if self._own_storage:
            self.storage.close()

    def kill(self):
        """close(abandon=True)."""
        self.close(abandon=True)

    def __del__(self):
        self.close()

    # -- host input, called by the network
    def _request(self, conn, frame):
        lib.logrep_node_request(self.ptr, conn, ffi.from_buffer(frame), len(frame),
                                self.network.now)

    def _response(self, conn, frame):
        lib.logrep_node_response(self.ptr, conn, ffi.from_buffer(frame), len(frame),
                                 self.network.now)

    def _accepted(self, conn, listener):
        check(lib.logrep_node_accepted(self.ptr, conn, listener.encode()), "logrep_node_accepted")

    def _closed(self, conn):
        lib.logrep_node_closed(self.ptr, conn, self.network.now)

    def tick(self, now_ms=None):
        """Periodic work at now_ms (default the network's time); returns
        when to call again."""
        return lib.logrep_node_tick(self.ptr, self.network.now if now_ms is None else now_ms)

    def shutdown(self):
        """Starts a controlled shutdown; run the network until shutdown_done."""
        check(lib.logrep_node_shutdown(self.ptr, self.network.now), "logrep_node_shutdown")

    @property
    def shutdown_done(self):
        return bool(lib.logrep_node_shutdown_done(self.ptr))

    # -- in-process calls (<logrep/inproc.h>)
    def _token(self, token):
        return next(self._tokens) if token is None else token

    def produce(self, topic, partition, batch, acks=-1, timeout_ms=30000, token=None):
        """Produces record batches (bytes, as build_batch makes them) to a
        partition this node leads. Returns the token of its Event."""
        token = self._token(token)
        check(lib.logrep_node_produce(self.ptr, topic.encode(), partition, ffi.from_buffer(batch),
                                      len(batch), acks, timeout_ms, token, self.network.now),
              "logrep_node_produce")
        return token

    def fetch(self, topic, partition, offset, max_bytes=1 << 20, read_committed=False,
              max_wait_ms=0, token=None):
        """Fetches whole batches from offset, as a consumer."""
        token = self._token(token)
        check(lib.logrep_node_fetch(self.ptr, topic.encode(), partition, offset, max_bytes,
                                    int(read_committed), max_wait_ms, token, self.network.now),
              "logrep_node_fetch")
        return token

    def list_offsets(self, topic, partition, timestamp=lib.LOGREP_OFFSET_LATEST,
                     read_committed=False, token=None):
        """ListOffsets on the partition's leader (this node)."""
        token = self._token(token)
        check(lib.logrep_node_list_offsets(self.ptr, topic.encode(), partition, timestamp,
                                           int(read_committed), token, self.network.now),
              "logrep_node_list_offsets")
        return token

    def create_topic(self, name, partitions=-1, replication_factor=-1, configs=None,
                     timeout_ms=30000, token=None):
        """Creates a topic through the controller; configs: {name: value}."""
        token = self._token(token)
        items = [(str(k).encode(), str(v).encode()) for k, v in (configs or {}).items()]
        keep = [ffi.new("char[]", s) for kv in items for s in kv]
        names = ffi.new("const char *[]", keep[0::2]) if items else ffi.NULL
        values = ffi.new("const char *[]", keep[1::2]) if items else ffi.NULL
        check(lib.logrep_node_create_topic(self.ptr, name.encode(), partitions,
                                           replication_factor, names, values, len(items),
                                           timeout_ms, token, self.network.now),
              "logrep_node_create_topic")
        return token

    def delete_topic(self, name, timeout_ms=30000, token=None):
        token = self._token(token)
        check(lib.logrep_node_delete_topic(self.ptr, name.encode(), timeout_ms, token,
                                           self.network.now),
              "logrep_node_delete_topic")
        return token

    # -- events
    def _collect(self):
        """Moves completed calls from the node's queue to ours."""
        if self._h is None:
            return
        while lib.logrep_node_poll(self._h, self._ev):
            e = Event(self._ev)
            self._ready[e.token] = e

    def poll(self):
        """The oldest completed call's Event, or None."""
        self._collect()
        if not self._ready:
            return None
        return self._ready.popitem(last=False)[1]

    def wait(self, token, max_ms=10000, check_error=False):
        """Runs the network until the call `token` completes; returns its
        Event (raising LogrepError for a failed call with check_error).
        Raises TimeoutError after max_ms of virtual time."""

        def done():
            self._collect()
            return token in self._ready

        if not self.network.run_until(done, max_ms):
            raise TimeoutError("node %d: no event for token %d within %d ms"
                               % (self.node_id, token, max_ms))
        ev = self._ready.pop(token)
        return ev.raise_for_error() if check_error else ev

    # -- observability
    @property
    def id(self):
        return lib.logrep_node_id(self.ptr)

    @property
    def is_controller(self):
        return bool(lib.logrep_node_is_controller(self.ptr))

    def partitions(self):
        """Every partition replica this node hosts: [PartitionInfo]."""
        out = []
        info = ffi.new("logrep_node_partition_info *")
        for i in range(lib.logrep_node_partition_count(self.ptr)):
            if lib.logrep_node_partition(self.ptr, i, info) == 0:
                out.append(PartitionInfo(info[0]))
        return out

    def partition(self, topic, partition):
        """This node's PartitionInfo of topic-partition, or None."""
        for p in self.partitions():
            if p.topic == topic and p.partition == partition:
                return p
        return None

    def stats(self):
        out = ffi.new("logrep_node_stats *")
        lib.logrep_node_stats_get(self.ptr, out)
        return _struct_dict(out[0], "logrep_node_stats")

    def describe(self, topic=None, filter_=0):
        """kafka-topics --describe as text, from this node's metadata."""
        t = topic.encode() if topic else ffi.NULL
        n = lib.logrep_node_describe(self.ptr, t, filter_, ffi.NULL, 0)
        buf = ffi.new("char[]", n + 1)
        lib.logrep_node_describe(self.ptr, t, filter_, buf, n + 1)
        return ffi.string(buf).decode()

    def __repr__(self):
        state = "closed" if self._h is None else "running"
        return "<Node %d %s>" % (self.node_id, state)

