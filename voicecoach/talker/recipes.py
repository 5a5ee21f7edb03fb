"""The generic answer recipes: the realizer's answer line for a Φ entry with `answer` steps.

Every pack says how each pair is answered in data (phi.json, voicecoach.domain.recipe_spec describes the
step format); this module is the code the steps name, the same for every pack: nothing in it names
a pack's kinds, tools or entities (a step's selectors, literals and template keys do). `answer(t,
steps)` runs the steps in order and adds the first step's lines that yield any (a step marked
`also` lets the later ones add theirs); a step whose inputs select nothing yields none, and the
realizer then says what is missing or the paragraph's generic sentence.

The safety contract, kept here for every pack:

- a unit named in a *pick* placeholder (`@unit`, `@units`, `leader`) is one the player may field:
  owned, not kept out by the player, not in doubt on a late snapshot (`_Ctx.usable`);
- an option is said to be usable only if `StateView.option_usable` says so; otherwise its gate is
  said ("it needs hero level 5");
- an opponent fills only `{foe}`; a context entity (a map) only its kind's placeholder;
- each line carries its recipe's `picks` / `facts` (voicecoach.domain.recipe_spec): the realizer reads
  them to tell a recommendation and a catalog fact from the rest;
- nothing is read out raw: values are display names, counts and the pack's own words.

Why one module of ~1,300 lines: it is one table (`RUN`, which must match recipe_spec's `RECIPES`)
of 28 small independent recipes, 12-70 lines each, sharing `_Ctx` and the team and matchup helpers.
It would split by family: the picking recipes (`pick_*` with the team builders) apart from the fact
and status ones, `_Ctx`, `RUN` and `answer` staying here.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from voicecoach.core.state import get_field
from voicecoach.domain.asked import ASKED_BAD, KEEP_OR_BENCH, STAY_OR_GO, WHO_WINS, YES_NO, shapes
from voicecoach.domain.catalog import Matchup
from voicecoach.domain.effects import ALLY_EFFECTS, for_own_side, option_effects
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import AnswerStep, Pack, pack_roles
from voicecoach.domain.recipe_spec import RECIPES, TURN_PREFIX, RecipeSpec, role_placeholder
from voicecoach.domain.tool_shapes import select
from voicecoach.domain.view import Owned, StateView
from voicecoach.perception.descriptions import describer, kind_asked, kinds_said, told_down
from voicecoach.perception.limits import AGAINST_THEM, THEIR_SIDE
from voicecoach.perception.prior import (
    ASK_AGAIN,
    FIRST_OF_THEIRS,
    KEEP_OR_CHANGE,
    LEVEL_CONCERN,
    NEXT_TARGET,
    ON_WHOM,
    OUR_TARGET,
    TAKING_HITS,
    TARGET_NAMED,
    TEAM_LOADOUT,
    TEAM_WIDE,
    UNUSED_UNLOCKS,
    USE_ON_THEIRS,
    WHO_HAS,
    asks_members,
    normalise,
    team_words,
)
from voicecoach.talker.lines import Line, RealizerTurn, rotate, spoken_list
from voicecoach.tools.builtin import multiplier, unmet_gates, value_multiplier


def gate_text(pack: Pack, kind: str, entity_id: str) -> str:
    """An entity's gates in the schema's words ("account level 10 and hero level 5"); "" for none."""
    entity = pack.catalog.get(kind, entity_id)
    unlock = entity.value("unlock") if entity is not None else None
    if not isinstance(unlock, dict) or not unlock:
        return ""
    gates = pack.catalog.schema.kinds[kind].gate
    parts = []
    for field, value in unlock.items():
        spoken = gates[field].spoken if field in gates else ""
        parts.append(spoken.format(value=value) if spoken else f"{field.replace('_', ' ')} {value}")
    return " and ".join(parts)


class _Ctx:
    """One step on one turn: its inputs selected, the pack's names for the recipe's role tokens."""

    def __init__(self, t: RealizerTurn, step: AnswerStep, view: StateView) -> None:
        self.t, self.step, self.view = t, step, view
        self.spec: RecipeSpec = RECIPES[step.recipe]
        self.catalog = t.pack.catalog
        self.schema = self.catalog.schema
        self.roles = pack_roles(t.pack)
        self.inputs = step.inputs

    # --- inputs ------------------------------------------------------------------------------------

    def _one(self, selector: Any) -> Any:
        if not isinstance(selector, str):
            return selector
        if selector.startswith("$"):
            return get_field(self.t.state, selector[1:])
        if selector.startswith(TURN_PREFIX):
            t = self.t
            covered = dict.fromkeys(u for line in t.lines for u in sorted(line.covers))
            said = {
                "opponents": t.opponents, "groups": t.lineups, "why": t.why, "avoid": sorted(t.avoid),
                "types": t.types, "said": list(covered),
            }  # fmt: skip
            return list(said.get(selector[len(TURN_PREFIX) :], []))
        tool, _, path = selector.partition(".")
        result = self.t.results.get(tool)
        if result is None:
            return None
        return select(result, path) if path else result

    def first(self, raw: Any) -> Any:
        """What a selector, or the first of a list of selectors, selects (None: nothing)."""
        for selector in raw if isinstance(raw, list) else [raw]:
            value = self._one(selector)
            if value is not None and value != [] and value != {} and value != "":
                return value
        return None

    def get(self, name: str) -> Any:
        """The input's value: the first of its selectors that selects something (None: none)."""
        raw = self.inputs.get(name)
        if self.spec.inputs.get(name) != "select":
            return raw
        return self.first(raw)

    def ids(self, name: str) -> list[str]:
        """The input as entity ids, in order, once each ("a" -> ["a"]; rows -> their ids)."""
        return _as_ids(self.get(name))

    def ids_but(self, name: str, but: str) -> list[str]:
        """The ids of the first of the input's selectors that selects any besides `but` (a unit
        matched against the others named: "Oakhorn against Hexmoth", not against itself)."""
        raw = self.inputs.get(name)
        for selector in raw if isinstance(raw, list) else [raw]:
            got = [i for i in _as_ids(self._one(selector)) if i != but]
            if got:
                return got
        return []

    # --- spoken forms and the contract ---------------------------------------------------------------

    def name(self, entity_id: str) -> str:
        return self.catalog.display_name(entity_id)

    def names(self, ids: Sequence[str]) -> str:
        return spoken_list([self.name(i) for i in ids])

    def ph(self, token: str) -> str:
        """The pack's placeholder for a role token (`@unit` -> "hero", `other_@group` -> "other_comp")."""
        return role_placeholder(token, self.roles) or token

    def power(self, unit_id: str) -> float:
        """The unit's power: the unit kind's first numeric attribute, and with the step's `tier_bonus`
        that share of it again for each tier the player's unit is past its first (pet: 15 % an
        evolution stage)."""
        kind = self.view.unit_kind
        attr = self.schema.kinds[kind].number
        entity = self.catalog.get(kind, unit_id)
        value = entity.value(attr) if entity is not None and attr is not None else None
        base = float(value) if isinstance(value, int | float) else 0.0
        bonus, owned = self.inputs.get("tier_bonus"), self.view.unit(unit_id)
        if bonus and owned is not None and owned.tier:
            base *= 1 + float(bonus) * (owned.tier - 1)
        return base

    def usable(self, unit_id: str) -> bool:
        """May the unit be recommended: owned, not kept out, not in doubt (a late snapshot)."""
        return self.t.usable(unit_id)

    def gate(self, kind: str, entity_id: str) -> str:
        return gate_text(self.t.pack, kind, entity_id)

    def line(self, key: str | None, covers: Sequence[str] = (), **values: Any) -> list[Line]:
        """The step's line for template `key`; none when no variant of it can be filled (a value the
        turn lacks: a failed tool), so that the next step answers instead of the generic sentence."""
        return self._line(key, covers, self.spec.picks, values)

    def naming(self, key: str | None, covers: Sequence[str] = (), **values: Any) -> list[Line]:
        """`line` for a picking recipe's line that names a unit the player cannot field ("you don't
        own X yet: get a Y first"): it recommends nothing."""
        return self._line(key, covers, False, values)

    def _line(
        self, key: str | None, covers: Sequence[str], picks: bool, values: dict[str, Any]
    ) -> list[Line]:
        if not key:
            return []
        spoken = {self.ph(k): v for k, v in values.items()}
        for placeholder, selector in (self.inputs.get("values") or {}).items():
            spoken.setdefault(placeholder, _spoken(self, self.first(selector)))
        group = self.t.pack.templates.paragraphs.get(self.step.paragraph)
        variants = group.templates.get(key, []) if group is not None else []
        if variants and not any(_fillable(v, spoken) for v in variants):
            return []
        return [
            Line(self.step.paragraph, key, spoken, "answer", frozenset(covers),
                 picks=picks, fact=self.spec.facts)
        ]  # fmt: skip


