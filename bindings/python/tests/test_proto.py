"""Wire messages from Python: build, encode, frame, decode."""

import pytest

from logrep import Err, LogrepError, build_batch, read_batch
from logrep.proto import API, Message, api_name, api_versions, frame_length


def test_api_table():
    assert API["Produce"] == 0 and API["Fetch"] == 1 and api_name(19) == "CreateTopics"
    v = api_versions()
    assert v[API["Metadata"]][0] <= 9 <= v[API["Metadata"]][1]


def test_request_round_trip():
    batch = build_batch([b"a", b"b"])
    body = {"Acks": -1, "TimeoutMs": 5000,
            "TopicData": [{"Name": "t", "PartitionData": [{"Index": 2, "Records": batch}]}]}
    with Message.request("Produce", 7, 42, "py", body) as m:
        frame = m.encode()
    assert frame_length(frame) == len(frame)
    assert frame_length(frame[:3]) is None
    assert frame_length(frame[:len(frame) - 1]) is None
    with Message().decode_request(frame) as d:
        assert (d.api_key, d.version, d.correlation_id, d.is_response) == (0, 7, 42, False)
        pd = d.root["TopicData"][0]["PartitionData"][0]
        assert d.root["TopicData"][0]["Name"] == b"t" and pd["Index"] == 2
        assert read_batch(pd["Records"])[1][1].value == b"b"
        assert d.root.to_dict()["Acks"] == -1


def test_response_and_errors():
    with Message.response("Metadata", 9, 7, {"Brokers": [{"NodeId": 1, "Host": "h", "Port": 9092}],
                                             "ControllerId": 1}) as m:
        frame = m.encode()
    with Message().decode_response("Metadata", 9, frame) as d:
        assert d.root["Brokers"][0]["Host"] == b"h" and d.root["ControllerId"] == 1
        with pytest.raises(KeyError):
            d.root["NoSuchField"]
    with pytest.raises(LogrepError) as e:
        Message().decode_request(frame[:10])
    assert e.value.code == Err.LOCAL_CORRUPT and e.value.detail
    with pytest.raises(LogrepError) as e:
        Message.request(API["Produce"], 99)
    assert e.value.code == Err.LOCAL_UNSUPPORTED
