"""CoachBench generator: a seeded, stratified benchmark of coaching sessions over a domain pack.

The paper's benchmark (§7.1, G.2) is 200 sessions / ≈1,000 scored turns sampled from production
traces. We have no traces, so we synthesise sessions over a domain pack (pet-arena's is the one
benchmarked; its constants are `packdata`'s defaults) with the same design:

- Stratum 1 (G.2, evaluation eligibility), by *primary* assignment: 80 factual Q&A sessions (TGA/SGA
  primary), 60 coaching sessions with a continuing goal (DGP-eligible), 60 sessions with cross-turn
  dependencies — evolving constraints, state updates between turns, repeated-guidance pressure
  (CCC-eligible).
- Stratum 2, session length in *scored* turns: single / short (2-5) / long (6-16) at 30/40/30 %
  (60/80/60). G.2 also caps single-turn sessions at 60 % of the factual stratum (so SGA carries
  information beyond TGA) and the other strata are multi-turn by definition, so 12 of the 60
  single-scored-turn sessions sit in the cross-turn stratum: one unscored context turn (the
  dialogue history the paper retains for every scored turn, §7.1) followed by the scored turn that
  depends on it. Long sessions average 11 turns, so the benchmark holds ≈1,000 scored turns.
- Drift tags A/B/C/D (Appendix B) are diagnostic, not a sampling stratum: each turn is tagged with
  the drifts it exposes and a session carries the union (zero or more).

Every turn carries the full live-state snapshot (validated by `voicecoach.core.state.load_state`), how the
game delivers it (`push`: on time, or "late": the coach still sees the previous snapshot, marked
stale — latency drift), the utterance (composed from paraphrase fragments, fillers, openers and
STT-style lowercase variants), and the `Reference`: the expected (intent, sub_intent) from Φ and the
direction derived from the state (which owned creatures counter the opponent, which mentioned
entities are unowned, which skills are locked, what the player excluded, whether the previous
recommendation must not repeat). This is the shared grounding reference set of G.3: the same for
every configuration.

Determinism: every draw comes from a `random.Random` seeded by (seed, session id), nothing iterates a
set unsorted, and files are written with pydantic's stable JSON, so a fixed seed reproduces the JSONL
byte for byte.

Why one module of ~1,200 lines: `_Builder` is one session's state and `random.Random`, drawn and
changed by the state drawing, the turn composer and the three strata, and a loaded turn without an
expectation gets it from the builder's own derivation (`expectation_of`). The seam: the records
(`Reference` to `BenchManifest`) with `load_benchmark`, which the checker and the runner read.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import string
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from voicecoach.bench.coachbench.packdata import BenchData, Event, Pick, bench_data, family, pick_list
from voicecoach.bench.coachbench.responsive import Expectation, build_expectation
from voicecoach.core.state import StateError, load_state
from voicecoach.domain.catalog import Matchup
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import Pack, load_pack
from voicecoach.domain.view import StateView

GENERATOR_VERSION = "2"  # 2: references carry the expectation (responsive rules)
DEFAULT_SEED = 7

DriftTag = Literal["A", "B", "C", "D"]
DRIFT_NAMES: dict[str, str] = {"A": "latency", "B": "slot", "C": "fatigue", "D": "coherence"}
Stratum = Literal["factual_qa", "coaching", "cross_turn"]
LengthClass = Literal["single", "short", "long"]
Push = Literal["snapshot", "late"]
Branch = Literal["recommend", "teaching", "knowledge-qa"]

# (stratum, length class, sessions): the G.2 two-way stratification, see the module docstring.
CELLS: tuple[tuple[Stratum, LengthClass, int], ...] = (
    ("factual_qa", "single", 48),
    ("factual_qa", "short", 32),
    ("coaching", "short", 24),
    ("coaching", "long", 36),
    ("cross_turn", "single", 12),
    ("cross_turn", "short", 24),
    ("cross_turn", "long", 24),
)
SHORT_TURNS = (2, 5)
LONG_TURNS = (6, 16)


# --- the benchmark records ----------------------------------------------------------------------


class _Model(BaseModel):
    # extra="forbid": a hand-edited file with a misspelt field fails naming it.
    model_config = ConfigDict(extra="forbid")


def _pack_of(info: ValidationInfo) -> Pack:
    context = info.context if isinstance(info.context, dict) else {}
    pack = context.get("pack")
    return pack if isinstance(pack, Pack) else load_pack()


def _data_of(info: ValidationInfo) -> BenchData | None:
    context = info.context if isinstance(info.context, dict) else {}
    data = context.get("data")
    return data if isinstance(data, BenchData) else None


class Reference(_Model):
    """The expected intent and the state-derived direction of one turn (the G.3 reference set)."""

    intent: str
    sub_intent: str
    branch: Branch
    mentioned: list[str] = Field(description="creature and skill ids the utterance names")
    owned_mentioned: list[str] = Field(description="mentioned creatures the player owns: never 'missing'")
    unowned_mentioned: list[str] = Field(description="mentioned creatures the player lacks: never credited")
    locked_skills: list[str] = Field(description="mentioned skills not usable now: never offered as usable")
    unlocked_skills: list[str] = Field(description="mentioned skills the player can use: never 'locked'")
    counters: list[str] = Field(description="owned creatures dealing double damage to the opponent")
    usable_lineups: list[str] = Field(description="pack lineups the player owns completely (none excluded)")
    excluded: list[str] = Field(description="creatures the player asked to keep out, so far this session")
    guidance_expected: bool = Field(description="a recommend-branch turn")
    no_repeat: bool = Field(description="repeated-guidance pressure: the last recommendation must not return")
    direction: str
    expect: Expectation | None = Field(
        default=None, description="what a correct answer must contain (filled on load for older files)"
    )

    @model_validator(mode="after")
    def _pair_in_phi(self, info: ValidationInfo) -> Reference:
        pack = _pack_of(info)
        entry = next(
            (e for e in pack.phi if (e.intent, e.sub_intent) == (self.intent, self.sub_intent)), None
        )
        if entry is None:
            raise ValueError(f"({self.intent!r}, {self.sub_intent!r}) is not a registered Φ pair")
        if entry.branch != self.branch:
            raise ValueError(f"branch {self.branch!r} differs from Φ's {entry.branch!r}")
        return self


class BenchTurn(_Model):
    turn_index: int = Field(ge=0)
    scored: bool = True  # False: dialogue history a scored turn depends on, run but not scored
    utterance: str = Field(min_length=1)
    push: Push = "snapshot"
    state_change: str | None = Field(default=None, description="what the game changed since the last turn")
    state: dict[str, Any] = Field(description="the live state at this turn (the truth the reference uses)")
    drift_tags: list[DriftTag] = Field(default_factory=list)
    reference: Reference

    @field_validator("state")
    @classmethod
    def _valid_state(cls, value: dict[str, Any]) -> dict[str, Any]:
        try:
            load_state(value)
        except StateError as err:
            raise ValueError(str(err)) from None
        return value

    @model_validator(mode="after")
    def _expectation(self, info: ValidationInfo) -> BenchTurn:
        # A benchmark written before references carried expectations is judged by the same rules.
        if self.reference.expect is None:
            self.reference.expect = expectation_of(_pack_of(info), self.state, self.reference, _data_of(info))
        return self


class Eligibility(_Model):
    """Appendix B's eligibility record, declared before any reply is scored."""

    tga_sga: bool = True
    dgp: bool
    ccc: bool


