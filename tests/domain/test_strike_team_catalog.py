"""strike_team's catalog and state data, loaded through the same
functions as the toy pack of tests/toy_pack.py: schema.json and its kinds' files by `read_pack` /
`load_pack_from`, the references by `Catalog.problems`, the example state by `check_state`.

`load` reads the pack's own files except w3.json and templates.json, which it replaces with
minimal stand-ins (no W3 pool, only the generic sentences), and it leaves Φ's answer steps out (they
name template keys the stand-ins lack): what these tests load is the catalog and the state.
tests/domain/test_strike_team_data.py checks the Φ table, paraphrases, narrations, W3 pools and
templates, and loads the pack with all its own files.
`integrity` then checks what the loader does not, as a designer's rules of the game: each item
and its hero name each other, comps keep the role quota, the counter table is consistent, map fit
names maps, names are distinct (and not pet_arena's), and the example state is one the game could
push. Each rule has a broken copy below that it must refuse, so none passes vacuously.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.toy_pack import write_pack
from voicecoach.app.packcheck import check_pack
from voicecoach.core.state import StateError, load_state
from voicecoach.domain.catalog import Catalog
from voicecoach.domain.pack import PACKS_DIR, Pack, PackError, check_state, load_pack, load_pack_from

FOLDER = PACKS_DIR / "strike_team"
STATE_FILE = "example_state.json"
# What `load` puts in place of the pack's W3 pools and templates (see above).
STAND_INS: dict[str, Any] = {
    "w3.json": {"version": "0.0.0", "branches": {}},
    "templates.json": {
        "paragraphs": {
            p: {"generic": "Okay."}
            for p in ("praise", "apology", "constraint_account", "guidance", "scene_flavor")
        }
    },
}


def pack_files() -> dict[str, Any]:
    """The pack's own JSON files by name, the example state among them (`load` leaves it out)."""
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(FOLDER.glob("*.json"))}


def load(folder: Path, files: dict[str, Any]) -> Pack:
    own = {name: doc for name, doc in files.items() if name != STATE_FILE and name not in STAND_INS}
    # The stand-in templates have none of the Φ answer steps' keys: the steps are left out here
    # (test_strike_team_data checks them against the pack's own templates and tools).
    own["phi.json"] = [{k: v for k, v in e.items() if k != "answer"} for e in own["phi.json"]]
    return load_pack_from(write_pack(folder, {**own, **STAND_INS}))


@pytest.fixture(scope="module")
def files() -> dict[str, Any]:
    return pack_files()


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory, files: dict[str, Any]) -> Pack:
    return load(tmp_path_factory.mktemp("st") / "strike_team", files)


def vocabulary_sets(pack: Pack) -> dict[str, set[str]]:
    return {"vocabulary.roles": set(pack.vocabulary.roles), "vocabulary.styles": set(pack.vocabulary.styles)}


# --- the rules the loader does not check -----------------------------------------------------------


def _gates_met(unlock: dict[str, int] | None, hero_level: int, player_level: int) -> bool:
    unlock = unlock or {}
    return unlock.get("min_hero_level", 0) <= hero_level and unlock.get("min_player_level", 0) <= player_level


