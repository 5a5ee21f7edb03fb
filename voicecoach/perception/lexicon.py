"""Lexicon repair: the pack's names put back where speech-to-text wrote something near them.

Whisper tiny.en writes an invented name it half-hears as English-looking words ("Infernal War" for
Inferno Roar, "Kimbriercat" for "Can Briarcat"), and the entity linker matches names exactly, so
the turn loses its subject. `repair` runs between STT and everything that reads the utterance:

- every span of 1-4 words is scored against the pack's names (display names, stage names and
  aliases of every kind) by the similarity of its letters and of a phonetic code (metaphone), each
  rapidfuzz's normalised Indel ratio of the two strings with spaces and punctuation left out;
- a span whose every word is ordinary English (pyspellchecker's frequency list) needs a near-exact
  match: looser, "do I drop" becomes Dewdrop and "first in" Frostfin;
- a second pass takes names related to one already heard, in this utterance or in `recent` (a
  creature's skills, a hero's items: the catalog's relations, both ways) at a lower bar ("Gale by"
  after Galehawk is Gale Dive);
- a span that overlaps an exact link is never rewritten, nor is a name too short to tell from a
  word (under MIN_NAME_CHARS letters: T1, Oz) or one that is itself an ordinary English word
  (Kindle, Sanctuary: STT spells those).

Pure Python over the catalog: built once per pack object (`Lexicon.of`), ~1 ms an utterance.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import jellyfish
from rapidfuzz import fuzz, process

from voicecoach.core.state import LiveState
from voicecoach.domain.english import CHAT_WORDS, ORDINARY_MIN_COUNT, english_counts
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import Pack
from voicecoach.domain.view import StateView

MAX_SPAN_WORDS = 4
MIN_NAME_CHARS = 5  # letters of a name's key: "Oz", "Jo", "T1" are words or codes, not names to guess
MIN_SPAN_CHARS = 4
# Bars, measured on the fixtures and on every clean phrase of both packs (tests/perception/
# test_lexicon.py). A span with a word that is no ordinary English scores the mean of its letters'
# and its metaphone code's similarity to the name; a span of ordinary English words only scores
# the lower of the two (sound alone makes "do I drop" Dewdrop, "centre my" Cindermaw), has two
# words or more (one ordinary word is that word: "skills" is not Skyfall) and at most one word
# more than the name ("can it use" is not Granitusk; "new crawler" is Dunecrawler).
BAR = 0.78
BAR_ENGLISH = 0.85
# The second pass, on names related to one heard: "Infernal War" with Emberfox is Inferno Roar.
# There a span of the name's word count with all its words but one exact is the name too ("Gale
# by" after Galehawk is Gale Dive).
BAR_RELATED = 0.68
BAR_RELATED_ENGLISH = 0.72
# A word said alone this rare is mostly a first name ("nadia" 275, "brandon" 698; "duke" 4,629).
RARE_NAME_COUNT = 1000
RARE_WORD_COUNT = 5000  # "gale", "ember", "tidal"; "long", "well", "landing" are commoner
SHORT_WORD_CHARS = 3
WORD_FLOOR = 0.5  # "war" / "roar" 0.57; "what" / "hands" 0.44 ("quick what" is not Quick Hands)
# A span near a name but short of the repair's bar is asked about, not rewritten ("tell me about
# hexmoff": "Did you mean Hexmoth?"); a made-up name ("zorblax", 0.61 to Stormlynx) is not near one.
SUGGEST = 0.74  # "tiebreaker" (no word in the list) is 0.71 to Skybreaker
SUGGEST_ENGLISH = 0.75
SUGGEST_MARGIN = 0.05
LETTERS_FLOOR = 0.55  # candidates whose letters are further off are not scored at all

WORD = re.compile(r"[A-Za-z0-9']+")


@dataclass(frozen=True)
class Name:
    """One surface form a name can be repaired to."""

    text: str  # as the catalog writes it: what the repair puts in
    kind: str
    id: str
    key: str  # lowercase letters and digits
    code: str  # metaphone of the key
    words: tuple[str, ...]  # lowercase


@dataclass(frozen=True)
class Repair:
    """The repaired text and what changed: (raw span, name), in order."""

    text: str
    changes: list[tuple[str, str]] = field(default_factory=list)


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _key(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _code(key: str) -> str:
    return jellyfish.metaphone(key).replace(" ", "")


def ordinary(word: str) -> bool:
    """An ordinary English word: common in the list, as is or in its US spelling ("centre")."""
    w = word.lower().strip("'")
    if w.endswith("'s"):
        w = w[:-2]
    words = english_counts()
    variants = [w]
    if w.endswith("re"):
        variants.append(w[:-2] + "er")
    if "our" in w:
        variants.append(w.replace("our", "or"))
    if w.endswith(("ise", "ised", "ising")):
        variants.append(w.replace("is", "iz"))
    # A contraction typed or transcribed without its apostrophe ("isnt", "theyre", "im")
    for end, spelled in (
        ("nt", "n't"),
        ("re", "'re"),
        ("ve", "'ve"),
        ("ll", "'ll"),
        ("m", "'m"),
        ("d", "'d"),
    ):
        if w.endswith(end) and "'" not in w:
            variants.append(w[: -len(end)] + spelled)
    # An ordinary word with an ending the list lacks ("tankier", "squishiest"): not a name either.
    for end, base in (
        ("iest", "y"),
        ("ier", "y"),
        ("iest", ""),
        ("ier", ""),
        ("est", ""),
        ("er", ""),
        ("ed", ""),
        ("ing", ""),
    ):
        if w.endswith(end) and len(w) - len(end) >= 3:
            variants.append(w[: -len(end)] + base)
    return any(words.get(v, 0) >= ORDINARY_MIN_COUNT for v in variants) or w.isdigit() or w in CHAT_WORDS


class Lexicon:
    """The pack's names as the repair matches them, and which names each entity relates to."""

    def __init__(self, pack: Pack):
        self.pack = pack
        catalog = pack.catalog
        schema = catalog.schema
        names: dict[str, Name] = {}
        for kind, spec in schema.kinds.items():
            if spec.role == "type":  # elements and the like: ordinary words, spelled by STT
                continue
            for e in catalog.entities.get(kind, {}).values():
                aliases = [a for f in spec.aliases for a in e.value(f) or [] if isinstance(a, str)]
                for form in (e.display, *aliases):
                    key = _key(form)
                    if len(key) < MIN_NAME_CHARS or key in names:
                        continue
                    if " " not in form.strip() and ordinary(form):
                        continue
                    names[key] = Name(form, kind, e.id, key, _code(key), tuple(form.lower().split()))
        self.names = list(names.values())
        self.kinds = {n.kind for n in self.names}
        # Words the pack's own texts use ("sightlines"): a player says them as words, not names.
        texts = [v for es in catalog.entities.values() for e in es.values() for v in _strings(e.model_extra)]
        self.words = {w.lower().removesuffix("s") for t in texts for w in WORD.findall(t)}
        self.keys = [n.key for n in self.names]
        self.related: dict[str, set[str]] = {}
        for kind, spec in schema.kinds.items():
            links = dict(spec.relations)
            if spec.members is not None:
                links[spec.members] = schema.kind("unit") or ""
            for e in catalog.entities.get(kind, {}).values():
                for f in links:
                    for other in e.value(f) or []:
                        self.related.setdefault(e.id, set()).add(other)
                        self.related.setdefault(other, set()).add(e.id)

    _CACHE: dict[int, tuple[Pack, Lexicon]] = {}

    @classmethod
    def of(cls, pack: Pack) -> Lexicon:
        """The lexicon of `pack`, built once per pack object (packs are immutable once loaded)."""
        hit = cls._CACHE.get(id(pack))
        if hit is None or hit[0] is not pack:
            hit = (pack, cls(pack))
            cls._CACHE[id(pack)] = hit
        return hit[1]


