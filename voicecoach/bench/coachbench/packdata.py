"""CoachBench's pack data (`<pack>/coachbench.json`): the generator's phrase and pair tables and each
Φ pair's responsive family. A domain brings its own; the generator and the judge hold no domain words.

Beyond the phrase tables, the keys below say how the generator synthesises a player and what
happens between turns (docs/PACKS.md, "CoachBench"). All are optional: their defaults are the
values pet_arena's sessions have always been generated with, so its file names none of them and
its benchmark stays byte for byte as it was. Another game declares its own:

- `synth`: the player's state: draw weights by unit attribute, levels by progression tier, how many
  units, the match's modes and rounds, the saved group's name;
- `events`: the game's state changes by name, each an `op` the generator knows (`Op`) and the
  `text` the turn's `state_change` says;
- `slots`: the utterance cores' placeholders, each a role (`unit`, `units`, `option`, `opponent`,
  `round`) or a context kind (a map);
- `episodes`: the cross-turn dependencies, in draw order: a recipe (`repeat`, `exclude` or an
  event op), its event, the pairs asked before and after, and the cores of the turn after;
- pair lists: `drift_b_pairs`, `counter_pairs`, `match_intents`, `open_pairs`, `close_pairs`, and
  `matchups` (the matchup a pair's counters come from: a map's fit, say).

A pair field holds one pair, or a list drawn from (`Pick`). Validated at load, naming the file and
the entry: every pair is a registered Φ pair, every Φ pair has a family, every family is one the
judge knows (`responsive.FAMILIES`), every goal step and weight names a registered pair, every
event, slot kind, episode and core table resolves.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from voicecoach.domain.pack import Pack, PackError, load_pack, pack_ref

FILE = "coachbench.json"

Op = Literal["next_round", "swap_opponent", "tier_up", "level", "acquire", "remove", "set_context"]
Recipe = Literal["repeat", "exclude", "next_round", "swap_opponent", "tier_up", "level", "acquire", "remove",
                 "set_context"]  # fmt: skip
SLOT_ROLES = ("unit", "units", "option", "opponent", "round")
Pick = str | list[str]  # one pair, or a list the generator draws one from


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Synth(_Frozen):
    """How the generator draws a player's state."""

    weights: dict[str, dict[str, int]] = Field(
        default={"rarity": {"common": 4, "rare": 3, "epic": 2, "legendary": 1}},
        description="unit attribute -> value -> draw weight (a value not listed: 1)",
    )
    levels_by_tier: dict[int, tuple[int, int]] = Field(
        default={1: (1, 12), 2: (10, 22), 3: (20, 35)}, description="progression tier -> unit level range"
    )
    levels: tuple[int, int] = Field(default=(1, 12), description="unit level range without progression")
    owned: tuple[int, int] = Field(default=(5, 9), description="units owned (capped by the catalog)")
    group_rate: float = Field(default=0.5, description="how often the player owns a whole pack group")
    quest_rate: float = Field(default=0.3, description="how often each quest gate is done")
    max_player_level: int = 40
    side_size: int | None = Field(default=None, description="units a side fields (None: the schema's or 3)")
    saved_group: str = "main"
    modes: list[str] = Field(default=["ranked", "ranked", "casual", "tournament"], min_length=1)
    rounds: int = Field(default=3, ge=1)
    round_phrases: list[str] = Field(default=["this round", "round {round}", "the next round"], min_length=1)
    level_up: tuple[int, int] = Field(default=(3, 8), description="levels a unit gains in a level event")
    keep_owned: int = Field(default=4, description="a remove event leaves more units than this")
    # "drawn": `owned` units drawn by `weights` (pet's creatures, caught or traded). "by_gate": the
    # player has exactly the units whose account-level gate (the unit kind's gate on
    # fs.player_level) their level meets, the level drawn from `player_levels` (a hero shooter's
    # roster unlocks by itself): an acquire event raises the account level, a level event is the
    # unit's own and leaves the account level alone, and no remove event applies.
    roster: Literal["drawn", "by_gate"] = "drawn"
    player_levels: tuple[int, int] = Field(default=(1, 40), description="by_gate: the account level range")
    # Each owned unit has one of its unlocked options equipped in every slot (the option kind's
    # `slot` attribute) it has one for, drawn among them; a unit that unlocks more keeps what it has
    # on, and an empty slot takes one of the new options.
    equip: bool = False


