"""The protocol models: requests parse or fail with their error code (docs/PROTOCOL.md's message
reference is checked by tests/coach/test_protocol_doc.py)."""

from __future__ import annotations

import pytest

from voicecoach.coach import protocol


def test_requests_parse_into_their_models() -> None:
    assert isinstance(protocol.parse_request("state-update", {"patch": {"fs": {}}}), protocol.StateUpdate)
    assert isinstance(protocol.parse_request("get-state", None), protocol.GetState)
    assert protocol.parse_request("ptt", {"talking": False}) == protocol.PushToTalk(talking=False)


@pytest.mark.parametrize(
    ("t", "d", "code", "words"),
    [
        ("launch", {}, "unknown-type", ["launch", "state-update"]),
        ("state-update", {}, "bad-message", ["exactly one"]),
        ("state-update", {"snapshot": {}, "patch": {}}, "bad-message", ["exactly one"]),
        ("state-update", {"patch": [1, 2]}, "bad-message", ["patch"]),
        ("ptt", {"talking": "maybe"}, "bad-message", ["talking"]),
        ("get-state", {"extra": 1}, "bad-message", ["extra"]),
    ],
)
def test_bad_requests_name_what_is_wrong(t: str, d: object, code: str, words: list[str]) -> None:
    with pytest.raises(protocol.ProtocolError) as err:
        protocol.parse_request(t, d)
    assert err.value.code == code and protocol.error_code(err.value.text) == code
    assert all(w in err.value.text for w in words), err.value.text


def test_events_round_trip_through_the_union() -> None:
    event = protocol.TextEvent(turn_index=3, kind="reply", text="Lead with Emberfox.")
    assert protocol.parse_event(event.model_dump(mode="json")) == event
    wire = {"label": "rtvi-ai", "type": "server-message", "data": event.model_dump(mode="json")}
    assert protocol.ServerMessage.model_validate(wire).data == event


def test_error_codes_are_read_back() -> None:
    assert protocol.error_code(protocol.error_text("bad-state", "fs.x: nope")) == "bad-state"
    assert protocol.error_code("Unsupported type teleport") is None


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("", 0),
        ("42", 0),
        ("[]", 1),
        ('{"a": [1, {"b": 2}]}', 3),
        ('{"a": "[[[[ {{ \\" ]]"}', 1),  # brackets inside a string (with an escaped quote) do not count
        ('["\\\\", ["]"]]', 2),  # an escaped backslash ends before the closing quote
        ("[" * 975 + "]" * 975, 975),
        ("[" * 3000, 3000),  # unterminated: counted all the same
    ],
)
def test_json_depth_is_measured_without_parsing(text: str, depth: int) -> None:
    assert protocol.json_depth(text) == depth


def test_load_message_bounds_depth_before_parsing_and_wants_an_object() -> None:
    assert protocol.load_message('{"label": "rtvi-ai"}') == {"label": "rtvi-ai"}
    deep = "[" * 975 + "]" * 975  # json.loads would raise RecursionError on this
    with pytest.raises(protocol.ProtocolError) as err:
        protocol.load_message(deep)
    assert err.value.code == "bad-json" and "975 deep" in err.value.text
    nested = '{"a": ' * (protocol.MAX_JSON_DEPTH - 1) + "1" + "}" * (protocol.MAX_JSON_DEPTH - 1)
    assert protocol.load_message(nested)["a"]  # just within the bound
    for text, code in (("[1, 2]", "bad-message"), ('"x"', "bad-message"), ("{nope", "bad-json")):
        with pytest.raises(protocol.ProtocolError) as err:
            protocol.load_message(text)
        assert err.value.code == code, text