class BenchSession(_Model):
    session_id: str = Field(min_length=1)
    stratum: Stratum
    length_class: LengthClass
    goal: str | None = None
    eligibility: Eligibility
    diagnostic_drift_tags: list[DriftTag]
    w3_seed: int = Field(ge=0, description="W3's seed for this session, the same in every configuration")
    turns: list[BenchTurn] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> BenchSession:
        for i, turn in enumerate(self.turns):
            if turn.turn_index != i:
                raise ValueError(f"turns[{i}].turn_index is {turn.turn_index}, expected {i}")
            if turn.state.get("turn_index") != i:
                raise ValueError(f"turns[{i}].state.turn_index must be {i}")
        if self.turns[0].push == "late":
            raise ValueError("turns[0].push cannot be 'late': there is no earlier snapshot")
        scored = sum(t.scored for t in self.turns)
        if length_class(scored) != self.length_class:
            raise ValueError(f"{scored} scored turns is not a {self.length_class!r} session")
        return self

    @property
    def scored_turns(self) -> list[BenchTurn]:
        return [t for t in self.turns if t.scored]


class BenchManifest(_Model):
    name: str = "coachbench"
    generator_version: str
    seed: int
    pack_id: str
    pack_version: str
    file: str
    sha256: str
    sessions: int
    turns: int
    scored_turns: int
    strata: dict[str, int]
    lengths: dict[str, int]
    drift_tags: dict[str, int] = Field(description="sessions carrying each tag")
    eligibility: dict[str, int]


class BenchmarkError(ValueError):
    """A benchmark file that does not validate; the message names file, session and field."""


def length_class(scored_turns: int) -> LengthClass:
    if scored_turns <= 1:
        return "single"
    return "short" if scored_turns <= SHORT_TURNS[1] else "long"


# --- utterance composition ------------------------------------------------------------------------
#
# The phrase tables are pack data (`<pack>/coachbench.json`, see `packdata`). Cores are keyed
# "intent/sub_intent"; their placeholders are the file's `slots`, each a role (pet: {c} {c2} a
# creature, {cs} a few creatures, {s} a skill, {opp} the opponent, {rnd} the round) or a context
# kind (a map). Several cores per pair, openers, closers, fillers and three casing styles keep one
# pair from being one template. No filler may contain a catalog name (element words such as
# "light" or skills such as "kindle" would be linked as entities).