class Event(_Frozen):
    op: Op
    # Placeholders: {round} {result} (next_round), {out} {new} (swap_opponent), {unit} {tier}
    # {tier_name} {level} (tier_up, level, acquire, remove), {context} (set_context).
    text: str = Field(min_length=1)
    gained: str = Field(default=", unlocking {options}", description="appended when options unlock")


EVENTS: dict[str, Event] = {
    "round": Event(op="next_round", text="round {round} began after the player {result} the last one"),
    "opponent_swap": Event(op="swap_opponent", text="the opponent swapped {out} for {new}"),
    "evolve": Event(op="tier_up", text="{unit} evolved to stage {tier} ({tier_name})"),
    "level_up": Event(op="level", text="{unit} reached level {level}"),
    "acquire": Event(op="acquire", text="the player obtained {unit}"),
    "trade": Event(op="remove", text="the player traded away {unit}"),
}


class Episode(_Frozen):
    """One cross-turn dependency: ask `first`, let `event` happen, ask `then` with `cores`."""

    kind: Recipe
    needs_match: bool = False
    first: Pick | None = Field(default=None, description="repeat: the recommend pairs when None")
    first_match: list[str] = Field(default_factory=list, description="added to `first` mid-match")
    event: str | None = None
    then: Pick | None = None
    cores: str | None = Field(default=None, description="the core table of the turn after (by name)")
    more: str | None = Field(default=None, description="exclude: the core table of a second exclusion")


EPISODES: tuple[Episode, ...] = (
    Episode(kind="repeat", cores="repeat_cores"),
    Episode(kind="exclude", then="lineup/build", cores="exclude_cores", more="exclude_more"),
    Episode(kind="acquire", first="creature/worth_it", event="acquire", then="lineup/build_around",
            cores="after_acquire"),
    Episode(kind="tier_up", first="skill/unlock", event="evolve", then="skill/unlock", cores="after_evolve"),
    Episode(kind="level", first="inventory/upgrade_priority", event="level_up", then="skill/when_to_use",
            cores="after_level"),
    Episode(kind="remove", first=["lineup/build"], first_match=["lineup/counter"], event="trade",
            then="lineup/build", cores="after_trade"),
    Episode(kind="swap_opponent", needs_match=True, first="lineup/counter", event="opponent_swap",
            then="lineup/counter", cores="after_swap"),
    Episode(kind="next_round", needs_match=True, first=["match/round_strategy", "match/next_move"],
            event="round", then=["match/losing", "match/winning", "lineup/swap"]),
)  # fmt: skip

# The core tables an episode may name besides `cores`' own (the file's top-level lists).
LEGACY_CORES = ("repeat_cores", "after_acquire", "after_evolve", "after_trade", "after_swap", "after_level",
                "exclude_cores", "exclude_more")  # fmt: skip


