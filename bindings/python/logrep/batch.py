"""Record batches in Kafka's v2 format, CRC-32C and murmur2 partitioning."""

from ._ffi import ffi, lib
from ._handle import Handle
from .conf import construct
from .errors import LogrepError, check

__all__ = [
    "Record",
    "BatchHeader",
    "BatchBuilder",
    "BatchReader",
    "build_batch",
    "read_batch",
    "iter_batches",
    "iter_records",
    "parse_header",
    "verify",
    "stamp",
    "crc32c",
    "murmur2",
    "murmur2_partition",
    "compression_codec",
    "compression_name",
    "Partitioner",
    "COMPRESSION",
]

#: Codec names and their LOGREP_COMPRESSION_* values.
COMPRESSION = {
    "none": lib.LOGREP_COMPRESSION_NONE,
    "gzip": lib.LOGREP_COMPRESSION_GZIP,
    "snappy": lib.LOGREP_COMPRESSION_SNAPPY,
    "lz4": lib.LOGREP_COMPRESSION_LZ4,
    "zstd": lib.LOGREP_COMPRESSION_ZSTD,
}


def _bytes(v, what="value"):
    """bytes-like or str (UTF-8) -> bytes-like; None stays None."""
    if v is None:
        return None
    if isinstance(v, str):
        return v.encode()
    if isinstance(v, (bytes, bytearray, memoryview)):
        return v
    raise TypeError("%s must be bytes, str or None, not %s" % (what, type(v).__name__))


def _ptr(b):
    """(pointer, length) for bytes-like b (NULL, -1 for None)."""
    if b is None:
        return ffi.NULL, -1
    return ffi.from_buffer("uint8_t[]", b), len(b)


def _copy(p, n):
    if n < 0 or p == ffi.NULL:
        return None
    return bytes(ffi.buffer(p, n)) if n else b""


def compression_codec(c):
    """A codec value from a name ("gzip"), a value, or None (none)."""
    if c is None:
        return lib.LOGREP_COMPRESSION_NONE
    if isinstance(c, str):
        v = lib.logrep_compression_from_name(c.encode())
        if v < 0:
            raise ValueError("unknown compression %r" % c)
        return v
    return int(c)


def compression_name(codec):
    p = lib.logrep_compression_name(int(codec))
    return ffi.string(p).decode() if p != ffi.NULL else None


# ---------------------------------------------------------------- checksums

def crc32c(data, crc=0):
    """CRC-32C (Castagnoli); pass the previous value to continue."""
    b = _bytes(data, "data")
    return lib.logrep_crc32c(crc, ffi.from_buffer(b), len(b))


def murmur2(key):
    """Kafka's murmur2 of key, as the int32 Java returns."""
    b = _bytes(key, "key")
    return lib.logrep_murmur2(ffi.from_buffer(b), len(b))


def murmur2_partition(key, num_partitions):
    """Kafka's default partition of a keyed record; -1 when num_partitions < 1."""
    b = _bytes(key, "key")
    return lib.logrep_murmur2_partition(ffi.from_buffer(b), len(b), num_partitions)


class Partitioner(Handle):
    """The producer's built-in partitioner (KIP-794): keyed records by
    murmur2, keyless ones sticky (logrep.random.seed makes it reproducible)."""

    def __init__(self, num_partitions, conf=None):
        self._h = construct(lib.logrep_partitioner_new, "logrep_partitioner **", conf,
                            num_partitions)

    _what = "partitioner"
    _free = staticmethod(lib.logrep_partitioner_free)

    def choose(self, key, record_bytes=0):
        b = _bytes(key, "key")
        p, n = _ptr(b)
        return lib.logrep_partitioner_choose(self.ptr, p, max(n, 0), record_bytes)

    def set_load(self, partition, queued_bytes, available=True):
        check(lib.logrep_partitioner_set_load(self.ptr, partition, queued_bytes, int(available)),
              "logrep_partitioner_set_load")


