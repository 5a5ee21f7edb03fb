"""Reading a turn in its dialogue: the question an utterance stands for, from what was said before.

Players talk to a coach as they talk to a friend at their shoulder: "how do I beat him?", "no
wait, I meant Oakhorn", "what about Sparkwing?", "their electric one". Every rule after W1's input
(the intent prior, the slot rules, Φ's focus fields) reads *names*, so this step rewrites such a
turn into the question it stands for, in names, before any of them runs. It decides nothing a
model guesses: the referent comes from the dialogue so far (the last exchanges, the player's and
the coach's words) and the live state (who fields whom), which is SGC's thesis applied to the
dialogue (paper §4: W1 perceives the turn in its context).

In order, each on the text the previous one left:

1. **Correction** - "no wait / sorry / actually, I meant X" re-asks the previous question with X in
   place of the entity of X's kind (and side) it named; "A - actually no, B" inside one utterance
   puts B where A was. A correction is never read as an exclusion: its cue words are removed.
2. **Follow-up** - "what about X?", "and X?", "same for X" re-asks the previous question about X.
3. **Description** - "their electric one", "my tank", "the fire fox", "that shield guy" becomes
   the one unit on that side whose attributes, kind words (the schema's `epithet` field) or name
   parts fit every word; "their best" the strongest on that side.
4. **Reference** - he / him / his / she / her / that guy / the other one name the unit the
   dialogue was about: of the side the verb points to ("beat him": theirs; "level him": yours),
   the player's own last named unit first, then the one the coach's answer named; "it" follows
   `voicecoach.domain.entities.resolve_reference` (the verb says which kind).

Pure Python over the pack, the state and the dialogue: no Pipecat, no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from voicecoach.core.state import LiveState
from voicecoach.domain.entities import Mention, link_entities, resolve_reference
from voicecoach.domain.pack import Pack
from voicecoach.domain.view import StateView

Side = str  # "mine", "theirs" or "any"


@dataclass(frozen=True)
class Exchange:
    """One heard turn: what the player asked (as it was read) and what the coach answered."""

    utterance: str
    reply: str


@dataclass(frozen=True)
class Reading:
    """The utterance as the rules read it, and what was resolved to get there (for the log).
    Two questions in one breath are two readings: `text` the first, `second` the other."""

    text: str
    resolved: tuple[str, ...] = field(default_factory=tuple)
    second: str | None = None
    # Not sure whom the player means ("the electric one": theirs or yours?): the question to ask
    # back instead of answering, and the turn with a hole where the answer goes.
    ask: str | None = None
    pending: str | None = None

    @property
    def whole(self) -> str:
        """Both questions as one line (what the turn record keeps)."""
        return f"{self.text.rstrip(' ?.!,')}, and {self.second}" if self.second else self.text


# --- English cue words (the domain words come from the pack) ---------------------------------------

_CORRECTION_LEAD = re.compile(
    r"^\s*(?:(?:no+|nope|nah|sorry|oops|whoops|wait|hold on|hang on|actually|my bad|scratch that|"
    r"correction|i mean|i meant|i said|make (?:that|it)|not that(?: one)?|rather)\b[\s,.!;:-]*)+",
    re.IGNORECASE,
)
# A lead that is a correction by itself ("wait, what does X do" is a new question, not a correction;
# a bare "no" keeps its meaning: "no Hakon either" keeps Hakon out).
_CORRECTING = re.compile(
    r"\b(?:sorry|oops|whoops|actually|my bad|scratch that|correction|i meant|i mean|"
    r"make (?:that|it)|not that|no+ wait|wait no+)\b",
    re.IGNORECASE,
)
_BARE_NO = re.compile(r"^\s*(?:no+|nope|nah)\s*[,.!]\s*$", re.IGNORECASE)
_INLINE_CORRECTION = re.compile(
    r"\s*[,;.!?]*\s*(?:-+|\u2014|\u2013)?\s*(?:(?:actually|no+|wait|sorry|i mean|i meant|or rather|"
    r"rather|scratch that|make that)\b[\s,.!;:-]*)+(?:(?:i mean|i meant)\b[\s,]*)?",
    re.IGNORECASE,
)
_NOT_X = re.compile(r"\bnot\s+(?:the\s+|my\s+|their\s+)?$", re.IGNORECASE)
_FOLLOW_UP = re.compile(
    r"^\s*(?:(?:and|so|ok|okay|alright|right|hmm|uh|um|then)\b[\s,]*)*"
    r"(?:(?:what|how)\s+about|what\s+of|and|same\s+(?:question\s+)?(?:for|with)|same\s+thing\s+for|"
    r"how\s+does\s+that\s+change\s+for)\s+(?:for\s+|with\s+)?(?P<rest>.+?)[\s?.!]*$",
    re.IGNORECASE,
)
# Words a short correction or follow-up may carry besides the name ("no wait, I meant the Oakhorn").
_FILLER = {
    "the", "a", "an", "my", "our", "their", "his", "her", "one", "please", "then", "instead", "i", "meant",
    "mean", "not", "that", "this", "like", "uh", "um", "oh", "s", "guy", "sorry", "yeah",
    "ok", "okay", "about", "for", "with", "of", "mine", "theirs", "side", "on", "team", "either",
}  # fmt: skip

_THEIRS = (
    "their",
    "theirs",
    "enemy",
    "enemy's",
    "enemies",
    "opponent",
    "opponent's",
    "opponents",
    "other team's",
)
_MINE = ("my", "mine", "our", "ours")
_DETERMINERS = (*_THEIRS, *_MINE, "the", "that", "this", "his", "her", "your")
_HEADS = {"one", "guy", "dude", "girl", "thing", "unit", "boy", "lad", "fella", "bloke"}
_PLURAL_HEADS = {"ones", "guys", "things", "units"}
_STRONGEST = {"best", "strongest", "biggest", "scariest", "most dangerous", "top", "carry", "star"}
_PLURALS = {"guys", "units", "ones", "characters", "folks"}  # and the pack's plural nouns (`_plurals`)
_ASKS_WHICH = re.compile(r"\b(?:who|which|what)(?:'?s|\s+is|\s+are)?\b", re.IGNORECASE)
_SIDE_AFTER = re.compile(
    r"^\s+(?:(?:on|from|in)\s+(?P<s1>their|the enemy|the other|enemy|my|our)\s+(?:side|team)|"
    r"of\s+(?P<s2>theirs|mine|ours))\b",
    re.IGNORECASE,
)
# Cue verbs before a pronoun: which side the unit it stands for is on.
_THEIRS_CUE = re.compile(
    r"\b(?:beat|beats|counter|counters|countering|against|vs|versus|handle|deal with|stop|kill|fight|"
    r"face|facing|worry about|scared of|afraid of|weak to|lose to|losing to|lost to|punish|shut down|"
    r"shutdown|outplay|survive|play around|dive|focus|target)\s+$",
    re.IGNORECASE,
)
_MINE_CUE = re.compile(
    r"\b(?:level|levelling|leveling|level up|train|training|upgrade|field|bring|use|"
    r"using|play|playing|swap|keep|run|running|equip|build|invest in|buy|unlock|put|main)\s+$",
    re.IGNORECASE,
)
_MINE_AFTER = re.compile(
    r"^\s+(?:(?:is|are)\s+)?"
    r"(?:ready|unlocked|worth|maxed|levell?ed|evolved|owned|strong enough|good enough)\b",
    re.IGNORECASE,
)
_PRONOUN = re.compile(
    r"\b(?P<p>he|him|his|she|her|hers|that guy|this guy|that dude|the other one|the other guy|"
    r"that one|this one)\b(?P<poss>'s)?",
    re.IGNORECASE,
)
_SUBJECT = {"he", "she"}


# --- the pack's descriptive vocabulary ----------------------------------------------------------


@dataclass(frozen=True)
class _Describer:
    """Per unit id: the words that describe it (attribute values and their vocabulary words, the
    epithet's words, name parts); and the pack's whole descriptive vocabulary."""

    words: dict[str, frozenset[str]]
    vocabulary: frozenset[str]
    power: dict[str, float]
    # The words that single a unit out (its epithet, name parts, attribute values), beside the
    # role's vocabulary words every unit of the role shares ("healer" of every support).
    strong: dict[str, frozenset[str]]
    roles: frozenset[str]  # the role names and their vocabulary words ("tank", "healer")


_DESCRIBERS: dict[int, tuple[Pack, _Describer]] = {}


def _describer(pack: Pack) -> _Describer:
    hit = _DESCRIBERS.get(id(pack))
    if hit is not None and hit[0] is pack:
        return hit[1]
    schema = pack.catalog.schema
    unit_kind = schema.kind("unit") or ""
    spec = schema.kinds[unit_kind]
    role_words = {role: [w.lower() for w in r.words] for role, r in pack.vocabulary.roles.items()}
    numeric = next((n for n, a in spec.attributes.items() if a.numeric), None)
    words: dict[str, frozenset[str]] = {}
    strong: dict[str, frozenset[str]] = {}
    power: dict[str, float] = {}
    for uid, entity in pack.catalog.entities.get(unit_kind, {}).items():
        found: set[str] = set()
        shared: set[str] = set()
        for name, attribute in spec.attributes.items():
            if attribute.numeric:
                continue
            value = entity.value(name)
            for v in value if isinstance(value, list) else [value]:
                if not isinstance(v, str):
                    continue
                found.add(v.lower())
                typed = pack.catalog.get(attribute.values, v) if isinstance(attribute.values, str) else None
                if typed is not None:
                    found.add(typed.display.lower())
                shared.update(role_words.get(v, []))
        found.update(pack.catalog.epithet_words(unit_kind, entity))
        display = entity.display.lower()
        if " " not in display:
            # Name parts players say of an invented compound: "the fox" of Emberfox, "ember" of it.
            found.update(display[:i] for i in range(3, len(display) - 2))
            found.update(display[i:] for i in range(3, len(display) - 2))
        words[uid] = frozenset(found | shared)
        strong[uid] = frozenset(found)
        if numeric is not None and isinstance(p := entity.value(numeric), int | float):
            power[uid] = float(p)
    vocabulary = frozenset(w for ws in words.values() for w in ws)
    roles = frozenset({*role_words, *(w for ws in role_words.values() for w in ws)})
    describer = _Describer(words, vocabulary, power, strong, roles)
    _DESCRIBERS[id(pack)] = (pack, describer)
    return describer


def _plurals(pack: Pack) -> set[str]:
    """Words for several units: the generic ones and the pack's ("pets", "heroes")."""
    schema = pack.catalog.schema
    spec = schema.kinds[schema.kind("unit") or ""]
    nouns = [*spec.nouns, *pack.vocabulary.creature_nouns, schema.plural(schema.kind("unit") or "")]
    return _PLURALS | {n.lower() for n in nouns if n.lower().endswith("s")}


_TELLS = re.compile(r"^\s*(?:is|'s|are|was)\b", re.IGNORECASE)


def _groups(pack: Pack) -> set[str]:
    """Words for a whole side: the generic ones and the group kind's nouns ("comp", "lineup")."""
    schema = pack.catalog.schema
    group = schema.kind("group")
    nouns = schema.kinds[group].nouns if group else []
    return {"team", "teams", "squad", "side", "five", "trio", *(n.lower() for n in nouns)}


# --- the live state: who fields whom --------------------------------------------------------------


class _Sides:
    def __init__(self, pack: Pack, state: LiveState | None) -> None:
        self.view = StateView(pack, state) if state is not None else None
        self.theirs = self.view.opponent_side() if self.view else []
        self.fielded = self.view.player_side() if self.view else []
        self.owned = [o.id for o in self.view.owned()] if self.view else []

    def side_of(self, uid: str) -> Side:
        if uid in self.fielded or (uid in self.owned and uid not in self.theirs):
            return "mine"
        return "theirs" if uid in self.theirs else "any"

    def pools(self, side: Side) -> list[list[str]]:
        """Where a description on `side` looks, nearest first (a fielded unit before an owned one)."""
        if side == "theirs":
            return [self.theirs]
        if side == "mine":
            return [self.fielded, self.owned]
        return [self.fielded + self.theirs, self.owned]


def _display(pack: Pack, kind: str, uid: str) -> str:
    entity = pack.catalog.get(kind, uid)
    return entity.display if entity is not None else uid


def _side_word(word: str) -> Side:
    word = word.lower()
    if word in _THEIRS or word.startswith(("the enemy", "the other", "enemy")):
        return "theirs"
    return "mine" if word in _MINE else "any"


# --- 3. descriptions -------------------------------------------------------------------------------


_TOKEN = re.compile(r"[a-z]+(?:'s)?", re.IGNORECASE)


@dataclass(frozen=True)
class _Unclear:
    """A description or pronoun that could be more than one unit (options: (side, id)), and the
    text with a hole (`HOLE`) where it was."""

    options: tuple[tuple[Side, str], ...]
    template: str


HOLE = "\x00"


def _describe(pack: Pack, sides: _Sides, text: str) -> tuple[str, list[str], _Unclear | None]:
    """Replace each description of one unit by its name (keeping "their" / "my"); "their supports"
    by the names of theirs that fit; the first description that fits two is returned unclear."""
    d = _describer(pack)
    unit_kind = pack.catalog.schema.kind("unit") or ""
    heads = (
        _HEADS
        | {n.lower() for n in pack.catalog.schema.kinds[unit_kind].nouns}
        | set(pack.vocabulary.creature_nouns)
    )
    linked = link_entities(pack, text)
    named = [(m.span, m.kind) for m in linked]
    tokens = list(_TOKEN.finditer(text))
    out, notes, cut = [], [], 0
    unclear: _Unclear | None = None
    i = 0
    while i < len(tokens):
        det = tokens[i].group(0).lower()
        if det not in _DETERMINERS:
            i += 1
            continue
        words: list[str] = []
        j = i + 1
        while j < len(tokens) and j - i <= 3:
            w = tokens[j].group(0).lower().removesuffix("'s")
            if w in d.vocabulary or w in heads or w in _STRONGEST:
                words.append(w)
                j += 1
                continue
            break
        # A unit's own name is not a description ("my Emberfox"); a plural is a kind ("my fire ones").
        end = tokens[j - 1].end() if words else 0
        if not words or any(
            a < end and tokens[i].start() < b and kind == unit_kind for (a, b), kind in named
        ):
            i += 1
            continue
        following = tokens[j].group(0).lower() if j < len(tokens) else ""
        last = words[-1] if words else ""
        plural, last_at = (_singular(d, last), j - 1) if _singular(d, last) else (_singular(d, following), j)
        if plural is not None and det not in _MINE:
            # "their supports", "snipers": every one of them on that side, by name.
            side = _side_word(det)
            said = [w for w in words if w not in heads and w != last] if last_at == j - 1 else words
            fits = _fitting(d, sides, side, [*[w for w in said if w not in heads], plural])
            if 1 <= len(fits) <= 3:
                end = tokens[last_at].end()
                keep = "their " if side == "theirs" else ""
                names = " and ".join(_display(pack, unit_kind, u) for u in fits)
                out.append(text[cut : tokens[i].start()] + keep + names)
                notes.append(f"{text[tokens[i].start() : end]!r} -> {names}")
                cut = end
                while i < len(tokens) and tokens[i].start() < end:
                    i += 1
                continue
        if following in _PLURAL_HEADS or following in _plurals(pack) or following.endswith("ies"):
            i += 1  # "my grass ones", "their fire pets": a kind of unit, not one of them
            continue
        if following in _groups(pack):
            i += 1  # "their water team": the side, not one unit of it
            continue
        if _TELLS.match(text[end:]) and any(a >= end for (a, _), kind in named if kind == unit_kind):
            i += 1  # "their tank is Dumaka now": the player says who it is
            continue
        descriptors = [w for w in words if w not in heads]
        side = _side_word(det)
        # A superlative names one only with a side ("their best"), not in "who's the best tank?".
        asks_which = _ASKS_WHICH.search(text[: tokens[i].start()]) is not None
        if not descriptors or (set(descriptors) & _STRONGEST and (side == "any" or asks_which)):
            i += 1
            continue
        # "My main healer": every word (a kind noun such as "main" too) singles out one fielded unit.
        named_by = [w for w in words if w not in _HEADS]
        singled = [u for u in sides.fielded if all(w in d.strong.get(u, ()) for w in named_by)]
        if side == "mine" and len(named_by) > 1 and len(singled) == 1:
            descriptors = named_by
        elif side == "mine" and all(w in d.roles or w in _STRONGEST for w in descriptors):
            # "Where should my tank go?" asks about the role; the words say it better than a name.
            i += 1
            continue
        after = _SIDE_AFTER.match(text[end:])
        if after is not None:
            side = _side_word(after["s1"] or after["s2"] or "")
            end += after.end()
        pick, fits = _pick(d, sides, side, descriptors)
        if pick is None:
            if unclear is None and 2 <= len(fits) <= 3:
                hole = text[: tokens[i].start()] + HOLE + text[end:]
                unclear = _Unclear(tuple((sides.side_of(u), u) for u in fits), hole)
            i += 1
            continue
        keep = {"theirs": "their ", "mine": "my "}.get(side, "")
        name = _display(pack, unit_kind, pick)
        out.append(
            text[cut : tokens[i].start()]
            + keep
            + name
            + ("'s" if tokens[j - 1].group(0).endswith("'s") else "")
        )
        notes.append(f"{text[tokens[i].start() : end]!r} -> {name}")
        cut = end
        while i < len(tokens) and tokens[i].start() < end:
            i += 1
    if unclear is not None and cut:
        unclear = None  # resolved descriptions moved the text: ask about nothing rather than garble it
    text, more = "".join(out) + text[cut:], []
    if not notes:
        text, more = _bare_plurals(pack, sides, text)
    return text, notes + more, unclear


def _bare_plurals(pack: Pack, sides: _Sides, text: str) -> tuple[str, list[str]]:
    """ "Who counters snipers?": a plural kind word after a counter cue names the units it fits
    (theirs first, else the catalog's), when there are at most three."""
    d = _describer(pack)
    unit_kind = pack.catalog.schema.kind("unit") or ""
    for token in _TOKEN.finditer(text):
        stem = _singular(d, token.group(0).lower())
        if stem is None or not _THEIRS_CUE.search(text[: token.start()]):
            continue
        fits = _fitting(d, sides, "theirs", [stem]) or _fitting(d, sides, "any", [stem])
        if 1 <= len(fits) <= 3:
            names = " and ".join(_display(pack, unit_kind, u) for u in fits)
            return text[: token.start()] + names + text[token.end() :], [f"{token.group(0)!r} -> {names}"]
    return text, []


def _singular(d: _Describer, word: str) -> str | None:
    """The descriptor a plural word is ("snipers" -> "sniper", "supports" -> "support"), or None."""
    for stem in (word[:-1], word[:-2]) if word.endswith("s") and len(word) > 4 else ():
        if stem in d.vocabulary and len(stem) > 2:
            return stem
    return None


def _fitting(d: _Describer, sides: _Sides, side: Side, words: list[str]) -> list[str]:
    """Every unit on `side` (any: the catalog's) every word describes."""
    for pool in sides.pools(side)[:1] if side != "any" else [list(d.words)]:
        fits = [u for u in dict.fromkeys(pool) if all(w in d.words.get(u, ()) for w in words)]
        if fits:
            return fits
    return []


def _pick(d: _Describer, sides: _Sides, side: Side, descriptors: list[str]) -> tuple[str | None, list[str]]:
    """The one unit the description names, or None and the ones it could be."""
    strongest = any(w in _STRONGEST for w in descriptors)
    words = [w for w in descriptors if w not in _STRONGEST]
    for pool in sides.pools(side) + ([list(d.words)] if side == "any" and not strongest else []):
        fits = [u for u in dict.fromkeys(pool) if all(w in d.words.get(u, ()) for w in words)]
        singled = [u for u in fits if all(w in d.strong.get(u, ()) for w in words)]
        if len(fits) > 1 and singled:
            fits = singled  # "the healer": the two called healers, not every support
        if strongest and fits:
            return max(fits, key=lambda u: d.power.get(u, 0.0)), []
        if len(fits) == 1:
            return fits[0], []
        if fits:
            return None, fits  # two fit: not this step's guess
    return None, []


# --- 4. references -------------------------------------------------------------------------------


def _units(pack: Pack, text: str) -> list[str]:
    unit_kind = pack.catalog.schema.kind("unit")
    return list(dict.fromkeys(m.id for m in link_entities(pack, text) if m.kind == unit_kind))


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]


