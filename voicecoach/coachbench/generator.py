"""CoachBench generator: a seeded, stratified benchmark of coaching sessions over a domain pack.

The paper's benchmark (§7.1, G.2) is 200 sessions / ≈1,000 scored turns sampled from production
traces. We have no traces, so we synthesise sessions over the pet-arena pack with the same design:

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

Every turn carries the full live-state snapshot (validated by `voicecoach.state.load_state`), how the
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

from voicecoach.coachbench.packdata import BenchData, bench_data, family
from voicecoach.coachbench.responsive import Expectation, build_expectation
from voicecoach.entities import link_entities
from voicecoach.pack import Creature, Pack, load_pack
from voicecoach.state import StateError, load_state

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
            self.reference.expect = expectation_of(_pack_of(info), self.state, self.reference)
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
# "intent/sub_intent"; slots: {c} {c2} a creature, {cs} a few creatures, {s} a skill, {opp} the
# opponent, {style}, {rnd} the round. Several cores per pair, openers, closers, fillers and three
# casing styles keep one pair from being one template. No filler may contain a catalog name
# (element words such as "light" or skills such as "kindle" would be linked as entities).


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

RARITY_WEIGHT = {"common": 4, "rare": 3, "epic": 2, "legendary": 1}
LEVELS_BY_STAGE = {1: (1, 12), 2: (10, 22), 3: (20, 35)}


def _unlocked(pack: Pack, creature: Creature, stage: int, level: int, quests: list[str]) -> list[str]:
    """Skills whose unlock condition the creature meets, in catalog order."""
    out = []
    for sid in creature.skills:
        u = pack.skills[sid].unlock
        if u is None or (
            (u.min_stage or 1) <= stage
            and (u.min_level or 1) <= level
            and (u.quest is None or u.quest in quests)
        ):
            out.append(sid)
    return out


def _owned_entry(
    pack: Pack, rng: random.Random, cid: str, quests: list[str], stage: int = 0
) -> dict[str, Any]:
    creature = pack.creatures[cid]
    stage = stage or rng.randint(1, len(creature.stages))
    level = rng.randint(*LEVELS_BY_STAGE[stage])
    return {
        "creature_id": cid,
        "stage": stage,
        "level": level,
        "unlocked_skills": _unlocked(pack, creature, stage, level, quests),
    }


def _new_state(pack: Pack, rng: random.Random, with_match: bool) -> dict[str, Any]:
    ids = sorted(pack.creatures)
    weights = [RARITY_WEIGHT[pack.creatures[c].rarity] for c in ids]
    quests = sorted(
        {u.quest for s in pack.skills.values() if (u := s.unlock) and u.quest and rng.random() < 0.3}
    )
    owned: list[str] = []
    if rng.random() < 0.5:  # half the players own a complete pack lineup, so W3 has something to offer
        lineup = pack.lineups[rng.choice(sorted(pack.lineups))]
        owned += lineup.creatures
    target = rng.randint(max(5, len(owned)), max(9, len(owned) + 2))
    while len(owned) < target:
        cid = rng.choices(ids, weights)[0]
        if cid not in owned:
            owned.append(cid)
    owned.sort()
    entries = [_owned_entry(pack, rng, cid, quests) for cid in owned]
    player_level = min(40, max(e["level"] for e in entries) + rng.randint(0, 4))
    main = rng.sample(owned, 3)
    state: dict[str, Any] = {
        "version": 1,
        "turn_index": 0,
        "ic": {"patch_version": pack.version},
        "fs": {
            "player_level": player_level,
            "inventory": {"owned": entries, "saved_lineups": {"main": main}},
        },
        "static": {"pack_id": pack.pack_id, "pack_version": pack.version},
    }
    if with_match:
        if rng.random() < 0.5:
            opponent = rng.sample(pack.lineups[rng.choice(sorted(pack.lineups))].creatures, 3)
        else:
            opponent = rng.sample(ids, 3)
        rnd = rng.randint(1, 3)
        won = {1: 0, 2: rng.randint(0, 1), 3: 1}[rnd]
        state["ic"]["match"] = {
            "mode": rng.choice(["ranked", "ranked", "casual", "tournament"]),
            "round": rnd,
            "rounds_total": 3,
            "score_player": won,
            "score_opponent": rnd - 1 - won,
            "player_lineup": list(main),
            "opponent_lineup": opponent,
        }
    state["_quests"] = quests  # generator bookkeeping, stripped before a snapshot is written
    return state


# --- one session under construction ------------------------------------------------------------------


@dataclass
class _Builder:
    pack: Pack
    rng: random.Random
    state: dict[str, Any]
    turns: list[BenchTurn] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)
    change: str | None = None  # state change pending for the next turn
    late: bool = False  # the next turn's snapshot arrives late
    last_branch: str | None = None

    @property
    def data(self) -> BenchData:
        return bench_data(self.pack)

    # -- reading the state --

    def owned(self) -> list[str]:
        return [o["creature_id"] for o in self.state["fs"]["inventory"]["owned"]]

    def entry(self, cid: str) -> dict[str, Any] | None:
        return next((o for o in self.state["fs"]["inventory"]["owned"] if o["creature_id"] == cid), None)

    def match(self) -> dict[str, Any] | None:
        match: dict[str, Any] | None = self.state["ic"].get("match")
        return match

    def unowned(self) -> list[str]:
        owned = set(self.owned())
        return [c for c in sorted(self.pack.creatures) if c not in owned]

    def usable(self, cid: str, sid: str) -> bool:
        e = self.entry(cid)
        known = self.pack.skills[sid].unlock is None and sid in self.pack.creatures[cid].skills
        return e is not None and (sid in e["unlocked_skills"] or known)

    # -- choosing what a turn talks about --

    def creature(self, mode: str) -> str:
        """A creature id: "owned", "unowned", "opponent" (their side) or "any"."""
        match = self.match()
        pools = {
            "owned": self.owned(),
            "unowned": self.unowned(),
            "opponent": list(match["opponent_lineup"]) if match else self.unowned(),
            "any": sorted(self.pack.creatures),
        }
        return self.rng.choice(pools[mode] or self.owned())

    def skill(self, mode: str) -> tuple[str, str]:
        """(skill id, a creature that learns it): "unlocked", "locked" (an owned learner lacks it) or
        "foreign" (only creatures the player does not own learn it)."""
        owned = self.owned()
        options: list[tuple[str, str]] = []
        for sid in sorted(self.pack.skills):
            learners = [c for c in sorted(self.pack.creatures) if sid in self.pack.creatures[c].skills]
            mine = [c for c in learners if c in owned]
            if mode == "unlocked":
                options += [(sid, c) for c in mine if self.usable(c, sid)]
            elif mode == "locked":
                options += [(sid, c) for c in mine if not any(self.usable(m, sid) for m in mine)]
            elif not mine:
                options += [(sid, c) for c in learners]
        if not options:
            if mode != "unlocked":
                return self.skill("unlocked")
            first = self.pack.creatures[sorted(self.pack.creatures)[0]]  # nothing unlocked at all
            return first.skills[0], first.id
        return self.rng.choice(options)

    def surface(self, cid: str) -> str:
        """How the player says a creature: its name, or the name of the stage they own."""
        creature = self.pack.creatures[cid]
        e = self.entry(cid)
        if e is not None and self.rng.random() < 0.25:
            return creature.stages[min(e["stage"], len(creature.stages)) - 1]
        return creature.name

    def opponent_phrase(self) -> str:
        match = self.match()
        if match is None or self.rng.random() < 0.55:
            return self.rng.choice(self.data.opponent_phrases)
        names = [self.pack.creatures[c].name for c in match["opponent_lineup"]]
        k = self.rng.randint(1, len(names))
        picked = self.rng.sample(names, k)
        listed = picked[0] if k == 1 else ", ".join(picked[:-1]) + " and " + picked[-1]
        return self.rng.choice(["their ", "", "the enemy "]) + listed

    # -- state updates between turns --

    def _recompute(self, e: dict[str, Any]) -> list[str]:
        creature = self.pack.creatures[e["creature_id"]]
        before = list(e["unlocked_skills"])
        now = _unlocked(self.pack, creature, e["stage"], e["level"], self.state["_quests"])
        e["unlocked_skills"] = [s for s in creature.skills if s in before or s in now]
        return [s for s in e["unlocked_skills"] if s not in before]

    def apply(self, kind: str, target: str | None = None) -> str | None:
        """Mutate the live state as the game would between two turns; None when it cannot apply."""
        rng, pack, match = self.rng, self.pack, self.match()
        inv = self.state["fs"]["inventory"]
        desc: str | None = None
        if kind == "round" and match is not None and match["round"] < match["rounds_total"]:
            won = rng.random() < 0.5
            match["score_player" if won else "score_opponent"] += 1
            match["round"] += 1
            desc = f"round {match['round']} began after the player {'won' if won else 'lost'} the last one"
        elif kind == "opponent_swap" and match is not None:
            out = rng.choice(match["opponent_lineup"])
            new = target or rng.choice(
                [c for c in sorted(pack.creatures) if c not in match["opponent_lineup"]]
            )
            match["opponent_lineup"] = [new if c == out else c for c in match["opponent_lineup"]]
            desc = f"the opponent swapped {pack.creatures[out].name} for {pack.creatures[new].name}"
        elif kind == "evolve":
            candidates = [
                o for o in inv["owned"] if o["stage"] < len(pack.creatures[o["creature_id"]].stages)
            ]
            e = self.entry(target) if target else (rng.choice(candidates) if candidates else None)
            if e is not None and e in candidates:
                e["stage"] += 1
                e["level"] = max(e["level"], LEVELS_BY_STAGE[e["stage"]][0])
                gained = self._recompute(e)
                name = pack.creatures[e["creature_id"]].stages[e["stage"] - 1]
                desc = f"{pack.creatures[e['creature_id']].name} evolved to stage {e['stage']} ({name})" + (
                    f", unlocking {', '.join(pack.skills[s].name for s in gained)}" if gained else ""
                )
        elif kind == "level_up":
            e = self.entry(target) if target else rng.choice(inv["owned"])
            if e is not None:
                e["level"] += rng.randint(3, 8)
                gained = self._recompute(e)
                self.state["fs"]["player_level"] = min(40, max(self.state["fs"]["player_level"], e["level"]))
                desc = f"{pack.creatures[e['creature_id']].name} reached level {e['level']}" + (
                    f", unlocking {', '.join(pack.skills[s].name for s in gained)}" if gained else ""
                )
        elif kind == "acquire":
            cid = target or rng.choice(self.unowned())
            if self.entry(cid) is None:
                inv["owned"].append(_owned_entry(pack, rng, cid, self.state["_quests"], stage=1))
                inv["owned"].sort(key=lambda o: o["creature_id"])
                desc = f"the player obtained {pack.creatures[cid].name}"
        elif kind == "trade":
            keep = set(match["player_lineup"]) if match else set()
            candidates = [c for c in self.owned() if c not in keep]
            gone = target if target in candidates else (rng.choice(candidates) if candidates else None)
            if gone is not None and len(self.owned()) > 4:
                inv["owned"] = [o for o in inv["owned"] if o["creature_id"] != gone]
                inv["saved_lineups"] = {k: v for k, v in inv["saved_lineups"].items() if gone not in v}
                desc = f"the player traded away {pack.creatures[gone].name}"
        if desc is not None:
            self.state["version"] += 1
            self.change = desc if self.change is None else f"{self.change}; {desc}"
        return desc

    # -- a turn --

    def ask(
        self,
        pair: str,
        cores: list[str] | None = None,
        *,
        c: str | None = None,
        c2: str | None = None,
        s: str | None = None,
        cs: list[str] | None = None,
        scored: bool = True,
        no_repeat: bool = False,
    ) -> BenchTurn:
        """Add one turn asking `pair`; slot values the chosen core needs are filled from the state."""
        rng = self.rng
        options = cores or self.data.phrases[pair]
        # Cores needing a match slot are only usable mid-match.
        usable = [t for t in options if self.match() is not None or not _slot_names(t) & {"opp", "rnd"}]
        core = rng.choice(usable or options)
        slots = _slot_names(core)
        if "s" in slots and s is None:
            s, learner = self.skill(rng.choice(["unlocked", "locked", "locked", "foreign"]))
            c = c or learner
        if "c" in slots and c is None:
            c = self.creature(rng.choice(["owned", "owned", "unowned", "opponent"]))
        if "cs" in slots and cs is None:
            pool = self.owned() if rng.random() < 0.6 else sorted(self.pack.creatures)
            cs = rng.sample(pool, 3)
        match = self.match()
        values = {
            "c": self.surface(c) if c else "",
            "c2": self.surface(c2) if c2 else "",
            "cs": ", ".join(self.surface(x) for x in cs[:-1]) + " and " + self.surface(cs[-1]) if cs else "",
            "s": self.pack.skills[s].name if s else "",
            "opp": self.opponent_phrase() if "opp" in slots else "",
            "rnd": rng.choice(["this round", f"round {match['round']}", "the next round"]) if match else "",
        }
        utterance = _style(rng, self.data, core.format(**values))
        index = len(self.turns)
        self.state["turn_index"] = index
        snapshot = {k: copy.deepcopy(v) for k, v in self.state.items() if not k.startswith("_")}
        push: Push = "late" if self.late and index > 0 else "snapshot"
        reference = build_reference(self.pack, snapshot, pair, utterance, self.excluded, no_repeat)
        tags: set[str] = set()
        if push == "late" or self.change is not None:
            tags.add("A")  # the reply must rest on the update, not the previous snapshot
        opponent = set(match["opponent_lineup"]) if match else set()
        foreign = [x for x in reference.unowned_mentioned if x not in opponent]
        if (
            foreign
            or reference.locked_skills
            or reference.excluded
            or pair in ("creature/owned", "skill/unlock")
        ):
            tags.add("B")  # an entity slot the reply can get wrong either way
        if no_repeat or (reference.branch == "recommend" and self.last_branch == "recommend"):
            tags.add("C")
        owner_locked = any(
            sid in self.pack.creatures[cid].skills
            for sid in reference.locked_skills
            for cid in reference.owned_mentioned
        )
        if (
            (reference.owned_mentioned and foreign)
            or owner_locked
            or (reference.excluded and reference.guidance_expected)
        ):
            tags.add("D")  # one reply may have to affirm one constraint and deny another
        turn = BenchTurn(
            turn_index=index,
            scored=scored,
            utterance=utterance,
            push=push,
            state_change=self.change,
            state=snapshot,
            drift_tags=sorted(tags),  # type: ignore[arg-type]
            reference=reference,
        )
        self.turns.append(turn)
        self.change, self.late, self.last_branch = None, False, reference.branch
        return turn


def _names(pack: Pack, ids: list[str]) -> str:
    return ", ".join(pack.creatures[i].name if i in pack.creatures else pack.skills[i].name for i in ids)


def build_reference(
    pack: Pack, snapshot: dict[str, Any], pair: str, utterance: str, excluded: list[str], no_repeat: bool
) -> Reference:
    """The turn's reference, derived from the snapshot (not from any candidate reply)."""
    intent, sub_intent = pair.split("/")
    entry = next(e for e in pack.phi if (e.intent, e.sub_intent) == (intent, sub_intent))
    state = load_state(snapshot)
    inv = state.fs.inventory
    owned = [o.creature_id for o in inv.owned] if inv else []
    mentions = link_entities(pack, utterance)
    creatures = list(dict.fromkeys(m.id for m in mentions if m.kind == "creature"))
    skills = list(dict.fromkeys(m.id for m in mentions if m.kind == "skill"))

    def usable(sid: str) -> bool:
        return any(
            sid in pack.creatures[c].skills
            and (inv is not None and (inv.skill_unlocked(c, sid) or pack.skills[sid].unlock is None))
            for c in owned
        )

    match = state.ic.match
    counters: list[tuple[float, str]] = []
    if match is not None:
        foes = [pack.creatures[c] for c in match.opponent_lineup]
        for cid in owned:
            gains = [pack.elements.counters[pack.creatures[cid].element][f.element] for f in foes]
            if max(gains, default=1.0) > 1.0:
                counters.append((-sum(gains), cid))
    counter_ids = [cid for _, cid in sorted(counters)]
    lineups = [
        lu.id
        for lu in pack.lineups.values()
        if set(lu.creatures) <= set(owned) and not set(lu.creatures) & set(excluded)
    ]
    ref = {
        "owned_mentioned": [c for c in creatures if c in owned],
        "unowned_mentioned": [c for c in creatures if c not in owned],
        "locked_skills": [s for s in skills if not usable(s)],
        "unlocked_skills": [s for s in skills if usable(s)],
    }
    parts = []
    if entry.branch == "recommend":
        if counter_ids and (intent in ("match", "element") or sub_intent in ("counter", "swap", "matchup")):
            parts.append(f"recommend owned counters ({_names(pack, counter_ids[:4])})")
        elif lineups:
            parts.append(
                f"recommend from owned lineups ({_names_lineups(pack, lineups[:3])}) or owned creatures"
            )
        else:
            parts.append("recommend only creatures the player owns")
    if ref["unowned_mentioned"]:
        parts.append(f"not owned: {_names(pack, ref['unowned_mentioned'])}")
    if ref["owned_mentioned"]:
        parts.append(f"owned, never 'missing': {_names(pack, ref['owned_mentioned'])}")
    if ref["locked_skills"]:
        parts.append(f"locked: {_names(pack, ref['locked_skills'])}")
    if ref["unlocked_skills"]:
        parts.append(f"usable now: {_names(pack, ref['unlocked_skills'])}")
    if excluded:
        parts.append(f"keep out: {_names(pack, excluded)}")
    if no_repeat:
        parts.append("do not repeat the previous recommendation")
    reference = Reference(
        intent=intent,
        sub_intent=sub_intent,
        branch=entry.branch,
        mentioned=creatures + skills,
        counters=counter_ids,
        usable_lineups=lineups,
        excluded=list(excluded),
        guidance_expected=entry.branch == "recommend",
        no_repeat=no_repeat,
        direction="; ".join(parts) or "answer the question from the catalog",
        owned_mentioned=ref["owned_mentioned"],
        unowned_mentioned=ref["unowned_mentioned"],
        locked_skills=ref["locked_skills"],
        unlocked_skills=ref["unlocked_skills"],
    )
    reference.expect = expectation_of(pack, snapshot, reference)
    return reference