# ---------------------------------------------------------------- reading

class BatchHeader:
    """The 61-byte header of a v2 batch (logrep_batch_header), decoded."""

    FIELDS = tuple(name for name, _ in ffi.typeof("logrep_batch_header").fields)
    __slots__ = FIELDS

    def __init__(self, h):
        for f in self.FIELDS:
            setattr(self, f, getattr(h, f))

    @property
    def size(self):
        """Bytes of the whole batch: 12 + batch_length."""
        return lib.LOGREP_LOG_OVERHEAD + self.batch_length

    @property
    def last_offset(self):
        return self.base_offset + self.last_offset_delta

    @property
    def compression(self):
        return self.attributes & lib.LOGREP_ATTR_COMPRESSION_MASK

    @property
    def is_control(self):
        return bool(self.attributes & lib.LOGREP_ATTR_CONTROL)

    @property
    def is_transactional(self):
        return bool(self.attributes & lib.LOGREP_ATTR_TRANSACTIONAL)

    def as_dict(self):
        return {f: getattr(self, f) for f in self.FIELDS}

    def __repr__(self):
        return "BatchHeader(%s)" % ", ".join("%s=%r" % kv for kv in self.as_dict().items())


class Record:
    """One record, its bytes copied out of the batch."""

    __slots__ = ("offset", "timestamp", "key", "value", "headers", "offset_delta",
                 "timestamp_delta", "sequence")

    def __init__(self, offset, timestamp, key, value, headers=(), offset_delta=0,
                 timestamp_delta=0, sequence=-1):
        self.offset = offset
        self.timestamp = timestamp
        self.key = key
        self.value = value
        self.headers = list(headers)
        self.offset_delta = offset_delta
        self.timestamp_delta = timestamp_delta
        self.sequence = sequence

    @classmethod
    def _from_c(cls, rec):
        headers = []
        if rec.header_count:
            cursor = ffi.new("size_t *", 0)
            h = ffi.new("logrep_header *")
            while lib.logrep_record_header_next(rec, cursor, h) == 0:
                headers.append((_copy(h.key, h.key_len), _copy(h.value, h.value_len)))
        return cls(rec.offset, rec.timestamp, _copy(rec.key, rec.key_len),
                   _copy(rec.value, rec.value_len), headers, rec.offset_delta,
                   rec.timestamp_delta, rec.sequence)

    def __eq__(self, other):
        if not isinstance(other, Record):
            return NotImplemented
        return all(getattr(self, s) == getattr(other, s) for s in self.__slots__)

    def __repr__(self):
        return "Record(offset=%d, timestamp=%d, key=%r, value=%r, headers=%r)" % (
            self.offset, self.timestamp, self.key, self.value, self.headers)


def parse_header(buf):
    """Decodes a batch's header (logrep_batch_header_parse: no CRC check)."""
    b = _bytes(buf, "buf")
    h = ffi.new("logrep_batch_header *")
    check(lib.logrep_batch_header_parse(ffi.from_buffer(b), len(b), h),
          "logrep_batch_header_parse")
    return BatchHeader(h)


def verify(buf):
    """Checks the batch at the start of buf, CRC included; returns its size.
    Raises LogrepError (_AGAIN incomplete, _CORRUPT, _UNSUPPORTED)."""
    b = _bytes(buf, "buf")
    size = ffi.new("size_t *")
    check(lib.logrep_batch_verify(ffi.from_buffer(b), len(b), size), "logrep_batch_verify")
    return size[0]


def stamp(buf, base_offset, partition_leader_epoch=-1):
    """Writes baseOffset and partitionLeaderEpoch into a batch (a bytearray)
    in place, as a leader does; the CRC stays valid."""
    if not isinstance(buf, bytearray):
        raise TypeError("stamp needs a bytearray")
    check(lib.logrep_batch_stamp(ffi.from_buffer(buf), len(buf), base_offset,
                                 partition_leader_epoch), "logrep_batch_stamp")