def _refer(
    pack: Pack, sides: _Sides, text: str, history: Sequence[Exchange]
) -> tuple[str, list[str], _Unclear | None]:
    """he / him / that guy / the other one -> the unit the dialogue was about (see the module doc);
    unclear when "he" has no one to be (nothing named before, none named now)."""
    unit_kind = pack.catalog.schema.kind("unit") or ""
    here = set(_units(pack, text))  # "is he a problem for Renzo": he is someone else
    if not history:
        person = _PERSON.search(text)
        if person is None or here:
            return text, [], None
        return text, [], _Unclear((), text[: person.start()] + HOLE + text[person.end() :])
    last = history[-1]
    said = _units(pack, last.utterance)
    answered = _units(pack, _first_sentence(last.reply))
    older = [u for ex in reversed(history[:-1]) for u in _units(pack, ex.utterance)]
    for match in _PRONOUN.finditer(text):
        pronoun = match["p"].lower()
        before = text[: match.start()]
        side = "theirs" if _THEIRS_CUE.search(before) else "mine" if _MINE_CUE.search(before) else "any"
        if side == "any" and _MINE_AFTER.match(text[match.end() :]):
            side = "mine"  # "is he ready", "is he unlocked yet"
        if side == "any" and pronoun in ("that one", "this one"):
            continue  # "won that one": a round as often as a unit; only a verb for units says which
        if pronoun.startswith("the other"):
            # The one of the last exchange's two units the player did not just name.
            pool = [u for u in dict.fromkeys([*answered, *said]) if u not in said[:1]]
        else:
            pool = list(dict.fromkeys([*said, *answered, *older]))
        pool = [u for u in pool if u not in here]
        if side != "any":
            pool = [u for u in pool if sides.side_of(u) in (side, "any")] or pool
        if not pool:
            continue
        name = _display(pack, unit_kind, pool[0])
        possessive = pronoun in ("his", "hers") or match["poss"] is not None
        if pronoun == "her" and _possessive_her(text, match.end()):
            possessive = True
        spoken = f"{name}'s" if possessive else name
        return text[: match.start()] + spoken + text[match.end() :], [f"{match.group(0)!r} -> {name}"], None
    return text, [], None


