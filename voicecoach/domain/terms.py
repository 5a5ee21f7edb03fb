"""A game term the player asks the meaning of: "what's a tank", "what did you mean by poke",
"sorry, what's an element". The term is one of the pack's own words (a role, a play style, the
type kind), so the answer explains it and ties it to the live state, instead of answering a
question about the team the term happens to name ("For poke, run ...")."""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from voicecoach.domain.english import FUNCTION_WORDS
from voicecoach.domain.pack import Pack

_OPENERS = (
    r"(?:(?:so|ok|okay|and|but|sorry|wait|hold\s+on|one\s+sec|um+|uh+|hmm+|coach|hey|quick|real\s+quick|"
    r"remind\s+me|sry)\W+)*"
)
_ARTICLE = r"(?:(?P<the>the)\s+|an?\s+)?"
_TERM = r"(?P<term>[a-z][a-z -]*?)"
_MEANING = [
    # (after a short lead that asks nothing: "I just started, what even is a controller")
    # (the lead's comma may be gone: the prior reads normalised text)
    re.compile(rf"^\W*(?:[^?.!]{{1,40}}?(?:[,.!]\s*|\s))??{_OPENERS}{asked}\W*$", re.IGNORECASE)
    for asked in (
        rf"what(?:\s+even|\s+exactly|\s+actually)?\s*(?:'?s|\s+is|\s+are)\s+(?:even\s+|exactly\s+|actually\s+)?"
        rf"{_ARTICLE}{_TERM}"
        rf"(?:\s+(?:again|exactly|even|anyway|mean|means))?",
        rf"what\s+(?:does|do)\s+{_ARTICLE}{_TERM}\s+mean",
        rf"what\s+(?:do|did)\s+you\s+mean\s+(?:by|with)\s+{_ARTICLE}{_TERM}",
        rf"(?:explain|define)\s+(?:what\s+)?{_ARTICLE}{_TERM}(?:\s+(?:means|is))?",
        # "what does a support do": a role's job (an article first, so not "what does Emberfox do")
        rf"what\s+(?:does|do)\s+(?:an?)\s+{_TERM}\s+do",
        rf"what\s+means?\s+{_ARTICLE}{_TERM}",  # "What mean poke comp?"
    )
]
# Words a player puts after the term ("a dive comp", "the element thing") that are not the term.
_AFTER = {
    "comp",
    "comps",
    "team",
    "teams",
    "style",
    "role",
    "roles",
    "thing",
    "things",
    "type",
    "types",
    "stuff",
}


# "A breakthrough map", "escort mode": the word a rule of the game says, and a noun for its kind.
_GENERIC_NOUNS = frozenset(
    {"map", "maps", "mode", "modes", "slot", "slots", "match", "round", "item", "items"}
)


class Term(NamedTuple):
    kind: Literal["role", "style", "type", "rule", "chart", "catalog"]
    key: str  # the role's or style's key in vocabulary.json, the type kind's name, or the rule's text


# "Which one beats which, is there like a chart", "how does the type chart work" (English cue words):
# the whole chart of the pack's type kind asked for, not one matchup.
def _chart(kind: str) -> re.Pattern[str]:
    words = f"(?:type|{re.escape(kind)})s?"
    return re.compile(
        rf"\b(?:{words}\s+(?:chart|wheel|table|system)|which\s+(?:one|{words})\s+beats?\s+"
        rf"which|what\s+beats\s+what|is\s+there\s+(?:like\s+)?an?\s+(?:{words}\s+)?chart"
        # "like whats the chart thing", "explain the chart"
        r"|(?:what(?:'s|s|\s+is)|how\s+does|explain|get|understand)\s+(?:the|this|that|a)\s+chart)\b"
    )