def _as_ids(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [] if value is None else [value]
    out = [i["id"] if isinstance(i, dict) else i for i in items]
    return list(dict.fromkeys(str(i) for i in out if isinstance(i, str) and i))


def _fillable(template: str, values: dict[str, Any]) -> bool:
    """Does every placeholder of `template` have a value (as the realizer's `_fill` needs)?"""
    fields = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    return all(values.get(name) not in (None, "", []) for name in fields)


# --- the recipes -----------------------------------------------------------------------------------


def _matchup(c: _Ctx) -> Matchup | None:
    return next((m for m in c.schema.matchups if m.name == c.inputs.get("matchup")), None)


def _words(m: Matchup, mult: float) -> str | None:
    return m.words.get(f"{mult:g}") or next((w for k, w in m.words.items() if _float(k) == mult), None)


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _fielded(c: _Ctx, uid: str, key: str | None) -> str | None:
    """`fielded_key` for a pick already on the player's side ("keep Renzo in", not "bring Renzo"),
    when the step has one; else `key`."""
    fielded = c.inputs.get("fielded_key")
    return fielded if fielded and uid in c.view.player_side() else key


_COUNTERED_AFTER = re.compile(
    r"^\s+(?:(?:is|are|gets?|getting|being)\s+)?(?:just\s+|totally\s+|hard\s+|getting\s+)*"
    r"(?:countered|shut\s+down|outclassed)\b",
    re.IGNORECASE,
)


_WHO_COUNTERS = re.compile(
    r"\b(?:who|what|which\s+\w+)\s+(?:counters|beats|shuts\s+down|hard\s+counters)\s+$", re.IGNORECASE
)


def _threatened(c: _Ctx, m: Matchup, foes: list[str], theirs: list[str], mine: list[str]) -> list[Line]:
    """ "What beats my Dumaka?": the player's own unit, said as theirs ("my", "our") and fielded by
    no opponent, is not a foe to counter but the one to protect: the units that beat it, the ones
    the opponent fields first (`threat_key`)."""
    key, unit = c.inputs.get("threat_key"), foes[0]
    spans = [m.span for m in link_entities(c.t.pack, c.t.utterance) if m.id == unit]  # by any name ("ellie")
    said = any(re.search(r"\b(?:my|our)\s+(?:\w+\s+)?$", c.t.utterance[:a], re.I) for a, _ in spans)
    owned = {o.id for o in c.view.owned()}
    # "Is Lorcan good into them?": one the player fields, asked against their side, is theirs to
    # weigh even without "my" (the live state says whose it is).
    against_them = (
        (unit in mine and THEIR_SIDE.search(c.t.utterance) is not None)
        or (unit in owned and AGAINST_THEM.search(c.t.utterance) is not None)
        or (unit in mine and TAKING_HITS.search(normalise(c.t.utterance)) is not None)  # "Elowen keeps dying"
        # "Is Elowen countered here": one the player fields, asked as the one countered
        or (unit in mine and any(_COUNTERED_AFTER.match(c.t.utterance[b:]) for _, b in spans))
        # "Who counters Elowen" of one the player fields: what beats the player's own
        or (unit in mine and any(_WHO_COUNTERS.search(c.t.utterance[:a]) for a, _ in spans))
    )
    # One the player fields and the opponent does not is never a foe to play a counter into ("does
    # level change the matchup" of Lorcan): what of theirs threatens it, whatever the words.
    fielded_only = unit in mine and unit not in theirs and not c.t.choice
    if not key or unit in theirs or (unit not in mine and unit not in owned):
        return []
    if not (said or against_them or fielded_only):
        return []
    ranked = [*c.ids("ranked"), *c.catalog.entities.get(c.view.unit_kind, {})]
    threats = [u for u in dict.fromkeys(ranked) if multiplier(c.catalog, m, u, unit) > m.default]
    faced = [u for u in threats if u in theirs]
    lines: list[Line] = []
    # Asked against their side ("vs their team", "this game"): what it does to them, what of theirs
    # beats it; never the catalog's counters they do not field.
    unasked = fielded_only and not (said or against_them)
    vs_side = THEIR_SIDE.search(c.t.utterance) is not None or AGAINST_THEM.search(c.t.utterance) is not None
    if (vs_side or unasked) and c.inputs.get("beats_key"):
        # What it does to them first: "Lorcan is a hard counter to their Tamsin."
        prey = max(theirs, key=lambda f: multiplier(c.catalog, m, unit, f), default=None)
        mult = multiplier(c.catalog, m, unit, prey) if prey is not None else m.default
        if prey is not None and mult > m.default:
            status = f"{_words(m, mult) or ''} their {c.name(prey)}".strip()
            lines = c.naming(c.inputs["beats_key"], [unit, prey], **{"@unit": c.name(unit)}, status=status)
        else:  # "Is Wendell even useful vs them": not much, he counters none of theirs
            lines = c.naming(c.inputs.get("idle_key"), [unit], **{"@unit": c.name(unit)})
    in_trouble = unit in mine and TAKING_HITS.search(normalise(c.t.utterance)) is not None
    if not faced and c.inputs.get("safe_key") and (vs_side or in_trouble or unasked):
        # "How does my Dumaka do against their team?" and none of theirs beats it: say so, not
        # the catalog's counters, which the opponent does not field.
        # (and when it keeps dying, that it is far behind on levels, if it is)
        low = _underlevelled(c, unit) if in_trouble else []
        return lines + c.naming(c.inputs["safe_key"], [unit], foe=c.name(unit)) + low
    threats = faced or threats[:2]
    if not threats:
        return lines
    return lines + c.line(key, [*threats, unit], **{"@unit": c.names(threats)}, foe=c.name(unit))


def pick_best(c: _Ctx) -> list[Line]:
    """The best usable unit against the foes (the ranking's order, then the rest of the roster):
    the first that beats one of them, else (none_key) the one they hurt least."""
    m, foes = _matchup(c), c.ids("foes")
    # The state says whose a unit is: the player's own fielded unit is not a foe to counter when
    # another is named ("can my Renzo beat their Brannoc"); named alone ("Lorcan is destroying us,
    # who beats that"), it is the mirror pick the player faces.
    theirs, mine = c.view.opponent_side(), c.view.player_side()
    named_theirs = [u for u in (*c.t.opponents, *c.t.mentioned) if u in theirs][:1]
    facing = [f for f in foes if f in theirs or f not in mine]
    not_own = [f for f in facing if f in theirs or not c.view.owns(f)]
    if not not_own and not named_theirs and any(line.keep == "answer" for line in c.t.lines):
        # "What else is my Emberfox weak to", answered: a counter to the player's own unit (fielded
        # or not) after it is advice against themselves.
        return []
    foes = facing or named_theirs or foes
    if c.t.said_mine or c.t.faced:
        # "Can my Tamsin pick Brannoc off?" (both on both sides): "my" is no foe; "is Bexley better
        # for Quillon": the one named after the facing word is.
        said = [f for f in foes if f not in c.t.said_mine and (not c.t.faced or f in c.t.faced)]
        named = [u for u in (*c.t.faced, *c.t.mentioned) if u not in c.t.said_mine]
        # "Nadira vs Elowen": the player's own fielded unit is not the foe, wherever it is named.
        named = [u for u in named if u in theirs or u not in mine] or named
        foes = said or named[:1] or foes
    if c.t.choice:  # "Lumifawn or Hexmoth against Voltail?": the units offered are not foes
        named = [u for u in c.t.mentioned if u not in c.t.choice]  # "... against Voltail"
        foes = [f for f in foes if f not in c.t.choice] or named or [f for f in theirs if f not in c.t.choice]
    if m is None or not foes:
        return []
    if c.inputs.get("beats_key") and len(foes) == 1 and _asks_beaten(c, foes[0]):
        return _beaten(c, m, foes[0])
    asked = _asks_one_beats_other(c) if c.inputs.get("beats_key") else None
    if asked is not None:
        # "Does Tamsin counter Lorcan?": that matchup in the matchup's words (the player's own that
        # wins is kept in below, with its reason).
        one, other = asked
        mult = multiplier(c.catalog, m, one, other)
        # A claim put to the coach ("someone said Jovan counters Quillon, right?"): yes or no first.
        verdict = _verdict(c, mult > m.default) if not YES_NO.match(c.t.utterance) else []
        if mult == m.default:
            values = {"@unit": c.name(one), "foe": c.name(other)}
            return verdict + c.naming(c.inputs.get("even_key"), [one, other], **values)
        values = _counter_values(c, m, one, other)
        if _WHY_DOES.match(c.t.utterance) and mult > m.default and values["reason"] and c.view.owns(other):
            # "Why does Osmund lose to Nadira": the matchup's own reason
            return c.naming(c.inputs.get("edge_key"), [one, other], **values)
        theirs_said = re.search(rf"\btheir\s+{re.escape(c.name(one))}\b", c.t.utterance, re.IGNORECASE)
        # "does their Brannoc counter her", or a claim: the matchup as asked, not a pick
        if not (mult > m.default and c.usable(one)) or theirs_said or verdict:
            status = f"{_words(m, mult) or ''} {c.name(other)}".strip()
            matchup_line = c.naming(
                c.inputs["beats_key"], [one, other], **{"@unit": c.name(one)}, status=status
            )
            return verdict + matchup_line
    threatened = _threatened(c, m, foes, theirs, mine)
    if threatened:
        return threatened
    own, edge = _own_named(c, foes, theirs, mine), []
    if own is not None and not c.t.alternative and not c.t.choice:
        # "Can my Elowen keep up with their Nadira?", "their Tamsin keeps beating my Lorcan": the
        # player asked about their own unit first; if it wins the matchup, that is the answer.
        if multiplier(c.catalog, m, own, foes[0]) > m.default and c.usable(own):
            values = _counter_values(c, m, own, foes[0])
            return c.line(_fielded(c, own, c.step.key), [own, foes[0]], **values) + _underlevelled(c, own)
        if multiplier(c.catalog, m, foes[0], own) > m.default:
            edge = c.naming(c.inputs.get("edge_key"), [foes[0], own], **_counter_values(c, m, foes[0], own))
        elif multiplier(c.catalog, m, own, foes[0]) <= m.default:
            # "Can Renzo beat their Brannoc?" when neither counters the other: say so, then the pick.
            edge = c.naming(
                c.inputs.get("even_key"), [own, foes[0]], **{"@unit": c.name(own), "foe": c.name(foes[0])}
            )
    both = _named_together(c, theirs)
    if (
        both
        and own is None
        and not c.t.choice
        and not edge
        and not any(x.keep == "answer" for x in c.t.lines)
    ):
        # "Who beats both Briarcat and Shellbastion", "what do I bring vs the cat and the turtle":
        # each one named gets its pick (the same one twice when it beats both; none that nothing beats).
        picks = [line for f in both for line in _best_counter(c, m, [f])[:1] if line.key != c.step.none_key]
        if len(picks) == len(both):
            # one wording each ("Lead with ...", "Against ..., go with ...": not the same words thrice)
            return [
                replace(line, values={**line.values, "variant": c.t.turn_index + i})
                for i, line in enumerate(picks)
            ]
    return edge + _best_counter(c, m, foes)


_SIDE_BY_SIDE = re.compile(r"\s*(?:,|and|&|n|plus)?\s*(?:and\s+)?(?:their\s+|the\s+)?", re.IGNORECASE)


def _named_together(c: _Ctx, theirs: list[str]) -> list[str]:
    """Two or three of theirs the question names side by side ("Briarcat and Shellbastion",
    "their sniper and their healer"); none otherwise."""
    named = [m for m in link_entities(c.t.pack, c.t.utterance) if m.id in theirs]
    joined = [
        (a, b) for a, b in zip(named, named[1:], strict=False)
        if _SIDE_BY_SIDE.fullmatch(c.t.utterance[a.span[1] : b.span[0]])
    ]  # fmt: skip
    ids = list(dict.fromkeys(u.id for pair in joined for u in pair))
    return ids[:3] if len(ids) >= 2 else []


# "Who does Tamsin counter", "what's Brannoc strong against", "which of theirs can Lorcan beat": the
# unit named is the one that beats (English cue words around its name).
_BEATEN_AFTER = re.compile(
    r"^\s+(?:\w+\s+)?(?:beat|beats|counter|counters|hard\s+counter|do\s+well\s+against|win\s+against|"
    r"(?:good|strong|great|best)\s+(?:against|into|vs))\b",
    re.IGNORECASE,
)
_BEATEN_BEFORE = re.compile(r"\b(?:what|whats|who|whos|which|whom)\b", re.IGNORECASE)
_BEATS_IT_BEFORE = re.compile(r"\b(?:beats?|counters?|against|vs|versus|into)\s+(?:\w+\s+)?$", re.IGNORECASE)


def _asks_beaten(c: _Ctx, uid: str) -> bool:
    utterance = c.t.utterance
    # Where the player named it, by any name ("whos pax good against")
    spans = [m.span for m in link_entities(c.t.pack, utterance) if m.id == uid]
    if not spans:
        return False
    before, after = utterance[: spans[0][0]], utterance[spans[0][1] :]
    return (
        _BEATEN_AFTER.match(after) is not None
        and _BEATEN_BEFORE.search(before) is not None
        and not _BEATS_IT_BEFORE.search(before)
    )


_ONE_BEATS_OTHER = re.compile(
    r"^\s+(?:\w+\s+)?(?:counter|counters|beat|beats|hard\s+counter|win\s+against|do\s+well\s+against|"
    r"(?:any\s+)?(?:good|strong|decent|great|effective|useful)\s+(?:against|vs|versus|into))\s+"
    r"(?:my\s+|their\s+|the\s+|your\s+)?$",
    re.IGNORECASE,
)
_BEATEN_BY = re.compile(
    r"^\s+(?:(?:\w+\s+)?(?:gets?|is|are|getting|being)\s+(?:\w+\s+)?(?:countered|beaten|beat|wrecked|shut\s+down)\s+"
    r"by|(?:always\s+|keep\s+|keeps\s+)?(?:lose|loses|losing|lost)\s+(?:to|against))\s+(?:my\s+|their\s+|the\s+|your\s+)?$",
    re.IGNORECASE,
)
_WHY_DOES = re.compile(
    r"^\W*(?:(?:and|so|but|ok|okay)\W+)*why\s+(?:does|do|did|is|would|will)\b", re.IGNORECASE
)


_VERSUS = re.compile(r"^\s*(?:vs\.?|versus|v|against)\s+(?:their\s+|the\s+)?$", re.IGNORECASE)


def _asks_one_beats_other(c: _Ctx) -> tuple[str, str] | None:
    """ "Does Tamsin counter Lorcan?": (the one asked about, the other), two units named with a
    counter verb between them in a yes/no question, or in a claim put to the coach ("someone said
    Jovan counters Quillon, right?"); "is Quillon countered by Tamsin" is (Tamsin, Quillon)."""
    text = c.t.utterance
    claim = _CLAIM.search(normalise(text)) is not None
    units = [m for m in link_entities(c.t.pack, text) if m.kind == c.view.unit_kind]
    for one, other in zip(units, units[1:], strict=False):
        # "Tamsin, but doesn't their Brannoc counter Tamsin": the question is its own clause.
        clause = re.split(r"[,;.?!]", text[: one.span[0]])[-1]
        # ("why does Osmund lose to Nadira": the matchup, with its reason)
        if one.id == other.id or not (
            YES_NO.match(clause) or claim or WHO_WINS.search(text) or _WHY_DOES.match(clause)
        ):
            continue
        between = text[one.span[1] : other.span[0]]
        hypothetical = not c.view.owns(one.id) and one.id not in c.view.opponent_side()
        if _VERSUS.match(between) and WHO_WINS.search(text) and hypothetical:
            # "Kasimir vs Quillon, who wins" of one nobody fields (the head-to-head of two in play is
            # the matchup's own answer): whether the first beats the second
            return one.id, other.id
        if _ONE_BEATS_OTHER.match(between):
            return one.id, other.id
        if _BEATEN_BY.match(between):
            return other.id, one.id
    return None


def _beaten(c: _Ctx, m: Matchup, uid: str) -> list[Line]:
    """The units `uid` beats by the matchup, their fielded ones first, said with the matchup's words
    ("Tamsin is a soft counter to Nadira and a hard counter to Kasimir")."""
    theirs = c.view.opponent_side()
    units = [u for u in c.catalog.entities.get(c.view.unit_kind, {}) if u != uid]
    beaten = [u for u in units if multiplier(c.catalog, m, uid, u) > m.default]
    if not beaten:
        return []
    beaten.sort(key=lambda u: (u not in theirs, -multiplier(c.catalog, m, uid, u)))
    shown = [u for u in beaten if u in theirs] or beaten[:3]
    groups: dict[str, list[str]] = {}
    for u in shown:
        groups.setdefault(_words(m, multiplier(c.catalog, m, uid, u)) or "", []).append(u)
    status = " and ".join(f"{words} {c.names(us)}".strip() for words, us in groups.items())
    return c.line(c.inputs["beats_key"], [uid, *shown], **{"@unit": c.name(uid)}, status=status)


def _offered(c: _Ctx) -> list[str]:
    """The units the player offered to choose from that they own ("level Oakhorn or Sparkwing")."""
    return [u for u in c.t.choice if c.view.owns(u)]


def _own_named(c: _Ctx, foes: list[str], theirs: list[str], mine: list[str]) -> str | None:
    """The player's own unit the question sets against the foes, if it names one."""
    owned = {o.id for o in c.view.owned()}
    return next(
        (
            u
            for u in c.t.mentioned
            if u not in foes and (u not in theirs or u in c.t.said_mine) and (u in mine or u in owned)
        ),
        None,
    )


def _underlevelled(c: _Ctx, uid: str) -> list[Line]:
    """The caveat on a pick far behind the team (low_key: "Lumifawn is only level 5"): under half
    the median level of the player's fielded units (else of their roster), so a counter that will
    lose on levels is never recommended as if it were ready."""
    unit = c.view.unit(uid)
    if unit is None or not c.inputs.get("low_key") or not c.view.far_behind(uid):
        return []
    tiers = c.view.tiers(uid)
    first = tiers[0] if len(tiers) > 1 and unit.tier is not None and unit.tier <= 1 else None
    return c.naming(c.inputs["low_key"], [uid], **{"@unit": c.name(uid)}, level=unit.level, first_tier=first)


def _best_counter(c: _Ctx, m: Matchup, foes: list[str]) -> list[Line]:
    """`pick_best`'s pick: the first usable unit that beats a foe, else the safest."""
    ranked = c.ids("ranked")
    ranked += _strongest_first(c, sorted(o.id for o in c.view.owned() if o.id not in ranked))
    ranked = c.t.fresh_first(ranked)
    if c.inputs.get("fielded_first"):
        # "What should I do this turn": a move with the team on the field before one off the bench.
        fielded = set(c.view.player_side())
        ranked = [u for u in ranked if u in fielded] + [u for u in ranked if u not in fielded]
    skip = set(c.ids("skip"))  # e.g. the units already on the player's side: "swap to" one of them
    # A unit far behind on levels only when no other beats a foe.
    usable = sorted((u for u in ranked if c.usable(u) and u not in skip), key=c.view.far_behind)
    offered = [u for u in usable if u in c.t.choice]
    if offered and not any(multiplier(c.catalog, m, u, f) > m.default for u in offered for f in foes):
        if not c.inputs.get("neither_key"):
            offered = []  # no words for "neither of those": the best of all, as asked without a choice
        else:
            safest = min(
                offered, key=lambda u: (max(multiplier(c.catalog, m, f, u) for f in foes), offered.index(u))
            )
            faced = c.name(foes[0]) if len(foes) == 1 else "anyone they field"
            neither = " nor ".join(c.name(u) for u in c.t.choice)
            units = {"@unit": c.name(safest)}
            return c.line(c.inputs["neither_key"], [safest, *foes], **units, foe=faced, offered=neither)
    usable = offered or usable
    kind = kind_asked(c.t.pack, c.t.utterance)
    if kind is not None:
        # "Which support beats Quillon", "someone else, not a tank": only that kind, or all but it
        kind_word, fits, away = kind
        of_kind = [u for u in usable if (u in fits) != away]
        beater = next(
            (u for u in usable if any(multiplier(c.catalog, m, u, f) > m.default for f in foes)), None
        )
        if of_kind and beater is not None and beater not in of_kind and c.inputs.get("kind_only_key"):
            # none of that kind beats them: the one that does, and the best of the kind asked for
            beaten = next(f for f in foes if multiplier(c.catalog, m, beater, f) > m.default)
            best = min(of_kind, key=lambda u: (multiplier(c.catalog, m, beaten, u), of_kind.index(u)))
            if not any(multiplier(c.catalog, m, u, beaten) > m.default for u in of_kind):
                values = {"@unit": c.name(beater), "foe": c.name(beaten), "other": c.name(best)}
                kind_said = f"Without {kind_word} picks" if away else f"If you go {kind_word}"
                return c.line(c.inputs["kind_only_key"], [best, beater, beaten], **values, kind=kind_said)
        usable = of_kind or usable
    if c.t.alternative:
        # "Plan B?": one not said yet that beats any of them comes before one said that beats another
        fresh = [
            u
            for u in usable
            if u not in c.t.avoid and any(multiplier(c.catalog, m, u, f) > m.default for f in foes)
        ]
        usable = fresh + [u for u in usable if u not in fresh]
    for uid in usable:
        foe = next((f for f in foes if multiplier(c.catalog, m, uid, f) > m.default), None)
        if foe is not None:
            values = _counter_values(c, m, uid, foe)
            beating = [u for u in usable if multiplier(c.catalog, m, u, foe) > m.default]
            if c.t.alternative and uid in c.t.avoid and any(u not in c.t.avoid for u in beating):
                continue  # "what else?": one that beats it and was not said yet
            rest = [u for u in usable if u not in beating]
            if (
                c.t.alternative
                and len(beating) > 1
                and set(beating) <= c.t.avoid
                and rest
                and c.inputs.get("only_these_key")
            ):
                # "Anyone else?" after every one that beats it was said: they are all, and the best
                # of the rest.
                best = min(rest, key=lambda u: (multiplier(c.catalog, m, foe, u), rest.index(u)))
                units = {"@units": c.names(beating)}
                return c.line(c.inputs["only_these_key"], [best, *beating, foe], **units, foe=c.name(foe),
                              other=c.name(best))  # fmt: skip
            if c.t.alternative and uid in c.t.avoid and len(beating) == 1 and c.inputs.get("only_key"):
                # "Another option?" and the last pick is the only one that beats it: say so, and
                # which other of theirs holds up best.
                rest = [u for u in usable if u not in c.t.avoid]
                other = min(
                    rest, key=lambda u: (multiplier(c.catalog, m, foe, u), rest.index(u)), default=None
                )
                if other is not None:
                    return c.line(c.inputs["only_key"], [other, uid, foe], **values, other=c.name(other))
            picked = c.line(_fielded(c, uid, c.step.key), [uid, foe], **values) + _underlevelled(c, uid)
            # "Who counters their Tamsin": Brannoc, and the Lorcan already fielded counters her too.
            also = [
                u for u in c.view.player_side()
                if u != uid and c.usable(u) and multiplier(c.catalog, m, u, foe) > m.default
            ]  # fmt: skip
            if also and c.inputs.get("also_key") and not c.t.choice:
                picked += c.line(
                    c.inputs["also_key"], [also[0], foe], **{"@unit": c.name(also[0])}, foe=c.name(foe)
                )
            return picked
    if not usable:
        return []
    symmetric = m.between[0] == m.between[1]

    def hurt(uid: str) -> float:
        return max(multiplier(c.catalog, m, f, uid) for f in foes) if symmetric else 0.0

    safest = min(usable, key=lambda u: (hurt(u), usable.index(u)))
    if sum(hurt(u) == hurt(safest) for u in usable) > 1 and c.inputs.get("locked_key"):
        # Others are as safe: "your safest pick" would be made up. Who would counter it once
        # unlocked (locked_key), and nothing of the player's is picked.
        catalog_units = c.catalog.entities.get(c.view.unit_kind, {})
        beats = [
            u for u in catalog_units if not c.usable(u) and multiplier(c.catalog, m, u, foes[0]) > m.default
            and (kind is None or (u in kind[1]) != kind[2])
        ]  # fmt: skip
        for locked in beats[:1]:
            values = {
                "@unit": c.name(locked),
                "foe": c.name(foes[0]),
                "unlock": c.gate(c.view.unit_kind, locked),
            }
            said = c.naming(c.inputs["locked_key"], [locked, foes[0]], **values)
            if said:
                return said
    return c.line(c.step.none_key, [safest, *foes], **{"@unit": c.name(safest)}, foe=c.name(foes[0]))


def _quota_order(c: _Ctx, team: list[str]) -> list[str]:
    """The team in the composition quota's order (tank, damage, support), as a comp is called out;
    without a quota, as it came."""
    comp = c.schema.composition
    quota = comp.quota if comp is not None else None
    if quota is None:
        return team
    order = list(quota.counts)

    def rank(uid: str) -> int:
        entity = c.catalog.get(c.view.unit_kind, uid)
        value = entity.value(quota.attribute) if entity is not None else None
        return order.index(value) if value in order else len(order)

    return sorted(team, key=rank)


def _role(c: _Ctx, uid: str) -> Any:
    """The unit's value of the quota's attribute (its role), None without a quota."""
    comp = c.schema.composition
    if comp is None or comp.quota is None:
        return None
    entity = c.catalog.get(c.view.unit_kind, uid)
    return entity.value(comp.quota.attribute) if entity is not None else None


def _strongest_first(c: _Ctx, units: list[str]) -> list[str]:
    """`units` by their power (`_Ctx.power`), highest first, else as given."""
    return sorted(units, key=lambda u: (-c.power(u), units.index(u)))


def _fill_in_quota(c: _Ctx, team: list[str], spare: list[str], size: int) -> list[str]:
    """`team` filled up to `size` from `spare` (in its order): first the quota's roles the team
    still lacks, then anyone. Without a quota, the first spares."""
    comp = c.schema.composition
    team = team[:size]
    if comp is not None and comp.quota is not None:
        for role, count in comp.quota.counts.items():
            need = count - sum(_role(c, u) == role for u in team)
            fits = [u for u in spare if u not in team and _role(c, u) == role]
            team += fits[: max(0, min(need, size - len(team)))]
    return team + [u for u in spare if u not in team][: size - len(team)]


def _fill_spread(c: _Ctx, team: list[str], spare: list[str], size: int, attribute: str) -> list[str]:
    """`team` filled up to `size` from `spare` (in its order), each time with a unit whose value of
    `attribute` the team lacks if there is one ("a tank and a support around a striker")."""
    team = team[:size]

    def value(uid: str) -> Any:
        entity = c.catalog.get(c.view.unit_kind, uid)
        return entity.value(attribute) if entity is not None else None

    while len(team) < size:
        left = [u for u in spare if u not in team]
        if not left:
            break
        have = {value(u) for u in team}
        team.append(next((u for u in left if value(u) not in have), left[0]))
    return team


def _swap_like_for_like(c: _Ctx, team: list[str], spare: list[str]) -> list[str]:
    """The team with its last member that has a spare of the same role swapped for it (a fresh team
    that keeps the quota); unchanged when no member has one."""
    for i in range(len(team) - 1, -1, -1):
        other = next((u for u in spare if _role(c, u) == _role(c, team[i])), None)
        if other is not None:
            return [*team[:i], other, *team[i + 1 :]]
    return team


def _quota_short(c: _Ctx, team: list[str]) -> list[str]:
    """The quota's roles `team` has fewer of than the quota asks, in the quota's order."""
    comp = c.schema.composition
    if comp is None or comp.quota is None:
        return []
    return [r for r, n in comp.quota.counts.items() if sum(_role(c, u) == r for u in team) < n]


def _beats(c: _Ctx, m: Matchup, units: Sequence[str], foes: Sequence[str]) -> tuple[str, str] | None:
    """The first (unit, foe) of `units` that beats one of `foes` by the matchup."""
    return next(((u, f) for u in units for f in foes if multiplier(c.catalog, m, u, f) > m.default), None)


def _counter_values(c: _Ctx, m: Matchup, uid: str, foe: str) -> dict[str, Any]:
    """What a line says of a counter: the unit, the foe, the matchup's words and the reason."""
    status = _words(m, multiplier(c.catalog, m, uid, foe))
    return {
        "@unit": c.name(uid),
        "foe": c.name(foe),
        "status": status,
        "reason": c.catalog.note(m.name, uid, foe),
        **_axis_values(c, m, uid, foe),
    }


def _fit_reasons(c: _Ctx, uid: str, place: str) -> dict[str, Any]:
    """Why a unit fits a place or not, as the data says it: the unit's epithet ("a shotgunner who
    hits harder than anyone at point blank") and the place's description ("three piers over open
    water with long sightlines"); none when either is missing."""
    unit_kind = c.view.unit_kind
    field = c.schema.kinds[unit_kind].epithet
    unit = c.catalog.get(unit_kind, uid)
    where = next(
        (c.catalog.get(k, place) for k in c.schema.kinds_of("context") if c.catalog.get(k, place)), None
    )
    epithet = unit.value(field) if unit is not None and field else None
    description = where.value("description") if where is not None else None
    if not isinstance(epithet, str) or not isinstance(description, str):
        return {}
    return {"epithet": epithet, "description": description}


def _axis_values(c: _Ctx, m: Matchup, uid: str, foe: str) -> dict[str, Any]:
    """An attribute matchup's values of the unit and the foe ({element}: "water", {foe_element}:
    "fire"): why one beats the other, said in the pack's own words; none for an id matchup."""
    if m.attribute is None:
        return {}
    ours, theirs = c.catalog.get(m.between[0], uid), c.catalog.get(m.between[1], foe)
    mine = ours.value(m.attribute) if ours is not None else None
    other = theirs.value(m.attribute) if theirs is not None else None
    return {
        m.attribute: c.name(str(mine)) if mine is not None else None,
        f"foe_{m.attribute}": c.name(str(other)) if other is not None else None,
    }


def _team_edges(c: _Ctx, team: list[str]) -> list[Line]:
    """Why the team, from the matchup: each member that beats one of `edge_foes` (edge_pattern: "{unit}
    hits {foe}", joined as edges_key's {edges}); none when no member beats any."""
    m, foes, pattern = _matchup(c), c.ids("edge_foes"), c.inputs.get("edge_pattern")
    if m is None or not foes or not pattern or not c.inputs.get("edges_key"):
        return []
    edges = []
    for u in team:
        beaten = [f for f in foes if multiplier(c.catalog, m, u, f) > m.default]
        if beaten:
            edges.append(str(pattern).format(unit=c.name(u), foe=c.names(beaten)))
    return c.line(c.inputs["edges_key"], team, edges=spoken_list(edges)) if edges else []


def pick_pair(c: _Ctx) -> list[Line]:
    """A whole team of usable units (the suggestion, filled up from the roster), not the set the
    previous reply gave; short of a team, a rotating pair of it (pair_key) or its lead (lead_key).
    The team is named in the quota's order. With `anchor`, a team around that unit (none if the
    player cannot field it); with `foes` and a `matchup`, only a team one of whose units beats a foe
    (said as {unit} / {foe}); with `available` below the team size, short_key (the few units of a
    style the player has)."""
    t = c.t
    suggested = c.ids("team")
    if not suggested:
        return []  # no suggestion (its tool failed): a team from the roster alone would be a guess
    team = [u for u in suggested if c.usable(u)]
    anchor = next(iter(c.ids("anchor")), None)
    if "anchor" in c.inputs and (anchor is None or not c.usable(anchor)):
        return []  # a team around a unit the player cannot field: the next step says why
    comp = c.schema.composition
    size = int(c.get("size") or (comp.size if comp is not None else 3))
    if len(team) > size:
        team = _strongest_first(c, team)  # more than a team (the whole roster): its strongest
    if anchor is not None and anchor not in team[:size]:
        team = [anchor, *(u for u in team if u != anchor)]
    roster = c.ids("roster") if "roster" in c.inputs else sorted(o.id for o in c.view.owned())
    spare = _strongest_first(c, [u for u in roster if c.usable(u) and u not in team])
    spread = c.inputs.get("spread")
    team = _fill_spread(c, team, spare, size, spread) if spread else _fill_in_quota(c, team, spare, size)
    spare = [u for u in spare if u not in team]
    offered = [t.avoid, *t.offered_before]
    for _ in range(len(spare)):
        # Not the previous reply's team again, nor one offered a few asks ago ("another" again).
        if len(team) < size or not any(s and set(team) <= s for s in offered):
            break
        team = _swap_like_for_like(c, team, spare)
        spare = [u for u in spare if u not in team]
    team = _quota_order(c, team)
    short = _quota_short(c, team) if len(team) >= size else []
    values: dict[str, Any] = dict(style=c.get("style"), score=c.get("score"), count=len(team))
    m, foes = _matchup(c), c.ids("foes")
    if len(team) >= size and not set(team) <= t.avoid:
        key = c.step.key
        if m is not None and foes:
            hit = _beats(c, m, team, foes)
            if hit is None:
                return []  # no counter in the team: the next step answers
            values |= _counter_values(c, m, *hit)
        available = c.get("available")
        if isinstance(available, int) and available < size and c.inputs.get("short_key"):
            key, values["count"] = c.inputs["short_key"], available
        named = [u for u in team if u != anchor]
        if anchor is not None:
            values["@unit"] = c.name(anchor)
        lines = c.line(key, team, **{"@units": c.names(named)}, leader=c.name(team[0]), **values)
        # A member far behind the rest on levels: said instead of praise ("Lumifawn is only level 5").
        caveat = next((low for u in team if (low := _underlevelled(c, u))), []) if lines else []
        lines += caveat
        edges = _team_edges(c, team) if lines and not caveat else []
        lines += edges
        score_key = c.inputs.get("score_key")
        if (
            lines
            and score_key
            and not caveat
            and not edges
            and set(team) == set(suggested)
            and values["score"] is not None
        ):
            # The suggestion as it came: its rating, said if the budget has room.
            lines.append(Line(c.step.paragraph, score_key, {"score": values["score"]}, "praise"))
        if lines and short:
            # The usable units cannot keep the quota (the player kept the rest out, or lacks them):
            # the team is said with the role it is short of, not passed off as a proper one.
            said = {"role": short[0], "short": spoken_list(short)}
            lines.append(Line("constraint_account", "quota_short", said, "answer"))
        return lines
    if anchor is not None or (m is not None and foes):
        return []
    pairs = [tuple(rotate(team, t.turn_index + k, 2)) for k in range(len(team))] if len(team) >= 2 else []
    fresh = [p for p in pairs if not set(p) <= t.avoid] if t.avoid else pairs
    pair_key, lead_key = c.inputs.get("pair_key"), c.inputs.get("lead_key")
    if pair_key and (fresh or (pairs and not lead_key)):
        lead, partner = (fresh or pairs)[0]
        return c.line(pair_key, [lead, partner], leader=c.name(lead), **{"@unit": c.name(partner)}, **values)
    if lead_key and team:
        # Every pair was the previous reply's (two units to choose from): the lead alone, not the
        # same advice again.
        lead = t.fresh_first(team)[0]
        return c.line(lead_key, [lead], leader=c.name(lead), **values)
    return []


def _listed(c: _Ctx) -> list[str]:
    """The units of "which of Elowen, Wendell and Yarrow have I got?" (a kind read as the units it
    fits), answered all at once, not about the first alone; [] for fewer than three, or two not
    asked about with "which of"."""
    units = [u for u in c.t.mentioned if c.catalog.get(c.view.unit_kind, u) is not None]
    which_of = len(units) == 2 and re.search(r"\bwhich\s+of\b", c.t.utterance, re.I) is not None
    return units if len(units) >= 3 or which_of else []


def ownership(c: _Ctx) -> list[Line]:
    """Does the player have the unit: yes with its level (key), no with its gate (none_key)."""
    ids = c.ids("unit")
    if not ids or not c.view.known:
        return []  # nothing named, or the roster unknown: the unavailable line says why
    uid, unit = ids[0], c.view.unit_kind
    listed = _listed(c)
    have = [u for u in listed if c.view.owns(u)]
    if listed and have and c.inputs.get("all_key"):
        return c.line(c.inputs["all_key"], have, **{"@units": c.names(have)})
    owned = c.view.unit(uid)
    theirs = re.search(rf"\b(?:their|the enemy'?s?)\s+{re.escape(c.name(uid))}\b", c.t.utterance, re.I)
    # "Do I have", "have I got", "is it unlocked" - not "what's Briarcat got" (what it carries), nor
    # "tell me what moves he has" (the "me" of "tell me" owns nothing).
    asks_own = re.search(
        r"\b(?:own|owned|unlock\w*|roster|collection|mine)\b|\b(?:i|we)\b.*\b(?:have|has|got|get)\b",
        c.t.utterance,
        re.I,
    )
    fallback = c.inputs.get("skip_theirs") and not c.t.lines
    if owned is None and (theirs or c.t.lines or fallback) and not asks_own and uid in c.view.opponent_side():
        # "Tell me about their Voltail", "what's Voltail" (after its description): not whether
        # the player has one.
        return []
    if owned is not None and c.t.lines and not asks_own and not c.inputs.get("missing_only"):
        # "What does he do" about the player's own unit: the answer was said; "yes, you have it"
        # answers nothing they asked, where it stands (its level) may still help.
        aside = c.inputs.get("aside_key")
        if not aside:
            return []
        return c.line(aside, [uid], **{"@unit": c.name(uid)}, level=owned.level, tier=owned.tier)
    if owned is not None and c.inputs.get("missing_only"):
        return []  # a fallback step: only "you don't have it" answers the turn, "yes" would not
    if (
        owned is not None
        and c.inputs.get("level_concern_key")
        and LEVEL_CONCERN.search(normalise(c.t.utterance))
    ):
        # "Stellan's only level 4, is that a problem": behind the team or not, and what the level
        # still locks (its next option and that option's gate).
        norm = c.view.level_norm(uid)
        behind = c.view.far_behind(uid)
        key = c.inputs["level_behind_key"] if behind and c.inputs.get("level_behind_key") else None
        values: dict[str, Any] = {"@unit": c.name(uid), "level": owned.level, "team_level": norm}
        said = c.line(key or c.inputs["level_concern_key"], [uid], **values)
        locked = [o for o in c.view.options_of(uid) if not c.view.option_usable(o, uid)]
        option = c.view.option_kind
        if said and locked and option is not None:
            next_one = {"@option": c.name(locked[0]), "unlock": c.gate(option, locked[0])}
            said += c.line(c.inputs.get("level_next_key"), [locked[0]], **next_one)
        return said
    if owned is not None and _asks_level(c) and c.inputs.get("level_key"):
        # "What level is Galehawk?": where it stands, not "yes, you have it".
        return c.line(
            c.inputs["level_key"], [uid], **{"@unit": c.name(uid)}, level=owned.level, tier=owned.tier
        )
    if owned is not None:
        return c.line(c.step.key, [uid], **{"@unit": c.name(uid)}, level=owned.level, tier=owned.tier)
    level = c.t.state.fs.player_level
    return c.line(
        c.step.none_key, [uid], **{"@unit": c.name(uid)}, unlock=c.gate(unit, uid), player_level=level
    )


# "What level does it unlock at", "which stage", "when do I get it" (English cue words).
_ASKS_GATE = re.compile(
    r"\b(?:what|which)\s+(?:level|stage|tier|rank)\b|\bat\s+what\s+(?:level|stage)\b|\bwhen\s+(?:do|does|did|can)\b"
    r"|\bhow\s+(?:do|does|did)\s+(?:i|you|it|\w+)\s+(?:unlock|get)\b|\bunlocks?\s+at\b|\bunlocked\s+at\b"
)


def option_status(c: _Ctx) -> list[Line]:
    """Can the player use the option: on the unit named (or their first learner that can), usable
    (key); locked on an owned unit, with the gates it still misses (locked_key; gated_key: only
    account-wide ones); its unit not owned (unowned_key)."""
    ids, option = c.ids("option"), c.view.option_kind
    if not ids or option is None or not c.view.known:
        return []
    oid, view = ids[0], c.view
    learners = view.learners(oid)
    named = next((u for u in c.ids("unit") if u in learners), None)
    others = [u for u in c.ids("unit") if c.catalog.get(view.unit_kind, u) is not None]
    if named is None and others and c.inputs.get("unlearnable_key"):
        # "Can Pyrowl use Riptide?": none of the units named can have it.
        return c.line(
            c.inputs["unlearnable_key"],
            [oid],
            **{"@option": c.name(oid), "@unit": c.name(others[0])},
            other=" or ".join(c.name(u) for u in learners) or None,  # whose it is
        )
    owned = [u for u in learners if view.owns(u)]
    owner = named or next((u for u in owned if view.option_usable(oid, u)), None) or next(iter(owned), None)
    entity = c.catalog.get(option, oid)
    slot_field = c.schema.kinds[option].slot
    values: dict[str, Any] = {"@option": c.name(oid)}
    if entity is not None and slot_field:
        values["slot"] = entity.value(slot_field)
    if owner is not None and view.owns(owner):
        values["@unit"] = c.name(owner)
        if view.option_usable(oid, owner):
            gate = c.gate(option, oid)
            if gate and c.inputs.get("gate_key") and _ASKS_GATE.search(normalise(c.t.utterance)):
                # "What level is Gale Dive unlocked at": the gate, then that it is met (not a bare yes).
                return c.line(c.inputs["gate_key"], [oid, owner], **values, unlock=gate)
            return _equipped_line(c, oid, owner, values) or c.line(c.step.key, [oid, owner], **values)
        how = c.inputs.get("how_key") if c.t.asks_how else None  # "how do I unlock it?": no "Not yet:"
        return _locked(c, how or c.inputs.get("locked_key"), [oid, owner], oid, owner, values)
    who = owner or next(iter(learners), None)
    if who is None:
        return []
    mine = re.search(r"\b(?:i|me|my|we|our)\b", c.t.utterance, re.I)
    if (
        c.t.lines
        and not mine
        and set(learners) & set(view.opponent_side())
        and not WHO_HAS.search(c.t.utterance)
    ):
        # "What does Thorn Volley do": one of their units' options, described; that the player
        # has no unit for it answers nothing they asked.
        return []
    foe = next((u for u in view.opponent_side() if u in learners and not view.owns(u)), None)
    if foe is not None and c.inputs.get("theirs_key") and not mine:
        # "Coral Guard, that's one of theirs right?": whose it is in this match, not the unit the
        # player would need for it.
        if WHO_HAS.search(c.t.utterance):
            c.t.lines.clear()  # "who has Coral Guard": whose it is is the answer, not what it does
        return c.line(c.inputs["theirs_key"], [oid], **values, **{"@unit": c.name(foe)})
    # "How do I unlock Phoenix Rite?": its unit, and what it takes once they have one.
    gates = gate_text(c.t.pack, option, oid)
    key = (c.inputs.get("unowned_gated_key") if gates else None) or c.inputs.get("unowned_key")
    return c.line(key, [oid, who], **values, **{"@unit": c.name(who)}, unlock=gates or None)


# "Is Renzo running the Auto Shotgun", "Overflow on?": whether it is in its slot now.
_ASKS_ON = re.compile(
    r"\b(?:running|equipped|slotted)\b|\bon\s*(?:him|her|it|them|right\s+now|now|atm|yet|already)?\s*\W*$",
    re.IGNORECASE,
)


def _equipped_line(c: _Ctx, oid: str, owner: str, values: dict[str, Any]) -> list[Line]:
    """A usable option on an owned unit, said with what it runs: already in its slot
    (equipped_key), or asked whether it is on while another one is (unequipped_key, {other}).
    An option already on needs no "equip it at your next spawn"."""
    unit, slot = c.view.unit(owner), _slot(c, oid)
    current = unit.equipped.get(slot) if unit is not None and slot else None
    if current is None:
        return []
    if current == oid:
        return c.line(c.inputs.get("equipped_key"), [oid, owner], **values)
    if _ASKS_ON.search(c.t.utterance):
        return c.line(c.inputs.get("unequipped_key"), [oid, owner], **values, other=c.name(current))
    return []


def _slot(c: _Ctx, option_id: str) -> str | None:
    option = c.view.option_kind
    field = c.schema.kinds[option].slot if option is not None else None
    entity = c.catalog.get(option, option_id) if option is not None else None
    value = entity.value(field) if entity is not None and field else None
    return str(value) if value is not None else None


# The player asks about their own moves ("which move should I use", "my best move").
_MY_MOVE = re.compile(r"\b(?:i|my|we|our|me)\b", re.IGNORECASE)
_AT = re.compile(r"\b(?:on|against|vs|versus|into|at)\s+(?:their\s+|the\s+)?$", re.IGNORECASE)


def _aimed_at(c: _Ctx, uid: str) -> bool:
    """ "Which move on the cat", "best move vs Voltail": a move used on that one, not its own."""
    return any(
        m.id == uid and _AT.search(c.t.utterance[: m.span[0]]) for m in link_entities(c.t.pack, c.t.utterance)
    )


def _best_against(c: _Ctx, foe: str | None, value: Any) -> list[Line]:
    """The player's strongest usable option against one foe (or a value of the matchup's attribute:
    "water"), by power times the matchup, from the team they field first (against_key)."""
    view = c.view
    m = next((x for x in c.schema.matchups if x.attribute and x.between[0] == view.unit_kind), None)
    power = c.schema.kinds[view.option_kind or ""].number
    if m is None or power is None or not view.known:
        return []
    theirs = _value(c, m.between[1], foe, m.attribute) if foe is not None else value
    team = view.player_side()
    units = sorted((o.id for o in view.owned()), key=lambda u: (u not in team, u))
    scored = []
    for uid in units:
        for oid in view.options_of(uid):
            base = _value(c, view.option_kind or "", oid, power)
            if not isinstance(base, int | float) or base <= 0 or not view.option_usable(oid, uid):
                continue
            mult = _type_mult(c, m, _value(c, view.option_kind or "", oid, m.attribute), theirs)
            scored.append((-base * mult, uid not in team, uid, oid, mult))
    if not scored:
        return []
    _, _, uid, oid, mult = min(scored)
    target = c.name(foe) if foe is not None else c.name(str(value))
    return c.line(c.inputs["against_key"], [oid, uid], **{"@unit": c.name(uid), "@option": c.name(oid)},
                  foe=target, status=_words(m, mult))  # fmt: skip


def option_best(c: _Ctx) -> list[Line]:
    """What to run on an owned unit: per slot, its most advanced option the player can use (the
    catalog lists a unit's options from starter to gated); with swap_key, first the slot whose
    equipped option is not that one. A locked option is never named."""
    view, ids = c.view, c.ids("unit")
    if view.option_kind is None or _listed(c):
        return []
    if c.inputs.get("against_key") and (ids[:1] or c.t.types[:1]):
        # "Which move should I use against Voltail", "which of my moves hits water hardest": the
        # player's, across their team, not the opponent's own best move.
        # (a type named now outranks a unit carried over from the last question)
        target = ids[0] if ids and (ids[0] in c.t.mentioned or not c.t.types) else None
        if target is None or (
            not view.owns(target)
            and target in view.opponent_side()
            and (_MY_MOVE.search(c.t.utterance) or _aimed_at(c, target))
        ):
            return _best_against(c, target, None if target else c.t.types[0])
    if not ids:
        return []
    uid = ids[0]
    unit_entity = c.catalog.get(view.unit_kind, uid)
    field = c.schema.options_field()
    options = list(unit_entity.value(field) or []) if unit_entity is not None and field else []
    power = c.schema.kinds[view.option_kind].number
    # "What should Oakhorn use on Briarcat?": strength times the matchup against that one.
    m = next((x for x in c.schema.matchups if x.attribute and x.between[0] == view.unit_kind), None)
    foe = next((u for u in c.t.mentioned if u != uid and u in view.opponent_side()), None)

    def strength(oid: str) -> float:
        """The option's strength, by the option kind's first numeric attribute (and the matchup)."""
        value = _value(c, view.option_kind or "", oid, power)
        base = float(value) if isinstance(value, int | float) else 0.0
        if m is None or foe is None:
            return base
        mine, theirs = (
            _value(c, view.option_kind or "", oid, m.attribute),
            _value(c, m.between[1], foe, m.attribute),
        )
        return base * _type_mult(c, m, mine, theirs)

    if not view.owns(uid):
        # "What's Quillon's best loadout?", "what's their turtle's strongest move?" of a unit the
        # player lacks (often the opponent's): what it runs at full unlock, said as such.
        if not options or not c.inputs.get("unowned_key"):
            return []
        if c.inputs.get("strongest"):
            top = min(options, key=lambda o: (-strength(o), o))
            return c.naming(
                c.inputs["unowned_key"], [top, uid], **{"@unit": c.name(uid), "@option": c.name(top)}
            )
        chosen = list({(_slot(c, o) or o): o for o in options}.values())
        return c.line(
            c.inputs["unowned_key"], [*chosen, uid], **{"@unit": c.name(uid), "@options": c.names(chosen)}
        )
    if c.inputs.get("strongest"):
        # The one option to use: the strongest usable one.
        usable = [o for o in options if view.option_usable(o, uid)]
        top = min(usable, key=lambda o: (-strength(o), o), default=None)
        if top is None:
            return []
        values = {"@unit": c.name(uid), "@option": c.name(top)}
        if m is not None and foe is not None and c.inputs.get("foe_key"):
            return c.line(c.inputs["foe_key"], [top, uid], **values, foe=c.name(foe))
        return c.line(c.step.key, [top, uid], **values)
    best: dict[str, str] = {}
    for oid in options:
        if view.option_usable(oid, uid):
            # a later one in the same slot replaces an earlier (`every`: each one is said)
            best[oid if c.inputs.get("every") else (_slot(c, oid) or oid)] = oid
    if not best:
        return []
    owned = view.unit(uid)
    equipped = owned.equipped if owned is not None else {}
    swap = next(((s, o) for s, o in best.items() if s in equipped and equipped[s] != o), None)
    if swap is not None and c.inputs.get("swap_key"):
        slot, oid = swap
        return c.line(c.inputs["swap_key"], [oid, uid], **{"@unit": c.name(uid), "@option": c.name(oid)},
                      slot=slot)  # fmt: skip
    chosen = list(best.values())
    kept = c.inputs.get("kept_key") if all(equipped.get(s) == o for s, o in best.items()) else None
    # "Anything better she could be running?" when she runs the best she has: say so, not a new list.
    return c.line(kept or c.step.key, [*chosen, uid], **{"@unit": c.name(uid), "@options": c.names(chosen)})


def equipped(c: _Ctx) -> list[Line]:
    """What the owned unit has equipped, in the snapshot's words (slot_key: the slot asked about);
    "anything unlocked it isn't using": its unlocked options not equipped (`_unused`). No unit named,
    the whole `team`'s when the player asks about all of it, else which_key asks which."""
    view, ids, said = c.view, c.ids("unit"), normalise(c.t.utterance)
    if not ids or (not c.t.mentioned and TEAM_LOADOUT.search(said)):
        # (a unit in focus from an earlier turn is not the one asked about)
        team = [u for u in (view.unit(v) for v in c.ids("team")) if u is not None]
        if not team or not (TEAM_WIDE.search(said) or TEAM_LOADOUT.search(said)):
            return c.line(c.inputs["which_key"]) if c.inputs.get("which_key") else []
        return _unused(c, team) if UNUSED_UNLOCKS.search(said) else _team_kits(c, team)
    unit = view.unit(ids[0])
    if unit is not None and UNUSED_UNLOCKS.search(said):
        return _unused(c, [unit])
    if unit is None or not unit.equipped:
        return c.line(c.step.none_key) if unit is not None else []
    uid, slot = unit.id, c.get("slot")
    if isinstance(slot, str) and slot in unit.equipped and c.inputs.get("slot_key"):
        oid = unit.equipped[slot]
        return c.line(c.inputs["slot_key"], [oid, uid], **{"@unit": c.name(uid), "@option": c.name(oid)},
                      slot=slot)  # fmt: skip
    # In the schema's slot order (primary, utility, perk), else by slot name.
    kind = c.schema.kinds[view.option_kind] if view.option_kind else None
    spec = kind.attributes.get(kind.slot) if kind is not None and kind.slot else None
    order = spec.values if spec is not None and isinstance(spec.values, list) else []
    slots = sorted(unit.equipped, key=lambda s: (order.index(s) if s in order else len(order), s))
    items = [unit.equipped[s] for s in slots]
    return c.line(c.step.key, [*items, uid], **{"@unit": c.name(uid), "@options": c.names(items)})


def _unused(c: _Ctx, units: list[Owned]) -> list[Line]:
    """Each unit's unlocked options it has not equipped (unused_key; unused_none_key: none at all)."""
    if not c.inputs.get("unused_key"):
        return []
    spare = {u.id: [o for o in u.unlocked if o not in u.equipped.values()] for u in units}
    lines = [
        line
        for uid, opts in spare.items()
        if opts
        for line in c.line(
            c.inputs["unused_key"], [*opts, uid], **{"@unit": c.name(uid), "@options": c.names(opts)}
        )
    ]
    return lines or c.line(c.inputs.get("unused_none_key"), [u.id for u in units])


def _team_kits(c: _Ctx, team: list[Owned]) -> list[Line]:
    """ "What's everyone running": the whole side's options in one sentence (team_key: "Dumaka: Drum
    Gun, Bull Rush and Thick Hide; Renzo: ..."); five kits said one by one would run past what a
    reply may say."""
    kits = [u for u in team if u.equipped]
    if not c.inputs.get("team_key") or not kits:
        return []
    loadouts = "; ".join(f"{c.name(u.id)}: {c.names(list(u.equipped.values()))}" for u in kits)
    covers = [o for u in kits for o in u.equipped.values()] + [u.id for u in kits]
    return c.line(c.inputs["team_key"], covers, loadouts=loadouts)


def list_owned(c: _Ctx) -> list[Line]:
    """How many units the player has and a few of them (not the ones kept out), rotating by turn."""
    t = c.t
    if not c.view.known:
        return []
    ids = sorted(c.ids("units") if "units" in c.inputs else [o.id for o in c.view.owned()])
    if not ids:
        return c.line(c.step.none_key)
    if c.inputs.get("none_only"):
        return []  # a fallback step: only "you have none" answers the turn
    shown = [u for u in ids if u not in t.excluded and u not in t.unsure] or ids
    by = c.inputs.get("by")
    if by and c.inputs.get("by_key"):
        # "What heroes do I even have?": all of them (but those kept out), by the attribute (role).
        groups: dict[str, list[str]] = {}
        for u in shown:
            entity = c.catalog.get(c.view.unit_kind, u)
            groups.setdefault(str(entity.value(by)) if entity is not None else "", []).append(u)
        comp = c.schema.composition
        quota = (
            comp.quota if comp is not None and comp.quota is not None and comp.quota.attribute == by else None
        )
        order = list(quota.counts) if quota is not None else []  # the quota's order: tank, damage, support
        ranked = sorted(groups, key=lambda v: (order.index(v) if v in order else len(order), v))
        said = "; ".join(f"{v.replace('_', ' ')}: {c.names(groups[v])}" for v in ranked if v)
        return c.line(c.inputs["by_key"], shown, count=len(ids), groups=said[:1].upper() + said[1:])
    some = rotate(t.fresh_first(shown) if t.alternative else shown, 0 if t.alternative else t.turn_index, 3)
    return c.line(c.step.key, some, count=len(ids), **{"@units": c.names(some)})


def _distance(c: _Ctx, group_id: str) -> tuple[int, int, str]:
    """How far the player is from fielding a group: the members they lack, then how many account
    levels the nearest to unlock still needs (Steady Fire lacking a level-11 hero is nearer than
    Anvil Front lacking a level-21 one), then the id."""
    view, state = c.view, c.t.state
    lacking = [u for u in view.members(group_id) if not view.owns(u)]
    gap = 0
    for uid in lacking:
        entity = c.catalog.get(view.unit_kind, uid)
        unlock = entity.value("unlock") if entity is not None else None
        gates = c.schema.kinds[view.unit_kind].gate
        for field, value in unlock.items() if isinstance(unlock, dict) else []:
            gate = gates.get(field)
            # (an account-wide gate: the unit's own level or tier does not apply to one not owned)
            have = (
                get_field(state, gate.state)
                if gate is not None and gate.state not in ("level", "tier")
                else None
            )
            if isinstance(value, int) and isinstance(have, int):
                gap += max(0, value - have)
    return len(lacking), gap, group_id


def _how_many(some: list[str], every: list[str]) -> int | str:
    """A count as said: "all 10" when it is every one ("you can't complete all 10 of the known comps")."""
    return f"all {len(some)}" if len(some) == len(every) else len(some)


def groups_fieldable(c: _Ctx) -> list[Line]:
    """A group the player can field with usable units, not the one the last reply gave (key); else
    the closest one and the units it lacks (none_key)."""
    view, group = c.view, c.view.group_kind
    if group is None:
        return []
    groups = c.ids("groups") if "groups" in c.inputs else list(c.catalog.entities.get(group, {}))
    fieldable = [g for g in groups if view.members(g) and all(c.usable(u) for u in view.members(g))]
    named = [g for g in c.t.lineups if g in groups]
    if len(named) == 1 and c.inputs.get("named_key") and named[0] not in fieldable:
        # "Could we run Steady Fire?": that one, and what of it the player lacks.
        lacking = [u for u in view.members(named[0]) if not c.usable(u)]
        return c.line(
            c.inputs["named_key"], [named[0]], **{"@group": c.name(named[0])}, missing=c.names(lacking)
        )
    fresh = [g for g in fieldable if g not in c.t.avoid]
    if c.inputs.get("missing_first") and c.inputs.get("missing_key"):
        # "Which lineups am I missing pieces for?": the ones the player cannot complete come first.
        lacking = [g for g in groups if any(not view.owns(u) for u in view.members(g))]
        if lacking:
            closest = min(lacking, key=lambda g: _distance(c, g))
            missing = [u for u in view.members(closest) if not view.owns(u)]
            return c.line(c.inputs["missing_key"], **{"@group": c.name(closest)}, missing=c.names(missing),
                          count=_how_many(lacking, groups))  # fmt: skip
    if fresh:
        gid = fresh[c.t.turn_index % len(fresh)]
        return c.line(c.step.key, [gid], **{"@group": c.name(gid)})
    incomplete = [g for g in groups if any(not view.owns(u) for u in view.members(g))]
    if not incomplete or fieldable:
        return []
    closest = min(incomplete, key=lambda g: _distance(c, g))
    missing = [u for u in view.members(closest) if not view.owns(u)]
    key = c.inputs.get("missing_key") if len(incomplete) > 1 and c.inputs.get("missing_key") else None
    return c.line(key or c.step.none_key, **{"@group": c.name(closest)}, missing=c.names(missing),
                  count=_how_many(incomplete, groups))  # fmt: skip


def rating(c: _Ctx) -> list[Line]:
    """A team's score and its weakest component (by its share of the component's maximum)."""
    score = c.get("score")
    if score is None:
        return []
    lines: list[Line] = []
    missing = c.ids("missing")
    if missing and c.inputs.get("missing_key"):  # a team named with units the player lacks: said first
        lines += c.line(c.inputs["missing_key"], missing, missing=c.names(missing))
    breakdown = c.get("breakdown") or {}
    maxima = c.get("max") or c.inputs.get("maxima") or {}
    words = c.inputs.get("words") or {}
    weakest = None
    if isinstance(breakdown, dict) and breakdown:
        key = min(breakdown, key=lambda k: (float(breakdown[k]) / float(maxima.get(k) or 1.0), k))
        weakest = words.get(key, key.replace("_", " "))
    edge = c.inputs.get("edge")
    if isinstance(edge, dict) and c.ids("opponent") and c.inputs.get("edge_key"):
        # Against an opponent: who has the edge, by the matchup component of the score.
        value = float(breakdown.get(edge["component"], edge.get("default", 0.0)) or 0.0)
        said = edge["words"]
        status = (
            said["high"] if value > edge["high"] else said["low"] if value < edge["low"] else said["even"]
        )
        return lines + c.line(c.inputs["edge_key"], [], score=score, status=status)
    units, where = c.ids("units"), c.ids("context")
    if len(units) == 1:
        return lines  # one unit is no team to rate ("if Sparkwing goes, who loses out")
    lead_key = c.inputs.get("lead_key")
    if lead_key and len(units) >= 2 and set(units) <= c.t.avoid:
        # The last reply named this team already: naming it again reads as the same advice twice.
        return lines + c.line(lead_key, [], score=score, weakest=weakest, **{"@unit": c.name(units[0])})
    return lines + c.line(c.step.key, [], score=score, weakest=weakest, **{"@units": c.names(units) or None},
                          **{"@context": c.name(where[0]) if where else None})  # fmt: skip


# "My fox keeps dying to the turtle, help", "... what do I do": what to do about it, not only why.
_ASKS_HELP = re.compile(
    r"\bhelp\b|\bwhat\s+(?:do|should|can)\s+(?:i|we)\s+do\b|\bany\s+(?:tips?|advice|ideas?)\b|\bfix\s+(?:it|this|that)\b",
    re.IGNORECASE,
)


def _instead(c: _Ctx, m: Matchup, uid: str, foes: list[str]) -> list[Line]:
    """The player's usable unit that beats the foe hitting `uid` hardest, to bring in its place
    (instead_key, with the replaced one as {other})."""
    key = c.inputs.get("instead_key")
    foe = max(foes, key=lambda f: (multiplier(c.catalog, m, f, uid), -foes.index(f)), default=None)
    if not key or foe is None or multiplier(c.catalog, m, foe, uid) <= m.default:
        return []  # (none of them hits it hard: no matchup to swap out of)
    best = [u for u in c.t.fresh_first(sorted(o.id for o in c.view.owned())) if u != uid and c.usable(u)]
    best = [u for u in best if multiplier(c.catalog, m, u, foe) > m.default]
    if not best:
        return []
    pick = max(best, key=lambda u: (multiplier(c.catalog, m, u, foe), c.power(u)))
    return c._line(key, [pick], True, {**_counter_values(c, m, pick, foe), "other": c.name(uid)})  # a pick


def matchup_status(c: _Ctx) -> list[Line]:
    """How the unit fares against a foe (or on a context entity) by the matchup, in its words;
    an even matchup is the none_key."""
    m, units = _matchup(c), c.ids("unit")
    if m is None or not units:
        return []
    uid = units[0]
    others = c.ids_but("against", uid)
    theirs = c.view.opponent_side()
    between_units = m.between[1] == c.view.unit_kind
    types = c.ids("types") if m.attribute is not None else []
    if types and uid in theirs and not c.view.owns(uid) and not [o for o in others if o in c.t.mentioned]:
        # "Does wind do anything against Voltail?": the type the player named against that unit.
        status = _words(m, _type_mult(c, m, types[0], _value(c, m.between[1], uid, m.attribute)))
        values = {str(m.attribute): c.name(types[0]), "@unit": c.name(uid)}
        return c.line(c.inputs.get("type_key"), [], **values, status=status) if status else []
    if _asks_what_it_beats(c, uid):
        return _hits(c, m, uid)  # "what does Voltail beat?": what it beats, though it is theirs
    if (
        between_units
        and uid in theirs
        and not c.view.owns(uid)
        and not [o for o in others if o in c.t.mentioned]
    ):
        if not _HOW_STRONG.search(c.t.utterance) or not c.view.player_side():
            return []  # "which of mine beat Voltail?": a counter question (the next step's)
        # "How strong is their electric guy": how it fares against the player's side
        others = [u for u in c.view.player_side() if u != uid]
    mine = [o for o in others if o in c.t.mentioned and c.view.owns(o) and o not in theirs]
    if between_units and uid in theirs and not c.view.owns(uid) and mine:
        attacker = uid
        uid, others = mine[0], [uid]  # "better against Briarcat, Emberfox?": how the player's unit fares
        if c.inputs.get("taken_key") and _attacks(c, uid):
            # "Could Briarcat one-shot my fox?": their unit's attacks on the player's, not the reverse.
            mult = multiplier(c.catalog, m, attacker, uid)
            axis = _axis_values(c, m, attacker, uid)
            return _edge_verdict(c, m, uid, others, threat=True) + c.line(
                c.inputs["taken_key"], [uid], **{"@unit": c.name(uid)}, foe=c.name(attacker),
                status=_words(m, mult), **axis,
            )  # fmt: skip
    if any(o in theirs for o in others):
        others = [o for o in others if o in theirs]  # "Galehawk or Granitusk against Voltail"
    if others and c.view.owns(uid) and c.inputs.get("taken_key") and _attacks(c, uid):
        # "Voltail is gonna wreck Sparkwing", "does anything of theirs hit my Tidefang hard": theirs
        # attacking the player's, not the reverse; against several, every one that hits it hard.
        lines = _edge_verdict(c, m, uid, others, threat=True) + _taken_lines(c, m, uid, others, asked=True)
        # (asked for help, or the trouble told: "my fox is getting wrecked by it" wants the fix too)
        # (a "why" wants the cause alone)
        told = TAKING_HITS.search(normalise(c.t.utterance)) and not re.search(r"\bwhy\b", c.t.utterance, re.I)
        trouble = _ASKS_HELP.search(c.t.utterance) or told
        return lines + (_instead(c, m, uid, others) if trouble else [])
    if not others or _GOOD_FOR.search(c.t.utterance):
        return _hits(c, m, uid)  # "what's Tidefang good against?": what it beats, no one named
    # Against several (their side), the one it fares best against is the useful fact.
    other = max(others, key=lambda o: (multiplier(c.catalog, m, uid, o), -others.index(o)))
    mult = multiplier(c.catalog, m, uid, other)
    kind = c.schema.kinds.get(m.between[1])
    where = (
        {"@context": c.name(other)} if kind is not None and kind.role == "context" else {"foe": c.name(other)}
    )
    key = c.step.none_key if mult == m.default and c.step.none_key else c.step.key
    axis = _axis_values(c, m, uid, other) if "foe" in where else {}  # "fire against grass": why
    worst = min(others, key=lambda o: (multiplier(c.catalog, m, uid, o), others.index(o)))
    if (
        len(others) > 1
        and mult == m.default
        and "foe" in where
        and multiplier(c.catalog, m, uid, worst) < mult
    ):
        # "Is Tidefang any good?": even at best, resisted by others: the resisted one says more.
        other, mult = worst, multiplier(c.catalog, m, uid, worst)
        where, axis = {"foe": c.name(other)}, _axis_values(c, m, uid, other)
    if (
        "@context" in where
        and mult != m.default
        and c.inputs.get("why_key")
        and "why" in shapes(c.t.utterance)
    ):
        # "Why is Renzo bad on the Docks": the unit and the place in the pack's own words, side by side
        reasons = _fit_reasons(c, uid, other)
        key, axis = (c.inputs["why_key"], reasons) if reasons else (key, axis)
    verdict = _edge_verdict(c, m, uid, others, threat=False) if "foe" in where else []
    if len(others) > 1 and mult == m.default and c.inputs.get("even_all_key") and "foe" in where:
        # "Is Hexmoth any good in this one" and it is even with all of them: that, not one of them
        # named as if it were the best.
        line = c.line(
            c.inputs["even_all_key"], [uid], **{"@unit": c.name(uid)}, status=_words(m, mult),
            foes=spoken_list([c.name(o) for o in others]),
        )  # fmt: skip
    else:
        line = c.line(key, [uid], **{"@unit": c.name(uid)}, status=_words(m, mult), **where, **axis)
    strength = _strength(c, uid)
    line = verdict + strength + line
    if "foe" not in where or not c.view.owns(uid):
        return line
    rival = next(
        (o for o in c.t.mentioned if o not in (uid, other) and o not in theirs and c.view.owns(o)), None
    )
    if rival is not None and len(others) == 1 and _BETTER_THAN.search(c.t.utterance):
        # "Is Emberfox better than Granitusk against Voltail": the other one's matchup, side by side
        out = line + c.line(
            c.step.key, [rival], **{"@unit": c.name(rival)}, foe=c.name(other),
            status=_words(m, multiplier(c.catalog, m, rival, other)), **_axis_values(c, m, rival, other),
        )  # fmt: skip
        return out
    # The other way round, for the player's own unit: "Is Tidefang usable right now?" is its best
    # matchup and the one of theirs that hits it hard; "how does Emberfox do against Shellbastion"
    # is what it deals and what it takes; against their whole side with no one hitting it hard, that.
    if c.inputs.get("taken_key"):
        line += _taken_lines(
            c, m, uid, others, asked=len(others) == 1 and mult == m.default
        )  # even: both ways
        even, safe, both = (c.inputs.get(k) for k in ("even_all_key", "safe_key", "even_both_key"))
        if both and {even, safe} <= {x.key for x in line}:
            # "X counters none of their five. None of their five counters your X.": one sentence
            at = next(i for i, x in enumerate(line) if x.key == even)
            kept = [x for x in line if x.key not in (even, safe)]
            foes = spoken_list([c.name(o) for o in others])
            both_line = c.line(both, [uid], **{"@unit": c.name(uid)}, status=_words(m, mult), foes=foes)
            line = kept[:at] + both_line + kept[at:]
    if (
        len(others) == 1
        and mult >= m.default
        and multiplier(c.catalog, m, other, uid) <= m.default
        and c.inputs.get("not_type_key")
        and _KEEPS_LOSING.search(normalise(c.t.utterance))
        and not re.search(r"\b(?:will|gonna|going\s+to|would|could)\b", c.t.utterance, re.IGNORECASE)
    ):
        # "My Galehawk keeps losing to their Briarcat, why?" when the matchup is the player's: the
        # cause is something the data does not show, said as such rather than left to guess.
        line += c.line(c.inputs["not_type_key"], [uid], **{"@unit": c.name(uid)}, foe=c.name(other))
    return line + (_underlevelled(c, uid) if mult > m.default and not strength else [])


_BETTER_THAN = re.compile(r"\b(?:better|stronger|worse)\s+than\b|\binstead\s+of\b", re.IGNORECASE)


_HOW_STRONG = re.compile(r"\bhow\s+(?:strong|good|tough|powerful|solid)\b", re.IGNORECASE)
_RANKS = (
    "the highest",
    *(f"the {n} highest" for n in "second third fourth fifth sixth seventh eighth ninth".split()),
)


def _strength(c: _Ctx, uid: str) -> list[Line]:
    """ "How strong is my moth": where its level stands on the player's roster (strength_key), before
    how it fares against their side."""
    owned = c.view.unit(uid)
    if owned is None or not c.inputs.get("strength_key") or not _HOW_STRONG.search(c.t.utterance):
        return []
    if re.search(r"\b(?:against|vs|versus|into)\b", c.t.utterance, re.IGNORECASE):
        return []  # "how good is Emberfox against Briarcat": that matchup, not its place on the roster
    levels = sorted((o.level for o in c.view.owned()), reverse=True)
    place = levels.index(owned.level)
    if place and place == len(levels) - 1:
        rank = "the lowest"
    else:
        rank = _RANKS[place] if place < len(_RANKS) else f"number {place + 1}"
    return c.naming(c.inputs["strength_key"], [], **{"@unit": c.name(uid)}, level=owned.level, rank=rank,
                    count=len(levels))  # fmt: skip


_THREAT_WORDS = re.compile(
    r"\b(?:problem|threat|trouble|danger|dangerous|worry|worried|scared|afraid|done\s+for|doomed|screwed|toast|"
    r"lose|losing|get\s+(?:destroyed|wrecked|crushed|smoked))\b",
    re.IGNORECASE,
)


def _edge_verdict(c: _Ctx, m: Matchup, uid: str, others: list[str], threat: bool) -> list[Line]:
    """Yes or no first when the player asks it of one of theirs against their own unit: does theirs
    threaten it (the threat words; `threat`: an attack asked of, said only with them), or does the
    player's win. By who hits the other harder (edge_key: the player's; foe_edge_key: theirs;
    even_key: neither)."""
    # (or "who wins": the same edge, its yes or no dropped for a question that asks who)
    asked = "yes_no" in shapes(c.t.utterance) or WHO_WINS.search(c.t.utterance) is not None
    if len(others) != 1 or not c.view.owns(uid) or not asked:
        return []
    if m.between[0] != m.between[1] or not c.inputs.get("edge_key"):
        return []
    worded = _THREAT_WORDS.search(c.t.utterance) is not None
    if threat and not worded:
        return []  # "could Shellbastion one-shot my fox": who has the edge is not a yes to that
    foe = others[0]
    mine, theirs = multiplier(c.catalog, m, uid, foe), multiplier(c.catalog, m, foe, uid)
    # "is the fox bad against it", "should I keep the fox away from it": yes, theirs wins; "isn't
    # electric supposed to wreck wind": the one said to win is theirs
    said = _said_to_win(c, m, uid, foe)
    threat = (
        said
        if said is not None
        else worded
        or ASKED_BAD.search(c.t.utterance) is not None
        or _KEEP_AWAY.search(c.t.utterance) is not None
    )
    values = {"@unit": c.name(uid), "foe": c.name(foe)}
    if mine == theirs:
        return c.naming(c.inputs.get("even_key"), [], **values)
    answer = "Yes" if (theirs > mine) == threat else "No"
    return c.naming(c.inputs["edge_key"] if mine > theirs else c.inputs.get("foe_edge_key"), [], **values,
                    answer=answer)  # fmt: skip


_KEEP_BEFORE = re.compile(r"\b(?:keep|keeping|leave)\s+(?:my\s+)?$", re.IGNORECASE)
_BEATING_VERB = re.compile(
    r"\b(?:wreck|wrecks|destroy|destroys|beat|beats|counter|counters|crush|crushes|smoke|smokes|stomp|stomps)\b",
    re.I,
)


def _said_to_win(c: _Ctx, m: Matchup, uid: str, foe: str) -> bool | None:
    """Whether the question puts theirs as the one that wins ("isn't electric supposed to wreck wind",
    "does Voltail beat my hawk"): True for theirs, False for the player's, None when no such verb has
    one of the two (or its type) before it."""
    verb = _BEATING_VERB.search(c.t.utterance)
    if verb is None:
        return None
    before = [x for x in link_entities(c.t.pack, c.t.utterance) if x.span[1] <= verb.start()]
    if not before:
        return None

    def names(said: str, who: str) -> bool:
        if said == who:
            return True
        entity = c.catalog.get(m.between[0], who) if m.attribute is not None else None
        return entity is not None and str(entity.value(m.attribute or "")) == said

    if names(before[-1].id, foe):
        return True
    return False if names(before[-1].id, uid) else None


# "Keep the fox away from it", "should I avoid their turtle" (English cue words): asked as a danger.
_KEEP_AWAY = re.compile(
    r"\b(?:keep\s+(?:\w+\s+){1,3}?(?:away|clear)\s+from|stay\s+(?:away|clear)\s+from|steer\s+clear\s+of|avoid|dodge)\b",
    re.IGNORECASE,
)
# "Keeps losing to", "dies to", "getting wrecked by" (English cue words): a matchup the player loses.
_KEEPS_LOSING = re.compile(
    r"\b(?:losing|loses|lost|lose|dying|dies|died|die|getting\s+(?:\w+ed|beat|smoked))\s+(?:to|against|vs|by)\b"
)


def _taken_lines(c: _Ctx, m: Matchup, uid: str, others: list[str], asked: bool = False) -> list[Line]:
    """What the foes deal to the player's unit: against one, how it hits (even, only when `asked`);
    against several, each that hits harder than normal (naming one of two is a half answer), else
    safe_key."""
    worst = max(multiplier(c.catalog, m, o, uid) for o in others)
    hard = [o for o in others if multiplier(c.catalog, m, o, uid) == worst]

    def taken(foe: str) -> list[Line]:
        return c.line(c.inputs["taken_key"], [uid], **{"@unit": c.name(uid)}, foe=c.name(foe),
                      status=_words(m, worst), **_axis_values(c, m, foe, uid))  # fmt: skip

    if len(others) == 1 and worst != m.default or len(others) > 1 and worst > m.default:
        # (one an earlier line already said beats it, with no type to give the reason: said once,
        # not "their Nadira counters your Elowen ... Nadira is a soft counter to your Elowen")
        said = {o for o in hard if m.attribute is None and any({o, uid} <= line.covers for line in c.t.lines)}
        return [line for foe in hard[:2] if foe not in said for line in taken(foe)]
    if len(others) > 1 and c.inputs.get("safe_key"):
        return c.line(c.inputs["safe_key"], [uid], **{"@unit": c.name(uid)})
    if len(others) == 1 and asked:  # "will Voltail wreck my Sparkwing", an even matchup: said as even
        return taken(others[0])
    return []


# "Could Briarcat one-shot my fox", "will their cat wreck my bird": the opponent's unit as the subject
# of an attack on the player's (English cue words).
_ATTACK_VERBS = r"\b(?:one[\s-]?shot|kill|beat|hurt|wreck|destroy|smoke|counter|handle|outdamage|hit)s?\b"
_THEIRS_ATTACKS = re.compile(rf"{_ATTACK_VERBS}(?:\s+\w+){{0,2}}?\s+(?:my|our)\b", re.IGNORECASE)


def _attacks(c: _Ctx, target: str) -> bool:
    """ "Voltail is gonna wreck Sparkwing", "could Briarcat one-shot my fox", "why is my fox taking
    so much damage": an attack on `target`."""
    name = r"\s+".join(map(re.escape, c.name(target).split()))
    return (
        _THEIRS_ATTACKS.search(c.t.utterance) is not None
        or TAKING_HITS.search(normalise(c.t.utterance)) is not None
        or re.search(rf"{_ATTACK_VERBS}(?:\s+\w+){{0,2}}?\s+{name}\b", c.t.utterance, re.IGNORECASE)
        is not None
    )


# "What's Tidefang good against?", "what is it strong for then": no object after the preposition.
_GOOD_FOR = re.compile(
    r"\bwhat(?:s|'s)?\b.*\b(?:good|strong|great|useful|best)\s+(?:for|against|into)"
    r"(?:\s+(?:then|though|anyway|now))?\W*$",
    re.IGNORECASE,
)


def _asks_what_it_beats(c: _Ctx, uid: str) -> bool:
    """ "What does Voltail beat?", "what's their cat strong against": the unit named is the attacker
    (English cue words), asked of its targets, not of its counters."""
    name = r"\s+".join(map(re.escape, c.name(uid).split()))
    return (
        _GOOD_FOR.search(c.t.utterance) is not None
        or re.search(
            rf"\bwhat\s+(?:does|do|can|will|would|could)\s+(?:their\s+|the\s+|my\s+)?{name}\s+(?:\w+\s+)?"
            r"(?:beat|counter|hit\s+hard|destroy|wreck|do\s+well\s+against)\b",
            c.t.utterance,
            re.I,
        )
        is not None
    )


def _types(c: _Ctx, m: Matchup) -> list[str]:
    """The type kind's ids an attribute matchup is over (pet: the elements), in catalog order."""
    if m.attribute is None:
        return []
    spec = c.schema.kinds[m.between[0]].attributes.get(m.attribute)
    kind = spec.values if spec is not None and isinstance(spec.values, str) else None
    return list(c.catalog.entities.get(kind, {})) if kind in c.schema.kinds else []


def _type_mult(c: _Ctx, m: Matchup, a: Any, b: Any) -> float:
    """The matchup's multiplier between two values of its attribute."""
    return value_multiplier(c.catalog, m, a, b)


def _value(c: _Ctx, kind: str, entity_id: str, attribute: str | None) -> Any:
    entity = c.catalog.get(kind, entity_id)
    return entity.value(attribute) if entity is not None and attribute else None


def _hits(c: _Ctx, m: Matchup, uid: str) -> list[Line]:
    """No one to match the unit against: the values of the matchup's attribute it beats (hits_key:
    "its fire attacks deal double damage to grass and shadow")."""
    mine = _value(c, m.between[0], uid, m.attribute)
    beaten = [d for d in _types(c, m) if _type_mult(c, m, mine, d) > m.default]
    if mine is None or not beaten:
        return []
    return c.line(c.inputs.get("hits_key"), [], **{"@unit": c.name(uid), "@types": c.names(beaten)},
                  **{str(m.attribute): c.name(str(mine))})  # fmt: skip


# "What does shadow beat?": the type is the attacker (English cue words, as the slot rules').
# "Who's bad on this map?", "who should I avoid here": the worst fits, not the best.
_WORST = re.compile(
    r"\b(?:bad|worst|weak|weakest|poor|avoid|struggles?|suffers?|useless|terrible)\b", re.IGNORECASE
)
# "What is my team weak to?", "what threatens my lineup": the side hit, not the side hitting.
_DEFENDS = re.compile(
    r"\bweak\s+(?:to|against)\b|\bvulnerable\b|\bthreatens\b|\bhurts?\s+(?:us|me|my)\b", re.I
)
_ATTACKS = (
    r"beats?|counters?|hits?|is\s+(?:good|strong|great)\s+(?:against|vs|into)|(?:good|strong)\s+against"
)


# "Who takes the least from fire", "who's safest against water attacks", "what resists grass": the
# player's units that a type hits softest, not the types that beat it (English cue words).
_RESISTS = re.compile(
    r"\b(?:takes?|taking)\s+(?:the\s+)?(?:least|less|little|half|lowest|smallest|no)\b|\bsafe(?:st|r)?\b|"
    r"\bresist(?:s|ant|ance)?\b|\b(?:tanks?|survives?|soaks?|shrugs?\s+off)\b|\bholds?\s+up\b|"
    r"\bstands?\s+up\s+to\b|\bnot\s+weak\s+to\b|\bdoesn'?t\s+mind\b",
    re.I,
)


def _resisting(c: _Ctx, m: Matchup, kind: str) -> list[Line]:
    """The player's usable units `kind`'s attacks hit softest (resist_key: below the default, said
    with the matchup's word; resist_none_key: none resists it, those it hits no harder than the
    default). On their team only when the player says so ("who on my team")."""
    mine = [u.id for u in c.view.owned() if c.usable(u.id)]
    side = c.view.player_side()
    if side and re.search(
        rf"\b(?:on|in)\s+(?:my|our)\s+(?:current\s+)?(?:{team_words(c.t.pack)})\b", c.t.utterance, re.I
    ):
        mine = [u for u in mine if u in side]
    taken = {u: _type_mult(c, m, kind, _value(c, m.between[1], u, m.attribute)) for u in mine}
    if not taken:
        return []
    least = min(taken.values())
    # The fielded ones first, then the strongest: whom the player can lean on now.
    units = sorted([u for u, x in taken.items() if x == least], key=lambda u: (u not in side, -c.power(u)))[
        :3
    ]
    # "What resists grass": the types first ("Fire and wind resist grass"), then the player's units
    every = [t for k in c.schema.kinds_of("type") for t in c.catalog.entities.get(k, {})]
    resist = [t for t in every if _type_mult(c, m, kind, t) < m.default]
    values = {str(m.attribute): c.name(kind), "@units": c.names(units), "status": _words(m, least),
              "@types": c.names(resist) or None}  # fmt: skip
    key = c.inputs.get("resist_key") if least < m.default else c.inputs.get("resist_none_key")
    return c.line(key, units, **values)


def type_counters(c: _Ctx) -> list[Line]:
    """ "What beats water?": the types that beat it by the matchup, and the player's two strongest
    usable units of those types ("Electric and grass hit water for double damage: of yours,
    Sparkwing or Oakhorn"); none_key when they own none of them. resist_key: "who takes the least
    from water" (`_resisting`)."""
    m, named = _matchup(c), c.ids("types")
    if m is None or not named:
        return []
    if c.inputs.get("resist_key") and _RESISTS.search(c.t.utterance):
        return _resisting(c, m, named[0])
    foe = named[0]
    said = re.escape(c.name(foe))
    # "what's weak to fire?", "what are light types good against"
    attacks = rf"\b{said}(?:\s+\w+)?(?:\s+are)?\s+(?:{_ATTACKS})\b|\bweak\s+(?:to|against)\s+{said}\b"
    if c.inputs.get("beats_key") and re.search(attacks, c.t.utterance, re.I):
        beaten = [d for d in _types(c, m) if _type_mult(c, m, foe, d) > m.default]
        values = {"@types": c.names(beaten), str(m.attribute): c.name(foe)}
        side = c.view.opponent_side()
        if side and c.inputs.get("theirs_key") and THEIR_SIDE.search(c.t.utterance):
            # "Who's weak to fire on their side": the ones of theirs, not the chart.
            hit = [f for f in side if _value(c, m.between[1], f, m.attribute) in beaten]
            key = c.inputs["theirs_key"] if hit else c.inputs.get("theirs_none_key")
            return c.naming(key, [], **values, foes=c.names(hit) or None)
        return c.line(c.inputs["beats_key"], [], **values) if beaten else []
    beaters = [d for d in _types(c, m) if _type_mult(c, m, d, foe) > m.default]
    if not beaters:
        return []
    units = [
        u.id for u in c.view.owned()
        if _value(c, m.between[0], u.id, m.attribute) in beaters and c.usable(u.id)
    ]  # fmt: skip
    units = sorted(dict.fromkeys(units), key=c.power, reverse=True)[:2]
    # The types in the order of the units said after them ("earth and water: Granitusk and Tidefang").
    theirs = [_value(c, m.between[0], u, m.attribute) for u in units]
    beaters.sort(key=lambda d: theirs.index(d) if d in theirs else len(theirs))
    values = {"@types": c.names(beaters), str(m.attribute): c.name(foe)}
    if not units:
        return c.naming(c.step.none_key, [], **values)
    return c.line(c.step.key, units, **values, **{"@units": c.names(units)})


def type_hits(c: _Ctx) -> list[Line]:
    """ "Does wind do anything against their team?": the foes the type beats by the matchup, and the
    player's two strongest usable units of it; none_key when it beats none of them."""
    m, named, foes = _matchup(c), c.ids("types"), c.ids("foes")
    if m is not None and len(named) >= 2 and c.inputs.get("vs_key"):
        # "Is water good against fire?": the chart itself, both ways ("or is it the other way
        # round?"); a claim put to the coach ("my mate says fire is weak to earth, true?") gets
        # its verdict first (claim_key / claim_wrong_key).
        a, b = named[:2]
        status, back = _words(m, _type_mult(c, m, a, b)), _words(m, _type_mult(c, m, b, a))
        values = {str(m.attribute): c.name(a), f"foe_{m.attribute}": c.name(b)}
        if not status:
            return []
        verdict = _claim_verdict(c, m, a, b)
        return verdict + c.line(c.inputs["vs_key"], [], **values, status=status, back_status=back)
    if m is not None and named and c.inputs.get("resist_key") and _RESISTS.search(c.t.utterance):
        return _resisting(c, m, named[0])
    if m is None or not named or not foes:
        return []
    kind = named[0]
    hit = [f for f in foes if _type_mult(c, m, kind, _value(c, m.between[1], f, m.attribute)) > m.default]
    values = {str(m.attribute): c.name(kind)}
    if not hit:
        return c.naming(c.step.none_key, [], **values)
    units = [
        u.id for u in c.view.owned() if _value(c, m.between[0], u.id, m.attribute) == kind and c.usable(u.id)
    ]
    units = sorted(dict.fromkeys(units), key=c.power, reverse=True)[:2]
    key = c.step.key if units else c.inputs.get("unowned_key") or c.step.key
    return c.line(key, units, foes=c.names(hit), **values, **{"@units": c.names(units) or None})


# "Is that true", "right?", "my mate says ...": a claim the player wants checked (English cue words).
_CLAIM = re.compile(
    r"\b(?:true|right|correct|accurate|legit|really|(?:says?|said|told\s+me|heard|reckons?|thinks?)\s+(?:that\s+)?\w+)\b"
)
_WEAK_TO = re.compile(r"\b(?:weak|vulnerable)\s+(?:to|against|vs)\b|\b(?:loses?|losing)\s+to\b")
_STRONG = re.compile(r"\b(?:beats?|strong|good|great|counters?|destroys?|wrecks?|double|super\s+effective)\b")


def _verdict(c: _Ctx, holds: bool) -> list[Line]:
    """Yes or no first, when the player puts a claim to the coach ("my mate says ..., true?"):
    claim_key when it `holds`, else claim_wrong_key; nothing when no claim was put."""
    if not _CLAIM.search(normalise(c.t.utterance)) or not c.inputs.get("claim_key"):
        return []
    return c.line(c.inputs["claim_key"] if holds else c.inputs.get("claim_wrong_key"))


def _claim_verdict(c: _Ctx, m: Matchup, a: str, b: str) -> list[Line]:
    """The verdict on a claim about the chart: "fire is weak to earth" holds when earth beats fire,
    "grass beats earth" when grass beats earth."""
    said = normalise(c.t.utterance)
    if _WEAK_TO.search(said):
        return _verdict(c, _type_mult(c, m, b, a) > m.default)
    if _STRONG.search(said):
        return _verdict(c, _type_mult(c, m, a, b) > m.default)
    return []


def weak_to(c: _Ctx) -> list[Line]:
    """ "What's Granitusk weak to?": the types that beat the unit; of the player's own, with a foe of
    one of those types to watch (foe_key). Of theirs (or one the player lacks: "what's the turtle
    weak to"), the weakness alone, and only in a step marked `also`: the next step picks the counter."""
    m, units = _matchup(c), c.ids("unit")
    if m is None or not units or units[0] in c.t.choice:
        return []  # "Lumifawn or Hexmoth against Voltail?": a pick among them
    uid = units[0]
    own = c.view.owns(uid) and uid not in c.view.opponent_side() and uid not in c.t.opponents
    if not own and not c.step.also:
        return []  # theirs, and no pick said after this step: the next step's (a counter) alone
    mine = _value(c, m.between[0], uid, m.attribute)
    beaten_by = [d for d in _types(c, m) if _type_mult(c, m, d, mine) > m.default]
    if mine is None or not beaten_by:
        return []
    values = {"@unit": c.name(uid), "@types": c.names(beaten_by), str(m.attribute): c.name(str(mine))}
    foes = [f for f in c.ids("foes") if _value(c, m.between[1], f, m.attribute) in beaten_by]
    if own and foes and c.inputs.get("foe_key"):
        # every one of theirs of those types: "watch their Briarcat and Shellbastion"
        return c.naming(c.inputs["foe_key"], [], **values, foe=spoken_list([c.name(f) for f in foes]))
    return c.naming(c.step.key, [], **values)


def _spoken(c: _Ctx, value: Any) -> Any:
    if isinstance(value, list):
        return spoken_list([c.name(v) if isinstance(v, str) else str(v) for v in value]) or None
    if isinstance(value, dict):
        return value.get("name") or value.get("id")
    return value


def _asks_level(c: _Ctx) -> bool:
    """Does the player ask where their unit stands (the step's `level_words`: "what level is
    Galehawk", "what stage is my fox at")?"""
    said = c.inputs.get("level_words") or []
    return (
        bool(said)
        and re.search(rf"\b(?:{'|'.join(map(re.escape, said))})\b", c.t.utterance, re.I) is not None
    )


# "The strongest creature in the whole game", "best hero overall": the catalog's, not the roster's.
_IN_THE_GAME = re.compile(
    r"\b(?:strongest|best|most\s+powerful|top|hardest\s+hitting)\b.*\b(?:in\s+the\s+(?:whole\s+|entire\s+)?game|"
    r"of\s+all(?:\s+time)?|overall|in\s+existence|there\s+is)\b",
    re.IGNORECASE,
)


def catalog_top(c: _Ctx) -> list[Line]:
    """ "What's the strongest creature in the whole game?": the unit kind's top by its first numeric
    attribute (power) in the catalog, with whether the player owns it. Only when asked of the game."""
    if not _IN_THE_GAME.search(c.t.utterance):
        return []
    kind = c.view.unit_kind
    power = c.schema.kinds[kind].number
    units = list(c.catalog.entities.get(kind, {}))
    d = describer(c.t.pack)
    said = [w for w in re.findall(r"[a-z]+", c.t.utterance.lower()) if w in d.valued]  # "tank", "water"
    units = [u for u in units if all(w in d.words.get(u, ()) for w in said)]
    if power is None or not units:
        return []
    top = max(units, key=lambda u: (_value(c, kind, u, power) or 0, -units.index(u)))
    owned = c.view.known and c.view.owns(top)
    key = c.step.key if owned or not c.inputs.get("unowned_key") else c.inputs["unowned_key"]
    # "the strongest damage hero", "the strongest water pet": the kind's words, then its noun
    what = " ".join([*said, c.schema.kinds[kind].nouns[0].lower()])
    return c.naming(key, [top], **{"@unit": c.name(top)}, value=_value(c, kind, top, power), what=what)


def fact(c: _Ctx) -> list[Line]:
    """A template filled from selectors (`values`) and an entity's catalog fields (its kind's name,
    its attributes, names for the ids it lists): catalog facts and tool facts, never a claim about
    what the player has. Nothing when the player asks only where their unit stands (`level_words`):
    the ownership step answers that."""
    ids = c.ids("entity")
    if _asks_level(c) and ids and c.view.owns(ids[0]):
        return []
    asks = c.inputs.get("asks")
    if asks and not re.search(str(asks), c.t.utterance, re.I):
        return []  # the step answers only the question its cue words ask ("what's X about")
    values: dict[str, Any] = {}
    for placeholder, selector in (c.inputs.get("values") or {}).items():
        values[placeholder] = _spoken(c, c.first(selector))
    ids = c.ids("entity")
    key = c.step.key
    if ids:
        kind = c.inputs.get("kind") or c.catalog.kind_of(ids[0])
        entity = c.catalog.get(kind, ids[0]) if kind else None
        if entity is None:
            return []
        if c.inputs.get("usable_only"):
            if not c.view.option_usable(ids[0]):
                return []  # a tip for using an option the player cannot use yet: the next step says why
            # It judges the option usable on the units that have it: W2's praise of them is said.
            ids = [ids[0], *(u for u in c.view.learners(ids[0]) if c.view.option_usable(ids[0], u))]
        if c.inputs.get("key_by"):
            key = f"{key}_{entity.value(c.inputs['key_by'])}"  # one template per value ("tip_attack")
        values[kind] = entity.display  # type: ignore[index]
        attributes = c.schema.kinds[kind].attributes  # type: ignore[index]
        for field, value in entity.model_dump(exclude={"id", "name"}).items():
            refers = attributes.get(field)
            kind_ref = refers.values if refers is not None and isinstance(refers.values, str) else None
            if isinstance(value, str) and kind_ref in c.schema.kinds:
                values.setdefault(field, c.name(value))  # an item's `hero`: said as the hero's name
            elif isinstance(value, (str, int, float, list)):
                values.setdefault(field, _spoken(c, value))
        role = entity.value("role")
        if isinstance(role, str) and role in c.t.pack.vocabulary.roles:
            values["role_summary"] = c.t.pack.vocabulary.roles[role].summary
    elif "entity" in c.inputs:
        return []  # the entity it is about selects nothing: the next step, or what is missing
    return c.line(key, ids if c.inputs.get("usable_only") else ids[:1], **values)


def quota(c: _Ctx) -> list[Line]:
    """The role the team lacks by the composition's quota (key), or that none is missing (none_key)."""
    missing = c.get("missing")
    if missing is None and "missing" in c.inputs and isinstance(c._one(c.inputs["missing"]), dict):
        missing = {}  # selected, and empty: nothing is missing
    if not isinstance(missing, dict):
        return []
    asked = _asked_count(c)
    if asked is not None and c.inputs.get("rule_key"):
        # "Can I run two tanks": the quota itself, yes or no, not whether the team keeps it now.
        role, count, needed = asked
        counts = (
            c.schema.composition.quota.counts if c.schema.composition and c.schema.composition.quota else {}
        )
        rule = spoken_list([f"{_NUMBER_SAID.get(n, str(n))} {r}" for r, n in counts.items()])
        key = c.inputs.get("rule_yes_key") if count == needed else None
        key = key or c.inputs["rule_key"]
        return c.line(key, [], rule=f"{rule} {c.schema.plural(c.view.unit_kind)}", role=role)
    if not missing:
        return c.line(c.step.none_key)
    role, count = next(iter(missing.items()))
    comp = c.schema.composition
    attribute = comp.quota.attribute if comp is not None and comp.quota is not None else "role"
    return c.line(c.step.key, [], **{"role": role, "count": count, attribute: role})


_NUMBERS = {"no": 0, "zero": 0, "one": 1, "single": 1, "two": 2, "double": 2, "both": 2, "three": 3,
            "triple": 3, "four": 4, "five": 5}  # fmt: skip
_NUMBER_SAID = {
    n: w for w, n in reversed(_NUMBERS.items()) if w not in ("no", "single", "double", "both", "triple")
}


def _asked_count(c: _Ctx) -> tuple[str, int, int] | None:
    """ "Two tanks", "no healer", "3 supports": (the role, the count asked, the count the quota
    sets), from the pack's role words; None when no count of a role is asked."""
    comp = c.schema.composition
    counts = comp.quota.counts if comp is not None and comp.quota is not None else {}
    words = {w.lower(): role for role, r in c.t.pack.vocabulary.roles.items() for w in (role, *r.words)}
    for m in re.finditer(
        r"\b(no|zero|one|single|two|double|both|three|triple|four|five|[0-5])\s+([a-z]+?)s?\b",
        c.t.utterance,
        re.I,
    ):
        role = words.get(m.group(2).lower())
        if role in counts:
            said = m.group(1).lower()
            return role, int(said) if said.isdigit() else _NUMBERS[said], counts[role]
    return None


def _fit(c: _Ctx) -> Matchup | None:
    """The step's unit x context matchup (`fit`: its name), else the schema's."""
    name = c.inputs.get("fit")
    found = next((m for m in c.schema.matchups if m.name == name), None)
    return found or c.schema.context_matchup()


# "Which map would my team be best on?", "where does our comp do best" (English cue words; the
# context kind's own nouns).
_BEST_WORDS = r"(?:best|better|good|great|strongest|suit\w*|fit\w*)"


def context_for_team(c: _Ctx) -> list[Line]:
    """Of the context kind's entities (strike_team: the maps), the one the team fits best by a unit x
    context matchup (the sum of its members' fit), with the members it favours there, and the one it
    fits worst (`other_@context`). Only when the utterance asks which of them (else the next step:
    the picks for the context the match is on)."""
    m, team = _matchup(c), c.ids("units")
    kind = c.schema.kinds.get(m.between[1]) if m is not None else None
    nouns = "|".join(re.escape(n) + "s?" for n in kind.nouns) if kind is not None and kind.nouns else "(?!)"
    asks = re.search(
        rf"\b(?:which|what)\s+(?:{nouns})\b.*\b{_BEST_WORDS}\b|\bwhere\s+(?:would|does|do|is|are)\b.*\b{_BEST_WORDS}\b"
        rf"|\b(?:{_BEST_WORDS}|worst)\s+(?:{nouns})\s+(?:for|with)\b",  # "a good map for Renzo"
        c.t.utterance,
        re.IGNORECASE,
    )
    if m is None or asks is None:
        return []
    # The team asked about: the units the player names ("a good map for Renzo"), else the members
    # of a group they name ("my main team"), else the one in play.
    named = [u for u in c.t.mentioned if u not in c.t.opponents]
    grouped = [u for g in c.t.lineups for u in c.view.members(g)]
    saved = c.t.saved_said[1] if c.t.saved_said is not None else []
    team = named or saved or grouped or team
    if not team:
        return []
    c.t.saved_read = c.t.saved_read or (not named and bool(saved))
    places = list(c.catalog.entities.get(m.between[1], {}))
    if len(places) < 2:
        return []

    def fit(place: str) -> float:
        return sum(multiplier(c.catalog, m, u, place) for u in team)

    ranked = sorted(places, key=lambda p: (-fit(p), places.index(p)))
    best, worst = ranked[0], ranked[-1]
    if len(team) == 1 and c.inputs.get("unit_key"):
        # "A good map for Renzo": the one unit's best and worst, in its own words
        values = {"@context": c.name(best), "other_@context": c.name(worst), "@units": c.names(team)}
        return c.naming(c.inputs["unit_key"], team, **values)
    liked = [u for u in team if multiplier(c.catalog, m, u, best) > m.default]
    return c.naming(c.step.key, [*liked], **{"@context": c.name(best), "other_@context": c.name(worst)},
                    **{"@units": c.names(liked) or None})  # fmt: skip


# "Is Yarrow any good", "is my Sparkwing worth it here" (English cue words): a verdict is asked.
_ASKS_VERDICT = re.compile(
    r"(?:^|[.?!]\s)\W*(?:(?:so|ok|okay|and|but|hey|um|uh|well|wait|coach|then|honestly)\W+)*(?:is|are|would|will|does)\b.*"
    r"\b(?:any\s+good|any\s+use|good|decent|viable|worth\s+it|worth\s+\w+ing|useful|a\s+good\s+pick|strong|ok|"
    r"okay|pulling\s+(?:his|her|its|their)\s+weight|doing\s+(?:anything|well|much))\b"
    r"|\bshould\s+(?:i|we)\s+(?:just\s+)?(?:go|play|run|pick|bring|use|keep\s+(?:playing|running|using)|get|buy|"
    r"grab|unlock|chase|try\s+(?:and|to)\s+get|save\s+(?:up\s+)?for)\b"
    # "Tidefang sucks, doesn't it", "Oakhorn is good here right": a verdict put as a claim
    r"|\b(?:sucks?|(?:is|are)\s+(?:bad|trash|garbage|weak|useless|good|great|fine|decent|strong))\b.*"
    r"\b(?:does\s*n'?t|doesnt|is\s*n'?t|isnt|right|yeah)\s*(?:it|he|she|they)?\W*$"
    # "Tidefang any use here lol", "Fenwick into their barriers any good": the same, said short
    r"|^(?!\W*(?:\w+\W+){0,2}?(?:who|what|which|how|why|when|where)\b)"
    r".*\b(?:any\s+good|any\s+use|worth\s+it|worth\s+\w+ing|useful|viable|good\s+(?:here|now|pick|on|in|at|into|vs)|"
    r"yes\s+or\s+no|good\s+or\s+(?:not|no|bad|nah))\b"
    # "Is Renzo just bad on this map", "is Lumifawn too low to bring": asked the other way round
    r"|(?:^|[.?!]\s)\W*(?:(?:so|ok|okay|and|but|hey|um|uh|well|wait|coach|then|honestly)\W+)*(?:is|are)\b.*"
    + ASKED_BAD.pattern
    # "Brannoc, yes?", "Galehawk, good idea?": the name said and the verdict asked short
    + r"|\b(?:yes|good\s+idea|worth\s+it)\W*$",
    re.IGNORECASE,
)


def unit_verdict(c: _Ctx) -> list[Line]:
    """ "Is Yarrow any good?": yes / no first, leaning by what counts for and against the unit in
    play (the context in play that favours or hurts it, each foe it beats and each that beats it,
    its level far behind the rest); the facts follow in the next steps. Only asked as a verdict.

    Of a unit the player does not have ("is Galen worth unlocking"), the `unowned` keys say it for
    this match, and a unit the player already has for the same foes makes it not needed now."""
    ids, view = c.ids("unit"), c.view
    said = c.t.utterance
    unowned = bool(ids) and not view.owns(ids[0])
    if (
        not ids
        or (unowned and not c.inputs.get("unowned_good_key"))
        or (view.owns(ids[0]) and c.inputs.get("unowned_only"))
        or not (_ASKS_VERDICT.search(said) or KEEP_OR_BENCH.search(said) or STAY_OR_GO.search(said))
    ):
        return []
    uid, plus, minus, judged = ids[0], 0, 0, False
    threat: str | None = None  # one of theirs that beats it: the reason a bare "not really" lacks
    beaten: list[str] = []  # the foes it beats
    theirs = view.opponent_side()
    if c.t.opponents or any(u in theirs and u != uid for u in c.t.mentioned):
        return []  # "is Lumifawn good against Voltail": that matchup's own yes or no answers
    nouns = [n for k in c.schema.kinds_of("context") for n in (k, *c.schema.kinds[k].nouns)]
    on_place = re.search(rf"\b(?:{'|'.join(map(re.escape, nouns))})s?\b", said, re.I) if nouns else None
    for m in c.schema.matchups:
        if m.between[0] != view.unit_kind:
            continue
        kind = c.schema.kinds.get(m.between[1])
        place = view.context(m.between[1]) if kind is not None and kind.role == "context" else None
        if place:
            fit = multiplier(c.catalog, m, uid, place)
            plus, minus, judged = plus + (fit > m.default), minus + (fit < m.default), True
        elif m.between[1] == view.unit_kind and theirs and not on_place:  # ("good on this map": the map's)
            judged = True
            beaten += [f for f in theirs if multiplier(c.catalog, m, uid, f) > m.default]
            beaten_by = [f for f in theirs if multiplier(c.catalog, m, f, uid) > m.default]
            # each foe counts: beating one of three and beaten by two leans no, not "mixed"
            plus, minus = plus + len(set(beaten)), minus + len(beaten_by)
            threat = threat or next(iter(beaten_by), None)
    if not judged:
        return []  # no match and no place in play: nothing to judge it against
    minus += view.far_behind(uid)
    values = {"@unit": c.name(uid)}
    if unowned:
        return _verdict_unowned(c, uid, plus, minus, threat, beaten)
    # "Is Renzo just bad here", "should I bench Tidefang": asked the other way round, yes and no swap
    kept = KEEP_OR_BENCH.search(said)
    bad_asked = kept.group("verb") != "keep" if kept else ASKED_BAD.search(said) is not None
    lean = plus and minus and plus != minus
    lean_good_no = c.inputs.get("lean_good_no_key", c.inputs.get("good_no_key"))
    key = (
        c.inputs.get("mixed_key") if plus and minus and not lean
        else lean_good_no if lean and plus > minus and bad_asked
        else c.inputs.get("lean_good_key", c.step.key) if lean and plus > minus
        else c.inputs.get("bad_yes_key" if bad_asked else "bad_key") if lean
        else c.inputs.get("good_no_key", c.step.key) if plus and bad_asked
        else c.step.key if plus
        else c.inputs.get("bad_yes_key" if bad_asked else "bad_key") if minus
        else c.inputs.get("even_bad_key", c.inputs.get("even_key")) if bad_asked
        else c.inputs.get("even_key")
    )  # fmt: skip
    if key == c.inputs.get("even_key") and on_place and not bad_asked:
        return []  # "any good on this map" and the map is even: the map's own line says so, by name
    either = kept or STAY_OR_GO.search(said)  # "keep her or swap her": that answer's own words
    if (
        key == c.inputs.get("bad_key")
        and threat
        and c.inputs.get("bad_foe_key")
        and not on_place
        and not either
    ):
        # "Not really: their Nadira counters your Elowen": the verdict with its reason, so a line
        # cut for length (a second question's answer) never leaves "not really" beside "even pick".
        return c.naming(c.inputs["bad_foe_key"], [threat, uid], **values, foe=c.name(threat))
    return c.naming(key, [], **values)


def _verdict_unowned(
    c: _Ctx, uid: str, plus: int, minus: int, threat: str | None, beaten: list[str]
) -> list[Line]:
    """The verdict on a unit the player does not have, for this match: what it would bring, unless
    one the player has already beats the same foe (then it is not needed now)."""
    values, keys = (
        {"@unit": c.name(uid)},
        {k[len("unowned_") :]: v for k, v in c.inputs.items() if k.startswith("unowned_")},
    )
    unit_kind = c.view.unit_kind
    m = next((x for x in c.schema.matchups if x.between == (unit_kind, unit_kind)), None)
    if plus > minus and beaten and m is not None and keys.get("covered_key"):
        fielded = c.view.player_side()
        mine = fielded + [o.id for o in c.view.owned() if o.id not in fielded]

        def have(foe: str) -> list[str]:
            return [u for u in mine if multiplier(c.catalog, m, u, foe) >= multiplier(c.catalog, m, uid, foe)]

        if all(have(foe) for foe in beaten):  # nothing it beats that the player cannot beat already
            foe = beaten[0]
            other = have(foe)[0]
            return c.naming(keys["covered_key"], [other, foe], **values, other=c.name(other), foe=c.name(foe))
    if minus > plus and threat and keys.get("bad_foe_key"):
        return c.naming(keys["bad_foe_key"], [threat], **values, foe=c.name(threat))
    key = (
        keys.get("lean_good_key", keys.get("good_key")) if plus > minus and minus
        else keys.get("good_key") if plus > minus
        else keys.get("bad_key") if minus > plus
        else keys.get("mixed_key") if plus
        else keys.get("even_key")
    )  # fmt: skip
    return c.naming(key, [], **values)


def option_target(c: _Ctx) -> list[Line]:
    """Asked on whom to use an option: one that only helps its own side (a heal, a shield, a speed-up)
    goes on the player's fielded unit their side hits hardest (ally_key; ally_none_key when none of
    theirs has the edge on any); any other on the unit of theirs that beats most of the player's
    side (key; none_key when none does: their first)."""
    options, m, view = c.ids("option"), _matchup(c), c.view
    mine, theirs = view.player_side(), view.opponent_side()
    # "Bull Rush their healer or save it for the tank", "Dread Whisper on Voltail, good idea?": the
    # targets the player offers, of theirs
    offered = [u for u in c.t.mentioned if u in theirs and u not in mine]
    said = normalise(c.t.utterance)
    asked = ON_WHOM.search(said) or (offered and c.inputs.get("offered_key") and USE_ON_THEIRS.search(said))
    allies = [u for u in c.t.mentioned if u in mine or view.owns(u)]  # ("the fox or the deer", benched)
    if options and len(allies) >= 2 and for_own_side(c.t.pack, options[0]):
        asked = asked or USE_ON_THEIRS.search(said)  # "Overcharge the fox or the stag"
    if not options or m is None or not mine or not theirs or not asked:
        return []
    option = c.name(options[0])

    def beats(one: str, other: str) -> bool:
        return multiplier(c.catalog, m, one, other) > m.default

    if for_own_side(c.t.pack, options[0]):
        # Not on the one who uses it: a healer's beam goes on someone else
        field = c.schema.options_field()
        units = {u: c.catalog.get(view.unit_kind, u) for u in mine}
        holders = {
            u for u, e in units.items() if field and e is not None and options[0] in (e.value(field) or [])
        }
        named = [u for u in allies if u not in holders]
        # "Overcharge the fox or the stag": one of the two named; else not on the one who uses it
        others = (
            named
            if len(named) >= 2
            else [u for u in mine if u not in holders and u not in c.t.mentioned] or mine
        )
        ally = max(others, key=lambda u: (sum(beats(f, u) for f in theirs), -others.index(u)))
        foes = [f for f in theirs if beats(f, ally)]
        if not foes:
            return c.naming(c.inputs.get("ally_none_key"), [], **{"@option": option})
        values = {"@option": option, "@unit": c.name(ally), "foe": c.name(foes[0])}
        return c.naming(c.inputs.get("ally_key"), [ally, foes[0]], **values)
    # An attack is aimed at one of theirs it does not bounce off ("save Blaze Charge for
    # Shellbastion" is no advice when water halves fire): the option's own value in the table.
    entity = c.catalog.get(view.option_kind or "", options[0])
    kind = entity.value(m.attribute) if entity is not None and m.attribute else None

    def resisted(f: str) -> bool:
        target = c.catalog.get(m.between[1], f)
        value = target.value(m.attribute) if target is not None and m.attribute else None
        return isinstance(kind, str) and value_multiplier(c.catalog, m, kind, value) < m.default

    aimed = [f for f in theirs if not resisted(f)] or theirs
    foe = min(aimed, key=lambda f: (-sum(beats(f, u) for u in mine), aimed.index(f)))
    victims = [u for u in mine if beats(foe, u)]

    def hits(f: str) -> float:
        target = c.catalog.get(m.between[1], f)
        value = target.value(m.attribute) if target is not None and m.attribute else None
        return value_multiplier(c.catalog, m, kind, value) if isinstance(kind, str) else m.default

    if len(offered) >= 2 and c.inputs.get("choice_key"):
        # "Nightmare Hex on the turtle or the cat": the one it hits hardest, then the bigger threat
        best = min(offered, key=lambda f: (-hits(f), -sum(beats(f, u) for u in mine), offered.index(f)))
        hit = [u for u in mine if beats(best, u)]
        if hits(best) > m.default and hits(best) > min(hits(f) for f in offered):
            return c.naming(c.inputs.get("choice_hits_key"), [best], **{"@option": option}, foe=c.name(best))
        chosen: dict[str, str | None] = {
            "@option": option,
            "foe": c.name(best),
            "@unit": c.name(hit[0]) if hit else None,
        }
        return c.naming(c.inputs["choice_key"], [best], **chosen)
    if offered and not ON_WHOM.search(normalise(c.t.utterance)):
        best = min(offered, key=lambda f: (-sum(beats(f, u) for u in mine), offered.index(f)))
        hit = [u for u in mine if beats(best, u)]
        # Yes to the one offered that threatens the player's side most; else the one that does
        yes = best == foe or not victims
        shown, threatened = (best, hit) if yes else (foe, victims)
        worded: dict[str, str | None] = {"@option": option, "foe": c.name(shown)}
        worded["@unit"] = c.name(threatened[0]) if threatened else None
        return c.naming(c.inputs["offered_key"] if yes else c.inputs.get("instead_key"), [shown], **worded)
    if not victims:
        return c.naming(c.inputs.get("none_key"), [foe], **{"@option": option}, foe=c.name(foe))
    values = {"@option": option, "@unit": c.name(victims[0]), "foe": c.name(foe)}
    return c.naming(c.step.key, [foe, victims[0]], **values)


def sides_on_attribute(c: _Ctx) -> list[Line]:
    """ "Are we outranged": the two sides on an ordered unit attribute (strike: range, short to
    long), asked only when the utterance names it ("range", "outrange"): theirs reach further
    (key: the ones of theirs at their top value, and the player's top), even (even_key), or the
    player's (ours_key)."""
    attribute, view = c.inputs.get("attribute"), c.view
    spec = c.schema.kinds[view.unit_kind].attributes.get(str(attribute))
    if spec is None or not spec.ordered or not isinstance(spec.values, list):
        return []
    if not re.search(rf"\b(?:out)?{re.escape(str(attribute))}\w*\b", c.t.utterance, re.IGNORECASE):
        return []
    order = [str(v) for v in spec.values]
    mine, theirs = view.player_side(), view.opponent_side()
    if not mine or not theirs:
        return []

    def rank(u: str) -> int:
        value = str(_value(c, view.unit_kind, u, str(attribute)))
        return order.index(value) if value in order else -1

    top_mine, top_theirs = max(map(rank, mine)), max(map(rank, theirs))
    far = [u for u in theirs if rank(u) == top_theirs]
    ours = [u for u in mine if rank(u) == top_mine]
    values = {
        "foes": c.names(far),
        "top": order[top_theirs],
        "@units": c.names(ours),
        "mine": order[top_mine],
    }
    if top_theirs > top_mine:
        return c.naming(c.step.key, [], **values)
    if top_theirs < top_mine:
        return c.naming(c.inputs.get("ours_key"), [], **values)
    return c.naming(c.inputs.get("even_key"), [], **values)


def team_on_context(c: _Ctx) -> list[Line]:
    """ "Is Fathom Docks good for us": the team on the context in play (a map) by a unit x context
    matchup, only when the utterance names that kind (its name or a noun): the members it favours
    and the ones it hurts (key: both; good_key: only favoured; bad_key: only hurt, with the usable
    units it favours instead as {others}); neither: nothing (the next step reads the team)."""
    m, team, where = _matchup(c), c.ids("units"), c.ids("context")
    if m is None or not team or not where:
        return []
    kind = c.schema.kinds.get(m.between[1])
    nouns = [re.escape(n) for n in (kind.nouns if kind is not None else [])]
    named = any(x.id == where[0] for x in link_entities(c.t.pack, c.t.utterance))
    if not named and not (nouns and re.search(rf"\b(?:{'|'.join(nouns)})s?\b", c.t.utterance, re.IGNORECASE)):
        return []
    place = where[0]
    good = [u for u in team if multiplier(c.catalog, m, u, place) > m.default]
    bad = [u for u in team if multiplier(c.catalog, m, u, place) < m.default]
    values = {"@context": c.name(place), "good": c.names(good) or None, "bad": c.names(bad) or None}
    if good and bad:
        return c.naming(c.step.key, [], **values)
    if good:
        return c.naming(c.inputs.get("good_key"), [], **values)
    if not bad:
        return []  # the map neither helps nor hurts: the team's read against their side answers
    others = [
        u
        for u in sorted(o.id for o in c.view.owned())
        if u not in team and c.usable(u) and multiplier(c.catalog, m, u, place) > m.default
    ]
    return c.naming(c.inputs.get("bad_key"), [], **values, others=c.names(others) or None)


def kind_on_context(c: _Ctx) -> list[Line]:
    """ "Are shotguns any good on this map", "is this map good for tanks": a kind of unit the
    utterance names (voicecoach.perception.descriptions.kinds_said; two: "snipers or close range",
    a line each) on the context in play by a unit x context matchup: the ones of the kind it favours
    ({good}; good_key) and hurts ({bad}; bad_key, with the context's {description} and the units it
    favours instead, {others}), both (key), or neither (even_key); asked whether it is bad for them,
    good_no_key / bad_yes_key. The player's units first, at most three named a side; "my healers":
    the player's only."""
    m, where = _matchup(c), c.ids("context")
    if m is None or not where:
        return []
    place, lines = where[0], []
    entity = c.catalog.get(m.between[1], place)
    catalog = c.catalog.entities.get(c.view.unit_kind, {})
    kinds = kinds_said(c.t.pack, c.t.utterance)[:2]
    chosen = _kind_chosen(c, m, place, kinds)
    if chosen:
        return chosen
    for kind, units in kinds:
        if re.search(rf"\b(?:my|our)\s+(?:\w+\s+)?{re.escape(kind)}", c.t.utterance, re.IGNORECASE):
            units = [u for u in units if c.view.owns(u)]  # "are my healers ok here": the player's own
        units = sorted(units, key=lambda u: (not c.view.owns(u), u))
        good = [u for u in units if multiplier(c.catalog, m, u, place) > m.default][:3]
        bad = [u for u in units if multiplier(c.catalog, m, u, place) < m.default][:3]
        favoured = sorted(
            (u for u in catalog if u not in units and multiplier(c.catalog, m, u, place) > m.default),
            key=lambda u: (-multiplier(c.catalog, m, u, place), not c.view.owns(u), u),
        )[:3]
        values = {
            "@context": c.name(place), "kind": kind, "good": c.names(good) or None,
            "bad": c.names(bad) or None, "others": c.names(favoured) or None,
            "description": str(entity.value("description") or "") or None if entity is not None else None,
        }  # fmt: skip
        # "Is it a bad map for shotguns": asked the other way round, the yes and the no swap
        bad_asked = ASKED_BAD.search(c.t.utterance) is not None
        key = (
            c.step.key if good and bad
            else c.inputs.get("good_no_key" if bad_asked else "good_key") if good
            else c.inputs.get("bad_yes_key" if bad_asked else "bad_key") if bad
            else c.inputs.get("even_key")
        )  # fmt: skip
        lines += c.naming(key, [], **values)
    return lines


def _kind_chosen(c: _Ctx, m: Matchup, place: str, kinds: list[tuple[str, list[str]]]) -> list[Line]:
    """ "Tank or support here?": the kind with more of the player's usable units the context favours
    (choice_key: "Go support: Fathom Docks suits Nadira."); none when the two tie or it is no choice."""
    key = c.inputs.get("choice_key")
    if (
        not key
        or len(kinds) != 2
        or not re.search(
            rf"\b{re.escape(kinds[0][0])}\w*\s+or\s+(?:an?\s+)?{re.escape(kinds[1][0])}", c.t.utterance, re.I
        )
    ):
        return []

    def score(units: list[str]) -> tuple[int, int]:
        mine = [u for u in units if c.usable(u)]
        good = sum(multiplier(c.catalog, m, u, place) > m.default for u in mine)
        return good, -sum(multiplier(c.catalog, m, u, place) < m.default for u in mine)

    (one, ones), (other, others) = sorted(kinds, key=lambda k: score(k[1]), reverse=True)
    if score(ones) == score(others) or score(ones)[0] == 0:
        return []
    good = [u for u in ones if c.usable(u) and multiplier(c.catalog, m, u, place) > m.default][:3]
    return c.naming(key, good, kind=one, other=other, good=c.names(good), **{"@context": c.name(place)})


def pick_fit(c: _Ctx) -> list[Line]:
    """The usable units a context favours (a map), best first, a few of them (`count`, default 3),
    not `skip`ped; none_key when the context favours none of them."""
    m, where = _matchup(c), c.ids("context")
    if m is None or not where or not c.view.known:
        return []
    place = where[0]
    ranked = c.ids("ranked")
    ranked += sorted(o.id for o in c.view.owned() if o.id not in ranked)
    skip = set(c.ids("skip"))
    usable = [u for u in c.t.fresh_first(ranked) if c.usable(u) and u not in skip]
    offered = [u for u in c.t.choice if u in usable and multiplier(c.catalog, m, u, place) > m.default]
    usable = offered or usable  # "Renzo or Lorcan here?": the one it favours (neither: whom it does)
    # "And damage heroes?": of the role the player names (the composition quota's attribute).
    comp = c.schema.composition
    role = comp.quota.attribute if comp is not None and comp.quota is not None else None
    named = _named_values(c, role) if role else []
    if named:
        usable = [u for u in usable if _value(c, c.view.unit_kind, u, role) in named] or usable
    context = {"@context": c.name(place)}
    if c.inputs.get("worst_key") and _WORST.search(c.t.utterance):
        # "Who's bad there?": the player's units the context works against, worst first.
        hurt = sorted(
            (u for u in usable if multiplier(c.catalog, m, u, place) < m.default),
            key=lambda u: (multiplier(c.catalog, m, u, place), usable.index(u)),
        )[: int(c.inputs.get("count") or 3)]
        if hurt:
            return c.naming(c.inputs["worst_key"], hurt, **{"@units": c.names(hurt)}, **context)
    favoured = sorted(
        (u for u in usable if multiplier(c.catalog, m, u, place) > m.default),
        key=lambda u: (-multiplier(c.catalog, m, u, place), usable.index(u)),
    )[: 1 if offered else int(c.inputs.get("count") or 3)]
    if not favoured:
        return c.line(c.step.none_key, [], **context)
    asked = [u for u in c.t.mentioned if u in favoured]
    reasons = _fit_reasons(c, asked[0], place) if c.t.why and asked and c.inputs.get("why_key") else {}
    if reasons:
        # "Why him?" after the map's picks: the unit and the place in the pack's own words
        status = _words(m, multiplier(c.catalog, m, asked[0], place))
        return c.line(c.inputs["why_key"], [asked[0]], **{"@unit": c.name(asked[0])}, status=status,
                      **context, **reasons)  # fmt: skip
    top = favoured[0]
    if c.t.choice and not offered and c.inputs.get("neither_key"):
        neither = " nor ".join(c.name(u) for u in c.t.choice)
        units = {"@units": c.names(favoured)}
        return c.line(c.inputs["neither_key"], favoured, **units, offered=neither, **context)
    return c.line(c.step.key, favoured, **{"@units": c.names(favoured), "@unit": c.name(top)},
                  status=_words(m, multiplier(c.catalog, m, top, place)), **context)  # fmt: skip


# Taking a unit off the team (English cue words): before the name, or "out" after it.
_TAKE_OUT_BEFORE = re.compile(
    r"\b(?:bench|drop|pull|sit|cut|ditch|remove|take|swap|sub|switch|get\s+rid\s+of)\s+(?:my\s+|our\s+)?$",
    re.I,
)
_OUT_AFTER = re.compile(r"^\s+(?:out|off)\b", re.IGNORECASE)
_BENCH_BEFORE = re.compile(r"\b(?:bench|drop|pull|cut|ditch|remove)\s+(?:my\s+|our\s+)?$", re.IGNORECASE)


def _taken_out_benched(c: _Ctx) -> str | None:
    """The one unit the player asks to take off the team when it is not on it ("should I bench
    Lumifawn", "take Hexmoth out"): owned, not fielded, and no other unit named."""
    units = [m for m in link_entities(c.t.pack, c.t.utterance) if m.kind == c.view.unit_kind]
    if len({m.id for m in units}) != 1 or not c.view.known:
        return None
    m, text = units[0], c.t.utterance
    before, after = text[: m.span[0]], text[m.span[1] :]
    off = _BENCH_BEFORE.search(before) or (_TAKE_OUT_BEFORE.search(before) and _OUT_AFTER.match(after))
    team = c.view.player_side()
    return m.id if off and team and m.id not in team and c.view.owns(m.id) else None


def pick_swap(c: _Ctx) -> list[Line]:
    """The best single swap of the player's team (score_group's `swaps`): a usable unit in for one of
    theirs, said with why: a counter to a foe (key), a better fit on the context (context_key), else
    the new rating (plain_key); none_key when no swap raises the rating."""
    swaps = c.get("swaps")
    if swaps is None:
        if "swaps" in c.inputs and isinstance(c._one(c.inputs["swaps"]), list):
            return c.line(c.step.none_key, [], **_where(c))  # scored, and nothing beats the team
        return []
    benched = _taken_out_benched(c)
    if benched is not None and c.inputs.get("benched_key"):
        # "Should I bench Lumifawn?" of one not on the team: it is on the bench already.
        team = c.view.player_side()
        return c.line(c.inputs["benched_key"], [], **{"@unit": c.name(benched)}, **{"@units": c.names(team)})
    rows = [r for r in swaps if isinstance(r, dict) and isinstance(r.get("in"), dict)]
    kept_out = [r["in"].get("id", "") for r in rows if r["in"].get("id") in c.t.excluded]
    rows = [r for r in rows if c.usable(r["in"].get("id", ""))]
    if kept_out and not rows and c.inputs.get("only_key") and set(c.t.mentioned) <= c.t.excluded:
        # "What if I don't have Hexmoth?" when Hexmoth is every swap that helps: no swap, not a pick
        # of another kind ("keep X in") as if it answered.
        return c.naming(c.inputs["only_key"], [])
    # "Something else?" (again): a swap bringing in a unit no recent reply put forward comes first;
    # when every swap was said already, the next step's pick answers, not a repeat (but of one of the
    # team named to come out, "no, for the fox", that one's swap or why to keep it, below).
    said = c.t.put_forward
    rows = sorted(rows, key=lambda r: r["in"].get("id") in said)
    out_named = (
        []
        if ASK_AGAIN.search(normalise(c.t.utterance))
        else [u for u in c.t.mentioned if u in c.view.player_side()]
    )
    if rows and all(r["in"].get("id") in said for r in rows) and not out_named:
        ins = list(dict.fromkeys(r["in"].get("id", "") for r in rows))
        if len(ins) == 1 and c.inputs.get("only_key") and not c.t.mentioned:
            # "Who else could come in?" when one unit is every swap that helps: say so, not a pick
            # of another kind ("keep X in") as if it answered.
            return c.naming(c.inputs["only_key"], [])
        return []
    # "Who should I swap Lorcan for?": the swap of the unit the player named, if it is scored (not one
    # they keep: "keep Renzo, swap Lorcan instead").
    kept = {
        m.id
        for m in link_entities(c.t.pack, c.t.utterance)
        if _KEEP_BEFORE.search(c.t.utterance[: m.span[0]])
    }
    named = [
        u
        for u in c.t.mentioned
        if u in c.view.player_side() and u not in c.view.opponent_side() and u not in kept
    ]
    # ... and "take Renzo out and put Paxton in": that swap, if it is scored.
    faced = _faced(c)
    incoming = _incoming(c)  # "would swapping to Tobin fix that": Tobin comes in, no foe
    coming = [
        u for u in c.t.mentioned
        if (u not in c.view.player_side() and u not in c.view.opponent_side() and u not in faced)
        or (u in incoming and u not in c.view.player_side())  # "who do I drop for Brannoc": theirs too
    ]  # fmt: skip
    outs = [r for r in rows if (r.get("out") or {}).get("id") in named]
    # (the unit coming in may be one the opponent fields too: "swap my Dumaka for Brannoc")
    asked_in = [r for r in outs if r["in"].get("id") in c.t.mentioned]
    row = next(iter(asked_in), outs[0] if outs else None)
    m = _matchup(c)
    mine = c.view.player_side()
    named_foes = dict.fromkeys([*c.t.opponents, *c.t.mentioned])
    theirs = c.view.opponent_side()
    # (one of the player's own on the bench is no foe: "swap Sparkwing for Lumifawn" brings it in)
    against = [
        u for u in named_foes
        if u not in c.t.excluded and u not in incoming
        and (u in c.t.opponents or u in theirs or u in faced or (u not in mine and not c.view.owns(u)))
    ]  # fmt: skip
    if outs and against and m is not None and not asked_in:
        # "Who covers Briarcat if Galehawk sits out?": a swap for it that beats the foe they named;
        # else one of the rest of the team already does (the next step says so).
        row = next((r for r in outs if _beats(c, m, [r["in"].get("id", "")], against)), None)
        staying = sorted(set(mine) - set(named))
        if row is None and _beats(c, m, staying, against) is not None:
            return []
        row = row or outs[0]
    new_in = next((u for u in coming if c.usable(u)), None)
    if named and new_in is not None and not asked_in:
        # "Swap Sparkwing for Galehawk": that swap raises nothing. Say why not, then the swap of
        # that unit that does, else keep it.
        lead = _not_that_swap(c, m, named[0], new_in)
        if lead:
            if outs:
                return lead + _swap_said(c, outs[0], against, m)
            return lead + (_kept(c, m, named[0]) if c.inputs.get("kept_key") else [])
    if named and row is None and c.inputs.get("kept_key"):
        return _kept(c, m, named[0])
    # "Who would Hexmoth replace?": the best swap bringing in the spare unit they named, else that it
    # would not raise the team's rating anywhere.
    spare = [u for u in coming if c.usable(u)]
    if not named and spare:
        ins = [r for r in rows if r["in"].get("id") == spare[0]]
        row = max(ins, key=lambda r: r.get("gain") or 0, default=None)
        if row is None and c.inputs.get("no_gain_key"):
            # ... though it counters one of theirs (what the last answer may have said): say so too.
            hit = _beats(c, m, [spare[0]], c.ids("foes")) if m is not None else None
            key = c.inputs.get("no_gain_counter_key") if hit is not None else None
            values = {"@unit": c.name(spare[0]), **_where(c)}
            if m is not None and hit is not None:
                values |= _counter_values(c, m, *hit)
            # (far behind on levels, that is why: "Fenwick is only level 3")
            no_gain = c.naming(key or c.inputs["no_gain_key"], [spare[0]], **values)
            return no_gain + _underlevelled(c, spare[0])
    # "Who should I swap to into Lorcan?": the best swap that counters the foe the player named, or
    # none (a counter pick answers instead).
    if row is None and against and m is not None:
        if _beats(c, m, sorted(mine), against) is not None:
            return []  # a unit already in beats the foe they named: "keep X in" (the next step)
        row = next((r for r in rows if _beats(c, m, [r["in"].get("id", "")], against)), None)
        if row is None:
            return []  # no swap answers the foe they named: the next step's counter pick does
    row = row or next(iter(rows), None)
    # "Should I switch to Mireva?" and Mireva is locked: that first, then the swap they can make.
    # (Locked is not owned: one the player keeps out, "instead of Galehawk", is theirs.)
    locked = [u for u in sorted({*incoming, *coming}) if not c.t.owns(u)]  # "bench Renzo for Hakon" too
    first = c.naming(c.inputs.get("locked_key"), locked[:1], **{"@unit": c.name(locked[0])}) if locked else []
    if row is None:
        return first + c.line(c.step.none_key, [], **_where(c))
    return first + _swap_said(c, row, against, m)


def _kept(c: _Ctx, m: Matchup | None, out: str) -> list[Line]:
    """No better unit for the one the player would take off: keep it, with what it does there (the
    foe it beats: kept_why_key) and what to keep it away from (the foe that beats it: kept_risk_key),
    so "should I pull Emberfox" hears the trade-off, not only "keep it"."""
    foes = c.ids("foes")
    hit = _beats(c, m, [out], foes) if m is not None else None
    risk = next((f for f in foes if m is not None and _beats(c, m, [f], [out])), None)
    said = (
        c.naming(c.inputs.get("kept_why_key"), [out, hit[1]], out=c.name(out), **_counter_values(c, m, *hit))
        if m is not None and hit is not None
        else []
    ) or c.naming(c.inputs["kept_key"], [], out=c.name(out), **_where(c))
    if m is not None and risk is not None:
        said += c.naming(c.inputs.get("kept_risk_key"), [risk, out], **_counter_values(c, m, risk, out))
    return said


# "Swapping to Tobin", "swap in Brannoc", "who do I drop for Paxton", "who comes off for him", "to fit
# Tamsin in", "if I bring Stellan" (English cue words): the unit named next comes in.
_SWAP_IN = re.compile(
    r"\b(?:(?:swap|swapping|switch|switching|change|changing|go|going)\s+(?:over\s+)?(?:to|into)"
    r"|(?:swap|swapping|bring|bringing|put|putting|sub|subbing)\s+in"
    r"|(?:drop|dropping|bench|benching|cut|swap|trade|take\s+(?:out|off)|sit\s+out|comes?\s+(?:out|off)|"
    r"goes\s+(?:out|off)|make\s+(?:room|way))\s+(?:\w+\s+){0,2}?for"
    r"|fit|if\s+(?:i|we)\s+(?:bring|put|play|run|use|field))\s+(?:my\s+)?$",
    re.I,
)


_FACED_BEFORE = re.compile(r"\b(?:into|against|vs|versus|counter|counters|beat|beats)\s+(?:their\s+)?$", re.I)


def _faced(c: _Ctx) -> set[str]:
    """The units the utterance names as ones to face ("who do I swap to into Lorcan")."""
    text = c.t.utterance
    return {m.id for m in link_entities(c.t.pack, text) if _FACED_BEFORE.search(text[: m.span[0]])}


def _incoming(c: _Ctx) -> set[str]:
    """The units the utterance swaps to ("swapping to Tobin", "switch to Fenwick")."""
    text, unit = c.t.utterance, c.view.unit_kind  # ("swap to for docks": a map, no one coming in)
    return {
        m.id for m in link_entities(c.t.pack, text) if m.kind == unit and _SWAP_IN.search(text[: m.span[0]])
    }


def _not_that_swap(c: _Ctx, m: Matchup | None, out: str, new: str) -> list[Line]:
    """Why the swap the player named raises nothing: one of theirs beats the unit coming in
    (worse_key), else just that (pair_key); none without those keys."""
    beaten_by = [f for f in c.ids("foes") if m is not None and multiplier(c.catalog, m, f, new) > m.default]
    if m is not None and beaten_by and c.inputs.get("worse_key"):
        why = _counter_values(c, m, beaten_by[0], new)
        return c.naming(c.inputs["worse_key"], [new], out=c.name(out), **why, **_where(c))
    return c.naming(c.inputs.get("pair_key"), [new], out=c.name(out), **{"@unit": c.name(new)}, **_where(c))


def _swap_said(c: _Ctx, row: dict[str, Any], against: list[str], m: Matchup | None) -> list[Line]:
    """One scored swap said with why: a counter to a foe, a better fit on the context, else the score
    component that gained most (`reason_keys`), else the plain swap; then what it costs (cost_key):
    the foes only the unit going out beat. Never the rating's number: the game never shows one."""
    out, new = row["out"]["id"], row["in"]["id"]
    values: dict[str, Any] = {
        "out": c.name(out),
        "@unit": c.name(new),
        "score": row.get("score"),
        **_where(c),
    }
    kept = [u for u in c.view.player_side() if u != out] + [new]
    lost = [
        f for f in c.ids("foes") if m is not None and _beats(c, m, [out], [f]) and not _beats(c, m, kept, [f])
    ]
    cost = c.line(c.inputs.get("cost_key"), [], foes=c.names(lost)) if lost else []
    # The reason is a foe the unit going out did not already beat.
    foes = [f for f in [*against, *c.ids("foes")] if m is None or _beats(c, m, [out], [f]) is None]
    hit = _beats(c, m, [new], foes) if m is not None else None
    if m is not None and hit is not None:
        return (
            c.line(c.step.key, [new], **values | _counter_values(c, m, *hit)) + _underlevelled(c, new) + cost
        )
    fit, where = _fit(c), c.ids("context")
    if fit is not None and where:
        gain = multiplier(c.catalog, fit, new, where[0]) - multiplier(c.catalog, fit, out, where[0])
        if gain > 0 and c.inputs.get("context_key"):
            status = _words(fit, multiplier(c.catalog, fit, new, where[0]))
            return c.line(c.inputs["context_key"], [new], **values, status=status) + cost
    moved = row.get("changes")
    changes: dict[str, Any] = moved if isinstance(moved, dict) else {}
    top = max(changes, key=lambda k: (float(changes[k]), k), default=None)
    key = (c.inputs.get("reason_keys") or {}).get(top) if top and float(changes[top]) > 0 else None
    low = c.view.unit(out)
    if low is not None and c.view.far_behind(out) and c.inputs.get("out_low_key"):
        # "Swap Terragon out": at level 2 in a level-13 team, that is the reason, not "more power".
        key, values = c.inputs["out_low_key"], {**values, "level": low.level}
    return c.line(key or c.inputs.get("plain_key"), [new], **values) + cost


def _where(c: _Ctx) -> dict[str, Any]:
    where = c.ids("context")
    return {"@context": c.name(where[0])} if where else {}


def threat(c: _Ctx) -> list[Line]:
    """The opponent unit that beats most of the player's side by the matchup (key: which of theirs
    it beats, and why); else the one the context favours most (context_key); none_key otherwise.
    The player's unit is said as theirs ("your {unit}"), never recommended."""
    m, side, ours = _matchup(c), c.ids("side"), c.ids("against")
    if m is None or not side or not ours or c.t.why:
        return []  # "why that one?" after a threat and its counter: the counter's reason, not the threat
    # "How's their Pyrowl looking?": the one they named, not the side's worst; when it beats none of
    # the player's, the next step (a counter to it) answers.
    down = set(told_down(c.t.pack, c.t.utterance))
    if [u for u in side if u not in down]:
        side = [u for u in side if u not in down]  # "Briarcat is already down, who next": the rest
    named = [u for u in c.t.mentioned if u in side]
    whole, side = side, named or side
    # "What should Lorcan watch out for?": the threat to the one of theirs the player named.
    mine = [u for u in c.t.mentioned if u not in side and u not in c.t.opponents and c.view.owns(u)]
    ours = mine if mine and (not named or down) else ours

    def beaten(foe: str) -> list[str]:
        return [u for u in ours if multiplier(c.catalog, m, foe, u) > m.default]

    def weight(foe: str) -> tuple[int, float, int]:
        return (-len(beaten(foe)), -max(multiplier(c.catalog, m, foe, u) for u in ours), whole.index(foe))

    foe = min(side, key=weight)
    victims = beaten(foe)
    # "Should I dive their Nadira": the one named, as the one to go after when it is worth it
    target_named = len(named) == 1 and TARGET_NAMED.search(normalise(c.t.utterance)) is not None
    targeted = (
        target_named
        or OUR_TARGET.search(normalise(c.t.utterance))
        or (down and NEXT_TARGET.search(c.t.utterance))
        or (len(named) >= 2 and FIRST_OF_THEIRS.search(normalise(c.t.utterance)))
    )
    # "Who should I go after with Emberfox": the one that unit beats, even when another beats it
    with_mine = rf"\bwith\s+(?:my\s+|our\s+)?{re.escape(c.name(mine[0]))}\b" if mine else r"(?!)"
    # ("who would Hexmoth curse first": the same, the unit the subject)
    first_by = (
        rf"\b(?:would|will|could|should|do|does)\s+{re.escape(c.name(mine[0]))}\s+\w+\s+first\b"
        if mine
        else r"(?!)"
    )
    hunting = (not named or bool(down)) and (
        re.search(with_mine, c.t.utterance, re.IGNORECASE) is not None
        or re.search(first_by, c.t.utterance, re.IGNORECASE) is not None
        or bool(
            mine and down and NEXT_TARGET.search(c.t.utterance)
        )  # "Briarcat's down, what should Emberfox do"
    )
    if targeted and (not victims or hunting) and c.inputs.get("prey_key"):
        # "Voltail or Briarcat first?" when neither beats any of the player's: the one they beat
        prey = max(
            side,
            key=lambda f: (sum(multiplier(c.catalog, m, u, f) > m.default for u in ours), -side.index(f)),
        )
        hunters = [u for u in ours if multiplier(c.catalog, m, u, prey) > m.default]
        if hunters:
            values = {"foe": c.name(prey), "@unit": c.name(hunters[0])}
            return c.line(c.inputs["prey_key"], [prey, hunters[0]], **values)
    if victims:
        victim = max(victims, key=lambda u: (multiplier(c.catalog, m, foe, u), -ours.index(u)))
        said = _counter_values(c, m, foe, victim)  # (the foe is the one that counters, here)
        values = {
            "foe": said["@unit"],
            "@unit": said["foe"],
            "status": said["status"],
            "reason": said["reason"],
        }
        if m.attribute:  # the foe's value is the {foe_<attribute>} here: "its fire hits your grass"
            values |= {m.attribute: said[f"foe_{m.attribute}"], f"foe_{m.attribute}": said[m.attribute]}
        # The one they named is their biggest threat only if it beats the most of the player's side;
        # else named_key says only what it beats.
        biggest = foe == min(whole, key=weight)
        key = c.inputs.get("named_key") if named and not biggest and c.inputs.get("named_key") else c.step.key
        if (not named or len(named) >= 2 or target_named) and c.inputs.get("target_key") and targeted:
            # "who do we go after first", "Voltail or Briarcat first": their threat is the one to focus
            key = c.inputs["target_key"]
        others = [f for f in side if f != foe and multiplier(c.catalog, m, f, victim) <= m.default]
        if hunting and others and c.inputs.get("away_key"):
            # "What should Emberfox do" when their Shellbastion beats it: at another, not that one
            return c.line(c.inputs["away_key"], [others[0]], **values, other=c.name(others[0]), **_where(c))
        return c.line(key, [foe], **values, count=len(victims), **_where(c))
    fit, where = _fit(c), c.ids("context")
    if fit is not None and where:
        best = min(side, key=lambda f: (-multiplier(c.catalog, fit, f, where[0]), side.index(f)))
        if multiplier(c.catalog, fit, best, where[0]) > fit.default:
            status = _words(fit, multiplier(c.catalog, fit, best, where[0]))
            return c.line(c.inputs.get("context_key"), [best], foe=c.name(best), status=status, **_where(c))
    if named:
        # "Should I worry about their Bexley?": not much, when it beats none of the player's.
        return c.line(c.inputs.get("named_none_key"), [], foe=c.name(foe), **_where(c))
    if mine and len(ours) == 1 and c.inputs.get("mine_none_key"):
        # "Which of theirs is most dangerous for my Hexmoth?": none, said of that one
        return c.line(c.inputs["mine_none_key"], [ours[0]], **{"@unit": c.name(ours[0])}, **_where(c))
    return c.line(c.step.none_key, [], **_where(c))


# "What are they weak to?", "what's their weakness" (English cue words).
_ASKS_WEAK = re.compile(r"\bweak(?:\s+(?:to|against|spots?|points?)|ness(?:es)?)\b", re.IGNORECASE)
SIDE_WEAK_FOES = 3  # a spoken answer names at most three pairings


def weak_side(c: _Ctx) -> list[Line]:
    """ "What are they weak to?": for each of the side's first units, the player's usable unit that
    beats it best by the matchup (strongest first on a tie); said only when the player asks about
    the side's weaknesses and names none of its units (one named: the counter question)."""
    m, side = _matchup(c), c.ids("side")
    if m is None or not side or not _ASKS_WEAK.search(c.t.utterance) or set(c.t.mentioned) & set(side):
        return []
    usable = _strongest_first(c, [o.id for o in c.view.owned() if c.usable(o.id)])
    pairs: list[tuple[str, str]] = []
    for foe in side[:SIDE_WEAK_FOES]:
        best = max(usable, key=lambda u: (multiplier(c.catalog, m, u, foe), -usable.index(u)), default=None)
        if best is not None and multiplier(c.catalog, m, best, foe) > m.default:
            pairs.append((best, foe))
    if not pairs:
        return []
    said = spoken_list([f"{c.name(u)} for {c.name(foe)}" for u, foe in pairs])
    return c.line(c.step.key, [u for u, _ in pairs], pairs=said)


def read_side(c: _Ctx) -> list[Line]:
    """What the opponent side plays: the most common value of the attribute units and groups share
    (a style), the catalog group it is closest to (two or more members in common; else plain_key),
    and the player's best usable answer to it by the matchup."""
    m, side = _matchup(c), c.ids("side")
    group_kind = c.view.group_kind
    if m is None or not side:
        return []
    unit_attrs = c.schema.kinds[c.view.unit_kind].attributes
    shared = [a for a in (c.schema.kinds[group_kind].attributes if group_kind else {}) if a in unit_attrs]
    attr = c.inputs.get("attribute") or next(iter(shared), None)
    values: dict[str, Any] = {}
    if attr is not None:
        said = [v for u in side if (e := c.catalog.get(c.view.unit_kind, u)) and (v := e.value(attr))]
        if said:
            values["style"] = max(dict.fromkeys(said), key=said.count)  # the most common, first on ties
    groups = list(c.catalog.entities.get(group_kind or "", {}))
    overlap = {g: len(set(c.view.members(g)) & set(side)) for g in groups}
    closest = max(groups, key=lambda g: overlap[g], default=None)
    ranked = c.ids("ranked")
    ranked += sorted(o.id for o in c.view.owned() if o.id not in ranked)
    usable = [u for u in c.t.fresh_first(ranked) if c.usable(u)]
    hit = _beats(c, m, usable, side)
    if hit is None:
        return []
    values |= _counter_values(c, m, *hit)
    if _fielded(c, hit[0], None) is not None:  # already in: "keep Renzo in", with or without a group
        return c.line(c.inputs["fielded_key"], [hit[0]], **values)
    if closest is not None and overlap[closest] >= 2:
        return c.line(c.step.key, [hit[0]], **values, **{"@group": c.name(closest)})
    return c.line(c.inputs.get("plain_key"), [hit[0]], **values)


def side_style(c: _Ctx) -> list[Line]:
    """ "What's their plan", "is that a known team": the pack's play style whose roles the most of
    their units fill (the first style on a tie), said with its summary and the units that fill it,
    and the catalog group they share two or more members with, if any. Asked only by `asks`."""
    side, asks = c.ids("side"), c.inputs.get("asks")
    if not side or not asks or not re.search(str(asks), c.t.utterance, re.IGNORECASE):
        return []
    role_attr = next(
        (
            a
            for a, spec in c.schema.kinds[c.view.unit_kind].attributes.items()
            if spec.values == "vocabulary.roles"
        ),
        None,
    )
    styles = c.t.pack.vocabulary.styles
    if role_attr is None or not styles:
        return []
    roles = {u: str(_value(c, c.view.unit_kind, u, role_attr)) for u in side}
    style = max(styles, key=lambda s: sum(r in styles[s].roles for r in roles.values()))
    filling = [u for u in side if roles[u] in styles[style].roles]
    if not filling or not styles[style].summary:
        return []
    values = {"style": style, "summary": styles[style].summary, "@units": c.names(filling)}
    group_kind = c.view.group_kind
    groups = list(c.catalog.entities.get(group_kind or "", {}))
    overlap = {g: len(set(c.view.members(g)) & set(side)) for g in groups}
    closest = max(groups, key=lambda g: overlap[g], default=None)
    if closest is not None and overlap[closest] >= 2 and c.inputs.get("group_key"):
        return c.naming(c.inputs["group_key"], side, **values, **{"@group": c.name(closest)})
    return c.naming(c.step.key, side, **values)


def _named_values(c: _Ctx, attr: str) -> list[str]:
    """The values of a unit attribute the utterance names (by the value, or a role's words)."""
    spec = c.schema.kinds[c.view.unit_kind].attributes.get(attr)
    values = (
        c.catalog.values(spec.values, {"vocabulary.roles": set(c.t.pack.vocabulary.roles)}) if spec else None
    )
    text = f" {c.t.utterance.lower()} "
    out = []
    for value in sorted(values or []):
        role = (
            c.t.pack.vocabulary.roles.get(value)
            if spec is not None and spec.values == "vocabulary.roles"
            else None
        )
        words = [value, *(role.words if role is not None else [])]
        # "the tankiest", "tankier": a role word's comparative or superlative names it too
        if any(re.search(rf"\b{re.escape(w.lower())}(?:ier|iest)?\b", text) for w in words):
            out.append(value)
    return out


def fill_role(c: _Ctx) -> list[Line]:
    """Who to play in the role the team lacks (the quota's `missing`, else the one the player names):
    the first usable unit of it in `ranked` (then the rest of the roster), not one of `skip`."""
    comp = c.schema.composition
    quota = comp.quota if comp is not None else None
    if quota is None or not c.view.known:
        return []
    missing = c.get("missing")
    roles = [r for r in missing if r in quota.counts] if isinstance(missing, dict) else []
    roles = roles or _named_values(c, quota.attribute)
    if not roles:
        return []
    role = roles[0]
    ranked = c.ids("ranked")
    ranked += sorted(o.id for o in c.view.owned() if o.id not in ranked)
    skip = set(c.ids("skip"))

    def fits(uid: str) -> bool:
        entity = c.catalog.get(c.view.unit_kind, uid)
        return entity is not None and entity.value(quota.attribute) == role

    pick = next((u for u in c.t.fresh_first(ranked) if fits(u) and c.usable(u) and u not in skip), None)
    if pick is None:
        return c.line(c.step.none_key, [], role=role, **{quota.attribute: role})
    return c.line(c.step.key, [pick], **{"@unit": c.name(pick), "role": role, quota.attribute: role})


def _gates(c: _Ctx, kind: str, entity_id: str, owned_level: int | None) -> tuple[list[str], list[str], int]:
    """An entity's unmet gates, spoken: (the unit's own: its level or tier; the rest: account-wide
    state), and how many levels the unit's own level gates still need."""
    return unmet_gates(c.t.pack, c.t.state, kind, entity_id, owned_level)


def _locked(c: _Ctx, key: str | None, covers: Sequence[str], oid: str, owner: str,
            values: dict[str, Any]) -> list[Line]:  # fmt: skip
    """An option locked on an owned unit, said with the gates this player still misses (`unlock`),
    the unit's level and the account's; `gated_key` when the unit's own level is already enough and
    only an account-wide gate holds it ("Brannoc is level 13, which is enough, but ...")."""
    option = c.view.option_kind or ""
    unit = c.view.unit(owner)
    level = unit.level if unit is not None else None
    own, other, _ = _gates(c, option, oid, level)
    # "How many levels till it does": the unit's own level gate, counted ("8 more levels").
    entity, gates = c.catalog.get(option, oid), c.schema.kinds[option].gate
    unlock = entity.value("unlock") if entity is not None else None
    needed = [
        v
        for f, v in (unlock or {}).items()
        if f in gates and gates[f].state == "level" and isinstance(v, int)
    ]
    gap = max(needed) - level if needed and level is not None and max(needed) > level else 0
    own = [_tier_ahead(c, owner, gates[f], v) if gates[f].state == "tier" else s
           for s, (f, v) in zip(own, _own_gates(unlock, gates), strict=False)]  # fmt: skip
    values = {**values, "unlock": " and ".join(own + other) or c.gate(option, oid),
              "blocker": spoken_list(other) or None, "level": level,
              "levels": f"{gap} more level{'s' if gap != 1 else ''}" if gap else None,
              "player_level": c.t.state.fs.player_level}  # fmt: skip
    if other and not own and c.inputs.get("gated_key"):
        key = c.inputs["gated_key"]
    elif gap and not other and c.inputs.get("levels_key"):
        key = c.inputs["levels_key"]  # held by the unit's own level alone: how far it is
    return c.line(key, covers, **values)


def _own_gates(unlock: Any, gates: dict[str, Any]) -> list[tuple[str, int]]:
    """The unit's own gates (its level, its tier) in `unlock`, in `unmet_gates`' order."""
    return [
        (f, v) for f, v in (unlock or {}).items()
        if f in gates and isinstance(v, int) and gates[f].state in ("level", "tier")
    ]  # fmt: skip


_NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}