@dataclass(frozen=True)
class _Candidate:
    start: int  # character offsets of the span in the text
    end: int
    raw: str
    name: Name
    score: float
    english: bool = False  # every word of the span is ordinary English
    runner_up: float = 0.0  # the best score of another entity's name for the same span


# Words that join two things: a name does not open or close on one ("mines or turret" offers two).
_JOINING = frozenset({"or", "and", "but", "nor", "vs", "versus"})


def _spans(text: str) -> list[tuple[int, int, list[str]]]:
    words = list(WORD.finditer(text))
    out = []
    for i in range(len(words)):
        for j in range(i + 1, min(i + MAX_SPAN_WORDS, len(words)) + 1):
            if {words[i].group(0).lower(), words[j - 1].group(0).lower()} & _JOINING:
                continue
            said = [m.group(0) for m in words[i:j]]
            end = words[j - 1].end()
            if said[-1].lower().endswith("'s") and len(said[-1]) > 3:
                # "nadia's grenade": the name without its possessive, which stays where it is
                said[-1], end = said[-1][:-2], end - 2
            out.append((words[i].start(), end, said))
    return out


def _score(code: str, words: list[str], english: bool, name: Name, letters: float, second: bool) -> float:
    """The span's similarity to `name` (0 when its words rule the name out); `second`: the second
    pass, where a span of ordinary words must have as many words as the name ("first in" is not
    Frostfin, even after Tidal Wall, whose creature it is). Ordinary words said for a name of
    as many words are each close to the name's word."""
    sound = fuzz.ratio(code, name.code) / 100
    if not english or _rare_for(words, name):
        return (letters + sound) / 2
    most = len(name.words) if second else len(name.words) + 1
    if len(words) < 2 or len(words) > most or (second and len(words) < most):
        return 0.0
    if len(words) == len(name.words):  # word for word, each recognisable ("infernal war")
        pairs = zip((w.lower() for w in words), name.words, strict=True)
        if min(fuzz.ratio(a, b) for a, b in pairs) < WORD_FLOOR * 100:
            return 0.0
    return min(letters, sound)