def _slot_names(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _style(rng: random.Random, data: BenchData, text: str) -> str:
    """Openers, closers, fillers and one of three casings: STT lowercase, casual typed, proper."""
    if rng.random() < 0.2:  # a filler leads the request, as speech does ("um so like what ...")
        text = f"{rng.choice(data.fillers)} {text}"
    if rng.random() < 0.45:
        text = rng.choice(data.openers) + text
    if rng.random() < 0.3:
        text = text + rng.choice(data.closers)
    roll = rng.random()
    if roll < 0.5:  # STT: lowercase, no punctuation; sometimes no apostrophes either
        text = "".join(ch for ch in text.lower() if ch.isalnum() or ch in " '")
        if rng.random() < 0.5:
            text = text.replace("'", "")
        return " ".join(text.split())
    question = any(w in data.question_words for w in text.lower().replace(",", " ").split()[:4])
    end = "?" if question or rng.random() < 0.5 else "."
    if roll < 0.8:  # casual typed: names lowercase, a question mark
        return text.lower().rstrip(" ,") + end
    return text[0].upper() + text[1:].rstrip(" ,") + end


# --- the player's state ----------------------------------------------------------------------------
#
# The state is written as the raw snapshot dict the game would push, in the layout of the pack's
# schema profile (`_Layout`); the generator reads the catalog by kind and role (voicecoach.domain.catalog),
# and draws what `synth` in coachbench.json says (its defaults are pet_arena's constants).


@dataclass(frozen=True)
class _Layout:
    """Where a profile keeps the player's units in the snapshot, and what an entry's keys are called
    (voicecoach.core.state: `Inventory`/`OwnedCreature` classic, `Collection`/`OwnedEntity`)."""

    box: str
    units: str
    id: str
    tier: str
    unlocked: str
    groups: str


CLASSIC = _Layout("inventory", "owned", "creature_id", "stage", "unlocked_skills", "saved_lineups")
COLLECTION = _Layout("collection", "units", "id", "tier", "unlocked", "saved_groups")


class _Pack:
    """The catalog questions the generator asks, by role, for any pack."""

    def __init__(self, pack: Pack, data: BenchData) -> None:
        self.pack, self.data, self.catalog = pack, data, pack.catalog
        schema = self.catalog.schema
        self.layout = CLASSIC if schema.state == "classic" else COLLECTION
        self.unit_kind = schema.kind("unit") or ""
        self.option_kind = schema.kind("option")
        self.group_kind = schema.kind("group")
        self.contexts = schema.kinds_of("context")
        self.units = self.catalog.entities.get(self.unit_kind, {})
        self.options = self.catalog.entities.get(self.option_kind, {}) if self.option_kind else {}
        self.groups = self.catalog.entities.get(self.group_kind, {}) if self.group_kind else {}
        self.options_field = schema.options_field()
        self.tiers_field = schema.progression.field if schema.progression is not None else None
        self.gates = schema.kinds[self.option_kind].gate if self.option_kind else {}
        members = schema.kinds[self.group_kind].members if self.group_kind else None
        self.members_field = members or ""
        unit_pairs = [m for m in schema.matchups if tuple(m.between) == (self.unit_kind, self.unit_kind)]
        self.matchup = unit_pairs[0] if unit_pairs else None
        self.matchups = {m.name: m for m in schema.matchups}
        composition = schema.composition
        self.side = data.synth.side_size or (composition.size if composition is not None else 3)
        option = schema.kinds.get(self.option_kind or "")
        self.slot = option.slot if option is not None else None  # the attribute naming an option's slot
        # The unit kind's gates on the account level (synth.roster "by_gate" reads them).
        unit = schema.kinds.get(self.unit_kind)
        self.unit_gates = [f for f, g in unit.gate.items() if g.state == "fs.player_level"] if unit else []

    def account_gate(self, uid: str) -> int:
        """The account level the unit unlocks at (0: from the start)."""
        unit = self.units.get(uid)
        unlock = unit.value("unlock") if unit is not None else None
        values = [unlock.get(f) or 0 for f in self.unit_gates] if isinstance(unlock, dict) else []
        return max(values, default=0)

    def roster_at(self, player_level: int) -> list[str]:
        """synth.roster "by_gate": the units an account of `player_level` has, in id order."""
        return [u for u in sorted(self.units) if self.account_gate(u) <= player_level]

    def name(self, kind: str | None, eid: str) -> str:
        entity = self.catalog.get(kind, eid) if kind else None
        return entity.display if entity is not None else eid

    def unit_name(self, uid: str) -> str:
        return self.name(self.unit_kind, uid)

    def options_of(self, uid: str) -> list[str]:
        unit = self.units.get(uid)
        return list(unit.value(self.options_field) or []) if unit is not None and self.options_field else []

    def tiers(self, uid: str) -> list[str]:
        unit = self.units.get(uid)
        return list(unit.value(self.tiers_field) or []) if unit is not None and self.tiers_field else []

    def members(self, gid: str) -> list[str]:
        group = self.groups.get(gid)
        return list(group.value(self.members_field) or []) if group is not None else []

    def unlock(self, oid: str) -> dict[str, Any]:
        option = self.options.get(oid)
        unlock = option.value("unlock") if option is not None else None
        return unlock if isinstance(unlock, dict) else {}

    def gate_free(self, oid: str) -> bool:
        option = self.options.get(oid)
        return option is not None and not option.value("unlock")

    def quest_gates(self) -> list[str]:
        """Each option's quest, in catalog order (an option may need one quest)."""
        quests = [f for f, g in self.gates.items() if g.state == "quest"]
        return [q for oid in self.options for f in quests if (q := self.unlock(oid).get(f))]

    def unlocked(self, uid: str, e: dict[str, Any], player_level: int, quests: list[str]) -> list[str]:
        """The unit's options whose every gate the entry meets, in catalog order."""
        lay = self.layout
        have = {"tier": e.get(lay.tier) or 1, "level": e["level"], "fs.player_level": player_level}
        out = []
        for oid in self.options_of(uid):
            ok = True
            for gate_field, value in self.unlock(oid).items():
                gate = self.gates.get(gate_field)
                if value is None or gate is None:
                    continue
                ok = ok and (value in quests if gate.state == "quest" else value <= have.get(gate.state, 0))
            if ok:
                out.append(oid)
        return out

    def matchup_for(self, pair: str) -> Matchup | None:
        """The matchup a pair's counters come from: coachbench.json's `matchups`, else unit vs unit."""
        name = self.data.matchups.get(pair)
        return self.matchups[name] if name is not None else self.matchup

    def multiplier(self, m: Matchup, a: str, b: str) -> float:
        """How much `a` (a unit) beats `b` (of the matchup's second kind) in matchup `m`."""
        if m.attribute is not None:
            first, second = (self.catalog.get(k, x) for k, x in zip(m.between, (a, b), strict=True))
            a = first.value(m.attribute) if first is not None else a
            b = second.value(m.attribute) if second is not None else b
        return self.catalog.tables.get(m.name, {}).get(a, {}).get(b, m.default)


def _owned_entry(
    p: _Pack, rng: random.Random, uid: str, player_level: int, quests: list[str], tier: int = 0
) -> dict[str, Any]:
    lay, synth = p.layout, p.data.synth
    tiers = p.tiers(uid)
    if tiers:
        tier = tier or rng.randint(1, len(tiers))
        level = rng.randint(*synth.levels_by_tier[tier])
        e: dict[str, Any] = {lay.id: uid, lay.tier: tier, "level": level}
    else:
        e = {lay.id: uid, "level": rng.randint(*synth.levels)}
    e[lay.unlocked] = p.unlocked(uid, e, player_level, quests)
    return e


def _equip(p: _Pack, rng: random.Random, e: dict[str, Any]) -> None:
    """synth.equip: fill each slot the unit has an unlocked option for and nothing on yet."""
    if p.slot is None:
        return
    on: dict[str, str] = e.setdefault("equipped", {})
    slots = {oid: p.options[oid].value(p.slot) for oid in e[p.layout.unlocked]}
    for slot in dict.fromkeys(v for v in slots.values() if isinstance(v, str)):
        if slot not in on:
            on[slot] = rng.choice([oid for oid, v in slots.items() if v == slot])


def _new_state(p: _Pack, rng: random.Random, with_match: bool) -> dict[str, Any]:
    pack, lay, synth = p.pack, p.layout, p.data.synth
    ids = sorted(p.units)

    def weight(uid: str) -> int:
        w = 1
        for attr, table in synth.weights.items():
            w *= table.get(str(p.units[uid].value(attr)), 1)
        return w

    weights = [weight(u) for u in ids]
    quests = sorted({q for q in p.quest_gates() if rng.random() < synth.quest_rate})
    owned: list[str] = []
    if synth.roster == "by_gate":
        # The account's level decides the roster: every unit whose gate it meets, and no other.
        player_level = rng.randint(*synth.player_levels)
        owned = p.roster_at(player_level)
        entries = [_owned_entry(p, rng, uid, player_level, quests) for uid in owned]
    else:
        if p.groups and rng.random() < synth.group_rate:  # a complete pack group: W3 has something to offer
            owned += p.members(rng.choice(sorted(p.groups)))
        target = rng.randint(max(synth.owned[0], len(owned)), max(synth.owned[1], len(owned) + 2))
        target = min(target, len(ids))  # a small catalog: every unit
        while len(owned) < target:
            uid = rng.choices(ids, weights)[0]
            if uid not in owned:
                owned.append(uid)
        owned.sort()
        entries = [_owned_entry(p, rng, uid, 1, quests) for uid in owned]
        player_level = min(synth.max_player_level, max(e["level"] for e in entries) + rng.randint(0, 4))
    for uid, e in zip(owned, entries, strict=True):  # gates on the player's level: now it is known
        e[lay.unlocked] = p.unlocked(uid, e, player_level, quests)
        if synth.equip:
            _equip(p, rng, e)
    main = rng.sample(owned, min(p.side, len(owned)))
    state: dict[str, Any] = {
        "version": 1,
        "turn_index": 0,
        "ic": {"patch_version": pack.version},
        "fs": {
            "player_level": player_level,
            lay.box: {lay.units: entries, lay.groups: {synth.saved_group: main}},
        },
        "static": {"pack_id": pack.pack_id, "pack_version": pack.version},
    }
    if with_match:
        side = min(p.side, len(ids))
        if p.groups and rng.random() < 0.5:
            foes = p.members(rng.choice(sorted(p.groups)))
            opponent = rng.sample(foes, min(side, len(foes)))
        else:
            opponent = rng.sample(ids, side)
        rounds = synth.rounds
        rnd = rng.randint(1, rounds)
        coin = rng.randint(0, 1)  # drawn in every round, as the score's table always did
        # Round 1 is 0-0; the final round is level or one up; a round between is won or lost.
        won = 0 if rnd == 1 else (rnd - 1) // 2 if rnd == rounds else min(rnd - 1, (rnd - 2) // 2 + coin)
        match: dict[str, Any] = {
            "mode": rng.choice(synth.modes),
            "round": rnd,
            "rounds_total": rounds,
            "score_player": won,
            "score_opponent": rnd - 1 - won,
            "player_lineup": list(main),
            "opponent_lineup": opponent,
        }
        if p.contexts:
            match["context"] = {k: rng.choice(sorted(p.catalog.entities.get(k, {}))) for k in p.contexts}
        state["ic"]["match"] = match
    state["_quests"] = quests  # generator bookkeeping, stripped before a snapshot is written
    return state


# --- one session under construction ------------------------------------------------------------------


@dataclass
class _Builder:
    p: _Pack
    rng: random.Random
    state: dict[str, Any]
    turns: list[BenchTurn] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)
    change: str | None = None  # state change pending for the next turn
    late: bool = False  # the next turn's snapshot arrives late
    last_branch: str | None = None

    @property
    def pack(self) -> Pack:
        return self.p.pack

    @property
    def data(self) -> BenchData:
        return self.p.data

    # -- reading the state --

    def _box(self) -> dict[str, Any]:
        box: dict[str, Any] = self.state["fs"][self.p.layout.box]
        return box

    def entries(self) -> list[dict[str, Any]]:
        units: list[dict[str, Any]] = self._box()[self.p.layout.units]
        return units

    def owned(self) -> list[str]:
        return [o[self.p.layout.id] for o in self.entries()]

    def entry(self, uid: str) -> dict[str, Any] | None:
        return next((o for o in self.entries() if o[self.p.layout.id] == uid), None)

    def match(self) -> dict[str, Any] | None:
        match: dict[str, Any] | None = self.state["ic"].get("match")
        return match

    def unowned(self) -> list[str]:
        owned = set(self.owned())
        return [u for u in sorted(self.p.units) if u not in owned]

    def usable(self, uid: str, oid: str) -> bool:
        e = self.entry(uid)
        known = self.p.gate_free(oid) and oid in self.p.options_of(uid)
        return e is not None and (oid in e[self.p.layout.unlocked] or known)

    # -- choosing what a turn talks about --

    def unit(self, mode: str) -> str:
        """A unit id: "owned", "unowned", "opponent" (their side) or "any"."""
        match = self.match()
        pools = {
            "owned": self.owned(),
            "unowned": self.unowned(),
            "opponent": list(match["opponent_lineup"]) if match else self.unowned(),
            "any": sorted(self.p.units),
        }
        return self.rng.choice(pools[mode] or self.owned())

    def option(self, mode: str) -> tuple[str, str]:
        """(option id, a unit that can have it): "unlocked", "locked" (an owned unit lacks it) or
        "foreign" (only units the player does not own have it)."""
        owned = self.owned()
        options: list[tuple[str, str]] = []
        for oid in sorted(self.p.options):
            learners = [u for u in sorted(self.p.units) if oid in self.p.options_of(u)]
            mine = [u for u in learners if u in owned]
            if mode == "unlocked":
                options += [(oid, u) for u in mine if self.usable(u, oid)]
            elif mode == "locked":
                options += [(oid, u) for u in mine if not any(self.usable(m, oid) for m in mine)]
            elif not mine:
                options += [(oid, u) for u in learners]
        if not options:
            if mode != "unlocked":
                return self.option("unlocked")
            # Nothing unlocked at all: the first unit that has an option.
            first = next(u for u in sorted(self.p.units) if self.p.options_of(u))
            return self.p.options_of(first)[0], first
        return self.rng.choice(options)

    def surface(self, uid: str) -> str:
        """How the player says a unit: its name, or the name of the tier they own."""
        e = self.entry(uid)
        tiers = self.p.tiers(uid)
        if tiers and e is not None and self.rng.random() < 0.25:
            return tiers[min(e[self.p.layout.tier], len(tiers)) - 1]
        return self.p.unit_name(uid)

    def opponent_phrase(self) -> str:
        match = self.match()
        if match is None or self.rng.random() < 0.55:
            return self.rng.choice(self.data.opponent_phrases)
        names = [self.p.unit_name(u) for u in match["opponent_lineup"]]
        k = self.rng.randint(1, len(names))
        picked = self.rng.sample(names, k)
        listed = picked[0] if k == 1 else ", ".join(picked[:-1]) + " and " + picked[-1]
        return self.rng.choice(self.data.opponent_prefixes) + listed

    # -- state updates between turns --

    def _recompute(self, e: dict[str, Any]) -> list[str]:
        lay = self.p.layout
        uid = e[lay.id]
        before = list(e[lay.unlocked])
        now = self.p.unlocked(uid, e, self.state["fs"]["player_level"], self.state["_quests"])
        e[lay.unlocked] = [o for o in self.p.options_of(uid) if o in before or o in now]
        if self.data.synth.equip:  # an empty slot takes a newly unlocked option; the rest stays on
            _equip(self.p, self.rng, e)
        return [o for o in e[lay.unlocked] if o not in before]

    def _gained(self, event: Event, gained: list[str]) -> str:
        names = ", ".join(self.p.name(self.p.option_kind, o) for o in gained)
        return event.gained.format(options=names) if gained else ""

    def apply(self, name: str, target: str | None = None) -> str | None:
        """Mutate the live state as the game would between two turns (the event `name` of
        coachbench.json); None when it cannot apply."""
        rng, p, match = self.rng, self.p, self.match()
        lay, synth = p.layout, self.data.synth
        event = self.data.events[name]
        op, text = event.op, event.text
        desc: str | None = None
        if op == "next_round" and match is not None and match["round"] < match["rounds_total"]:
            won = rng.random() < 0.5
            match["score_player" if won else "score_opponent"] += 1
            match["round"] += 1
            desc = text.format(round=match["round"], result="won" if won else "lost")
        elif op == "swap_opponent" and match is not None:
            out = rng.choice(match["opponent_lineup"])
            new = target or rng.choice([u for u in sorted(p.units) if u not in match["opponent_lineup"]])
            match["opponent_lineup"] = [new if u == out else u for u in match["opponent_lineup"]]
            desc = text.format(out=p.unit_name(out), new=p.unit_name(new))
        elif op == "set_context" and match is not None and p.contexts:
            kind = p.contexts[0]
            now = match.get("context", {}).get(kind)
            pool = [c for c in sorted(p.catalog.entities.get(kind, {})) if c != now]
            if pool:
                moved = target if target in pool else rng.choice(pool)
                match.setdefault("context", {})[kind] = moved
                desc = text.format(context=p.name(kind, moved))
        elif op == "tier_up":
            growing = [o for o in self.entries() if o[lay.tier] < len(p.tiers(o[lay.id]))]
            e = self.entry(target) if target else (rng.choice(growing) if growing else None)
            if e is not None and e in growing:
                e[lay.tier] += 1
                e["level"] = max(e["level"], synth.levels_by_tier[e[lay.tier]][0])
                gained = self._recompute(e)
                uid = e[lay.id]
                tier_name = p.tiers(uid)[e[lay.tier] - 1]
                desc = text.format(unit=p.unit_name(uid), tier=e[lay.tier], tier_name=tier_name)
                desc += self._gained(event, gained)
        elif op == "level":
            e = self.entry(target) if target else rng.choice(self.entries())
            if e is not None:
                e["level"] += rng.randint(*synth.level_up)
                gained = self._recompute(e)
                fs = self.state["fs"]
                if synth.roster != "by_gate":  # a by_gate roster's account level is not the unit's
                    fs["player_level"] = min(synth.max_player_level, max(fs["player_level"], e["level"]))
                desc = text.format(unit=p.unit_name(e[lay.id]), level=e["level"]) + self._gained(
                    event, gained
                )
        elif op == "acquire" and synth.roster == "by_gate":
            # The account reaches the unit's gate: it and every unit gated on the way unlock.
            locked = self.unowned()  # none left once the account has every unit
            uid = target or (rng.choice(locked) if locked else None)
            fs = self.state["fs"]
            if uid is not None and self.entry(uid) is None:
                fs["player_level"] = max(fs["player_level"], p.account_gate(uid))
                opened = [u for u in p.roster_at(fs["player_level"]) if self.entry(u) is None]
                for u in opened:
                    self.entries().append(_owned_entry(p, rng, u, fs["player_level"], self.state["_quests"]))
                self.entries().sort(key=lambda o: o[lay.id])
                for e in self.entries():  # options gated on the account level unlock too
                    self._recompute(e)
                names = [p.unit_name(u) for u in [uid, *(u for u in opened if u != uid)]]
                listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
                desc = text.format(unit=listed, level=fs["player_level"])
        elif op == "acquire":
            uid = target or rng.choice(self.unowned())
            if self.entry(uid) is None:
                level = self.state["fs"]["player_level"]
                self.entries().append(_owned_entry(p, rng, uid, level, self.state["_quests"], tier=1))
                self.entries().sort(key=lambda o: o[lay.id])
                desc = text.format(unit=p.unit_name(uid))
        elif op == "remove":
            keep = set(match["player_lineup"]) if match else set()
            candidates = [u for u in self.owned() if u not in keep]
            gone = target if target in candidates else (rng.choice(candidates) if candidates else None)
            if gone is not None and len(self.owned()) > synth.keep_owned:
                box = self._box()
                box[lay.units] = [o for o in box[lay.units] if o[lay.id] != gone]
                box[lay.groups] = {k: v for k, v in box[lay.groups].items() if gone not in v}
                desc = text.format(unit=p.unit_name(gone))
        if desc is not None:
            self.state["version"] += 1
            self.change = desc if self.change is None else f"{self.change}; {desc}"
        return desc

    # -- a turn --

    def pick(self, pairs: Pick) -> str:
        """A pair field of coachbench.json: one pair as it is, or one drawn from a list."""
        return pairs if isinstance(pairs, str) else self.rng.choice(pairs)

    def ask(
        self,
        pair: str,
        cores: list[str] | None = None,
        *,
        unit: str | None = None,
        option: str | None = None,
        scored: bool = True,
        no_repeat: bool = False,
    ) -> BenchTurn:
        """Add one turn asking `pair`; slot values the chosen core needs are filled from the state.
        `unit` / `option`: the value of the first unit / option slot (coachbench.json's `slots`)."""
        rng, p = self.rng, self.p
        roles = self.data.slots
        options = cores or self.data.phrases[pair]
        # Cores needing a match slot (the opponent, the round, the match's context) only mid-match.
        match_slots = {s for s, r in roles.items() if r in ("opponent", "round") or r in p.contexts}
        usable = [t for t in options if self.match() is not None or not _slot_names(t) & match_slots]
        core = rng.choice(usable or options)
        slots = _slot_names(core)
        first_unit = next((s for s, r in roles.items() if r == "unit"), None)
        first_option = next((s for s, r in roles.items() if r == "option"), None)
        given: dict[str, Any] = {}
        if first_unit is not None and unit is not None:
            given[first_unit] = unit
        if first_option is not None and option is not None:
            given[first_option] = option
        # Options first: a drawn option brings the unit that has it.
        for s in (s for s, r in roles.items() if r == "option" and s in slots and s not in given):
            given[s], learner = self.option(rng.choice(["unlocked", "locked", "locked", "foreign"]))
            if first_unit is not None:
                given[first_unit] = given.get(first_unit) or learner
        if first_unit is not None and first_unit in slots and given.get(first_unit) is None:
            given[first_unit] = self.unit(rng.choice(["owned", "owned", "unowned", "opponent"]))
        for s in (s for s, r in roles.items() if r == "units" and s in slots and s not in given):
            pool = self.owned() if rng.random() < 0.6 else sorted(p.units)
            given[s] = rng.sample(pool, min(p.side, len(pool)))
        match = self.match()
        values: dict[str, str] = {}
        for s, role in roles.items():
            v = given.get(s)
            if role == "unit":
                values[s] = self.surface(v) if v else ""
            elif role == "units":
                values[s] = (
                    ", ".join(self.surface(x) for x in v[:-1]) + " and " + self.surface(v[-1]) if v else ""
                )
            elif role == "option":
                values[s] = p.name(p.option_kind, v) if v else ""
            elif role == "opponent":
                values[s] = self.opponent_phrase() if s in slots else ""
            elif role == "round":
                phrase = rng.choice(self.data.synth.round_phrases) if match else ""
                values[s] = phrase.format(round=match["round"]) if match else ""
            else:  # a context kind: the match's
                ctx = match.get("context", {}).get(role) if match and s in slots else None
                values[s] = p.name(role, ctx) if ctx else ""
        utterance = _style(rng, self.data, core.format(**values))
        index = len(self.turns)
        self.state["turn_index"] = index
        snapshot = {k: copy.deepcopy(v) for k, v in self.state.items() if not k.startswith("_")}
        push: Push = "late" if self.late and index > 0 else "snapshot"
        reference = build_reference(self.pack, snapshot, pair, utterance, self.excluded, no_repeat, self.data)
        tags: set[str] = set()
        if push == "late" or self.change is not None:
            tags.add("A")  # the reply must rest on the update, not the previous snapshot
        opponent = set(match["opponent_lineup"]) if match else set()
        foreign = [x for x in reference.unowned_mentioned if x not in opponent]
        if foreign or reference.locked_skills or reference.excluded or pair in self.data.drift_b_pairs:
            tags.add("B")  # an entity slot the reply can get wrong either way
        if no_repeat or (reference.branch == "recommend" and self.last_branch == "recommend"):
            tags.add("C")
        owner_locked = any(
            oid in p.options_of(uid) for oid in reference.locked_skills for uid in reference.owned_mentioned
        )
        if (
            (reference.owned_mentioned and foreign)
            or owner_locked
            or (reference.excluded and reference.guidance_expected)
        ):
            tags.add("D")  # one reply may have to affirm one constraint and deny another
        fields = {
            "turn_index": index,
            "scored": scored,
            "utterance": utterance,
            "push": push,
            "state_change": self.change,
            "state": snapshot,
            "drift_tags": sorted(tags),
            "reference": reference,
        }
        turn = BenchTurn.model_validate(fields, context={"pack": self.pack, "data": self.data})
        self.turns.append(turn)
        self.change, self.late, self.last_branch = None, False, reference.branch
        return turn


