"""The message reference of docs/PROTOCOL.md, generated from the protocol's pydantic models.

    python -m voicecoach.coach.protocol_doc            print the reference (Markdown)
    python -m voicecoach.coach.protocol_doc --write    rewrite the generated part of docs/PROTOCOL.md
    python -m voicecoach.coach.protocol_doc --check    exit 1 if that part is stale

Every message a game sends (`CLIENT_MODELS`) and the coach sends (`SERVER_MODELS`) is rendered
from its JSON Schema (`model_json_schema()`): its name, its description (the model's docstring)
and a table of its fields with their JSON type, whether they are required (else the default) and
their description. The models they contain (the schema's `$defs`: the state's slices, the events'
parts) follow once each, under "Types". The prose of docs/PROTOCOL.md is written by hand; only
the part between `BEGIN` and `END` is generated, so a model change without `--write` fails
tests/coach/test_protocol_doc.py.

A kernel module: it imports the protocol's models and nothing from Pipecat.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from voicecoach.coach import protocol

BEGIN = "<!-- BEGIN GENERATED MESSAGE REFERENCE -->"
END = "<!-- END GENERATED MESSAGE REFERENCE -->"
DOC = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"
COMMAND = "python -m voicecoach.coach.protocol_doc --write"

# What a game sends: the RTVI envelopes, then the coach requests a client-message carries.
CLIENT_MODELS: tuple[type[BaseModel], ...] = (
    protocol.ClientReady,
    protocol.ClientMessage,
    protocol.StateUpdateRequest,
    protocol.StateUpdate,
    protocol.GameSnapshot,
    protocol.GetStateRequest,
    protocol.GetState,
    protocol.PushToTalkRequest,
    protocol.PushToTalk,
    protocol.SendText,
    protocol.DisconnectBot,
)
# What the coach sends: the server-message envelope and its events, the answers to requests,
# the errors, and any other RTVI message (Pipecat's standard events).
SERVER_MODELS: tuple[type[BaseModel], ...] = (
    protocol.ServerMessage,
    protocol.SessionEvent,
    protocol.StateEvent,
    protocol.IntentEvent,
    protocol.ToolDispatchEvent,
    protocol.ToolResultsEvent,
    protocol.GroundingEvent,
    protocol.InteractionEvent,
    protocol.TextEvent,
    protocol.TurnCompletedEvent,
    protocol.TurnFailedEvent,
    protocol.LatencyEvent,
    protocol.ServerResponse,
    protocol.ErrorResponse,
    protocol.ErrorMessage,
    protocol.RTVIMessage,
)


def _cell(text: str) -> str:
    """Text for a Markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _paragraphs(text: str) -> str:
    """A docstring as Markdown paragraphs: lines joined, blank lines kept."""
    blocks = [" ".join(block.split()) for block in text.strip().split("\n\n")]
    return "\n\n".join(block for block in blocks if block)


