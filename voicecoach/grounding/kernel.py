"""W2 Grounding: reconcile what the player asked for with what is satisfiable for them (paper §5).

One turn runs, in order (`ground`):

1. ``QuerySlots = L_slot(x, c1)``: a separate LLM call (system prompt `slot_prompt`) turns the
   utterance into QuerySlots (paper A.2); `parse_query_slots` reads its JSON without ever raising.
   Or, on a small model, `voicecoach.grounding.slot_rules.extract_slots` (entity links + cue words).
   Either way `ground_slots` keeps only names the player said (the utterance, the session's earlier
   constraints, the opponent lineup): an invented name is dropped, never judged or mentioned.
2. Deterministic repairs (pure): `repair_attr_level_excludes`, `repair_entities_misclassified_as_skills`.
3. `validate_against_catalog`: names become catalog ids; unknown names become `hint` conflicts.
4. ``Conflicts = diff(QuerySlots, σ(s_fs))``: every constraint the request implies, judged against
   the live inventory, graded hard / soft / hint. Satisfied constraints are kept too: they are what
   praise may talk about.
5. ``(A, R) = Ψ(Conflicts, intent)``: eligible paragraphs A and required paragraphs R (Appendix D).
6. `schedule`: the paragraph plan P with R ⊆ P ⊆ A, never judging one constraint both ways.

The result, `GroundingControl`, is c2. Everything after the slot LLM call is deterministic for fixed
slots, state, pack and intent; nothing here imports Pipecat or does I/O.

The pack's schema (voicecoach.domain.catalog) names the kinds: the *unit* (pet: creature), the *option*
(pet: skill), the *group* (pet: lineup). The slots' attribute names and global kinds, the detail
strings (`Schema.phrase`), the matchup a counter is judged by and the Φ entry's Ψ flags all come
from the pack; the player's units are read through `StateView`. Constraint ids are stable strings
the Talker and the tests can key on (pet's kinds in brackets):

    has:<unit>                     the player wants <unit> in the team            hard
    <option kind>:<o>[@<unit>]     wants option o usable (on <unit>) [skill:]     hard
    pick:<k>of[<u1>,<u2>,...]      wants k of these units (ids sorted)            hard
    global:min_size                team of at least n: owns at least n units      hard
    excludes:<unit>                keep <unit> out                                soft
    attr:<a>=<v>[@<u>]             wants unit attribute a [element/role/rarity]   soft
    attr:<a>!=<v>[@<u>]            wants to avoid it (option avoids: v may be *)  soft
    counter:<unit>                 owns something that beats an opponent unit     soft
                                   (the schema's first unit-vs-unit matchup)
    global:<kind>                  max_size / max_<ordered attribute> [rarity] /  soft
                                   <attribute>_only, values a type kind [element]
    style:<v>, nature:<v>          a fully owned pack group plays that way        hint
    unknown_entity:<name>          a name the catalog does not know               hint
    unknown_value:<value>          an attribute value the catalog does not know   hint
    state:inventory                the inventory / collection is missing or empty hard
"""

from __future__ import annotations

import json
import re
import typing
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

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

from voicecoach.core.state import FactSlots, Inventory, LiveState
from voicecoach.domain.catalog import Entity, Schema
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import Creature, Pack, PhiEntry, Skill
from voicecoach.domain.view import StateView
from voicecoach.tools.builtin import multiplier

# --- QuerySlots (paper A.2) -------------------------------------------------------------------

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


# --- slots grounded in what the player said ------------------------------------------------------


def _finder(pack: Pack, kind: str | None) -> Callable[[str], Entity | None]:
    """Name -> the catalog entity of `kind` (pet: creature_by_name / skill_by_name)."""
    catalog = pack.catalog
    return (lambda name: catalog.by_name(kind, name)) if kind else (lambda name: None)


def _units(pack: Pack) -> Callable[[str], Entity | None]:
    return _finder(pack, pack.catalog.schema.kind("unit"))


def _options(pack: Pack) -> Callable[[str], Entity | None]:
    return _finder(pack, pack.catalog.schema.kind("option"))


def _ids(names: Iterable[str], find: Callable[[str], Entity | None]) -> set[str]:
    return {item.id for name in names if (item := find(name)) is not None}


def earlier_ids(pack: Pack, earlier: QuerySlots | None) -> set[str]:
    """Catalog ids (units and options) the session's earlier constraints name."""
    if earlier is None:
        return set()
    names = [*earlier.wanted_entities, *earlier.excluded_entities, *earlier.opponent_entities]
    names += [name for group in earlier.n_pick_k_swap_group for name in group.pool]
    names += [p.entity for p in earlier.attribute_prefs if p.entity]
    option = pack.catalog.schema.kind("option")
    options = [p.value for p in earlier.attribute_prefs if option and p.attribute == option]
    return _ids(names, _units(pack)) | _ids(options, _options(pack))


def grounded_ids(pack: Pack, utterance: str, state: LiveState, earlier: QuerySlots | None = None) -> set[str]:
    """What a slot may name: catalog ids linked in the utterance, named by the session's earlier
    constraints, or on the opponent's side of the current match (the state's context)."""
    schema = pack.catalog.schema
    kinds = {schema.kind("unit"), schema.kind("option")} - {None}
    linked = {m.id for m in link_entities(pack, utterance) if m.kind in kinds}
    return linked | earlier_ids(pack, earlier) | set(StateView(pack, state).opponent_side())


