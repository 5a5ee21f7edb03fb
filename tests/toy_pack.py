"""A toy pack with a schema.json: a small hero shooter (heroes, loadout items, comps, maps, a
counter table and a map-fit table) in the shape docs/PACKS.md describes, built on
`voicecoach pack new`'s skeleton with the four classic catalog files left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from voicecoach.packcheck import skeleton

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
    for name, doc in {**skeleton("toy_shooter"), **files}.items():
        if doc is not None:
            (folder / name).write_text(json.dumps(doc, indent=1), encoding="utf-8")
    for name in ("elements.json", "skills.json", "creatures.json", "lineups.json"):
        if name not in files:
            (folder / name).unlink()
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