# "How do I beat him?" as the first thing said: a person pronoun with no one to stand for.
_PERSON = re.compile(r"\b(?:he|him|she|her|that guy|this guy)\b", re.IGNORECASE)


def _possessive_her(text: str, end: int) -> bool:
    """ "her skills" (a possessive) rather than "beat her" or "her?"."""
    return (
        re.match(
            r"\s+(?!to\b|the\b|a\b|an\b|and\b|or\b|if\b|with\b|in\b|on\b|at\b|now\b|yet\b)[a-z]",
            text[end:],
            re.I,
        )
        is not None
    )


# --- 1-2. corrections and follow-ups -----------------------------------------------------------------


def _short(pack: Pack, rest: str) -> bool:
    """Is `rest` little more than names ("the Oakhorn one", "Sparkwing instead")?"""
    spans = [m.span for m in link_entities(pack, rest)]
    bare = "".join(ch if not any(a <= i < b for a, b in spans) else " " for i, ch in enumerate(rest))
    schema = pack.catalog.schema
    nouns = {n.lower() for n in schema.kinds[schema.kind("unit") or ""].nouns}
    words = [w for w in re.findall(r"[a-z]+", bare.lower()) if w not in _FILLER and w not in nouns]
    return bool(spans) and len(words) <= 1


