"""A pronoun that stands for a thing the last exchange named (voicecoach.perception.references),
on both real packs: the words around it say which kind, the player's question before the coach's
answer, and idioms, dummy subjects and conjunctions are left alone."""

from __future__ import annotations

import pytest

from voicecoach.domain.pack import Pack, load_pack
from voicecoach.perception.references import resolve_place, resolve_reference, resolve_which

PET = load_pack("pet_arena")
STRIKE = load_pack("strike_team")
PET_TOP = ["which of my pets has the highest level", "Oakhorn is your heaviest hitter, at stage 2."]


@pytest.mark.parametrize(
    ("pack", "previous", "text", "read"),
    [
        # the thing the player asked about
        (PET, ["what does tide slap do", "Tide Slap is an attack move."], "who has it", "who has Tide Slap"),
        (STRIKE, ["what does the spotter drone do", "A drone."], "whose is that", "whose is Spotter Drone"),
        (
            STRIKE,
            ["what unlocks the dome projector", "Your Brannoc is hero level 13."],
            "how far am i from that",
            "how far am i from Dome Projector",
        ),
        # the coach's answer, when the question named no thing of that kind
        (
            STRIKE,
            ["what's next for Stellan", "Next for your Stellan is Slow Burn, at hero level 5."],
            "what does that do",
            "what does Slow Burn do",
        ),
        (
            PET,
            ["whats next for galehawk", "Evolve Galehawk into Galeraptor next: that unlocks Tempest Fury."],
            "and what would that new move do",
            "and what would Tempest Fury do",
        ),
        # a kind's noun elsewhere rules that kind out; a unit's verb asks for a unit
        (PET, PET_TOP, "what moves does it have right now", "what moves does Oakhorn have right now"),
        (
            STRIKE,
            ["when do i unlock bexley", "You get Bexley at account level 11."],
            "who would that replace in my comp",
            "who would Bexley replace in my comp",
        ),
        (PET, ["is galehawk ready", "Yes."], "can it use Tempest Fury", "can Galehawk use Tempest Fury"),
        # not references: idioms, a dummy subject, conjunctions and relatives, "this" is now
        (PET, PET_TOP, "if that makes sense, who should i bring", None),
        (PET, PET_TOP, "we won that one", None),
        (PET, PET_TOP, "is it worth levelling Hexmoth", None),
        (PET, PET_TOP, "I need a pet that hits hard", None),
        (PET, PET_TOP, "how do we turn it around", None),
        (PET, PET_TOP, "would swapping to Tidefang fix that", None),
        (STRIKE, ["is Renzo good on Skerry Lighthouse", "A poor pick."], "what's strong on this map", None),
        # named in this sentence, before a new clause: the pronoun is that one
        (
            PET,
            PET_TOP,
            "prismite just came in on their side how do i beat that",
            "prismite just came in on their side how do i beat Prismite",
        ),
    ],
)
def test_a_pronoun_names_the_thing_the_last_exchange_was_about(
    pack: object, previous: list[str], text: str, read: str | None
) -> None:
    assert resolve_reference(pack, text, previous) == (read or text)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("and who's bad there", "and who's bad on Fathom Docks"),
        ("is renzo good in there?", "is renzo good on Fathom Docks?"),
        ("is there a counter to renzo", None),  # "there is": nothing refers back
        ("what's good there on saltmarsh depot", None),  # the sentence names its place
    ],
)
def test_there_is_the_place_the_last_exchange_named(text: str, read: str | None) -> None:
    previous = ["what kind of map is fathom docks", "Fathom Docks is three piers over open water."]
    assert resolve_place(STRIKE, text, previous) == (read or text)
    assert resolve_place(PET, text, previous) == text  # a pack without places


# --- the verb or noun says the kind (pet_arena, and a pack with its own kinds: tests/toy_pack.py) ---


@pytest.mark.parametrize(
    ("previous", "text", "read"),
    [
        ("what does Riptide do?", "how do I unlock it?", "how do I unlock Riptide?"),  # a skill verb
        ("can Tidefang use Riptide?", "how do I evolve it?", "how do I evolve Tidefang?"),  # a creature verb
        ("can Tidefang use Riptide?", "what does it do", "what does Riptide do"),  # the skill first
        ("is Tidefang any good?", "is it worth it", "is Tidefang worth it"),  # only the first pronoun
        ("what about Emberfox", "what beats that pet", "what beats Emberfox"),
        ("is Tidefang any good?", "how do I close it out", "how do I close it out"),  # an idiom: no referent
        ("what does Riptide do?", "who do I field with it", "who do I field with it"),  # no creature before
        (
            "what does Riptide do?",
            "can Emberfox use it",
            "can Emberfox use Riptide",
        ),  # a creature named: "it" is the skill
        ("what does Riptide do?", "can Emberfox use Tidal Wave", "can Emberfox use Tidal Wave"),  # no pronoun
        (None, "how do I unlock it", "how do I unlock it"),  # nothing heard before
    ],
)
def test_a_pronoun_names_what_the_last_turn_named(
    pack: Pack, previous: str | None, text: str, read: str
) -> None:
    assert resolve_reference(pack, text, previous) == read