_BOUNDS = (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<"))


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _link(name: str) -> str:
    return f"[`{name}`](#{name.lower()})"


def type_text(schema: dict[str, Any]) -> str:
    """A JSON Schema as a short type: `string`, `array of X`, a link to a named type, ..."""
    if "$ref" in schema:
        return _link(_ref_name(schema["$ref"]))
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    if "enum" in schema:
        return " or ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(type_text(s) for s in schema[key])
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return type_text(schema["allOf"][0])
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        return f"array of {type_text(items)}" if items else "array"
    if kind == "object":
        values = schema.get("additionalProperties")
        if isinstance(values, dict) and values:
            return f"object of {type_text(values)}"
        return "object"
    if isinstance(kind, str):
        bounds = [f"{sign} {schema[key]}" for key, sign in _BOUNDS if key in schema]
        return f"{kind} {', '.join(bounds)}" if bounds else kind
    if isinstance(kind, list):
        return " or ".join(kind)
    return "any"


def _required_text(name: str, field: dict[str, Any], required: Iterable[str]) -> str:
    # A field with one possible value (an envelope's `label` and `type`, a request's `t`) has a
    # default in the model, for convenience, but it is what tells the messages apart: always sent.
    if name in required or "const" in field:
        return "yes"
    if "default" in field:
        return f"no (default `{json.dumps(field['default'])}`)"
    return "no"


def model_markdown(name: str, schema: dict[str, Any], level: int = 4) -> list[str]:
    """One model (or named type) as a heading, its description and a table of its fields."""
    lines = [f"{'#' * level} `{name}`", ""]
    if schema.get("description"):
        lines += [_paragraphs(schema["description"]), ""]
    properties: dict[str, dict[str, Any]] = schema.get("properties", {})
    if properties:
        required = schema.get("required", [])
        lines += ["| field | type | required | description |", "|---|---|---|---|"]
        for field_name, field in properties.items():
            row = (
                f"`{field_name}`",
                _cell(type_text(field)),
                _cell(_required_text(field_name, field, required)),
                _cell(field.get("description", "")),
            )
            lines.append(f"| {' | '.join(row)} |")
        if schema.get("additionalProperties") is not False:
            lines += ["", "Fields not listed are allowed."]
    elif "enum" in schema or schema.get("type") != "object":
        lines.append(f"Type: {type_text(schema)}.")
    else:
        lines.append("No fields.")
    lines.append("")
    return lines


Schemas = dict[str, dict[str, Any]]  # name -> JSON Schema


def _schemas(models: Sequence[type[BaseModel]]) -> tuple[Schemas, Schemas]:
    """Each model's own schema (without `$defs`), and every `$defs` entry, by name."""
    own: Schemas = {}
    defs: Schemas = {}
    for model in models:
        schema = model.model_json_schema()
        defs.update(schema.pop("$defs", {}))
        own[model.__name__] = schema
    return own, defs


def reference_markdown() -> str:
    """Every message model of the protocol, game → coach then coach → game, then the types they use."""
    client, client_defs = _schemas(CLIENT_MODELS)
    server, server_defs = _schemas(SERVER_MODELS)
    defs = {**client_defs, **server_defs}
    lines = [
        "## Message reference",
        "",
        f"Generated from the pydantic models of `voicecoach/coach/protocol.py` by `{COMMAND}`;",
        "`tests/coach/test_protocol_doc.py` fails when it is stale. Types are JSON Schema types; a field",
        "that is not required may be left out, and then has its default. The coach's models refuse",
        "fields they do not know; the RTVI envelopes allow them.",
        "",
        "### Game → coach",
        "",
    ]
    for name, schema in client.items():
        lines += model_markdown(name, schema)
    lines += ["### Coach → game", ""]
    for name, schema in server.items():
        lines += model_markdown(name, schema)
    lines += ["### Types", "", "The parts the messages above are made of, by name.", ""]
    for name in sorted(set(defs) - set(client) - set(server)):
        lines += model_markdown(name, defs[name])
    return "\n".join(lines).rstrip() + "\n"


def generated_section() -> str:
    """The generated part of the doc, markers included."""
    note = f"<!-- Do not edit: generated by `{COMMAND}` from voicecoach/coach/protocol.py. -->"
    return f"{BEGIN}\n{note}\n\n{reference_markdown()}\n{END}"


def render(text: str) -> str:
    """`text` (the doc) with its generated part replaced by the current one."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the doc has no generated part (the markers {BEGIN!r} ... {END!r})")
    return text[:start] + generated_section() + text[end + len(END) :]


def is_current(doc: Path = DOC) -> bool:
    text = doc.read_text(encoding="utf-8")
    return render(text) == text


def write(doc: Path = DOC) -> bool:
    """Rewrite the doc's generated part; True if it changed."""
    text = doc.read_text(encoding="utf-8")
    new = render(text)
    if new != text:
        doc.write_text(new, encoding="utf-8")
    return new != text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m voicecoach.coach.protocol_doc",
        description="The protocol's message reference (Markdown), generated from coach/protocol.py.",
    )
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help="rewrite the generated part of the doc")
    action.add_argument("--check", action="store_true", help="exit 1 if the doc's generated part is stale")
    parser.add_argument("--doc", type=Path, default=DOC, help=f"the doc (default {DOC})")
    args = parser.parse_args(argv)
    if not (args.write or args.check):
        sys.stdout.write(reference_markdown())
        return 0
    try:
        if args.check:
            if is_current(args.doc):
                return 0
            print(f"{args.doc}: the message reference is stale; run: {COMMAND}", file=sys.stderr)
            return 1
        print(f"{args.doc}: {'updated' if write(args.doc) else 'up to date'}")
        return 0
    except (OSError, ValueError) as err:
        print(f"{args.doc}: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
