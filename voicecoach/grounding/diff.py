"""W2's conflicts (paper §5, A.2): ``Conflicts = diff(QuerySlots, σ(s_fs))``, after catalog validation.

`validate_against_catalog` turns names into catalog ids (unknown names become `hint` conflicts);
`diff` judges every constraint the request implies against the live inventory, graded hard / soft /
hint. Satisfied constraints are kept too: they are what praise may talk about. The detail strings
(`Schema.phrase`) and the matchup a counter is judged by come from the pack; the player's units are
read through `StateView`. Constraint ids are stable strings the Talker and the tests can key on
(pet's kinds in brackets):

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

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from voicecoach.core.state import FactSlots, LiveState
from voicecoach.domain.catalog import Entity, Schema
from voicecoach.domain.pack import Pack
from voicecoach.domain.view import StateView
from voicecoach.grounding.repair import dedupe, option_finder, options_of, unit_finder
from voicecoach.grounding.slots import ANY_SKILL, AttributePref, GlobalConstraint, QuerySlots, slot_names
from voicecoach.tools.builtin import multiplier

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
    unit_of, option_of = unit_finder(pack), option_finder(pack)
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
        return dedupe(ids)

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
        nature_prefs=dedupe(p.lower() for p in slots.nature_prefs if p),
        attribute_prefs=dedupe(prefs),
        style_prefs=dedupe(p.lower() for p in slots.style_prefs if p),
        n_pick_k_swap_group=dedupe(groups, key=lambda g: (g.pick, tuple(g.pool))),
        global_constraints=dedupe(constraints),
    )
    return resolved, dedupe(unknown)


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
        elif pref.entity and entity.id not in options_of(self.pack, self.unit_entity(pref.entity)):
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
    unique = tuple(dedupe(conflicts, key=lambda c: c.constraint))
    owned_none = not judge.owned
    return Diff(
        conflicts=unique,
        inventory_empty=owned_none,
        inventory_known=True,
        empty_detail=empty if owned_none else "",
    )
