"""Reading a turn in its dialogue (voicecoach.perception.dialogue), on both real packs.

Each case is a short dialogue on the pack's example state: the exchanges heard so far, what the
player says now, and the question it must be read as (names, not pronouns or descriptions).
"""

from __future__ import annotations

import json

import pytest

from voicecoach.core.state import LiveState, load_state
from voicecoach.domain.pack import Pack, example_state_path, load_pack
from voicecoach.perception.dialogue import Exchange, read_turn


def _example(pack_id: str) -> tuple[Pack, LiveState]:
    return load_pack(pack_id), load_state(json.loads(example_state_path(pack_id).read_text()))


PET = _example(
    "pet_arena"
)  # player fields Emberfox, Oakhorn, Sparkwing; they field Briarcat, Shellbastion, Voltail
STRIKE = _example("strike_team")  # they field Brannoc, Quillon, Tamsin, Nadira, Bexley

MATCHUP = Exchange("can my emberfox take their voltail", "Against Voltail, Emberfox deals normal damage.")
COUNTER = Exchange("how do I counter quillon", "Play Kasimir into Quillon: he closes the gap.")


@pytest.mark.parametrize(
    ("packed", "history", "said", "read"),
    [
        # references: the side the verb points to, the player's own named unit first
        (PET, [MATCHUP], "ok how do i beat him", "ok how do i beat Voltail"),
        (PET, [MATCHUP], "is he worth levelling", "is Emberfox worth levelling"),
        (PET, [MATCHUP], "what are his skills", "what are Emberfox's skills"),
        (STRIKE, [COUNTER], "is he unlocked for me", "is Kasimir unlocked for me"),
        (STRIKE, [COUNTER], "what does that guy do", "what does Quillon do"),
        # corrections re-ask the last question; never an exclusion
        (PET, [MATCHUP], "no wait, I meant oakhorn", "can my Oakhorn take their voltail"),
        (PET, [MATCHUP], "sorry, their briarcat", "can my emberfox take their Briarcat"),
        (
            STRIKE,
            [],
            "what's next for osmund's loadout - actually no, kasimir's",
            "what's next for Kasimir's loadout",
        ),
        (PET, [MATCHUP], "no, what does flame burst do", "what does flame burst do"),
        # follow-ups re-ask it about another entity
        (
            PET,
            [Exchange("is galehawk ready to evolve", "Not yet.")],
            "what about hexmoth?",
            "is Hexmoth ready to evolve",
        ),
        (STRIKE, [COUNTER], "and tamsin", "how do I counter Tamsin"),
        # descriptions: one unit on the side the words point to
        (PET, [], "how do i beat their electric one", "how do i beat their Voltail"),
        (PET, [], "what skills does the fire fox have", "what skills does Emberfox have"),
        (STRIKE, [], "how do I deal with their sniper", "how do I deal with their Quillon"),
        (STRIKE, [], "the shield guy on their side is annoying", "their Brannoc is annoying"),
        # not descriptions: a kind of unit, or a question that asks which is best
        (PET, [], "are my grass ones any use", "are my grass ones any use"),
        (STRIKE, [], "who's the best tank on my team", "who's the best tank on my team"),
        # nothing to refer back to: unchanged, for the coach to ask
        (PET, [], "how do i beat him", "how do i beat him"),
    ],
)
def test_a_turn_is_read_as_the_question_it_stands_for(
    packed: tuple[Pack, LiveState], history: list[Exchange], said: str, read: str
) -> None:
    pack, state = packed
    assert read_turn(pack, state, said, history).text == read


def test_a_pronoun_with_no_unit_on_its_side_takes_the_topic(pet: tuple[Pack, LiveState] = PET) -> None:
    pack, state = pet
    history = [Exchange("what about galehawk", "Galehawk is a common wind striker.")]
    assert read_turn(pack, state, "how do i beat him", history).text == "how do i beat Galehawk"


def test_two_units_fitting_a_description_are_left_for_the_coach_to_ask() -> None:
    pack, state = STRIKE
    # Two supports in the player's lineup (Elowen, Wendell): "my healer" is not this step's guess.
    assert read_turn(pack, state, "is my support doing ok", []).text == "is my support doing ok"
