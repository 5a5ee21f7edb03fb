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


def _key(surface: str) -> str:
    # "Ember Fang", "ember_fang" and "ember-fang" are one surface form.
    return " ".join(re.split(r"[\s_-]+", surface.strip().lower()))


def _surfaces(pack: Pack) -> dict[str, tuple[EntityKind, str]]:
    """Normalised surface form -> (kind, id). On a clash the earlier kind below wins."""
    table: dict[str, tuple[EntityKind, str]] = {}
    for c in pack.creatures.values():
        for form in (c.id, c.name, *c.stages):
            table.setdefault(_key(form), ("creature", c.id))
    for s in pack.skills.values():
        for form in (s.id, s.name):
            table.setdefault(_key(form), ("skill", s.id))
    for lu in pack.lineups.values():
        for form in (lu.id, lu.name):
            table.setdefault(_key(form), ("lineup", lu.id))
    for e in pack.elements.elements:
        table.setdefault(_key(e), ("element", e))
    return table


def _pattern(forms: list[str]) -> re.Pattern[str]:
    # Longest forms first, so the alternation prefers "second wind" over "wind" at a position;
    # re caches the compiled pattern, so rebuilding it per utterance is cheap.
    alts = [r"[\s_-]+".join(map(re.escape, f.split(" "))) for f in sorted(forms, key=lambda f: (-len(f), f))]
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(alts) + r")(?:e?s)?(?![a-z0-9])", re.IGNORECASE)


def link_entities(pack: Pack, text: str) -> list[Mention]:
    """Catalog mentions in `text`, in order of appearance, non-overlapping."""
    table = _surfaces(pack)
    mentions = []
    for m in _pattern(list(table)).finditer(text):
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
