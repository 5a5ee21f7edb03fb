"""W2 Grounding: reconcile what the player asked for with what is satisfiable for them (paper §5).

One turn runs, in order (`ground`):

1. ``QuerySlots = L_slot(x, c1)``: a separate LLM call (system prompt `slot_prompt`) turns the
   utterance into QuerySlots (paper A.2); `parse_query_slots` reads its JSON without ever raising.
   Or, on a small model, `voicecoach.slot_rules.extract_slots` (entity links + cue words).
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

Constraint ids are stable strings the Talker and the tests can key on:

    has:<creature>                 the player wants <creature> in the team        hard
    skill:<skill>[@<creature>]     wants <skill> usable (on <creature>)           hard
    pick:<k>of[<c1>,<c2>,...]      wants k of these creatures (ids sorted)        hard
    global:min_size                team of at least n: owns at least n creatures  hard
    excludes:<creature>            keep <creature> out                            soft
    attr:<a>=<v>[@<c>]             wants attribute a (element/role/rarity) = v    soft
    attr:<a>!=<v>[@<c>]            wants to avoid it (skill avoids: v may be *)   soft
    counter:<creature>             owns something that counters an opponent       soft
    global:<kind>                  max_size / max_rarity / element_only           soft
    style:<v>, nature:<v>          a fully owned pack lineup plays that way       hint
    unknown_entity:<name>          a name the catalog does not know               hint
    unknown_value:<value>          an attribute value the catalog does not know   hint
    state:inventory                the inventory is missing or empty              hard
"""

from __future__ import annotations

import json
import re
import typing
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.json_schema import JsonDict

from voicecoach.entities import link_entities
from voicecoach.pack import Creature, Pack, Skill
from voicecoach.state import FactSlots, Inventory, LiveState

# --- QuerySlots (paper A.2) -------------------------------------------------------------------

Attribute = Literal["skill", "element", "role", "rarity"]
GlobalKind = Literal["max_size", "min_size", "max_rarity", "element_only"]
ANY_SKILL = "*"  # attribute value meaning "whatever skill it has now" ("swap out X's skill")


class _Slot(BaseModel):
    # extra="forbid" makes the JSON schema closed, which keeps constrained decoding on the rails;
    # `parse_query_slots` drops unknown keys with an error note before validating.
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class AttributePref(_Slot):
    """One attribute-level wish: "Emberfox with Flame Burst", "no fire", "a tank"."""

    entity: str | None = Field(default=None, description="creature the wish is about; null: the team")
    attribute: Attribute
    value: str = Field(min_length=1, description="skill name, element, role or rarity ('*': any skill)")
    op: Literal["want", "avoid"] = "want"


# Constrained decoding only (a `maxItems` in the slot call's schema, not a validation rule): a
# small model, shown the 48-name catalog, otherwise copies it into a list until max_tokens cuts
# the JSON. A player names a handful of things in one utterance.
MAX_NAMES, MAX_ITEMS = 5, 3
_NAMES: JsonDict = {"maxItems": MAX_NAMES}
_ITEMS: JsonDict = {"maxItems": MAX_ITEMS}


class PickGroup(_Slot):
    """n-pick-k-swap group: "bring two of Emberfox, Pyrowl and Kindlemoth"."""

    pool: list[str] = Field(
        min_length=1, description="creature names to choose from", json_schema_extra=_NAMES
    )
    pick: int = Field(ge=1, description="how many of the pool to field")


class GlobalConstraint(_Slot):
    """A constraint on the whole team: "at most 3", "only fire", "nothing above rare"."""

    kind: GlobalKind
    value: int | str


