"""Ordinary English, to tell a game's invented names from everyday words: the checker's
unknown-name rule (`voicecoach.talker.speakable`) and the lexicon repair's stricter bar for spans
of ordinary words (`voicecoach.perception.lexicon`) read the same list.

pyspellchecker's bundled English frequency list, loaded once per process (~130 ms): a session
builds it when it opens, never on a turn.
"""

from __future__ import annotations

from functools import cache

# A word counts as ordinary English at this count in the list ("GG" and "Heh" are under it).
ORDINARY_MIN_COUNT = 200


@cache
def english_counts() -> dict[str, int]:
    """Word -> count in pyspellchecker's bundled English frequency list (lowercase)."""
    from spellchecker import SpellChecker

    return dict(SpellChecker(language="en", distance=1).word_frequency.dictionary)
