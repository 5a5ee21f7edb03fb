"""W2 on a pack with its own kinds (tests/toy_pack.py, a hero shooter): the slot value sets come
from its schema, grounding and the repairs look names up by kind, and the judgements read the
collection through StateView and the matchup from the pack's own table. pet_arena's outputs are
pinned by test_pet_arena_golden.py and test_fixture_decisions.py."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.toy_pack import EXAMPLE_STATE, FILES, base, write_pack
from voicecoach.core.state import LiveState, load_state
from voicecoach.domain.catalog import Schema
from voicecoach.domain.pack import Pack, load_pack, load_pack_from
from voicecoach.grounding.diff import Conflict, diff
from voicecoach.grounding.kernel import ground
from voicecoach.grounding.plan import psi
from voicecoach.grounding.prompt import slot_prompt
from voicecoach.grounding.slot_rules import extract_slots
from voicecoach.grounding.slots import (
    ANY_SKILL,
    AttributePref,
    GlobalConstraint,
    QuerySlots,
    parse_query_slots,
    query_slots_json_schema,
    slot_names,
)

STATE = load_state(EXAMPLE_STATE)


def _by_id(conflicts: tuple[Conflict, ...]) -> dict[str, Conflict]:
    return {c.constraint: c for c in conflicts}


def _state(**fs: Any) -> LiveState:
    data = copy.deepcopy(EXAMPLE_STATE)
    data["fs"].update(fs)
    return load_state(data)


# --- slot value sets -----------------------------------------------------------------------------


def test_slot_names_come_from_the_schema(toy: Pack) -> None:
    names = slot_names(toy.catalog.schema)
    # The option kind, then the hero's categorical attributes (power is numeric: no slot value).
    assert names.attributes == ("item", "role", "difficulty")
    assert names.globals == ("max_size", "min_size", "max_difficulty")  # no type kind: no <attr>_only
    pet = slot_names(load_pack().catalog.schema)
    assert pet.attributes == ("skill", "element", "role", "rarity")
    assert pet.globals == ("max_size", "min_size", "max_rarity", "element_only")


def test_the_json_schema_names_the_packs_attributes_and_nouns(toy: Pack) -> None:
    schema = query_slots_json_schema(toy)
    pref = schema["$defs"]["AttributePref"]["properties"]
    assert pref["attribute"]["enum"] == ["item", "role", "difficulty"]
    assert pref["value"]["description"] == "item name, role or difficulty ('*': any item)"
    assert pref["entity"]["description"].startswith("hero the wish")
    kinds = schema["$defs"]["GlobalConstraint"]["properties"]["kind"]["enum"]
    assert kinds == ["max_size", "min_size", "max_difficulty"]
    assert schema["properties"]["wanted_entities"]["description"] == "heroes the player wants"
    assert "Emberfox" not in str(schema)


def test_parsing_keeps_the_packs_attributes_and_drops_others(toy: Pack) -> None:
    raw = {
        "attribute_prefs": [{"attribute": "item", "value": "Longshot"}, {"attribute": "skill", "value": "x"}],
        "global_constraints": [
            {"kind": "max_difficulty", "value": "easy"}, {"kind": "max_rarity", "value": "rare"}
        ],
    }  # fmt: skip
    slots, errors = parse_query_slots(raw, toy)
    assert slots.attribute_prefs == [AttributePref(attribute="item", value="Longshot")]
    assert slots.global_constraints == [GlobalConstraint(kind="max_difficulty", value="easy")]
    assert any("attribute_prefs[1]" in e and "'item', 'role' or 'difficulty'" in e for e in errors)
    assert any("global_constraints[1]" in e for e in errors)
    # Without a pack, pet's names: the toy's are refused.
    pet_slots, pet_errors = parse_query_slots(raw, load_pack())
    assert [p.attribute for p in pet_slots.attribute_prefs] == ["skill"] and pet_errors


def test_the_slot_prompt_uses_the_packs_nouns_and_values(toy: Pack) -> None:
    prompt = slot_prompt(toy)
    assert "opponent_entities: lists of hero names" in prompt
    assert '"attribute": "item"|"role"|"difficulty"' in prompt
    assert '"kind": "max_size"|"min_size"|"max_difficulty"' in prompt
    assert '"swap out X\'s item"' in prompt
    assert "Roles: striker" in prompt and "Difficulties: easy, medium, hard." in prompt
    assert "Heroes: Bulwark, Vanta." in prompt
    assert "with Smoke Round, three heroes max" not in prompt  # Bulwark comes first and has no item
    assert 'Example: "I want Bulwark, three heroes max"' in prompt
    for pet_word in ("creature", "skill", "Elements", "pets"):
        assert pet_word not in prompt
    example, errors = parse_query_slots(prompt.rsplit("->", 1)[1], toy)
    assert errors == [] and example.wanted_entities == ["Bulwark"]


# --- grounding and judging a toy utterance on the toy state -----------------------------------


def test_a_locked_option_is_a_hard_conflict_and_a_free_one_is_usable(toy: Pack) -> None:
    utterance = "build a comp with Vanta, Longshot and Smoke Round"
    slots = extract_slots(toy, utterance, STATE)
    assert AttributePref(entity="Vanta", attribute="item", value="Longshot") in slots.attribute_prefs
    c2 = ground(slots, STATE, toy, "comp", "build", utterance=utterance)
    got = _by_id(c2.conflicts)
    assert got["has:vanta"].satisfied
    locked = got["item:longshot@vanta"]
    assert (locked.kind, locked.tier, locked.satisfied) == ("item", "hard", False)
    assert locked.detail == "Longshot is not unlocked for the player on Vanta; it unlocks with hero level 5"
    assert got["item:smoke_round@vanta"].satisfied  # no gate: usable on an owned hero
    accounts = [p for p in c2.plan if p.type == "constraint_account"]
    assert any("item:longshot@vanta" in p.constraints for p in accounts)
    # Unlocked in the snapshot, the same wish is met.
    unlocked = _state(collection={"units": [{"id": "vanta", "level": 6, "unlocked": ["longshot"]}]})
    assert _by_id(ground(slots, unlocked, toy, "comp", "build", utterance=utterance).conflicts)[
        "item:longshot@vanta"
    ].satisfied


def test_an_option_the_hero_cannot_have_and_one_of_an_unowned_hero(toy: Pack) -> None:
    wish = QuerySlots(attribute_prefs=[AttributePref(entity="Bulwark", attribute="item", value="Longshot")])
    got = _by_id(diff(wish, STATE.fs, toy).conflicts)["item:longshot@bulwark"]
    assert not got.satisfied and got.detail == "Bulwark cannot have Longshot"
    only_bulwark = _state(collection={"units": [{"id": "bulwark", "level": 3}]})
    team = QuerySlots(attribute_prefs=[AttributePref(attribute="item", value="Longshot")])
    got = _by_id(diff(team, only_bulwark.fs, toy).conflicts)["item:longshot"]
    assert not got.satisfied
    assert got.detail == "Longshot is not unlocked for the player (on Vanta); it unlocks with hero level 5"


def test_an_excluded_hero_is_a_conflict_and_carries_over(toy: Pack) -> None:
    utterance = "make me a comp without Bulwark"
    slots = extract_slots(toy, utterance, STATE)
    assert slots.excluded_entities == ["Bulwark"]
    c2 = ground(slots, STATE, toy, "comp", "build", utterance=utterance)
    kept_out = _by_id(c2.conflicts)["excludes:bulwark"]
    assert (kept_out.tier, kept_out.satisfied, kept_out.detail) == ("soft", True, "leave Bulwark out")
    # Asked for and kept out at once: the exclusion cannot be met.
    both = QuerySlots(wanted_entities=["Bulwark"], excluded_entities=["Bulwark"])
    clash = _by_id(diff(both, STATE.fs, toy).conflicts)["excludes:bulwark"]
    assert not clash.satisfied and clash.detail == "asked both to use and to leave out Bulwark"
    # The next turn keeps Bulwark out until the player asks for it back.
    later = "what about Vanta"
    nxt = ground(extract_slots(toy, later, STATE, c2.carried), STATE, toy, "comp", "build", utterance=later,
                 earlier=c2.carried)  # fmt: skip
    assert "excludes:bulwark" in _by_id(nxt.conflicts)


def test_the_counter_comes_from_the_toys_table(toy: Pack) -> None:
    # counters.json: Bulwark beats Vanta 1.5; nothing beats Bulwark.
    foe = QuerySlots(opponent_entities=["Vanta"])
    got = _by_id(diff(foe, STATE.fs, toy).conflicts)["counter:vanta"]
    assert got.satisfied and got.detail == "Bulwark counters Vanta"  # an id matchup: no "(element)"
    no_bulwark = _state(collection={"units": [{"id": "vanta", "level": 6}]})
    got = _by_id(diff(foe, no_bulwark.fs, toy).conflicts)["counter:vanta"]
    assert not got.satisfied and got.detail == "nothing owned counters Vanta"
    got = _by_id(diff(QuerySlots(opponent_entities=["Bulwark"]), STATE.fs, toy).conflicts)["counter:bulwark"]
    assert not got.satisfied


def test_ordered_attribute_and_unknown_names_on_the_toy(toy: Pack) -> None:
    slots = QuerySlots(
        wanted_entities=["Vanta"],
        global_constraints=[GlobalConstraint(kind="max_difficulty", value="medium")],
        attribute_prefs=[
            AttributePref(attribute="role", value="striker"),
            AttributePref(attribute="difficulty", value="impossible"),
            AttributePref(attribute="item", value="Railgun"),
        ],
    )
    got = _by_id(diff(slots, STATE.fs, toy).conflicts)
    assert not got["global:max_difficulty"].satisfied  # Vanta is hard
    assert got["global:max_difficulty"].detail == "nothing above medium: the request or roster can't"
    assert (
        got["attr:role=striker"].satisfied
        and got["attr:role=striker"].detail == "an owned hero is role striker"
    )
    assert got["unknown_value:impossible"].tier == "hint"
    assert got["unknown_entity:railgun"].detail == "'Railgun' is not a known item"


def test_no_collection_and_an_empty_one(toy: Pack) -> None:
    unknown = diff(QuerySlots(wanted_entities=["Vanta"]), load_state({}).fs, toy)
    assert not unknown.inventory_known
    assert unknown.conflicts[0].detail == "the player's collection is unavailable"
    empty = diff(QuerySlots(), _state(collection={"units": []}).fs, toy)
    assert empty.inventory_empty and empty.empty_detail == "the player owns no heroes yet"
    assert any(
        p.type == "apology" and p.detail == empty.empty_detail for p in psi(empty, "comp", "build").required
    )


def test_swap_out_a_heros_loadout_is_an_option_avoid(toy: Pack) -> None:
    slots = QuerySlots(excluded_entities=["Vanta's loadout"])
    c2 = ground(slots, STATE, toy, "comp", "swap")
    assert c2.slots.attribute_prefs == [
        AttributePref(entity="Vanta", attribute="item", value=ANY_SKILL, op="avoid")
    ]
    got = _by_id(c2.conflicts)["attr:item!=*@vanta"]
    assert got.satisfied and got.detail == "swap out any item on Vanta"
    # A hero named in an item pref goes back to the entity slots.
    moved = ground(
        QuerySlots(attribute_prefs=[AttributePref(attribute="item", value="Bulwark")]),
        STATE,
        toy,
        "comp",
        "build",
    )
    assert moved.slots.wanted_entities == ["Bulwark"] and moved.slots.attribute_prefs == []


# --- Ψ flags and the schema's phrases -------------------------------------------------------------


def test_phi_flags_override_the_keyword_rules(tmp_path: Path) -> None:
    files = copy.deepcopy(FILES)
    phi = [
        {"intent": "warmup", "sub_intent": "chat", "tools": [], "coaching": False, "scene": True},
        {"intent": "smalltalk", "sub_intent": "tips", "tools": [], "coaching": True},
    ]
    files["phi.json"] = base()["phi.json"] + phi
    pack = load_pack_from(write_pack(tmp_path / "flags", files))
    types = {
        pair: {p.type for p in ground(QuerySlots(), STATE, pack, *pair).plan}
        for pair in (("warmup", "chat"), ("smalltalk", "tips"), ("warmup", "other"), ("smalltalk", "hi"))
    }
    assert types[("warmup", "chat")] == {"scene_flavor"}  # no guidance, a scene line: the flags
    assert "guidance" in types[("smalltalk", "tips")]
    assert types[("warmup", "other")] == {"guidance"}  # unregistered: the keyword rules
    assert types[("smalltalk", "hi")] == set()


def test_a_schema_rewords_the_details(tmp_path: Path) -> None:
    files = copy.deepcopy(FILES)
    files["schema.json"]["phrases"] = {"option_not_on_unit": "{unit} cannot equip {option}"}
    pack = load_pack_from(write_pack(tmp_path / "worded", files))
    wish = QuerySlots(attribute_prefs=[AttributePref(entity="Bulwark", attribute="item", value="Longshot")])
    assert _by_id(diff(wish, STATE.fs, pack).conflicts)["item:longshot@bulwark"].detail == (
        "Bulwark cannot equip Longshot"
    )
    with pytest.raises(ValueError, match="unknown placeholders"):
        Schema.model_validate({**FILES["schema.json"], "phrases": {"owns": "{name} at {level}"}})
    with pytest.raises(ValueError, match="unknown key"):
        Schema.model_validate({**FILES["schema.json"], "phrases": {"owned": "x"}})