def ground_slots(
    slots: QuerySlots,
    pack: Pack,
    utterance: str,
    state: LiveState,
    earlier: QuerySlots | None = None,
) -> tuple[QuerySlots, list[str]]:
    """Keep a unit / option name only when the player grounded it (`grounded_ids`).

    Returns the kept slots and the dropped names. A dropped name is gone: it is not judged and no
    "unknown entity" hint is made of it, so an invented name ("Cyclo-Aerathos") can never become
    something the Talker is told to mention. Both slot paths (LLM and rules) go through this.
    """
    allowed = grounded_ids(pack, utterance, state, earlier)
    dropped: list[str] = []
    unit_of, option_of = _units(pack), _options(pack)
    option = pack.catalog.schema.kind("option")

    def keep(name: str, find: Callable[[str], Entity | None]) -> bool:
        item = find(name)
        if item is not None and item.id in allowed:
            return True
        dropped.append(name)
        return False

    def units(names: list[str]) -> list[str]:
        # An option the player named may sit in a unit slot: the repairs below move it.
        return [n for n in names if n.strip() and keep(n, lambda x: unit_of(x) or option_of(x))]

    prefs = []
    for pref in slots.attribute_prefs:
        if pref.entity is not None and not keep(pref.entity, unit_of):
            continue
        if pref.attribute == option and pref.value != ANY_SKILL and not keep(pref.value, option_of):
            continue
        prefs.append(pref)
    groups = []
    for group in slots.n_pick_k_swap_group:
        pool = units(group.pool)
        if pool:
            groups.append(group.model_copy(update={"pool": pool}))
    kept = slots.model_copy(
        update={
            "wanted_entities": units(slots.wanted_entities),
            "excluded_entities": units(slots.excluded_entities),
            "opponent_entities": units(slots.opponent_entities),
            "attribute_prefs": prefs,
            "n_pick_k_swap_group": groups,
        }
    )
    return kept, _dedupe(dropped)


# Words that ask for a creature kept out to come back ("bring Emberfox back", "add Pyrowl", "build
# around it"): naming it in a question ("what does Pyrowl do?") does not.
ASKS_BACK = re.compile(
    r"\b(?:back|again|add|adding|include|including|put|bring|keep|around|want|wanna|need)\b", re.I
)


# A question, not a request: "should I swap Emberfox out?", "do I bench Sunmane?".
ASKS_WHETHER = re.compile(r"\?\s*$|\b(?:should|shall|do|can) (?:i|we)\b|\bis it worth\b", re.I)


def carry_over(
    slots: QuerySlots, earlier: QuerySlots | None, pack: Pack, utterance: str | None = None
) -> QuerySlots:
    """The session's earlier constraints that still hold: units kept out stay out, unless the
    player now asks for one of them back (wanted, and with `utterance`, asked with ASKS_BACK's
    words: slots mark every unit an utterance names as wanted)."""
    if earlier is None:
        return slots
    unit_of = _units(pack)
    asked_back = utterance is None or ASKS_BACK.search(utterance) is not None
    wanted = _ids(slots.wanted_entities, unit_of) if asked_back else set()
    back = [n for n in earlier.excluded_entities if _ids([n], unit_of) & wanted]
    excluded = [n for n in earlier.excluded_entities if n not in back] + list(slots.excluded_entities)

    def same(name: str) -> str:
        unit = unit_of(name)
        return unit.id if unit is not None else name.strip().lower()

    return slots.model_copy(update={"excluded_entities": _dedupe(excluded, key=same)})


# --- repairs (paper A.2): pure, each returns new slots + notes ---------------------------------

# "Emberfox's skill": English words for an option, plus the option kind's nouns (and their plurals,
# for a noun the English words do not already hold).
_OPTION_WORDS = frozenset({"skill", "skills", "move", "moves", "ability", "abilities", "attack"})
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_T = TypeVar("_T")


def _option_words(schema: Schema) -> frozenset[str]:
    option = schema.kind("option")
    nouns = [n.lower() for n in schema.kinds[option].nouns] if option else []
    return _OPTION_WORDS | set(nouns) | {f"{n}s" for n in nouns if n not in _OPTION_WORDS}


def _dedupe(items: Iterable[_T], key: Callable[[_T], Any] | None = None) -> list[_T]:
    """Order-preserving dedupe; `key` for items that are not hashable themselves."""
    seen: set[Any] = set()
    out = []
    for item in items:
        k = item if key is None else key(item)
        if k not in seen:
            seen.add(k)
            out.append(item)
    return out


def _same_unit(a: str, b: str, pack: Pack) -> bool:
    unit_of = _units(pack)
    ua, ub = unit_of(a), unit_of(b)
    if ua is not None and ub is not None:
        return ua.id == ub.id
    return a.strip().lower() == b.strip().lower()


def _options_of(pack: Pack, unit: Entity) -> list[str]:
    """The option ids a unit can have (pet: a creature's skills)."""
    field = pack.catalog.schema.options_field()
    return list(unit.value(field) or []) if field is not None else []


def _split_owner_option(text: str, pack: Pack) -> tuple[str, str] | None:
    """ "Emberfox's skill" -> ("Emberfox", "*"); "Emberfox Ember Fang" -> ("Emberfox", "Ember Fang")."""
    if pack.catalog.schema.kind("option") is None:
        return None
    unit_of, option_of = _units(pack), _options(pack)
    words = text.split()
    for i in range(1, len(words)):
        owner = _POSSESSIVE.sub("", " ".join(words[:i]))
        rest = " ".join(words[i:])
        unit = unit_of(owner)
        if unit is None:
            continue
        if rest.lower() in _option_words(pack.catalog.schema):
            return owner, ANY_SKILL
        option = option_of(rest)
        if option is not None and option.id in _options_of(pack, unit):
            return owner, rest
    return None


