"""The deterministic slot extractor: each cue word, the pack's vocabulary, earlier constraints.

Catalog facts used (pet_arena pack): Emberfox, Pyrowl (fire), Tidefang (water, learns Riptide),
Voltail (electric), Rockram (earth tank). The conftest state owns emberfox, galehawk, granitusk,
hexmoth, lumifawn, oakhorn, sparkwing, tidefang and faces briarcat / shellbastion / voltail.
"""

from __future__ import annotations

import pytest

from voicecoach.bench.slot_rules import reference_ids, slot_ids
from voicecoach.core.state import LiveState
from voicecoach.domain.pack import Pack, load_pack
from voicecoach.grounding.kernel import ground
from voicecoach.grounding.slot_rules import extract_slots
from voicecoach.grounding.slots import ANY_SKILL, AttributePref, GlobalConstraint, PickGroup, QuerySlots

PACK: Pack = load_pack()


def slots(text: str, state: LiveState | None = None, earlier: QuerySlots | None = None) -> QuerySlots:
    return extract_slots(PACK, text, state, earlier)


@pytest.mark.parametrize(
    "text",
    [
        "build me a team without emberfox",
        "no emberfox please",
        "not emberfox, someone else",
        "keep emberfox out of it",
        "leave emberfox out",
        "anyone except emberfox",
        "besides emberfox who is good",
        "i don't want emberfox in my lineup",
        # The negated wish ends on a want cue ("use"): the exclusion must still win.
        "i don't want to use emberfox",
        "i'd rather not use emberfox",
        "i won't play emberfox this time",
    ],
)
def test_exclude_cues(text: str) -> None:
    s = slots(text)
    assert s.excluded_entities == ["Emberfox"] and s.wanted_entities == []


def test_a_list_after_an_exclude_cue_is_excluded_whole() -> None:
    assert slots("a team without emberfox, pyrowl or tidefang").excluded_entities == [
        "Emberfox",
        "Pyrowl",
        "Tidefang",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "who do i bring against voltail",
        "how do i beat their voltail",
        "my team vs voltail",
        "they have voltail, what now",
        "voltail keeps beating me",
    ],
)
def test_opponent_cues(text: str) -> None:
    assert slots(text).opponent_entities == ["Voltail"]


def test_nearest_cue_wins_in_a_clause() -> None:
    s = slots("use my tidefang against their voltail")
    assert s.wanted_entities == ["Tidefang"] and s.opponent_entities == ["Voltail"]


def test_unmarked_mentions_use_the_match_context(state: LiveState) -> None:
    # Shellbastion is on the opponent's side and not owned; Tidefang is the player's.
    s = slots("shellbastion or tidefang, who wins", state)
    assert s.opponent_entities == ["Shellbastion"] and s.wanted_entities == ["Tidefang"]


@pytest.mark.parametrize("text", ["only water creatures", "water only please", "an all water team"])
def test_only_element_is_a_global_constraint(text: str) -> None:
    assert GlobalConstraint(kind="element_only", value="water") in slots(text).global_constraints


def test_no_element_is_an_element_avoid() -> None:
    assert slots("no fire this time").attribute_prefs == [
        AttributePref(attribute="element", value="fire", op="avoid")
    ]


def test_every_pack_style_word_is_a_style_pref() -> None:
    for style, words in PACK.vocabulary.styles.items():
        for word in words.words:
            assert style in slots(f"give me something {word}").style_prefs, (style, word)


def test_role_words_need_a_cue_and_bind_to_the_creature_described() -> None:
    assert AttributePref(attribute="role", value="tank") in slots("i need a tank").attribute_prefs
    assert (
        AttributePref(attribute="role", value="support", op="avoid") in slots("no supports").attribute_prefs
    )
    assert (
        AttributePref(entity="Rockram", attribute="role", value="tank")
        in slots("is rockram a tank").attribute_prefs
    )
    assert slots("what does a healer do").attribute_prefs == []


def test_a_skill_is_a_pref_on_the_creature_that_learns_it() -> None:
    s = slots("can my tidefang use riptide yet")
    assert s.attribute_prefs == [AttributePref(entity="Tidefang", attribute="skill", value="Riptide")]
    assert s.wanted_entities == ["Tidefang"]
    assert slots("without riptide").attribute_prefs[0].op == "avoid"


def test_swap_out_a_creatures_skill_changes_the_skill_not_the_creature() -> None:
    s = slots("swap out emberfox's skill")
    assert s.attribute_prefs == [
        AttributePref(entity="Emberfox", attribute="skill", value=ANY_SKILL, op="avoid")
    ]
    assert s.excluded_entities == []


def test_team_size_rarity_and_pick_groups() -> None:
    assert GlobalConstraint(kind="max_size", value=3) in slots("three pets max").global_constraints
    assert GlobalConstraint(kind="min_size", value=4) in slots("at least 4 creatures").global_constraints
    assert GlobalConstraint(kind="max_rarity", value="rare") in slots("nothing above rare").global_constraints
    s = slots("bring two of emberfox, pyrowl and tidefang")
    assert s.n_pick_k_swap_group == [PickGroup(pool=["Emberfox", "Pyrowl", "Tidefang"], pick=2)]
    assert s.wanted_entities == []


def test_a_no_far_before_a_name_or_a_why_not_keeps_nothing_out() -> None:
    said = "i've got training stuff saved up, like not a ton, and i was thinking either lumifawn or tidefang"
    assert slots(said).excluded_entities == []
    assert slots("why them and not emberfox").excluded_entities == []
    assert slots("a team but definitely not the slow emberfox").excluded_entities == ["Emberfox"]