def build_reference(
    pack: Pack,
    snapshot: dict[str, Any],
    pair: str,
    utterance: str,
    excluded: list[str],
    no_repeat: bool,
    data: BenchData | None = None,
) -> Reference:
    """The turn's reference, derived from the snapshot (not from any candidate reply)."""
    data = data or bench_data(pack)
    p = _Pack(pack, data)
    intent, sub_intent = pair.split("/")
    entry = next(e for e in pack.phi if (e.intent, e.sub_intent) == (intent, sub_intent))
    view = StateView(pack, load_state(snapshot))
    owned = [o.id for o in view.owned()]
    mentions = link_entities(pack, utterance)
    units = list(dict.fromkeys(m.id for m in mentions if m.kind == p.unit_kind))
    options = list(dict.fromkeys(m.id for m in mentions if m.kind == p.option_kind))
    counters: list[tuple[float, str]] = []
    matchup = p.matchup_for(pair)
    if view.state.ic.match is not None and matchup is not None:
        against = matchup.between[1]
        here = view.context(against)
        foes = view.opponent_side() if against == p.unit_kind else [here] if here else []
        for uid in owned:
            gains = [p.multiplier(matchup, uid, f) for f in foes]
            if max(gains, default=1.0) > 1.0:
                counters.append((-sum(gains), uid))
    counter_ids = [uid for _, uid in sorted(counters)]
    groups = [
        gid
        for gid in p.groups
        if set(p.members(gid)) <= set(owned) and not set(p.members(gid)) & set(excluded)
    ]
    ref = {
        "owned_mentioned": [u for u in units if u in owned],
        "unowned_mentioned": [u for u in units if u not in owned],
        "locked_skills": [o for o in options if not view.option_usable(o)],
        "unlocked_skills": [o for o in options if view.option_usable(o)],
    }

    def names(ids: list[str]) -> str:
        return ", ".join(p.catalog.display_name(i) for i in ids)

    schema = p.catalog.schema
    unit_nouns = schema.plural(p.unit_kind)
    parts = []
    if entry.branch == "recommend":
        if counter_ids and pair in data.counter_pairs:
            parts.append(f"recommend owned counters ({names(counter_ids[:4])})")
        elif groups:
            listed = ", ".join(p.name(p.group_kind, g) for g in groups[:3])
            parts.append(
                f"recommend from owned {schema.plural(p.group_kind or '')} ({listed}) or owned {unit_nouns}"
            )
        else:
            parts.append(f"recommend only {unit_nouns} the player owns")
    if ref["unowned_mentioned"]:
        parts.append(f"not owned: {names(ref['unowned_mentioned'])}")
    if ref["owned_mentioned"]:
        parts.append(f"owned, never 'missing': {names(ref['owned_mentioned'])}")
    if ref["locked_skills"]:
        parts.append(f"locked: {names(ref['locked_skills'])}")
    if ref["unlocked_skills"]:
        parts.append(f"usable now: {names(ref['unlocked_skills'])}")
    if excluded:
        parts.append(f"keep out: {names(excluded)}")
    if no_repeat:
        parts.append("do not repeat the previous recommendation")
    fields = {
        "intent": intent,
        "sub_intent": sub_intent,
        "branch": entry.branch,
        "mentioned": units + options,
        "counters": counter_ids,
        "usable_lineups": groups,
        "excluded": list(excluded),
        "guidance_expected": entry.branch == "recommend",
        "no_repeat": no_repeat,
        "direction": "; ".join(parts) or "answer the question from the catalog",
        **ref,
    }
    # Validated against this pack's Φ (not the default pack's).
    reference = Reference.model_validate(fields, context={"pack": pack, "data": data})
    reference.expect = expectation_of(pack, snapshot, reference, data)
    return reference


