"""docs/PROTOCOL.md: its message reference is the one `voicecoach.coach.protocol_doc` generates from the
protocol's models today, and it covers every model; the hand-written part keeps every close and
error code, and its JavaScript example pushes a state the coach accepts before it asks."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from voicecoach.coach import protocol, protocol_doc
from voicecoach.coach.session import Session

DOC = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"


def test_the_docs_message_reference_is_current() -> None:
    assert protocol_doc.main(["--check", "--doc", str(DOC)]) == 0, f"run: {protocol_doc.COMMAND}"


def test_every_model_of_the_protocol_has_its_section() -> None:
    models = [
        name
        for name, obj in vars(protocol).items()
        if isinstance(obj, type)
        and issubclass(obj, BaseModel)
        and obj.__module__ == protocol.__name__
        and not name.startswith("_")
    ]
    text = DOC.read_text(encoding="utf-8").split(protocol_doc.BEGIN, 1)[1]
    missing = [name for name in models if f"#### `{name}`\n" not in text]
    assert len(models) > 40 and not missing, f"not in the reference: {missing} (add them to protocol_doc)"
    # The state a game pushes is rendered too, down to its parts.
    for name in ("IntentContext", "MatchState", "FactSlots", "Inventory", "OwnedCreature", "Collection"):
        assert f"#### `{name}`\n" in text, name


def test_messages_are_listed_under_their_direction() -> None:
    events = [cls for cls in typing.get_args(typing.get_args(protocol.ServerEvent)[0])]
    assert events and all(cls in protocol_doc.SERVER_MODELS for cls in events)
    requests = typing.get_args(protocol.ClientMessage.model_fields["data"].annotation)
    payloads = [protocol.REQUEST_TYPES[t] for t in protocol.REQUEST_TYPES]
    assert all(cls in protocol_doc.CLIENT_MODELS for cls in (*requests, *payloads, protocol.SendText))


def test_a_changed_model_makes_the_doc_stale_until_it_is_written(tmp_path: Path, monkeypatch: Any) -> None:
    doc = tmp_path / "PROTOCOL.md"
    doc.write_text(DOC.read_text(encoding="utf-8"), encoding="utf-8")
    original = protocol.TextEvent.model_json_schema

    def with_a_new_field(*args: Any, **kwargs: Any) -> dict[str, Any]:
        schema = original(*args, **kwargs)
        schema["properties"]["volume"] = {"type": "number", "description": "how loud"}
        return schema

    monkeypatch.setattr(protocol.TextEvent, "model_json_schema", with_a_new_field)
    assert protocol_doc.main(["--check", "--doc", str(doc)]) == 1
    assert protocol_doc.main(["--write", "--doc", str(doc)]) == 0
    assert protocol_doc.main(["--check", "--doc", str(doc)]) == 0
    assert "| `volume` | number | no | how loud |" in doc.read_text(encoding="utf-8")
    # Only the generated part changed.
    before, after = DOC.read_text(encoding="utf-8"), doc.read_text(encoding="utf-8")
    assert before.split(protocol_doc.BEGIN)[0] == after.split(protocol_doc.BEGIN)[0]
    assert before.split(protocol_doc.END)[1] == after.split(protocol_doc.END)[1]


def test_a_doc_without_the_markers_is_refused(tmp_path: Path) -> None:
    doc = tmp_path / "PROTOCOL.md"
    doc.write_text("# no reference here\n", encoding="utf-8")
    assert protocol_doc.main(["--check", "--doc", str(doc)]) == 1
    assert protocol_doc.main(["--write", "--doc", str(doc)]) == 1


class _Probe(BaseModel):
    """A probe model.

    With a second paragraph."""

    kind: Literal["probe"] = "probe"
    count: int = Field(ge=1)
    names: list[str] = Field(default_factory=list, description="one | two")
    mode: Literal["x", "y"] = "x"
    stage: protocol.Stage | None = None
    table: dict[str, float] = Field(default_factory=dict)


def test_fields_are_rendered_with_type_requirement_and_description() -> None:
    schema = _Probe.model_json_schema()
    lines = protocol_doc.model_markdown("_Probe", schema)
    assert lines[:4] == ["#### `_Probe`", "", "A probe model.\n\nWith a second paragraph.", ""]
    assert '| `kind` | `"probe"` | yes |  |' in lines  # one possible value: always sent
    assert "| `count` | integer ≥ 1 | yes |  |" in lines
    assert "| `names` | array of string | no | one \\| two |" in lines
    assert '| `mode` | `"x"` or `"y"` | no (default `"x"`) |  |' in lines
    assert "| `stage` | [`Stage`](#stage) or null | no (default `null`) |  |" in lines
    assert "| `table` | object of number | no |  |" in lines


def test_the_spec_keeps_every_close_code_and_error_code() -> None:
    spec = DOC.read_text(encoding="utf-8").split(protocol_doc.BEGIN)[0]
    assert all(f"\n| {code.value} |" in spec for code in protocol.CloseCode)
    assert all(f"\n| `{code}` |" in spec for code in typing.get_args(protocol.ErrorCode))


def test_the_js_example_pushes_a_state_the_coach_accepts_before_it_asks() -> None:
    example = re.search(r"```ts\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert example is not None
    code = example.group(1)
    snapshot_json = re.search(r"const snapshot = (\{.*?\n\});", code, re.S)
    assert snapshot_json is not None
    snapshot = json.loads(snapshot_json.group(1))
    protocol.GameSnapshot.model_validate(snapshot)
    from voicecoach.domain.pack import load_pack

    session = Session.open("protocol-doc", pack=load_pack("pet_arena"))  # in memory
    session.update_state(snapshot=snapshot)  # what the server does with it (StateError if refused)
    inventory = session.state.fs.inventory
    assert inventory is not None and len(inventory.owned) >= 3
    connected, pushed = code.index("await client.connect("), code.index('"state-update", { snapshot }')
    assert connected < pushed < code.index("sendText(") < code.index("enableMic(true)")