def _tier_ahead(c: _Ctx, owner: str, gate: Any, value: int) -> str:
    """A tier gate said with how far the unit is from it: "evolution stage 3, the next one:
    Infernofox" (the tier's name from the progression field), as the gate alone when unknown."""
    spoken = gate.spoken.format(value=value) if gate.spoken else str(value)
    unit, progression = c.view.unit(owner), c.schema.progression
    entity = c.catalog.get(c.view.unit_kind, owner)
    tiers = entity.value(progression.field) if progression is not None and entity is not None else None
    if (
        unit is None
        or not unit.tier
        or unit.tier >= value
        or not isinstance(tiers, list)
        or len(tiers) < value
    ):
        return spoken
    steps = value - unit.tier
    ahead = "the next one" if steps == 1 else f"{_NUMBER_WORDS.get(steps, str(steps))} steps away"
    name = tiers[value - 1]
    return f"{spoken}, {ahead}" if name == entity.display else f"{spoken}, {ahead}: {name}"  # type: ignore[union-attr]


def option_next(c: _Ctx) -> list[Line]:
    """The next option an owned unit unlocks (catalog order: starter to gated), with its gates (key);
    gated_key when a gate beyond the unit's own level holds it (account level); none_key when the
    unit has every option. With several units and `closest`, the unit whose next option is the fewest
    of its own levels away and held by nothing else (a "who do I level first")."""
    view = c.view
    units = [u for u in c.ids("units") if view.owns(u)]
    if not units and c.inputs.get("closest"):
        units = [o.id for o in view.owned()]  # the tools failed: the snapshot's roster, in its order
    if c.inputs.get("closest"):
        units = _offered(c) or units
    option, field = view.option_kind, c.schema.options_field()
    if not units or option is None or field is None:
        return []
    found: list[tuple[str, str | None, list[str], list[str], int]] = []
    for uid in units:
        owned = view.unit(uid)
        entity = c.catalog.get(view.unit_kind, uid)
        options = list(entity.value(field) or []) if entity is not None else []
        nxt = next((o for o in options if not view.option_usable(o, uid)), None)
        if nxt is None:
            found.append((uid, None, [], [], 0))
            continue
        own, other, gap = _gates(c, option, nxt, owned.level if owned else None)
        found.append((uid, nxt, own, other, gap))
    if c.inputs.get("closest"):
        open_ = [f for f in found if f[1] is not None and not f[3] and c.usable(f[0])]
        if not open_:
            return c.line(c.step.none_key)
        found = [min(open_, key=lambda f: (f[4], units.index(f[0])))]
    uid, nxt, own, other, gap = found[0]
    owned = view.unit(uid)
    values: dict[str, Any] = {"@unit": c.name(uid), "level": owned.level if owned else None,
                              "player_level": c.t.state.fs.player_level}  # fmt: skip
    if nxt is None:
        return c.line(c.step.none_key, [uid], **values)
    values |= {"@option": c.name(nxt), "unlock": c.gate(option, nxt), "blocker": spoken_list(other) or None,
               "levels": f"{gap} more level{'s' if gap != 1 else ''}" if gap else None}  # fmt: skip
    key = c.inputs.get("gated_key") if other and c.inputs.get("gated_key") else c.step.key
    return c.line(key, [nxt, uid], **values)


