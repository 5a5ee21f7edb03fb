"""CoachBench's pack data (`<pack>/coachbench.json`): the generator's phrase and pair tables and each
Φ pair's responsive family. A domain brings its own; the generator and the judge hold no domain words.

Validated at load, naming the file and the entry: every pair is a registered Φ pair, every Φ pair
has a family, every family is one the judge knows (`responsive.FAMILIES`), every goal step and
weight names a registered pair.
"""

from __future__ import annotations

import json
from functools import cache

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from voicecoach.pack import PACKS_DIR, Pack, PackError, load_pack

FILE = "coachbench.json"


class BenchData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    comment: str = Field(default="", alias="_comment")
    phrases: dict[str, list[str]] = Field(description="'intent/sub_intent' -> utterance cores")
    repeat_cores: list[str]
    after_acquire: list[str]
    after_evolve: list[str]
    after_trade: list[str]
    after_swap: list[str]
    after_level: list[str]
    exclude_cores: list[str]
    exclude_more: list[str]
    openers: list[str]
    closers: list[str]
    fillers: list[str]
    question_words: list[str]
    opponent_phrases: list[str]
    factual: dict[str, int]
    factual_match: dict[str, int]
    recommend_pairs: list[str]
    goals: dict[str, list[str]]
    match_goals: list[str]
    goal_state_change: dict[str, str]
    families: dict[str, str] = Field(description="'intent/sub_intent' -> responsive family")


def _check(data: BenchData, pack: Pack, where: str) -> None:
    from voicecoach.coachbench.responsive import FAMILIES

    pairs = {f"{e.intent}/{e.sub_intent}" for e in pack.phi}

    def bad(entry: str, msg: str) -> PackError:
        return PackError(f"{where}: entry {entry!r}: {msg}")

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
    for table, pair in named:
        if pair not in pairs:
            raise bad(f"{table}/{pair}", "not a registered Φ pair")
    for goal in [*data.match_goals, *data.goal_state_change]:
        if goal not in data.goals:
            raise bad(f"goals/{goal}", "unknown goal")


@cache
def _load(pack_id: str, version: str) -> BenchData:
    pack = load_pack(pack_id)
    path = PACKS_DIR / pack_id / FILE
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


def bench_data(pack: Pack) -> BenchData:
    """The pack's CoachBench data (cached per pack id and version)."""
    return _load(pack.pack_id, pack.version)


def family(pack: Pack, intent: str, sub_intent: str) -> str:
    return bench_data(pack).families[f"{intent}/{sub_intent}"]
