"""The partition log on POSIX storage: append as leader, read back,
truncate, close and reopen (recovery), a torn tail cut on reopen."""

import os

import pytest

from logrep import (Conf, Err, LogrepError, PartitionLog, Storage, build_batch, iter_records,
                    read_batch)

T0 = 1700000000000


def batch(first, n, **kw):
    return build_batch([dict(key=b"k%d" % i, value=b"v%d" % i, timestamp=T0 + i)
                        for i in range(first, first + n)], **kw)


def values(log, start=None, end=None):
    return [r.value for r in log.records(start, end)]


def test_append_read_truncate_reopen(tmp_path):
    d = tmp_path / "topic-0"
    props = {"segment.bytes": 2048}
    with PartitionLog(d, props) as log:
        info = log.recovery_info
        assert info.clean == 1 and info.log_end_offset == 0
        assert d.is_dir()
        a = log.append(batch(0, 10), leader_epoch=0, now_ms=T0)
        assert (a.first_offset, a.last_offset, a.records, a.batches) == (0, 9, 10, 1)
        b = log.append(batch(10, 5, compression="zstd") + batch(15, 5), leader_epoch=1,
                       now_ms=T0)
        assert (b.first_offset, b.last_offset, b.batches) == (10, 19, 2)
        for i in range(20, 200, 10):  # enough to roll a few segments of 2 KiB
            log.append(batch(i, 10), leader_epoch=1, now_ms=T0)
        assert log.end_offset == 200 and log.start_offset == 0
        assert log.segment_count > 1
        assert values(log) == [b"v%d" % i for i in range(200)]
        assert values(log, 42, 47) == [b"v%d" % i for i in range(42, 47)]
        assert log.epochs() == [(0, 0), (1, 10)]
        assert log.latest_epoch == 1
        # One read is whole batches of one segment, from the batch holding 13.
        sl, data = log.read_slice(13, max_bytes=1 << 20)
        assert sl.first_offset == 10 and len(data) == sl.length
        assert [r.offset for r in iter_records(data)][0] == 10
        assert log.offset_for_time(T0 + 150) == (150, T0 + 150)
        assert log.offset_for_time(T0 + 10 ** 6) is None

        log.truncate(105)  # the batch holding 105 goes whole
        assert log.end_offset == 100
        assert values(log)[-1] == b"v99"
        log.append(batch(1000, 3), leader_epoch=2, now_ms=T0)
        assert log.end_offset == 103
        segs = log.segment_count

    # Reopen: a clean close needs no scan, and everything is there.
    with PartitionLog(d, props) as log:
        info = log.recovery_info
        assert info.clean == 1 and info.bytes_truncated == 0
        assert (info.log_start_offset, info.log_end_offset) == (0, 103)
        assert log.end_offset == 103 and log.segment_count == segs
        assert values(log) == [b"v%d" % i for i in range(100)] + [b"v1000", b"v1001", b"v1002"]
        assert log.epochs()[-1] == (2, 100)


def test_recovery_after_a_crash_cuts_a_torn_tail(tmp_path):
    d = tmp_path / "t-0"
    st = Storage.posix()
    log = PartitionLog(d, storage=st)
    for i in range(0, 50, 10):
        log.append(batch(i, 10), leader_epoch=0)
    log.flush()
    log.append(batch(50, 10), leader_epoch=0)
    log.abandon()  # a crash: no checkpoint, no final flush
    assert log.closed
    # Tear the last batch: its last bytes never reached the disk.
    seg = d / ("%020d.log" % 0)
    size = seg.stat().st_size
    with open(seg, "r+b") as f:
        f.truncate(size - 7)
    log = PartitionLog(d, storage=st)
    info = log.recovery_info
    assert info.clean == 0 and info.segments_recovered >= 1
    assert info.bytes_truncated > 0
    assert info.log_end_offset == 50 and log.end_offset == 50
    assert values(log) == [b"v%d" % i for i in range(50)]
    # The log takes appends again from the recovered end.
    assert log.append(batch(50, 1), leader_epoch=1).first_offset == 50
    with pytest.raises(RuntimeError):
        st.close()  # the log still uses it
    log.close()
    st.close()
    assert st.closed


def test_refusals_raise(tmp_path):
    with PartitionLog(tmp_path / "t-0") as log:
        bad = bytearray(batch(0, 3))
        bad[-1] ^= 0xFF
        with pytest.raises(LogrepError) as e:
            log.append(bytes(bad), leader_epoch=0)
        assert e.value.code == Err.CORRUPT_MESSAGE
        assert log.end_offset == 0
        with pytest.raises(LogrepError) as e:
            log.read(5)
        assert e.value.code == Err.OFFSET_OUT_OF_RANGE
        with pytest.raises(LogrepError) as e:
            log.append(batch(0, 1), leader_epoch=-1)
        assert e.value.code == Err.LOCAL_INVALID_ARG
    with pytest.raises(ValueError):
        log.end_offset  # noqa: B018 - closed
    os.makedirs(tmp_path / "bad-0")
    (tmp_path / "bad-0" / "partition.metadata").write_text("garbage\n")
    with pytest.raises(LogrepError) as e:
        PartitionLog(tmp_path / "bad-0")
    assert e.value.code == Err.LOCAL_CORRUPT and "bad-0" in str(e.value)


def test_follower_append_and_memory_storage():
    with Storage.memory() as st:
        with PartitionLog("p-0", storage=st) as leader, PartitionLog("f-0", storage=st) as fol:
            leader.append(batch(0, 4), leader_epoch=3)
            leader.append(batch(4, 4), leader_epoch=3)
            data = leader.read(0)
            info = fol.append_follower(data)
            assert (info.first_offset, info.last_offset) == (0, 7)
            assert values(fol) == values(leader)
            assert fol.epochs() == [(3, 0)]
            with pytest.raises(LogrepError) as e:
                fol.append_follower(data)  # offsets below the log end
            assert e.value.code == Err.OFFSET_OUT_OF_RANGE


def test_log_hook(tmp_path):
    lines = []
    conf = Conf(logger=lambda level, subsys, msg: lines.append((level, subsys, msg)))
    d = tmp_path / "t-0"
    log = PartitionLog(d, conf)
    log.append(batch(0, 5), leader_epoch=0)
    log.abandon()
    seg = d / ("%020d.log" % 0)
    with open(seg, "r+b") as f:
        f.truncate(seg.stat().st_size - 3)
    with PartitionLog(d, conf) as log:
        assert log.end_offset == 0
    conf.close()
    assert any(subsys == "log" for _, subsys, _ in lines), lines


def test_retention_and_start(tmp_path):
    with PartitionLog(tmp_path / "t-0", {"segment.bytes": 2048, "retention.bytes": 4096}) as log:
        for i in range(0, 300, 10):
            log.append(batch(i, 10), leader_epoch=0, now_ms=T0)
        n = log.segment_count
        deleted = log.retention(T0)
        assert deleted > 0 and log.segment_count == n - deleted
        assert log.start_offset > 0
        assert read_batch(log.read(log.start_offset))[1][0].offset == log.start_offset
        log.advance_start(log.start_offset + 1)
        assert [r.offset for r in log.records()][0] == log.start_offset
