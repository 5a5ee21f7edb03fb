"""The result shapes (JSON schema) of the builtin tool kinds, and the selectors that read them.

`tools_generic` publishes them as each builtin instance's `ToolSpec.result_schema`; `pack.py`
resolves a Φ entry's `answer` selectors against them at load (it cannot import `tools_generic`,
which imports it). A selector names a field of a tool's result: ``hero_counters.ranked[*].id``
is the `id` of every row of `ranked`; ``score_comp.breakdown`` an object. Every field a builtin
returns is declared here: a selector that names a field a result does not have is refused when
the pack loads, not discovered in front of the player.
"""

from __future__ import annotations

import re
from typing import Any

from voicecoach.domain.catalog import Schema

_STRING, _INT, _NUMBER, _BOOL = (
    {"type": "string"},
    {"type": "integer"},
    {"type": "number"},
    {"type": "boolean"},
)
_IDS = {"type": "array", "items": _STRING}
_OBJECT = {"type": "object"}  # keys are data (a breakdown's components, a quota's roles)
_REF_FIELDS: dict[str, Any] = {"id": _STRING, "name": _STRING}
_REF: dict[str, Any] = {"type": "object", "properties": _REF_FIELDS}


def _result(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": sorted(properties)}


def _rows(**extra: Any) -> dict[str, Any]:
    """A list of entity rows (id, name and `extra`); only id and name are in every row."""
    return {"type": "array", "items": {"type": "object", "properties": {**_REF_FIELDS, **extra}}}


def _refs() -> dict[str, Any]:
    return _rows()


_LOCKED = _rows(unlock_text=_STRING)
_UNIT = {
    "type": "object",
    "properties": {**_REF_FIELDS, "level": _INT, "tier": _INT, "unlocked": _refs(),
                   "locked": _LOCKED, "equipped": _OBJECT},
}  # fmt: skip
_SCORE = {"score": _INT, "breakdown": _OBJECT, "max": _OBJECT, "quota_missing": _OBJECT}
_GROUP = {
    "type": "object",
    "properties": {"id": _STRING, "name": _STRING, "members": _IDS, "owned_count": _INT, "missing": _IDS,
                   "complete": _BOOL},
}  # fmt: skip


def builtin_shape(schema: Schema, builtin: str, matchup: str | None = None) -> dict[str, Any]:
    """The result shape of a builtin instance over `schema` (its `matchup`, for the kinds that rank
    by one): the context kind it keys, and whether its rows carry the matchup's reasons."""
    m = next((x for x in schema.matchups if x.name == matchup), None)
    context = None
    if builtin == "context_fit" and m is not None:
        context = m.between[1]
    elif builtin in ("score_group", "suggest_group"):
        fit = schema.context_matchup()
        context = fit.between[1] if fit is not None else None
    notes = builtin == "rank_matchup" and m is not None and m.notes is not None
    return builtin_result_schema(builtin, context, notes)


def builtin_result_schema(builtin: str, context: str | None = None, notes: bool = False) -> dict[str, Any]:
    """The result shape of a builtin kind; `context` is the context kind it keys (context_fit's, or
    the one score_group / suggest_group may take), `notes` that rank_matchup's rows carry reasons.
    Fields a call gives only with an optional argument are declared, not required."""
    if builtin == "get_collection":
        units = {"type": "array", "items": _UNIT}
        return _result(count=_INT, units=units, saved_groups=_OBJECT)
    if builtin == "get_entity":
        # The entity's own fields follow (its attributes): the entity is open, these are declared.
        shape = _result(kind=_STRING, id=_STRING, name=_STRING)
        shape["properties"] |= {
            "owned": _BOOL, "unit": _UNIT, "unlock_text": _STRING, "usable": _BOOL, "missing": _IDS,
            "fieldable": _BOOL, "units": _rows(owned=_BOOL, usable=_BOOL),
        }  # fmt: skip
        shape["open"] = True
        return shape
    if builtin == "rank_matchup":
        reasons = {"reasons": _OBJECT} if notes else {}  # foe id -> why this row beats it
        ranked = _rows(advantage=_NUMBER, beats=_IDS, beaten_by=_IDS, against=_NUMBER, **reasons)
        return _result(matchup=_STRING, opponent=_refs(), ranked=ranked)
    if builtin == "context_fit":
        return _result(matchup=_STRING, ranked=_rows(fit=_NUMBER), **{context or "context": _REF})
    optional: dict[str, Any] = {context: _REF} if context else {}
    if builtin == "score_group":
        shape = _result(units=_refs(), opponent=_refs(), size_ok=_BOOL, not_owned=_IDS, **_SCORE)
        swap = {
            "type": "object",
            "properties": {"out": _REF, "in": _REF, "score": _INT, "gain": _INT, "changes": _OBJECT},
        }
        optional["swaps"] = {"type": "array", "items": swap}  # with an opponent or a context
        shape["properties"] |= optional
        return shape
    if builtin == "suggest_group":
        shape = _result(size=_INT, units=_refs(), opponent=_refs(), **_SCORE)
        shape["properties"] |= optional | {
            "prefer": _OBJECT, "matching": _INT, "available": _INT, "include": _refs(), "not_owned": _IDS,
            "style": _STRING,
        }  # fmt: skip
        return shape
    if builtin == "list_groups":
        return _result(groups={"type": "array", "items": _GROUP})
    if builtin == "get_match_state":
        score = {"type": "object", "properties": {"player": _INT, "opponent": _INT}}
        sides = {"player_side": _refs(), "opponent_side": _refs()}
        return _result(mode=_STRING, round=_INT, rounds_total=_INT, score=score, context=_OBJECT, **sides)
    raise ValueError(f"unknown builtin kind {builtin!r}")


# --- selectors ------------------------------------------------------------------------------------

_PART = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\[\*\])?$")