class BatchReader(Handle):
    """A logrep_batch_reader: verifies, decompresses and iterates one batch
    at a time; reusable."""

    def __init__(self, conf=None):
        self._h = construct(lib.logrep_batch_reader_new, "logrep_batch_reader **", conf)
        self._buf = None  # keeps the open batch's bytes alive
        self._rec = ffi.new("logrep_record *")

    _what = "batch reader"

    def _free(self, h):
        self._buf = None
        lib.logrep_batch_reader_free(h)

    def _errmsg(self):
        return ffi.string(lib.logrep_batch_reader_errmsg(self.ptr)).decode(errors="replace")

    def open(self, buf):
        """Opens the batch at the start of buf; returns its BatchHeader."""
        b = _bytes(buf, "buf")
        self._buf = ffi.from_buffer(b)
        h = ffi.new("logrep_batch_header *")
        rc = lib.logrep_batch_reader_open(self.ptr, self._buf, len(b), h)
        if rc:
            self._buf = None
            raise LogrepError(rc, self._errmsg(), "logrep_batch_reader_open")
        return BatchHeader(h)

    def next(self):
        """The next Record, or None after the last."""
        rc = lib.logrep_batch_reader_next(self.ptr, self._rec)
        if rc == lib.LOGREP_ERR__END:
            return None
        if rc:
            raise LogrepError(rc, self._errmsg(), "logrep_batch_reader_next")
        return Record._from_c(self._rec)

    def __iter__(self):
        while True:
            r = self.next()
            if r is None:
                return
            yield r

    def validate(self):
        """Reads every record to validate the batch, then rewinds."""
        rc = lib.logrep_batch_reader_validate(self.ptr)
        if rc:
            raise LogrepError(rc, self._errmsg(), "logrep_batch_reader_validate")

    def read(self, buf):
        """(BatchHeader, [Record]) of the batch at the start of buf."""
        h = self.open(buf)
        return h, list(self)


def read_batch(buf, conf=None):
    """(BatchHeader, [Record]) of the one batch at the start of buf."""
    with BatchReader(conf) as r:
        return r.read(buf)


def iter_batches(buf, conf=None, partial_ok=True):
    """(BatchHeader, [Record]) of every batch in buf, back to back. A
    trailing partial batch (a fetch may end with one) ends the iteration,
    or raises with partial_ok=False."""
    b = memoryview(_bytes(buf, "buf")).cast("B")
    pos = 0
    with BatchReader(conf) as r:
        while pos < len(b):
            try:
                h = r.open(b[pos:])
            except LogrepError as e:
                if e.code == lib.LOGREP_ERR__AGAIN and partial_ok:
                    return
                raise
            yield h, list(r)
            pos += h.size


def iter_records(buf, conf=None):
    """Every Record of every batch in buf."""
    for _, recs in iter_batches(buf, conf):
        yield from recs


# ---------------------------------------------------------------- building

def _headers_of(headers):
    if not headers:
        return []
    items = headers.items() if isinstance(headers, dict) else headers
    out = []
    for k, v in items:
        kb = _bytes(k, "header key")
        if kb is None:
            raise ValueError("record header keys cannot be null")
        out.append((kb, _bytes(v, "header value")))
    return out