def repair_attr_level_excludes(
    slots: QuerySlots, pack: Pack, carried: Iterable[str] = ()
) -> tuple[QuerySlots, list[str]]:
    """ "Swap out X's skill" parsed as "exclude X" becomes an attribute-level change to X.

    `carried`: exclusions the session's earlier turns made (`carry_over`): decided already, not
    this turn's parse, so never dropped ("no Gloomshell", then "when should Gloomlet use Shadow
    Step?" keeps Gloomshell out).

    Trigger, precisely (the option kind is pet's skill): an excluded entry that
    (a) is a unit which is also the `entity` of an option attribute pref: an option wish about X
        only makes sense if X stays, so the exclude was the misparse and is dropped (the pref stays); or
    (b) is not a unit but reads "<unit>['s] skill|move|..." or "<unit>['s] <its option>":
        it becomes an attribute pref {entity: X, attribute: option, value: option or "*", op: avoid}.
    """
    option = pack.catalog.schema.kind("option")
    unit_of = _units(pack)
    notes: list[str] = []
    excluded: list[str] = []
    prefs = list(slots.attribute_prefs)
    option_owners = [p.entity for p in prefs if option and p.attribute == option and p.entity]
    carried = list(carried)
    for name in slots.excluded_entities:
        if unit_of(name) is not None:
            earlier = any(_same_unit(name, c, pack) for c in carried)
            if not earlier and any(_same_unit(name, owner, pack) for owner in option_owners):
                notes.append(f"repair_attr_level_excludes: kept {name!r} (its {option} is changed, not it)")
                continue
            excluded.append(name)
            continue
        split = _split_owner_option(name, pack)
        if split is None or option is None:
            excluded.append(name)
            continue
        owner, value = split
        prefs.append(AttributePref(entity=owner, attribute=option, value=value, op="avoid"))
        notes.append(f"repair_attr_level_excludes: exclude {name!r} -> avoid {option} {value!r} on {owner!r}")
    if not notes:
        return slots, []
    return slots.model_copy(update={"excluded_entities": excluded, "attribute_prefs": prefs}), notes


def repair_entities_misclassified_as_skills(slots: QuerySlots, pack: Pack) -> tuple[QuerySlots, list[str]]:
    """A unit name in an option pref goes back to the entity slots.

    Trigger: an attribute pref naming the option kind whose value names a unit and no option.
    "want" moves it to wanted_entities, "avoid" to excluded_entities.
    """
    option = pack.catalog.schema.kind("option")
    unit_of, option_of = _units(pack), _options(pack)
    unit = pack.catalog.schema.kind("unit")
    notes: list[str] = []
    prefs: list[AttributePref] = []
    wanted = list(slots.wanted_entities)
    excluded = list(slots.excluded_entities)
    for pref in slots.attribute_prefs:
        is_unit = unit_of(pref.value) is not None
        if pref.attribute != option or not is_unit or option_of(pref.value) is not None:
            prefs.append(pref)
            continue
        target = wanted if pref.op == "want" else excluded
        target.append(pref.value)
        slot = "wanted_entities" if pref.op == "want" else "excluded_entities"
        notes.append(f"repair_entities_misclassified_as_skills: {pref.value!r} is a {unit} -> {slot}")
    if not notes:
        return slots, []
    update = {
        "attribute_prefs": prefs,
        "wanted_entities": _dedupe(wanted),
        "excluded_entities": _dedupe(excluded),
    }
    return slots.model_copy(update=update), notes


# --- conflicts --------------------------------------------------------------------------------

Tier = Literal["hard", "soft", "hint"]


class Conflict(BaseModel):
    """One constraint the request implies, judged against σ(s_fs). Satisfied ones are kept too."""

    model_config = ConfigDict(frozen=True)

    constraint: str  # stable id, see the module docstring
    kind: str  # has / skill / pick / excludes / attr / counter / global / style / nature / unknown_* / state
    tier: Tier  # how much it matters when violated; a satisfied constraint keeps its tier
    satisfied: bool
    entity: str | None = None  # catalog id, or the raw name for unknown_entity
    detail: str  # short, human, for the Talker


def _judge(constraint: str, tier: Tier, ok: bool, detail: str, entity: str | None = None) -> Conflict:
    # The kind is the id's prefix ("has:emberfox" -> "has"), so the two can never disagree.
    kind = constraint.split(":", 1)[0]
    return Conflict(constraint=constraint, kind=kind, tier=tier, satisfied=ok, entity=entity, detail=detail)


def _unknown(name: str, what: str, kind: str = "unknown_entity") -> Conflict:
    return _judge(f"{kind}:{name.strip().lower()}", "hint", False, f"{name!r} is not a known {what}", name)


def _attribute_values(pack: Pack, ref: list[str] | str | None) -> tuple[str, ...] | None:
    """An attribute's allowed values in order (None: any): listed, a vocabulary section, a kind's ids."""
    if ref is None or isinstance(ref, list):
        return None if ref is None else tuple(ref)
    if ref.startswith("vocabulary."):
        section = getattr(pack.vocabulary, ref.removeprefix("vocabulary."), None)
        return tuple(section) if isinstance(section, dict) else ()
    return tuple(pack.catalog.entities.get(ref, {}))


def attribute_values(pack: Pack) -> dict[str, tuple[str, ...] | None]:
    """The unit's categorical attributes with their values (pet: element, role, rarity)."""
    schema = pack.catalog.schema
    unit = schema.kinds[schema.kind("unit") or ""]
    return {n: _attribute_values(pack, a.values) for n, a in unit.attributes.items() if not a.numeric}


