"""W2's QuerySlots (paper A.2): what the player asks for, as the slot call's JSON, and its parsing.

``QuerySlots = L_slot(x, c1)``: a separate LLM call (system prompt `voicecoach.grounding.prompt.slot_prompt`)
turns the utterance into QuerySlots, or, on a small model, `voicecoach.grounding.slot_rules.extract_slots`
does. The slots' attribute names and global kinds come from the pack's schema (`slot_names`);
`query_slots_json_schema` is the closed schema for constrained decoding and `parse_query_slots`
reads the call's JSON without ever raising (what it cannot read becomes a note).
"""

from __future__ import annotations

import json
import re
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic.json_schema import JsonDict
from pydantic_core import PydanticCustomError

from voicecoach.domain.catalog import Schema
from voicecoach.domain.pack import Pack

# The attribute an AttributePref names and the kind of a GlobalConstraint come from the pack's
# schema (`slot_names`): the option kind and the unit's categorical attributes (pet: skill, element,
# role, rarity); max_size, min_size, max_<ordered attribute> (max_rarity) and <attribute>_only for
# an attribute whose values are a type kind (element_only).
ANY_SKILL = "*"  # attribute value meaning "whatever option it has now" ("swap out X's skill")


def _or_list(words: Sequence[str]) -> str:
    """ "a", "a or b", "a, b or c"."""
    words = list(words)
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words)


def _one_of(context: dict[str, Any] | None, key: str, value: str) -> str:
    # Validation against the pack's names runs when parse_query_slots passes them as context; a
    # slot built in code is checked against the catalog by validate_against_catalog instead.
    allowed = (context or {}).get(key)
    if allowed is not None and value not in allowed:
        expected = _or_list([repr(a) for a in allowed])
        raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})
    return value


class _Slot(BaseModel):
    # extra="forbid" makes the JSON schema closed, which keeps constrained decoding on the rails;
    # `parse_query_slots` drops unknown keys with an error note before validating.
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class AttributePref(_Slot):
    """One attribute-level wish: "Emberfox with Flame Burst", "no fire", "a tank"."""

    entity: str | None = Field(default=None, description="unit the wish is about; null: the team")
    attribute: str  # one of the pack's `slot_names` attributes
    value: str = Field(min_length=1, description="option name or unit attribute value ('*': any option)")
    op: Literal["want", "avoid"] = "want"

    @field_validator("attribute")
    @classmethod
    def _known(cls, value: str, info: ValidationInfo) -> str:
        return _one_of(info.context, "attributes", value)


# Constrained decoding only (a `maxItems` in the slot call's schema, not a validation rule): a
# small model, shown the 48-name catalog, otherwise copies it into a list until max_tokens cuts
# the JSON. A player names a handful of things in one utterance.
MAX_NAMES, MAX_ITEMS = 5, 3
_NAMES: JsonDict = {"maxItems": MAX_NAMES}
_ITEMS: JsonDict = {"maxItems": MAX_ITEMS}


class PickGroup(_Slot):
    """n-pick-k-swap group: "bring two of Emberfox, Pyrowl and Kindlemoth"."""

    pool: list[str] = Field(min_length=1, description="unit names to choose from", json_schema_extra=_NAMES)
    pick: int = Field(ge=1, description="how many of the pool to field")


class GlobalConstraint(_Slot):
    """A constraint on the whole team: "at most 3", "only fire", "nothing above rare"."""

    kind: str  # one of the pack's `slot_names` global kinds
    value: int | str

    @field_validator("kind")
    @classmethod
    def _known(cls, value: str, info: ValidationInfo) -> str:
        return _one_of(info.context, "globals", value)


# The field descriptions say "unit" / "option": `query_slots_json_schema` words them in the pack's
# kinds (the docstrings are the JSON schema's descriptions, and pet's are pinned).
class QuerySlots(_Slot):
    """What the utterance asks for. Every field defaults empty so a partial extraction validates."""

    wanted_entities: list[str] = Field(
        default_factory=list, description="units the player wants", json_schema_extra=_NAMES
    )
    excluded_entities: list[str] = Field(
        default_factory=list, description="units to keep out", json_schema_extra=_NAMES
    )
    opponent_entities: list[str] = Field(
        default_factory=list, description="units the opponent fields", json_schema_extra=_NAMES
    )
    nature_prefs: list[str] = Field(
        default_factory=list, description="temperament words: aggressive ...", json_schema_extra=_ITEMS
    )
    attribute_prefs: list[AttributePref] = Field(default_factory=list, json_schema_extra=_NAMES)
    style_prefs: list[str] = Field(
        default_factory=list, description="play style: defensive, tempo ...", json_schema_extra=_ITEMS
    )
    n_pick_k_swap_group: list[PickGroup] = Field(default_factory=list, json_schema_extra=_ITEMS)
    global_constraints: list[GlobalConstraint] = Field(default_factory=list, json_schema_extra=_ITEMS)