def _substitute(pack: Pack, sides: _Sides, previous: str, new: list[Mention], drop: set[str]) -> str | None:
    """`previous` with each of `new`'s entities in place of the one of its kind (and side) it named;
    `drop`: ids the player said were wrong ("Oakhorn, not Emberfox"), replaced first."""
    earlier = link_entities(pack, previous)
    out = previous
    changed = False
    for m in new:
        same = [e for e in earlier if e.kind == m.kind and e.id != m.id]
        if not same:
            continue
        target = next((e for e in same if e.id in drop), None)
        if target is None:
            side = sides.side_of(m.id)
            target = next((e for e in same if sides.side_of(e.id) == side), same[0])
        name = _display(pack, m.kind, m.id)
        out = out.replace(target.surface, name, 1)
        earlier = [e for e in earlier if e is not target]
        changed = True
    return out if changed else None


def _correct(pack: Pack, sides: _Sides, text: str, history: Sequence[Exchange]) -> tuple[str, list[str]]:
    lead = _CORRECTION_LEAD.match(text)
    if lead is not None and _BARE_NO.match(lead.group(0)) and _OPENS_QUESTION.match(text[lead.end() :]):
        return text[lead.end() :], [f"dropped {lead.group(0).strip()!r}"]  # "no, what does X do?"
    if lead is not None and lead.end() > 0 and _CORRECTING.search(lead.group(0)):
        rest = text[lead.end() :]
        if history and _short(pack, rest):
            mentions = link_entities(pack, rest)
            drop = {m.id for m in mentions if _NOT_X.search(rest[: m.span[0]])}
            keep = [m for m in mentions if m.id not in drop]
            redo = _substitute(pack, sides, history[-1].utterance, keep, drop)
            if redo is not None:
                return redo, [f"correction of {history[-1].utterance!r}"]
        # A new question after "no, ..." / "sorry, ...": the cue is not an exclusion.
        if rest.strip():
            return rest, [f"dropped {lead.group(0).strip()!r}"]
    # Inside one utterance: "what's next for Osmund - actually no, Kasimir's".
    for cue in _INLINE_CORRECTION.finditer(text):
        if cue.start() == 0 or not _CORRECTING.search(cue.group(0)):
            continue
        after = [m for m in link_entities(pack, text[cue.end() :]) if m.span[0] == 0]
        if not after:
            continue
        b = after[0]
        a = next((m for m in reversed(link_entities(pack, text[: cue.start()])) if m.kind == b.kind), None)
        if a is None:
            continue
        tail = text[cue.end() + b.span[1] :]
        tail = re.sub(r"^'s\b", "", tail)
        name = _display(pack, b.kind, b.id)
        fixed = text[: a.span[0]] + name + text[a.span[1] : cue.start()] + tail
        return fixed, [f"{a.surface!r} corrected to {name}"]
    return text, []


