"""What the game data cannot tell (`voicecoach.perception.limits`), and the reply that says so."""

from __future__ import annotations

import json

import pytest

from voicecoach.core.state import load_state
from voicecoach.domain.pack import example_state_path, load_pack
from voicecoach.domain.view import StateView
from voicecoach.perception.limits import asks_cap, data_limit
from voicecoach.perception.prior import IntentPrior


def _theirs(pack_id: str) -> frozenset[str]:
    pack = load_pack(pack_id)
    view = StateView(pack, load_state(json.loads(example_state_path(pack_id).read_text())))
    return frozenset(u for u in view.opponent_side() if not view.owns(u))


@pytest.mark.parametrize(
    "pack_id, text, kind, about",
    [
        ("pet_arena", "how fast is emberfox", "stat", "emberfox"),
        ("pet_arena", "whats the cooldown on blaze charge", "stat", "blaze_charge"),
        ("pet_arena", "how much hp does the shellbastion have", "stat", "shellbastion"),
        ("pet_arena", "does overcharge stack", "stacking", "overcharge"),
        ("pet_arena", "is there a level cap", "stat", None),
        ("pet_arena", "what level is their voltail", "theirs", "voltail"),
        ("pet_arena", "what level is the vol tail they have", "theirs", "voltail"),
        ("pet_arena", "is voltail evolved yet", "theirs", "voltail"),
        ("pet_arena", "can voltail do chain lightning on us", "theirs", "chain_lightning"),
        ("pet_arena", "how close is tide fang to evolving", "threshold", "tidefang"),
        ("pet_arena", "when does my tidefang evolve", "threshold", "tidefang"),
        ("pet_arena", "how do i evolve galehawk", "threshold", "galehawk"),
        ("pet_arena", "how do i get emberfox to stage three", "threshold", "emberfox"),
        ("pet_arena", "how do i get pyralis", "acquire", "pyralis"),
        ("strike_team", "how fast is renzo", "stat", "renzo"),
        ("strike_team", "what level is quillon at", "theirs", "quillon"),
        ("strike_team", "whats nadira running", "theirs", "nadira"),
        ("strike_team", "how many kills does quillon have", "stat", "quillon"),
        ("strike_team", "what rank is the other team", "theirs", None),
        ("strike_team", "ok what about their snipers loadout", "theirs", None),
        ("strike_team", "does their nadira have null grenade", "theirs", "null_grenade"),
    ],
)
def test_what_the_data_does_not_hold_is_found(pack_id: str, text: str, kind: str, about: str | None) -> None:
    limit = data_limit(load_pack(pack_id), text, _theirs(pack_id))
    assert limit is not None and limit.kind == kind
    assert (limit.about.id if limit.about else None) == about


@pytest.mark.parametrize(
    "pack_id, text",
    [
        ("pet_arena", "who should get the speed buff"),  # an effect, not a stat
        ("pet_arena", "how does oakhorn stack up against briarcat"),  # a matchup
        ("pet_arena", "which team has the most hp"),  # asked of no one: strategy
        ("pet_arena", "what level is emberfox"),  # the player's own: the state has it
        ("pet_arena", "is my emberfox a higher level than their voltail"),
        ("pet_arena", "when should i evolve tidefang"),  # advice, not a threshold
        ("pet_arena", "should i evolve galehawk"),
        ("pet_arena", "how far can rockram evolve"),  # its stages: the data has them
        ("pet_arena", "how do i get tsunafang"),  # a later stage: by evolving
        ("pet_arena", "how do i get tsunami crash on tidefang"),  # an option's unlock: gated
        ("pet_arena", "what do i spend my coins on"),
        ("strike_team", "whats the range on quillon"),  # strike's heroes have a range
        ("strike_team", "how many levels until bexley"),  # the player's unlock
        ("strike_team", "is nadira worth the time to level"),
        ("strike_team", "how do i unlock bexley"),  # heroes are gated: the data says how
        ("pet_arena", "it's speed"),  # not a question
        ("strike_team", "is there a level cap"),  # strike's manifest says its caps (asks_cap)
        ("strike_team", "what are they running"),  # their comp: the state has it
        ("strike_team", "ok which of them should i level up"),
        ("strike_team", "does nadiras null grenade stop healing"),  # what it does, not whether they have it
    ],
)
def test_what_the_data_holds_is_no_limit(pack_id: str, text: str) -> None:
    assert data_limit(load_pack(pack_id), text, _theirs(pack_id)) is None


def test_a_limit_gets_the_profile_of_what_it_is_about() -> None:
    pack = load_pack("pet_arena")
    prior = IntentPrior.shared(pack)
    theirs = _theirs("pet_arena")
    assert prior.prefill("how fast is emberfox", theirs=theirs) == prior.info_pair
    assert prior.prefill("whats the cooldown on blaze charge", theirs=theirs) == prior.option_info_pair
    assert prior.prefill("how close is tide fang to evolving", theirs=theirs) == prior.progression_pair


def test_every_clean_phrase_of_the_packs_is_checked_for_false_limits() -> None:
    """The packs' training phrasings on their own example states: a limit only where the question
    asks what the state or catalog does not hold (the handful listed: strike_team's include how long
    a respawn takes), never on a strategy question."""
    seen: dict[str, list[str]] = {}
    for pack_id in ("pet_arena", "strike_team"):
        pack, theirs = load_pack(pack_id), _theirs(pack_id)
        doc = json.loads(example_state_path(pack_id).with_name("paraphrases.json").read_text())
        texts = {t for entry in doc for t in entry["utterances"]}
        seen[pack_id] = sorted(t for t in texts if data_limit(pack, t, theirs) is not None)
    assert len(seen["pet_arena"]) <= 8, seen["pet_arena"]
    assert len(seen["strike_team"]) <= 5, seen["strike_team"]


def test_a_cap_the_pack_declares_is_asked_for_not_a_limit() -> None:
    strike, pet = load_pack("strike_team"), load_pack("pet_arena")
    assert asks_cap(strike, "whats the max level a hero can get to") == "level"
    assert asks_cap(strike, "whats the max hero level") == "level"
    assert asks_cap(strike, "how many heroes can i have") == "owned"
    assert asks_cap(strike, "is renzo maxed out", units=1) == "unit"
    assert asks_cap(strike, "what level is renzo", units=1) is None
    assert asks_cap(pet, "is there a level cap") is None  # pet's manifest declares none