def catalog_integrity(catalog: Catalog) -> list[str]:
    schema = catalog.schema
    heroes, items = catalog.entities["hero"], catalog.entities["item"]
    maps, comps = catalog.entities["map"], catalog.entities["comp"]
    out: list[str] = []
    # Loadouts: each item's hero lists it, each hero's items name the hero; a new hero can fight.
    for item in items.values():
        hero = heroes.get(item.value("hero"))
        if hero is None or item.id not in hero.value("loadout"):
            out.append(f"item {item.id}: its hero {item.value('hero')!r} does not list it")
    for hero in heroes.values():
        loadout = [items[i] for i in hero.value("loadout") if i in items]
        for item in loadout:
            if item.value("hero") != hero.id:
                out.append(f"hero {hero.id}: lists {item.id}, which is {item.value('hero')}'s")
        free = {item.value("slot") for item in loadout if not item.value("unlock")}
        if not {"primary", "utility"} <= free:
            out.append(f"hero {hero.id}: no primary and utility free from the start")
        if "perk" not in {item.value("slot") for item in loadout}:
            out.append(f"hero {hero.id}: no perk")
    # Comps: the composition's size and role quota, every style in the vocabulary's.
    composition = schema.composition
    assert composition is not None and composition.quota is not None
    quota = composition.quota
    for comp in comps.values():
        members = comp.value("heroes")
        roles = Counter(heroes[h].value(quota.attribute) for h in members if h in heroes)
        if len(set(members)) != composition.size or dict(roles) != quota.counts:
            out.append(f"comp {comp.id}: {dict(roles)}, not {quota.counts} in {composition.size}")
    # Counters: hero against hero, never a hero against itself, only the multipliers the schema
    # has words for, and consistent: if A beats B, B does not beat A and the two multiply to ~1.
    words = {m.name: {float(k) for k in m.words} for m in schema.matchups}
    counters = catalog.tables["counters"]
    for a, row in counters.items():
        for b, m in row.items():
            back = counters.get(b, {}).get(a)
            if a == b:
                out.append(f"counters {a}/{b}: a hero against itself")
            if m not in words["counters"]:
                out.append(f"counters {a}/{b}: {m} has no words")
            if back is not None and ((m > 1) == (back > 1) or abs(m * back - 1) > 0.02):
                out.append(f"counters {a}/{b}: {m} one way, {back} the other")
    beats = {a for a, row in counters.items() if any(m > 1 for m in row.values())}
    beaten = {b for row in counters.values() for b, m in row.items() if m > 1}
    for hero in heroes:
        if hero not in beats or hero not in beaten:
            out.append(f"counters: {hero} {'counters no one' if hero not in beats else 'has no counter'}")
    # Map fit: hero on map, multipliers with words; each map favours some heroes and not others.
    fit = catalog.tables["map_fit"]
    for hero, row in fit.items():
        for m in row.values():
            if m not in words["map_fit"]:
                out.append(f"map_fit {hero}: {m} has no words")
    for map_id in maps:
        column = [row[map_id] for row in fit.values() if map_id in row]
        if sum(m > 1 for m in column) < 2 or not any(m < 1 for m in column):
            out.append(f"map_fit {map_id}: favours fewer than two heroes or disfavours none")
    return out


def note_problems(catalog: Catalog, notes: dict[str, str]) -> list[str]:
    """counter_notes.json: the designer's reason for each counter (A beats B), and only for those."""
    counters = catalog.tables["counters"]
    wins = {f"{a}/{b}" for a, row in counters.items() for b, m in row.items() if m > 1}
    return [f"counter_notes {k}: not a counter" for k in sorted(set(notes) - wins)] + [
        f"counter_notes {k}: no reason" for k in sorted(wins - set(notes))
    ]


def name_problems(catalog: Catalog, other: Catalog) -> list[str]:
    """Every surface form names one entity, and none is a form of the other pack's (pet_arena)."""
    out = []
    owners: dict[str, set[str]] = {}
    for form, _, eid in catalog.forms():
        owners.setdefault(form.lower(), set()).add(eid)
    out += [f"name {form!r}: names {sorted(ids)}" for form, ids in owners.items() if len(ids) > 1]
    theirs = {form.lower() for form, _, _ in other.forms()}
    out += [f"name {form!r}: also pet_arena's" for form in owners if form in theirs]
    return out