def expectation_of(
    pack: Pack, snapshot: dict[str, Any], ref: Reference, data: BenchData | None = None
) -> Expectation:
    """The reference's expectation: its pair's family rules over the state-derived fields."""
    return build_expectation(
        pack,
        snapshot,
        family(data or bench_data(pack), ref.intent, ref.sub_intent),
        ref.mentioned,
        ref.counters,
        ref.usable_lineups,
        ref.excluded,
        ref.no_repeat,
    )


# --- the three strata ---------------------------------------------------------------------------------

# The stratum tables (factual pair weights, recommend pairs, coaching goals, episodes) are pack data.


def _weighted(rng: random.Random, weights: dict[str, int]) -> str:
    keys = sorted(weights)
    return rng.choices(keys, [weights[k] for k in keys])[0]


def _factual(b: _Builder, n: int) -> None:
    pool = dict(b.data.factual)
    if b.match() is not None:
        pool.update(b.data.factual_match)
    for _ in range(n):
        b.ask(_weighted(b.rng, pool))


def _coaching(b: _Builder, n: int, goal: str) -> None:
    rng, data = b.rng, b.data
    steps = data.goals[goal]
    at = 0
    if n >= 6 and rng.random() < 0.3 and data.open_pairs is not None:
        b.ask(b.pick(data.open_pairs))  # long sessions sometimes open and close socially, as real ones do
    closing = n >= 6 and rng.random() < 0.3 and data.close_pairs is not None
    while len(b.turns) < n:
        if closing and len(b.turns) == n - 1 and data.close_pairs is not None:
            b.ask(b.pick(data.close_pairs))
            break
        pair = steps[at % len(steps)]
        at += rng.choice([1, 1, 1, 2])  # mostly in order, sometimes skipping a step
        if pair.split("/")[0] in data.match_intents and b.match() is None:
            continue
        if b.turns and b.last_branch == "recommend" and rng.random() < 0.2:
            b.ask(
                b.turns[-1].reference.intent + "/" + b.turns[-1].reference.sub_intent,
                data.repeat_cores,
                no_repeat=True,
            )
            continue
        b.ask(pair)
        # The game moves on while the player is coached: rounds end, advice is acted on.
        if len(b.turns) < n and rng.random() < 0.3:
            b.apply(data.goal_state_change.get(goal, data.default_state_change))