def expectation_of(pack: Pack, snapshot: dict[str, Any], ref: Reference) -> Expectation:
    """The reference's expectation: its pair's family rules over the state-derived fields."""
    return build_expectation(
        pack,
        snapshot,
        family(pack, ref.intent, ref.sub_intent),
        ref.mentioned,
        ref.counters,
        ref.usable_lineups,
        ref.excluded,
        ref.no_repeat,
    )


def _names_lineups(pack: Pack, ids: list[str]) -> str:
    return ", ".join(pack.lineups[i].name for i in ids)


# --- the three strata ---------------------------------------------------------------------------------

# The stratum tables (factual pair weights, recommend pairs, coaching goals) are pack data too.


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
    rng, steps = b.rng, b.data.goals[goal]
    at = 0
    if n >= 6 and rng.random() < 0.3:
        b.ask("smalltalk/greeting")  # long sessions sometimes open and close socially, as real ones do
    closing = n >= 6 and rng.random() < 0.3
    while len(b.turns) < n:
        if closing and len(b.turns) == n - 1:
            b.ask(rng.choice(["smalltalk/thanks", "smalltalk/goodbye"]))
            break
        pair = steps[at % len(steps)]
        at += rng.choice([1, 1, 1, 2])  # mostly in order, sometimes skipping a step
        if pair.startswith("match/") and b.match() is None:
            continue
        if b.turns and b.last_branch == "recommend" and rng.random() < 0.2:
            b.ask(
                b.turns[-1].reference.intent + "/" + b.turns[-1].reference.sub_intent,
                b.data.repeat_cores,
                no_repeat=True,
            )
            continue
        b.ask(pair)
        # The game moves on while the player is coached: rounds end, advice is acted on.
        if len(b.turns) < n and rng.random() < 0.3:
            kind = b.data.goal_state_change.get(goal, "opponent_swap")
            b.apply(kind)