class BatchBuilder(Handle):
    """A logrep_batch_builder: add records, finish() returns the batch.

    >>> b = BatchBuilder(compression="gzip")
    >>> b.add(b"v", key=b"k", headers=[("h", b"x")], timestamp=1700000000000)
    >>> batch = b.finish()
    """

    def __init__(self, compression=None, level=0, conf=None, producer=None, base_offset=None,
                 leader_epoch=-1, flags=0):
        self._h = construct(lib.logrep_batch_builder_new, "logrep_batch_builder **", conf)
        if compression is not None or level:
            self.set_compression(compression, level)
        if producer is not None:
            self.set_producer(*producer)
        if base_offset is not None:
            self.set_base(base_offset, leader_epoch)
        if flags:
            self.set_flags(flags)

    _what = "batch builder"
    _free = staticmethod(lib.logrep_batch_builder_free)

    def set_compression(self, compression, level=0):
        check(lib.logrep_batch_builder_set_compression(self.ptr, compression_codec(compression),
                                                       level),
              "logrep_batch_builder_set_compression")

    def set_producer(self, producer_id, producer_epoch, base_sequence):
        check(lib.logrep_batch_builder_set_producer(self.ptr, producer_id, producer_epoch,
                                                    base_sequence),
              "logrep_batch_builder_set_producer")

    def set_flags(self, flags):
        check(lib.logrep_batch_builder_set_flags(self.ptr, flags), "logrep_batch_builder_set_flags")

    def set_base(self, base_offset, partition_leader_epoch=-1):
        lib.logrep_batch_builder_set_base(self.ptr, base_offset, partition_leader_epoch)

    def add(self, value, key=None, headers=None, timestamp=-1):
        """Appends a record. key/value: bytes, str or None (null);
        headers: [(key, value)] or a dict; timestamp in ms, -1 none."""
        kb, vb = _bytes(key, "key"), _bytes(value, "value")
        kp, kl = _ptr(kb)
        vp, vl = _ptr(vb)
        hs = _headers_of(headers)
        keep = []
        if hs:
            arr = ffi.new("logrep_header[]", len(hs))
            for i, (hk, hv) in enumerate(hs):
                hkp, hkl = _ptr(hk)
                hvp, hvl = _ptr(hv)
                keep += [hkp, hvp]
                arr[i].key, arr[i].key_len = hkp, hkl
                arr[i].value, arr[i].value_len = hvp, hvl
        else:
            arr = ffi.NULL
        check(lib.logrep_batch_builder_add(self.ptr, timestamp, kp, kl, vp, vl, arr, len(hs)),
              "logrep_batch_builder_add")

    def add_control(self, type_, coordinator_epoch=0, timestamp=-1):
        """Makes this a control batch with one ABORT/COMMIT marker."""
        check(lib.logrep_batch_builder_add_control(self.ptr, timestamp, type_, coordinator_epoch),
              "logrep_batch_builder_add_control")

    def __len__(self):
        return lib.logrep_batch_builder_count(self.ptr)

    def size_estimate(self):
        return lib.logrep_batch_builder_size_estimate(self.ptr)

    def finish(self):
        """Seals the batch and returns a copy of its bytes. reset() starts
        another one with the same settings."""
        out = ffi.new("uint8_t **")
        n = ffi.new("size_t *")
        check(lib.logrep_batch_builder_finish(self.ptr, out, n), "logrep_batch_builder_finish")
        return bytes(ffi.buffer(out[0], n[0]))

    def reset(self):
        lib.logrep_batch_builder_reset(self.ptr)


def _record_args(r):
    """Accepts value, (key, value), (key, value, headers), a dict with
    value/key/headers/timestamp, or a Record."""
    if isinstance(r, Record):
        return dict(value=r.value, key=r.key, headers=r.headers, timestamp=r.timestamp)
    if isinstance(r, dict):
        return dict(r)
    if isinstance(r, tuple):
        if len(r) == 2:
            return dict(key=r[0], value=r[1])
        if len(r) == 3:
            return dict(key=r[0], value=r[1], headers=r[2])
        raise ValueError("a record tuple is (key, value) or (key, value, headers)")
    return dict(value=r)


def build_batch(records, compression=None, level=0, timestamp=-1, conf=None, **kw):
    """One batch holding records (see BatchBuilder.add for their forms;
    `timestamp` is the default for records that give none)."""
    with BatchBuilder(compression, level, conf, **kw) as b:
        for r in records:
            a = _record_args(r)
            a.setdefault("timestamp", timestamp)
            b.add(**a)
        return b.finish()