def next_unit(c: _Ctx) -> list[Line]:
    """The unit the player gets next: of the ones they lack, the one with the lowest gates (catalog
    order on ties), said with its gates (key); none_key when they have every unit."""
    view = c.view
    if not view.known:
        return []
    lacking = [u for u in c.catalog.entities.get(view.unit_kind, {}) if not view.owns(u)]
    if not lacking:
        return c.line(c.step.none_key)
    if ASK_AGAIN.search(normalise(c.t.utterance)) and [u for u in lacking if u not in c.t.put_forward]:
        # "And after that?": the next one after those just said
        lacking = [u for u in lacking if u not in c.t.put_forward]

    def gates(uid: str) -> tuple[int, ...]:
        unlock = c.catalog.get(view.unit_kind, uid).value("unlock")  # type: ignore[union-attr]
        values = (
            [v for v in (unlock or {}).values() if isinstance(v, int)] if isinstance(unlock, dict) else []
        )
        return tuple(sorted(values, reverse=True)) or (0,)

    uid = min(lacking, key=lambda u: (gates(u), lacking.index(u)))
    level = _LEVEL_SAID.search(c.t.utterance)
    if level is not None and _OWN_LEVEL.search(c.t.utterance[: level.start()]):
        level = None  # "I'm level 10, what's the next hero": where the player is, not the level asked
    if level is not None and c.inputs.get("at_level_key"):
        # "What do I unlock at level 12": what that account level brings, the units and the options
        # of the player's own units gated on it (else nothing new there, and what comes next).
        at = int(level.group(1))
        units = [u for u in lacking if _player_gate(c, view.unit_kind, u) == at]
        option, field = view.option_kind, c.schema.options_field()
        options = [
            (o, owner.id)
            for owner in sorted(view.owned(), key=lambda u: u.id)
            if option and field and (entity := c.catalog.get(view.unit_kind, owner.id)) is not None
            for o in entity.value(field) or []
            if _player_gate(c, option, o) == at and not _gates(c, option, o, owner.level)[0]
        ]
        said = [c.name(u) for u in units] + [f"{c.name(owner)}'s {c.name(o)}" for o, owner in options]
        if said:
            return c.line(c.inputs["at_level_key"], units, level=at, unlocks=spoken_list(said),
                          player_level=c.t.state.fs.player_level)  # fmt: skip
        if c.inputs.get("at_level_none_key"):
            return c.line(c.inputs["at_level_none_key"], [uid], **{"@unit": c.name(uid)}, level=at,
                          unlock=c.gate(view.unit_kind, uid) or None)  # fmt: skip
    return c.line(c.step.key, [uid], **{"@unit": c.name(uid)}, unlock=c.gate(view.unit_kind, uid) or None,
                  player_level=c.t.state.fs.player_level)  # fmt: skip


