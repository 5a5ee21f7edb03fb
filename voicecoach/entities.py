"""Deterministic entity linking: which catalog entries does an utterance mention?

Runs on raw STT text (lowercase, no punctuation) before the LLM sees it, so that Φ can
bind tool arguments such as ``ic.focus_creature`` on the early path. Matching is by
display name, id or (for creatures) evolution-stage name, case-insensitive, on word
boundaries, leftmost-longest, and tolerant of simple plurals ("emberfoxes", "emberfoxs").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from voicecoach.pack import Pack

EntityKind = Literal["creature", "skill", "element", "lineup"]


@dataclass(frozen=True)
class Mention:
    id: str
    kind: EntityKind
    surface: str  # the text as spoken
    span: tuple[int, int]  # [start, end) character offsets into the utterance


def _words(surface: str) -> list[str]:
    return [w for w in re.split(r"[\s_-]+", surface.strip().lower()) if w]


def _key(surface: str) -> str:
    # "Ember Fang", "ember_fang", "ember-fang" and STT's "emberfang" are one surface form.
    return "".join(_words(surface))


def _forms(pack: Pack) -> list[tuple[str, EntityKind, str]]:
    """(surface form, kind, id) for every name, id and evolution-stage name in the catalog."""
    forms: list[tuple[str, EntityKind, str]] = []
    for c in pack.creatures.values():
        forms += [(f, "creature", c.id) for f in (c.id, c.name, *c.stages)]
    for s in pack.skills.values():
        forms += [(f, "skill", s.id) for f in (s.id, s.name)]
    for lu in pack.lineups.values():
        forms += [(f, "lineup", lu.id) for f in (lu.id, lu.name)]
    forms += [(e, "element", e) for e in pack.elements.elements]
    return forms


def _surfaces(pack: Pack) -> dict[str, tuple[EntityKind, str]]:
    """Normalised surface form -> (kind, id). On a clash the earlier kind above wins."""
    table: dict[str, tuple[EntityKind, str]] = {}
    for form, kind, id_ in _forms(pack):
        table.setdefault(_key(form), (kind, id_))
    return table


def _spoken(word: str) -> str:
    """A word as STT may write it: Whisper splits invented compounds ("Galehawk" -> "Gale Hawk"),
    so a long word may break at any letter; short words (elements, "T1") must match whole."""
    if len(word) < 6:
        return re.escape(word)
    return r"[\s-]?".join(map(re.escape, word))


def _pattern(forms: list[str]) -> re.Pattern[str]:
    # Longest forms first, so the alternation prefers "second wind" over "wind" at a position.
    ordered = sorted(set(forms), key=lambda f: (-len(_key(f)), f))
    alts = [r"[\s_-]*".join(_spoken(w) for w in _words(f)) for f in ordered]
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(alts) + r")(?:e?s)?(?![a-z0-9])", re.IGNORECASE)


# Building the alternation costs ~30 ms (hundreds of surface forms), more than the runtime guard's
# whole per-sentence budget: it is built once per pack object (packs are immutable once loaded).
_LINKERS: dict[int, tuple[Pack, re.Pattern[str], dict[str, tuple[EntityKind, str]]]] = {}


def _linker(pack: Pack) -> tuple[re.Pattern[str], dict[str, tuple[EntityKind, str]]]:
    hit = _LINKERS.get(id(pack))
    if hit is None or hit[0] is not pack:
        hit = (pack, _pattern([f for f, _, _ in _forms(pack)]), _surfaces(pack))
        _LINKERS[id(pack)] = hit
    return hit[1], hit[2]


def link_entities(pack: Pack, text: str) -> list[Mention]:
    """Catalog mentions in `text`, in order of appearance, non-overlapping."""
    pattern, table = _linker(pack)
    mentions = []
    for m in pattern.finditer(text):
        surface = m.group(0)
        key = _key(surface)
        # The optional plural suffix is part of the match; strip it to look the form up.
        entry = table.get(key) or table.get(key[:-1]) or table[key[:-2]]
        mentions.append(Mention(id=entry[1], kind=entry[0], surface=surface, span=(m.start(), m.end())))
    return mentions


def focus_fields(mentions: list[Mention]) -> dict[str, Any]:
    """The IntentContext fields entity linking fills (see voicecoach.state.IntentContext)."""
    return {
        "entity_links": list(dict.fromkeys(m.id for m in mentions)),
        "mentioned_creatures": list(dict.fromkeys(m.id for m in mentions if m.kind == "creature")),
        "focus_creature": next((m.id for m in mentions if m.kind == "creature"), None),
        "focus_skill": next((m.id for m in mentions if m.kind == "skill"), None),
    }


# --- "How do I unlock it?": a pronoun that refers to the last turn's entity ---------------------

# A pronoun right after one of these words refers back to a creature or skill (English cue words,
# as slot_rules'); idioms such as "close it out" or "turn it around" have none of them before "it".
_PRONOUN = r"(?P<pronoun>it|that one|this one|(?:that|this) (?P<noun>skill|move|attack|pet|creature|guy))"
_REFERRING = re.compile(
    r"\b(?P<verb>unlock|use|using|cast|learn|get|getting|evolve|evolving|level|levelling|leveling|train|"
    r"training|field|bring|swap|buy|run|counter|counters|beat|beats|about|with|against|does|is|worth)\s+"
    rf"{_PRONOUN}\b",
    re.I,
)
_SKILL_WORDS = frozenset({"unlock", "cast", "learn", "skill", "move", "attack"})
_CREATURE_WORDS = frozenset({"evolve", "evolving", "level", "levelling", "leveling", "train", "training",
                             "field", "bring", "swap", "buy", "run", "with", "against", "counter",
                             "counters", "beat", "beats", "pet", "creature", "guy"})  # fmt: skip


def resolve_reference(pack: Pack, text: str, previous: str | None) -> str:
    """`text` with a pronoun that refers back ("how do I unlock it?") replaced by the name of the
    entity `previous` (the last heard turn's utterance) was about, so that every rule after it (the
    intent prior, the slot rules, Φ's focus fields) reads the name. Unchanged when `text` names a
    creature or skill itself, has no such pronoun, or `previous` named none of the kind it needs:
    the word before the pronoun says which kind ("unlock it": a skill; "evolve it": a creature;
    "what does it do": the last turn's skill if it named one, else its creature)."""
    if not previous or any(m.kind in ("creature", "skill") for m in link_entities(pack, text)):
        return text
    match = _REFERRING.search(text)
    if match is None:
        return text
    earlier = link_entities(pack, previous)
    words = {match["verb"].lower(), (match["noun"] or "").lower()}
    kinds = (
        ["skill"]
        if words & _SKILL_WORDS
        else ["creature"]
        if words & _CREATURE_WORDS
        else ["skill", "creature"]
    )
    named = next((m for kind in kinds for m in earlier if m.kind == kind), None)
    if named is None:
        return text
    entity = pack.skills.get(named.id) if named.kind == "skill" else pack.creatures.get(named.id)
    name = entity.name if entity is not None else named.surface
    return f"{text[: match.start('pronoun')]}{name}{text[match.end('pronoun') :]}"
