"""The lexicon repair: misheard names put back, ordinary speech and exact names left alone."""

from __future__ import annotations

import time

import pytest

from voicecoach.bench.coachbench.generator import generate
from voicecoach.bench.dialogue import load_suite
from voicecoach.bench.lexicon import clean_phrases, misheard_phrases, names_right
from voicecoach.core.latency import percentile
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import load_pack
from voicecoach.perception.lexicon import Lexicon, ordinary, repair, suggest

PACKS = ("pet_arena", "strike_team")


@pytest.fixture(scope="module")
def pet() -> Lexicon:
    return Lexicon.of(load_pack("pet_arena"))


@pytest.mark.parametrize(
    "text",
    [
        "do I drop them now?",  # Dewdrop
        "who on my team isnt pulling their weight",  # Tamsin ("team isnt": no apostrophe)
        "who should go first in?",  # Frostfin
        "should I centre my team on defence?",  # Cindermaw
        "list the skills of galehawk",  # one ordinary word is that word, not Skyfall
        "is my team any good against them?",
    ],
)
def test_ordinary_speech_is_never_rewritten(pet: Lexicon, text: str) -> None:
    assert repair(pet, text) == repair(pet, text, recent=("How do I beat Tidal Wall?",))
    assert repair(pet, text).text == text
    assert repair(pet, text).changes == []


def test_a_related_name_does_not_lower_the_bar_for_a_shorter_name(pet: Lexicon) -> None:
    # Tidal Wall is the lineup Frostfin and Dewdrift play in: both are related to it.
    assert repair(pet, "who should go first in?", recent=["How do I beat Tidal Wall?"]).changes == []


@pytest.mark.parametrize(
    ("heard", "recent", "names"),
    [
        ("Should I use Infernal War with Ember Fox?", (), ["Inferno Roar"]),
        ("It evolved, when should I use Gale by?", ("How do I evolve Gale Hawk?",), ["Gale Dive"]),
        ("Kimbriercat, Useworld, Rootsland,", (), ["Briarcat", "Worldroot Slam"]),
        ("Kengale, Hawke use Tempest Fury yet.", (), ["Galehawk"]),
        ("Should I get new crawler for this fight?", (), ["Dunecrawler"]),
        # ordinary words, the name's but one, and that one sounds the same (metaphone HKS)
        ("whats nightmare hacks", (), ["Nightmare Hex"]),
    ],
)
def test_misheard_names_are_put_back(
    pet: Lexicon, heard: str, recent: tuple[str, ...], names: list[str]
) -> None:
    repaired = repair(pet, heard, recent)
    assert [name for _, name in repaired.changes] == names
    assert all(raw in heard for raw, _ in repaired.changes)
    assert all(name in repaired.text for name in names)


def test_a_rare_word_alone_is_a_name_it_sounds_like() -> None:
    """ "nadia" (a first name in the word list) is Nadira; a part of a longer name is not the name
    ("launcher" of Pipe Launcher)."""
    strike = Lexicon.of(load_pack("strike_team"))
    assert repair(strike, "is nadia unlockable for me yet").changes == [("nadia", "Nadira")]
    # its possessive stays where it was said
    assert repair(strike, "what does nadia's grenade do").text == "what does Nadira's grenade do"
    assert repair(strike, "how do i unlock fenwick's second launcher").changes == []


def test_a_word_common_in_its_us_spelling_is_no_name_word() -> None:
    """ "does Wendell's armour do anything": "armour do" is no Armour Pack ("armor" is common)."""
    strike = Lexicon.of(load_pack("strike_team"))
    assert repair(strike, "does wendell's armour do anything against snipers").changes == []


def test_the_second_pass_needs_a_related_name_heard(pet: Lexicon) -> None:
    assert repair(pet, "When should I use Gale by?").changes == []
    assert repair(pet, "When should I use Gale by?", ["Sparkwing is out"]).changes == []  # not its skill
    repaired = repair(pet, "When should I use Gale by?", ["Galehawk is out"])
    assert repaired.text == "When should I use Gale Dive?"


def test_a_name_never_opens_or_closes_on_a_joining_word() -> None:
    """ "Pax mines or turret": two of Paxton's items offered; "or turret" is no Sentry Turret."""
    strike = Lexicon.of(load_pack("strike_team"))
    repaired = repair(strike, "pax mines or turret here", ["should paxton play"])
    assert all(" or " not in f" {raw} " for raw, _ in repaired.changes), repaired
    assert " or " in repaired.text, repaired


def test_a_span_that_links_exactly_is_kept(pet: Lexicon) -> None:
    # "gale hawk" links (Whisper's split of Galehawk); "ember fox" too: neither is rewritten.
    for text in (
        "Can Gale Hawk use Tempest Fury?",
        "Does Dunecrawler have tremor lock yet?",
        "use ember fox",
    ):
        assert link_entities(pet.pack, text)
        assert repair(pet, text).changes == []


def test_an_ordinary_word_with_an_ending_the_list_lacks_is_not_a_name() -> None:
    strike = Lexicon.of(load_pack("strike_team"))
    assert repair(strike, "too squishy, something tankier").changes == []  # not Tannery
    assert ordinary("tankier") and ordinary("squishiest")