def validate_against_catalog(slots: QuerySlots, pack: Pack) -> tuple[QuerySlots, list[Conflict]]:
    """Map every unit / option name to its catalog id (case-insensitive) and check attribute values.

    Whatever does not resolve is dropped from the returned slots and reported as a `hint` conflict
    naming it, so a misheard name costs an annotation, never a crash or a wrong judgement.
    """
    schema = pack.catalog.schema
    names = slot_names(schema)
    unit_of, option_of = _units(pack), _options(pack)
    allowed_values = attribute_values(pack)
    unknown: list[Conflict] = []

    def unit_ids(items: Iterable[str]) -> list[str]:
        ids = []
        for name in items:
            if not name.strip():
                continue  # an empty string is no name, not an unknown one
            unit = unit_of(name)
            if unit is None:
                unknown.append(_unknown(name, names.unit))
            else:
                ids.append(unit.id)
        return _dedupe(ids)

    prefs: list[AttributePref] = []
    for pref in slots.attribute_prefs:
        entity = None
        if pref.entity is not None:
            unit = unit_of(pref.entity)
            if unit is None:
                unknown.append(_unknown(pref.entity, names.unit))
                continue
            entity = unit.id
        value = pref.value.lower()
        is_option = names.option is not None and pref.attribute == names.option
        if is_option and pref.value == ANY_SKILL and pref.op == "want":
            # "*" can only be swapped out; wanting "any skill" names nothing to check.
            unknown.append(_unknown(pref.value, f"{names.option} to want", "unknown_value"))
            continue
        if is_option and pref.value != ANY_SKILL:
            option = option_of(pref.value)
            if option is None:
                unknown.append(_unknown(pref.value, names.option or ""))
                continue
            value = option.id
        if not is_option and pref.attribute not in allowed_values:
            unknown.append(_unknown(pref.attribute, "attribute", "unknown_value"))
            continue
        allowed = allowed_values.get(pref.attribute)
        if allowed is not None and value not in allowed:
            unknown.append(_unknown(pref.value, pref.attribute, "unknown_value"))
            continue
        prefs.append(pref.model_copy(update={"entity": entity, "value": value}))

    groups = []
    for group in slots.n_pick_k_swap_group:
        pool = unit_ids(group.pool)
        if pool:
            groups.append(group.model_copy(update={"pool": pool}))

    constraints = []
    for gc in slots.global_constraints:
        text = str(gc.value).strip().lower()
        checked: int | str | None = None
        if gc.kind in ("max_size", "min_size"):
            checked = int(text) if text.isdigit() else None
        elif gc.kind in names.globals:  # max_<ordered attribute>, <attribute>_only
            attribute = (
                gc.kind.removeprefix("max_") if gc.kind.startswith("max_") else gc.kind[: -len("_only")]
            )
            values = allowed_values.get(attribute)
            checked = text if values is not None and text in values else None
        if checked is None:
            unknown.append(_unknown(str(gc.value), f"value for {gc.kind}", "unknown_value"))
            continue
        constraints.append(gc.model_copy(update={"value": checked}))

    resolved = QuerySlots(
        wanted_entities=unit_ids(slots.wanted_entities),
        excluded_entities=unit_ids(slots.excluded_entities),
        opponent_entities=unit_ids(slots.opponent_entities),
        nature_prefs=_dedupe(p.lower() for p in slots.nature_prefs if p),
        attribute_prefs=_dedupe(prefs),
        style_prefs=_dedupe(p.lower() for p in slots.style_prefs if p),
        n_pick_k_swap_group=_dedupe(groups, key=lambda g: (g.pick, tuple(g.pool))),
        global_constraints=_dedupe(constraints),
    )
    return resolved, _dedupe(unknown)


# --- diff(QuerySlots, σ(s_fs)) -----------------------------------------------------------------


class Diff(BaseModel):
    """The conflict set plus what Appendix D's R6 needs: is the satisfiable inventory empty?"""

    model_config = ConfigDict(frozen=True)

    conflicts: tuple[Conflict, ...]
    inventory_empty: bool  # known and holds no unit (R6)
    inventory_known: bool  # False: the state holds no inventory / collection, nothing could be verified
    empty_detail: str = ""  # with inventory_empty: what the apology says ("owns no creatures yet")


def _unlock_text(schema: Schema, option_kind: str, option: Entity) -> str:
    """The option's gates, spoken from the schema's gate templates ("unlocks at stage 3")."""
    unlock = option.value("unlock")
    if unlock is None:
        return schema.phrase("unlock_free")
    gates = schema.kinds[option_kind].gate
    parts = []
    for field, gate in gates.items():
        value = unlock.get(field) if isinstance(unlock, dict) else None
        if value:
            parts.append(
                gate.spoken.format(value=value) if gate.spoken else f"{field.replace('_', ' ')} {value}"
            )
    return schema.phrase("unlock_gates", gates=" and ".join(parts))


def skill_usable(inventory: Inventory, creature: Creature, skill: Skill) -> bool:
    """Can the player use `skill` on `creature` now? (pet's classic models; W2 itself judges
    through `StateView.option_usable`, which answers the same.)

    The game's unlocked list is the truth, but a skill the catalog says is known from the start needs
    no unlock: a snapshot that omits it must not make us apologise for a skill the player has.
    """
    if inventory.skill_unlocked(creature.id, skill.id):
        return True
    return inventory.owns(creature.id) and skill.unlock is None and skill.id in creature.skills


