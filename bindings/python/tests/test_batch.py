"""Record batches: build, read back, verify; golden bytes from
test/test_codec.c (the 89-byte two-record batch, kafkajs' gzip batch)."""

import pytest

import logrep
from logrep import (BatchBuilder, BatchReader, Err, LogrepError, build_batch, crc32c,
                    iter_batches, parse_header, read_batch, stamp, verify)

T0 = 1700000000000

WORKED = bytes.fromhex(
    "00000000000000000000004dffffffff02c5589bca0000000000010000018bcf"
    "e568000000018bcfe56805ffffffffffffffffffffffffffff000000021c0000"
    "00066b65790a76616c75650018000a02010468690202680278")

KAFKAJS_GZIP = bytes.fromhex(
    "0000000000000000000000710000000002e4c324a500090000000000000173ed"
    "f5ffa700000173edf5ffc9ffffffffffffffff000000000000000000011f8b08"
    "000000000000130b636060e0ca4eadd43570284bcc294dd535d035323032d035"
    "b0d03534093134b73234b632b0d033b3308a620000b5e3f1a72c000000")


def test_worked_example_builds_byte_identical():
    b = build_batch([(b"key", b"value"),
                     dict(value=b"hi", headers=[(b"h", b"x")], timestamp=T0 + 5)],
                    timestamp=T0)
    assert b == WORKED


def test_worked_example_reads_back():
    assert verify(WORKED) == 89
    h, recs = read_batch(WORKED)
    assert (h.crc, h.batch_length, h.partition_leader_epoch, h.record_count) == (
        0xC5589BCA, 77, -1, 2)
    assert h.max_timestamp == T0 + 5 and h.producer_id == -1 and h.size == 89
    assert [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in recs] == [
        (0, T0, b"key", b"value", []),
        (1, T0 + 5, None, b"hi", [(b"h", b"x")]),
    ]
    assert recs[0].sequence == -1


def test_kafkajs_gzip_batch():
    h, recs = read_batch(KAFKAJS_GZIP)
    assert h.compression == logrep.COMPRESSION["gzip"]
    assert h.attributes & logrep.lib.LOGREP_ATTR_LOG_APPEND_TIME
    assert len(recs) == 1 and recs[0].key == b"key-0"
    assert recs[0].value == b"value-0-2020-08-14T17:13:08.682Z"
    assert recs[0].timestamp == h.max_timestamp  # LogAppendTime: the broker's


@pytest.mark.parametrize("codec", sorted(logrep.COMPRESSION))
def test_round_trip_every_codec(codec):
    records = [dict(key=("k%d" % i).encode() if i % 3 else None,
                    value=(b"v%d " % i) * (i + 1) if i != 7 else None,
                    headers={"n": str(i), "empty": None} if i % 2 else None,
                    timestamp=T0 + i)
               for i in range(50)]
    with BatchBuilder(compression=codec) as b:
        for r in records:
            b.add(**r)
        assert len(b) == 50
        assert b.size_estimate() > 0
        batch = b.finish()
    assert verify(batch) == len(batch)
    h = parse_header(batch)
    assert h.compression == logrep.COMPRESSION[codec]
    assert h.record_count == 50 and h.last_offset_delta == 49
    assert h.base_timestamp == T0 and h.max_timestamp == T0 + 49
    _, got = read_batch(batch)
    for i, (r, want) in enumerate(zip(got, records)):
        assert r.offset == i and r.timestamp == want["timestamp"]
        assert r.key == want["key"] and r.value == want["value"]
        want_h = [(k.encode(), v.encode() if v is not None else None)
                  for k, v in (want["headers"] or {}).items()]
        assert r.headers == want_h


def test_compression_shrinks_repetitive_values():
    values = [b"x" * 1000] * 20
    plain = build_batch(values)
    for codec in ("gzip", "snappy", "lz4", "zstd"):
        assert len(build_batch(values, compression=codec)) < len(plain) / 5


def test_str_values_and_several_batches():
    a = build_batch(["é", "b"], base_offset=10)
    b = build_batch([("k", "c")], base_offset=12)
    out = list(iter_batches(a + b + b[:30]))  # a trailing partial batch ends it
    assert [h.base_offset for h, _ in out] == [10, 12]
    assert [r.value for _, rs in out for r in rs] == ["é".encode(), b"b", b"c"]
    assert [r.offset for _, rs in out for r in rs] == [10, 11, 12]
    with pytest.raises(LogrepError) as e:
        list(iter_batches(a + b[:30], partial_ok=False))
    assert e.value.code == Err.LOCAL_AGAIN


