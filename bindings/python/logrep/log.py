"""Storage backends (logrep_storage) and the partition log (logrep_log)."""

from ._ffi import ffi, lib
from ._handle import Handle
from .batch import _bytes, iter_batches
from .conf import Conf, construct
from .errors import LogrepError, check

__all__ = ["Storage", "PartitionLog", "RecoveryInfo", "AppendInfo", "Slice", "INT64_MAX"]

INT64_MAX = (1 << 63) - 1


def _struct_dict(cdata, ctype):
    return {name: getattr(cdata, name) for name, _ in ffi.typeof(ctype).fields}


class _Info:
    """A C struct's fields copied into attributes."""

    CTYPE = None

    def __init__(self, cdata):
        self.__dict__.update(_struct_dict(cdata, self.CTYPE))

    def as_dict(self):
        return dict(self.__dict__)

    def __eq__(self, other):
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__,
                           ", ".join("%s=%r" % kv for kv in self.__dict__.items()))


class RecoveryInfo(_Info):
    """What opening the log found and did (logrep_log_recovery)."""

    CTYPE = "logrep_log_recovery"


class AppendInfo(_Info):
    """Result of an append (logrep_log_append_info)."""

    CTYPE = "logrep_log_append_info"


class Slice:
    """Where a read's batches are (logrep_log_slice), without the file."""

    def __init__(self, s):
        self.segment_base = s.segment_base
        self.position = s.position
        self.length = s.length
        self.first_offset = s.first_offset
        self.next_offset = s.next_offset

    def __repr__(self):
        return "Slice(segment_base=%d, position=%d, length=%d, first=%d, next=%d)" % (
            self.segment_base, self.position, self.length, self.first_offset, self.next_offset)


class Storage(Handle):
    """A logrep_storage made by one of the library's backends; the library
    does the I/O through its vtable. Close it after every log and node
    using it (the handles made by this binding keep it alive)."""

    _what = "storage"

    def __init__(self, ptr, kind):
        self._h = ptr
        self.kind = kind
        self._users = 0

    @classmethod
    def _new(cls, ctor, kind, conf, *args):
        return cls(construct(ctor, "logrep_storage **", conf, *args), kind)

    @classmethod
    def posix(cls, conf=None):
        """POSIX files (logrep_storage_posix_new)."""
        return cls._new(lib.logrep_storage_posix_new, "posix", conf)

    @classmethod
    def memory(cls, conf=None):
        """A file system in memory (logrep_storage_memory_new)."""
        return cls._new(lib.logrep_storage_memory_new, "memory", conf)

    @classmethod
    def crash(cls, conf=None, sector_size=512):
        """The crash-simulating memory file system (logrep_storage_crash_new)."""
        return cls._new(lib.logrep_storage_crash_new, "crash", conf, sector_size)

    def _use(self):
        self.ptr  # noqa: B018 - raises when closed
        self._users += 1

    def _release(self):
        self._users -= 1

    def read(self, file, pos, length):
        """Bytes [pos, pos+length) of an open file (a logrep_file *)."""
        buf = ffi.new("uint8_t[]", length)
        n = ffi.new("size_t *")
        s = self.ptr
        check(s.read(s.ctx, file, pos, buf, length, n), "storage.read")
        return bytes(ffi.buffer(buf, n[0]))

    def fd_stats(self):
        """Descriptor pool counters of a POSIX storage."""
        out = ffi.new("logrep_storage_fd_stats *")
        check(lib.logrep_storage_posix_fd_stats(self.ptr, out), "logrep_storage_posix_fd_stats")
        return _struct_dict(out[0], "logrep_storage_fd_stats")

    def simulate_crash(self, seed=0, mode=None):
        """A power loss on a crash storage (LOGREP_CRASH_* mode)."""
        mode = lib.LOGREP_CRASH_DROP_ALL if mode is None else mode
        check(lib.logrep_storage_crash_simulate(self.ptr, seed, mode),
              "logrep_storage_crash_simulate")

    def close(self):
        if self._h is not None and self._users:
            raise RuntimeError("storage still used by %d open handle(s)" % self._users)
        super().close()

    _free = staticmethod(lib.logrep_storage_free)

    def __del__(self):
        if not self._users:
            self.close()