def state_problems(catalog: Catalog, state: dict[str, Any]) -> list[str]:
    """The example state as the game would push it: heroes and items unlock by themselves when the
    account and hero levels reach their gates, both sides field a full comp in quota, a known map."""
    heroes, items = catalog.entities["hero"], catalog.entities["item"]
    composition = catalog.schema.composition
    assert composition is not None and composition.quota is not None
    quota = composition.quota
    out: list[str] = []
    level = state["fs"]["player_level"]
    units = {u["id"]: u for u in state["fs"]["collection"]["units"]}
    should = {h for h, e in heroes.items() if _gates_met(e.value("unlock"), 0, level)}
    if set(units) != should:
        out.append(f"collection: {sorted(set(units) ^ should)} against account level {level}")
    for hid, unit in units.items():
        loadout = heroes[hid].value("loadout") if hid in heroes else []
        met = [i for i in loadout if _gates_met(items[i].value("unlock"), unit["level"], level)]
        if unit["unlocked"] != met:
            out.append(f"collection {hid}: unlocked {unit['unlocked']}, the gates give {met}")
        for slot, iid in unit.get("equipped", {}).items():
            if iid not in unit["unlocked"] or items[iid].value("slot") != slot:
                out.append(f"collection {hid}: {iid} equipped as its {slot}")
    match = state["ic"]["match"]
    sides = {"player_lineup": match["player_lineup"], "opponent_lineup": match["opponent_lineup"]}
    sides |= {f"saved {k}": v for k, v in state["fs"]["collection"]["saved_groups"].items()}
    for side, ids in sides.items():
        roles = Counter(heroes[h].value(quota.attribute) for h in ids if h in heroes)
        if len(set(ids)) != composition.size or dict(roles) != quota.counts:
            out.append(f"{side}: {dict(roles)}, not the quota {quota.counts}")
        if side != "opponent_lineup" and not set(ids) <= set(units):
            out.append(f"{side}: {sorted(set(ids) - set(units))} not in the collection")
    if match.get("context", {}).get("map") not in catalog.entities["map"]:
        out.append(f"match: map {match.get('context')} unknown")
    if not 1 < match["round"] <= match["rounds_total"]:
        out.append(f"match: round {match['round']} of {match['rounds_total']} is not mid-match")
    return out


def integrity(pack: Pack, files: dict[str, Any]) -> list[str]:
    catalog = pack.catalog
    return [
        *(f"{file}: {entry}: {msg}" for file, entry, msg in catalog.problems(vocabulary_sets(pack))),
        *catalog_integrity(catalog),
        *note_problems(catalog, files["counter_notes.json"]),
        *name_problems(catalog, load_pack().catalog),
        *state_problems(catalog, files[STATE_FILE]),
    ]


# --- the pack as it is -------------------------------------------------------------------------------


def test_the_pack_loads_through_the_schema_loader_with_its_kinds_and_tables(pack: Pack) -> None:
    catalog = pack.catalog
    assert pack.pack_id == "strike_team"
    assert list(catalog.schema.kinds) == ["hero", "item", "comp", "map"]
    roles = {"unit": "hero", "option": "item", "group": "comp", "type": None, "context": "map"}
    assert {role: catalog.schema.kind(role) for role in roles} == roles
    counts = {kind: len(entities) for kind, entities in catalog.entities.items()}
    assert counts == {"hero": 24, "item": 96, "comp": 10, "map": 8}
    assert set(catalog.tables) == {"counters", "map_fit"}
    assert catalog.schema.options_field() == "loadout"
    assert catalog.by_name("hero", "QUILLON") == catalog.get("hero", "quillon")
    assert ("Quill", "hero", "quillon") in catalog.forms()  # a callsign
    assert catalog.by_name("item", "heron rifle") == catalog.get("item", "heron_rifle")
    assert ("Docks", "map", "fathom_docks") in catalog.forms()
    assert catalog.display_name("long_watch") == "Long Watch" and catalog.kind_of("fathom_docks") == "map"
    roster = Counter(e.value("role") for e in catalog.entities["hero"].values())
    assert roster == {"tank": 6, "damage": 10, "support": 8}
    assert {e.value("slot") for e in catalog.entities["item"].values()} == {"primary", "utility", "perk"}


def test_every_reference_resolves_and_every_rule_of_the_game_holds(pack: Pack, files: dict[str, Any]) -> None:
    assert list(pack.catalog.problems(vocabulary_sets(pack))) == []
    assert integrity(pack, files) == []


def test_pack_check_passes_the_files_and_catalog_rows(tmp_path: Path, files: dict[str, Any]) -> None:
    folder = tmp_path / "strike_team"
    load(folder, files)
    rows = {f.check: f for f in check_pack(folder)}
    assert rows["files"].status == "ok" and rows["catalog"].status == "ok", rows


def test_the_example_state_passes_check_state(pack: Pack, files: dict[str, Any]) -> None:
    state = load_state(files[STATE_FILE])
    check_state(pack, state)
    assert state.fs.collection is not None and len(state.fs.collection.units) == 12
    assert state.ic.match is not None and state.ic.match.context == {"map": "fathom_docks"}


def test_the_vocabulary_adds_cues_to_the_checkers_families(pack: Pack) -> None:
    assert set(pack.vocabulary.roles) == {"tank", "damage", "support"}
    assert set(pack.vocabulary.styles) == {"dive", "poke", "brawl"}
    assert "swap to" in pack.vocabulary.cues["recommend"]
    assert load_pack().vocabulary.cues == {}  # pet_arena adds none