def test_verify_detects_corruption():
    bad = bytearray(WORKED)
    bad[70] ^= 0x01
    with pytest.raises(LogrepError) as e:
        verify(bytes(bad))
    assert e.value.code == logrep.lib.LOGREP_ERR__CORRUPT
    assert e.value.name == "_CORRUPT"
    assert "logrep_batch_verify" in str(e.value)
    with BatchReader() as r:
        with pytest.raises(LogrepError) as e:
            r.open(bytes(bad))
        assert e.value.detail  # the reader's reason
    with pytest.raises(LogrepError) as e:
        verify(WORKED[:40])
    assert e.value.code == Err.LOCAL_AGAIN


def test_stamp_keeps_the_crc_valid():
    b = bytearray(WORKED)
    stamp(b, 1000, 7)
    h = parse_header(b)
    assert (h.base_offset, h.partition_leader_epoch) == (1000, 7)
    assert verify(bytes(b)) == 89
    assert [r.offset for r in read_batch(bytes(b))[1]] == [1000, 1001]


def test_reader_validate_and_reuse():
    with BatchReader() as r:
        r.open(WORKED)
        r.validate()
        assert [x.offset for x in r] == [0, 1]
        assert r.next() is None
        h = r.open(KAFKAJS_GZIP)
        assert h.record_count == 1 and len(list(r)) == 1
    assert r.closed
    with pytest.raises(ValueError):
        r.open(WORKED)


def test_builder_errors():
    with BatchBuilder() as b:
        with pytest.raises(LogrepError) as e:
            b.finish()  # no records
        assert e.value.code == Err.LOCAL_MISUSE
        b.add(b"v")
        with pytest.raises(LogrepError):
            b.set_compression("gzip")  # records were added
        first = b.finish()
        b.reset()
        b.add(b"w")
        assert read_batch(b.finish())[1][0].value == b"w"
        assert read_batch(first)[1][0].value == b"v"
    with pytest.raises(ValueError):
        BatchBuilder(compression="brotli")
    with pytest.raises(TypeError):
        build_batch([123])


def test_control_batch():
    with BatchBuilder() as b:
        b.add_control(logrep.lib.LOGREP_CONTROL_COMMIT, coordinator_epoch=3, timestamp=T0)
        batch = b.finish()
    h, recs = read_batch(batch)
    assert h.is_control and h.is_transactional and len(recs) == 1


def test_crc32c():
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32c("Some String") == 608512271
    assert crc32c(b"") == 0
    assert crc32c(b"56789", crc32c(b"1234")) == 0xE3069283


def test_errors_carry_code_and_name():
    e = LogrepError(6)
    assert e.code == 6 and e.name == "NOT_LEADER_OR_FOLLOWER" and e.retriable
    assert e.err is Err.NOT_LEADER_OR_FOLLOWER
    assert LogrepError(-105).name == "_CORRUPT" and not LogrepError(-105).retriable
    assert logrep.err_name(0) == "NONE"
    assert Err.OK == 0 and Err.LOCAL_END == -100


def test_conf():
    with logrep.Conf({"segment.bytes": 1 << 20, "cleanup.policy": "compact"}) as c:
        assert c["segment.bytes"] == str(1 << 20)
        assert c.get_int("segment.bytes") == 1 << 20
        assert c["cleanup.policy"] == "compact"
        with pytest.raises(LogrepError) as e:
            c.set("no.such.property", 1)
        assert e.value.code == Err.LOCAL_UNKNOWN_CONF
        with pytest.raises(LogrepError) as e:
            c.set("segment.bytes", "lots")
        assert e.value.code == Err.LOCAL_INVALID_CONF and "segment.bytes" in str(e.value)
    props = logrep.properties()
    assert "min.insync.replicas" in props and "segment.bytes" in props


def test_version():
    assert logrep.version() == "%d.%d.%d" % (logrep.constants["LOGREP_VERSION_MAJOR"],
                                             logrep.constants["LOGREP_VERSION_MINOR"],
                                             logrep.constants["LOGREP_VERSION_PATCH"])
    assert logrep.version_number() == logrep.constants["LOGREP_VERSION_NUMBER"]
