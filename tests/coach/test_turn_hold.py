"""The text-aware hold: which transcripts end a turn at the VAD's stop, which hold it open."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from voicecoach.coach.speech_config import SpeechConfig
from voicecoach.coach.turn_hold import TurnHoldConfig, hold_s, read_turn

# A finished question or request: the coach answers it at once.
FINISHED = [
    "What skills does it have?",
    "It evolved! When should I use Gale Dive?",  # the last sentence asks
    "We took round one. Keep the same team?",
    "should i bring emberfox in",  # Whisper's flat reading, no question mark
    "Is that bad.",
    "Who's ahead.",
    "Can you turn the music down.",
    "Just tell me what to run.",  # an imperative after a discourse word
    "Build me a team of only fire creatures.",
    "What should I run? Give me something else.",
    "Only fire, but make sure Galehawk is in.",  # the last clause is the request
    "Not that one, give me another comp.",
    "Put a team together for me.",
    "Okay, let me know when he's up.",
    "I need a counter to their tank.",
    "A safer pick, please.",
    "Okay, bye coach.",  # a goodbye ends the turn
    "Yes.",  # a bare answer to the coach's "Did you mean ...?"
    "No, nope.",
    "Their turret keeps shredding us, who beats him.",  # the last clause asks
    "What's the difference between a tank and a support?",
    "Between the two of them, who wins?",
    "  Don't pick him.  ",
]
# A whole sentence that asks nothing: the question usually follows.
STATEMENTS = [
    "It evolved.",
    "It evolved!",
    "We took round one.",
    "Only fire.",
    "Galehawk just evolved.",
    "They brought in Skylancer.",
    "Final round, it's tied.",
    "Hi coach, I just started playing.",
    "Thanks coach, good game.",
    "Account level fifteen now.",
    "A poke comp, but Renzo stays in.",  # a particle is no open ending
    "Hi coach",  # no mark at all
    "Have fun.",  # "have" opens imperatives and statements too: a question only with its mark
    "Had a rough round.",
    "Gale Dive.",  # a name said alone (two words): a statement, not a fragment
]
# A clause that cannot end a turn.
UNFINISHED = [
    "Thanks coach,",
    "Hi coach,",
    "Only fire,",
    "So what should I run and",
    "Should I use Inferno Roar with the",
    "I was thinking about -",
    "Well...",
    "Let me think.",
    "Hold on.",
    "Wait, should I",
    "Teams.",  # one lone word: a fragment of what follows
    "They switched. Teams.",
    "Okay.",
    "um",
    "Uh, so.",
    "",
    "   ",
]


@pytest.mark.parametrize("text", FINISHED)
def test_a_finished_question_or_request_ends_the_turn_at_once(text: str) -> None:
    assert read_turn(text) == "finished"
    assert hold_s(text, TurnHoldConfig()) == 0.0


@pytest.mark.parametrize("text", STATEMENTS)
def test_a_statement_holds_the_turn_open_statement_s(text: str) -> None:
    assert read_turn(text) == "statement"
    assert hold_s(text, TurnHoldConfig(statement_s=0.45)) == 0.45


@pytest.mark.parametrize("text", UNFINISHED)
def test_an_unfinished_clause_holds_the_turn_open_unfinished_s(text: str) -> None:
    assert read_turn(text) == "unfinished"
    assert hold_s(text, TurnHoldConfig(unfinished_s=0.65)) == 0.65


def test_the_turn_so_far_is_read_whole_the_last_sentence_decides() -> None:
    # Segments joined as the strategy joins them: the first half held, the whole ended.
    assert read_turn("Thanks coach,") == "unfinished"
    assert read_turn("Thanks coach, what should I run now?") == "finished"
    assert read_turn("What should I run? We lost round one.") == "statement"


def test_disabled_never_holds() -> None:
    off = TurnHoldConfig(enabled=False)
    assert [hold_s(t, off) for t in ("It evolved.", "Thanks coach,", "um")] == [0.0, 0.0, 0.0]


def test_the_hold_is_bounded_and_set_from_the_speech_config(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValidationError):
        TurnHoldConfig(statement_s=5.0)
    with pytest.raises(ValidationError):
        TurnHoldConfig(unfinished_s=-0.1)
    monkeypatch.setenv("VOICECOACH_TURN_HOLD", "off")
    assert not SpeechConfig.from_env().hold.enabled
    monkeypatch.setenv("VOICECOACH_TURN_HOLD", "on")
    assert SpeechConfig.from_env().hold.enabled