def test_earlier_excludes_carry_over_until_asked_back() -> None:
    first = slots("a team without emberfox")
    second = slots("and no pyrowl either", earlier=first)
    assert second.excluded_entities == ["Emberfox", "Pyrowl"]
    third = slots("actually bring emberfox back", earlier=second)
    assert third.excluded_entities == ["Pyrowl"] and third.wanted_entities == ["Emberfox"]


def test_naming_a_creature_kept_out_does_not_bring_it_back() -> None:
    """'Gloomlet just levelled up, when should I use Shadow Step?' after 'no Gloomshell either'
    asks about the creature; the next team still leaves it out."""
    first = slots("build me a team, and no gloomshell")
    for text in ("gloomlet just levelled up when should i use shadow step", "what does gloomshell do"):
        assert slots(text, earlier=first).excluded_entities == ["Gloomshell"], text
    assert slots("ok add gloomshell again", earlier=first).excluded_entities == []


def test_rule_slots_ground_cleanly(state: LiveState) -> None:
    text = "without emberfox, who beats their voltail with riptide on tidefang"
    c2 = ground(slots(text, state), state, PACK, "lineup", "counter", utterance=text)
    assert c2.dropped == () and not [c for c in c2.conflicts if c.kind.startswith("unknown")]
    assert {c.constraint for c in c2.conflicts} >= {
        "excludes:emberfox",
        "counter:voltail",
        "skill:riptide@tidefang",
    }


def test_reference_truth_and_slot_ids() -> None:
    truth = reference_ids(PACK, ["emberfox", "voltail", "riptide"], ["pyrowl"], ["voltail"])
    assert truth == {
        "wanted": {"emberfox"},
        "excluded": {"pyrowl"},
        "opponent": {"voltail"},
        "skills": {"riptide"},
    }
    got = slot_ids(
        PACK,
        QuerySlots(wanted_entities=["Emberfox"], n_pick_k_swap_group=[PickGroup(pool=["Pyrowl"], pick=1)]),
    )
    assert got["wanted"] == {"emberfox", "pyrowl"}


# --- a pack with its own kinds (tests/toy_pack.py): the rules work by role -----------------------


def test_units_options_and_team_sizes_of_a_schema_pack(toy: Pack) -> None:
    got = extract_slots(toy, "build a comp with Vanta and Longshot but no Bulwark, a comp of 2")
    assert got.wanted_entities == ["Vanta"] and got.excluded_entities == ["Bulwark"]
    # The option fills W2's attribute named after the option kind, on the unit named with it that has it.
    assert got.attribute_prefs == [AttributePref(entity="Vanta", attribute="item", value="Longshot")]
    assert got.global_constraints == [GlobalConstraint(kind="min_size", value=2)]  # the comp's noun
    sized = extract_slots(toy, "a 2-hero team against Vanta")
    assert sized.global_constraints == [GlobalConstraint(kind="min_size", value=2)]  # the hero's noun
    assert sized.opponent_entities == ["Vanta"]
    assert slot_ids(toy, got) == {
        "wanted": {"vanta"}, "excluded": {"bulwark"}, "opponent": set(), "skills": {"longshot"}
    }  # fmt: skip
    # "Swap out Vanta's loadout": change the option (the item kind's noun), keep the hero.
    swap = extract_slots(toy, "swap out Vanta's loadout")
    assert swap.wanted_entities == ["Vanta"] and swap.excluded_entities == []
    assert swap.attribute_prefs == [
        AttributePref(entity="Vanta", attribute="item", value=ANY_SKILL, op="avoid")
    ]
    # The hero's ordered attribute (difficulty) gives a max_<attribute> constraint, as rarity does pet's.
    ordered = extract_slots(toy, "nothing above medium, I need a striker")
    assert ordered.global_constraints == [GlobalConstraint(kind="max_difficulty", value="medium")]
    assert ordered.attribute_prefs == [AttributePref(attribute="role", value="striker")]


def test_an_unowned_hero_on_their_side_is_the_opponent_by_the_collection(toy: Pack) -> None:
    from voicecoach.core.state import load_state

    state = load_state({
        "fs": {"collection": {"units": [{"id": "vanta", "level": 6}]}},
        "ic": {"match": {"round": 1, "player_lineup": ["vanta"], "opponent_lineup": ["vanta", "bulwark"]}},
    })  # fmt: skip
    got = extract_slots(toy, "what about Bulwark and Vanta", state)
    assert got.opponent_entities == ["Bulwark"] and got.wanted_entities == ["Vanta"]
    assert reference_ids(toy, ["bulwark", "longshot", "harbor_point"], [], ["bulwark"]) == {
        "wanted": set(), "excluded": set(), "opponent": {"bulwark"}, "skills": {"longshot"}
    }  # fmt: skip


def test_a_unit_only_they_field_is_never_wanted(state: LiveState) -> None:
    # "for Briarcat" reads as a wish, but the player owns no Briarcat and they field one: a foe.
    got = slots("who should come out of my team for briarcat", state)
    assert got.opponent_entities == ["Briarcat"] and got.wanted_entities == []
    # A unit the player owns stays a wish, whoever else fields it.
    assert slots("who should come out of my team for tidefang", state).wanted_entities == ["Tidefang"]