_LEVEL_SAID = re.compile(r"\blevel\s+(\d+)\b", re.IGNORECASE)
_OWN_LEVEL = re.compile(
    r"\b(?:i'?m|im|i\s+am|i\s+just\s+(?:hit|reached|got\s+to)|i'?ve\s+(?:hit|reached))\s+(?:now\s+|at\s+|on\s+)?$",
    re.IGNORECASE,
)


def _player_gate(c: _Ctx, kind: str, entity_id: str) -> int | None:
    """The level of the player's own gate on an entity (the schema's gate read from the player's
    level, strike_team: min_player_level), if it has one."""
    spec = c.schema.kinds.get(kind)
    entity = c.catalog.get(kind, entity_id)
    if spec is None or entity is None:
        return None
    unlock = entity.value("unlock")
    for name, gate in spec.gate.items():
        if gate.state == "fs.player_level" and isinstance(unlock, dict):
            value = unlock.get(name)
            return value if isinstance(value, int) else None
    return None


# What the tool actor's result says of a side-effect call still behind the commit gate
# (voicecoach.actors.tools.SCHEDULED): the reply is spoken before the call runs.
SCHEDULED = "scheduled"


_SOMETHING_ELSE = re.compile(
    r"\b(?:something\s+else|a\s+different|another|the\s+other\s+one)\b", re.IGNORECASE
)