def _follow_up(pack: Pack, sides: _Sides, text: str, history: Sequence[Exchange]) -> tuple[str, list[str]]:
    match = _FOLLOW_UP.match(text)
    if match is None or not history or not _short(pack, match["rest"]):
        return text, []
    new = link_entities(pack, match["rest"])
    redo = _substitute(pack, sides, history[-1].utterance, new, set())
    if redo is None:
        return text, []
    return redo, [f"follow-up on {history[-1].utterance!r}"]


# --- two questions in one breath ----------------------------------------------------------------

_QUESTION_START = (
    r"(?:what|what's|whats|which|who|who's|whose|how|is|are|can|could|should|shall|does|do|did|will|"
    r"would|where|when|why|any)\b"
)
_SECOND_QUESTION = re.compile(
    rf"(?:\?\s+|[,;]?\s+(?:and|also|plus)\s+(?:also\s+|then\s+)?|[,;]\s+)(?={_QUESTION_START})",
    re.IGNORECASE,
)


_OPENS_QUESTION = re.compile(
    rf"^\s*(?:(?:hey|hi|ok|okay|so|and|also|uh|um|like|coach|quick question|real quick|right)\b[\s,]*)*"
    rf"{_QUESTION_START}",
    re.IGNORECASE,
)


def split_questions(text: str) -> tuple[str, str | None]:
    """ "What does Gale Dive do, and is Galehawk ready for it?" -> the two questions. Both parts
    must be questions: the first opens like one (or ends on "?") and has three words or more, the
    second opens like one. "I evolved Briarcat, is Bramble Crush unlocked?" is one question: the
    statement is what it asks about."""
    for match in _SECOND_QUESTION.finditer(text):
        first, second = text[: match.start()].strip(" ,;"), text[match.end() :].strip()
        asks = _OPENS_QUESTION.match(first) is not None or text[: match.end()].rstrip().endswith("?")
        if asks and len(first.split()) >= 3 and len(second.split()) >= 2:
            return first, second
    return text, None