def _episode(b: _Builder, budget: int, context: bool = False) -> None:
    """One cross-turn dependency, at most `budget` turns. `context`: its first turn is not scored."""
    rng, data = b.rng, b.data
    match = b.match()
    ep = rng.choice([e for e in data.episodes if match is not None or not e.needs_match])
    first_scored = not context
    cores = data.core_table(ep.cores) if ep.cores else None

    def late_next() -> None:
        b.late = rng.random() < 0.35

    def then() -> str:
        assert ep.then is not None
        return b.pick(ep.then)

    if ep.kind == "repeat":
        pair = b.pick(ep.first if ep.first is not None else data.recommend_pairs)
        b.ask(pair, scored=first_scored)
        for _ in range(min(budget - 1, rng.randint(1, 2))):
            b.ask(pair, cores, no_repeat=True)
        return
    if ep.kind == "exclude":
        target = b.unit("owned")
        b.excluded.append(target)
        pair = then()
        b.ask(pair, cores, unit=target, scored=first_scored)
        more = [u for u in b.owned() if u not in b.excluded]
        if budget > 1 and more:
            second = rng.choice(more)
            b.excluded.append(second)
            b.ask(pair, data.core_table(ep.more) if ep.more else cores, unit=second)
        return
    assert ep.first is not None and ep.event is not None
    if ep.kind == "acquire":
        target = b.unit("unowned")
        b.ask(b.pick(ep.first), unit=target, scored=first_scored)
        if budget > 1 and b.apply(ep.event, target):
            late_next()
            b.ask(then(), cores, unit=target)
    elif ep.kind == "tier_up":
        locked, learner = b.option("locked")
        e = b.entry(learner)
        b.ask(b.pick(ep.first), unit=learner, option=locked, scored=first_scored)
        if budget > 1 and e is not None and b.apply(ep.event, learner):
            late_next()
            b.ask(then(), cores, unit=learner, option=locked)
    elif ep.kind == "level":
        b.ask(b.pick(ep.first), scored=first_scored)
        target = b.unit("owned")
        if budget > 1 and b.apply(ep.event, target):
            choices = b.p.options_of(target)
            oid = rng.choice(choices) if choices else None
            late_next()
            b.ask(then(), cores, unit=target, option=oid)
    elif ep.kind == "remove":
        first = pick_list(ep.first) + (ep.first_match if match else [])
        b.ask(rng.choice(first), scored=first_scored)
        match = b.match()
        keep = set(match["player_lineup"]) if match else set()
        removable = [u for u in b.owned() if u not in keep]
        gone = rng.choice(removable) if removable else None
        if budget > 1 and gone and b.apply(ep.event, gone):
            late_next()
            b.ask(then(), cores, unit=gone)
    elif ep.kind == "swap_opponent":
        b.ask(b.pick(ep.first), scored=first_scored)
        new = b.unit("unowned")
        if budget > 1 and b.apply(ep.event, new):
            late_next()
            b.ask(then(), cores, unit=new)
    else:  # next_round, set_context: the game moves on by itself
        b.ask(b.pick(ep.first), scored=first_scored)
        if budget > 1 and b.apply(ep.event):
            late_next()
            b.ask(then(), cores)


