"""Whether a paused utterance reads as finished: the text-aware hold at the end of a user turn.

A player pauses inside one question ("It evolved. … What skills does it have?"). The VAD calls
the speech over after its stop_secs of silence (0.2 s) and the silence rule would hand the coach
the first half. Waiting longer in silence on every turn costs every turn (docs/BENCHMARKS.md,
"One question per pause"); this kernel reads the turn's transcript so far, once the VAD has
stopped and the segment is transcribed, and says how long to keep the turn open:

- **finished** (0 s): a question or a request, the thing the coach answers: the text ends with a
  question mark; or its last sentence opens like a question (a wh-word or an inverted auxiliary:
  "should I run Emberfox.", Whisper's flat reading of a question); or its last clause opens with
  an imperative or a request ("tell me …", "build …", "give me …", "but keep … in", "I need …",
  "… please"); or it says goodbye;
- **statement** (`statement_s`): a whole sentence that asks nothing: "It evolved.", "We took round
  one.", "Only fire.", "Hi coach, I just started playing." The question usually follows;
- **unfinished** (`unfinished_s`): a clause that cannot end a turn: it ends with a comma, a dash or
  an ellipsis ("Thanks coach,"), a conjunction, a preposition, an article or a filler ("and", "so",
  "with the", "um"), its last sentence is a hesitation ("let me think", "hold on") or one lone word
  ("Teams."), or leaves "between" without its "and" ("the difference between a tank?"), or it
  holds no words.

A bare answer ("Yes.", "No, nope.") is finished: it answers the coach's own question back.

The turn is merged if speech resumes within the hold; otherwise it ends when the hold is over.
Pure Python: the stop strategy that applies it is `HoldingTurnStopStrategy` in
`pipelines/speech/voice.py`. The cues are English grammar, not any pack's phrasing.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

Reading = Literal["finished", "statement", "unfinished"]


class TurnHoldConfig(BaseModel):
    """How long a turn whose transcript does not read as finished stays open after the VAD's stop."""

    enabled: bool = True
    # A whole sentence that asks nothing ("It evolved."): the question usually follows it.
    statement_s: float = Field(default=0.75, ge=0.0, le=3.0)
    # A clause that cannot end a turn ("Thanks coach,", "... and", "um").
    unfinished_s: float = Field(default=0.9, ge=0.0, le=3.0)
    # Speech heard during a hold (a voiced window the VAD has not called speech yet) keeps the turn
    # open this long after it, so the VAD's start_secs can confirm it: the resumed speech is merged,
    # not cut. The VAD's start flickers, each window renews it, up to onset_max_s past the hold.
    onset_grace_s: float = Field(default=0.3, ge=0.0, le=2.0)
    onset_max_s: float = Field(default=1.0, ge=0.0, le=3.0)


# A question's first word: a wh-word ("who's ahead"), or an auxiliary or modal in front of its
# subject ("should I bring him"; three words at least: "can't be" asks nothing). Not "have", "has",
# "had": they open imperatives ("Have fun.") and statements with the subject left out ("Had a rough
# round.") as often as questions, so only a question mark makes those questions.
WH_WORDS = frozenset(
    "what what's whats which who who's whos whom whose when where where's why why's how how's".split()
)
AUXILIARIES = frozenset(
    """is isn't are aren't am was wasn't were weren't do does doesn't did didn't can could couldn't
    should shouldn't would wouldn't will shall may might""".split()
)
# A request's first word: an imperative a player gives a coach, or "let" ("let me know").
REQUEST_OPENERS = frozenset(
    """tell give show help build make put keep pick choose suggest recommend find list explain
    compare check name describe rate rank remind teach walk let get set swap switch change add
    remove drop replace turn mute unmute stop start repeat say try go run use bring take play
    equip upgrade level save focus look skip count plan counter guide don't dont never
    always""".split()
)
# A request said as a want ("I need a counter", "I'd like another one").
REQUEST_PHRASES = ("i need", "i want", "i'd like", "i would like", "we need", "i wanna")
REQUEST_WORDS = frozenset({"please"})
CLOSINGS = frozenset({"bye", "goodbye", "goodnight"})
# A whole answer to the coach's own question ("Did you mean Gale Dive?" "Yes.").
ANSWERS = frozenset({"yes", "yeah", "yep", "yup", "no", "nope", "nah", "sure", "correct", "exactly"})
# Words a clause opens with that say nothing of what it is ("but keep X in", "okay, tell me").
DISCOURSE = frozenset(
    """and but so or then also just now okay ok alright right well oh hey hi hello yeah yes no
    coach actually really maybe""".split()
)
# Words no finished sentence ends on: conjunctions, prepositions, articles, possessives, fillers.
# Not "in", "on", "out", "up": a phrasal verb's particle ends many a request ("keep Galehawk in").
OPEN_ENDINGS = frozenset(
    """and but or so because cause since then if when while though although than that which who
    to of for with without about against from into onto at by as like the a an my your his her
    its our their these those some any um uh er erm hmm mm ah uhm""".split()
)
# Words after "between" that make its term plural (or give its second term) by themselves.
PLURAL_TERMS = frozenset("and or them us you these those both all each two three four".split())
# What a player says before the question, while finding it ("let me think", "hold on", "wait").
HESITATIONS = ("let me think", "let me see", "hold on", "hang on", "one sec", "one second", "wait")
FILLERS = frozenset({"um", "uh", "er", "erm", "hmm", "mm", "ah", "uhm", "like", "so", "well", "okay", "ok"})
UNFINISHED_MARKS = (",", ";", ":", "-", "–", "—", "…", "...")

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_SENTENCE_END = re.compile(r"[.!?]+")
_CLAUSE_BREAK = re.compile(r"[,;:]|\s[-–—]\s")