_UNRESOLVED = re.compile(r"\b(?:it|he|him|his|she|her|that one|this one)\b", re.IGNORECASE)


# --- the step --------------------------------------------------------------------------------------


def read_turn(pack: Pack, state: LiveState | None, text: str, history: Sequence[Exchange] = ()) -> Reading:
    """`text` as the question it stands for in the dialogue `history` (oldest first, heard turns
    only) and the live `state`; two questions in it are read one after the other (the second's
    "it" is the first's). Unchanged when nothing in it refers back, describes or asks twice."""
    first, second = split_questions(text)
    if second is None:
        return _read_one(pack, state, text, history)
    one = _read_one(pack, state, first, history)
    two = _read_one(pack, state, second, [*history, Exchange(one.text, "")])
    if _UNRESOLVED.search(two.text):
        # "Who's my strongest, and what can it learn?": "it" is the first answer's, which W1
        # cannot know before the reply; asked as one question, the first half is answered.
        return _read_one(pack, state, text, history)
    notes = (*one.resolved, *two.resolved, "two questions")
    return Reading(text=one.text, resolved=notes, second=two.text)


def _ask(pack: Pack, unclear: _Unclear) -> str:
    """ "Their Voltail, or your Sparkwing?"; with no options, which unit the player means."""
    if not unclear.options:
        return f"Which {pack.catalog.schema.kind('unit')} do you mean?"
    unit_kind = pack.catalog.schema.kind("unit") or ""
    said = [
        f"{({'theirs': 'their ', 'mine': 'your '}).get(side, '')}{_display(pack, unit_kind, uid)}"
        for side, uid in unclear.options
    ]
    question = ", or ".join([", ".join(said[:-1]), said[-1]] if len(said) > 2 else said)
    return question[:1].upper() + question[1:] + "?"


