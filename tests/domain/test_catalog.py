"""The catalog (voicecoach.domain.catalog): pet_arena under the classic schema, and a schema.json pack
(the toy hero shooter of tests/toy_pack.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field

from tests.toy_pack import FILES, write_pack
from voicecoach.app.packcheck import check_pack
from voicecoach.core.state import StateError, load_state
from voicecoach.domain.catalog import Entity
from voicecoach.domain.pack import PACKS_DIR, Pack, PackError, _valid_path, check_state, load_pack_from


def _pet(file: str) -> Any:
    """One of pet_arena's catalog files as JSON (the reference the catalog is checked against)."""
    return json.loads((PACKS_DIR / "pet_arena" / file).read_text(encoding="utf-8"))


@pytest.fixture
def toy(tmp_path: Path) -> Pack:
    return load_pack_from(write_pack(tmp_path / "toy_shooter", FILES))


# --- pet_arena: its schema.json ------------------------------------------------------------------


def test_pet_arena_schema_names_its_kinds_and_its_files_agree_with_it(pack: Pack) -> None:
    catalog = pack.catalog
    assert catalog.schema.state == "classic"  # the inventory state profile: fs.inventory
    assert list(catalog.schema.kinds) == ["creature", "skill", "lineup", "element"]
    roles = {"unit": "creature", "option": "skill", "group": "lineup", "type": "element", "context": None}
    assert {role: catalog.schema.kind(role) for role in roles} == roles
    vocabulary = {
        "vocabulary.roles": set(pack.vocabulary.roles),
        "vocabulary.styles": set(pack.vocabulary.styles),
    }
    assert list(catalog.problems(vocabulary)) == []
    assert catalog.tables["elements"] == _pet("elements.json")["counters"]
    assert len(catalog.entities["creature"]) == 48 and len(catalog.entities["skill"]) == 88


def test_the_catalog_forms_are_entity_linkings_in_its_order(pack: Pack) -> None:
    # What entity linking read before it read the catalog: creatures with their stage
    # names, skills, lineups, elements; the order decides a clash.
    forms = [
        (f, "creature", c["id"]) for c in _pet("creatures.json") for f in (c["id"], c["name"], *c["stages"])
    ]
    forms += [(f, "skill", s["id"]) for s in _pet("skills.json") for f in (s["id"], s["name"])]
    forms += [(f, "lineup", lu["id"]) for lu in _pet("lineups.json") for f in (lu["id"], lu["name"])]
    # an element's words are more names of it ("plant" for grass)
    forms += [
        (f, "element", e["id"]) for e in _pet("elements.json")["elements"] for f in (e["id"], *e["words"])
    ]
    assert pack.catalog.forms() == list(dict.fromkeys(forms))


def test_by_name_finds_the_first_entity_whose_id_or_name_matches(pack: Pack) -> None:
    # What pet's creature_by_name / skill_by_name found on the typed models (kept as the reference).
    catalog = pack.catalog
    creatures, skills = _pet("creatures.json"), _pet("skills.json")

    def first(entries: list[dict[str, Any]], name: str) -> str | None:
        key = name.strip().lower()
        return next((e["id"] for e in entries if key in (e["id"].lower(), e["name"].lower())), None)

    names = [n for c in creatures for n in (c["id"], c["name"])]
    names += [n for s in skills for n in (s["id"], s["name"])]
    for name in [*names, *(n.upper() for n in names), *(f"  {n} " for n in names), "nofox", ""]:
        found_c, found_s = catalog.by_name("creature", name), catalog.by_name("skill", name)
        assert (found_c.id if found_c else None) == first(creatures, name), name
        assert (found_s.id if found_s else None) == first(skills, name), name
    assert catalog.by_name("lineup", "wildfire rush") == catalog.get("lineup", "T1")
    assert catalog.by_name("element", "Fire") == Entity(id="fire", words=["flame"])


def test_display_name_is_the_name_of_the_earlier_kind_or_the_id(pack: Pack) -> None:
    catalog = pack.catalog
    assert catalog.display_name("emberfox") == "Emberfox"
    assert catalog.display_name("ember_fang") == "Ember Fang"
    assert catalog.display_name("T1") == "Wildfire Rush"
    assert catalog.display_name("fire") == "fire"  # elements have no display name but their id
    assert catalog.display_name("nofox") == "nofox"
    for c in _pet("creatures.json"):
        assert catalog.display_name(c["id"]) == c["name"] and catalog.kind_of(c["id"]) == "creature"


