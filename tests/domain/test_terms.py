"""A game word asked the meaning of (domain/terms.py): read from the pack's vocabulary and schema."""

from __future__ import annotations

import pytest

from voicecoach.domain.pack import load_pack
from voicecoach.domain.terms import Term, asked_term


@pytest.mark.parametrize(
    ("pack_id", "text", "term"),
    [
        ("pet_arena", "Sorry, what's an element?", Term("type", "element")),
        ("pet_arena", "what do you mean by support", Term("role", "support")),
        ("pet_arena", "what does a glass cannon do", Term("role", "striker")),  # a role word, not its key
        ("pet_arena", "ok explain tempo", Term("style", "tempo")),
        ("strike_team", "what did you mean by poke?", Term("style", "poke")),
        ("strike_team", "whats a dive comp", Term("style", "dive")),
        ("strike_team", "what are tanks", Term("role", "tank")),
        ("strike_team", "What mean poke comp?", Term("style", "poke")),  # a learner's English
        ("strike_team", "how many maps are there", Term("catalog", "map")),  # the whole kind
        ("strike_team", "did they add new heroes", Term("catalog", "hero")),
        ("pet_arena", "what pets are in the game", Term("catalog", "creature")),
    ],
)
def test_a_word_of_the_packs_asked_about_is_the_term(pack_id: str, text: str, term: Term) -> None:
    assert asked_term(load_pack(pack_id), text) == term


@pytest.mark.parametrize(
    ("pack_id", "text"),
    [
        ("strike_team", "what's the range"),  # a question about something ("the"), not a word
        ("strike_team", "what's a good poke comp for this map"),  # a pick, asked
        ("strike_team", "what does Dumaka do"),  # a unit, not a word
        ("pet_arena", "what is their tank"),
        ("pet_arena", "what's the best element against water"),
        ("strike_team", "what heroes are on their team"),  # one side's, not the game's
        ("pet_arena", "how many creatures do i have"),
    ],
)
def test_questions_that_use_a_word_are_not_asking_what_it_means(pack_id: str, text: str) -> None:
    assert asked_term(load_pack(pack_id), text) is None


@pytest.mark.parametrize(
    ("text", "word"), [("whats a perk", "perk"), ("whats a breakthrough map", "breakthrough")]
)
def test_a_word_a_rule_of_the_game_uses_is_explained_by_that_rule(text: str, word: str) -> None:
    term = asked_term(load_pack("strike_team"), text)
    assert term is not None and term.kind == "rule" and word in term.key