def _rare_for(words: list[str], name: Name) -> bool:
    """A rare word said alone, about as long as the name, is scored as a name too ("nadia" for
    Nadira: a first name in the word list); as an ordinary word it still clears the English bar.
    Not a part of a longer name ("launcher" of Pipe Launcher, "ember" of Emberkit)."""
    if len(words) != 1 or english_counts().get(words[0].lower(), 0) >= RARE_NAME_COUNT:
        return False
    return len(_key(words[0])) >= 0.75 * len(name.key)


def _us_count(word: str) -> int:
    """The word's count in the list, in its US spelling too ("armour" is as common as "armor")."""
    counts = english_counts()
    spellings = {word, word.replace("our", "or"), word[:-2] + "er" if word.endswith("re") else word}
    return max(counts.get(w, 0) for w in spellings)


def _one_word_off(words: list[str], name: Name) -> bool:
    """The span has the name's words but one, exactly, and those are rare words, and the one is a
    short word Whisper put for it ("Gale by" / Gale Dive; "long term" is not Long Watch, nor "go
    well" Gravity Well, nor "quick what" Quick Hands)."""
    said = [w.lower() for w in words]
    if len(said) != len(name.words) or len(said) < 2:
        return False
    same = [a for a, b in zip(said, name.words, strict=True) if a == b]
    other = [a for a, b in zip(said, name.words, strict=True) if a != b]
    return (
        len(other) == 1
        and len(other[0]) <= SHORT_WORD_CHARS
        and all(_us_count(w) < RARE_WORD_COUNT for w in same)
    )


def _sounds_one_off(words: list[str], name: Name) -> bool:
    """The span is the name word for word but one, and that one sounds the same (its metaphone code
    is the name word's): "nightmare hacks" is Nightmare Hex; "long term" is not Long Watch."""
    said = [w.lower() for w in words]
    if len(said) != len(name.words) or len(said) < 2:
        return False
    other = [(a, b) for a, b in zip(said, name.words, strict=True) if a != b]
    return len(other) == 1 and len(other[0][0]) >= 3 and _code(_key(other[0][0])) == _code(_key(other[0][1]))


def _candidates(
    lexicon: Lexicon, text: str, related: set[str] | None, bars: tuple[float, float] | None = None
) -> list[_Candidate]:
    """The best name for each span of `text` that clears its bar; `related`: the second pass,
    on the names of these ids only; `bars`: other bars than the repair's (a suggestion's)."""
    linked = [m.span for m in link_entities(lexicon.pack, text)]
    pool = [n for n in lexicon.names if related is None or n.id in related]
    keys = [n.key for n in pool] if related is not None else lexicon.keys
    bar, bar_english = bars or ((BAR, BAR_ENGLISH) if related is None else (BAR_RELATED, BAR_RELATED_ENGLISH))
    out = []
    for start, end, words in _spans(text):
        if any(start < b and a < end for a, b in linked):
            continue
        key = _key("".join(words))
        if len(key) < MIN_SPAN_CHARS:
            continue
        english = all(ordinary(w) for w in words)
        code = _code(key)
        scored: list[tuple[float, Name]] = []
        for _, letters, i in process.extract(
            key, keys, scorer=fuzz.ratio, score_cutoff=LETTERS_FLOOR * 100, limit=None
        ):
            name = pool[i]
            score = _score(code, words, english, name, letters / 100, related is not None)
            if english and (
                related is not None and _one_word_off(words, name) or _sounds_one_off(words, name)
            ):
                score = max(score, bar_english)
            scored.append((score, name))
        if not scored:
            continue
        score, name = max(scored, key=lambda s: s[0])
        if score >= (bar_english if english else bar):
            runner_up = max((s for s, n in scored if n.id != name.id), default=0.0)
            out.append(_Candidate(start, end, text[start:end], name, score, english, runner_up))
    return out


def _apply(text: str, candidates: list[_Candidate]) -> tuple[str, list[tuple[str, str]]]:
    """Rewrite the best-scoring non-overlapping candidates (ties: the longer span)."""
    chosen: list[_Candidate] = []
    for c in sorted(candidates, key=lambda c: (-c.score, c.start - c.end, c.start)):
        if all(c.end <= o.start or o.end <= c.start for o in chosen):
            chosen.append(c)
    out, changes = text, []
    for c in sorted(chosen, key=lambda c: -c.start):
        out = out[: c.start] + c.name.text + out[c.end :]
    changes = [(c.raw, c.name.text) for c in sorted(chosen, key=lambda c: c.start)]
    return out, changes