def _episode(b: _Builder, budget: int, context: bool = False) -> None:
    """One cross-turn dependency, at most `budget` turns. `context`: its first turn is not scored."""
    rng, data = b.rng, b.data
    kinds = ["repeat", "exclude", "acquire", "evolve", "level_up", "trade"]
    if b.match() is not None:
        kinds += ["opponent", "round"]
    kind = rng.choice(kinds)
    first_scored = not context

    def late_next() -> None:
        b.late = rng.random() < 0.35

    if kind == "repeat":
        pair = rng.choice(data.recommend_pairs)
        b.ask(pair, scored=first_scored)
        for _ in range(min(budget - 1, rng.randint(1, 2))):
            b.ask(pair, data.repeat_cores, no_repeat=True)
    elif kind == "exclude":
        target = b.creature("owned")
        b.excluded.append(target)
        b.ask("lineup/build", data.exclude_cores, c=target, scored=first_scored)
        more = [c for c in b.owned() if c not in b.excluded]
        if budget > 1 and more:
            second = rng.choice(more)
            b.excluded.append(second)
            b.ask("lineup/build", data.exclude_more, c=second)
    elif kind == "acquire":
        target = b.creature("unowned")
        b.ask("creature/worth_it", c=target, scored=first_scored)
        if budget > 1 and b.apply("acquire", target):
            late_next()
            b.ask("lineup/build_around", data.after_acquire, c=target)
    elif kind == "evolve":
        sid, learner = b.skill("locked")
        e = b.entry(learner)
        b.ask("skill/unlock", c=learner, s=sid, scored=first_scored)
        if budget > 1 and e is not None and b.apply("evolve", learner):
            late_next()
            b.ask("skill/unlock", data.after_evolve, c=learner, s=sid)
    elif kind == "level_up":
        b.ask("inventory/upgrade_priority", scored=first_scored)
        target = b.creature("owned")
        if budget > 1 and b.apply("level_up", target):
            sid = rng.choice(b.pack.creatures[target].skills)
            late_next()
            b.ask("skill/when_to_use", data.after_level, c=target, s=sid)
    elif kind == "trade":
        b.ask(
            rng.choice(data.recommend_pairs[:2] if b.match() else data.recommend_pairs[:1]),
            scored=first_scored,
        )
        match = b.match()
        keep = set(match["player_lineup"]) if match else set()
        tradeable = [c for c in b.owned() if c not in keep]
        traded = rng.choice(tradeable) if tradeable else None
        if budget > 1 and traded and b.apply("trade", traded):
            late_next()
            b.ask("lineup/build", data.after_trade, c=traded)
    elif kind == "opponent":
        b.ask("lineup/counter", scored=first_scored)
        new = b.creature("unowned")
        if budget > 1 and b.apply("opponent_swap", new):
            late_next()
            b.ask("lineup/counter", data.after_swap, c=new)
    else:  # round
        b.ask(rng.choice(["match/round_strategy", "match/next_move"]), scored=first_scored)
        if budget > 1 and b.apply("round"):
            late_next()
            b.ask(rng.choice(["match/losing", "match/winning", "lineup/swap"]))


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


