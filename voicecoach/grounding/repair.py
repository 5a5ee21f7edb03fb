"""W2's slot repairs before anything is judged (paper A.2): grounding in what was said, then pure fixes.

`ground_slots` keeps only names the player grounded (the utterance, the session's earlier
constraints, the opponent lineup): an invented name is dropped, never judged or mentioned;
`carry_over` brings the session's earlier constraints into the turn. Then the deterministic repairs,
each returning new slots and notes: `repair_attr_level_excludes`,
`repair_entities_misclassified_as_skills`. Also the catalog lookups the later steps share
(`unit_finder`, `option_finder`, `options_of`, `same_unit`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from voicecoach.core.state import LiveState
from voicecoach.domain.catalog import Entity, Schema
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import Pack
from voicecoach.domain.view import StateView
from voicecoach.grounding.slots import ANY_SKILL, AttributePref, QuerySlots


def _finder(pack: Pack, kind: str | None) -> Callable[[str], Entity | None]:
    """Name -> the catalog entity of `kind` (`Catalog.by_name`: its id or display name)."""
    catalog = pack.catalog
    return (lambda name: catalog.by_name(kind, name)) if kind else (lambda name: None)


def unit_finder(pack: Pack) -> Callable[[str], Entity | None]:
    return _finder(pack, pack.catalog.schema.kind("unit"))


def option_finder(pack: Pack) -> Callable[[str], Entity | None]:
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
    return _ids(names, unit_finder(pack)) | _ids(options, option_finder(pack))


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
    unit_of, option_of = unit_finder(pack), option_finder(pack)
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
    return kept, dedupe(dropped)


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
    unit_of = unit_finder(pack)
    asked_back = utterance is None or ASKS_BACK.search(utterance) is not None
    wanted = _ids(slots.wanted_entities, unit_of) if asked_back else set()
    back = [n for n in earlier.excluded_entities if _ids([n], unit_of) & wanted]
    excluded = [n for n in earlier.excluded_entities if n not in back] + list(slots.excluded_entities)

    def same(name: str) -> str:
        unit = unit_of(name)
        return unit.id if unit is not None else name.strip().lower()

    return slots.model_copy(update={"excluded_entities": dedupe(excluded, key=same)})


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


def dedupe(items: Iterable[_T], key: Callable[[_T], Any] | None = None) -> list[_T]:
    """Order-preserving dedupe; `key` for items that are not hashable themselves."""
    seen: set[Any] = set()
    out = []
    for item in items:
        k = item if key is None else key(item)
        if k not in seen:
            seen.add(k)
            out.append(item)
    return out


def same_unit(a: str, b: str, pack: Pack) -> bool:
    unit_of = unit_finder(pack)
    ua, ub = unit_of(a), unit_of(b)
    if ua is not None and ub is not None:
        return ua.id == ub.id
    return a.strip().lower() == b.strip().lower()


def options_of(pack: Pack, unit: Entity) -> list[str]:
    """The option ids a unit can have (pet: a creature's skills)."""
    field = pack.catalog.schema.options_field()
    return list(unit.value(field) or []) if field is not None else []


def _split_owner_option(text: str, pack: Pack) -> tuple[str, str] | None:
    """ "Emberfox's skill" -> ("Emberfox", "*"); "Emberfox Ember Fang" -> ("Emberfox", "Ember Fang")."""
    if pack.catalog.schema.kind("option") is None:
        return None
    unit_of, option_of = unit_finder(pack), option_finder(pack)
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
        if option is not None and option.id in options_of(pack, unit):
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
    unit_of = unit_finder(pack)
    notes: list[str] = []
    excluded: list[str] = []
    prefs = list(slots.attribute_prefs)
    option_owners = [p.entity for p in prefs if option and p.attribute == option and p.entity]
    carried = list(carried)
    for name in slots.excluded_entities:
        if unit_of(name) is not None:
            earlier = any(same_unit(name, c, pack) for c in carried)
            if not earlier and any(same_unit(name, owner, pack) for owner in option_owners):
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
    unit_of, option_of = unit_finder(pack), option_finder(pack)
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
        "wanted_entities": dedupe(wanted),
        "excluded_entities": dedupe(excluded),
    }
    return slots.model_copy(update=update), notes