class _Judge:
    """One diff's context: the pack's schema and catalog, the player's units through the view."""

    def __init__(self, pack: Pack, view: StateView) -> None:
        self.pack, self.view = pack, view
        self.catalog = pack.catalog
        self.schema = self.catalog.schema
        self.unit = self.schema.kind("unit") or ""
        self.option = self.schema.kind("option")
        self.owned = [o.id for o in view.owned() if self.catalog.get(self.unit, o.id) is not None]
        self.owned_ids = set(self.owned)

    def name(self, kind: str, entity_id: str) -> str:
        entity = self.catalog.get(kind, entity_id)
        return entity.display if entity is not None else entity_id

    def unit_entity(self, unit_id: str) -> Entity:
        return self.catalog.get(self.unit, unit_id) or Entity(id=unit_id)

    def phrase(self, key: str, **values: object) -> str:
        return self.schema.phrase(key, **values)

    def option_pref(self, pref: AttributePref) -> Conflict:
        option = self.option or ""
        at = f"@{pref.entity}" if pref.entity else ""
        holder = self.name(self.unit, pref.entity) if pref.entity else ""
        on = " " + self.phrase("on_unit", unit=holder) if pref.entity else ""
        if pref.op == "avoid":
            # Not using an option is always possible: a satisfied soft constraint.
            name = (
                self.phrase("option_any", option=option)
                if pref.value == ANY_SKILL
                else self.name(option, pref.value)
            )
            detail = self.phrase("option_avoid", option=name) + on
            return _judge(f"attr:{option}!={pref.value}{at}", "soft", True, detail, pref.entity)
        entity = self.catalog.get(option, pref.value) or Entity(id=pref.value)
        holders = [pref.entity] if pref.entity else self.owned
        ok = any(self.view.option_usable(entity.id, h) for h in holders)
        name = entity.display
        if ok:
            detail = self.phrase("option_usable", option=name) + on
        elif pref.entity and entity.id not in _options_of(self.pack, self.unit_entity(pref.entity)):
            detail = self.phrase("option_not_on_unit", unit=holder, option=name)
        elif pref.entity and not self.view.owns(pref.entity):
            detail = self.phrase("option_needs_unit", option=name, unit=holder)
        else:
            learners = ", ".join(self.name(self.unit, u) for u in self.view.learners(entity.id))
            where = on or " " + self.phrase("option_holders", units=learners)
            unlock = _unlock_text(self.schema, option, entity)
            detail = self.phrase("option_locked", option=name, where=where, unlock=unlock)
        return _judge(f"{option}:{entity.id}{at}", "hard", ok, detail, pref.entity or entity.id)

    def attribute_pref(self, pref: AttributePref) -> Conflict:
        """A unit attribute (pet: element / role / rarity). About one unit, its catalog entry
        decides; about the team, some owned unit must fit (for "avoid": some owned one must not)."""
        op = "=" if pref.op == "want" else "!="
        at = f"@{pref.entity}" if pref.entity else ""
        pool = [pref.entity] if pref.entity else self.owned
        want = pref.op == "want"
        fits = [u for u in pool if (str(self.unit_entity(u).value(pref.attribute)) == pref.value) == want]
        if pref.entity:
            subject = self.name(self.unit, pref.entity)
        else:
            subject = self.phrase("attr_team", unit=self.unit)
        wish = self.phrase(
            "attr_is" if want else "attr_is_not", subject=subject, attribute=pref.attribute, value=pref.value
        )
        detail = wish if fits else self.phrase("not_met", wish=wish)
        return _judge(f"attr:{pref.attribute}{op}{pref.value}{at}", "soft", bool(fits), detail, pref.entity)

    def global_constraint(self, gc: GlobalConstraint, wanted: list[str]) -> Conflict:
        value, cid = gc.value, f"global:{gc.kind}"
        if gc.kind == "min_size":
            # Fielding a team of n needs n units: blocking, like a missing entity.
            detail = self.phrase("min_size", value=value, count=len(self.owned))
            return _judge(cid, "hard", len(self.owned) >= int(value), detail)
        if gc.kind == "max_size":
            detail = self.phrase("max_size", value=value, count=len(wanted))
            return _judge(cid, "soft", len(wanted) <= int(value), detail)
        if gc.kind.startswith("max_"):
            attribute = gc.kind.removeprefix("max_")
            order = attribute_values(self.pack).get(attribute) or ()
            rank = {v: i for i, v in enumerate(order)}
            top = rank[str(value)]

            def fits(unit_id: str) -> bool:
                r = rank.get(str(self.unit_entity(unit_id).value(attribute)))
                return r is not None and r <= top

            ok = all(fits(u) for u in wanted) and any(fits(u) for u in self.owned)
            wish = self.phrase("max_ordered", value=value)
        else:  # <attribute>_only
            attribute = gc.kind[: -len("_only")]

            def fits(unit_id: str) -> bool:
                return self.unit_entity(unit_id).value(attribute) == value

            ok = all(fits(u) for u in wanted) and any(fits(u) for u in self.owned)
            wish = self.phrase("only", value=value, units=self.schema.plural(self.unit))
        return _judge(cid, "soft", ok, wish if ok else self.phrase("global_unmet", wish=wish))

    def counter(self, foe_id: str) -> Conflict | None:
        """Owns something that beats an opponent unit: the schema's first unit-vs-unit matchup."""
        matchup = next((m for m in self.schema.matchups if m.between == (self.unit, self.unit)), None)
        if matchup is None:
            return None
        foe = self.unit_entity(foe_id)
        counters = [
            self.name(self.unit, u)
            for u in self.owned
            if multiplier(self.catalog, matchup, u, foe_id) > matchup.default
        ]
        named = ", ".join(counters[:3]) or self.phrase("counter_none")
        if matchup.attribute is not None:
            value = foe.value(matchup.attribute)
            detail = self.phrase("counter_by", counters=named, foe=foe.display, value=value)
        else:
            detail = self.phrase("counter", counters=named, foe=foe.display)
        return _judge(f"counter:{foe_id}", "soft", bool(counters), detail, foe_id)

    def style(self, kind: str, word: str) -> Conflict:
        # Advisory: we can only say whether some pack group of that style is entirely owned.
        group = self.schema.kind("group")
        spec = self.schema.kinds[group] if group else None
        field = (
            next((n for n, a in spec.attributes.items() if a.values == "vocabulary.styles"), None)
            if spec
            else None
        )
        fits = [
            g.display
            for g in self.catalog.entities.get(group or "", {}).values()
            if field is not None
            and word in str(g.value(field) or "").lower()
            and set(self.view.members(g.id)) <= self.owned_ids
        ]
        group_noun = group or "team"
        if fits:
            detail = self.phrase("style_fits", word=word, group=group_noun, name=fits[0])
        else:
            detail = self.phrase("style_none", word=word, group=group_noun)
        return _judge(f"{kind}:{word}", "hint", bool(fits), detail)