def _session(pack: Pack, seed: int, spec: _Spec) -> BenchSession:
    rng = random.Random(f"coachbench|{seed}|{spec.session_id}")
    lo, hi = {"single": (1, 1), "short": SHORT_TURNS, "long": LONG_TURNS}[spec.length]
    n = rng.randint(lo, hi)
    data = bench_data(pack)
    goal = rng.choice(sorted(data.goals)) if spec.stratum == "coaching" else None
    with_match = goal in data.match_goals or rng.random() < 0.75
    b = _Builder(pack, rng, _new_state(pack, rng, with_match))
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
    return BenchSession(
        session_id=spec.session_id,
        stratum=spec.stratum,
        length_class=length_class(len(scored)),
        goal=goal,
        eligibility=Eligibility(dgp=goal is not None, ccc=spec.stratum == "cross_turn" or depends),
        diagnostic_drift_tags=tags,
        w3_seed=rng.randrange(2**32),
        turns=turns,
    )


def generate(seed: int = DEFAULT_SEED, pack: Pack | None = None) -> list[BenchSession]:
    """The 200 sessions for `seed`, in file order."""
    pack = pack or load_pack()
    return [_session(pack, seed, spec) for spec in _specs()]


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


def write_benchmark(path: str | Path, seed: int = DEFAULT_SEED, pack: Pack | None = None) -> BenchManifest:
    """Write the benchmark JSONL (one session per line) and its manifest next to it."""
    path = Path(path)
    pack = pack or load_pack()
    sessions = generate(seed, pack)
    data = "".join(s.model_dump_json() + "\n" for s in sessions).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    manifest = _manifest(sessions, seed, pack, path, hashlib.sha256(data).hexdigest())
    manifest_path(path).write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return manifest


def _iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if line.strip():
                yield number, line


def load_benchmark(path: str | Path, pack: Pack | None = None) -> list[BenchSession]:
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
            session = BenchSession.model_validate(raw, context={"pack": pack})
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