def _resume(
    pack: Pack, state: LiveState | None, text: str, history: Sequence[Exchange]
) -> tuple[str, list[str]] | None:
    """The question the coach asked back about, with the player's answer in its hole ("theirs",
    "the fire one", a name); None when the last reply asked nothing, or this does not answer it."""
    if not history:
        return None
    last = history[-1]
    before = _read_one(pack, state, last.utterance, history[:-1], resume=False)
    if before.ask is None or before.pending is None or last.reply.strip() != before.ask:
        return None
    sides = _Sides(pack, state)
    unit_kind = pack.catalog.schema.kind("unit") or ""
    options = [uid for _, uid in _options_of(pack, sides, before)]
    named = [u for u in _units(pack, text) if not options or u in options]
    words = {w.lower() for w in re.findall(r"[a-z']+", text.lower())}
    chosen = named[0] if named else None
    if chosen is None and options:
        mine = {*_MINE, "your", "yours", "i", "me", "i've"}
        side = "theirs" if words & set(_THEIRS) else "mine" if words & mine else None
        on_side = [u for u in options if sides.side_of(u) == side]
        d = _describer(pack)
        described = [u for u in options if words & d.words.get(u, frozenset())]
        for fits in (on_side, described):
            if len(fits) == 1:
                chosen = fits[0]
                break
    if chosen is None:
        text, _, _ = _describe(pack, sides, text)  # "the sniper": a description of its own
        chosen = next(iter(_units(pack, text)), None)
    if chosen is None:
        return None
    side = sides.side_of(chosen)
    name = ({"theirs": "their ", "mine": "my "}).get(side, "") + _display(pack, unit_kind, chosen)
    return before.pending.replace(HOLE, name), [f"answer to {before.ask!r}: {name}"]


