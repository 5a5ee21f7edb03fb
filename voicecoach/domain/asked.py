"""The shape of what the player asks, read from English cue words alone: a yes / no question, a
why, a which / who, a how, a how many, a what. A step of a Φ entry's answer may say which shapes it
answers (`AnswerStep.asked`): "can we even win this" wants a verdict before the fix, "why do we
keep losing" wants what beats them before the fix, and "what do we change" wants the fix alone.
The same regexes serve the recipes that put a yes or no first.
"""

from __future__ import annotations

import re
from typing import Literal

Shape = Literal["yes_no", "why", "which", "how", "how_many", "what"]

_OPENERS = (
    r"(?:(?:so|ok|okay|and|but|hey|um+|uh+|hmm+|erm|well|wait|coach|then|honestly|like|yo|bro|man)\W+)*"
)
# "Can my tank hold off their turtle", "is Voltail a problem for my fox": an auxiliary first.
YES_NO = re.compile(
    rf"^\W*{_OPENERS}(?:is|are|can|could|will|would|does|do|did|should|am|was|were|have|has|isn'?t|aren'?t|"
    r"can'?t|won'?t|doesn'?t|don'?t)\b",
    re.IGNORECASE,
)
# "My fox is screwed vs it, right?": a claim put as a question by its tag.
TAG_QUESTION = re.compile(
    r"(?:,\s*|\s)(?:right|yeah|yes|no|or\s+not|or\s+nah|or\s+what|isn'?t\s+it|aren'?t\s+they|correct|true)\W*$",
    re.IGNORECASE,
)
# "So it smacks the turtle?": a statement asked back with a question mark (no question word).
SAID_AS_QUESTION = re.compile(
    r"^(?!.*\b(?:who|whom|what|which|how|why|when|where)\b)[^?]*\?\s*$", re.IGNORECASE
)
# Asked whether something is bad ("is Renzo just bad on this map", "is Lumifawn too low to bring",
# "is it a bad map for shotguns"): the yes and the no of a verdict swap.
ASKED_BAD = re.compile(
    r"\b(?:bad|worse|worst|hard|rough|tough|terrible|awful|weak|struggle|trash|garbage|useless|sucks?|a\s+waste|"
    r"a\s+liability|dead\s+weight|holding\s+(?:us|me)\s+back|too\s+(?:low|weak|squishy|slow)|"
    r"under-?levell?ed|throwing)\b",
    re.IGNORECASE,
)
# Kept, benched or swapped out: "keep Sparkwing or not", "should I bench Tidefang", "is Sparkwing
# worth keeping in", "keep Elowen or swap her": a verdict on one the player fields.
KEEP_OR_BENCH = re.compile(
    # (at the start of the turn or of its last clause: "Ren just got a triple, do I keep him or swap")
    r"(?:^|[,.;!?]\s+|\b(?=(?:should|do|can|would)\s+(?:i|we)\s+(?:just\s+|still\s+)?(?:keep|bench|drop|sit)\s))"
    r"\W*(?:(?:so|ok|okay|and|but|hey|yo|um+|uh+|hmm+|well|wait|coach|then|honestly|like)\W+)*"
    r"(?:(?:should|do|can|would)\s+(?:i|we)\s+(?:just\s+|still\s+)?)?(?P<verb>keep|bench|drop|sit)\s+"
    r"(?:(?:playing|running|using|fielding)\s+)?"
    r"(?!(?:putting|investing|levell?ing|training|spending|buying|grinding)\b)",
    re.IGNORECASE,
)
# "Should Elowen stay or go", "does Renzo stay in or come out": kept or not, asked as keep is.
STAY_OR_GO = re.compile(
    r"\bstays?(?:\s+in)?\s+or\s+(?:go|goes|leave|come\s+out|get\s+swapped(?:\s+out)?|sit(?:\s+out)?)\b",
    re.IGNORECASE,
)
# "Who wins", "who'd win", "who beats who": the fight between two asked for its winner.
WHO_WINS = re.compile(r"\bwho(?:'d|\s+would|\s+will|s|'s)?\s+wins?\b|\bwho\s+beats\s+who\b", re.IGNORECASE)
# Said after two units weighed ("Emberfox vs Pyrowl, which is better"): a pick between them, and
# neither is the opponent ("who wins" asks for the fight).
WHICH_BETTER = re.compile(
    r"^\W*(?:\w+\W+){0,2}?(?:which|who|whos|who's)(?:\s+one)?(?:'s|\s+is|\s+are)?\s+"
    r"(?:better|stronger|best|less\s+bad|least\s+bad)\b",
    re.IGNORECASE,
)
_WHY = re.compile(r"\bwhy\b|\bhow\s+come\b|\bwhat(?:'?s|\s+is)\s+(?:going\s+)?wrong\b", re.IGNORECASE)
_HOW_MANY = re.compile(r"\bhow\s+(?:many|much|long|far|often)\b", re.IGNORECASE)
_HOW = re.compile(r"\bhow\b(?!\s+(?:many|much|long|far|often|come)\b)", re.IGNORECASE)
_WHICH = re.compile(r"\b(?:which|who|whom|whos|who'?s)\b", re.IGNORECASE)
_WHAT = re.compile(r"\bwhat(?:'?s)?\b", re.IGNORECASE)
_CLAUSES = re.compile(r"[.?!;,]\s+")


def shapes(text: str) -> frozenset[Shape]:
    """Every shape the utterance asks in (a yes / no at the start of any of its clauses)."""
    found: set[Shape] = set()
    clauses = [c for c in _CLAUSES.split(text) if c.strip()] or [text]
    if any(YES_NO.match(c) for c in clauses) or TAG_QUESTION.search(text) or SAID_AS_QUESTION.match(text):
        found.add("yes_no")
    for shape, pattern in (
        ("why", _WHY),
        ("how_many", _HOW_MANY),
        ("how", _HOW),
        ("which", _WHICH),
        ("what", _WHAT),
    ):
        if pattern.search(text):
            found.add(shape)  # type: ignore[arg-type]
    if "why" in found:
        found.discard("what")  # "what's going wrong" is a why
    return frozenset(found)
