"""The generic recipes (voicecoach.talker.recipes) through `realize`, on the toy hero shooter whose Φ
entries carry `answer` steps (tests/recipe_pack.py): the safety contract (picks name only units
the player may field, a locked option is said with its gate), and a selector that selects nothing
falling back to the next step or to the paragraph's generic sentence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import voicecoach
from tests.recipe_pack import GENERIC, recipe_files
from tests.toy_pack import write_pack
from voicecoach.core.state import LiveState, load_state
from voicecoach.domain.pack import Pack, load_pack_from
from voicecoach.talker.conditioning import ToolOutcome
from voicecoach.talker.realizer import realize
from voicecoach.tools.registry import run_tool


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Pack:
    return load_pack_from(write_pack(tmp_path_factory.mktemp("recipes") / "toy", recipe_files()))


def _state(units: list[dict[str, Any]], focus: dict[str, str] | None = None, **match: Any) -> LiveState:
    doc: dict[str, Any] = {
        "turn_index": 4,
        "fs": {"player_level": 12, "collection": {"units": units}},
        "ic": {"focus": focus or {}, "mentioned": {k: [v] for k, v in (focus or {}).items()},
               "match": {"round": 2, "rounds_total": 3, "score_player": 1, "score_opponent": 0,
                         "player_lineup": [u["id"] for u in units],
                         "opponent_lineup": ["vanta"], "context": {"map": "harbor_point"}, **match}},
    }  # fmt: skip
    return load_state(doc)


def _run(pack: Pack, state: LiveState, calls: dict[str, dict[str, Any]]) -> list[ToolOutcome]:
    return [
        ToolOutcome(tool=n, args=a, ok=True, result=run_tool(pack, state, n, a)) for n, a in calls.items()
    ]


def _say(pack: Pack, state: LiveState, tools: list[ToolOutcome], pair: str, utterance: str = "") -> str:
    intent, sub = pair.split("/")
    return realize(pack, state, None, None, tools, utterance, 4, intent, sub)


def _first(reply: str) -> str:
    return reply.split(". ")[0].rstrip(".") + "."


def test_a_counter_pick_names_only_a_hero_the_player_has(toy: Pack) -> None:
    state = _state([{"id": "vanta", "level": 3}, {"id": "skyla", "level": 2}])
    real = _run(toy, state, {"hero_counters": {"opponent": ["vanta"]}})
    assert _first(_say(toy, state, real, "hero/counters")) == "Against Vanta, play Skyla."
    # A ranking that puts a hero they do not have first (a game-served tool, a stale one): the
    # recipe still names only a hero they own.
    ranked = [{"id": "bulwark", "name": "Bulwark"}, {"id": "skyla"}]
    result = {"matchup": "counters", "opponent": [{"id": "vanta", "name": "Vanta"}], "ranked": ranked}
    lying = [ToolOutcome(tool="hero_counters", args={}, ok=True, result=result)]
    reply = _say(toy, state, lying, "hero/counters")
    assert "Bulwark" not in reply and _first(reply) == "Against Vanta, play Skyla."
    # Only Vanta owned: nothing counters Vanta, so the least-bad owned hero, said as such.
    alone = _state([{"id": "vanta", "level": 3}])
    reply = _say(toy, alone, _run(toy, alone, {"hero_counters": {"opponent": ["vanta"]}}), "hero/counters")
    assert _first(reply) == "Nothing you have counters Vanta, so play Vanta."


def test_on_a_late_snapshot_a_hero_the_player_names_is_not_picked(toy: Pack) -> None:
    state = _state([{"id": "vanta", "level": 3}, {"id": "skyla", "level": 2}])
    tools = _run(toy, state, {"hero_counters": {"opponent": ["vanta"]}})
    late = realize(
        toy, state, None, None, tools, "I just traded Skyla, who counters Vanta?", 6, "hero", "counters"
    )
    # The snapshot (turn 4) still lists Skyla; the player says it changed: no claim on Skyla.
    assert "Skyla" not in late and late.startswith("Going by my last update"), late


def test_a_team_is_made_of_owned_heroes_only(toy: Pack) -> None:
    state = _state([{"id": "vanta", "level": 3}, {"id": "skyla", "level": 2}])
    result = {"units": [{"id": "bulwark"}, {"id": "vanta"}], "score": 70}
    suggested = [ToolOutcome(tool="suggest_comp", args={}, ok=True, result=result)]
    reply = _say(toy, state, suggested + _run(toy, state, {"get_roster": {}}), "comp/build")
    assert _first(reply) == "From your heroes, run Vanta and Skyla." and "Bulwark" not in reply


def test_a_locked_item_is_said_with_its_gate_and_an_unlocked_one_as_usable(toy: Pack) -> None:
    low = _state([{"id": "vanta", "level": 3}], focus={"item": "longshot", "hero": "vanta"})
    reply = _say(toy, low, _run(toy, low, {"get_item": {"item": "longshot"}}), "item/unlock")
    assert _first(reply) == "Not yet: Longshot needs hero level 5."
    high = _state([{"id": "vanta", "level": 6, "unlocked": ["longshot"]}], focus={"item": "longshot"})
    reply = _say(toy, high, _run(toy, high, {"get_item": {"item": "longshot"}}), "item/unlock")
    assert _first(reply) == "Yes, Longshot is unlocked on your Vanta."
    nobody = _state([{"id": "skyla", "level": 6}], focus={"item": "longshot"})
    reply = _say(toy, nobody, _run(toy, nobody, {"get_item": {"item": "longshot"}}), "item/unlock")
    assert _first(reply) == "Longshot is Vanta's, and you haven't unlocked Vanta yet."


def test_ownership_facts_quota_and_matchups(toy: Pack) -> None:
    state = _state([{"id": "vanta", "level": 7}], focus={"hero": "vanta"})
    hero = _run(toy, state, {"get_hero": {"hero": "vanta"}})
    assert _first(_say(toy, state, hero, "hero/owned")) == "Yes, Vanta is unlocked, at hero level 7."
    assert _first(_say(toy, state, hero, "hero/info")) == "Vanta is a hard striker hero."
    other = _state([{"id": "skyla", "level": 2}], focus={"hero": "vanta"})
    reply = _say(toy, other, _run(toy, other, {"get_hero": {"hero": "vanta"}}), "hero/owned")
    assert _first(reply) == "No, Vanta isn't unlocked yet: Vanta comes at account level 10."
    on_map = _run(toy, state, {"map_picks": {}})
    assert _first(_say(toy, state, on_map, "hero/on_map")) == "Vanta is strong on Harbor Point."
    short = _run(toy, state, {"score_comp": {"heroes": ["vanta"]}})
    assert _first(_say(toy, state, short, "comp/quota")) == "You're short a striker."
    roster = _say(toy, state, _run(toy, state, {"get_roster": {}}), "hero/list")
    assert _first(roster) == "You have 1 heroes, like Vanta."
    comps = _say(toy, state, _run(toy, state, {"list_comps": {}}), "comp/list")
    assert _first(comps) == "You can't field a full comp yet; Dive is closest, missing Bulwark."


def test_a_loadout_names_only_unlocked_items_one_per_slot(toy: Pack) -> None:
    low = _state([{"id": "vanta", "level": 3}], focus={"hero": "vanta"})
    reply = _say(toy, low, _run(toy, low, {"get_hero": {"hero": "vanta"}}), "item/best")
    assert _first(reply) == "On Vanta, run Smoke Round." and "Longshot" not in reply  # locked: level 5
    high = _state([{"id": "vanta", "level": 6, "unlocked": ["longshot"]}], focus={"hero": "vanta"})
    reply = _say(toy, high, _run(toy, high, {"get_hero": {"hero": "vanta"}}), "item/best")
    assert _first(reply) == "On Vanta, run Longshot and Smoke Round."
    unit = {"id": "vanta", "level": 6, "unlocked": ["longshot"], "equipped": {"utility": "smoke_round"}}
    worn = _state([unit], focus={"hero": "vanta"})
    assert _first(_say(toy, worn, _run(toy, worn, {"get_roster": {}}), "item/equipped")) == (
        "Your Vanta has Smoke Round equipped."
    )


def test_a_selector_that_selects_nothing_falls_back(toy: Pack) -> None:
    state = _state([{"id": "vanta", "level": 7}])
    full = _run(toy, state, {"match": {}})
    assert _first(_say(toy, state, full, "match/score")) == "You're 1 to 0 in round 2 of 3."
    # The game's match result lacks the opponent's score: the template cannot be filled, so the
    # paragraph's generic sentence is said, never a half-filled one.
    partial = [ToolOutcome(tool="match", args={}, ok=True,
                           result={"score": {"player": 1}, "round": 2, "rounds_total": 3})]  # fmt: skip
    reply = _say(toy, state, partial, "match/score")
    assert reply.startswith(GENERIC) and "1 to" not in reply
    # A step whose input selects nothing yields no line: the next step answers (the rating).
    rated = [ToolOutcome(tool="score_comp", args={}, ok=True,
                         result={"score": 55, "breakdown": {"power": 30.0, "edge": 5.0},
                                 "max": {"power": 40.0, "edge": 30.0}})]  # fmt: skip
    reply = _say(toy, state, rated, "comp/quota")
    assert _first(reply) == "Your comp rates 55 out of 100; edge is the weak spot."


def test_pet_arena_answers_every_tool_using_pair_with_steps() -> None:
    """One answer path for every pack: pet_arena's pairs are answered by the generic recipes too
    (its two roster tips by templates.json's words), and no module keeps a pet-only dispatch."""
    from voicecoach.domain.pack import load_pack

    pack = load_pack()
    worded = set(pack.templates.answers)
    stepless = {f"{e.intent}/{e.sub_intent}" for e in pack.phi if e.tools and e.answer is None}
    assert stepless <= worded and stepless == {"teaching/resources", "teaching/leveling"}
    package = Path(voicecoach.__file__).parent
    assert not (package / "realizer_classic.py").exists() and not (package / "talker" / "classic.py").exists()