def _options_of(pack: Pack, sides: _Sides, reading: Reading) -> list[tuple[Side, str]]:
    unit_kind = pack.catalog.schema.kind("unit") or ""
    return [
        (sides.side_of(e.id), e.id)
        for part in (reading.ask or "").replace("?", "").split(", or ")
        for e in [pack.catalog.by_name(unit_kind, part.lower().removeprefix("their ").removeprefix("your "))]
        if e is not None
    ]


def _read_one(
    pack: Pack, state: LiveState | None, text: str, history: Sequence[Exchange], resume: bool = True
) -> Reading:
    notes: list[str] = []
    if resume and (resumed := _resume(pack, state, text, history)) is not None:
        text, notes = resumed
        history = history[:-1]  # the question asked back and its answer are one turn
    sides = _Sides(pack, state)
    text, said, unclear = _describe(pack, sides, text)
    notes += said
    for step in (_correct, _follow_up):
        text, said = step(pack, sides, text, history)
        notes += said
        if said and not said[0].startswith("dropped"):
            break
    text, said, unsure = _refer(pack, sides, text, history)
    notes += said
    unclear = unclear or unsure
    if unclear is not None:
        return Reading(text=text, resolved=tuple(notes), ask=_ask(pack, unclear), pending=unclear.template)
    if history:
        it = resolve_reference(pack, text, history[-1].utterance)
        if it == text:
            it = resolve_reference(pack, text, _first_sentence(history[-1].reply))
        if it != text:
            notes.append("'it' -> the last turn's entity")
            text = it
    return Reading(text=text, resolved=tuple(notes))
