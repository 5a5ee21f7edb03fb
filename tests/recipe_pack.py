"""The toy hero shooter (tests/toy_pack.py) with builtin tools and Φ entries answered by the generic
recipes (`answer` steps): the pack tests/talker/test_answer_steps.py and tests/talker/test_recipes.py load."""

from __future__ import annotations

import copy
from typing import Any

from tests.toy_pack import FILES, base

BUILTINS: list[dict[str, Any]] = [
    {"name": "get_roster", "builtin": "get_collection"},
    {"name": "get_hero", "builtin": "get_entity", "kind": "hero"},
    {"name": "get_item", "builtin": "get_entity", "kind": "item"},
    {"name": "hero_counters", "builtin": "rank_matchup", "matchup": "counters"},
    {"name": "map_picks", "builtin": "context_fit", "matchup": "map_fit"},
    {"name": "score_comp", "builtin": "score_group"},
    {"name": "suggest_comp", "builtin": "suggest_group"},
    {"name": "list_comps", "builtin": "list_groups"},
    {"name": "match", "builtin": "get_match_state"},
]

PHI: list[dict[str, Any]] = [
    {"intent": "hero", "sub_intent": "counters", "example": "who counters vanta", "branch": "recommend",
     "tools": [{"tool": "hero_counters", "args": {"opponent": "$ic.match.opponent_lineup"}}],
     "requires": ["ic.match.opponent_lineup"],
     "answer": [{"recipe": "pick_best", "key": "counter", "none_key": "counter_none",
                 "ranked": "hero_counters.ranked[*].id",
                 "foes": ["$ic.mentioned.hero", "hero_counters.opponent[*].id"], "matchup": "counters"}]},
    {"intent": "hero", "sub_intent": "owned", "example": "do i have vanta",
     "tools": [{"tool": "get_hero", "args": {"hero": "$ic.focus.hero"}}], "requires": ["ic.focus.hero"],
     "answer": [{"recipe": "ownership", "key": "owned_yes", "none_key": "owned_no",
                 "unit": "get_hero.id"}]},
    {"intent": "hero", "sub_intent": "info", "example": "tell me about vanta",
     "tools": [{"tool": "get_hero", "args": {"hero": "$ic.focus.hero"}}], "requires": ["ic.focus.hero"],
     "answer": [{"recipe": "fact", "key": "hero_info", "entity": "get_hero.id", "kind": "hero"}]},
    {"intent": "item", "sub_intent": "unlock", "example": "can i use longshot",
     "tools": [{"tool": "get_item", "args": {"item": "$ic.focus.item"}}], "requires": ["ic.focus.item"],
     "answer": [{"recipe": "option_status", "key": "item_usable", "locked_key": "item_locked",
                 "unowned_key": "item_unowned", "option": "get_item.id", "unit": "$ic.focus.hero"}]},
    {"intent": "comp", "sub_intent": "build", "example": "make me a comp", "branch": "recommend",
     "tools": [{"tool": "suggest_comp", "args": {}}, {"tool": "get_roster", "args": {}}],
     "requires": ["fs.collection.units"],
     "answer": [{"recipe": "pick_pair", "key": "team", "pair_key": "team_pair", "lead_key": "team_lead",
                 "team": "suggest_comp.units[*].id", "roster": "get_roster.units[*].id",
                 "score": "suggest_comp.score"}]},
    {"intent": "comp", "sub_intent": "list", "example": "which comps can i run", "branch": "recommend",
     "tools": [{"tool": "list_comps", "args": {}}],
     "answer": [{"recipe": "groups_fieldable", "key": "comp_field", "none_key": "comp_none",
                 "groups": "list_comps.groups[*].id"}]},
    {"intent": "comp", "sub_intent": "quota", "example": "what role am i missing",
     "tools": [{"tool": "score_comp", "args": {"heroes": "$ic.match.player_lineup"}}],
     "requires": ["ic.match.player_lineup"],
     "answer": [{"recipe": "quota", "key": "quota_missing", "none_key": "quota_ok",
                 "missing": "score_comp.quota_missing"},
                {"recipe": "rating", "key": "comp_eval", "score": "score_comp.score",
                 "breakdown": "score_comp.breakdown", "max": "score_comp.max"}]},
    {"intent": "hero", "sub_intent": "on_map", "example": "is vanta good here",
     "tools": [{"tool": "map_picks", "args": {"map": "$ic.match.context.map"}}],
     "requires": ["ic.focus.hero", "ic.match.context.map"],
     "answer": [{"recipe": "matchup_status", "key": "on_map", "none_key": "on_map_even",
                 "unit": "$ic.focus.hero", "against": "$ic.match.context.map", "matchup": "map_fit"}]},
    {"intent": "hero", "sub_intent": "list", "example": "what heroes do i have",
     "tools": [{"tool": "get_roster", "args": {}}], "requires": ["fs.collection"],
     "answer": [{"recipe": "list_owned", "key": "roster", "none_key": "roster_empty",
                 "units": "get_roster.units[*].id"}]},
    {"intent": "match", "sub_intent": "score", "example": "what's the score",
     "tools": [{"tool": "match", "args": {}}], "requires": ["ic.match"],
     "answer": [{"recipe": "fact", "key": "match_score",
                 "values": {"score_player": "match.score.player", "score_opponent": "match.score.opponent",
                            "round": "match.round", "rounds": "match.rounds_total"}}]},
    {"intent": "item", "sub_intent": "best", "example": "what should i run on vanta", "branch": "recommend",
     "tools": [{"tool": "get_hero", "args": {"hero": "$ic.focus.hero"}}], "requires": ["ic.focus.hero"],
     "answer": [{"recipe": "option_best", "key": "item_best", "swap_key": "item_swap",
                 "unit": "get_hero.id"}]},
    {"intent": "item", "sub_intent": "equipped", "example": "what has vanta got on",
     "tools": [{"tool": "get_roster", "args": {}}], "requires": ["ic.focus.hero"],
     "answer": [{"recipe": "equipped", "key": "equipped", "none_key": "equipped_none",
                 "unit": "$ic.focus.hero"}]},
    {"intent": "smalltalk", "sub_intent": "greeting", "example": "hey", "tools": []},
]  # fmt: skip