@pytest.mark.parametrize(
    ("previous", "text", "read"),
    [
        ("is Vanta good with Longshot", "how do I equip it", "how do I equip Longshot"),  # the item's verb
        ("is Vanta good with Longshot", "should I bring that hero", "should I bring Vanta"),  # its noun
        ("is Vanta good with Longshot", "what does it do", "what does Longshot do"),  # the option first
        (
            "is Vanta good with Longshot",
            "what does Longshot do with it",
            "what does Longshot do with Vanta",
        ),  # "with" asks for a hero: the option named is not the referent
        ("is Vanta good with Longshot", "is that comp good", "is that comp good"),  # no comp before
        ("what about Dive", "is that comp good", "is Dive good"),  # the comp's noun
        ("what about Dive", "should I field it", "should I field it"),  # a unit's verb, no hero before
    ],
)
def test_a_pronoun_refers_by_the_schemas_nouns_and_verbs(
    toy: Pack, previous: str, text: str, read: str
) -> None:
    assert resolve_reference(toy, text, previous) == read


@pytest.mark.parametrize(
    ("previous", "text", "read"),
    [
        (
            [
                "what moves does my oakhorn have",
                "Your Oakhorn can use Bark Skin, Thicket Wall and Bramble Crush.",
            ],
            "which one hits hardest",
            "which skill of Oakhorn hits hardest",
        ),
        (
            ["what are tidefang and granitusk weak to", "Tidefang is water."],
            "hmm which of them should i level first",
            "hmm which of Tidefang and Granitusk should i level first",
        ),
        (["what does tide slap do", "A slap of seawater."], "which one is better", None),  # one thing named
        (["what do we run", "Run Emberfox, Oakhorn and Sparkwing."], "which of them should we focus", None),
        (["what moves does oakhorn have", "Bark Skin and Thicket Wall."], "which one beats Voltail", None),
    ],
)
def test_which_one_chooses_among_what_the_last_exchange_listed(
    previous: list[str], text: str, read: str | None
) -> None:
    assert resolve_which(PET, text, previous) == (read or text)


def test_a_pronoun_in_a_foes_place_takes_one_of_theirs_first() -> None:
    previous = ["would lumifawn do better against voltail", "Against Voltail, Lumifawn deals double damage."]
    theirs = {"voltail"}.__contains__
    read = resolve_reference(PET, "who should come out of my team for that", previous, theirs)
    assert read == "who should come out of my team for Voltail"
    # without a foe's word before it, the question's first creature
    assert resolve_reference(PET, "can it evolve", previous, theirs) == "can Lumifawn evolve"


def test_its_is_the_unit_the_last_exchange_was_about_unless_this_sentence_names_one() -> None:
    from voicecoach.domain.pack import load_pack
    from voicecoach.perception.references import resolve_reference

    pack = load_pack("pet_arena")
    before = ["tell me about tidefang", "Tidefang is a common water striker."]
    assert resolve_reference(pack, "what about its skills", before) == "what about Tidefang's skills"
    assert (
        resolve_reference(pack, "does oakhorn have its last stage", before)
        == "does oakhorn have its last stage"
    )


def test_a_list_the_coach_said_is_not_what_it_stands_for() -> None:
    from voicecoach.domain.pack import load_pack
    from voicecoach.perception.references import resolve_reference, resolve_which

    pack = load_pack("pet_arena")
    said = [
        "whats Briarcat got",
        "Briarcat is a common grass striker."
        " It learns Vine Lash, Thorn Volley, Bramble Crush and Worldroot Slam.",
    ]
    assert (
        resolve_reference(pack, "could it one shot my Emberfox", said)
        == "could Briarcat one shot my Emberfox"
    )
    # "Which of those two" is not a list of four.
    assert (
        resolve_which(pack, "ok which of those two do i do first", said)
        == "ok which of those two do i do first"
    )


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # What is put in against a foe is the unit of the last exchange, not a skill its answer listed.
        (
            "is it worth putting in against voltail though",
            "is Lumifawn worth putting in against voltail though",
        ),
        ("is it worth putting time into hexmoth", None),  # Hexmoth is what "it" is about
    ],
)
def test_it_put_in_against_a_foe_is_the_last_unit(text: str, read: str | None) -> None:
    previous = [
        "my lumifawn only has two moves",
        "Your Lumifawn can use Gentle Light and Radiant Peck now. Sanctuary is still locked on Lumifawn.",
    ]
    assert resolve_reference(PET, text, previous) == (read or text)
