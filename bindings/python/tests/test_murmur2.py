"""murmur2 and Kafka's default partition: vectors of Apache Kafka's
UtilsTest and librdkafka's unit test (test/test_codec.c), and the
Makefile's check-install."""

import pytest

from logrep import Partitioner, murmur2, murmur2_partition


@pytest.mark.parametrize("key,want", [
    (b"21", -973932308),
    (b"foobar", -790332482),
    (b"a-little-bit-long-string", -985981536),
    (b"a-little-bit-longer-string", -1486304829),
    (b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971),
    (b"abc", 479470107),
])
def test_kafka_utils_test(key, want):
    assert murmur2(key) == want


@pytest.mark.parametrize("key,want", [
    (b"kafka", 0xd067cf64),
    (b"giberish123456789", 0x8f552b0c),
    (b"1234", 0x9fc97b14),
    (b"234", 0xe7c009ca),
    (b"34", 0x873930da),
    (b"4", 0x5a4b5ca1),
    (b"PreAmbleWillBeRemoved,ThePrePartThatIs", 0x78424f1c),
    (b"reAmbleWillBeRemoved,ThePrePartThatIs", 0x4a62b377),
    (b"eAmbleWillBeRemoved,ThePrePartThatIs", 0xe0e4e09e),
    (b"AmbleWillBeRemoved,ThePrePartThatIs", 0x62b8b43f),
    (b"", 0x106e08d9),
])
def test_librdkafka_unittest(key, want):
    assert murmur2(key) & 0xffffffff == want


@pytest.mark.parametrize("key,n,want", [
    ("foobar", 3, 0), ("foobar", 6, 0), ("foobar", 12, 6), ("foobar", 50, 16),
    ("kafka", 3, 1), ("kafka", 6, 4), ("kafka", 12, 4), ("kafka", 50, 30),
    ("21", 50, 40), ("x", 0, -1),
])
def test_partition(key, n, want):
    assert murmur2_partition(key, n) == want


def test_partition_formula():
    for i in range(200):
        k = b"key-%d" % i
        assert murmur2_partition(k, 7) == (murmur2(k) & 0x7fffffff) % 7


def test_partitioner_keyed_and_sticky():
    with Partitioner(12, {"logrep.random.seed": 42}) as p:
        assert p.choose(b"kafka") == 4
        assert p.choose("foobar") == 6
        first = p.choose(None, 100)
        assert 0 <= first < 12
        assert p.choose(None, 100) == first  # sticky until batch.size