def repair(lexicon: Lexicon, text: str, recent: Sequence[str] | Iterable[str] = ()) -> Repair:
    """`text` with misheard names put back; `recent`: the session's last utterances, whose names
    make their related names likely here."""
    text1, changes = _apply(text, _candidates(lexicon, text, None))
    heard = {m.id for t in (text1, *recent) for m in link_entities(lexicon.pack, t)}
    related = set().union(*(lexicon.related.get(i, set()) for i in heard)) - heard
    if related:
        text2, more = _apply(text1, _candidates(lexicon, text1, related))
        if more:
            changes = sorted([*changes, *more], key=lambda c: text.find(c[0]))
            text1 = text2
    return Repair(text1, changes)


def suggest(lexicon: Lexicon, text: str) -> tuple[str, Name] | None:
    """(the span, the name) STT most likely misheard in `text`, when no name was put back there
    and it is close enough to ask "Did you mean Hexmoth?" (`perception.dialogue` asks); None when
    no span is near one name more than any other (the next best name of another entity at least
    SUGGEST_MARGIN behind), or every name the turn needs is heard."""
    heard = any(m.kind in lexicon.kinds for m in link_entities(lexicon.pack, text))
    found = [
        c
        for c in _candidates(lexicon, text, None, (SUGGEST, SUGGEST_ENGLISH))
        if c.score - c.runner_up >= SUGGEST_MARGIN and _may_be_named(c, heard, lexicon.words)
    ]
    best = max(found, key=lambda c: (c.score, c.end - c.start), default=None)
    return (best.raw, best.name) if best is not None else None


def _may_be_named(c: _Candidate, heard: bool, words_of_pack: set[str]) -> bool:
    """The span may stand for the name: it has a word no English speaker says otherwise ("hexmoff";
    not "theyre", a contraction typed without its apostrophe), or, beside no name heard, a rare word
    the name starts with ("ember folks": Emberfox). Ordinary phrases near a name are everywhere
    ("the back", "first in", "so like") and are what they say."""
    words = [w.lower() for w in WORD.findall(c.raw)]
    if not c.english:
        return any(_name_like(w) and w.removesuffix("s") not in words_of_pack for w in words)
    return not heard and any(
        len(w) >= MIN_SPAN_CHARS and english_counts().get(w, 0) < RARE_WORD_COUNT and c.name.key.startswith(w)
        for w in words
    )


def _name_like(word: str) -> bool:
    if len(word) < MIN_SPAN_CHARS or ordinary(word):
        return False
    return not any(ordinary(f"{word[:i]}'{word[i:]}") for i in range(1, len(word)))


def likely_names(pack: Pack, state: LiveState) -> list[str]:
    """The pack's names in the order a player is likely to say them given the live state: the
    player's side and other units, each with its tier name now and next (pet's evolution stages),
    the opponent's side, the match's context (the map), then the player's options (unlocked first,
    then those they can unlock: a strike roster's items alone overrun the window), every other
    unit, then the rest of the names (Whisper's prompt window takes a few hundred tokens)."""
    view = StateView(pack, state)
    catalog, schema = pack.catalog, pack.catalog.schema
    unit, option = view.unit_kind, view.option_kind
    names: list[str] = []

    def add(kind: str | None, ids: Iterable[str]) -> None:
        for i in ids:
            entity = catalog.get(kind, i) if kind else None
            if entity is not None:
                names.append(entity.display)

    units = view.owned()
    owned = [o.id for o in units]
    mine = [*view.player_side(), *owned]
    tiers = schema.progression.field if schema.progression is not None else None
    for o in sorted(units, key=lambda o: o.id not in view.player_side()):
        add(unit, [o.id])
        entity = catalog.get(unit, o.id)
        stages = entity.value(tiers) if tiers and entity is not None else None
        if isinstance(stages, list) and o.tier:
            names += [s for s in stages[max(0, o.tier - 1) : o.tier + 1] if isinstance(s, str)]
    add(unit, mine)
    add(unit, view.opponent_side())
    for kind in schema.kinds_of("context"):
        add(kind, [c for c in [view.context(kind)] if c])
    options_field = schema.options_field()
    for o in units:
        add(option, o.unlocked)
    for uid in mine:
        entity = catalog.get(unit, uid)
        add(option, entity.value(options_field) or [] if entity is not None and options_field else [])
    add(unit, catalog.entities.get(unit, {}))
    for kind in schema.kinds:
        if schema.kinds[kind].role != "type":
            add(kind, catalog.entities.get(kind, {}))
    return list(dict.fromkeys(names))