# --- each rule refuses a broken copy -----------------------------------------------------------------


def _find(doc: list[dict[str, Any]], entity_id: str) -> dict[str, Any]:
    return next(e for e in doc if e["id"] == entity_id)


def _unit(files: dict[str, Any], hero: str) -> dict[str, Any]:
    return next(u for u in files[STATE_FILE]["fs"]["collection"]["units"] if u["id"] == hero)


def _move_item(f: dict[str, Any]) -> None:
    _find(f["loadouts.json"], "heron_rifle")["hero"] = "tamsin"


def _drop_from_loadout(f: dict[str, Any]) -> None:
    _find(f["heroes.json"], "quillon")["loadout"].remove("heron_rifle")


def _gate_starter(f: dict[str, Any]) -> None:
    _find(f["loadouts.json"], "burst_rifle")["unlock"] = {"min_hero_level": 2}


def _perk_to_utility(f: dict[str, Any]) -> None:
    _find(f["loadouts.json"], "keen_eye")["slot"] = "utility"


def _two_tanks(f: dict[str, Any]) -> None:
    _find(f["comps.json"], "long_watch")["heroes"][1] = "dumaka"


def _four_heroes(f: dict[str, Any]) -> None:
    _find(f["comps.json"], "wolfpack")["heroes"].pop()


def _both_win(f: dict[str, Any]) -> None:
    f["counters.json"]["quillon"]["brannoc"] = 1.5


def _unpaired(f: dict[str, Any]) -> None:
    f["counters.json"]["quillon"]["brannoc"] = 0.5


def _self(f: dict[str, Any]) -> None:
    f["counters.json"]["renzo"]["renzo"] = 0.8


def _odd_multiplier(f: dict[str, Any]) -> None:
    f["counters.json"]["kasimir"]["paxton"] = 1.4
    f["counters.json"]["paxton"]["kasimir"] = 1 / 1.4


def _uncountered(f: dict[str, Any]) -> None:  # nobody counters Galen any more
    del f["counters.json"]["nadira"]["galen"], f["counters.json"]["galen"]["nadira"]
    f["counter_notes.json"].pop("nadira/galen", None)  # (the loader refuses a reason for no win)


def _flat_map(f: dict[str, Any]) -> None:
    for row in f["map_fit.json"].values():
        row.pop("tannery_lanes", None)


def _fit_without_words(f: dict[str, Any]) -> None:
    f["map_fit.json"]["renzo"]["fathom_docks"] = 0.5


def _stray_note(f: dict[str, Any]) -> None:
    f["counter_notes.json"]["galen/nadira"] = "Galen outheals Nadira"


def _missing_note(f: dict[str, Any]) -> None:
    del f["counter_notes.json"]["renzo/kasimir"]


def _clashing_callsign(f: dict[str, Any]) -> None:
    _find(f["heroes.json"], "tamsin")["callsign"] = ["Quill"]


def _pet_name(f: dict[str, Any]) -> None:
    _find(f["loadouts.json"], "creeper_net")["name"] = "Sand Trap"


def _locked_hero_owned(f: dict[str, Any]) -> None:
    f[STATE_FILE]["fs"]["collection"]["units"].append({"id": "quillon", "level": 3, "unlocked": []})


def _unlocked_hero_missing(f: dict[str, Any]) -> None:
    units = f[STATE_FILE]["fs"]["collection"]["units"]
    units.remove(_unit(f, "stellan"))


def _item_past_its_gate(f: dict[str, Any]) -> None:
    _unit(f, "brannoc")["unlocked"].append("dome_projector")  # needs account level 15


def _item_within_its_gate_not_unlocked(f: dict[str, Any]) -> None:
    _unit(f, "renzo")["unlocked"].remove("auto_shotgun")


def _no_tank(f: dict[str, Any]) -> None:
    f[STATE_FILE]["ic"]["match"]["opponent_lineup"][0] = "tamsin"


def _side_not_owned(f: dict[str, Any]) -> None:
    f[STATE_FILE]["ic"]["match"]["player_lineup"][1] = "kasimir"


def _no_map(f: dict[str, Any]) -> None:
    f[STATE_FILE]["ic"]["match"]["context"] = {}


