"""Φ (paper C): the table from registered (intent, sub_intent) pairs to tool uses, and what a freeze needs.

`PhiTable` is the partial function Φ; `decision_fields` are the live-state fields that must be
fresh before W1 may freeze Φ's tool set, and `bind_state` fills an entry's `$path` arguments from
the state. `tool_validator` checks a call against the tools the pack declares. The freeze decision
itself, which uses these, is `voicecoach.perception.kernel.W1Decision`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from voicecoach.core.state import LiveState, get_field
from voicecoach.domain.pack import Pack, PhiEntry
from voicecoach.tools.registry import ToolError, pack_tools, validate_args


class PhiTable:
    """Φ: a partial function from registered (intent, sub_intent) pairs to tool uses (paper C)."""

    def __init__(self, entries: Iterable[PhiEntry]) -> None:
        self._entries: dict[tuple[str, str], PhiEntry] = {}
        for e in entries:
            self._entries.setdefault((e.intent, e.sub_intent), e)  # the pack loader rejects dups

    def lookup(self, intent: str, sub_intent: str) -> PhiEntry | None:
        return self._entries.get((intent, sub_intent))

    def __len__(self) -> int:
        return len(self._entries)

    def labels(self) -> dict[str, list[str]]:
        """intent -> its sub-intents, in table order."""
        out: dict[str, list[str]] = {}
        for intent, sub in self._entries:
            out.setdefault(intent, []).append(sub)
        return out


def registered_labels(pack: Pack) -> dict[str, list[str]]:
    """intent -> its sub-intents, in Φ-table order (for prompts and grammars)."""
    return PhiTable(pack.phi).labels()


# Returns the args normalised (e.g. names resolved to ids); raises ValueError to reject.
Validator = Callable[[str, dict[str, Any]], dict[str, Any]]


def tool_validator(pack: Pack) -> Validator:
    """`voicecoach.tools.registry.validate_args` against `pack`, for the tools `pack` declares (`pack_tools`:
    the ones W1's prompt and grammar list); a tool the pack does not declare is unknown, even one
    of the classic registry."""
    known = list(pack_tools(pack))

    def validate(name: str, args: dict[str, Any]) -> dict[str, Any]:
        if name not in known:
            raise ToolError(f"unknown tool {name!r}; known tools: {', '.join(known)}")
        return validate_args(name, args, pack)

    return validate


def _plain(value: Any) -> Any:
    """State values as plain JSON-like data, so tool args never carry live model objects."""
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def state_paths(value: Any) -> list[str]:
    """State paths an argument must bind: '$a.b' -> ['a.b']; also '$...' items of a list. An
    optional binding ('$?a.b': the match's map when there is a match) is not one."""
    items = value if isinstance(value, list) else [value]
    return [v[1:] for v in items if isinstance(v, str) and v.startswith("$") and not v.startswith("$?")]


def bind_state(value: Any, state: LiveState) -> Any:
    if isinstance(value, str) and value.startswith("$"):
        return _plain(get_field(state, value[1:].removeprefix("?")))
    if isinstance(value, list):
        return [bind_state(v, state) for v in value]
    return value


def bind_args(args: dict[str, Any], state: LiveState) -> dict[str, Any]:
    """A call's arguments bound to the state; an optional binding the state lacks is left out
    (a team built in the lobby has no opponent to build against)."""
    bound = {k: bind_state(v, state) for k, v in args.items()}
    return {
        k: v
        for k, v in bound.items()
        if not (isinstance(args[k], str) and args[k].startswith("$?") and v in (None, [], {}))
    }


def decision_fields(entry: PhiEntry) -> list[str]:
    """The fields that must be fresh to freeze `entry`: its `requires` plus every bound argument
    (a bound argument is a decision field even if the table forgot to list it)."""
    bound = [p for use in entry.tools for v in use.args.values() for p in state_paths(v)]
    return list(dict.fromkeys(entry.requires + bound))
