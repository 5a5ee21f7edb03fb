"""Responsive rules (voicecoach/bench/coachbench/responsive.py) per family, on the shared test state.

The player owns Emberfox (stage 2: Inferno Roar needs stage 3), Galehawk, Granitusk (Granite
Bulwark needs level 20), Hexmoth, Lumifawn, Oakhorn, Sparkwing and Tidefang; they face Briarcat
(grass), Shellbastion (water) and Voltail (electric). Pyrowl is not owned.
"""

from __future__ import annotations

import json

import pytest

from tests.bench.test_coachbench_checker import check, snapshot, turn
from voicecoach.bench.coachbench.checker import ReplyEvidence, check_turn
from voicecoach.bench.coachbench.packdata import FILE, bench_data
from voicecoach.domain.pack import PACKS_DIR, Pack, PackError


def responsive(pack: Pack, reply: str, utterance: str, pair: str, **kw: object) -> bool:
    verdict = check(pack, reply, turn(pack, utterance, pair, **kw))  # type: ignore[arg-type]
    return verdict.responsive


def test_counter_question_needs_an_owned_counter(pack: Pack) -> None:
    ask = ("what should i field against their team", "lineup/counter")
    expect = turn(pack, *ask).reference.expect
    assert expect is not None and expect.family == "pick_counter"
    assert "emberfox" in expect.direction  # fire beats Briarcat's grass
    assert responsive(pack, "Lead with Emberfox, fire beats their grass.", *ask)
    assert not responsive(pack, "Good luck out there, you can do it.", *ask)
    assert not responsive(pack, "Their Voltail is strong.", *ask)  # only the opponent's creature
    assert responsive(pack, "None of your creatures really counters them, play safe.", *ask)


def test_excluded_creatures_do_not_answer(pack: Pack) -> None:
    ask = ("build me a team but leave emberfox out", "lineup/build")
    assert not responsive(pack, "Bring Emberfox.", *ask, excluded=("emberfox",))
    assert responsive(pack, "Bring Hexmoth and Galehawk.", *ask, excluded=("emberfox",))


def test_ownership_yes_and_no(pack: Pack) -> None:
    assert responsive(pack, "Yes, Tidefang is in your collection.", "do i have tidefang", "creature/owned")
    assert not responsive(pack, "Tidefang is a water striker.", "do i have tidefang", "creature/owned")
    assert responsive(pack, "No, you don't own Pyrowl yet.", "do i have pyrowl", "creature/owned")
    assert not responsive(pack, "Yes, Pyrowl is great.", "do i have pyrowl", "creature/owned")


def test_skill_unlock_needs_the_condition_when_locked(pack: Pack) -> None:
    ask = ("can emberfox use inferno roar yet", "skill/unlock")
    assert responsive(pack, "Not yet, Inferno Roar unlocks at stage 3.", *ask)
    assert responsive(pack, "No, Emberfox has to evolve first.", *ask)
    assert not responsive(pack, "No, not yet.", *ask)  # no unlock condition
    assert not responsive(pack, "Yes, go for it.", *ask)
    usable = ("can emberfox use flame burst", "skill/unlock")
    assert responsive(pack, "Yes, Flame Burst is unlocked on Emberfox.", *usable)
    assert not responsive(pack, "Flame Burst is locked.", *usable)


def test_inventory_about_focus_match_state_catalog_and_none(pack: Pack) -> None:
    assert responsive(
        pack, "You have Emberfox, Hexmoth and Tidefang.", "what creatures do i have", "inventory/list"
    )
    assert not responsive(pack, "You have a great collection.", "what creatures do i have", "inventory/list")
    assert responsive(pack, "It is a water striker.", "tell me about tidefang", "creature/info")  # property
    assert not responsive(pack, "Let me check that for you.", "tell me about tidefang", "creature/info")
    assert responsive(pack, "You lead 1-0 in round 2.", "what's the score", "match/score_check")
    assert not responsive(pack, "Keep it up!", "what's the score", "match/score_check")
    assert not responsive(pack, "Good question.", "what's the meta", "meta/tier_list")
    assert responsive(pack, "Hey! Ready when you are.", "hey coach", "smalltalk/greeting")


def test_something_else_needs_a_different_recommendation(pack: Pack) -> None:
    t = turn(pack, "something else", "lineup/build", index=1, state=snapshot(1))
    t.reference.expect = t.reference.expect.model_copy(update={"differ_from_previous": True})  # type: ignore[union-attr]
    before = ReplyEvidence(reply="Use Hexmoth.")
    assert not check_turn(pack, t, ReplyEvidence(reply="Use Hexmoth again."), before).responsive
    assert check_turn(pack, t, ReplyEvidence(reply="Try Galehawk instead."), before).responsive
    assert not check_turn(pack, t, ReplyEvidence(reply="Sure, here's another."), before).responsive


def test_every_phi_pair_has_a_family(pack: Pack) -> None:
    families = bench_data(pack).families
    assert set(families) == {f"{e.intent}/{e.sub_intent}" for e in pack.phi}


def test_bad_family_data_is_rejected_naming_file_and_entry(pack: Pack, tmp_path: object) -> None:
    from voicecoach.bench.coachbench.packdata import BenchData, _check

    raw = json.loads((PACKS_DIR / pack.pack_id / FILE).read_text(encoding="utf-8"))
    raw["families"]["lineup/build"] = "telepathy"
    with pytest.raises(PackError, match=r"coachbench.json: entry 'families/lineup/build': unknown family"):
        _check(BenchData.model_validate(raw), pack, "coachbench.json")
    raw["families"]["lineup/build"] = "pick_owned"
    raw["families"]["lineup/nonsense"] = "none"
    with pytest.raises(PackError, match="not a registered"):
        _check(BenchData.model_validate(raw), pack, "coachbench.json")
