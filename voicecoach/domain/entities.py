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
from dataclasses import dataclass
from typing import Any

from voicecoach.domain.catalog import Role, Schema
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


# --- "How do I unlock it?": a pronoun that refers to the last turn's entity ---------------------

# A pronoun right after one of these words refers back to an entity (English cue words, as
# slot_rules'); idioms such as "close it out" or "turn it around" have none of them before "it".
# Which kind it refers to is said by the words: the English ones below by role, and each kind's own
# `nouns` / `verbs` from the schema (pet's: "skill", "cast", "pet", "evolve" ...).
_DUMMY_VERBS = ("is", "does", "about", "worth", "get", "getting")
_ANY_KIND_VERBS = ("use", "using", "get", "getting", "about", "does", "is", "worth", "ready for", "good for")
_ROLE_VERBS: dict[Role, tuple[str, ...]] = {
    "unit": ("level", "levelling", "leveling", "train", "training", "field", "bring", "swap", "buy",
             "run", "with", "against", "counter", "counters", "beat", "beats"),
    "option": ("unlock",),
}  # fmt: skip
_ROLE_NOUNS: dict[Role, tuple[str, ...]] = {"unit": ("guy",)}


@dataclass(frozen=True)
class _Referring:
    pattern: re.Pattern[str]
    kinds: list[tuple[EntityKind, frozenset[str]]]  # kinds a pronoun may stand for, and their words
    fallback: list[EntityKind]  # no kind's word said: the option, else the unit ("what does it do")


_REFERRING: dict[int, tuple[Schema, _Referring]] = {}


def _referring(schema: Schema) -> _Referring:
    """The pronoun pattern and the referring kinds of a schema: its option kind, its unit kind (pet:
    skill, creature; in that order of precedence), then every other kind with nouns or verbs."""
    hit = _REFERRING.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    roles = [schema.kind("option"), schema.kind("unit")]
    extra = [k for k, spec in schema.kinds.items() if k not in roles and (spec.nouns or spec.verbs)]
    kinds: list[tuple[EntityKind, frozenset[str]]] = []
    nouns: set[str] = set()
    verbs = set(_ANY_KIND_VERBS)
    for kind in [k for k in roles if k is not None] + extra:
        spec = schema.kinds[kind]
        k_nouns = {*_ROLE_NOUNS.get(spec.role, ()), *spec.nouns}
        k_verbs = {*_ROLE_VERBS.get(spec.role, ()), *spec.verbs}
        kinds.append((kind, frozenset(w.lower() for w in k_nouns | k_verbs)))
        nouns |= k_nouns
        verbs |= k_verbs
    # Each alternative is a whole word followed by a space or a word boundary, so their order
    # does not change what matches.
    named = rf"|(?:that|this) (?P<noun>{'|'.join(sorted(nouns))})" if nouns else ""
    pronoun = rf"(?P<pronoun>it|that one|this one{named})"
    pattern = re.compile(rf"\b(?P<verb>{'|'.join(sorted(verbs))})\s+{pronoun}\b", re.I)
    fallback = [k for k in roles if k is not None]
    referring = _Referring(pattern, kinds, fallback)
    _REFERRING[id(schema)] = (schema, referring)
    return referring


def resolve_reference(pack: Pack, text: str, previous: str | None) -> str:
    """`text` with a pronoun that refers back ("how do I unlock it?") replaced by the name of the
    entity `previous` (the last heard turn's utterance) was about, so that every rule after it (the
    intent prior, the slot rules, Φ's focus fields) reads the name. Unchanged when `text` names an
    entity of the kind the pronoun stands for itself, has no such pronoun, or `previous` named none
    of the kind it needs: the word before the pronoun says which kind ("unlock it": a skill; "evolve it": a
    creature; "what does it do": the last turn's skill if it named one, else its creature)."""
    referring = _referring(pack.catalog.schema)
    if not previous:
        return text
    match = referring.pattern.search(text)
    if match is None:
        return text
    earlier = link_entities(pack, previous)
    words = {match["verb"].lower(), (match.groupdict().get("noun") or "").lower()}
    wanted = next(([k] for k, said in referring.kinds if words & said), referring.fallback)
    # "Can Emberfox use it?" and "is Sparkwing any good against it?" name one entity, and "it" is
    # another: the last turn's, never one this sentence names. After a verb that says no kind, a
    # sentence that names one has a dummy "it" ("is it worth putting time into Hexmoth?").
    linked = link_entities(pack, text)
    here = {m.id for m in linked}
    if match["verb"].lower() in _DUMMY_VERBS and {m.kind for m in linked} & {k for k, _ in referring.kinds}:
        return text
    named = next((m for kind in wanted for m in earlier if m.kind == kind and m.id not in here), None)
    if named is None:
        return text
    entity = pack.catalog.get(named.kind, named.id)
    name = entity.display if entity is not None else named.surface
    return f"{text[: match.start('pronoun')]}{name}{text[match.end('pronoun') :]}"
