"""Responsive (task-complete): does the reply do what the player asked? (paper eq. 1's precondition)

The paper scores a reply as grounded-accurate only when it is task-complete. Each turn's reference
carries an `Expectation`, derived from the live state and the (intent, sub_intent) by the rules of
the pair's *family* (the family of each Φ pair is pack data: `<pack>/coachbench.json`); the rules
below name no domain entity. They read the catalog by role (voicecoach.domain.catalog: pet's creatures
are its units, skills its options, lineups its groups) and the player's state through
`voicecoach.domain.view.StateView`, and take their words from the schema: an option's unlock condition
from its gates' `words` (their `spoken` form when they list none) and the progression's tier
names, a focus entity's properties from its kind-valued attributes, relations and aliases. A reply
that does not meet its expectation fails `unresponsive`.

Families (pet's terms; `option_unlock` is another name of `skill_unlock`):
- `pick_counter`: name at least one owned creature of the direction set — the owned creatures
  that deal double damage to the opponent (not excluded), or, without any, every owned creature
  not excluded — or a pack lineup the player can field, or say plainly that none fits;
- `pick_owned`: the same with the direction set "owned creatures not excluded, usable lineups";
- `inventory`: name at least one owned creature (or a usable lineup);
- `ownership` ("do I own X"): yes when they own it, no when they do not;
- `skill_unlock` ("can X use Y yet"): yes when usable; when locked, no AND the unlock condition
  (the stage / its stage name or evolving, the level, the quest; for a skill no owned creature
  learns, the creature to get);
- `about_focus`: about what was asked: name the focus entity, or one of its catalog properties
  (its element, a skill it learns / a creature that learns it, a stage name);
- `match_state`: the score or the round;
- `catalog`: some catalog content (a creature, skill, lineup or element);
- `none`: nothing required (smalltalk, general teaching).
In every family, a reply that only asks the player to say it again ("Could you ask me that
again?", the coach's own fallback line) with no catalog content answers nothing.
On repeated-guidance pressure ("something else") the reply must also recommend something, and not
the same thing as the previous reply (a different creature set or lineup).

Blind spots: a reply naming the right creature for the wrong reason passes (grounding and mechanics
are the other rules' job); "yes" / "no" are read from the sentence openings and a few phrases, so
an indirect answer ("that one's yours") can fail; pronouns ("it evolves at level 20") carry no
focus mention, so `about_focus` needs a name or a property word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from voicecoach.core.state import load_state
from voicecoach.domain.catalog import Catalog, Entity
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import Pack
from voicecoach.domain.view import StateView
from voicecoach.talker.claims import Claim, read_reply
from voicecoach.talker.rules import Failure

Family = Literal[
    "pick_counter", "pick_owned", "inventory", "ownership", "skill_unlock", "about_focus", "match_state",
    "catalog", "none", "option_unlock",
]  # fmt: skip
FAMILIES: frozenset[str] = frozenset(Family.__args__)  # type: ignore[attr-defined]
UNLOCK_FAMILIES = frozenset({"skill_unlock", "option_unlock"})


class Expectation(BaseModel):
    """What a correct answer to one turn must contain (derived from state + pair + utterance)."""

    model_config = ConfigDict(extra="forbid")

    family: Family
    direction: list[str] = []  # creature / lineup ids: naming one answers a pick question
    focus: list[str] = []  # entity ids the answer is about (the utterance's mentions)
    properties: list[str] = []  # words that show the answer is about the focus (elements, skills ...)
    yes: bool | None = None  # ownership / skill_unlock: the right answer
    unlock: list[str] = []  # when locked: any one of these gives the unlock condition
    differ_from_previous: bool = False  # repeated-guidance pressure


def _names(catalog: Catalog, kind: str, ids: Sequence[str]) -> list[str]:
    return [e.display for i in ids if (e := catalog.get(kind, i)) is not None]


def _properties(catalog: Catalog, kind: str, e: Entity) -> list[str]:
    """Words that show a reply is about `e`: its kind-valued attributes (pet: a creature's element),
    the entities it relates to (a creature's skills) and that relate to it (a skill's creatures),
    and its aliases (a creature's stage names)."""
    kinds = catalog.schema.kinds
    spec = kinds[kind]
    out: list[str] = []
    for attr, a in spec.attributes.items():
        value = e.value(attr)
        if isinstance(a.values, str) and a.values in kinds and isinstance(value, str):
            out += _names(catalog, a.values, [value]) or [value]
    for field, target in spec.relations.items():
        out += _names(catalog, target, e.value(field) or [])
    for other, other_spec in kinds.items():
        for field, target in other_spec.relations.items():
            if target == kind:
                out += [
                    x.display
                    for x in catalog.entities.get(other, {}).values()
                    if e.id in (x.value(field) or [])
                ]
    out += [a for field in spec.aliases for a in e.value(field) or []]
    return out


def _focus_properties(pack: Pack, focus: Sequence[str]) -> list[str]:
    catalog = pack.catalog
    roles = [catalog.schema.kind("unit"), catalog.schema.kind("option")]
    out: list[str] = []
    for eid in focus:
        kind = catalog.kind_of(eid)
        entity = catalog.get(kind, eid) if kind in roles and kind is not None else None
        if kind is not None and entity is not None:
            out += _properties(catalog, kind, entity)
    return list(dict.fromkeys(out))


def _unlock_words(pack: Pack, view: StateView, option: str) -> list[str]:
    """Ways of stating the option's unlock condition; any one counts."""
    catalog, schema = pack.catalog, pack.catalog.schema
    learners = view.learners(option)
    if not any(view.owns(u) for u in learners):  # nobody the player owns can have it: get one
        return _names(catalog, view.unit_kind, learners)
    kind = schema.kind("option") or ""
    entity = catalog.get(kind, option)
    unlock = entity.value("unlock") if entity is not None else None
    words: list[str] = []
    if not isinstance(unlock, dict):
        return words
    progression = schema.progression
    for field, gate in schema.kinds[kind].gate.items():
        value = unlock.get(field)
        if not value:
            continue
        said = gate.words or ([gate.spoken] if gate.spoken else [])
        words += [w.format(value=value, value_words=str(value).replace("_", " ")) for w in said]
        if gate.state == "tier" and progression is not None and isinstance(value, int):
            for uid in learners:  # the tier's own name (pet: the stage a creature evolves into)
                tiers = (catalog.get(progression.kind, uid) or Entity(id=uid)).value(progression.field) or []
                words += [tiers[value - 1]] if len(tiers) >= value else []
    return words


def build_expectation(
    pack: Pack,
    state: dict[str, Any],
    family: str,
    mentioned: Sequence[str],
    counters: Sequence[str],
    usable_lineups: Sequence[str],
    excluded: Sequence[str],
    no_repeat: bool,
) -> Expectation:
    """The expectation of one turn, from the reference's state-derived fields."""
    view = StateView(pack, load_state(state))
    catalog = pack.catalog
    owned = [o.id for o in view.owned()]
    free = [c for c in owned if c not in excluded]
    direction: list[str] = []
    if family == "pick_counter":
        direction = [c for c in counters if c not in excluded] or free
        direction += list(usable_lineups)
    elif family in ("pick_owned", "inventory"):
        direction = free + list(usable_lineups)
    units = [m for m in mentioned if catalog.get(view.unit_kind, m) is not None]
    options = [m for m in mentioned if view.option_kind and catalog.get(view.option_kind, m) is not None]
    yes: bool | None = None
    unlock: list[str] = []
    if family == "ownership" and units:
        yes = units[0] in owned
    if family in UNLOCK_FAMILIES and options:
        learners = view.learners(options[0])
        owner = next((u for u in units if u in learners), None)
        yes = view.option_usable(options[0], owner if owner in owned else None)
        unlock = [] if yes else _unlock_words(pack, view, options[0])
    return Expectation(
        family=family,  # type: ignore[arg-type]
        direction=direction,
        focus=list(mentioned),
        properties=_focus_properties(pack, mentioned),
        yes=yes,
        unlock=unlock,
        differ_from_previous=no_repeat,
    )


# --- reading the answer --------------------------------------------------------------------------

NONE_FITS = re.compile(
    r"(?<![\w'])(?:none\s+of\s+(?:your|yours|them|the\s+ones\s+you)|no\s+(?:good\s+|real\s+)?(?:counter|answer|option|pick|match)s?"
    r"|nothing\s+(?:you\s+own|in\s+your)|you\s+(?:don't|do\s+not)\s+have\s+(?:a|any)\s+(?:good\s+)?(?:counter|answer|option)"
    r"|no\s+one\s+(?:you\s+own|fits)|none\s+fits?)(?![\w'])",
    re.IGNORECASE,
)
_START = r"(?:^|[.!?:]\s+|,\s*)"
YES = re.compile(
    _START + r"(?:yes|yeah|yep|yup|sure|absolutely|definitely|correct)(?![\w'])"
    r"|(?<![\w'])(?:you\s+(?:do|have|own|can|still\s+have)|you've\s+got|it's\s+(?:yours|unlocked|ready|available)"
    r"|(?:is|are)\s+(?:already\s+)?(?:unlocked|ready|available|usable)|in\s+your\s+(?:collection|roster|team|inventory))(?![\w'])",
    re.IGNORECASE,
)
NO = re.compile(
    _START + r"(?:no|nope|nah|not\s+yet|sadly|unfortunately)(?![\w'])"
    r"|(?<![\w'])(?:you\s+(?:don't|do\s+not|haven't|can't|cannot)|not\s+(?:yet|unlocked|owned|available)"
    r"|(?:isn't|aren't|is\s+not|are\s+not)\s+(?:unlocked|ready|available|yours|owned|in\s+your|one\s+of\s+yours)"
    r"|you'd\s+need|you\s+would\s+need|you\s+need\s+to\s+(?:get|catch|obtain|unlock|evolve)|locked|not\s+in\s+your)(?![\w'])",
    re.IGNORECASE,
)
REPEAT_REQUEST = re.compile(
    r"(?<![\w'])(?:ask\s+(?:me\s+)?(?:that|it)\s+again|say\s+(?:that|it)\s+again|repeat\s+(?:that|the\s+question)"
    r"|lost\s+the\s+thread|didn't\s+(?:catch|get)\s+that|come\s+again)(?![\w'])",
    re.IGNORECASE,
)
ROUND = re.compile(
    r"(?<![\w'])(?:round|score|ahead|behind|lead|leading|tied|\d+\s*[-–]\s*\d+"
    r"|winning|losing)(?![\w'])",
    re.IGNORECASE,
)


def _about(claims: Sequence[Claim], entity: str) -> list[Claim]:
    return [c for c in claims if c.entity == entity]


def _named(claims: Sequence[Claim], ids: Sequence[str]) -> bool:
    """Does the reply put forward one of `ids` (any role but the opponent's, not negated)?"""
    wanted = set(ids)
    return any(c.entity in wanted and not c.negated and c.role != "opponent" for c in claims)


def _contains(text: str, phrases: Sequence[str]) -> bool:
    low = text.lower()
    return any(re.search(r"(?<![\w])" + re.escape(p.lower()) + r"(?![\w])", low) for p in phrases if p)


def responsive_failure(
    pack: Pack, expect: Expectation, text: str, previous_reply: str | None
) -> Failure | None:
    """`unresponsive` when `text` does not meet the turn's expectation; None when it does."""
    claims = read_reply(pack, text)
    catalog = pack.catalog
    schema = catalog.schema
    option_kind = schema.kind("option")

    def fail(why: str) -> Failure:
        return Failure(rule="unresponsive", drift=None, evidence=f"{expect.family}: {why}")

    fam = expect.family
    if REPEAT_REQUEST.search(text) and not link_entities(pack, text):
        return fail("asks the player to say it again instead of answering")
    if fam in ("pick_counter", "pick_owned", "inventory") and expect.direction:
        if not _named(claims, expect.direction) and not (fam != "inventory" and NONE_FITS.search(text)):
            units = [schema.kind("unit"), schema.kind("group")]
            names = [next(e.display for k in units if k and (e := catalog.get(k, i)) is not None)
                     for i in expect.direction[:4]]  # fmt: skip
            noun = schema.plural(schema.kind("unit") or "")
            return fail(f"names none of the player's fitting {noun} ({', '.join(names)} ...)")
    elif fam == "ownership" and expect.yes is not None:
        focus = expect.focus[0]
        mine = _about(claims, focus)
        says_no = NO.search(text) is not None or any(c.absent for c in mine)
        says_yes = YES.search(text) is not None or any(c.affirmed and not c.absent for c in mine)
        name = catalog.display_name(focus)
        if expect.yes and not (says_yes and not any(c.absent for c in mine)):
            return fail(f"does not say the player owns {name}")
        if not expect.yes and not says_no:
            return fail(f"does not say the player lacks {name}")
    elif fam in UNLOCK_FAMILIES and expect.yes is not None and option_kind is not None:
        option = next(f for f in expect.focus if catalog.get(option_kind, f) is not None)
        mine = _about(claims, option)
        says_no = NO.search(text) is not None or any(c.absent or c.negated for c in mine)
        says_yes = YES.search(text) is not None or any(c.affirmed for c in mine)
        name = catalog.get(option_kind, option).display  # type: ignore[union-attr]
        if expect.yes and not (says_yes and not any(c.absent for c in mine)):
            return fail(f"does not say {name} is usable")
        if not expect.yes:
            if not says_no:
                return fail(f"does not say {name} is locked")
            if expect.unlock and not _contains(text, expect.unlock):
                return fail(f"does not give {name}'s unlock condition ({', '.join(expect.unlock[:3])})")
    elif fam == "about_focus" and expect.focus:
        mentioned = {m.id for m in link_entities(pack, text)}
        if not mentioned & set(expect.focus) and not _contains(text, expect.properties):
            return fail("is not about what the player asked about")
    elif fam == "match_state":
        if not ROUND.search(text):
            return fail("gives neither the score nor the round")
    elif fam == "catalog":
        if not link_entities(pack, text):
            kinds = list(schema.kinds)
            listed = ", ".join(kinds[:-1]) + " or " + kinds[-1] if len(kinds) > 1 else kinds[0]
            return fail(f"names no {listed}")

    if expect.differ_from_previous:
        offered = _put_forward(pack, claims)
        if not offered and not NONE_FITS.search(text):
            return fail("the player asked for something else and gets no new recommendation")
        if (
            previous_reply is not None
            and offered
            and offered <= _put_forward(pack, read_reply(pack, previous_reply))
        ):
            return fail("the player asked for something else and hears the previous recommendation")
    return None


def _put_forward(pack: Pack, claims: Sequence[Claim]) -> set[str]:
    """Units and groups a reply puts forward: named, not negated, not the opponent's."""
    schema = pack.catalog.schema
    kinds = {schema.kind("unit"), schema.kind("group")}
    return {c.entity for c in claims if c.kind in kinds and not c.negated and c.role != "opponent"}
