"""The checker kernel on a pack with a schema.json (the toy hero shooter, tests/toy_pack.py): claims
by the kind's role, availability through StateView's collection profile, the owner from the schema
relation, and the pack's cue additions (vocabulary.json `cues`). Pet's side: its cue patterns are
the module's own.

The toy player owns Vanta (hero level 3, nothing unlocked), not Bulwark. Vanta's Longshot is gated
(hero level 5), her Smoke Round is not; the match is on Harbor Point.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.toy_pack import FILES, base, write_pack
from voicecoach.core.state import load_state
from voicecoach.domain.pack import Pack, load_pack_from
from voicecoach.talker import speakable
from voicecoach.talker.checker import check_reply, check_sentence
from voicecoach.talker.claims import (
    ABSENCE,
    CREDIT_AFTER,
    CREDIT_BEFORE,
    RECOMMEND,
    SKILL_ABSENCE,
    Cues,
    read_reply,
    reading,
)
from voicecoach.talker.guard import SentenceGuard
from voicecoach.talker.rules import GROUNDING_RULES, CheckContext, Failure

STATE: dict[str, Any] = {
    "ic": {
        "match": {
            "round": 1,
            "player_lineup": ["vanta"],
            "opponent_lineup": ["bulwark"],
            "context": {"map": "harbor_point"},
        }
    },
    "fs": {"player_level": 12, "collection": {"units": [{"id": "vanta", "level": 3, "unlocked": []}]}},
}
CUES = {
    "recommend": ["lock in"],
    "credit_after": ["is equipped"],
    "option_absence": ["can't equip"],
}


def _pack(tmp_path: Path, name: str, cues: dict[str, list[str]] | None = None) -> Pack:
    files = copy.deepcopy(FILES)
    if cues is not None:
        files["vocabulary.json"] = {**base()["vocabulary.json"], "cues": cues}
    return load_pack_from(write_pack(tmp_path / name, files))


def _ctx(
    pack: Pack, unlocked: list[str] | None = None, utterance: str = "what should i pick"
) -> CheckContext:
    state = copy.deepcopy(STATE)
    state["fs"]["collection"]["units"][0]["unlocked"] = unlocked or []
    return CheckContext.live(pack, load_state(state), utterance)


def _grounding(fails: list[Failure]) -> list[tuple[str, str | None]]:
    return [(f.rule, f.entity) for f in fails if f.rule in GROUNDING_RULES]


def test_claims_carry_the_kinds_role(toy: Pack) -> None:
    claims = read_reply(toy, "Use Longshot on Vanta, the Dive comp works on Harbor Point.")
    assert [(c.entity, c.kind, c.kind_role, c.judged) for c in claims] == [
        ("longshot", "item", "option", True),
        ("vanta", "hero", "unit", True),
        ("dive", "comp", "group", True),
        ("harbor_point", "map", "context", False),
    ]


@pytest.mark.parametrize(
    "reply",
    ["Your Longshot is ready.", "Use Longshot.", "Run Vanta's Longshot this round."],
)
def test_a_locked_option_credited_as_usable_fails(toy: Pack, reply: str) -> None:
    assert _grounding(check_reply(toy, reply, _ctx(toy))) == [("unavailable_entity", "longshot")]
    assert _grounding(check_sentence(toy, reply, _ctx(toy), [])) == [("unavailable_entity", "longshot")]
    # Unlocked in the snapshot: the same reply is grounded.
    assert _grounding(check_reply(toy, reply, _ctx(toy, unlocked=["longshot"]))) == []


def test_options_and_units_are_judged_through_the_collection(toy: Pack) -> None:
    ctx = _ctx(toy)
    # A gate-free option on an owned hero is usable without being listed as unlocked.
    assert _grounding(check_reply(toy, "Use Smoke Round.", ctx)) == []
    assert _grounding(check_reply(toy, "Bring Bulwark.", ctx)) == [("unavailable_entity", "bulwark")]
    fails = check_reply(toy, "Go with the Dive comp.", ctx)
    assert _grounding(fails) == [("unavailable_entity", "dive")]
    assert any(f.evidence.startswith("comp Dive needs Bulwark, not owned") for f in fails)
    assert _grounding(check_reply(toy, "You don't have Vanta.", ctx)) == [("false_missing", "vanta")]
    # The option's owner comes from the hero -> loadout relation: Longshot named on Vanta.
    claims = read_reply(toy, "Vanta's Longshot is ready.")
    assert [(c.entity, c.owner, c.owner_only) for c in claims] == [
        ("vanta", None, True),
        ("longshot", "vanta", False),
    ]


@pytest.mark.parametrize(
    "reply",
    [
        "Use Harbor Point.",
        "Harbor Point is not available to you.",
        "You don't have Harbor Point, but Harbor Point is yours.",
        "Go with Harbor Point again.",
    ],
)
def test_a_map_mention_is_never_an_availability_claim(toy: Pack, reply: str) -> None:
    ctx = CheckContext.live(toy, load_state(STATE), "what about harbor point", previous_reply=reply)
    assert any(c.entity == "harbor_point" for c in read_reply(toy, reply))
    assert _grounding(check_reply(toy, reply, ctx)) == []
    assert _grounding(check_sentence(toy, reply, ctx, [])) == []


def test_a_map_does_not_shield_a_unit_in_the_same_sentence(toy: Pack) -> None:
    fails = check_reply(toy, "Use Bulwark on Harbor Point.", _ctx(toy))
    assert _grounding(fails) == [("unavailable_entity", "bulwark")]


def test_the_guard_drops_a_locked_toy_option(toy: Pack) -> None:
    guard = SentenceGuard.after_narration(toy, _ctx(toy), "Let me look.")
    spoken = guard.feed("Use Smoke Round first. Your Longshot is ready. ") + guard.finish()
    assert spoken == ["Use Smoke Round first."]
    assert guard.drops_by_rule() == {"unavailable_entity": 1}


def test_the_packs_cue_additions_are_read(tmp_path: Path) -> None:
    plain, cued = _pack(tmp_path, "plain"), _pack(tmp_path, "cued", CUES)
    cases = [
        # recommend "lock in": Bulwark is not owned.
        ("Lock in Bulwark.", [("unavailable_entity", "bulwark")]),
        # credit_after "is equipped": Longshot is locked.
        ("Longshot is equipped.", [("unavailable_entity", "longshot")]),
        # option_absence "can't equip": Smoke Round is usable, so calling it unusable is false.
        ("You can't equip Smoke Round.", [("false_missing", "smoke_round")]),
    ]
    for reply, with_cues in cases:
        assert _grounding(check_reply(plain, reply, _ctx(plain))) == [], reply
        assert _grounding(check_reply(cued, reply, _ctx(cued))) == with_cues, reply
    # The base list still reads alongside the additions.
    assert _grounding(check_reply(cued, "Use Bulwark.", _ctx(cued))) == [("unavailable_entity", "bulwark")]
    patterns = reading(cued).cues
    assert patterns.recommend is not RECOMMEND and patterns.recommend.search("you should lock in")
    assert patterns.credit_before is CREDIT_BEFORE and patterns.absence is ABSENCE


def test_pet_adds_no_cues_so_its_patterns_are_the_modules(pack: Pack) -> None:
    assert not pack.vocabulary.cues
    cues = reading(pack).cues
    assert cues == Cues()
    assert (cues.recommend, cues.credit_before, cues.credit_after, cues.absence, cues.option_absence) == (
        RECOMMEND,
        CREDIT_BEFORE,
        CREDIT_AFTER,
        ABSENCE,
        SKILL_ABSENCE,
    )
    assert all(
        a is b
        for a, b in zip(
            (cues.recommend, cues.credit_before, cues.credit_after, cues.absence, cues.option_absence),
            (RECOMMEND, CREDIT_BEFORE, CREDIT_AFTER, ABSENCE,
             SKILL_ABSENCE),
            strict=True,
        )
    )  # fmt: skip


def test_pack_words_walk_every_string_field_of_the_catalog(toy: Pack) -> None:
    words = speakable._pack_words(toy)
    # names, ids, aliases (callsign), attribute values (role, slot, difficulty) of every kind.
    assert {"vanta", "longshot", "smoke", "round", "wall", "striker", "primary", "utility", "hard",
            "dive", "harbor", "point"} <= words  # fmt: skip
    assert speakable.unknown_names(toy, "Harbor Point suits Vanta and Bulwark.") == []
    assert speakable.unknown_names(toy, "Try Zorblax.") == ["Zorblax"]


def test_strike_team_is_read_with_its_own_cues(tmp_path: Path) -> None:
    # strike_team's catalog and vocabulary cues (loaded as its catalog tests load it), on its example
    # state: the player owns Dumaka (Bull Rush unlocked) but not Hakon, and plays on Fathom Docks.
    from tests.domain.test_strike_team_catalog import STATE_FILE, load, pack_files

    files = pack_files()
    st = load(tmp_path / "strike_team", files)
    ctx = CheckContext.live(st, load_state(files[STATE_FILE]), "who should i play")
    cases = {
        "Respawn as Hakon.": [("unavailable_entity", "hakon")],  # recommend += "respawn as"
        "You can't equip Bull Rush on Dumaka yet.": [("false_missing", "bull_rush")],  # option_absence
        "Fathom Docks is locked for you.": [],  # a map: never judged
        "Go with Wolfpack on Fathom Docks.": [("unavailable_entity", "wolfpack")],
        "Lock in Renzo and equip Auto Shotgun.": [],
    }
    for reply, expected in cases.items():
        assert _grounding(check_reply(st, reply, ctx)) == expected, reply