def diff(slots: QuerySlots, fs: FactSlots, pack: Pack) -> Diff:
    """Conflicts = diff(QuerySlots, σ(s_fs)): every constraint in the request, judged and tiered.

    `slots` may hold raw names or ids: catalog validation runs here, so unknown names are always
    reported (as hints) whoever calls this. The player's units are read through `StateView`.
    """
    resolved, conflicts = validate_against_catalog(slots, pack)
    view = StateView(pack, LiveState(fs=fs))
    judge = _Judge(pack, view)
    if not view.known:
        # Nothing can be verified, so one blocking conflict instead of a guess per constraint.
        missing = _judge("state:inventory", "hard", False, judge.phrase("state_unknown"))
        return Diff(conflicts=(missing, *conflicts), inventory_empty=False, inventory_known=False)

    unit, option = judge.unit, judge.option
    empty = judge.phrase("owns_none", units=pack.catalog.schema.plural(unit))
    if not judge.owned:
        conflicts.append(_judge("state:inventory", "hard", False, empty))
    for uid in resolved.wanted_entities:
        name, ok = judge.name(unit, uid), uid in judge.owned_ids
        conflicts.append(
            _judge(f"has:{uid}", "hard", ok, judge.phrase("owns" if ok else "owns_not", name=name), uid)
        )
    for uid in resolved.excluded_entities:
        name, clash = judge.name(unit, uid), uid in resolved.wanted_entities
        detail = judge.phrase("exclude_clash" if clash else "exclude", name=name)
        conflicts.append(_judge(f"excludes:{uid}", "soft", not clash, detail, uid))
    for pref in resolved.attribute_prefs:
        is_option = option is not None and pref.attribute == option
        conflicts.append(judge.option_pref(pref) if is_option else judge.attribute_pref(pref))
    for group in resolved.n_pick_k_swap_group:
        have = len(judge.owned_ids.intersection(group.pool))
        detail = judge.phrase("pick", pick=group.pick, pool=len(group.pool), have=have)
        conflicts.append(
            _judge(f"pick:{group.pick}of[{','.join(sorted(group.pool))}]", "hard", have >= group.pick, detail)
        )
    for uid in resolved.opponent_entities:
        counter = judge.counter(uid)
        if counter is not None:
            conflicts.append(counter)
    conflicts += [judge.global_constraint(gc, resolved.wanted_entities) for gc in resolved.global_constraints]
    for kind, words in (("style", resolved.style_prefs), ("nature", resolved.nature_prefs)):
        conflicts += [judge.style(kind, word) for word in words]
    # One record per constraint id: a name repeated in the request must not be judged twice.
    unique = tuple(_dedupe(conflicts, key=lambda c: c.constraint))
    owned_none = not judge.owned
    return Diff(
        conflicts=unique,
        inventory_empty=owned_none,
        inventory_known=True,
        empty_detail=empty if owned_none else "",
    )


# --- Ψ: eligible paragraphs A and required paragraphs R (Appendix D) --------------------------

ParagraphType = Literal["praise", "apology", "constraint_account", "guidance", "scene_flavor"]
Polarity = Literal[-1, 0, 1]

# Fill order after R. Explaining an unmet constraint beats apologising for it, which beats praise;
# guidance and flavour are only worth the airtime once the judgements are said.
PRIORITY: tuple[ParagraphType, ...] = ("constraint_account", "apology", "praise", "guidance", "scene_flavor")


class Paragraph(BaseModel):
    """One paragraph of the reply plan and the judgement it makes about its constraints."""

    model_config = ConfigDict(frozen=True)

    type: ParagraphType
    constraints: frozenset[str] = frozenset()
    polarity: Polarity = 0  # +1 affirms the constraints, -1 denies them, 0 judges nothing
    detail: str = ""

    def clashes(self, other: Paragraph) -> bool:
        """Opposite judgements of a shared constraint: drift D."""
        return self.polarity * other.polarity == -1 and bool(self.constraints & other.constraints)


class Eligibility(BaseModel):
    """Ψ's output: eligible candidates A and required paragraphs R (R ⊆ A)."""

    model_config = ConfigDict(frozen=True)

    candidates: tuple[Paragraph, ...]  # A
    required: tuple[Paragraph, ...]  # R


# Intent labels come from W1's LLM. Whether a turn recommends is the Φ entry's branch when the
# (intent, sub_intent) pair is registered; otherwise keywords decide, so unregistered labels still fit.
# Whether it coaches and whether it is about a match: the Φ entry's `coaching` / `scene` flags when
# it sets them, else these keyword rules.
NON_COACHING_INTENTS = frozenset({"smalltalk", "small_talk", "chitchat", "greeting", "farewell", "thanks"})
_RECOMMEND_WORDS = ("recommend", "lineup", "team", "build", "swap", "pick", "suggest")
_MATCH_WORDS = ("match", "battle", "opponent", "counter", "round", "fight", "tactic", "strategy")


def _intent_has(words: Sequence[str], *labels: str) -> bool:
    key = " ".join(labels).strip().lower()
    return any(w in key for w in words)


def phi_entry(pack: Pack, intent: str, sub_intent: str) -> PhiEntry | None:
    """The Φ entry of (intent, sub_intent), None when the pair is unregistered."""
    return next((e for e in pack.phi if (e.intent, e.sub_intent) == (intent, sub_intent)), None)