def words_of(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("’", "'"))


def _opening(words: list[str]) -> list[str]:
    """`words` without the discourse words they open with."""
    start = 0
    while start < len(words) - 1 and words[start] in DISCOURSE:
        start += 1
    return words[start:]


def _asks(clause: str) -> bool:
    """A clause that asks for something: an imperative, a want, "please", or a goodbye."""
    words = words_of(clause)
    body = _opening(words)
    if not body:
        return False
    if body[0] in REQUEST_OPENERS:
        return True
    said = " ".join(body)
    if said.startswith(REQUEST_PHRASES) or REQUEST_WORDS & set(words):
        return True
    return bool(CLOSINGS & set(words))


def read_turn(text: str) -> Reading:
    """What the transcript of a turn so far reads as (the module's docstring has the cues)."""
    body = " ".join(text.split())
    words = words_of(body)
    if not words or all(w in FILLERS for w in words):
        return "unfinished"
    if _open_correlative(body):
        return "unfinished"
    if body.endswith("?"):
        return "finished"
    if body.endswith(UNFINISHED_MARKS) or words[-1] in OPEN_ENDINGS:
        return "unfinished"
    if all(w in ANSWERS or w in DISCOURSE for w in words) and ANSWERS & set(words):
        return "finished"
    sentences = [s for s in _SENTENCE_END.split(body) if words_of(s)]
    last = sentences[-1] if sentences else body
    opening = _opening(words_of(last))
    if " ".join(opening).startswith(HESITATIONS):
        return "unfinished"
    if len(words_of(last)) == 1 and not CLOSINGS & set(words):
        return "unfinished"  # one word, no question, no answer: a fragment of what follows
    if _questions(opening):
        return "finished"  # a question Whisper wrote without its question mark
    clauses = [c for c in _CLAUSE_BREAK.split(last) if words_of(c)]
    if clauses and (_asks(clauses[-1]) or _asks(last) or _questions(_opening(words_of(clauses[-1])))):
        return "finished"  # ... or its last clause asks ("Their healer keeps diving us, who beats him.")
    return "statement"


def _open_correlative(body: str) -> bool:
    """The text ends in a clause with "between" and one singular term after it: its "and" is still
    to come ("What's the difference between a tank?" before "and a support"). Not a plural term
    ("between rounds", "between the two of them")."""
    clauses = [c for c in re.split(r"[.!?,;:]+", body) if words_of(c)]
    words = words_of(clauses[-1]) if clauses else []
    if "between" not in words:
        return False
    after = words[len(words) - words[::-1].index("between") :]
    return bool(after) and not any(w in PLURAL_TERMS or (w.endswith("s") and len(w) > 3) for w in after)


def _questions(opening: list[str]) -> bool:
    return (len(opening) >= 2 and opening[0] in WH_WORDS) or (len(opening) >= 3 and opening[0] in AUXILIARIES)


def hold_s(text: str, config: TurnHoldConfig) -> float:
    """Seconds to keep the turn open after the VAD's stop, given its transcript so far: 0 ends it."""
    if not config.enabled:
        return 0.0
    reading = read_turn(text)
    if reading == "finished":
        return 0.0
    return config.statement_s if reading == "statement" else config.unfinished_s