def option_equip(c: _Ctx) -> list[Line]:
    """Putting an option on a unit (a side-effect tool, `tool`, which runs only once the turn is
    committed): scheduled and usable (key: it will be done), done (done_key: the game answered),
    failed (failed_key); not called but usable (none_key: the player can do it); locked (locked_key,
    with the gates still unmet; gated_key: only account-wide ones); another unit's (wrong_unit_key);
    its unit not owned (unowned_key)."""
    ids, option, view = c.ids("option"), c.view.option_kind, c.view
    if not ids or option is None or not view.known:
        return []
    oid = ids[0]
    learners = view.learners(oid)
    named = next(iter(c.ids("unit")), None)
    values: dict[str, Any] = {"@option": c.name(oid), "slot": _slot(c, oid)}
    if named is not None and named not in learners and learners:
        return c.line(c.inputs.get("wrong_unit_key"), [oid], **values, **{"@unit": c.name(learners[0])})
    owner = named or next((u for u in learners if view.owns(u)), None) or next(iter(learners), None)
    if owner is None:
        return []
    values["@unit"] = c.name(owner)
    if not view.owns(owner):
        return c.line(c.inputs.get("unowned_key"), [oid, owner], **values)
    unit = view.unit(owner)
    slot = _slot(c, oid)
    if _SOMETHING_ELSE.search(c.t.utterance) and unit is not None and unit.equipped.get(slot or "") == oid:
        # "Change Lorcan's gun to something else": the slot's other option, not the one it runs
        other = next((o for o in view.options_of(owner) if o != oid and _slot(c, o) == slot), None)
        if other is not None:
            values["@option"] = c.name(other)
            if not view.option_usable(other, owner):
                return _locked(c, c.inputs.get("locked_key"), [other, owner], other, owner, values)
            return c.line(c.step.none_key, [other, owner], **values)  # the tool was asked for the old one
    if not view.option_usable(oid, owner):
        return _locked(c, c.inputs.get("locked_key"), [oid, owner], oid, owner, values)
    if unit is not None and unit.equipped.get(slot or "") == oid and c.inputs.get("equipped_key"):
        return c.line(c.inputs["equipped_key"], [oid, owner], **values)
    tool = c.inputs.get("tool")
    result = c.t.results.get(tool) if isinstance(tool, str) else None
    if tool in c.t.failed:
        return c.line(c.inputs.get("failed_key"), [oid, owner], **values)
    if result is None:
        return c.line(c.step.none_key, [oid, owner], **values)
    scheduled = result.get("status") == SCHEDULED
    return c.line(c.step.key if scheduled else c.inputs.get("done_key"), [oid, owner], **values)


