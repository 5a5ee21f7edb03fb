"""Deterministic entity linking: which catalog entries does an utterance mention?

Runs on raw STT text (lowercase, no punctuation) before the LLM sees it, so that Φ can
bind tool arguments such as ``ic.focus_creature`` (``ic.focus.hero``) on the early path. Matching
is by display name, id or a kind's aliases (pet's creatures: evolution-stage names; the catalog's
`forms`), case-insensitive, on word boundaries, leftmost-longest, and tolerant of simple plurals
("emberfoxes", "emberfoxs"). A mention's kind is the pack's own (`voicecoach.domain.catalog`): on a
surface-form clash the kind declared earlier in the schema wins.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from voicecoach.core.state import LiveState, apply_patch, get_field
from voicecoach.domain.pack import Pack

# A kind of the pack's schema (pet: "creature", "skill", "lineup", "element").
EntityKind = str


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


def _surfaces(pack: Pack) -> dict[str, tuple[EntityKind, str]]:
    """Normalised surface form -> (kind, id). On a clash the kind declared earlier wins."""
    table: dict[str, tuple[EntityKind, str]] = {}
    for form, kind, id_ in pack.catalog.forms():
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
        hit = (pack, _pattern([f for f, _, _ in pack.catalog.forms()]), _surfaces(pack))
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


def focus_fields(mentions: list[Mention], pack: Pack) -> dict[str, Any]:
    """The IntentContext fields entity linking fills (see voicecoach.core.state.IntentContext): the
    legacy fields from the unit and option kinds (pet's creature / skill) and, for a pack in the
    collection profile, the kind-keyed `focus` / `mentioned` (a classic snapshot keeps pet's
    wire format: those stay empty, and out of its dumps)."""
    schema = pack.catalog.schema
    unit, option = schema.kind("unit"), schema.kind("option")
    fields: dict[str, Any] = {
        "entity_links": list(dict.fromkeys(m.id for m in mentions)),
        "mentioned_creatures": list(dict.fromkeys(m.id for m in mentions if m.kind == unit)),
        "focus_creature": next((m.id for m in mentions if m.kind == unit), None),
        "focus_skill": next((m.id for m in mentions if m.kind == option), None),
    }
    if schema.state != "classic":
        mentioned: dict[str, list[str]] = {}
        for m in mentions:
            mentioned.setdefault(m.kind, [])
            if m.id not in mentioned[m.kind]:
                mentioned[m.kind].append(m.id)
        fields["mentioned"] = mentioned
        fields["focus"] = {kind: ids[0] for kind, ids in mentioned.items()}
    return fields


# "Anything that hits water hard besides Sparkwing" (English cue words): a unit named to be left
# out of the answer, not the one the question is about.
SET_ASIDE = re.compile(
    r"\b(?:besides|except|other\s+than|apart\s+from|aside\s+from)\s+(?:my\s+|our\s+)?$", re.I
)


def set_aside(text: str, mentions: Sequence[Mention]) -> list[Mention]:
    """`mentions` but the ones `text` sets aside ("besides Sparkwing")."""
    return [m for m in mentions if not SET_ASIDE.search(text[: m.span[0]])]


def units_in_plural(pack: Pack, text: str) -> bool:
    """Whether `text` says the unit kind's noun in the plural ("how many heroes have I got", "which
    pets can evolve"): a question about several of them, not about the one the dialogue was on."""
    schema = pack.catalog.schema
    unit = schema.kind("unit")
    if unit is None:
        return False
    kind = schema.kinds[unit]
    plurals = {schema.plural(unit), *(f"{n}s" for n in kind.nouns if not n.endswith("s"))}
    words = set(re.findall(r"[a-z]+", text.lower()))
    return bool(words & plurals)


def context_in_play(pack: Pack, state: LiveState, utterance: str, links: dict[str, Any]) -> dict[str, Any]:
    """`links` with the context entity in play as the focus of its kind when the player asks about
    it by its noun and names none ("what map is this", "tell me about the map"): the one the
    state's match has (schema.json `state`). Unchanged otherwise."""
    focus = links.get("focus")
    if focus is None:
        return links
    for name, kind in pack.catalog.schema.kinds.items():
        if kind.role != "context" or not kind.state or name in focus or not kind.nouns:
            continue
        value = get_field(state, kind.state)
        if value and context_said(pack, name, utterance):
            links = {**links, "focus": {**focus, name: value}}
    return links


def context_said(pack: Pack, kind_name: str, utterance: str) -> bool:
    """Does `utterance` speak of the context kind `kind_name` by its noun ("what map is this"), an
    attribute's name or one of its listed values ("is it control or escort", "what mode is this")?"""
    kind = pack.catalog.schema.kinds[kind_name]
    words = {n.lower() for n in kind.nouns}
    for attribute, spec in kind.attributes.items():
        values = getattr(spec, "values", None)
        if isinstance(values, list):
            words |= {attribute.lower(), *(str(v).lower() for v in values)}
    said = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return bool(said) and re.search(rf"\b(?:{said})s?\b", utterance, re.IGNORECASE) is not None


def context_attribute_asked(pack: Pack, utterance: str) -> str | None:
    """The context kind (a map) whose listed attribute `utterance` asks about, by the attribute's
    name or its values ("what mode is this", "is it control or escort"), or None (English cue words)."""
    for name, kind in pack.catalog.schema.kinds.items():
        if kind.role != "context" or not kind.state:
            continue
        for attribute, spec in kind.attributes.items():
            values = getattr(spec, "values", None)
            if not isinstance(values, list) or not values:
                continue
            said = "|".join(re.escape(str(v).lower()) for v in values)
            if re.search(
                rf"\b(?:what|which)\s+(?:{re.escape(attribute)}|kind\s+of\s+{attribute})\b"
                rf"|\b(?:is|it'?s|its)\s+(?:it|this|that|this\s+one|the\s+\w+|this\s+\w+)\s+(?:a\s+|an\s+)?"
                rf"(?:{said})\b(?:\s+(?:or|and)\s+(?:a\s+|an\s+)?(?:{said})\b)?",
                utterance,
                re.IGNORECASE,
            ):
                return name
    return None


def context_named(pack: Pack, state: LiveState, mentions: Sequence[Any]) -> LiveState | None:
    """`state` with the context entity the player names in place of its own ("who's good on
    Copperline Yard", "we're on Copperline Yard now" while the snapshot still has the last match's
    map): the turn is about the named one. None when they name none, or the one it has. Only a kind
    with a state path (schema.json `state`) in a match the snapshot has."""
    kinds = pack.catalog.schema.kinds
    for m in mentions:
        kind = kinds.get(m.kind)
        path = kind.state if kind is not None and kind.role == "context" else None
        if not path or "." not in path:
            continue
        parent, _, leaf = path.rpartition(".")
        if get_field(state, parent) is None or get_field(state, path) == m.id:
            continue
        patch: dict[str, Any] = {leaf: m.id}
        for part in reversed(parent.split(".")):
            patch = {part: patch}
        return apply_patch(state, {**patch, "version": state.version})
    return None
