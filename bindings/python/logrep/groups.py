"""Consumer groups and committed offsets on an embedded node
(<logrep/groups.h>), mixed into Node.

The calls act on the groups this node coordinates (it leads their
__consumer_offsets partition); any other group answers NOT_COORDINATOR,
as FindCoordinator would tell a client. A commit completes as a "commit"
Event (its errors list the partitions' codes, in the order given), once
its records are committed: an acknowledged commit survives a coordinator
failover. Fetching, describing and listing answer at once, from the
coordinator's memory.
"""

from ._ffi import ffi, lib
from .errors import check

__all__ = ["GroupsMixin"]


def _str(p):
    return ffi.string(p).decode() if p != ffi.NULL else None


def _bytes(p, n):
    return bytes(ffi.buffer(p, n)) if p != ffi.NULL and n else b""


def _group_dict(g, members):
    d = dict(group_id=_str(g.group_id), state=_str(g.state), protocol_type=_str(g.protocol_type),
             protocol=_str(g.protocol), leader=_str(g.leader), generation=g.generation)
    if members:
        d["members"] = [dict(member_id=_str(m.member_id), instance_id=_str(m.instance_id),
                             client_id=_str(m.client_id), client_host=_str(m.client_host),
                             metadata=_bytes(m.metadata, m.metadata_len),
                             assignment=_bytes(m.assignment, m.assignment_len))
                        for m in (g.members[i] for i in range(g.n_members))]
    return d


def _offset_items(offsets):
    """{(topic, partition): offset | (offset, metadata) | (offset, metadata, leader_epoch)}."""
    for (topic, partition), v in offsets.items():
        if isinstance(v, tuple):
            offset = v[0]
            metadata = v[1] if len(v) > 1 else None
            epoch = v[2] if len(v) > 2 else -1
        else:
            offset, metadata, epoch = v, None, -1
        yield topic, partition, offset, metadata, epoch


class GroupsMixin:
    """Node methods for consumer offsets; needs self.ptr, self.network and
    self._token (Node)."""

    def group_coordinator(self, group):
        """The id of the node coordinating `group`, or None while there is
        none yet (the first ask creates __consumer_offsets: ask again
        after the network ran, as a client retries FindCoordinator)."""
        out = ffi.new("int32_t *")
        rc = lib.logrep_node_group_coordinator(self.ptr, group.encode(), self.network.now, out)
        if rc == lib.LOGREP_ERR_COORDINATOR_NOT_AVAILABLE:
            return None
        check(rc, "logrep_node_group_coordinator")
        return out[0]

    def commit_offsets(self, group, offsets, token=None):
        """Commits offsets for `group` as an admin commit (no member or
        generation; refused with UNKNOWN_MEMBER_ID while the group has
        members). offsets: {(topic, partition): offset, or (offset,
        metadata[, leader_epoch])}. Returns the token of its "commit"
        Event."""
        token = self._token(token)
        items = list(_offset_items(offsets))
        arr = ffi.new("logrep_group_offset[]", max(len(items), 1))
        keep = []
        for i, (topic, partition, offset, metadata, epoch) in enumerate(items):
            t = ffi.new("char[]", topic.encode())
            m = ffi.new("char[]", metadata.encode()) if metadata is not None else ffi.NULL
            keep += [t, m]
            arr[i].topic, arr[i].partition, arr[i].offset = t, partition, offset
            arr[i].leader_epoch, arr[i].metadata = epoch, m
        check(lib.logrep_node_commit_offsets(self.ptr, group.encode(), arr, len(items), token,
                                             self.network.now),
              "logrep_node_commit_offsets")
        return token

    def fetch_offsets(self, group, partitions):
        """Committed offsets of `group` for [(topic, partition)]:
        {(topic, partition): (offset, metadata, leader_epoch)}, offset -1
        where none is committed. Raises LogrepError with the group's error
        (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS ...)."""
        parts = list(partitions)
        arr = ffi.new("logrep_group_offset[]", max(len(parts), 1))
        keep = []
        for i, (topic, partition) in enumerate(parts):
            t = ffi.new("char[]", topic.encode())
            keep.append(t)
            arr[i].topic, arr[i].partition = t, partition
        check(lib.logrep_node_fetch_offsets(self.ptr, group.encode(), arr, len(parts)),
              "logrep_node_fetch_offsets")
        out = {}
        for i, key in enumerate(parts):
            check(arr[i].error, "logrep_node_fetch_offsets %s-%d" % key)
            out[key] = (arr[i].offset, _str(arr[i].metadata), arr[i].leader_epoch)
        return out

    def describe_group(self, group):
        """The group as DescribeGroups shows it (a dict with members)."""
        found = []

        @ffi.callback("void(void *, const logrep_group_info *)")
        def cb(_ctx, g):
            found.append(_group_dict(g, True))

        check(lib.logrep_node_describe_group(self.ptr, group.encode(), cb, ffi.NULL),
              "logrep_node_describe_group")
        return found[0] if found else None

    def list_groups(self):
        """Every group this node coordinates: [dict] (no members)."""
        found = []

        @ffi.callback("void(void *, const logrep_group_info *)")
        def cb(_ctx, g):
            found.append(_group_dict(g, False))

        check(lib.logrep_node_list_groups(self.ptr, cb, ffi.NULL), "logrep_node_list_groups")
        return found

    def group_lags(self):
        """Every committed offset this node's groups hold, with its lag:
        [dict(group, topic, partition, offset, high_watermark, lag)]."""
        found = []

        @ffi.callback("void(void *, const logrep_group_lag *)")
        def cb(_ctx, g):
            found.append(dict(group=_str(g.group), topic=_str(g.topic), partition=g.partition,
                              offset=g.offset, high_watermark=g.high_watermark, lag=g.lag))

        check(lib.logrep_node_group_lags(self.ptr, cb, ffi.NULL), "logrep_node_group_lags")
        return found