def _cross_turn(b: _Builder, n_scored: int, single: bool) -> None:
    if single:
        # One unscored context turn, then the scored turn that depends on it.
        while not any(t.scored for t in b.turns):
            b.turns.clear()
            b.excluded.clear()
            b.change, b.late, b.last_branch = None, False, None
            _episode(b, 2, context=True)
        del b.turns[2:]
        return
    while sum(t.scored for t in b.turns) < n_scored:
        _episode(b, n_scored - sum(t.scored for t in b.turns))


# --- the benchmark ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    session_id: str
    stratum: Stratum
    length: LengthClass


def _specs() -> list[_Spec]:
    """The 200 session slots, interleaved so that any prefix (`--limit N`) keeps the strata mix."""
    keyed = []
    for order, (stratum, length, n) in enumerate(CELLS):
        for k in range(n):
            keyed.append(((k + 0.5) / n, order, stratum, length))
    keyed.sort()
    return [_Spec(f"cb-{i + 1:03d}", s, ln) for i, (_, _, s, ln) in enumerate(keyed)]


def _session(p: _Pack, seed: int, spec: _Spec) -> BenchSession:
    rng = random.Random(f"coachbench|{seed}|{spec.session_id}")
    lo, hi = {"single": (1, 1), "short": SHORT_TURNS, "long": LONG_TURNS}[spec.length]
    n = rng.randint(lo, hi)
    data = p.data
    goal = rng.choice(sorted(data.goals)) if spec.stratum == "coaching" else None
    with_match = goal in data.match_goals or rng.random() < 0.75
    b = _Builder(p, rng, _new_state(p, rng, with_match))
    if spec.stratum == "factual_qa":
        _factual(b, n)
    elif spec.stratum == "coaching":
        assert goal is not None
        _coaching(b, n, goal)
    else:
        _cross_turn(b, n, single=spec.length == "single")
    turns = b.turns
    scored = [t for t in turns if t.scored]
    tags = sorted({tag for t in scored for tag in t.drift_tags})
    depends = any(t.state_change or t.reference.no_repeat or t.reference.excluded for t in scored[1:])
    fields = {
        "session_id": spec.session_id,
        "stratum": spec.stratum,
        "length_class": length_class(len(scored)),
        "goal": goal,
        "eligibility": Eligibility(dgp=goal is not None, ccc=spec.stratum == "cross_turn" or depends),
        "diagnostic_drift_tags": tags,
        "w3_seed": rng.randrange(2**32),
        "turns": turns,
    }
    return BenchSession.model_validate(fields, context={"pack": p.pack, "data": data})


