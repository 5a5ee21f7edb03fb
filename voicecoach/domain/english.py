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


# Chat and texting words players say aloud ("no pressure lmao"): everyday words the list lacks, never
# a misheard name.
CHAT_WORDS = frozenset(
    "lol lmao lmfao rofl omg wtf ngl tbh imo imho idk btw brb afk gg ggs ez bruh bro pls plz thx ty np smh "
    "fr ong lowkey highkey uh uhh um umm hmm mhm yall tryhard noob op pog poggers kek xd sus rip gj wp glhf "
    "irl asap fyi".split()
)


# Words that carry no look or kind ("a phoenix reborn from its ashes": not "from", not "its"): never
# a description of a unit, however a pack's text uses them.
FUNCTION_WORDS = frozenset(
    "a an the its it his her hers him he she they them their theirs our ours your yours my mine me we "
    "us you i from of off to in on at by for with without into onto over under up down out about "
    "and or but nor not no so as if than then very just too also this that these those is are was "
    "were be been being am has have had do does did who whose which what when where why how there "
    "here all any some each every both either neither one ones can could will would should may might "
    "must shall again ever".split()
)