class BenchData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    comment: str = Field(default="", alias="_comment")
    phrases: dict[str, list[str]] = Field(description="'intent/sub_intent' -> utterance cores")
    repeat_cores: list[str]
    after_acquire: list[str] = Field(default_factory=list)
    after_evolve: list[str] = Field(default_factory=list)
    after_trade: list[str] = Field(default_factory=list)
    after_swap: list[str] = Field(default_factory=list)
    after_level: list[str] = Field(default_factory=list)
    exclude_cores: list[str] = Field(default_factory=list)
    exclude_more: list[str] = Field(default_factory=list)
    cores: dict[str, list[str]] = Field(default_factory=dict, description="more core tables, by name")
    openers: list[str]
    closers: list[str]
    fillers: list[str]
    question_words: list[str]
    opponent_phrases: list[str]
    # What leads the opponent's names when the player lists them ("their Vanta and Skyla").
    opponent_prefixes: list[str] = Field(default=["their ", "", "the enemy "], min_length=1)
    factual: dict[str, int]
    factual_match: dict[str, int]
    recommend_pairs: list[str]
    goals: dict[str, list[str]]
    match_goals: list[str]
    goal_state_change: dict[str, str]
    default_state_change: str = Field(default="opponent_swap", description="a goal's event when not listed")
    families: dict[str, str] = Field(description="'intent/sub_intent' -> responsive family")
    synth: Synth = Field(default_factory=Synth)
    events: dict[str, Event] = Field(default_factory=lambda: dict(EVENTS))
    slots: dict[str, str] = Field(
        default={"c": "unit", "c2": "unit", "cs": "units", "s": "option", "opp": "opponent", "rnd": "round"},
        description="placeholder -> a role or a context kind",
    )
    episodes: tuple[Episode, ...] = Field(default=EPISODES, min_length=1)
    # Pairs where an entity slot can go wrong either way (drift B) whatever the state says.
    drift_b_pairs: list[str] = Field(default=["creature/owned", "skill/unlock"])
    # Recommend pairs whose direction is the owned counters to the opponent side.
    counter_pairs: list[str] = Field(
        default=["lineup/counter", "lineup/swap", "lineup/matchup", "match/opponent_analysis",
                 "match/round_strategy", "match/next_move", "match/losing", "match/winning",
                 "match/final_round", "skill/counter", "element/advantage"]
    )  # fmt: skip
    match_intents: list[str] = Field(default=["match"], description="a goal step of these needs a match")
    # The matchup a pair's counters come from (a unit-vs-context one: against the match's context,
    # a map); a pair not listed: the unit-vs-unit matchup, against the opponent side.
    matchups: dict[str, str] = Field(default_factory=dict, description="'intent/sub_intent' -> matchup")
    open_pairs: Pick | None = "smalltalk/greeting"
    close_pairs: Pick | None = ["smalltalk/thanks", "smalltalk/goodbye"]

    def core_table(self, name: str) -> list[str]:
        """The cores named `name`: an entry of `cores`, else a top-level table."""
        if name in self.cores:
            return self.cores[name]
        return list(getattr(self, name)) if name in LEGACY_CORES else []


def pick_list(value: Pick | None) -> list[str]:
    return [] if value is None else [value] if isinstance(value, str) else list(value)