GUIDANCE: dict[str, list[str]] = {
    "counter": ["Against {foe}, play {hero}."],
    "counter_none": ["Nothing you have counters {foe}, so play {hero}."],
    "owned_yes": ["Yes, {hero} is unlocked, at hero level {level}."],
    "owned_no": ["No, {hero} isn't unlocked yet: {hero} comes at {unlock}."],
    "hero_info": ["{hero} is a {difficulty} {role} hero."],
    "item_usable": ["Yes, {item} is unlocked on your {hero}."],
    "item_locked": ["Not yet: {item} needs {unlock}."],
    "item_unowned": ["{item} is {hero}'s, and you haven't unlocked {hero} yet."],
    "team": ["From your heroes, run {heroes}."],
    "team_pair": ["From your heroes, start with {leader} and {hero}."],
    "team_lead": ["From your heroes, start with {leader}."],
    "comp_field": ["You can run {comp} right now."],
    "comp_none": ["You can't field a full comp yet; {comp} is closest, missing {missing}."],
    "quota_missing": ["You're short a {role}."],
    "quota_ok": ["No role is missing."],
    "comp_eval": ["Your comp rates {score} out of 100; {weakest} is the weak spot."],
    "on_map": ["{hero} is {status} on {map}."],
    "on_map_even": ["{hero} is an even pick on {map}."],
    "roster": ["You have {count} heroes, like {heroes}."],
    "roster_empty": ["You haven't unlocked any heroes yet."],
    "match_score": ["You're {score_player} to {score_opponent} in round {round} of {rounds}."],
    "item_best": ["On {hero}, run {items}."],
    "item_swap": ["On {hero}, swap your {slot} to {item}."],
    "equipped": ["Your {hero} has {items} equipped."],
    "equipped_none": ["Nothing is equipped on that hero."],
}
GENERIC = "Pick a hero who counters their threat."


def recipe_files(phi: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The toy pack's files with the builtins, `PHI` (or `phi`) and the recipes' templates."""
    files = copy.deepcopy(FILES)
    files["schema.json"]["matchups"][1]["words"] = {"1.5": "strong"}  # map_fit, said by matchup_status
    # A third hero, free from the start, who also counters Vanta.
    files["heroes.json"].append({"id": "skyla", "name": "Skyla", "callsign": ["Sky"], "role": "striker",
                                 "difficulty": "medium", "power": 55, "loadout": []})  # fmt: skip
    files["counters.json"]["skyla"] = {"vanta": 1.5}
    files["schema.json"]["composition"]["quota"]["counts"] = {"striker": 2}  # a team of two strikers
    manifest = base()["manifest.json"]
    manifest["tools"] = [t["name"] for t in BUILTINS]
    templates = base()["templates.json"]
    templates["tool_data"] = {}
    templates["paragraphs"]["guidance"] = {"generic": GENERIC, "templates": copy.deepcopy(GUIDANCE)}
    templates["paragraphs"]["scene_flavor"]["templates"] = {}
    templates["paragraphs"]["constraint_account"]["templates"] = {"stale_lead": ["Going by my last update"]}
    templates["answers"] = {}
    return files | {"manifest.json": manifest, "phi.json": copy.deepcopy(PHI if phi is None else phi),
                    "tools.json": {"tools": BUILTINS}, "paraphrases.json": [], "narrations.json": [],
                    "templates.json": templates}  # fmt: skip
