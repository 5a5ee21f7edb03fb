"""The game-backend tools over the shared `pack` and `state` fixtures (see conftest.py)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from voicecoach.core.state import LiveState, apply_patch
from voicecoach.domain.pack import Pack
from voicecoach.domain.view import StateView
from voicecoach.tools.registry import ToolError, ToolRunner, pack_tools, run_tool, validate_args

OPPONENT = ["briarcat", "shellbastion", "voltail"]  # grass, water, electric
OWNED = {"emberfox", "galehawk", "granitusk", "hexmoth", "lumifawn", "oakhorn", "sparkwing", "tidefang"}

# One valid call per tool (pet's tools.json: builtin kinds under pet's names); used for the
# determinism and serialisation checks.
CALLS: dict[str, dict[str, Any]] = {
    "get_inventory": {},
    "get_match_state": {},
    "find_counters": {"opponent": OPPONENT},
    "score_lineup": {"creatures": ["emberfox", "oakhorn", "sparkwing"], "opponent": OPPONENT},
    "explain_skill": {"skill": "inferno_roar"},
    "suggest_lineup": {"opponent": OPPONENT, "role": "striker", "size": 4},
    "get_creature": {"creature": "emberfox"},
    "list_lineups": {},
}
TOOL_NAMES = tuple(CALLS)


def test_pack_declares_exactly_the_agreed_tools(pack: Pack) -> None:
    assert tuple(pack_tools(pack)) == TOOL_NAMES and set(pack.builtin_tools) == set(CALLS)


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_every_tool_is_deterministic_and_json_serialisable(pack: Pack, state: LiveState, name: str) -> None:
    first = run_tool(pack, state, name, CALLS[name])
    assert json.loads(json.dumps(first)) == first
    assert run_tool(pack, state, name, CALLS[name]) == first


def test_get_inventory_lists_owned_creatures_with_unlocked_and_locked_skills(
    pack: Pack, state: LiveState
) -> None:
    inv = run_tool(pack, state, "get_inventory", {})
    assert inv["count"] == 8 and [c["id"] for c in inv["units"]] == sorted(OWNED)
    ember = inv["units"][0]
    assert (ember["tier"], ember["level"]) == (2, 14)
    assert [s["id"] for s in ember["locked"]] == ["inferno_roar"]
    assert {"id": "blaze_charge", "name": "Blaze Charge"} in ember["unlocked"]
    assert inv["saved_groups"] == {"main": ["emberfox", "oakhorn", "sparkwing"]}


def test_get_match_state(pack: Pack, state: LiveState) -> None:
    match = run_tool(pack, state, "get_match_state", {})
    assert match["round"] == 2 and match["score"] == {"player": 1, "opponent": 0}
    assert [c["name"] for c in match["opponent_side"]] == ["Briarcat", "Shellbastion", "Voltail"]


def test_find_counters_ranks_owned_creatures_by_element_advantage(pack: Pack, state: LiveState) -> None:
    result = run_tool(pack, state, "find_counters", {"opponent": ["Emberfox"]})  # a fire opponent
    counters = result["ranked"]
    assert len(counters) == 5 and {c["id"] for c in counters} <= OWNED
    assert [c["advantage"] for c in counters] == sorted((c["advantage"] for c in counters), reverse=True)
    # Water and earth beat fire; the player owns exactly one of each.
    assert {c["id"] for c in counters[:2]} == {"tidefang", "granitusk"}
    assert counters[0]["beats"] == ["emberfox"]


def test_find_counters_never_returns_unowned_creatures(pack: Pack, state: LiveState) -> None:
    # Against light and electric the best answers (shadow/earth legendaries) are not owned.
    result = run_tool(pack, state, "find_counters", {"opponent": ["celestara", "raijura", "noctyrr"]})
    assert {c["id"] for c in result["ranked"]} <= OWNED


def test_score_lineup_is_bounded_and_reports_unowned(pack: Pack, state: LiveState) -> None:
    result = run_tool(pack, state, "score_lineup", {"creatures": ["Emberfox", "Terragon", "Celestara"]})
    assert 0 <= result["score"] <= 100
    assert set(result["breakdown"]) == {"power", "composition", "edge", "coverage"}
    assert result["not_owned"] == ["celestara", "terragon"]


def test_score_lineup_rewards_countering_the_opponent(pack: Pack, state: LiveState) -> None:
    # Same team, two opponents: one it counters (grass/water/electric) and one that counters it.
    team = ["emberfox", "oakhorn", "sparkwing"]
    good = run_tool(
        pack, state, "score_lineup", {"creatures": team, "opponent": ["vinecoil", "dewdrift", "joltusk"]}
    )
    bad = run_tool(
        pack, state, "score_lineup", {"creatures": team, "opponent": ["dewdrift", "pyrowl", "rockram"]}
    )
    assert good["breakdown"]["edge"] > bad["breakdown"]["edge"]
    assert good["score"] > bad["score"]


def test_score_lineup_counts_evolution_stages_and_roles(pack: Pack, state: LiveState) -> None:
    # tools.json: each stage past the first adds 15% power; distinct roles are the composition.
    team = {"creatures": ["emberfox", "oakhorn", "sparkwing"]}

    def at(stage: int) -> LiveState:
        owned = [{"creature_id": c, "stage": stage} for c in team["creatures"]]
        return apply_patch(state, {"fs": {"inventory": {"owned": owned}}})

    first = run_tool(pack, at(1), "score_lineup", team)
    assert run_tool(pack, at(3), "score_lineup", team)["breakdown"]["power"] > first["breakdown"]["power"]
    roles = {pack.catalog.get("creature", c).value("role") for c in team["creatures"]}  # type: ignore[union-attr]
    assert first["breakdown"]["composition"] == round(20 * len(roles) / 3, 1)


def test_explain_skill_reports_locked_skill_as_not_unlocked(pack: Pack, state: LiveState) -> None:
    result = run_tool(pack, state, "explain_skill", {"skill": "Inferno Roar"})
    assert result["unlock"] == {"min_stage": 3}
    assert result["unlock_text"] == "unlocks with evolution stage 3"
    assert result["usable"] is False
    emberfox = next(c for c in result["units"] if c["id"] == "emberfox")
    assert emberfox == {"id": "emberfox", "name": "Emberfox", "owned": True, "usable": False}


def test_explain_skill_reports_where_a_skill_is_unlocked(pack: Pack, state: LiveState) -> None:
    result = run_tool(pack, state, "explain_skill", {"skill": "flame_burst"})
    assert not result.get("unlock") and result["usable"] is True
    assert [c["id"] for c in result["units"] if c["usable"]] == ["emberfox"]


@pytest.mark.parametrize("size", [3, 4, 5])
def test_suggest_lineup_uses_owned_creatures_only(pack: Pack, state: LiveState, size: int) -> None:
    result = run_tool(pack, state, "suggest_lineup", {"opponent": OPPONENT, "size": size})
    ids = [c["id"] for c in result["units"]]
    assert len(ids) == size == len(set(ids)) and set(ids) <= OWNED
    assert ids == sorted(ids)


def test_suggest_lineup_is_at_least_as_good_as_the_current_team(pack: Pack, state: LiveState) -> None:
    suggested = run_tool(pack, state, "suggest_lineup", {"opponent": OPPONENT})
    current = run_tool(
        pack, state, "score_lineup", {"creatures": state.ic.match.player_lineup, "opponent": OPPONENT}
    )
    assert suggested["score"] >= current["score"]


def test_a_unit_far_behind_on_levels_counts_for_its_share_of_the_team_level(
    pack: Pack, state: LiveState
) -> None:
    # Lumifawn (level 5 among level 10-19) is light, the best hit on Voltail; at its level it is no pick.
    assert StateView(pack, state).far_behind("lumifawn")
    suggested = run_tool(pack, state, "suggest_lineup", {"opponent": OPPONENT})
    assert "lumifawn" not in [u["id"] for u in suggested["units"]]
    owned = [o.model_dump() for o in state.fs.inventory.owned]  # type: ignore[union-attr]
    raised = [o | {"level": 20} if o["creature_id"] == "lumifawn" else o for o in owned]
    levelled = apply_patch(state, {"fs": {"inventory": {"owned": raised}}})
    alone = run_tool(pack, levelled, "score_lineup", {"creatures": ["lumifawn"], "opponent": OPPONENT})
    low = run_tool(pack, state, "score_lineup", {"creatures": ["lumifawn"], "opponent": OPPONENT})
    assert low["breakdown"]["power"] < alone["breakdown"]["power"]


def test_suggest_lineup_role_shapes_the_team(pack: Pack, state: LiveState) -> None:
    strikers = run_tool(pack, state, "suggest_lineup", {"role": "striker"})
    tanks = run_tool(pack, state, "suggest_lineup", {"role": "tank"})

    def role(u: dict[str, Any]) -> Any:
        return pack.catalog.get("creature", u["id"]).value("role")  # type: ignore[union-attr]

    assert strikers["matching"] >= 1 and sum(role(u) == "striker" for u in strikers["units"]) >= 1
    assert sum(role(u) == "tank" for u in tanks["units"]) == tanks["matching"] >= 1


def test_suggest_lineup_needs_enough_creatures(pack: Pack, state: LiveState) -> None:
    few = apply_patch(
        state, {"fs": {"inventory": {"owned": [{"creature_id": "emberfox"}, {"creature_id": "oakhorn"}]}}}
    )
    with pytest.raises(ToolError, match="has 2 creatures"):
        run_tool(pack, few, "suggest_lineup", {})


def test_get_creature_owned_and_not_owned(pack: Pack, state: LiveState) -> None:
    owned = run_tool(pack, state, "get_creature", {"creature": "Infernofox"})  # a stage name works too
    assert owned["id"] == "emberfox" and owned["owned"] and owned["unit"]["tier"] == 2
    assert [s["id"] for s in owned["unit"]["unlocked"]] == ["ember_fang", "flame_burst", "blaze_charge"]
    other = run_tool(pack, state, "get_creature", {"creature": "Pyrowl"})
    assert not other["owned"] and other["unit"] is None


def test_list_lineups_counts_owned_and_missing(pack: Pack, state: LiveState) -> None:
    lineups = run_tool(pack, state, "list_lineups", {})["groups"]
    assert [lu["id"] for lu in lineups] == [f"T{i}" for i in range(1, 17)]
    t1 = lineups[0]  # emberfox, pyrowl, kindlemoth
    assert (t1["owned_count"], t1["missing"], t1["complete"]) == (1, ["pyrowl", "kindlemoth"], False)


# --- validation and errors ----------------------------------------------------------------


def test_validate_args_resolves_display_names_case_insensitively(pack: Pack) -> None:
    args = validate_args("score_lineup", {"creatures": ["EMBERFOX", " Oakhorn ", "Sparkchick"]}, pack)
    assert args == {"creatures": ["emberfox", "oakhorn", "sparkwing"]}  # Sparkchick: a stage name
    assert validate_args("explain_skill", {"skill": "ember fang"}, pack) == {"skill": "ember_fang"}


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
        ("suggest_lineup", {"size": 11}, "'size' must be between 1 and 10"),
        ("suggest_lineup", {"role": "sneaky"}, "'role' must be one of"),
        ("score_lineup", {"creatures": ["emberfox", "Emberfox", "oakhorn"]}, "same creature twice"),
        ("get_creature", {"creature": "Glitterbug"}, "unknown creature 'Glitterbug'"),
        ("explain_skill", {"skill": "Moon Punch"}, "unknown skill 'Moon Punch'"),
    ],
)
def test_bad_calls_raise_tool_error(
    pack: Pack, state: LiveState, name: str, args: dict[str, Any], message: str
) -> None:
    with pytest.raises(ToolError, match=message):
        run_tool(pack, state, name, args)


@pytest.mark.parametrize("name", ["get_inventory", "find_counters", "suggest_lineup", "list_lineups"])
def test_missing_inventory_raises_tool_error(pack: Pack, state: LiveState, name: str) -> None:
    no_inventory = apply_patch(state, {"fs": {"inventory": None}})
    with pytest.raises(ToolError, match="creatures are not known"):
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