# "What maps are there", "how many heroes are in the game", "did they add new maps" (English cue
# words): the whole of one kind of the catalog, not a question about the match.
_LISTED = re.compile(
    r"\b(?:what|which|how\s+many)\s+(?:other\s+|new\s+|different\s+|kinds?\s+of\s+)?(?P<noun>[a-z]+)\s+"
    r"(?:are\s+there|exist|are\s+(?:there\s+)?in\s+(?:the|this)\s+game|(?:does|do)\s+(?:the|this)\s+game\s+have)\b"
    r"|\b(?:add|added)\s+(?:any\s+)?new\s+(?P<added>[a-z]+)\b"
    r"|^(?:\W*(?:ok|okay|so|hey|coach|can\s+you|could\s+you|just)\W+)*(?:list|name)\s+(?:all\s+)?(?:of\s+)?"
    r"(?:the\s+)?(?P<named>[a-z]+)(?:\s+(?:for\s+me|please|in\s+the\s+game))*\W*$",
    re.IGNORECASE,
)
_SIDE_WORDS = re.compile(r"\b(?:my|our|mine|their|they|them|theirs|enemy|i\s+have|i\s+own)\b", re.IGNORECASE)


def _listed(pack: Pack, text: str) -> str | None:
    """The catalog kind whose whole list `text` asks for, or None (one side's units are no list of
    the game's)."""
    said = _LISTED.search(text)
    if said is None or _SIDE_WORDS.search(text.replace("they add", "")):
        return None
    noun = (said.group("noun") or said.group("added") or said.group("named")).lower()
    schema = pack.catalog.schema
    for kind_name, kind in schema.kinds.items():
        words = {kind_name, schema.plural(kind_name), *kind.nouns, *(f"{n}s" for n in kind.nouns)}
        if noun in words and pack.catalog.entities.get(kind_name):
            return kind_name
    return None


def asked_term(pack: Pack, text: str) -> Term | None:
    """The pack term `text` asks the meaning of, or None (a unit or an option named is no term)."""
    text = text.strip().lower().replace("\u2019", "'")
    if (listed := _listed(pack, text)) is not None:
        return Term("catalog", listed)
    typed = next((name for name, kind in pack.catalog.schema.kinds.items() if kind.role == "type"), None)
    if typed is not None and _chart(typed).search(text) and not re.search(r"\b(?:my|our|mine)\b", text):
        # (the chart "for my team" asks what the player's own are strong and weak against: not this)
        return Term("chart", typed)
    said = next((m for pattern in _MEANING if (m := pattern.match(text)) is not None), None)
    if said is None:
        return None
    words = said.group("term").replace("-", " ").split()
    while len(words) > 1 and words[-1] in _AFTER:
        words.pop()
    term = " ".join(words)
    if not term:
        return None
    forms = {term, term[:-1] if term.endswith("s") else term}
    for kind_name, kind in pack.catalog.schema.kinds.items():
        if kind.role == "type" and ({kind_name, f"{kind_name}s"} & forms):
            return Term("type", kind_name)
    if said.groupdict().get("the") is not None:  # "what's the range": a question about something, not a word
        return None
    vocabulary = pack.vocabulary
    for key, role in vocabulary.roles.items():
        if forms & {key, *role.words}:
            return Term("role", key)
    for key, style in vocabulary.styles.items():
        if style.summary is not None and forms & {key, *style.words}:
            return Term("style", key)
    # "What's a perk", "what's a breakthrough map": the manifest's rule that says it (the whole term,
    # else its first word: "breakthrough" of "breakthrough map")
    if len(words) > 2 or any(w in FUNCTION_WORDS for w in words):
        return None  # "what is their team doing": a question, not a word
    generic = len(words) == 2 and words[1] in _GENERIC_NOUNS
    for said_as in dict.fromkeys([term, words[0]] if generic else [term]):
        if len(said_as) < 4:
            continue
        word = re.compile(rf"\b{re.escape(said_as)}s?\b", re.IGNORECASE)
        rule = next((r for r in pack.domain_rules if word.search(r)), None)
        if rule is not None:
            return Term("rule", rule)
    return None