def branch_of(pack: Pack, intent: str, sub_intent: str) -> str | None:
    """The reply branch Φ registers for (intent, sub_intent), None when the pair is unregistered."""
    entry = phi_entry(pack, intent, sub_intent)
    return entry.branch if entry is not None else None


AGGREGATE_DETAIL = "everything required is available"


def psi(
    diff: Diff,
    intent: str,
    sub_intent: str = "",
    branch: str | None = None,
    coaching: bool | None = None,
    scene: bool | None = None,
) -> Eligibility:
    """(A, R) = Ψ(Conflicts, intent).

    - satisfied constraint (hard or soft) -> praise(+1) eligible
    - unsatisfied hard -> apology(-1) and constraint_account(-1) eligible, constraint_account required;
      no praise of it (a hard conflict blocks praise of the violated constraint)
    - aggregate praise over every hard constraint (2+) -> eligible only if all of them are satisfied
    - unsatisfied soft -> constraint_account(-1) eligible
    - hint -> annotation only: stays in the conflict list, makes no paragraph
    - guidance eligible for coaching intents (`coaching`; None: the intent is not smalltalk-like),
      required for recommend-like ones (`branch` "recommend", or recommend keywords when the branch
      is unknown) when the inventory is known and not empty; an empty inventory requires an apology
      and forbids guidance (R6)
    - scene_flavor eligible when the intent is about a match (`scene`; None: match keywords)
    """
    candidates: list[Paragraph] = []
    required: list[Paragraph] = []
    judged = [c for c in diff.conflicts if c.tier != "hint"]
    blocked = {c.constraint for c in judged if c.tier == "hard" and not c.satisfied}
    for c in judged:
        ids = frozenset({c.constraint})
        if c.satisfied and c.constraint not in blocked:
            candidates.append(Paragraph(type="praise", constraints=ids, polarity=1, detail=c.detail))
        elif not c.satisfied and c.tier == "hard":
            account = Paragraph(type="constraint_account", constraints=ids, polarity=-1, detail=c.detail)
            candidates += [Paragraph(type="apology", constraints=ids, polarity=-1, detail=c.detail), account]
            required.append(account)
        elif not c.satisfied:
            candidates.append(
                Paragraph(type="constraint_account", constraints=ids, polarity=-1, detail=c.detail)
            )

    # Drift D's example: "all required pets are available" only when no required one is missing.
    # With a single hard constraint its own praise already says as much.
    hard = frozenset(c.constraint for c in judged if c.tier == "hard")
    if len(hard) > 1 and not blocked:
        candidates.append(Paragraph(type="praise", constraints=hard, polarity=1, detail=AGGREGATE_DETAIL))

    if diff.inventory_empty:
        sorry = Paragraph(
            type="apology",
            constraints=frozenset({"state:inventory"}),
            polarity=-1,
            detail=diff.empty_detail,
        )
        candidates.append(sorry)
        required.append(sorry)
    elif coaching if coaching is not None else intent.strip().lower() not in NON_COACHING_INTENTS:
        topic = f"{intent}/{sub_intent}" if sub_intent else intent
        guidance = Paragraph(type="guidance", detail=f"coach the player on: {topic}")
        candidates.append(guidance)
        recommends = branch == "recommend" if branch else _intent_has(_RECOMMEND_WORDS, intent, sub_intent)
        if diff.inventory_known and recommends:
            required.append(guidance)
    if scene if scene is not None else _intent_has(_MATCH_WORDS, intent, sub_intent):
        candidates.append(Paragraph(type="scene_flavor", detail="a line of colour about the match"))
    return Eligibility(candidates=tuple(_dedupe(candidates)), required=tuple(_dedupe(required)))


# --- paragraph scheduler: R ⊆ P ⊆ A -------------------------------------------------------------


def _fill_key(p: Paragraph) -> tuple[int, int, tuple[str, ...], int, str]:
    # Total order over paragraphs, so P does not depend on the order Ψ listed A in.
    # Among praises, the broader one (the aggregate) comes first.
    return (PRIORITY.index(p.type), -len(p.constraints), tuple(sorted(p.constraints)), p.polarity, p.detail)


def schedule(eligibility: Eligibility, max_paragraphs: int = 4) -> list[Paragraph]:
    """The paragraph plan P: all of R, then A by PRIORITY while under `max_paragraphs`, skipping any
    paragraph that would judge a constraint opposite to one already planned. R is never cut."""
    plan = _dedupe(eligibility.required)
    for p in sorted(set(eligibility.candidates) - set(plan), key=_fill_key):
        if len(plan) >= max_paragraphs:
            break
        if not any(p.clashes(q) for q in plan):
            plan.append(p)
    return sorted(plan, key=_fill_key)


# --- c2 -----------------------------------------------------------------------------------------


class GroundingControl(BaseModel):
    """c2: what the Talker is told about grounding. It words these decisions; it does not make them."""

    model_config = ConfigDict(frozen=True)

    slots: QuerySlots  # after repairs, as the player's words (catalog ids live in the conflicts)
    conflicts: tuple[Conflict, ...]
    plan: tuple[Paragraph, ...]  # P
    inventory_empty: bool
    notes: tuple[str, ...] = ()  # repairs applied: for logs, not for the player
    dropped: tuple[str, ...] = ()  # slot names the player never said (`ground_slots`): for logs
    inherit: QuerySlots | None = None  # what the next turn carries over, when not `slots`

    @property
    def carried(self) -> QuerySlots:
        """The constraints the session's next turn starts from (`carry_over`)."""
        return self.inherit if self.inherit is not None else self.slots