def group_for_unit(c: _Ctx) -> list[Line]:
    """A catalog group with the unit in it that the player can field with usable units (key); with
    missing_key, else the closest such group and what it lacks."""
    view, ids = c.view, c.ids("unit")
    group = view.group_kind
    missing_only = bool(c.inputs.get("missing_only"))
    if group is None or not ids or not (missing_only or c.usable(ids[0])):
        return []
    uid = ids[0]
    groups = c.ids("groups") if "groups" in c.inputs else list(c.catalog.entities.get(group, {}))
    holding = [g for g in groups if uid in view.members(g)]
    fieldable = [g for g in holding if all(c.usable(u) for u in view.members(g))]
    fresh = [g for g in fieldable if g not in c.t.avoid] or fieldable
    if fresh and not missing_only:
        return c.line(c.step.key, [uid, fresh[0]], **{"@unit": c.name(uid), "@group": c.name(fresh[0])})
    if not holding or not c.inputs.get("missing_key"):
        return []
    closest = min(holding, key=lambda g: (sum(not view.owns(u) for u in view.members(g)), holding.index(g)))
    missing = [u for u in view.members(closest) if not view.owns(u)]
    return c.line(c.inputs["missing_key"], [uid], **{"@unit": c.name(uid), "@group": c.name(closest)},
                  missing=c.names(missing))  # fmt: skip


# --- progression, strength, coverage, named groups, the reason for a pick -------------------------


def _unlocked_at(c: _Ctx, uid: str, tier: int) -> list[str]:
    """The unit's options whose gate on the unit's tier is `tier`: what reaching it unlocks."""
    option, field = c.view.option_kind, c.schema.options_field()
    gates = c.schema.kinds[option].gate if option is not None else {}
    gate = next((f for f, g in gates.items() if g.state == "tier"), None)
    if option is None or field is None or gate is None:
        return []
    options = _value(c, c.view.unit_kind, uid, field) or []
    return [o for o in options if (_value(c, option, o, "unlock") or {}).get(gate) == tier]


def progression(c: _Ctx) -> list[Line]:
    """A unit's next tier (the schema's `progression`) and the options its gate on that tier
    unlocks (key; plain_key: none; same_name_key: the next tier bears the unit's own name, so the
    current tier is named), fully progressed (none_key), not owned (unowned_key, with its first
    tier). With several `units` (or `choose`): of the usable ones that can still progress, the first
    ("first") or the strongest ("strongest"), the previous reply's last when another is asked for."""
    view, units = c.view, c.ids("units")
    if not units and "choose" in c.inputs:
        units = _strongest_first(c, sorted(o.id for o in view.owned()))  # the tools failed: the roster
    offered = _offered(c) if "choose" in c.inputs else []
    first = [u for u in units if u in offered]
    if offered:
        # "Level Oakhorn or Sparkwing?": the one of them `units` ranks first; ranked by neither, the
        # stronger, said as such (the step's key gives `units`' reason, e.g. "the core of your team").
        units = first + _strongest_first(c, [u for u in offered if u not in first])
    if c.schema.progression is None or not units or not view.known:
        return []
    if len(units) > 1 or "choose" in c.inputs:
        able = [u for u in units if c.usable(u) and (view.unit(u).tier or 1) < len(c.view.tiers(u))]  # type: ignore[union-attr]
        if c.t.alternative and any(u not in c.t.avoid for u in able):
            able = [u for u in able if u not in c.t.avoid]
        if not able and offered:
            # "Evolve Sparkwing or Hexmoth?" and both are at their last tier: say so, not a team.
            full = [t[-1] for t in (c.view.tiers(u) for u in offered) if t]
            return c.naming(c.step.none_key, offered, tier_name=spoken_list(full)) if full else []
        if not able:
            return []
        uid = max(able, key=lambda u: (c.power(u), u)) if c.inputs.get("choose") == "strongest" else able[0]
    else:
        uid = units[0]
    tiers, owned = c.view.tiers(uid), view.unit(uid)
    if not tiers:
        return []
    name = {"@unit": c.name(uid)}
    if (
        owned is None
        and "unowned_key" not in c.inputs
        and not (uid in view.opponent_side() and c.inputs.get("theirs_key"))
    ):
        return []  # "should I get Cindermaw": a step about the player's own unit, and they lack it
    if owned is None:
        # "What does their Voltail evolve into?": the catalog's next tier, then that it isn't theirs.
        at = tiers.index(c.name(uid)) if c.name(uid) in tiers else 0
        after = tiers[at + 1] if at + 1 < len(tiers) else None
        line = ", then ".join(tiers)
        if len(tiers) == 1:
            return c.naming(c.step.none_key, [uid], **name, tier_name=tiers[0])  # it has one tier only
        if after is None:
            return c.naming(c.step.none_key, [uid], **name, tier_name=tiers[-1])  # the last of its line
        if uid in view.opponent_side() and c.inputs.get("theirs_key"):
            # One of theirs: its line, not "you don't own one" (nobody asked whether they do).
            return c.naming(c.inputs["theirs_key"], [uid], **name, tiers=line, next_tier=after)
        return c.naming(
            c.inputs.get("unowned_key"), [uid], **name, first_tier=tiers[0], next_tier=after, tiers=line
        )
    tier = min(owned.tier or 1, len(tiers))
    if tier >= len(tiers):  # the player's: by the name they know it by ("Hexmoth", not "Hexmonarch")
        return c.naming(c.step.none_key, [uid], **name, tier_name=c.name(uid))
    gains = _unlocked_at(c, uid, tier + 1)
    key = c.step.key
    if offered and uid not in first:
        key = c.inputs.get("choice_key") or key
    if gains and tiers[tier] == c.name(uid) and c.inputs.get("same_name_key"):
        key = c.inputs["same_name_key"]  # "evolving your <tier> into <unit>", not "<unit> into <unit>"
    elif not gains and c.inputs.get("plain_key"):
        key = c.inputs["plain_key"]
    return c.line(key, [uid], **name, **{"@options": c.names(gains) or None}, tier_name=tiers[tier - 1],
                  next_tier=tiers[tier], tier=owned.tier, level=owned.level)  # fmt: skip


# "Which of my heroes is the lowest level", "my most levelled pet" (English cue words).
LEVEL_RANK = re.compile(
    r"\b(?:(?P<low>lowest|least)|highest|most|top)[\s-]+(?:level(?:l?ed)?|lvl|lv)\b"
    # "which of my pets is the highest": a bare "highest" is by level
    r"|\b(?:is|'s)\s+(?:the\s+)?(?:(?P<low2>lowest)|highest)(?:\s+(?:one|now))?\W*$",
    re.IGNORECASE,
)