def test_ordinary_knows_british_spellings() -> None:
    assert ordinary("centre") and ordinary("colour") and ordinary("the")
    assert not ordinary("kimbriercat") and not ordinary("dunecrawler")


def test_the_lexicon_is_built_once_per_pack(pet: Lexicon) -> None:
    assert Lexicon.of(pet.pack) is pet
    assert Lexicon.of(load_pack("strike_team")) is not pet
    texts = {n.text for n in pet.names}
    assert {"Gale Dive", "Dunecrawler", "Infernofox"} <= texts  # a skill, a creature, a stage name
    assert "Kindle" not in texts  # an ordinary word: STT spells it
    assert "gale_dive" in pet.related["galehawk"] and "galehawk" in pet.related["gale_dive"]


@pytest.mark.parametrize("pack_id", PACKS)
def test_no_false_rewrite_over_every_clean_phrase(pack_id: str) -> None:
    """CI's regression test: paraphrases, Φ examples, CoachBench, the dialogue suite and the
    fixtures' references, each repaired alone, change nothing; and a p50 within 3 ms."""
    lexicon = Lexicon.of(load_pack(pack_id))
    phrases = clean_phrases(lexicon.pack)
    assert len(phrases) > 2500
    sources = {"paraphrases", "phi", "coachbench", "dialogue_suite", "fixtures"}
    assert {source for source, _ in phrases} == sources
    times, rewritten = [], []
    for source, text in phrases:
        started = time.perf_counter()
        repaired = repair(lexicon, text)
        times.append((time.perf_counter() - started) * 1000)
        if repaired.changes:
            rewritten.append((source, text, repaired.changes))
    assert rewritten == []
    assert percentile(times, 50) <= 3.0


@pytest.mark.parametrize("pack_id", PACKS)
def test_no_false_rewrite_in_conversation(pack_id: str) -> None:
    """The CoachBench sessions and the dialogue suite turn by turn, each with the two before it as
    `recent`: the second pass's lower bar on related names rewrites nothing either."""
    pack = load_pack(pack_id)
    lexicon = Lexicon.of(pack)
    clean = {text for _, text in clean_phrases(pack)}
    talks = [[t.utterance for t in s.turns] for s in generate(pack=pack)]
    talks += [[t.say for t in d.turns] for d in load_suite(pack_id).sessions]
    rewritten = [
        (talk[i], repair(lexicon, talk[i], talk[max(0, i - 2) : i]).changes)
        for talk in talks
        for i in range(len(talk))
        if talk[i] in clean
    ]
    assert len(rewritten) > 1000
    assert [r for r in rewritten if r[1]] == []


@pytest.mark.parametrize("pack_id", PACKS)
def test_the_packs_deliberate_mishearings_are_repaired(pack_id: str) -> None:
    pack = load_pack(pack_id)
    lexicon = Lexicon.of(pack)
    cases = misheard_phrases(pack)
    assert cases
    for text, form, entity_id in cases:
        repaired = repair(lexicon, text)
        assert [raw.lower() for raw, _ in repaired.changes] == [form], text
        assert entity_id in {m.id for m in link_entities(pack, repaired.text)}, text


def test_names_right_counts_the_references_names() -> None:
    pack, said = load_pack("pet_arena"), "Can Briarcat use Worldroot Slam?"
    assert names_right(pack, said, "Kimbriercat, Useworld, Rootsland,") == (0, 2)
    assert names_right(pack, said, "Can Briar Cat use Worldroot Slam") == (2, 2)
    assert names_right(pack, "How do I beat their water team?", "How do I beat their water team?") == (0, 0)


@pytest.mark.parametrize(
    ("text", "raw", "name"),
    [
        ("tell me about hexmoff", "hexmoff", "Hexmoth"),  # a word no one says: near one name
        ("what level does ember folks evolve", "ember folks", "Emberfox"),  # a rare word it starts with
    ],
)
def test_a_name_near_but_short_of_the_bar_is_suggested(pet: Lexicon, text: str, raw: str, name: str) -> None:
    assert not repair(pet, text).changes
    suggested = suggest(pet, text)
    assert suggested is not None and (suggested[0], suggested[1].text) == (raw, name)


@pytest.mark.parametrize(
    "text",
    [
        "what counters zorblax",  # made up: near no name more than another
        "who goes in the back",  # ordinary words near Thornback
        "is their comp any good",  # players' words the list lacks
        "theyre running a tank team",  # a contraction without its apostrophe
    ],
)
def test_ordinary_speech_and_made_up_names_get_no_suggestion(pet: Lexicon, text: str) -> None:
    assert suggest(pet, text) is None


@pytest.mark.parametrize("pack_id", PACKS)
def test_no_suggestion_over_every_clean_phrase(pack_id: str) -> None:
    """A "Did you mean …?" on a phrase the player said right would be a question they must answer
    for nothing: none over every clean phrase of the pack."""
    lexicon = Lexicon.of(load_pack(pack_id))
    asked = [(s, t, suggest(lexicon, t)) for s, t in clean_phrases(lexicon.pack)]
    assert [a for a in asked if a[2] is not None] == []
