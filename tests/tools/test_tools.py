"""The game-backend tools over the shared `pack` and `state` fixtures (see conftest.py)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from voicecoach.core.state import LiveState, apply_patch
from voicecoach.domain.pack import Pack
from voicecoach.tools.registry import (
    TOOL_NAMES,
    TOOLS,
    ToolError,
    ToolRunner,
    run_tool,
    validate_args,
)

OPPONENT = ["briarcat", "shellbastion", "voltail"]  # grass, water, electric
OWNED = {"emberfox", "galehawk", "granitusk", "hexmoth", "lumifawn", "oakhorn", "sparkwing", "tidefang"}

# One valid call per tool; used for the determinism and serialisation checks.
CALLS: dict[str, dict[str, Any]] = {
    "get_inventory": {},
    "get_match_state": {},
    "find_counters": {"opponent": OPPONENT},
    "score_lineup": {"creatures": ["emberfox", "oakhorn", "sparkwing"], "opponent": OPPONENT},
    "explain_skill": {"skill": "inferno_roar"},
    "suggest_lineup": {"opponent": OPPONENT, "style": "aggressive", "size": 4},
    "get_creature": {"creature": "emberfox"},
    "evolution_path": {"creature": "tidefang"},
    "element_matchup": {"attacker": "fire", "defender": "grass"},
    "list_lineups": {},
}


def test_registry_has_exactly_the_agreed_tools() -> None:
    assert set(TOOL_NAMES) == set(CALLS) and tuple(TOOLS) == TOOL_NAMES


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_every_tool_is_deterministic_and_json_serialisable(pack: Pack, state: LiveState, name: str) -> None:
    first = run_tool(pack, state, name, CALLS[name])
    assert json.loads(json.dumps(first)) == first
    assert run_tool(pack, state, name, CALLS[name]) == first


def test_get_inventory_lists_owned_creatures_with_unlocked_and_locked_skills(
    pack: Pack, state: LiveState
) -> None:
    inv = run_tool(pack, state, "get_inventory", {})
    assert inv["count"] == 8 and [c["id"] for c in inv["creatures"]] == sorted(OWNED)
    ember = inv["creatures"][0]
    assert (ember["stage"], ember["stage_name"], ember["level"]) == (2, "Emberfox", 14)
    assert [s["id"] for s in ember["locked_skills"]] == ["inferno_roar"]
    assert {"id": "blaze_charge", "name": "Blaze Charge"} in ember["unlocked_skills"]
    assert inv["saved_lineups"] == {"main": ["emberfox", "oakhorn", "sparkwing"]}


def test_get_match_state(pack: Pack, state: LiveState) -> None:
    match = run_tool(pack, state, "get_match_state", {})
    assert match["round"] == 2 and match["score"] == {"player": 1, "opponent": 0}
    assert [(c["name"], c["element"]) for c in match["opponent_lineup"]] == [
        ("Briarcat", "grass"),
        ("Shellbastion", "water"),
        ("Voltail", "electric"),
    ]


def test_find_counters_ranks_owned_creatures_by_element_advantage(pack: Pack, state: LiveState) -> None:
    result = run_tool(pack, state, "find_counters", {"opponent": ["Emberfox"]})  # a fire opponent
    counters = result["counters"]
    assert len(counters) == 5 and {c["id"] for c in counters} <= OWNED
    assert [c["advantage"] for c in counters] == sorted((c["advantage"] for c in counters), reverse=True)
    # Water and earth beat fire; the player owns exactly one of each.
    assert {c["id"] for c in counters[:2]} == {"tidefang", "granitusk"}
    assert "Emberfox for double damage" in counters[0]["reason"]


def test_find_counters_never_returns_unowned_creatures(pack: Pack, state: LiveState) -> None:
    # Against light and electric the best answers (shadow/earth legendaries) are not owned.
    result = run_tool(pack, state, "find_counters", {"opponent": ["celestara", "raijura", "noctyrr"]})
    assert {c["id"] for c in result["counters"]} <= OWNED


def test_score_lineup_is_bounded_and_reports_unowned(pack: Pack, state: LiveState) -> None:
    result = run_tool(pack, state, "score_lineup", {"creatures": ["Emberfox", "Terragon", "Celestara"]})
    assert 0 <= result["score"] <= 100
    assert set(result["breakdown"]) == {"power", "role_coverage", "element_coverage", "counter_advantage"}
    assert result["not_owned"] == ["celestara", "terragon"]
    assert result["valid_size"]


def test_score_lineup_rewards_countering_the_opponent(pack: Pack, state: LiveState) -> None:
    # Same team, two opponents: one it counters (grass/water/electric) and one that counters it.
    team = ["emberfox", "oakhorn", "sparkwing"]
    good = run_tool(
        pack, state, "score_lineup", {"creatures": team, "opponent": ["vinecoil", "dewdrift", "joltusk"]}
    )
    bad = run_tool(
        pack, state, "score_lineup", {"creatures": team, "opponent": ["dewdrift", "pyrowl", "rockram"]}
    )
    assert good["breakdown"]["counter_advantage"] > bad["breakdown"]["counter_advantage"]
    assert good["score"] > bad["score"]


def test_explain_skill_reports_locked_skill_as_not_unlocked(pack: Pack, state: LiveState) -> None:
    result = run_tool(pack, state, "explain_skill", {"skill": "Inferno Roar"})
    assert result["unlock"] == {"min_stage": 3}
    assert result["unlock_text"] == "unlocks with evolution stage 3"
    assert result["unlocked_for_player"] is False and result["unlocked_on"] == []
    emberfox = next(c for c in result["creatures"] if c["id"] == "emberfox")
    assert emberfox == {"id": "emberfox", "name": "Emberfox", "owned": True, "unlocked": False}


def test_explain_skill_reports_where_a_skill_is_unlocked(pack: Pack, state: LiveState) -> None:
    result = run_tool(pack, state, "explain_skill", {"skill": "flame_burst"})
    assert result["unlock"] is None and result["unlocked_for_player"] is True
    assert result["unlocked_on"] == ["emberfox"]
    assert [c["id"] for c in result["creatures"]] == sorted(c["id"] for c in result["creatures"])


@pytest.mark.parametrize("size", [3, 4, 5])
def test_suggest_lineup_uses_owned_creatures_only(pack: Pack, state: LiveState, size: int) -> None:
    result = run_tool(pack, state, "suggest_lineup", {"opponent": OPPONENT, "size": size})
    ids = [c["id"] for c in result["creatures"]]
    assert len(ids) == size == len(set(ids)) and set(ids) <= OWNED
    assert ids == sorted(ids)


def test_suggest_lineup_is_at_least_as_good_as_the_current_team(pack: Pack, state: LiveState) -> None:
    suggested = run_tool(pack, state, "suggest_lineup", {"opponent": OPPONENT})
    current = run_tool(
        pack, state, "score_lineup", {"creatures": state.ic.match.player_lineup, "opponent": OPPONENT}
    )
    assert suggested["score"] >= current["score"]


def test_suggest_lineup_style_shapes_the_team(pack: Pack, state: LiveState) -> None:
    aggressive = run_tool(pack, state, "suggest_lineup", {"style": "aggressive"})
    defensive = run_tool(pack, state, "suggest_lineup", {"style": "defensive"})
    strikers = sum(c["role"] == "striker" for c in aggressive["creatures"])
    guards = sum(c["role"] in ("tank", "support") for c in defensive["creatures"])
    assert strikers >= 2 and guards >= 2


def test_suggest_lineup_needs_enough_creatures(pack: Pack, state: LiveState) -> None:
    few = apply_patch(
        state, {"fs": {"inventory": {"owned": [{"creature_id": "emberfox"}, {"creature_id": "oakhorn"}]}}}
    )
    with pytest.raises(ToolError, match="owns 2 creatures"):
        run_tool(pack, few, "suggest_lineup", {})


def test_get_creature_owned_and_not_owned(pack: Pack, state: LiveState) -> None:
    owned = run_tool(pack, state, "get_creature", {"creature": "Infernofox"})  # a stage name works too
    assert owned["id"] == "emberfox" and owned["owned"] and owned["stage"] == 2
    assert owned["unlocked_skills"] == ["ember_fang", "flame_burst", "blaze_charge"]
    other = run_tool(pack, state, "get_creature", {"creature": "Pyrowl"})
    assert not other["owned"] and other["stage"] is None and other["unlocked_skills"] == []


def test_evolution_path_names_the_next_step(pack: Pack, state: LiveState) -> None:
    path = run_tool(pack, state, "evolution_path", {"creature": "tidefang"})
    assert [s["name"] for s in path["stages"]] == ["Tidepup", "Tidefang", "Tsunafang"]
    assert [s["id"] for s in path["stages"][2]["unlocks"]] == ["tsunami_crash"]
    assert path["next_step"] == "Evolve Tidepup into Tidefang to unlock Riptide."
    assert "fully evolved" in run_tool(pack, state, "evolution_path", {"creature": "hexmoth"})["next_step"]
    legend = run_tool(pack, state, "evolution_path", {"creature": "pyralis"})
    assert not legend["owned"] and [s["id"] for s in legend["other_unlocks"]] == ["phoenix_rite"]


@pytest.mark.parametrize(
    ("attacker", "defender", "multiplier"),
    [("fire", "grass", 2.0), ("grass", "fire", 0.5), ("fire", "electric", 1.0), ("Emberfox", "Oakhorn", 2.0)],
)
def test_element_matchup(
    pack: Pack, state: LiveState, attacker: str, defender: str, multiplier: float
) -> None:
    result = run_tool(pack, state, "element_matchup", {"attacker": attacker, "defender": defender})
    assert result["multiplier"] == multiplier
    assert result["explanation"].endswith("damage.")


def test_list_lineups_counts_owned_and_missing(pack: Pack, state: LiveState) -> None:
    lineups = run_tool(pack, state, "list_lineups", {})["lineups"]
    assert [lu["id"] for lu in lineups] == [f"T{i}" for i in range(1, 17)]
    t1 = lineups[0]  # emberfox, pyrowl, kindlemoth
    assert (t1["owned_count"], t1["missing"], t1["complete"]) == (1, ["pyrowl", "kindlemoth"], False)


# --- validation and errors ----------------------------------------------------------------


def test_validate_args_resolves_display_names_case_insensitively(pack: Pack) -> None:
    args = validate_args("score_lineup", {"creatures": ["EMBERFOX", " Oakhorn ", "Sparkchick"]}, pack)
    assert args == {"creatures": ["emberfox", "oakhorn", "sparkwing"]}  # Sparkchick: a stage name
    assert validate_args("explain_skill", {"skill": "ember fang"}, pack) == {"skill": "ember_fang"}
    assert validate_args("element_matchup", {"attacker": "Fire", "defender": "briarcat"}, pack) == {
        "attacker": "fire",
        "defender": "briarcat",
    }


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("summon_dragon", {}, "unknown tool 'summon_dragon'"),
        ("get_creature", {}, r"missing required argument\(s\) \['creature'\]"),
        ("get_creature", {"creature": 7}, "'creature' must be a string"),
        ("get_creature", {"creature": "emberfox", "shiny": True}, r"unknown argument\(s\) \['shiny'\]"),
        ("find_counters", {"opponent": "briarcat"}, "'opponent' must be a list of strings"),
        ("find_counters", {"opponent": []}, "'opponent' must have 1-5 items"),
        ("suggest_lineup", {"size": "3"}, "'size' must be an integer"),
        ("suggest_lineup", {"size": 6}, "'size' must be between 3 and 5"),
        ("suggest_lineup", {"style": "sneaky"}, "'style' must be one of"),
        ("score_lineup", {"creatures": ["emberfox", "Emberfox", "oakhorn"]}, "same creature twice"),
        ("get_creature", {"creature": "Glitterbug"}, "unknown creature 'Glitterbug'"),
        ("explain_skill", {"skill": "Moon Punch"}, "unknown skill 'Moon Punch'"),
        (
            "element_matchup",
            {"attacker": "plasma", "defender": "fire"},
            "unknown element or creature 'plasma'",
        ),
    ],
)
def test_bad_calls_raise_tool_error(
    pack: Pack, state: LiveState, name: str, args: dict[str, Any], message: str
) -> None:
    with pytest.raises(ToolError, match=message):
        run_tool(pack, state, name, args)


@pytest.mark.parametrize(
    "name", ["get_inventory", "find_counters", "suggest_lineup", "get_creature", "list_lineups"]
)
def test_missing_inventory_raises_tool_error(pack: Pack, state: LiveState, name: str) -> None:
    no_inventory = apply_patch(state, {"fs": {"inventory": None}})
    with pytest.raises(ToolError, match="inventory is not known"):
        run_tool(pack, no_inventory, name, CALLS[name])


def test_missing_match_raises_tool_error(pack: Pack, state: LiveState) -> None:
    with pytest.raises(ToolError, match="no match in progress"):
        run_tool(pack, apply_patch(state, {"ic": {"match": None}}), "get_match_state", {})


def test_tool_error_is_a_value_error() -> None:
    assert issubclass(ToolError, ValueError)


# --- the async runner ------------------------------------------------------------------------


async def test_runner_applies_latency(pack: Pack, state: LiveState) -> None:
    runner = ToolRunner(pack, latency_ms=50)
    start = time.perf_counter()
    result = await runner.call(state, "get_inventory", {})
    assert time.perf_counter() - start >= 0.05
    assert result == run_tool(pack, state, "get_inventory", {})


async def test_runner_per_tool_latency(pack: Pack, state: LiveState) -> None:
    runner = ToolRunner(pack, latency_ms={"suggest_lineup": 80})
    assert runner.latency_s("suggest_lineup") == 0.08 and runner.latency_s("get_inventory") == 0.0
    start = time.perf_counter()
    await runner.call(state, "suggest_lineup", {})
    assert time.perf_counter() - start >= 0.08


async def test_runner_times_out(pack: Pack, state: LiveState) -> None:
    runner = ToolRunner(pack, latency_ms=200, timeout_s=0.02)
    start = time.perf_counter()
    with pytest.raises(asyncio.TimeoutError):
        await runner.call(state, "get_inventory", {})
    assert time.perf_counter() - start < 0.2


async def test_runner_rejects_bad_args_before_waiting(pack: Pack, state: LiveState) -> None:
    runner = ToolRunner(pack, latency_ms=500)
    start = time.perf_counter()
    with pytest.raises(ToolError, match="unknown creature"):
        await runner.call(state, "get_creature", {"creature": "nobody"})
    assert time.perf_counter() - start < 0.5
