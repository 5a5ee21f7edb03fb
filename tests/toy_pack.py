"""A toy pack with a schema.json: a small hero shooter (heroes, loadout items, comps, maps, a
counter table and a map-fit table) in the shape docs/PACKS.md describes, its catalog (`FILES`)
written over the kind-independent files of `base()`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def base() -> dict[str, Any]:
    """The toy's files other than its catalog, fresh on every call (tests edit them): the manifest,
    Φ, W3, vocabulary, templates, paraphrases and narrations `voicecoach pack new` wrote before it
    wrote the schema layout, so that every test on the toy keeps the pack it was written for."""
    pairs = [
        ("lineup", "build", "make me a team out of what i have", "recommend",
         [{"tool": "get_inventory", "args": {}}, {"tool": "suggest_lineup", "args": {}}],
         ["fs.inventory.owned"]),
        ("creature", "info", "tell me about this one", "knowledge-qa",
         [{"tool": "get_creature", "args": {"creature": "$ic.focus_creature"}}], ["ic.focus_creature"]),
        ("smalltalk", "greeting", "hey coach", "knowledge-qa", [], []),
    ]  # fmt: skip
    return {
        "manifest.json": {
            "pack_id": "toy_shooter",
            "version": "0.1.0",
            "title": "Toy Shooter",
            "persona": "TODO: who the coach is, in one sentence (the system prompt opens with it).",
            "domain_rules": ["TODO: one rule of Toy Shooter per line (what a team is, what beats what)."],
            "tools": ["get_inventory", "suggest_lineup", "get_creature"],
            "limits": {"max_level": 100, "max_player_level": 100, "max_owned": 1000, "max_lineup": 5},
            "w1_examples": [],
        },
        "phi.json": [
            {"intent": i, "sub_intent": s, "example": ex, "tools": tools, "requires": req, "branch": branch}
            for i, s, ex, branch, tools, req in pairs
        ],
        "w3.json": {
            "version": "0.1.0",
            "branches": {b: {"pool": []} for b in ("recommend", "teaching", "knowledge-qa")},
        },
        "vocabulary.json": {
            "roles": {"striker": {"summary": "deals damage", "words": ["striker", "damage dealer"]}},
            "styles": {"balanced": {"roles": ["striker"], "words": ["balanced"]}},
            "creature_nouns": ["creatures"],
        },
        "templates.json": {
            "paragraphs": {
                "praise": {"generic": "That part checks out.", "templates": {}},
                "apology": {
                    "generic": "Sorry, I can't do all of that with what you have right now.",
                    "templates": {},
                },
                "constraint_account": {"generic": "Part of that isn't possible right now.", "templates": {}},
                "guidance": {"generic": "TODO: one safe piece of advice for any turn.", "templates": {}},
                "scene_flavor": {"generic": "Stay sharp.", "templates": {}},
            },
            "answers": {"smalltalk/greeting": ["Hey! What do you want to work on?"]},
            "tool_data": {
                "get_inventory": "roster",
                "suggest_lineup": "team suggestions",
                "get_creature": "creature data",
            },
        },
        "paraphrases.json": [
            {
                "intent": "lineup",
                "sub_intent": "build",
                "utterances": ["build me a team", "what team should i run"],
            },
            {
                "intent": "creature",
                "sub_intent": "info",
                "utterances": ["what is this creature", "tell me about it"],
            },
            {"intent": "smalltalk", "sub_intent": "greeting", "utterances": ["hi", "hello coach"]},
        ],  # fmt: skip
        "narrations.json": [
            {"intent": "lineup", "sub_intent": "build", "phrases": ["Let me put a team together."]},
            {"intent": "creature", "sub_intent": "info", "phrases": ["Let me look that up."]},
            {"intent": "smalltalk", "sub_intent": "greeting", "phrases": ["Hey there."]},
        ],
    }


SCHEMA: dict[str, Any] = {
    "state": "collection",
    "kinds": {
        "hero": {
            "role": "unit",
            "plural": "heroes",
            "file": "heroes.json",
            "aliases": ["callsign"],
            "nouns": ["hero", "heroes"],
            "attributes": {
                "role": {"values": "vocabulary.roles"},
                "difficulty": {"values": ["easy", "medium", "hard"], "ordered": True},
                "power": {"numeric": True},
            },
            "relations": {"loadout": "item"},
            "gate": {"min_player_level": {"state": "fs.player_level", "spoken": "account level {value}"}},
        },
        "item": {
            "role": "option",
            "file": "loadouts.json",
            "nouns": ["loadout", "item"],
            "verbs": ["equip", "equipping"],
            "attributes": {"slot": {"values": ["primary", "utility"]}, "hero": {"values": "hero"}},
            "slot": "slot",
            "gate": {"min_hero_level": {"state": "level", "spoken": "hero level {value}"}},
        },
        "comp": {"role": "group", "file": "comps.json", "members": "heroes", "nouns": ["comp"]},
        "map": {"role": "context", "file": "maps.json", "state": "ic.match.context.map"},
    },
    "matchups": [
        {"name": "counters", "between": ["hero", "hero"], "file": "counters.json",
         "words": {"1.5": "a hard counter"}},
        {"name": "map_fit", "between": ["hero", "map"], "file": "map_fit.json"},
    ],
    "composition": {"size": 2, "quota": {"attribute": "role", "counts": {"striker": 1}}},
    "needs": {"ic.focus.hero": "which_hero", "ic.match": "no_match"},
}  # fmt: skip

FILES: dict[str, Any] = {
    "schema.json": SCHEMA,
    "heroes.json": [
        {"id": "vanta", "name": "Vanta", "callsign": ["V"], "role": "striker", "difficulty": "hard",
         "power": 70, "loadout": ["longshot", "smoke_round"], "unlock": {"min_player_level": 10}},
        {"id": "bulwark", "name": "Bulwark", "callsign": ["Wall"], "role": "striker", "difficulty": "easy",
         "power": 60, "loadout": []},
    ],
    "loadouts.json": [
        {"id": "longshot", "name": "Longshot", "hero": "vanta", "slot": "primary",
         "unlock": {"min_hero_level": 5}},
        {"id": "smoke_round", "name": "Smoke Round", "hero": "vanta", "slot": "utility"},
    ],
    "comps.json": [{"id": "dive", "name": "Dive", "heroes": ["vanta", "bulwark"]}],
    "maps.json": [{"id": "harbor_point", "name": "Harbor Point"}],
    "counters.json": {"bulwark": {"vanta": 1.5}},
    "map_fit.json": {"vanta": {"harbor_point": 1.5}},
}  # fmt: skip


def write_pack(folder: Path, files: dict[str, Any]) -> Path:
    folder.mkdir()
    for name, doc in {**base(), **files}.items():
        if doc is not None:
            (folder / name).write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return folder


# A live state of the toy in the collection profile: the player owns Vanta (hero level 6, nothing
# unlocked in the snapshot: Longshot, gated at hero level 5, is locked; Smoke Round has no gate) and
# Bulwark, and plays round 2 on Harbor Point against Vanta.
EXAMPLE_STATE: dict[str, Any] = {
    "fs": {"player_level": 12,
           "collection": {"units": [{"id": "vanta", "level": 6}, {"id": "bulwark", "level": 3}]}},
    "ic": {"match": {"round": 2, "player_lineup": ["bulwark"], "opponent_lineup": ["vanta"],
                     "context": {"map": "harbor_point"}}},
}  # fmt: skip