def generate(
    seed: int = DEFAULT_SEED, pack: Pack | None = None, data: BenchData | None = None
) -> list[BenchSession]:
    """The 200 sessions for `seed`, in file order. `data`: the pack's coachbench.json (default: the
    installed pack's; a pack loaded from another folder passes `packdata.load_bench_data`'s)."""
    pack = pack or load_pack()
    p = _Pack(pack, data or bench_data(pack))
    return [_session(p, seed, spec) for spec in _specs()]


def _manifest(sessions: list[BenchSession], seed: int, pack: Pack, path: Path, digest: str) -> BenchManifest:
    tags: Counter[str] = Counter(tag for s in sessions for tag in s.diagnostic_drift_tags)
    return BenchManifest(
        generator_version=GENERATOR_VERSION,
        seed=seed,
        pack_id=pack.pack_id,
        pack_version=pack.version,
        file=path.name,
        sha256=digest,
        sessions=len(sessions),
        turns=sum(len(s.turns) for s in sessions),
        scored_turns=sum(len(s.scored_turns) for s in sessions),
        strata=dict(sorted(Counter(s.stratum for s in sessions).items())),
        lengths=dict(sorted(Counter(s.length_class for s in sessions).items())),
        drift_tags={t: tags[t] for t in DRIFT_NAMES},
        eligibility={
            "tga_sga": sum(s.eligibility.tga_sga for s in sessions),
            "dgp": sum(s.eligibility.dgp for s in sessions),
            "ccc": sum(s.eligibility.ccc for s in sessions),
        },
    )


def manifest_path(path: Path) -> Path:
    return path.with_name(path.stem + ".manifest.json")


def write_benchmark(
    path: str | Path, seed: int = DEFAULT_SEED, pack: Pack | None = None, data: BenchData | None = None
) -> BenchManifest:
    """Write the benchmark JSONL (one session per line) and its manifest next to it."""
    path = Path(path)
    pack = pack or load_pack()
    sessions = generate(seed, pack, data)
    blob = "".join(s.model_dump_json() + "\n" for s in sessions).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(blob)
    manifest = _manifest(sessions, seed, pack, path, hashlib.sha256(blob).hexdigest())
    manifest_path(path).write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return manifest


def _iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if line.strip():
                yield number, line


def load_benchmark(
    path: str | Path, pack: Pack | None = None, data: BenchData | None = None
) -> list[BenchSession]:
    """Read and validate a benchmark JSONL. Raises BenchmarkError naming file, session and field."""
    path = Path(path)
    pack = pack or load_pack()
    if not path.exists():
        raise BenchmarkError(f"{path}: benchmark file not found")
    sessions: list[BenchSession] = []
    seen: set[str] = set()
    for number, line in _iter_lines(path):
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as err:
            raise BenchmarkError(f"{path}:{number}: not valid JSON ({err})") from None
        sid = raw.get("session_id", f"<line {number}>") if isinstance(raw, dict) else f"<line {number}>"
        try:
            session = BenchSession.model_validate(raw, context={"pack": pack, "data": data})
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "<session>"
            raise BenchmarkError(f"{path}:{number}: session {sid}: field {where}: {first['msg']}") from None
        if session.session_id in seen:
            raise BenchmarkError(f"{path}:{number}: session {sid}: field session_id: defined twice")
        seen.add(session.session_id)
        sessions.append(session)
    return sessions


def select(sessions: list[BenchSession], limit: int | None) -> list[BenchSession]:
    """The first `limit` sessions: the file order interleaves the strata, so a prefix keeps the mix."""
    return sessions if limit is None else sessions[:limit]