_BY_LEVEL = re.compile(r"\b(?:rank|sort|order|list)\w*\b(?:\s+\w+){0,3}?\s+by\s+level\b", re.IGNORECASE)
_WEAKEST = re.compile(r"\b(?:weakest|worst|least\s+powerful|most\s+useless)\b", re.IGNORECASE)
# "My strongest", "my best hero", "my worst one" in a pack whose strength is the level.
_STRONGEST = re.compile(
    r"\b(?:my|our)\s+(?:(?P<low>worst|weakest)|strongest|most powerful|best|top)\b"
    r"|\b(?:strongest|most powerful)\b",
    re.IGNORECASE,
)


def pick_strongest(c: _Ctx) -> list[Line]:
    """The strongest usable unit: the first of `ranked` the player can field, else of the roster
    by power (`tier_bonus`), not one of `skip`; other_key when the player asks for another and the
    last reply named that one; of the value of `attribute` the player names (role_key), or, owning
    none of it, the strongest of any (role_none_key)."""
    view, t = c.view, c.t
    if not view.known:
        return []
    by_level = LEVEL_RANK.search(t.utterance)
    if by_level is None and c.inputs.get("level_only"):
        by_level = _STRONGEST.search(t.utterance)  # a pack whose strength is the level: "my strongest"
    if c.inputs.get("ranked_key") and _BY_LEVEL.search(t.utterance) and view.owned():
        # "Rank my pets by level": all of them, highest first.
        units = sorted(view.owned(), key=lambda o: (-o.level, o.id))
        said = spoken_list([f"{c.name(o.id)} {o.level}" for o in units])
        return c.naming(c.inputs["ranked_key"], [], ranked=said)
    weakest = _WEAKEST.search(t.utterance)
    if (by_level is not None or weakest is not None) and c.inputs.get("level_key") and view.owned():
        # "Who's my highest level hero?": the roster by its levels, not by power; "my weakest one":
        # the lowest level (never the strongest, the opposite of what was asked).
        low = by_level is not None and (by_level.group("low") or by_level.groupdict().get("low2")) is not None
        lowest = weakest is not None or low
        # "my highest level damage hero": of the attribute's value the player names, when they own one
        attribute = c.inputs.get("attribute")
        named = _named_values(c, attribute) if attribute else []
        pool = [o for o in view.owned() if named and _value(c, view.unit_kind, o.id, attribute) in named]
        unit = sorted(pool or view.owned(), key=lambda o: o.level if lowest else -o.level)[0]
        rank = "lowest" if lowest else "highest"
        sort = f"{named[0].replace('_', ' ')} {view.unit_kind}" if pool else view.unit_kind
        return c.line(c.inputs["level_key"], [unit.id], **{"@unit": c.name(unit.id)}, rank=rank,
                      level=unit.level, tier=unit.tier, sort=sort)  # fmt: skip
    if c.inputs.get("level_only"):
        return []
    ranked = c.ids("ranked")
    roster = _strongest_first(c, sorted(o.id for o in view.owned() if o.id not in ranked))
    skip = set(c.ids("skip"))
    able = c.t.chosen_from([u for u in ranked + roster if c.usable(u) and u not in skip])
    if not able:
        return []
    if t.alternative and able[0] in t.avoid and c.inputs.get("other_key"):
        other = next((u for u in able if u not in t.avoid), None)
        if other is not None:
            return c.line(c.inputs["other_key"], [other], **{"@unit": c.name(other)})
    able = t.fresh_first(able)
    attribute = c.inputs.get("attribute")
    named = _named_values(c, attribute) if attribute else []
    of_value = [u for u in able if _value(c, view.unit_kind, u, attribute) in named]
    best = (of_value or able)[0]
    key: str | None = c.step.key
    if named:
        key = c.inputs.get("role_key") if of_value else c.inputs.get("role_none_key")
    elif best in t.choice and len(set(t.choice) & set(able)) >= 2 and c.inputs.get("choice_key"):
        key = c.inputs["choice_key"]  # "who hits harder, Emberfox or Galehawk": of those, not of all
    value = named[0] if named and not of_value else _value(c, view.unit_kind, best, attribute)
    owned = view.unit(best)
    return c.line(key, [best], **{"@unit": c.name(best)}, role=value, tier=owned.tier if owned else None,
                  level=owned.level if owned else None)  # fmt: skip


def _few(names: list[str], most: int = 3) -> str:
    """Up to `most` names in a list; more: the first two and how many others ("a, b and 4 more")."""
    return spoken_list(names) if len(names) <= most else f"{', '.join(names[:2])} and {len(names) - 2} more"


def members(c: _Ctx) -> list[Line]:
    """ "Who's in my team right now?", "are those both in my lineup?": who the player fields (key),
    and which of the units they named is not in it (absent_key). Nothing for any other question."""
    team = c.ids("units")
    if not team or not asks_members(c.t.pack, c.t.utterance):
        return []
    named = [u for u in c.t.mentioned if c.catalog.get(c.view.unit_kind, u) is not None]
    kinds = kinds_said(c.t.pack, c.t.utterance) if not named else []
    theirs = c.view.opponent_side() if THEIR_SIDE.search(c.t.utterance) else []
    if kinds and theirs and c.inputs.get("theirs_yes_key"):
        # "Do they have a tank?": the members of that kind on their side.
        _, fits = kinds[0]
        fielded = [u for u in theirs if u in fits]
        key = c.inputs["theirs_yes_key"] if fielded else c.inputs.get("theirs_no_key")
        return c.naming(key, [], **{"@units": c.names(fielded or theirs)})
    if kinds and c.inputs.get("kind_yes_key"):
        # "Any healers on my team?", "is there a support in my lineup?": the members of that kind.
        _, fits = kinds[0]
        fielded = [u for u in team if u in fits]
        if fielded:
            return c.line(c.inputs["kind_yes_key"], fielded, **{"@units": c.names(fielded)})
        bench = [u for u in fits if c.view.owns(u) and u not in team and c.usable(u)]
        lines = c.line(c.inputs.get("kind_no_key"), team, **{"@units": c.names(team)})
        if bench:
            best = max(bench, key=lambda u: (c.power(u), u))
            lines += c.line(c.inputs.get("bench_key"), [best], other=c.name(best))
        return lines
    absent = [u for u in named if u not in team]
    # "Is Sparkwing in my lineup?": yes (all of them are) or no (none is), then the team.
    answer = (
        c.inputs.get("yes_key")
        if not absent
        else c.inputs.get("no_key")
        if len(absent) == len(named)
        else None
    )
    lines = c.line((answer if named else None) or c.step.key, team, **{"@units": c.names(team)})
    if absent and len(absent) < len(named):  # "No: ..." said it of them all
        lines += c.line(c.inputs.get("absent_key"), [], missing=c.names(absent))
    return lines


# "Tamsin or Stellan?", "is Hexmoth better than Emberfox", "compare Oakhorn and Galehawk", "so
# Tamsin over Renzo then": two units weighed against each other (English cue words).
_WEIGHS = re.compile(
    r"\bcompare\b|\b(?:better|worse|stronger|weaker|safer)\s+(?:pick\s+)?than\b|\bor\b|\bover\b"
    r"|\bwhich\s+(?:one\s+)?(?:is\s+)?better\b|\bdifference\s+between\b",
    re.IGNORECASE,
)


# "Dumaka or Brannoc, 1v1 who wins": the two against each other, not weighed for the match.
_HEAD_TO_HEAD = re.compile(
    r"\b(?:1\s*v\s*1|one\s+on\s+one|one\s+v\s+one|who(?:'d|\s+would|\s+will|\s+is\s+gonna)?\s+wins?|"
    r"vs|versus|head\s+to\s+head|in\s+a\s+fight)\b",
    re.IGNORECASE,
)


def compare(c: _Ctx) -> list[Line]:
    """Two of the player's units weighed for this match: the one that fares better against the
    opponent's side by a unit x unit matchup (what each beats, what beats it) and, with a context
    (`fit`: a unit x context matchup, e.g. the map), fits it better; the reasons written by the
    step's patterns (`beats`: {unit} {foe}, `beaten`: {unit} {foe}, `fit`: {unit} {status}
    {context}), at most two; a foe that beats the better one too (caveat_key); even_key: nothing
    between them but strength. Nothing unless exactly two units, both the player's, are weighed
    and no foe is named (that is a counter question: the next step's)."""
    m, foes = _matchup(c), c.ids("foes")
    units = [u for u in c.t.mentioned if c.catalog.get(c.view.unit_kind, u) is not None]
    if (
        m is None
        or len(units) != 2
        or not foes
        or not all(c.usable(u) for u in units)
        or any(u in c.t.opponents for u in units)
        or not _WEIGHS.search(c.t.utterance)
        or _HEAD_TO_HEAD.search(c.t.utterance)
    ):
        return []
    fit = next((f for f in c.schema.matchups if f.name == c.inputs.get("fit")), None)
    where = c.ids("context")

    def mult(a: str, b: str) -> float:
        return multiplier(c.catalog, m, a, b)

    def beats(u: str) -> list[str]:
        return [f for f in foes if mult(u, f) > m.default]

    def beaten(u: str) -> list[str]:
        return [f for f in foes if mult(f, u) > m.default]

    def fits(u: str) -> float:
        return multiplier(c.catalog, fit, u, where[0]) if fit is not None and where else 1.0

    def edge(u: str) -> float:
        return len(beats(u)) - len(beaten(u)) + 2.0 * (fits(u) - (fit.default if fit else 1.0))

    def level(u: str) -> int:
        owned = c.view.unit(u)
        return owned.level if owned is not None else 0

    better, worse = sorted(units, key=lambda u: (-edge(u), -level(u), -c.power(u), units.index(u)))
    names = {"@unit": c.name(better), "other": c.name(worse)}
    if edge(better) == edge(worse) and c.inputs.get("even_key"):
        # Even on the matchups: a "reason" from one side of it would read as a verdict it isn't.
        return c.line(c.inputs["even_key"], [better], **names, level=level(better), other_level=level(worse))
    reasons: list[str] = []
    gained = [f for f in beats(better) if f not in beats(worse)]
    if gained and c.inputs.get("beats"):
        reasons.append(str(c.inputs["beats"]).format(unit=c.name(better), foe=c.names(gained)))
    spared = [f for f in beaten(worse) if f not in beaten(better)]
    if spared and c.inputs.get("beaten"):
        # {s}: the verb's ending, agreeing with the foes ("Voltail hits", "Briarcat and Shellbastion hit").
        s_ = "" if len(spared) > 1 else "s"
        reasons.append(str(c.inputs["beaten"]).format(unit=c.name(worse), foe=c.names(spared), s=s_))
    if fit is not None and where and fits(better) != fits(worse) and c.inputs.get("fit_pattern"):
        for u in (better, worse):
            status = _words(fit, fits(u))
            if status and len(reasons) < 2:
                reasons.append(
                    str(c.inputs["fit_pattern"]).format(
                        unit=c.name(u), status=status, context=c.name(where[0])
                    )
                )
    if not reasons:
        return c.line(
            c.inputs.get("even_key"), [better], **names, level=level(better), other_level=level(worse)
        )
    lines = c.line(c.step.key, [better], **names, reasons=spoken_list(reasons[:2]))
    risks = [f for f in beaten(better)]
    if risks and c.inputs.get("caveat_key"):
        lines += c.line(c.inputs["caveat_key"], [], **{"@unit": c.name(better)}, foe=c.names(risks))
    return lines


def team_read(c: _Ctx) -> list[Line]:
    """A team against the opponent's side, read by the unit x unit matchup as a coach would: for
    each of theirs the member that hits it hardest, if one beats it (key: `{pairs}`, each written
    by the step's `pair` pattern; `{verdict}`: the step's `verdicts` word, good / mixed / poor),
    those of theirs none of the team beats (open_key: `{foes}`), and the one of theirs that beats
    the most of the team (exposed_key: `{foe}`, `{units}` the members it beats). Not a rating:
    a number the game never shows reads as invented; the matchups are the game's own data.
    Nothing without the opponent's side: the next step (a rating) answers."""
    m, team, foes = _matchup(c), c.ids("units"), c.ids("foes")
    if m is None or m.between != (c.view.unit_kind, c.view.unit_kind) or not team or not foes:
        return []

    def mult(attacker: str, defender: str) -> float:
        return multiplier(c.catalog, m, attacker, defender)

    pattern = str(c.inputs.get("pair") or "{unit} into {foe}")
    beats: dict[str, list[str]] = {}  # member -> the foes it beats best, said once per member
    open_ = []
    for foe in foes:
        best = max(team, key=lambda u: mult(u, foe))  # the first of the team on a tie
        if mult(best, foe) > m.default:
            beats.setdefault(best, []).append(foe)
        else:
            open_.append(foe)
    pairs = [pattern.format(unit=c.name(u), foe=c.names(fs)) for u, fs in beats.items()]
    beaten = {f: [u for u in team if mult(f, u) > m.default] for f in foes}
    worst = max(foes, key=lambda f: len(beaten[f]))
    verdicts = c.inputs.get("verdicts") or {}
    if c.inputs.get("keep_verdicts") and KEEP_OR_CHANGE.search(normalise(c.t.utterance)):
        verdicts = c.inputs["keep_verdicts"]  # "do I change anything or run it back": keep it, or change
    grade = "poor" if not pairs else "good" if not open_ and not beaten[worst] else "mixed"
    verdict = verdicts.get(grade)
    if pairs:
        lines = c.line(c.step.key, team, pairs=spoken_list(pairs), verdict=verdict)
    elif set(foes) < set(c.view.opponent_side()):
        lines = []  # "does anything on my team hit Voltail for double": the open line says it of Voltail
    else:
        lines = c.line(c.step.none_key, team, verdict=verdict, **{"@units": c.names(team)})
    unanswered = c.line(c.inputs.get("open_key"), [], foes=c.names(open_)) if open_ else []
    exposed = []
    if beaten[worst]:
        exposed = c.line(
            c.inputs.get("exposed_key"), [], foe=c.name(worst), **{"@units": c.names(beaten[worst])}
        )
    if c.inputs.get("trouble_only"):
        return exposed + unanswered  # "why do we keep losing": what beats them is the answer
    return lines + unanswered + exposed


def coverage(c: _Ctx) -> list[Line]:
    """Which values of an attribute matchup's type kind the team's units beat (pet: the elements
    the team hits for double damage) and which none of them does (key; many_key: more than three
    beaten, said as a count); full_key: all of them; none_key: none."""
    m, units = _matchup(c), c.ids("units")
    types = _types(c, m) if m is not None else []
    if m is None or not units or not types:
        return []
    if c.inputs.get("weak_key") and _DEFENDS.search(c.t.utterance):
        # "Which elements is my lineup weak to?": the types that hit the most of the team hard.
        def victims(d: str) -> int:
            return sum(
                _type_mult(c, m, d, _value(c, m.between[1], u, m.attribute)) > m.default for u in units
            )

        most = max((victims(d) for d in types), default=0)
        if most:
            worst = [d for d in types if victims(d) == most]
            size = len(units)
            lines = c.line(c.inputs["weak_key"], [], **{"@types": c.names(worst)}, count=most, size=size)
            # "Which elements ...": the rest that hit one of them hard are part of the answer too.
            rest = [d for d in types if 0 < victims(d) < most]
            if rest and c.inputs.get("also_key"):
                lines += c.line(c.inputs["also_key"], [], **{"@types": c.names(rest)})
            return lines
    ours = list(dict.fromkeys(v for u in units if (v := _value(c, m.between[0], u, m.attribute)) is not None))
    hit = [d for d in types if any(_type_mult(c, m, a, d) > m.default for a in ours)]
    missed = [c.name(d) for d in types if d not in hit]
    said = {"size": len(types), "count": len(hit), "missed": _few(missed)}
    if not missed:
        return c.line(c.inputs.get("full_key"), [], **said)
    if not hit:
        return c.line(
            c.step.none_key, [], **said, **{"@types": spoken_list(sorted(c.name(str(a)) for a in ours))}
        )
    many = len(hit) > 3 and c.inputs.get("many_key")
    return c.line(many or c.step.key, [], **said, **{"@types": c.names(hit)})


def groups_compare(c: _Ctx) -> list[Line]:
    """Two groups the player names, side by side on what the player owns of each (the pack has no
    win rates): the one they own more of (key), or both when even (even_key), with each group's
    attributes (its style) as they are and with "other_"."""
    view, group = c.view, c.view.group_kind
    named = c.ids("groups") if "groups" in c.inputs else list(c.t.lineups)
    named = [g for g in named if group is not None and c.catalog.get(group, g) is not None]
    if group is None or len(named) < 2 or not view.known:
        return []
    a, b = named[:2]

    def owned(g: str) -> int:
        return sum(view.owns(u) for u in view.members(g))

    even = owned(a) == owned(b)
    best, other = (a, b) if even or owned(a) > owned(b) else (b, a)
    values: dict[str, Any] = {"@group": c.name(best), "count": owned(best), "size": len(view.members(best)),
                              "other_@group": c.name(other), "other_count": owned(other),
                              "other_size": len(view.members(other))}  # fmt: skip
    for attribute in c.schema.kinds[group].attributes:
        values[attribute] = _value(c, group, best, attribute)
        values[f"other_{attribute}"] = _value(c, group, other, attribute)
    key = c.inputs.get("even_key") if even else c.step.key
    return c.line(key, [a, b] if even else [best], **values)


def why(c: _Ctx) -> list[Line]:
    """ "Why that one?": the reason for the previous reply's picks, not another pick: the team's
    rating when they were the suggested team (team_key), else how its first pick that beats one of
    `foes` does it (key, as a counter is said; back_key when that foe also hits it for less than
    normal back), else, beating none, its level and that none of `foes` beats it (level_key).
    Nothing on any other turn."""
    t = c.t
    if not t.why:
        return []
    team, score = c.ids("team"), c.get("score")
    if team and score is not None and set(team) == set(t.why) and c.inputs.get("team_key"):
        return c.line(c.inputs["team_key"], [], score=score)
    m, foes = _matchup(c), c.ids("foes")
    if m is None or not foes:
        return []
    picks = [u for u in dict.fromkeys(t.why) if c.catalog.get(m.between[0], u) is not None]
    # "Against Nadira, play Brannoc" - "why him": against the foe that reply named, if he beats it
    said = {x.id for x in link_entities(t.pack, t.recent[-1] if t.recent else "")}
    for uid in picks:
        beaten = [f for f in foes if f in said and multiplier(c.catalog, m, uid, f) > m.default] or foes
        foe = max(beaten, key=lambda f: (multiplier(c.catalog, m, uid, f), -foes.index(f)))
        if multiplier(c.catalog, m, uid, foe) > m.default:
            values = _counter_values(c, m, uid, foe)
            back = multiplier(c.catalog, m, foe, uid) if m.between[0] == m.between[1] else m.default
            if back < m.default and c.inputs.get("back_key"):
                return c.line(c.inputs["back_key"], [uid], back=_words(m, back), **values)
            # the pack's reason for the counter, when it has one, is the answer: its variant first
            return c.line(c.step.key, [uid], **values, **({"variant": 0} if values.get("reason") else {}))
    owned = c.view.unit(picks[0]) if picks and c.view.known else None
    if owned is None or not c.inputs.get("level_key") or m.between[0] != m.between[1]:
        return []
    if any(multiplier(c.catalog, m, f, owned.id) > m.default for f in foes):
        return []  # one of theirs beats it: the pick was not about this fight's matchups
    return c.line(c.inputs["level_key"], [owned.id], **{"@unit": c.name(owned.id)}, level=owned.level)


def saved_group(c: _Ctx) -> list[Line]:
    """The team the player saved (the first by its name whose units they all have), with its name
    and units (key); none saved (none_key)."""
    view = c.view
    if not view.known:
        return []
    saved = view.saved_groups()
    for name in sorted(saved):
        members = saved[name]
        if members and all(view.owns(u) and c.catalog.get(view.unit_kind, u) is not None for u in members):
            return c.line(c.step.key, members, name=name, **{"@units": c.names(members)})
    return c.line(c.step.none_key)


def option_hits(c: _Ctx) -> list[Line]:
    """An option the player can use, against `foes` by an attribute matchup on the option's own
    value of it (pet: a skill's element): the first foe it beats (key), or none (none_key, with its
    value). Nothing when the player cannot use it: the next step says why. An option that only does
    something for its own side (a heal, a shield: voicecoach.domain.effects) hits no one: own_side_key,
    with its {description}."""
    m, ids, option = _matchup(c), c.ids("option"), c.view.option_kind
    if m is None or m.attribute is None or not ids or option is None:
        return []
    oid = ids[0]
    if c.inputs.get("own_side_key") and for_own_side(c.t.pack, oid):
        # "Does Gentle Light do anything against them": it heals; its element hits no one.
        entity = c.catalog.get(option, oid)
        text = str(entity.value("description") or "").rstrip(".") if entity is not None else ""
        return c.line(c.inputs["own_side_key"], [oid], **{"@option": c.name(oid)},
                      description=text[:1].lower() + text[1:] or None)  # fmt: skip
    locked = not c.view.option_usable(oid)
    if locked and (not c.inputs.get("locked_key") or not any(c.view.owns(u) for u in c.view.learners(oid))):
        return []  # not the player's to use at all: the next step says why
    mine = _value(c, option, oid, m.attribute)
    if mine is None:
        return []

    def mult(foe: str) -> float:
        return _type_mult(c, m, mine, _value(c, m.between[1], foe, m.attribute))

    weak = [f for f in c.ids("foes") if mult(f) > m.default]
    values = {"@option": c.name(oid), str(m.attribute): c.name(str(mine))}
    named = [f for f in c.t.mentioned if f in c.ids("foes")]
    if locked:
        # "Is Worldroot Slam any good against the water guy" while it is locked: what it would do to
        # that one, and what it still needs; against their whole side, to the one it would hit
        # hardest (not for a move that only guards its own side, "Granite Bulwark": it hits no one).
        effects = option_effects(c.t.pack).get(oid, frozenset())
        hits_foes = not effects or not effects <= ALLY_EFFECTS
        foe = named[0] if len(named) == 1 else None
        if foe is None and not named and weak and hits_foes:
            foe = weak[0]
        owner = next((u for u in c.view.learners(oid) if c.view.owns(u)), None)
        if foe is None or owner is None:
            return []
        said = {**values, "foe": c.name(foe), "status": _words(m, mult(foe))}
        return _locked(c, c.inputs["locked_key"], [oid], oid, owner, said)  # with what it still needs
    if len(named) == 1 and not weak and c.inputs.get("one_key"):
        # "Is Blaze Charge worth using on their turtle": that one, as it takes it (half, normal).
        foe = named[0]
        foe_value = _value(c, m.between[1], foe, m.attribute)
        key = (c.inputs.get("even_key") if mult(foe) == m.default else None) or c.inputs["one_key"]
        return c.line(key, [oid], **values, foe=c.name(foe), status=_words(m, mult(foe)),
                      **{f"foe_{m.attribute}": c.name(str(foe_value)) if foe_value else None})  # fmt: skip
    if weak:
        return c.line(c.step.key, [oid], **values, foe=c.name(weak[0]), status=_words(m, mult(weak[0])))
    return c.line(c.step.none_key, [oid], **values)


Recipe = Callable[[_Ctx], list[Line]]
RUN: dict[str, Recipe] = {
    "pick_best": pick_best, "pick_pair": pick_pair, "ownership": ownership, "option_status": option_status,
    "option_best": option_best, "equipped": equipped,
    "list_owned": list_owned, "groups_fieldable": groups_fieldable, "rating": rating, "team_read": team_read,
    "members": members,
    "matchup_status": matchup_status, "compare": compare, "context_for_team": context_for_team,
    "catalog_top": catalog_top,
    "team_on_context": team_on_context,
    "sides_on_attribute": sides_on_attribute,
    "unit_verdict": unit_verdict,
    "option_target": option_target,
    "fact": fact, "quota": quota, "pick_fit": pick_fit,
    "pick_swap": pick_swap, "threat": threat, "read_side": read_side, "fill_role": fill_role,
    "side_style": side_style,
    "option_next": option_next, "next_unit": next_unit, "option_equip": option_equip,
    "group_for_unit": group_for_unit, "progression": progression, "pick_strongest": pick_strongest,
    "coverage": coverage, "groups_compare": groups_compare, "why": why, "saved_group": saved_group,
    "option_hits": option_hits, "type_counters": type_counters, "type_hits": type_hits, "weak_to": weak_to,
    "weak_side": weak_side, "kind_on_context": kind_on_context,
}  # fmt: skip
assert set(RUN) == set(RECIPES)  # recipe_spec declares what pack.py checks: both agree


def answer(t: RealizerTurn, steps: Sequence[AnswerStep]) -> bool:
    """Add the lines of the first step that yields any; after a step marked `also` yields, the
    later steps' lines too, up to the first one without `also` that yields. A `follow` step runs
    only after such a step, an `alone` step only when none yielded, an `asked` step only on a turn
    asked in one of its shapes. False when none yields."""
    view = StateView(t.pack, t.state)
    answered = False
    asked = shapes(t.utterance)
    for step in steps:
        if (step.follow and not answered) or (step.alone and answered):
            continue
        if step.asked is not None and not asked.intersection(step.asked):
            continue
        lines = RUN[step.recipe](_Ctx(t, step, view))
        if lines:
            t.lines.extend(lines)
            answered = True
            if not step.also:
                break
    return answered
