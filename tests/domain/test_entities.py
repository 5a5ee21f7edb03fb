"""Entity linking over raw STT-style utterances."""

from __future__ import annotations

import pytest

from voicecoach.core.state import IntentContext
from voicecoach.domain.entities import Mention, focus_fields, link_entities
from voicecoach.domain.pack import Pack


def _ids(pack: Pack, text: str) -> list[tuple[str, str]]:
    return [(m.kind, m.id) for m in link_entities(pack, text)]


def test_links_each_kind_with_spans(pack: Pack) -> None:
    text = "Should Emberfox use Flame Burst on water types, or do I run T3?"
    mentions = link_entities(pack, text)
    assert [(m.kind, m.id) for m in mentions] == [
        ("creature", "emberfox"),
        ("skill", "flame_burst"),
        ("element", "water"),
        ("lineup", "T3"),
    ]
    for m in mentions:
        assert text[m.span[0] : m.span[1]] == m.surface
    assert mentions[1] == Mention(id="flame_burst", kind="skill", surface="Flame Burst", span=(20, 31))


def test_stt_lowercase_without_punctuation(pack: Pack) -> None:
    text = "what counters briarcat and shellbastion with my oakhorn using bramble crush"
    assert _ids(pack, text) == [
        ("creature", "briarcat"),
        ("creature", "shellbastion"),
        ("creature", "oakhorn"),
        ("skill", "bramble_crush"),
    ]


@pytest.mark.parametrize("word", ["emberfoxes", "Emberfoxs", "EMBERFOX", "emberfox's"])
def test_plural_case_and_possessive_variants(pack: Pack, word: str) -> None:
    assert _ids(pack, f"are {word} good") == [("creature", "emberfox")]


def test_longest_multi_word_name_wins(pack: Pack) -> None:
    # "second wind" is a skill that contains the element "wind"; "wildfire rush" contains "fire"
    # only inside a word, which must not match at all.
    assert _ids(pack, "use second wind then wildfire rush") == [("skill", "second_wind"), ("lineup", "T1")]


def test_ids_stage_names_and_flexible_separators(pack: Pack) -> None:
    assert _ids(pack, "ember_fang or ember-fang or ember  fang") == [("skill", "ember_fang")] * 3
    assert _ids(pack, "when does my tidepup become tsunafang") == [("creature", "tidefang")] * 2


def test_word_boundaries_prevent_partial_matches(pack: Pack) -> None:
    assert _ids(pack, "fireworks and earthly delights at t10x") == []


def test_no_mentions(pack: Pack) -> None:
    assert link_entities(pack, "what should i do now") == []
    assert focus_fields([], pack) == {
        "entity_links": [],
        "mentioned_creatures": [],
        "focus_creature": None,
        "focus_skill": None,
    }


def test_focus_fields_match_intent_context(pack: Pack) -> None:
    mentions = link_entities(
        pack, "does fire beat oakhorn if emberfox has inferno roar and oakhorn has bark skin"
    )
    fields = focus_fields(mentions, pack)
    assert fields == {
        "entity_links": ["fire", "oakhorn", "emberfox", "inferno_roar", "bark_skin"],
        "mentioned_creatures": ["oakhorn", "emberfox"],
        "focus_creature": "oakhorn",
        "focus_skill": "inferno_roar",
    }
    assert IntentContext(**fields).focus_creature == "oakhorn"  # the fields fit the state model


def test_stt_split_compound_names(pack: Pack) -> None:
    # Whisper writes invented compounds as two words; they must still link.
    ids = [m.id for m in link_entities(pack, "can gale hawk use tempest fury yet spark wing")]
    assert ids == ["galehawk", "tempest_fury", "sparkwing"]
    # Short words never split: "wind" is the element, not a fragment of a longer name.
    assert [m.id for m in link_entities(pack, "is wind any good")] == ["wind"]


# --- a pack with its own kinds (tests/toy_pack.py): link order, aliases, nouns and verbs ----------


def test_a_schema_pack_links_its_own_kinds_and_aliases(toy: Pack) -> None:
    text = "should V run Longshot on Harbor Point or do we go Dive with Wall"
    assert _ids(toy, text) == [
        ("hero", "vanta"),  # a callsign: the kind's `aliases`
        ("item", "longshot"),
        ("map", "harbor_point"),
        ("comp", "dive"),
        ("hero", "bulwark"),
    ]


def test_focus_fields_of_a_collection_pack_are_kind_keyed_and_legacy(toy: Pack, pack: Pack) -> None:
    mentions = link_entities(toy, "Bulwark or Vanta with Longshot on Harbor Point")
    fields = focus_fields(mentions, toy)
    assert fields["focus"] == {"hero": "bulwark", "item": "longshot", "map": "harbor_point"}
    mentioned = {"hero": ["bulwark", "vanta"], "item": ["longshot"], "map": ["harbor_point"]}
    assert fields["mentioned"] == mentioned
    # The legacy fields from the unit and option kinds, so a reader of ic.focus_creature still works.
    assert (fields["focus_creature"], fields["focus_skill"]) == ("bulwark", "longshot")
    assert fields["mentioned_creatures"] == ["bulwark", "vanta"]
    assert IntentContext(**fields).focus["map"] == "harbor_point"
    # A classic pack keeps pet's wire format: no kind-keyed fields.
    pet = link_entities(pack, "can Emberfox use Ember Fang")
    assert "focus" not in focus_fields(pet, pack)


def test_a_session_of_a_collection_pack_snapshots_the_kind_keyed_focus(toy: Pack) -> None:
    from voicecoach.coach.session import Session
    from voicecoach.domain.view import StateView

    turn = Session("s-toy", toy).begin_turn("is V any good on Harbor Point")
    ic = turn.snapshot.ic
    assert ic.focus == {"hero": "vanta", "map": "harbor_point"} and ic.focus_creature == "vanta"
    view = StateView(toy, turn.snapshot)
    assert (view.focus("hero"), view.mentioned("map")) == ("vanta", ["harbor_point"])