class PartitionLog(Handle):
    """One partition directory (logrep_log) on a storage.

    Opening runs crash recovery; recovery_info says what it found. With no
    storage given, the log opens a POSIX storage of its own.

    >>> with PartitionLog("/tmp/t-0") as log:
    ...     log.append(build_batch([b"a", b"b"]), leader_epoch=0)
    """

    def __init__(self, directory, conf=None, storage=None, now_ms=0):
        self.directory = str(directory)
        if storage is None:
            storage = Storage.posix(conf)
            self._own_storage = True
        else:
            self._own_storage = False
        self.storage = storage
        # The conf's log hook must outlive the log.
        self._callbacks = conf.callbacks if isinstance(conf, Conf) else ()
        try:
            self._h = construct(lib.logrep_log_open, "logrep_log **", conf, storage.ptr,
                                self.directory.encode(), now_ms, detail=self.directory)
        except LogrepError:
            if self._own_storage:
                storage.close()
            raise
        storage._use()

    _what = "log"

    # -- lifetime
    def _end(self, free):
        h, self._h = self._h, None
        if h is None:
            return 0
        rc = free(h)
        self.storage._release()
        if self._own_storage:
            self.storage.close()
        return rc

    def close(self):
        """Flushes, checkpoints and closes (logrep_log_close)."""
        check(self._end(lib.logrep_log_close), "logrep_log_close")

    def abandon(self):
        """Frees the log without flushing anything, as a crash would."""
        self._end(lib.logrep_log_abandon)

    def __del__(self):
        self.abandon()

    # -- state
    @property
    def recovery_info(self):
        return RecoveryInfo(lib.logrep_log_recovery_info(self.ptr)[0])

    @property
    def start_offset(self):
        return lib.logrep_log_start_offset(self.ptr)

    @property
    def end_offset(self):
        return lib.logrep_log_end_offset(self.ptr)

    @property
    def recovery_point(self):
        return lib.logrep_log_recovery_point(self.ptr)

    @property
    def size(self):
        return lib.logrep_log_size(self.ptr)

    @property
    def segment_count(self):
        return lib.logrep_log_segment_count(self.ptr)

    @property
    def latest_epoch(self):
        return lib.logrep_log_latest_epoch(self.ptr)

    def epochs(self):
        """The leader-epoch cache: [(epoch, start_offset)], oldest first."""
        out = []
        e = ffi.new("int32_t *")
        o = ffi.new("int64_t *")
        i = 0
        while lib.logrep_log_epoch_entry(self.ptr, i, e, o) == 0:
            out.append((e[0], o[0]))
            i += 1
        return out

    # -- writes
    def append(self, batches, leader_epoch=0, now_ms=0):
        """Appends record batches as the leader in leader_epoch: offsets are
        assigned from the log end. Returns AppendInfo."""
        buf = bytearray(_bytes(batches, "batches"))
        info = ffi.new("logrep_log_append_info *")
        check(lib.logrep_log_append_leader(self.ptr, ffi.from_buffer(buf), len(buf),
                                           leader_epoch, now_ms, info),
              "logrep_log_append_leader")
        return AppendInfo(info[0])

    def append_follower(self, batches, now_ms=0):
        """Appends batches that carry their offsets (a follower's copy)."""
        b = _bytes(batches, "batches")
        info = ffi.new("logrep_log_append_info *")
        check(lib.logrep_log_append_follower(self.ptr, ffi.from_buffer(b), len(b), now_ms, info),
              "logrep_log_append_follower")
        return AppendInfo(info[0])

    def truncate(self, offset):
        """Removes every batch at or above offset (the batch holding it whole)."""
        check(lib.logrep_log_truncate(self.ptr, offset), "logrep_log_truncate")

    def advance_start(self, offset):
        check(lib.logrep_log_advance_start(self.ptr, offset), "logrep_log_advance_start")

    def roll(self, now_ms=0):
        check(lib.logrep_log_roll(self.ptr, now_ms), "logrep_log_roll")

    def flush(self, now_ms=0):
        check(lib.logrep_log_flush(self.ptr, now_ms), "logrep_log_flush")

    def checkpoint(self):
        check(lib.logrep_log_checkpoint(self.ptr), "logrep_log_checkpoint")

    def tick(self, now_ms):
        """Periodic flush and checkpoint; returns when to call again."""
        nxt = ffi.new("int64_t *")
        check(lib.logrep_log_tick(self.ptr, now_ms, nxt), "logrep_log_tick")
        return nxt[0]

    def retention(self, now_ms, limit=None):
        """Deletes segments past retention; returns how many."""
        n = ffi.new("int32_t *")
        if limit is None:
            check(lib.logrep_log_retention(self.ptr, now_ms, n), "logrep_log_retention")
        else:
            check(lib.logrep_log_retention_upto(self.ptr, now_ms, limit, n),
                  "logrep_log_retention_upto")
        return n[0]

    def epoch_assign(self, epoch, start_offset):
        check(lib.logrep_log_epoch_assign(self.ptr, epoch, start_offset),
              "logrep_log_epoch_assign")

    # -- reads
    def read_slice(self, offset, max_bytes=1 << 20, max_offset=INT64_MAX, min_one=True):
        """(Slice, bytes): whole batches of one segment from the batch
        holding offset, at most max_bytes (the first whole with min_one),
        only those ending below max_offset."""
        s = ffi.new("logrep_log_slice *")
        check(lib.logrep_log_read(self.ptr, offset, max_bytes, max_offset, int(min_one), s),
              "logrep_log_read")
        data = self.storage.read(s.file, s.position, s.length) if s.length else b""
        return Slice(s), data

    def read(self, offset, max_bytes=1 << 20, max_offset=INT64_MAX, min_one=True):
        """The bytes of read_slice()."""
        return self.read_slice(offset, max_bytes, max_offset, min_one)[1]

    def batches(self, start=None, end=None, max_bytes=1 << 20):
        """(BatchHeader, [Record]) of every batch holding offsets in
        [start, end) (default: the whole log), across segments."""
        offset = self.start_offset if start is None else start
        end = self.end_offset if end is None else end
        while offset < end:
            sl, data = self.read_slice(offset, max_bytes, INT64_MAX, True)
            if not sl.length:
                return
            for h, recs in iter_batches(data):
                yield h, recs
            offset = sl.next_offset

    def records(self, start=None, end=None):
        """Every Record with an offset in [start, end)."""
        lo = self.start_offset if start is None else start
        hi = self.end_offset if end is None else end
        for _, recs in self.batches(lo, hi):
            for r in recs:
                if lo <= r.offset < hi:
                    yield r

    def offset_for_time(self, timestamp):
        """(offset, timestamp) of the first record at or after timestamp,
        or of a LOGREP_OFFSET_* special value; None when none is that recent."""
        o = ffi.new("int64_t *")
        t = ffi.new("int64_t *")
        rc = lib.logrep_log_offset_for_time(self.ptr, timestamp, o, t)
        if rc == lib.LOGREP_ERR__NOENT:
            return None
        check(rc, "logrep_log_offset_for_time")
        return o[0], t[0]