@dataclass(frozen=True)
class SlotNames:
    """What a pack's QuerySlots can name (`slot_names`)."""

    unit: str
    option: str | None
    attributes: tuple[str, ...]  # the option kind, then the unit's categorical attributes
    ordered: tuple[str, ...]  # unit attributes with listed values, low to high: max_<attribute>
    only: tuple[str, ...]  # unit attributes whose values are a type kind: <attribute>_only
    globals: tuple[str, ...]  # max_size, min_size, max_<ordered>, <only>_only


def slot_names(schema: Schema) -> SlotNames:
    """The attribute names and global kinds of a schema's slots (pet: skill, element, role,
    rarity; max_size, min_size, max_rarity, element_only)."""
    unit = schema.kind("unit") or ""
    option = schema.kind("option")
    attrs = {n: a for n, a in schema.kinds[unit].attributes.items() if not a.numeric}
    ordered = tuple(n for n, a in attrs.items() if a.ordered and isinstance(a.values, list))
    only = tuple(
        n
        for n, a in attrs.items()
        if isinstance(a.values, str) and a.values in schema.kinds and schema.kinds[a.values].role == "type"
    )
    return SlotNames(
        unit=unit,
        option=option,
        attributes=(*([option] if option else []), *attrs),
        ordered=ordered,
        only=only,
        globals=("max_size", "min_size", *(f"max_{n}" for n in ordered), *(f"{n}_only" for n in only)),
    )


def _names_of(pack: Pack) -> tuple[Schema, SlotNames]:
    schema = pack.catalog.schema
    return schema, slot_names(schema)


def query_slots_json_schema(pack: Pack) -> dict[str, Any]:
    """JSON schema of QuerySlots, for grammar-constrained decoding of the slot call: the pack's
    attribute names and global kinds, its unit and option nouns (no pack: pet_arena's)."""
    schema, names = _names_of(pack)
    out = QuerySlots.model_json_schema()
    defs, props = out["$defs"], out["properties"]
    units = schema.plural(names.unit)
    pref = defs["AttributePref"]["properties"]
    pref["entity"]["description"] = f"{names.unit} the wish is about; null: the team"
    pref["attribute"] = {"enum": list(names.attributes), "title": "Attribute", "type": "string"}
    values = [f"{names.option} name", *names.attributes[1:]] if names.option else list(names.attributes)
    anything = f" ('*': any {names.option})" if names.option else ""
    pref["value"]["description"] = _or_list(values) + anything
    defs["GlobalConstraint"]["properties"]["kind"] = {
        "enum": list(names.globals),
        "title": "Kind",
        "type": "string",
    }
    defs["PickGroup"]["properties"]["pool"]["description"] = f"{names.unit} names to choose from"
    props["wanted_entities"]["description"] = f"{units} the player wants"
    props["excluded_entities"]["description"] = f"{units} to keep out"
    props["opponent_entities"]["description"] = f"{units} the opponent fields"
    if schema.state != "classic":
        for model in defs.values():  # the models' own descriptions give pet's examples
            model["description"] = model["description"].split(":")[0]
    return out


_FENCE = re.compile(r"```(?:json)?", re.IGNORECASE)


def _first_json_object(text: str) -> dict[str, Any] | None:
    # Small models wrap JSON in fences or lead with a sentence; take the first {...} that decodes.
    text = _FENCE.sub("", text)
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None


def parse_query_slots(raw: str | dict[str, Any], pack: Pack) -> tuple[QuerySlots, list[str]]:
    """Read the slot LLM's output; never raises. Returns the slots kept and what was dropped and why.

    Salvage is per item: one malformed attribute pref drops that pref, not the whole turn's slots.
    Attribute names and global kinds must be the pack's (`slot_names`).
    """
    _, names = _names_of(pack)
    context = {"attributes": names.attributes, "globals": names.globals}
    errors: list[str] = []
    data: Any = raw
    if isinstance(raw, str):
        data = _first_json_object(raw)
        if data is None:
            return QuerySlots(), [f"no JSON object in slot output: {raw[:80]!r}"]
    if not isinstance(data, dict):
        return QuerySlots(), [f"slot output is {type(data).__name__}, not an object"]
    try:
        return QuerySlots.model_validate(data, context=context), []
    except ValidationError:
        pass  # fall through to per-field salvage, which also names each problem
    kept: dict[str, list[Any]] = {}
    for key, value in data.items():
        field = QuerySlots.model_fields.get(key)
        if field is None:
            errors.append(f"ignored unknown field {key!r}")
            continue
        if value is None:
            continue
        if not isinstance(value, list):
            value = [value]  # a lone "Emberfox" where a list was expected is still an answer
        item_type = typing.get_args(field.annotation)[0]
        adapter: TypeAdapter[Any] = TypeAdapter(item_type)
        items = []
        for i, item in enumerate(value):
            try:
                items.append(adapter.validate_python(item, context=context))
            except ValidationError as err:
                first = err.errors()[0]
                loc = ".".join(str(p) for p in first["loc"])
                errors.append(f"{key}[{i}]{'.' + loc if loc else ''}: {first['msg']}")
        kept[key] = items
    return QuerySlots.model_validate(kept), errors