def selector_parts(path: str) -> list[tuple[str, bool]] | None:
    """``ranked[*].id`` -> [("ranked", True), ("id", False)]; None when malformed."""
    out = []
    for part in path.split("."):
        m = _PART.match(part)
        if m is None:
            return None
        out.append((m.group(1), m.group(2) is not None))
    return out


def resolve_shape(schema: dict[str, Any], path: str) -> str | None:
    """Why `path` (after the tool name) does not name a field of `schema`, or None when it does.

    A field is known when the object declares it; an object without `properties` (its keys are data)
    or an `open` one (an entity's attributes) takes any key; `[*]` enters an array's items."""
    parts = selector_parts(path)
    if parts is None:
        return f"malformed selector {path!r}"
    node: dict[str, Any] = schema
    for i, (name, each) in enumerate(parts):
        props = node.get("properties")
        if props is not None and name in props:
            node = props[name]
        elif (props is None and node.get("type") in ("object", None)) or node.get("open"):
            node = {}  # an object whose keys are data, or a value nothing is declared of
        else:
            return f"no field {name!r} in the result (fields: {', '.join(sorted(props or {}))})"
        if each:
            if node and node.get("type") != "array":
                return f"{name!r} is not a list, so {name}[*] selects nothing"
            node = node.get("items", {})
        elif node.get("type") == "array" and i < len(parts) - 1:
            return f"{name!r} is a list: write {name}[*]"
    return None


def select(result: Any, path: str) -> Any:
    """The value `path` selects in a tool result (None when a field is absent); `[*]` maps over a
    list and flattens, so ``ranked[*].beats[*]`` is one flat list."""
    parts = selector_parts(path) or []
    values: list[Any] = [result]
    many = False
    for name, each in parts:
        nxt: list[Any] = []
        for v in values:
            got = v.get(name) if isinstance(v, dict) else None
            if got is None:
                continue
            if each:
                nxt.extend(got if isinstance(got, list) else [])
            else:
                nxt.append(got)
        values, many = nxt, many or each
    if many:
        return values
    return values[0] if values else None