# --- a schema.json pack -------------------------------------------------------------------------------


def test_a_schema_pack_loads_without_the_classic_files(toy: Pack) -> None:
    catalog = toy.catalog
    assert list(catalog.schema.kinds) == ["hero", "item", "comp", "map"]
    assert catalog.schema.kind("unit") == "hero" and catalog.schema.kind("context") == "map"
    assert catalog.by_name("hero", "VANTA") == catalog.get("hero", "vanta")
    assert catalog.by_name("item", "smoke round") is not None and catalog.by_name("hero", "Longshot") is None
    assert catalog.display_name("harbor_point") == "Harbor Point" and catalog.kind_of("dive") == "comp"
    assert ("V", "hero", "vanta") in catalog.forms() and ("Wall", "hero", "bulwark") in catalog.forms()
    assert catalog.get("hero", "vanta").value("loadout") == ["longshot", "smoke_round"]
    assert catalog.tables == {
        "counters": {"bulwark": {"vanta": 1.5}},
        "map_fit": {"vanta": {"harbor_point": 1.5}},
    }


def test_pack_check_passes_the_catalog_rows_of_a_schema_pack(tmp_path: Path) -> None:
    rows = {f.check: f for f in check_pack(write_pack(tmp_path / "toy_shooter", FILES))}
    assert rows["catalog"].status == "ok", rows["catalog"]


def _with(name: str, change: Any) -> dict[str, Any]:
    files = json.loads(json.dumps(FILES))
    files[name] = change(files[name])
    return files


def _set(doc: Any, path: str, value: Any) -> Any:
    node = doc
    *parents, last = path.split("/")
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node[int(last) if isinstance(node, list) else last] = value
    return doc


BROKEN = [
    ("heroes.json", "0/role", "healer", r"heroes\.json: entry 'vanta': unknown role 'healer'"),
    ("heroes.json", "0/power", "high", r"heroes\.json: entry 'vanta': power 'high' is not a number"),
    ("heroes.json", "0/loadout", ["nope"], r"heroes\.json: entry 'vanta': loadout: unknown item 'nope'"),
    ("heroes.json", "0/unlock", {"min_stage": 2}, r"'vanta': unlock: 'min_stage' is not one of the"),
    ("heroes.json", "1/id", "vanta", r"heroes\.json: entry 'vanta' defined twice"),
    ("loadouts.json", "0/hero", "ghost", r"loadouts\.json: entry 'longshot': unknown hero"),
    ("comps.json", "0/heroes", ["vanta", "nope"], r"comps\.json: entry 'dive': heroes: unknown hero 'nope'"),
    ("counters.json", "vanta", {"harbor_point": 1.2}, r"counters\.json: entry 'vanta/harbor_point'"),
    ("map_fit.json", "vanta", {"harbor_point": "lots"}, r"map_fit\.json: entry 'vanta\.harbor_point'"),
    ("schema.json", "kinds/skin", {"role": "unit", "file": "heroes.json"}, r"2 kinds have role 'unit'"),
    ("schema.json", "kinds/hero/attributes/role/values", "vocabulary.weapons",
     r"schema\.json: entry 'kinds/hero': attribute 'role': unknown values 'vocabulary\.weapons'"),
    ("schema.json", "kinds/hero/relations/loadout", "perk", r"relation 'loadout': unknown kind 'perk'"),
    ("schema.json", "kinds/map/state", "ic.map", r"entry 'kinds/map': unknown state field 'ic\.map'"),
    ("schema.json", "needs", {"ic.focus_hero": "which_hero"}, r"'needs': unknown state field 'ic\.focus_h"),
    ("schema.json", "matchups/1/between", ["hero", "arena"], r"'matchups/map_fit': between: unknown"),
    ("schema.json", "composition/quota/counts", {"striker": 3}, r"'composition': quota counts exceed"),
    ("schema.json", "kinds/map/file", "arenas.json", r"arenas\.json: file missing from pack"),
]  # fmt: skip


@pytest.mark.parametrize(("file", "path", "value", "message"), BROKEN)
def test_a_broken_schema_pack_is_refused_naming_file_and_entry(
    tmp_path: Path, file: str, path: str, value: Any, message: str
) -> None:
    folder = write_pack(tmp_path / "toy_shooter", _with(file, lambda doc: _set(doc, path, value)))
    with pytest.raises(PackError, match=message):
        load_pack_from(folder)
    assert any(f.status != "ok" for f in check_pack(folder))