def ground(
    slots: QuerySlots,
    state: LiveState,
    pack: Pack,
    intent: str,
    sub_intent: str = "",
    max_paragraphs: int = 4,
    utterance: str | None = None,
    earlier: QuerySlots | None = None,
) -> GroundingControl:
    """c2 = W2(x, s_fs, c1) after the slot call: [grounding] -> repairs -> validation + diff -> Ψ -> schedule.

    `intent` / `sub_intent` are W1's labels (c1); the pair's Φ branch tells Ψ whether the turn recommends.
    With `utterance`, slots are first kept to what the player grounded (`ground_slots`) and the
    session's `earlier` constraints carry over (`carry_over`); the dropped names are in `dropped`.
    """
    notes: list[str] = []
    dropped: list[str] = []
    if utterance is not None:
        slots, dropped = ground_slots(slots, pack, utterance, state, earlier)
        slots = carry_over(slots, earlier, pack, utterance)
    carried = earlier.excluded_entities if earlier is not None else []
    slots, applied = repair_attr_level_excludes(slots, pack, carried)
    notes += applied
    slots, applied = repair_entities_misclassified_as_skills(slots, pack)
    notes += applied
    result = diff(slots, state.fs, pack)
    entry = phi_entry(pack, intent, sub_intent)
    flags = (entry.branch, entry.coaching, entry.scene) if entry is not None else (None, None, None)
    plan = schedule(psi(result, intent, sub_intent, *flags), max_paragraphs)
    inherit = None
    if sub_intent == "swap" and utterance is not None and ASKS_WHETHER.search(utterance):
        # "Should I pull Sparkwing out?" asks about this match's team: it keeps nothing out of later
        # teams (and a later answer must not say "leaving Sparkwing out, as you asked"). "Keep
        # Sparkwing out" is a request, and carries.
        before = earlier.excluded_entities if earlier is not None else []
        kept = [n for n in slots.excluded_entities if any(_same_unit(n, b, pack) for b in before)]
        inherit = slots.model_copy(update={"excluded_entities": kept})
    return GroundingControl(
        inherit=inherit,
        slots=slots,
        conflicts=result.conflicts,
        plan=tuple(plan),
        inventory_empty=result.inventory_empty,
        notes=tuple(notes),
        dropped=tuple(dropped),
    )


# --- the slot call's system prompt ----------------------------------------------------------------


def _noun_plural(schema: Schema, kind: str) -> str:
    """The kind's first noun, plural ("three pets max"): a plural the nouns list, else + "s"."""
    nouns = schema.kinds[kind].nouns
    noun = nouns[0] if nouns else kind
    if noun == kind:
        return schema.plural(kind)
    return next((n for n in (f"{noun}es", f"{noun}s") if n in nouns), f"{noun}s")


def _attribute_plural(schema: Schema, name: str) -> str:
    """ "Elements", "Roles", "Rarities": a kind's plural when the values are a kind's ids."""
    unit = schema.kinds[schema.kind("unit") or ""]
    ref = unit.attributes[name].values
    if isinstance(ref, str) and ref in schema.kinds:
        return schema.plural(ref).capitalize()
    return (name[:-1] + "ies" if name.endswith("y") else name + "s").capitalize()


def slot_prompt(pack: Pack) -> str:
    """Static system prompt of the slot-extraction call: a function of the pack only, so it is
    byte-identical every turn and its KV cache can be reused. The nouns, attribute names and values
    and global kinds come from the pack's schema."""
    schema = pack.catalog.schema
    names = slot_names(schema)
    unit, option = names.unit, names.option
    units = sorted(pack.catalog.entities.get(unit, {}).values(), key=lambda c: c.id)
    first = units[0]
    first_options = _options_of(pack, first)
    option_entity = pack.catalog.get(option, first_options[0]) if option and first_options else None
    example = QuerySlots(
        wanted_entities=[first.display],
        attribute_prefs=(
            [AttributePref(entity=first.display, attribute=option or "", value=option_entity.display)]
            if option_entity is not None
            else []
        ),
        global_constraints=[GlobalConstraint(kind="max_size", value=3)],
    )
    styles = sorted(pack.vocabulary.styles)
    example_json = json.dumps(example.model_dump(exclude_defaults=True), separators=(",", ":"))
    attributes = "|".join(f'"{a}"' for a in names.attributes)
    kinds = "|".join(f'"{k}"' for k in names.globals)
    values = attribute_values(pack)

    def listed(attrs: Iterable[str]) -> str:
        return " ".join(
            f"{_attribute_plural(schema, a)}: {', '.join(values[a] or ())}." for a in attrs if values.get(a)
        )

    plain = [a for a in values if a not in names.ordered]
    lines = [
        f"Extract what the player asks for in {pack.title}. Reply with one JSON object only, keys:",
        f"wanted_entities, excluded_entities, opponent_entities: lists of {unit} names",
        f"nature_prefs, style_prefs: lists of words ({', '.join(styles)})",
        f'attribute_prefs: [{{"entity": {unit} or null, "attribute": {attributes}, '
        '"value": str, "op": "want"|"avoid"}]',
    ]
    if option:
        swap = f"\"swap out X's {option}\" is an avoid on X's {option}"
        lines.append(f'{swap} (entity X, value "*"), not an exclude of X')
    lines += [
        f'n_pick_k_swap_group: [{{"pool": [{unit} names], "pick": k}}]',
        f'global_constraints: [{{"kind": {kinds}, "value": ...}}]',
        "Leave out keys with nothing to say. Use names exactly as listed.",
        *(line for line in (listed(plain), *(listed([a]) for a in names.ordered)) if line),
        f"{schema.plural(unit).capitalize()}: {', '.join(c.display for c in units)}.",
    ]
    with_option = f" with {option_entity.display}" if option_entity is not None else ""
    many = _noun_plural(schema, unit)
    lines.append(f'Example: "I want {first.display}{with_option}, three {many} max" -> {example_json}')
    return "\n".join(lines)
