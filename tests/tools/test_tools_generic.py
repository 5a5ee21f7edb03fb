"""The builtin tool kinds (voicecoach.tools.builtin) instantiated by the toy hero shooter's
tools.json, the game-served tools' entity arguments by kind, and pet's tools as builtins."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.recipe_pack import BUILTINS as RECIPE_BUILTINS
from tests.toy_pack import FILES, base, write_pack
from voicecoach.core.state import LiveState, load_state
from voicecoach.domain.pack import Pack, PackError, load_pack_from
from voicecoach.talker.baselines import planner_system_prompt
from voicecoach.tools.registry import ToolError, pack_tools, run_tool, tool_spec, validate_args

# The toy shooter's builtins (tests/recipe_pack.py), one with a description of its own.
BUILTINS: list[dict[str, Any]] = [
    {**b, "description": "The best comp you can field."} if b["name"] == "suggest_comp" else b
    for b in RECIPE_BUILTINS
]
EQUIPPED = {  # a game-served tool whose argument names a hero: resolved by kind before the POST
    "name": "get_equipped",
    "description": "A hero's equipped loadout.",
    "parameters": {"properties": {"hero": {"type": "string"}}, "required": ["hero"]},
    "entities": {"hero": "hero"},
}
CALLS: dict[str, dict[str, Any]] = {
    "get_roster": {},
    "get_hero": {"hero": "V"},  # a callsign: the kind's aliases
    "get_item": {"item": "Longshot"},
    "hero_counters": {"opponent": ["Vanta"]},
    "map_picks": {},  # the map from the match context
    "score_comp": {"heroes": ["vanta"], "opponent": ["bulwark"]},
    "suggest_comp": {},
    "list_comps": {},
    "match": {},
}
STATE = {
    "fs": {"collection": {"units": [{"id": "vanta", "level": 6, "unlocked": ["longshot"],
                                     "equipped": {"primary": "longshot"}},
                                    {"id": "bulwark", "level": 3}]}},
    "ic": {"match": {"round": 2, "player_lineup": ["vanta"], "opponent_lineup": ["vanta", "bulwark"],
                     "context": {"map": "harbor_point"}}},
}  # fmt: skip


def _files(tools: list[dict[str, Any]], quota: int = 2, endpoint: str = "") -> dict[str, Any]:
    files = copy.deepcopy(FILES)
    files["schema.json"]["composition"]["quota"]["counts"] = {"striker": quota}
    manifest = base()["manifest.json"]
    manifest["tools"] = [t["name"] for t in tools]
    phi = [{"intent": "hero", "sub_intent": "counter", "example": "who counters vanta",
            "tools": [{"tool": "hero_counters", "args": {"opponent": "$ic.match.opponent_lineup"}}],
            "requires": ["ic.match.opponent_lineup"], "branch": "recommend"},
           {"intent": "smalltalk", "sub_intent": "greeting", "example": "hey", "tools": []}]  # fmt: skip
    header: dict[str, Any] = {"tools": tools} | ({"endpoint": endpoint} if endpoint else {})
    templates = base()["templates.json"]
    templates["tool_data"] = {}
    return files | {"manifest.json": manifest, "phi.json": phi, "tools.json": header,
                    "paraphrases.json": [], "narrations.json": [], "templates.json": templates}  # fmt: skip


@pytest.fixture
def shooter(tmp_path: Path) -> Pack:
    return load_pack_from(write_pack(tmp_path / "shooter", _files(BUILTINS)))


@pytest.fixture
def state() -> LiveState:
    return load_state(STATE)


def test_the_pack_tools_are_its_builtin_instances_in_manifest_order(shooter: Pack) -> None:
    tools = pack_tools(shooter)
    assert list(tools) == [t["name"] for t in BUILTINS]
    assert tools["hero_counters"].entities == {"opponent": "hero"}
    assert tools["get_hero"].parameters["required"] == ["hero"]
    assert tools["score_comp"].parameters["required"] == ["heroes"]  # the unit kind's plural
    assert tools["suggest_comp"].description == "The best comp you can field."  # the instance's own
    assert all(spec.result_schema is not None for spec in tools.values())
    # The baseline planner lists these, not pet's registry.
    prompt = planner_system_prompt(shooter)
    assert "- hero_counters(opponent): The player's heroes that best beat the given heroes" in prompt
    assert "- find_counters" not in prompt and "- get_inventory" not in prompt


@pytest.mark.parametrize("name", list(CALLS))
def test_every_builtin_is_deterministic_and_gives_what_its_result_schema_says(
    shooter: Pack, state: LiveState, name: str
) -> None:
    result = run_tool(shooter, state, name, CALLS[name])
    assert json.loads(json.dumps(result)) == result == run_tool(shooter, state, name, CALLS[name])
    schema = tool_spec(shooter, name).result_schema  # type: ignore[union-attr]
    assert schema is not None and set(schema["required"]) <= set(result), (name, sorted(result))


def test_rank_matchup_ranks_the_players_heroes_by_the_counter_table(shooter: Pack, state: LiveState) -> None:
    result = run_tool(shooter, state, "hero_counters", {"opponent": ["vanta"]})
    assert [r["id"] for r in result["ranked"]] == ["bulwark", "vanta"]  # bulwark -> vanta: 1.5
    assert result["ranked"][0]["beats"] == ["vanta"] and result["ranked"][1]["beats"] == []
    assert result["ranked"][1]["beaten_by"] == []  # the table is hero vs hero: both directions read
    assert result["opponent"] == [{"id": "vanta", "name": "Vanta"}]


def test_context_fit_reads_the_match_map_and_an_argument_overrides_it(
    shooter: Pack, state: LiveState
) -> None:
    result = run_tool(shooter, state, "map_picks", {})
    assert result["map"] == {"id": "harbor_point", "name": "Harbor Point"}
    assert [(r["id"], r["fit"]) for r in result["ranked"]] == [("vanta", 1.5), ("bulwark", 1.0)]
    assert run_tool(shooter, state, "map_picks", {"map": "Harbor Point"}) == result
    with pytest.raises(ToolError, match="no map given and none in the match"):
        run_tool(shooter, load_state({"fs": STATE["fs"]}), "map_picks", {})


def test_score_group_counts_the_schemas_quota(shooter: Pack, state: LiveState) -> None:
    short = run_tool(shooter, state, "score_comp", {"heroes": ["vanta"]})
    assert short["quota_missing"] == {"striker": 1} and not short["size_ok"]
    full = run_tool(shooter, state, "score_comp", {"heroes": ["vanta", "bulwark"]})
    assert full["quota_missing"] == {} and full["size_ok"] and full["not_owned"] == []
    assert full["breakdown"]["composition"] == 30.0 > short["breakdown"]["composition"]
    assert full["score"] == round(sum(full["breakdown"].values()))
    best = run_tool(shooter, state, "suggest_comp", {})
    assert best["size"] == 2 and {u["id"] for u in best["units"]} == {"vanta", "bulwark"}


def test_get_collection_and_get_entity_read_the_collection_and_speak_the_gates(
    shooter: Pack, state: LiveState
) -> None:
    roster = run_tool(shooter, state, "get_roster", {})
    vanta = next(u for u in roster["units"] if u["id"] == "vanta")
    # Longshot is unlocked; Smoke Round is gate-free on a hero the player has.
    assert [o["id"] for o in vanta["unlocked"]] == ["longshot", "smoke_round"] and vanta["locked"] == []
    assert vanta["equipped"] == {"primary": "longshot"}
    hero = run_tool(shooter, state, "get_hero", {"hero": "V"})
    assert (hero["id"], hero["owned"]) == ("vanta", True)
    assert hero["unlock_text"] == "unlocks with account level 10"
    item = run_tool(shooter, state, "get_item", {"item": "longshot"})
    assert item["unlock_text"] == "unlocks with hero level 5" and item["usable"]
    assert item["units"] == [{"id": "vanta", "name": "Vanta", "owned": True, "usable": True}]
    comps = run_tool(shooter, state, "list_comps", {})["groups"]
    assert comps == [{"id": "dive", "name": "Dive", "members": ["vanta", "bulwark"], "owned_count": 2,
                      "missing": [], "complete": True}]  # fmt: skip
    with pytest.raises(ToolError, match=r"heroes are not known yet \(state\.fs\.collection"):
        run_tool(shooter, LiveState(), "get_roster", {})
    with pytest.raises(ToolError, match="unknown hero 'Nobody'"):
        run_tool(shooter, state, "get_hero", {"hero": "Nobody"})


def test_a_game_served_tools_entities_are_resolved_by_the_schemas_kind(tmp_path: Path) -> None:
    folder = write_pack(tmp_path / "shooter", _files([*BUILTINS, EQUIPPED], endpoint="http://127.0.0.1:9/t"))
    shooter = load_pack_from(folder)
    assert validate_args("get_equipped", {"hero": "Wall"}, shooter) == {"hero": "bulwark"}
    with pytest.raises(ToolError, match="unknown hero 'Nobody'"):
        validate_args("get_equipped", {"hero": "Nobody"}, shooter)


@pytest.mark.parametrize(
    ("tools", "says"),
    [
        ([{"name": "x", "builtin": "rank_matchup", "matchup": "elo"}], "rank_matchup: matchup 'elo' is not"),
        ([{"name": "x", "builtin": "context_fit", "matchup": "counters"}], "is not against a context kind"),
        ([{"name": "x", "builtin": "get_entity", "kind": "pet"}], "kind 'pet' is not a kind of this pack"),
        ([{"name": "x", "builtin": "score_group", "power": "difficulty"}], "'difficulty' is not a numeric"),
        ([{"name": "x", "builtin": "suggest_group", "spread": "mood"}], "spread 'mood' is not an attribute"),
        ([{"name": "x", "builtin": "score_group", "coverage": "elo"}], "coverage matchup 'elo' is not"),
        ([{"name": "x", "builtin": "teleport"}], "entry 'x': Input should be"),
        ([{**EQUIPPED, "entities": {"hero": "pet"}}], "entities: 'hero' names 'pet', not a kind"),
        ([EQUIPPED], "an endpoint is needed"),
    ],
    ids=["matchup", "context", "kind", "power", "spread", "coverage", "builtin", "entities", "endpoint"],
)
def test_a_bad_builtin_or_entity_kind_is_refused_naming_file_and_entry(
    tmp_path: Path, tools: list[dict[str, Any]], says: str
) -> None:
    with pytest.raises(PackError) as err:
        load_pack_from(write_pack(tmp_path / "shooter", _files(tools)))
    assert "tools.json" in str(err.value) and says in str(err.value)


def test_pet_is_served_builtins_under_its_own_tool_names(pack: Pack) -> None:
    assert set(pack.builtin_tools) == set(pack.tools) and pack.http_tools == {}
    assert all(tool_spec(pack, n) is not None for n in pack.tools)
    assert all(spec.result_schema is not None for spec in pack_tools(pack).values())
    assert pack.builtin_tools["find_counters"].builtin == "rank_matchup"


def test_pack_check_counts_a_schema_packs_kinds_and_serves_its_phi_from_builtins(tmp_path: Path) -> None:
    from voicecoach.app.packcheck import check_pack

    rows = {f.check: f for f in check_pack(write_pack(tmp_path / "shooter", _files(BUILTINS)))}
    assert rows["files"].detail == "toy_shooter 0.1.0: 2 Φ pairs, 2 heroes, 2 items, 1 comps, 9 tools"
    assert rows["Φ table"].status == "ok"  # hero_counters(opponent=$ic.match.opponent_lineup) is bound