class QuerySlots(_Slot):
    """What the utterance asks for. Every field defaults empty so a partial extraction validates."""

    wanted_entities: list[str] = Field(
        default_factory=list, description="creatures the player wants", json_schema_extra=_NAMES
    )
    excluded_entities: list[str] = Field(
        default_factory=list, description="creatures to keep out", json_schema_extra=_NAMES
    )
    opponent_entities: list[str] = Field(
        default_factory=list, description="creatures the opponent fields", json_schema_extra=_NAMES
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


def query_slots_json_schema() -> dict[str, Any]:
    """JSON schema of QuerySlots, for grammar-constrained decoding of the slot call."""
    return QuerySlots.model_json_schema()


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


def parse_query_slots(raw: str | dict[str, Any]) -> tuple[QuerySlots, list[str]]:
    """Read the slot LLM's output; never raises. Returns the slots kept and what was dropped and why.

    Salvage is per item: one malformed attribute pref drops that pref, not the whole turn's slots.
    """
    errors: list[str] = []
    data: Any = raw
    if isinstance(raw, str):
        data = _first_json_object(raw)
        if data is None:
            return QuerySlots(), [f"no JSON object in slot output: {raw[:80]!r}"]
    if not isinstance(data, dict):
        return QuerySlots(), [f"slot output is {type(data).__name__}, not an object"]
    try:
        return QuerySlots.model_validate(data), []
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
                items.append(adapter.validate_python(item))
            except ValidationError as err:
                first = err.errors()[0]
                loc = ".".join(str(p) for p in first["loc"])
                errors.append(f"{key}[{i}]{'.' + loc if loc else ''}: {first['msg']}")
        kept[key] = items
    return QuerySlots.model_validate(kept), errors


# --- slots grounded in what the player said ------------------------------------------------------


def _ids(names: Iterable[str], find: Callable[[str], Creature | Skill | None]) -> set[str]:
    return {item.id for name in names if (item := find(name)) is not None}


def earlier_ids(pack: Pack, earlier: QuerySlots | None) -> set[str]:
    """Catalog ids (creatures and skills) the session's earlier constraints name."""
    if earlier is None:
        return set()
    names = [*earlier.wanted_entities, *earlier.excluded_entities, *earlier.opponent_entities]
    names += [name for group in earlier.n_pick_k_swap_group for name in group.pool]
    names += [p.entity for p in earlier.attribute_prefs if p.entity]
    skills = [p.value for p in earlier.attribute_prefs if p.attribute == "skill"]
    return _ids(names, pack.creature_by_name) | _ids(skills, pack.skill_by_name)


def grounded_ids(pack: Pack, utterance: str, state: LiveState, earlier: QuerySlots | None = None) -> set[str]:
    """What a slot may name: catalog ids linked in the utterance, named by the session's earlier
    constraints, or on the opponent's side of the current match (the state's context)."""
    linked = {m.id for m in link_entities(pack, utterance) if m.kind in ("creature", "skill")}
    match = state.ic.match
    return linked | earlier_ids(pack, earlier) | set(match.opponent_lineup if match else [])


def ground_slots(
    slots: QuerySlots,
    pack: Pack,
    utterance: str,
    state: LiveState,
    earlier: QuerySlots | None = None,
) -> tuple[QuerySlots, list[str]]:
    """Keep a creature / skill name only when the player grounded it (`grounded_ids`).

    Returns the kept slots and the dropped names. A dropped name is gone: it is not judged and no
    "unknown entity" hint is made of it, so an invented name ("Cyclo-Aerathos") can never become
    something the Talker is told to mention. Both slot paths (LLM and rules) go through this.
    """
    allowed = grounded_ids(pack, utterance, state, earlier)
    dropped: list[str] = []

    def keep(name: str, find: Callable[[str], Creature | Skill | None]) -> bool:
        item = find(name)
        if item is not None and item.id in allowed:
            return True
        dropped.append(name)
        return False

    def creatures(names: list[str]) -> list[str]:
        # A skill the player named may sit in a creature slot: the repairs below move it.
        return [
            n
            for n in names
            if n.strip() and keep(n, lambda x: pack.creature_by_name(x) or pack.skill_by_name(x))
        ]

    prefs = []
    for pref in slots.attribute_prefs:
        if pref.entity is not None and not keep(pref.entity, pack.creature_by_name):
            continue
        if pref.attribute == "skill" and pref.value != ANY_SKILL and not keep(pref.value, pack.skill_by_name):
            continue
        prefs.append(pref)
    groups = []
    for group in slots.n_pick_k_swap_group:
        pool = creatures(group.pool)
        if pool:
            groups.append(group.model_copy(update={"pool": pool}))
    kept = slots.model_copy(
        update={
            "wanted_entities": creatures(slots.wanted_entities),
            "excluded_entities": creatures(slots.excluded_entities),
            "opponent_entities": creatures(slots.opponent_entities),
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
    """The session's earlier constraints that still hold: creatures kept out stay out, unless the
    player now asks for one of them back (wanted, and with `utterance`, asked with ASKS_BACK's
    words: slots mark every creature an utterance names as wanted)."""
    if earlier is None:
        return slots
    asked_back = utterance is None or ASKS_BACK.search(utterance) is not None
    wanted = _ids(slots.wanted_entities, pack.creature_by_name) if asked_back else set()
    back = [n for n in earlier.excluded_entities if _ids([n], pack.creature_by_name) & wanted]
    excluded = [n for n in earlier.excluded_entities if n not in back] + list(slots.excluded_entities)

    def same(name: str) -> str:
        creature = pack.creature_by_name(name)
        return creature.id if creature is not None else name.strip().lower()

    return slots.model_copy(update={"excluded_entities": _dedupe(excluded, key=same)})


# --- repairs (paper A.2): pure, each returns new slots + notes ---------------------------------

_SKILL_WORDS = frozenset({"skill", "skills", "move", "moves", "ability", "abilities", "attack"})
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_T = TypeVar("_T")


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


def _same_creature(a: str, b: str, pack: Pack) -> bool:
    ca, cb = pack.creature_by_name(a), pack.creature_by_name(b)
    if ca is not None and cb is not None:
        return ca.id == cb.id
    return a.strip().lower() == b.strip().lower()


def _split_owner_skill(text: str, pack: Pack) -> tuple[str, str] | None:
    """ "Emberfox's skill" -> ("Emberfox", "*"); "Emberfox Ember Fang" -> ("Emberfox", "Ember Fang")."""
    words = text.split()
    for i in range(1, len(words)):
        owner = _POSSESSIVE.sub("", " ".join(words[:i]))
        rest = " ".join(words[i:])
        creature = pack.creature_by_name(owner)
        if creature is None:
            continue
        if rest.lower() in _SKILL_WORDS:
            return owner, ANY_SKILL
        skill = pack.skill_by_name(rest)
        if skill is not None and skill.id in creature.skills:
            return owner, rest
    return None


def repair_attr_level_excludes(
    slots: QuerySlots, pack: Pack, carried: Iterable[str] = ()
) -> tuple[QuerySlots, list[str]]:
    """ "Swap out X's skill" parsed as "exclude X" becomes an attribute-level change to X.

    `carried`: exclusions the session's earlier turns made (`carry_over`): decided already, not
    this turn's parse, so never dropped ("no Gloomshell", then "when should Gloomlet use Shadow
    Step?" keeps Gloomshell out).

    Trigger, precisely: an excluded entry that
    (a) is a creature which is also the `entity` of a skill attribute pref: a skill wish about X only
        makes sense if X stays, so the exclude was the misparse and is dropped (the pref stays); or
    (b) is not a creature but reads "<creature>['s] skill|move|..." or "<creature>['s] <its skill>":
        it becomes an attribute pref {entity: X, attribute: skill, value: skill or "*", op: avoid}.
    """
    notes: list[str] = []
    excluded: list[str] = []
    prefs = list(slots.attribute_prefs)
    skill_owners = [p.entity for p in prefs if p.attribute == "skill" and p.entity]
    carried = list(carried)
    for name in slots.excluded_entities:
        if pack.creature_by_name(name) is not None:
            earlier = any(_same_creature(name, c, pack) for c in carried)
            if not earlier and any(_same_creature(name, owner, pack) for owner in skill_owners):
                notes.append(f"repair_attr_level_excludes: kept {name!r} (its skill is changed, not it)")
                continue
            excluded.append(name)
            continue
        split = _split_owner_skill(name, pack)
        if split is None:
            excluded.append(name)
            continue
        owner, skill = split
        prefs.append(AttributePref(entity=owner, attribute="skill", value=skill, op="avoid"))
        notes.append(f"repair_attr_level_excludes: exclude {name!r} -> avoid skill {skill!r} on {owner!r}")
    if not notes:
        return slots, []
    return slots.model_copy(update={"excluded_entities": excluded, "attribute_prefs": prefs}), notes


def repair_entities_misclassified_as_skills(slots: QuerySlots, pack: Pack) -> tuple[QuerySlots, list[str]]:
    """A creature name in a skill pref goes back to the entity slots.

    Trigger: an attribute pref with attribute "skill" whose value names a creature and no skill.
    "want" moves it to wanted_entities, "avoid" to excluded_entities.
    """
    notes: list[str] = []
    prefs: list[AttributePref] = []
    wanted = list(slots.wanted_entities)
    excluded = list(slots.excluded_entities)
    for pref in slots.attribute_prefs:
        is_creature = pack.creature_by_name(pref.value) is not None
        if pref.attribute != "skill" or not is_creature or pack.skill_by_name(pref.value) is not None:
            prefs.append(pref)
            continue
        target = wanted if pref.op == "want" else excluded
        target.append(pref.value)
        slot = "wanted_entities" if pref.op == "want" else "excluded_entities"
        notes.append(f"repair_entities_misclassified_as_skills: {pref.value!r} is a creature -> {slot}")
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


RARITIES: tuple[str, ...] = typing.get_args(Creature.model_fields["rarity"].annotation)


def validate_against_catalog(slots: QuerySlots, pack: Pack) -> tuple[QuerySlots, list[Conflict]]:
    """Map every creature / skill name to its catalog id (case-insensitive) and check attribute values.

    Whatever does not resolve is dropped from the returned slots and reported as a `hint` conflict
    naming it, so a misheard name costs an annotation, never a crash or a wrong judgement.
    """
    unknown: list[Conflict] = []

    def creature_ids(names: Iterable[str]) -> list[str]:
        ids = []
        for name in names:
            if not name.strip():
                continue  # an empty string is no name, not an unknown one
            creature = pack.creature_by_name(name)
            if creature is None:
                unknown.append(_unknown(name, "creature"))
            else:
                ids.append(creature.id)
        return _dedupe(ids)

    prefs: list[AttributePref] = []
    for pref in slots.attribute_prefs:
        entity = None
        if pref.entity is not None:
            creature = pack.creature_by_name(pref.entity)
            if creature is None:
                unknown.append(_unknown(pref.entity, "creature"))
                continue
            entity = creature.id
        value = pref.value.lower()
        if pref.attribute == "skill" and pref.value == ANY_SKILL and pref.op == "want":
            # "*" can only be swapped out; wanting "any skill" names nothing to check.
            unknown.append(_unknown(pref.value, "skill to want", "unknown_value"))
            continue
        if pref.attribute == "skill" and pref.value != ANY_SKILL:
            skill = pack.skill_by_name(pref.value)
            if skill is None:
                unknown.append(_unknown(pref.value, "skill"))
                continue
            value = skill.id
        allowed = {
            "element": pack.elements.elements,
            "role": tuple(pack.vocabulary.roles),
            "rarity": RARITIES,
        }.get(pref.attribute)
        if allowed is not None and value not in allowed:
            unknown.append(_unknown(pref.value, pref.attribute, "unknown_value"))
            continue
        prefs.append(pref.model_copy(update={"entity": entity, "value": value}))

    groups = []
    for group in slots.n_pick_k_swap_group:
        pool = creature_ids(group.pool)
        if pool:
            groups.append(group.model_copy(update={"pool": pool}))

    constraints = []
    for gc in slots.global_constraints:
        text = str(gc.value).strip().lower()
        checked: int | str | None
        if gc.kind in ("max_size", "min_size"):
            checked = int(text) if text.isdigit() else None
        elif gc.kind == "max_rarity":
            checked = text if text in RARITIES else None
        else:  # element_only
            checked = text if text in pack.elements.elements else None
        if checked is None:
            unknown.append(_unknown(str(gc.value), f"value for {gc.kind}", "unknown_value"))
            continue
        constraints.append(gc.model_copy(update={"value": checked}))

    resolved = QuerySlots(
        wanted_entities=creature_ids(slots.wanted_entities),
        excluded_entities=creature_ids(slots.excluded_entities),
        opponent_entities=creature_ids(slots.opponent_entities),
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
    inventory_empty: bool  # known and holds no creature (R6)
    inventory_known: bool  # False: fs.inventory is None, nothing could be verified


def _unlock_text(skill: Skill) -> str:
    if skill.unlock is None:
        return "known from the start"
    parts = []
    if skill.unlock.min_stage:
        parts.append(f"stage {skill.unlock.min_stage}")
    if skill.unlock.min_level:
        parts.append(f"level {skill.unlock.min_level}")
    if skill.unlock.quest:
        parts.append(f"the quest {skill.unlock.quest!r}")
    return "unlocks at " + " and ".join(parts)


def skill_usable(inventory: Inventory, creature: Creature, skill: Skill) -> bool:
    """Can the player use `skill` on `creature` now?

    The game's unlocked list is the truth, but a skill the catalog says is known from the start needs
    no unlock: a snapshot that omits it must not make us apologise for a skill the player has.
    """
    if inventory.skill_unlocked(creature.id, skill.id):
        return True
    return inventory.owns(creature.id) and skill.unlock is None and skill.id in creature.skills


def _diff_skill(pref: AttributePref, owned: list[Creature], inv: Inventory, pack: Pack) -> Conflict:
    at = f"@{pref.entity}" if pref.entity else ""
    on = f" on {pack.creatures[pref.entity].name}" if pref.entity else ""
    if pref.op == "avoid":
        # Not using a skill is always possible: a satisfied soft constraint.
        name = "any skill" if pref.value == ANY_SKILL else pack.skills[pref.value].name
        return _judge(f"attr:skill!={pref.value}{at}", "soft", True, f"swap out {name}{on}", pref.entity)
    skill = pack.skills[pref.value]
    holders = [pack.creatures[pref.entity]] if pref.entity else owned
    ok = any(skill_usable(inv, c, skill) for c in holders)
    if ok:
        detail = f"{skill.name} is unlocked{on}"
    elif pref.entity and skill.id not in holders[0].skills:
        detail = f"{holders[0].name} cannot learn {skill.name}"
    elif pref.entity and not inv.owns(pref.entity):
        detail = f"{skill.name} needs {holders[0].name}, which the player does not own"
    else:
        learners = ", ".join(c.name for c in pack.creatures.values() if skill.id in c.skills)
        where = on or f" (learned by {learners})"
        detail = f"{skill.name} is not unlocked for the player{where}; it {_unlock_text(skill)}"
    return _judge(f"skill:{skill.id}{at}", "hard", ok, detail, pref.entity or skill.id)


def _diff_attr(pref: AttributePref, owned: list[Creature], pack: Pack) -> Conflict:
    """Element / role / rarity. About one creature, its catalog entry decides; about the team, some
    owned creature must fit (for "avoid": some owned creature must not have it)."""
    op = "=" if pref.op == "want" else "!="
    at = f"@{pref.entity}" if pref.entity else ""
    pool = [pack.creatures[pref.entity]] if pref.entity else owned
    fits = [c for c in pool if (str(getattr(c, pref.attribute)) == pref.value) == (pref.op == "want")]
    subject = pack.creatures[pref.entity].name if pref.entity else "an owned creature"
    wish = f"{subject} {'is' if pref.op == 'want' else 'is not'} {pref.attribute} {pref.value}"
    detail = wish if fits else f"not met: {wish}"
    return _judge(f"attr:{pref.attribute}{op}{pref.value}{at}", "soft", bool(fits), detail, pref.entity)


_RARITY_RANK = {r: i for i, r in enumerate(RARITIES)}


def _diff_global(gc: GlobalConstraint, wanted: list[Creature], owned: list[Creature]) -> Conflict:
    value, cid = gc.value, f"global:{gc.kind}"
    if gc.kind == "min_size":
        # Fielding a team of n needs n creatures: blocking, like a missing entity.
        return _judge(
            cid, "hard", len(owned) >= int(value), f"team of {value}+: the player owns {len(owned)}"
        )
    if gc.kind == "max_size":
        return _judge(
            cid, "soft", len(wanted) <= int(value), f"team of at most {value}: {len(wanted)} asked for"
        )
    if gc.kind == "max_rarity":
        rank = _RARITY_RANK[str(value)]
        ok = all(_RARITY_RANK[c.rarity] <= rank for c in wanted) and any(
            _RARITY_RANK[c.rarity] <= rank for c in owned
        )
        return _judge(
            cid, "soft", ok, f"nothing above {value}" + ("" if ok else ": the request or roster can't")
        )
    ok = all(c.element == value for c in wanted) and any(c.element == value for c in owned)  # element_only
    return _judge(
        cid, "soft", ok, f"only {value} creatures" + ("" if ok else ": the request or roster can't")
    )


def diff(slots: QuerySlots, fs: FactSlots, pack: Pack) -> Diff:
    """Conflicts = diff(QuerySlots, σ(s_fs)): every constraint in the request, judged and tiered.

    `slots` may hold raw names or ids: catalog validation runs here, so unknown names are always
    reported (as hints) whoever calls this.
    """
    resolved, conflicts = validate_against_catalog(slots, pack)
    inv = fs.inventory
    if inv is None:
        # Nothing can be verified, so one blocking conflict instead of a guess per constraint.
        missing = _judge("state:inventory", "hard", False, "the player's inventory is unavailable")
        return Diff(conflicts=(missing, *conflicts), inventory_empty=False, inventory_known=False)

    owned = [pack.creatures[o.creature_id] for o in inv.owned if o.creature_id in pack.creatures]
    owned_ids = {c.id for c in owned}
    if not owned:
        conflicts.append(_judge("state:inventory", "hard", False, "the player owns no creatures yet"))
    for cid in resolved.wanted_entities:
        name, ok = pack.creatures[cid].name, cid in owned_ids
        detail = f"the player owns {name}" if ok else f"the player does not own {name}"
        conflicts.append(_judge(f"has:{cid}", "hard", ok, detail, cid))
    for cid in resolved.excluded_entities:
        name, clash = pack.creatures[cid].name, cid in resolved.wanted_entities
        detail = f"asked both to use and to leave out {name}" if clash else f"leave {name} out"
        conflicts.append(_judge(f"excludes:{cid}", "soft", not clash, detail, cid))
    for pref in resolved.attribute_prefs:
        judge = (
            _diff_skill(pref, owned, inv, pack)
            if pref.attribute == "skill"
            else _diff_attr(pref, owned, pack)
        )
        conflicts.append(judge)
    for group in resolved.n_pick_k_swap_group:
        have = len(owned_ids.intersection(group.pool))
        detail = f"pick {group.pick} of {len(group.pool)}: the player owns {have} of them"
        conflicts.append(
            _judge(f"pick:{group.pick}of[{','.join(sorted(group.pool))}]", "hard", have >= group.pick, detail)
        )
    for cid in resolved.opponent_entities:
        foe = pack.creatures[cid]
        counters = [
            c.name for c in owned if pack.elements.counters.get(c.element, {}).get(foe.element, 1.0) > 1.0
        ]
        detail = f"{', '.join(counters[:3]) or 'nothing owned'} counters {foe.name} ({foe.element})"
        conflicts.append(_judge(f"counter:{cid}", "soft", bool(counters), detail, cid))
    wanted = [pack.creatures[cid] for cid in resolved.wanted_entities]
    conflicts += [_diff_global(gc, wanted, owned) for gc in resolved.global_constraints]
    for kind, words in (("style", resolved.style_prefs), ("nature", resolved.nature_prefs)):
        for word in words:
            # Advisory: we can only say whether some pack lineup of that style is entirely owned.
            fits = [
                lu.name
                for lu in pack.lineups.values()
                if word in lu.style.lower() and set(lu.creatures) <= owned_ids
            ]
            detail = f"{word} play: owned lineup {fits[0]}" if fits else f"no fully owned {word} lineup"
            conflicts.append(_judge(f"{kind}:{word}", "hint", bool(fits), detail))
    # One record per constraint id: a name repeated in the request must not be judged twice.
    unique = tuple(_dedupe(conflicts, key=lambda c: c.constraint))
    return Diff(conflicts=unique, inventory_empty=not owned, inventory_known=True)


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
NON_COACHING_INTENTS = frozenset({"smalltalk", "small_talk", "chitchat", "greeting", "farewell", "thanks"})
_RECOMMEND_WORDS = ("recommend", "lineup", "team", "build", "swap", "pick", "suggest")
_MATCH_WORDS = ("match", "battle", "opponent", "counter", "round", "fight", "tactic", "strategy")


def _intent_has(words: Sequence[str], *labels: str) -> bool:
    key = " ".join(labels).strip().lower()
    return any(w in key for w in words)


def branch_of(pack: Pack, intent: str, sub_intent: str) -> str | None:
    """The reply branch Φ registers for (intent, sub_intent), None when the pair is unregistered."""
    entry = next((e for e in pack.phi if (e.intent, e.sub_intent) == (intent, sub_intent)), None)
    return entry.branch if entry is not None else None


AGGREGATE_DETAIL = "everything required is available"


def psi(diff: Diff, intent: str, sub_intent: str = "", branch: str | None = None) -> Eligibility:
    """(A, R) = Ψ(Conflicts, intent).

    - satisfied constraint (hard or soft) -> praise(+1) eligible
    - unsatisfied hard -> apology(-1) and constraint_account(-1) eligible, constraint_account required;
      no praise of it (a hard conflict blocks praise of the violated constraint)
    - aggregate praise over every hard constraint (2+) -> eligible only if all of them are satisfied
    - unsatisfied soft -> constraint_account(-1) eligible
    - hint -> annotation only: stays in the conflict list, makes no paragraph
    - guidance eligible for coaching intents, required for recommend-like ones (`branch` "recommend",
      or recommend keywords when the branch is unknown) when the inventory is known and not empty;
      an empty inventory requires an apology and forbids guidance (R6)
    - scene_flavor eligible when the intent is about a match
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
            detail="the player owns no creatures yet",
        )
        candidates.append(sorry)
        required.append(sorry)
    elif intent.strip().lower() not in NON_COACHING_INTENTS:
        topic = f"{intent}/{sub_intent}" if sub_intent else intent
        guidance = Paragraph(type="guidance", detail=f"coach the player on: {topic}")
        candidates.append(guidance)
        recommends = branch == "recommend" if branch else _intent_has(_RECOMMEND_WORDS, intent, sub_intent)
        if diff.inventory_known and recommends:
            required.append(guidance)
    if _intent_has(_MATCH_WORDS, intent, sub_intent):
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
    plan = schedule(psi(result, intent, sub_intent, branch_of(pack, intent, sub_intent)), max_paragraphs)
    inherit = None
    if sub_intent == "swap" and utterance is not None and ASKS_WHETHER.search(utterance):
        # "Should I pull Sparkwing out?" asks about this match's team: it keeps nothing out of later
        # teams (and a later answer must not say "leaving Sparkwing out, as you asked"). "Keep
        # Sparkwing out" is a request, and carries.
        before = earlier.excluded_entities if earlier is not None else []
        kept = [n for n in slots.excluded_entities if any(_same_creature(n, b, pack) for b in before)]
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


def slot_prompt(pack: Pack) -> str:
    """Static system prompt of the slot-extraction call: a function of the pack only, so it is
    byte-identical every turn and its KV cache can be reused."""
    creatures = sorted(pack.creatures.values(), key=lambda c: c.id)
    first = creatures[0]
    skill = pack.skills[first.skills[0]]
    example = QuerySlots(
        wanted_entities=[first.name],
        attribute_prefs=[AttributePref(entity=first.name, attribute="skill", value=skill.name)],
        global_constraints=[GlobalConstraint(kind="max_size", value=3)],
    )
    styles = sorted(pack.vocabulary.styles)
    example_json = json.dumps(example.model_dump(exclude_defaults=True), separators=(",", ":"))
    return "\n".join(
        [
            f"Extract what the player asks for in {pack.title}. Reply with one JSON object only, keys:",
            "wanted_entities, excluded_entities, opponent_entities: lists of creature names",
            f"nature_prefs, style_prefs: lists of words ({', '.join(styles)})",
            'attribute_prefs: [{"entity": creature or null, "attribute": "skill"|"element"|"role"|"rarity", '
            '"value": str, "op": "want"|"avoid"}]',
            '"swap out X\'s skill" is an avoid on X\'s skill (entity X, value "*"), not an exclude of X',
            'n_pick_k_swap_group: [{"pool": [creature names], "pick": k}]',
            'global_constraints: [{"kind": "max_size"|"min_size"|"max_rarity"|"element_only", "value": ...}]',
            "Leave out keys with nothing to say. Use names exactly as listed.",
            f"Elements: {', '.join(pack.elements.elements)}. Roles: {', '.join(pack.vocabulary.roles)}.",
            f"Rarities: {', '.join(RARITIES)}.",
            f"Creatures: {', '.join(c.name for c in creatures)}.",
            f'Example: "I want {first.name} with {skill.name}, three pets max" -> {example_json}',
        ]
    )