def _check(data: BenchData, pack: Pack, where: str) -> None:
    from voicecoach.bench.coachbench.responsive import FAMILIES

    pairs = {f"{e.intent}/{e.sub_intent}" for e in pack.phi}
    schema = pack.catalog.schema
    contexts = set(schema.kinds_of("context"))

    def bad(entry: str, msg: str) -> PackError:
        return PackError(f"{where}: entry {entry!r}: {msg}")

    def default(key: str) -> str:
        # A key the file leaves out holds pet_arena's value: say so, or the error reads as a typo.
        return "" if key in data.model_fields_set else f" (the default; {FILE} declares no {key!r})"

    for pair, family in data.families.items():
        if pair not in pairs:
            raise bad(f"families/{pair}", "not a registered Φ pair")
        if family not in FAMILIES:
            raise bad(f"families/{pair}", f"unknown family {family!r}; known: {', '.join(sorted(FAMILIES))}")
    for pair in sorted(pairs - set(data.families)):
        raise bad(f"families/{pair}", "Φ pair without a responsive family")
    named = [("phrases", p) for p in data.phrases] + [("factual", p) for p in data.factual]
    named += [("factual_match", p) for p in data.factual_match] + [
        ("recommend_pairs", p) for p in data.recommend_pairs
    ]
    named += [(f"goals/{goal}", p) for goal, steps in data.goals.items() for p in steps]
    for key in ("drift_b_pairs", "counter_pairs", "open_pairs", "close_pairs"):
        named += [(key, p) for p in pick_list(getattr(data, key))]
    for i, ep in enumerate(data.episodes):
        named += [(f"episodes/{i}", p) for p in [*pick_list(ep.first), *ep.first_match, *pick_list(ep.then)]]
    named += [("matchups", p) for p in data.matchups]
    for table, pair in named:
        if pair not in pairs:
            raise bad(f"{table}/{pair}", "not a registered Φ pair" + default(table.split("/")[0]))
    for goal in [*data.match_goals, *data.goal_state_change]:
        if goal not in data.goals:
            raise bad(f"goals/{goal}", "unknown goal")
    for goal, name in [*data.goal_state_change.items(), ("default_state_change", data.default_state_change)]:
        if name not in data.events:
            raise bad(f"goal_state_change/{goal}", f"unknown event {name!r}")
    for name, event in data.events.items():
        if event.op == "tier_up" and schema.progression is None:
            raise bad(f"events/{name}", "op 'tier_up' needs the schema's progression" + default("events"))
        if event.op == "set_context" and not contexts:
            raise bad(f"events/{name}", "op 'set_context' needs a context kind")
    for slot, role in data.slots.items():
        if role not in SLOT_ROLES and role not in contexts:
            known = ", ".join(SLOT_ROLES)
            raise bad(f"slots/{slot}", f"{role!r} is neither a role ({known}) nor a context kind")
        if role == "option" and schema.kind("option") is None:
            raise bad(f"slots/{slot}", "the pack has no option kind" + default("slots"))
    for i, ep in enumerate(data.episodes):
        entry = f"episodes/{i}"
        if ep.kind in ("repeat", "exclude"):
            if ep.event is not None:
                raise bad(entry, f"a {ep.kind!r} episode has no event")
        elif ep.event not in data.events or data.events[ep.event].op != ep.kind:
            raise bad(entry, f"event {ep.event!r} is not an event with op {ep.kind!r}" + default("episodes"))
        elif ep.first is None or (ep.then is None and ep.kind != "next_round"):
            raise bad(entry, "names the pairs asked before (`first`) and after (`then`)")
        if ep.kind == "exclude" and ep.then is None:
            raise bad(entry, "an 'exclude' episode names its pair (`then`)")
        for cores in (ep.cores, ep.more):
            if cores is not None and not data.core_table(cores):
                raise bad(f"{entry}/{cores}", "no such core table, or it is empty" + default("episodes"))
    unit_kind = schema.kind("unit") or ""
    for pair, name in data.matchups.items():
        m = next((m for m in schema.matchups if m.name == name), None)
        if (
            m is None
            or m.between[0] != unit_kind
            or (m.between[1] != unit_kind and m.between[1] not in contexts)
        ):
            raise bad(
                f"matchups/{pair}", f"{name!r} is not a matchup of the unit against a unit or a context"
            )
    unit = schema.kinds[unit_kind]
    option_kind = schema.kind("option")
    if data.synth.equip and (
        schema.state == "classic" or option_kind is None or not schema.kinds[option_kind].slot
    ):
        raise bad("synth/equip", "needs the collection profile and an option kind with a `slot` attribute")
    if data.synth.roster == "by_gate":
        if not any(g.state == "fs.player_level" for g in unit.gate.values()):
            raise bad("synth/roster", f"'by_gate' needs a gate of the {unit_kind} kind on fs.player_level")
        for name, event in data.events.items():
            if event.op == "remove":
                raise bad(f"events/{name}", "a 'by_gate' roster only grows: no 'remove' event")
    for attr in data.synth.weights if data.synth.roster == "drawn" else ():  # by_gate draws no units
        if attr not in unit.attributes:
            raise bad(f"synth/weights/{attr}", "not an attribute of the unit kind" + default("synth"))
    if schema.progression is not None:
        tiers = max((len(e.value(schema.progression.field) or []) for e in pack.catalog.entities.get(
            schema.progression.kind, {}).values()), default=0)  # fmt: skip
        missing = [t for t in range(1, tiers + 1) if t not in data.synth.levels_by_tier]
        if missing:
            raise bad("synth/levels_by_tier", f"no level range for tier(s) {missing}" + default("synth"))


def load_bench_data(pack: Pack, folder: Path) -> BenchData:
    """Read and validate `folder`'s coachbench.json against `pack`. Raises PackError naming the
    file and the entry."""
    path = folder / FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PackError(f"{path}: file missing from pack (CoachBench needs it)") from None
    except json.JSONDecodeError as err:
        raise PackError(f"{path}: not valid JSON ({err})") from None
    try:
        data = BenchData.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        raise PackError(f"{path}: entry {'.'.join(map(str, first['loc']))!r}: {first['msg']}") from None
    _check(data, pack, str(path))
    return data


@cache
def _load(ref: str, version: str) -> BenchData:
    pack = load_pack(ref)
    return load_bench_data(pack, pack.home)


def bench_data(pack: Pack) -> BenchData:
    """A pack's CoachBench data, from its folder (cached per pack and version)."""
    return _load(pack_ref(pack), pack.version)


def family(data: BenchData, intent: str, sub_intent: str) -> str:
    return data.families[f"{intent}/{sub_intent}"]