def _first_round(f: dict[str, Any]) -> None:
    f[STATE_FILE]["ic"]["match"]["round"] = 1


BROKEN = [
    (_move_item, "item heron_rifle: its hero 'tamsin' does not list it"),
    (_drop_from_loadout, "item heron_rifle: its hero 'quillon' does not list it"),
    (_gate_starter, "hero tamsin: no primary and utility free from the start"),
    (_perk_to_utility, "hero tamsin: no perk"),
    (_two_tanks, "comp long_watch: {'tank': 2, 'damage': 1, 'support': 2}"),
    (_four_heroes, "comp wolfpack: {'tank': 1, 'damage': 2, 'support': 1}"),
    (_both_win, "counters brannoc/quillon: 1.5 one way, 1.5 the other"),
    (_unpaired, "counters brannoc/quillon: 1.5 one way, 0.5 the other"),
    (_self, "counters renzo/renzo: a hero against itself"),
    (_odd_multiplier, "counters kasimir/paxton: 1.4 has no words"),
    (_uncountered, "counters: galen has no counter"),
    (_flat_map, "map_fit tannery_lanes: favours fewer than two heroes"),
    (_fit_without_words, "map_fit renzo: 0.5 has no words"),
    (_missing_note, "counter_notes renzo/kasimir: no reason"),
    (_pet_name, "name 'sand trap': also pet_arena's"),
    (_locked_hero_owned, "collection: ['quillon'] against account level 10"),
    (_unlocked_hero_missing, "collection: ['stellan'] against account level 10"),
    (_item_past_its_gate, "collection brannoc: unlocked"),
    (_item_within_its_gate_not_unlocked, "collection renzo: unlocked"),
    (_no_tank, "opponent_lineup: {'damage': 3, 'support': 2}"),
    (_side_not_owned, "player_lineup: ['kasimir'] not in the collection"),
    (_no_map, "match: map {} unknown"),
    (_first_round, "match: round 1 of 3 is not mid-match"),
]


def test_a_callsign_naming_two_heroes_is_refused_at_load(tmp_path: Path, files: dict[str, Any]) -> None:
    broken = copy.deepcopy(files)
    _clashing_callsign(broken)
    with pytest.raises(PackError, match=r"heroes\.json: entry '(quillon|tamsin)': alias 'Quill' also names"):
        load(tmp_path / "strike_team", broken)


@pytest.mark.parametrize(("change", "message"), BROKEN, ids=[c.__name__.strip("_") for c, _ in BROKEN])
def test_each_rule_refuses_a_broken_copy(
    tmp_path: Path, files: dict[str, Any], change: Any, message: str
) -> None:
    broken = copy.deepcopy(files)
    change(broken)
    found = integrity(load(tmp_path / "strike_team", broken), broken)
    assert any(p.startswith(message) for p in found), found


def _unknown_map(state: dict[str, Any]) -> None:
    state["ic"]["match"]["context"]["map"] = "harrow_docks"


def _past_the_top_level(state: dict[str, Any]) -> None:
    state["fs"]["player_level"] = 61


def _item_of_another_hero(state: dict[str, Any]) -> None:
    state["fs"]["collection"]["units"][0]["unlocked"].append("heron_rifle")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_unknown_map, r"ic\.match\.context\.map: unknown map 'harrow_docks'"),
        (_past_the_top_level, r"fs\.player_level: 61 is above the game's 60"),
        (_item_of_another_hero, r"fs\.collection\.units\.0\.unlocked: Dumaka has no item 'heron_rifle'"),
    ],
)
def test_check_state_refuses_what_the_limits_and_the_catalog_refuse(
    pack: Pack, files: dict[str, Any], change: Any, message: str
) -> None:
    state = copy.deepcopy(files[STATE_FILE])
    change(state)
    with pytest.raises(StateError, match=message):
        check_state(pack, load_state(state))


def test_the_loader_refuses_a_reason_for_a_counter_the_table_lacks(
    tmp_path: Path, files: dict[str, Any]
) -> None:
    broken = copy.deepcopy(files)
    _stray_note(broken)
    with pytest.raises(
        PackError, match=r"counter_notes\.json: entry 'galen/nadira': counters\.json has no win"
    ):
        load(tmp_path / "strike_team", broken)