# --- state paths into dicts keyed by kind ---------------------------------------------------------


class _Focus(BaseModel):
    focus: dict[str, str] = Field(default_factory=dict, json_schema_extra={"keys": "kind"})
    context: dict[str, str] = Field(default_factory=dict, json_schema_extra={"keys": "context"})
    saved: dict[str, list[str]] = Field(default_factory=dict)


@pytest.mark.parametrize(
    ("path", "ok"),
    [("focus.hero", True), ("focus.map", True), ("focus", True), ("focus.villain", False),
     ("focus.hero.name", False), ("context.map", True), ("context.hero", False), ("saved", True),
     ("saved.main", False)],
)  # fmt: skip
def test_a_path_enters_a_kind_keyed_dict_only_by_a_kind_of_its_role(toy: Pack, path: str, ok: bool) -> None:
    assert _valid_path(_Focus, path, toy.catalog.schema) is ok


# --- live states against a schema pack ------------------------------------------------------------


@pytest.mark.parametrize(
    ("lineup", "message"),
    [(["vanta", "nofox"], "ic.match.player_lineup: unknown hero 'nofox'"),
     (["vanta"] * 6, "ic.match.player_lineup: 6 heroes, a side has at most 5")],
)  # fmt: skip
def test_a_match_side_names_units_of_the_packs_unit_kind(toy: Pack, lineup: list[str], message: str) -> None:
    state = load_state({"ic": {"match": {"round": 1, "player_lineup": lineup}}})
    with pytest.raises(StateError, match=message):
        check_state(toy, state)
    check_state(toy, load_state({"ic": {"match": {"round": 1, "player_lineup": ["vanta", "bulwark"]}}}))


COLLECTION = {
    "fs": {
        "player_level": 12,
        "collection": {
            "units": [
                {"id": "vanta", "level": 6, "unlocked": ["longshot"], "equipped": {"primary": "longshot"}}
            ],
            "saved_groups": {"ranked": ["vanta", "bulwark"]},
        },
    },
    "ic": {"focus": {"hero": "vanta"}, "mentioned": {"hero": ["vanta"]},
           "match": {"round": 1, "context": {"map": "harbor_point"}}},
}  # fmt: skip


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("fs/collection/units/0/id", "nofox", r"fs\.collection\.units\.0\.id: unknown hero 'nofox'"),
        ("fs/collection/units/0/tier", 2, r"units\.0\.tier: Vanta has 0 tiers, not 2"),
        ("fs/collection/units/0/level", 101, r"units\.0\.level: 101 is above the game's 100"),
        ("fs/collection/units/0/unlocked", ["medkit"], r"units\.0\.unlocked: Vanta has no item 'medkit'"),
        ("fs/collection/units/0/equipped", {"primary": "smoke_round"}, r"Smoke Round goes in the utility"),
        ("fs/collection/units/0/equipped", {"primary": "medkit"}, r"primary: Vanta has not unlocked"),
        ("fs/collection/saved_groups/ranked", ["nofox"], r"saved_groups\.ranked: unknown hero 'nofox'"),
        ("ic/focus", {"villain": "vanta"}, r"ic\.focus\.villain: not a kind of this pack"),
        ("ic/mentioned", {"hero": ["longshot"]}, r"ic\.mentioned\.hero: unknown hero 'longshot'"),
        ("ic/match/context", {"hero": "vanta"}, r"ic\.match\.context\.hero: not a context kind"),
        ("fs/inventory", {"owned": []}, r"fs\.inventory: this pack keeps the player's heroes in"),
    ],
)  # fmt: skip
def test_a_collection_state_is_checked_against_the_catalog(
    toy: Pack, path: str, value: Any, message: str
) -> None:
    check_state(toy, load_state(COLLECTION))
    with pytest.raises(StateError, match=message):
        check_state(toy, load_state(_set(json.loads(json.dumps(COLLECTION)), path, value)))


def test_a_pet_state_may_not_carry_a_collection(pack: Pack) -> None:
    with pytest.raises(
        StateError, match=r"fs\.collection: this pack keeps the player's creatures in fs\.inventory"
    ):
        check_state(pack, load_state({"fs": {"collection": {"units": []}}}))
