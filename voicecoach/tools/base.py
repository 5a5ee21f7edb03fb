"""What every tool is, whichever library serves it: its spec, its result, its refusal.

`voicecoach.tools.registry` validates and dispatches and builds the `ToolSpec`s of game-served
tools; `voicecoach.tools.builtin` those of the builtin tool kinds a pack instantiates in tools.json.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from voicecoach.domain.pack import HttpTool, McpTool, Pack

ToolResult = dict[str, Any]


class ToolError(ValueError):
    """A call the backend refuses: unknown tool, malformed args, unknown entity, missing state."""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema, OpenAI function-calling style
    fn: Callable[..., ToolResult] | None  # fn(pack, state, **args); None: the game serves it (`http`, `mcp`)
    # Which arguments name catalog entities, so validate_args can resolve display names to
    # ids. Kept out of `parameters` because strict function-calling schemas reject extra keys.
    entities: dict[str, str] = field(default_factory=dict)  # argument -> a kind of the schema
    # Arguments whose allowed values are pack data (a style), checked by validate_args.
    choices: dict[str, Callable[[Pack], Iterable[str]]] = field(default_factory=dict)
    http: HttpTool | None = None  # the pack's declaration of a tool its game serves over HTTP
    mcp: McpTool | None = None  # ... or from its MCP server
    side_effect: bool = False  # changes the game: runs only once its turn is committed
    # The result's shape (JSON schema): published by the builtins, so what reads a result (the
    # realizer's selectors, pack check) can be checked against it. None: not declared.
    result_schema: dict[str, Any] | None = None


def object_schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
