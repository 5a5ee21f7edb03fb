"""W1's NARRATION, checked before it is spoken (paper §4): `narration_problem` and the pack's fallbacks.

Narration is spoken before any grounding, so a sentence that is empty, too long, loops, or names
something the player did not mention is replaced by the pack's phrase for the pair
(`narration_for`), and an acknowledgement (`acknowledgement_for`) may precede it.
"""

from __future__ import annotations

import re

from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import Pack
from voicecoach.perception.prompt import NARRATION_MAX_WORDS

_WORD = re.compile(r"[a-z0-9']+")
MAX_WORD_REPEATS = 2  # the same word three times in a row is a loop ("no, no, no")


def narration_problem(pack: Pack, utterance: str, narration: str) -> str | None:
    """Why `narration` must not be spoken, or None when it is usable.

    Rules: not empty; at most NARRATION_MAX_WORDS words; no catalog name that the utterance did
    not itself link (narration is spoken before any grounding); no loop: the same word more than
    MAX_WORD_REPEATS times in a row, or a repeated run of two or more words.
    """
    words = _WORD.findall(narration.lower())
    if not words:
        return "empty narration"
    if len(words) > NARRATION_MAX_WORDS:
        return f"{len(words)} words, more than {NARRATION_MAX_WORDS}"
    linked = {m.id for m in link_entities(pack, utterance)}
    for m in link_entities(pack, narration):
        if m.id not in linked:
            return f"names {m.surface!r}, which the player did not mention"
    run = 1
    for a, b in zip(words, words[1:], strict=False):
        run = run + 1 if a == b else 1
        if run > MAX_WORD_REPEATS:
            return f"loop: {a!r} repeated"
    for n in range(2, len(words) // 2 + 1):
        for i in range(len(words) - 2 * n + 1):
            if words[i : i + n] == words[i + n : i + 2 * n]:
                return f"loop: {' '.join(words[i : i + n])!r} repeated"
    return None


def narration_for(pack: Pack, intent: str, sub_intent: str, turn_index: int = 0) -> str:
    """The pack's narration phrase for the pair (narrations.json), to speak when W1's own narration
    is missing or fails `narration_problem`; rotates with the turn so repeats vary. A pair without
    phrases (or "other") gets the pack-independent FALLBACK_NARRATION."""
    entry = next((n for n in pack.narrations if (n.intent, n.sub_intent) == (intent, sub_intent)), None)
    if entry is None:
        return FALLBACK_NARRATION
    return entry.phrases[turn_index % len(entry.phrases)]


FALLBACK_NARRATION = "Let me check that for you."


def acknowledgement_for(pack: Pack, turn_index: int, before: str = "") -> str:
    """The pack's acknowledgement for the turn (templates.json; "" if it has none), rotating with
    the turn, and never the word `before` (a narration that may follow) opens with: no "Sure.
    Sure, building a team." """
    acks = pack.templates.acknowledgements
    first = before.split()[0].strip(",.!").lower() if before.split() else ""
    fits = [a for a in acks if a.split()[0].strip(",.!").lower() != first] or acks
    return fits[turn_index % len(fits)] if fits else ""
