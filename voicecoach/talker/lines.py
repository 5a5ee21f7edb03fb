"""The turn the realizer builds its lines on, and the spoken forms every answer recipe shares.

`Line` is one sentence the realizer may say; `RealizerTurn` is what the lines are built from, resolved once
per turn (the live inventory, the tool results, who the player keeps out, who is on the other side).
The generic recipes (`recipes`) and the realizer's own paragraphs (`realizer`) both add lines to a
`RealizerTurn`, so they share these definitions here: the realizer imports the answer code, and the answer
code imports only this module (no import cycle).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from voicecoach.core.state import Inventory, LiveState
from voicecoach.domain.pack import Pack
from voicecoach.domain.view import StateView
from voicecoach.grounding.plan import ParagraphType


@dataclass(frozen=True)
class Line:
    """One sentence the realizer may say: its paragraph, its template key, its values."""

    paragraph: ParagraphType
    key: str  # the template key inside the paragraph type ("answer:<pair>": templates.json answers)
    values: dict[str, Any]
    keep: str  # a KEEP_ORDER entry: how much it matters when the budget is tight
    covers: frozenset[str] = frozenset()  # catalog ids this line already judges
    # Its line recommends what it covers (`picks`: a generic recipe's `picks`, or one of the
    # realizer's own picks), or states catalog facts, true whatever the player owns (`fact`).
    picks: bool = False
    fact: bool = False


@dataclass
class RealizerTurn:
    """What the lines are built from, resolved once."""

    pack: Pack
    state: LiveState
    inventory: Inventory | None
    results: dict[str, dict[str, Any]]  # tool -> result, for the tools that succeeded
    failed: list[str]  # tools that failed
    excluded: set[str]  # creature ids the player keeps out (this turn and earlier)
    opponents: list[str]  # creature ids the player named on the other side (W2's opponent slots)
    mentioned: list[str]  # creature ids in the utterance, in order
    skills: list[str]  # skill ids in the utterance, in order
    intent: str
    sub_intent: str
    turn_index: int
    min_size: int | None = None  # the team size the player asked for, if any
    lineups: list[str] = field(default_factory=list)  # pack lineup ids in the utterance, in order
    types: list[str] = field(default_factory=list)  # type ids (pet: elements) in the utterance, in order
    only: tuple[str, str] | None = None  # (attribute, value): "only fire creatures", nothing else offered
    wanted: list[str] = field(default_factory=list)  # creature ids the player wants in (W2's slots)
    # "Should I level Emberfox or Galehawk?": the units offered to choose from; a pick is one of them.
    choice: list[str] = field(default_factory=list)
    # Whose the player says a unit is, in words: "my Tamsin" (theirs too on the state) is no foe;
    # "against Quillon", "better for Quillon" names the one to face.
    said_mine: set[str] = field(default_factory=set)
    faced: list[str] = field(default_factory=list)
    unsure: set[str] = field(default_factory=set)  # late snapshot: named creatures it may be wrong about
    avoid: set[str] = field(default_factory=set)  # what the previous reply put forward
    alternative: bool = False  # the player asks for another option than the previous reply's
    # asked for another again: what the last few replies put forward (`avoid` and older)
    put_forward: set[str] = field(default_factory=set)
    # ... and each of those replies' own set: a team offered two asks ago is not "another" either
    offered_before: list[set[str]] = field(default_factory=list)
    asks_how: bool = False  # "how do I unlock it?" is no yes/no question: no "Not yet:"
    utterance: str = ""  # for the few answers that read more of it than the fields above
    unheard: bool = False  # out of domain, and it names something no catalog has: misheard?
    why: list[str] = field(default_factory=list)  # "why that one?": the previous reply's picks, in order
    recent: list[str] = field(default_factory=list)  # the session's last few replies
    # "the best map for my main team": the saved group the player names (its name, its members), and
    # whether a recipe answered about it (then the group's own listing is not the answer)
    saved_said: tuple[str, list[str]] | None = None
    saved_read: bool = False
    lines: list[Line] = field(default_factory=list)

    @cached_property
    def view(self) -> StateView:
        return StateView(self.pack, self.state)

    def owns(self, cid: str) -> bool:
        """Does the player own the unit (on a late snapshot: the roster as the player says it is)?"""
        if self.inventory is not None:
            return self.inventory.owns(cid)
        return self.view.owns(cid)

    def usable(self, cid: str) -> bool:
        """May `cid` be recommended: owned, not kept out, not in doubt on a late snapshot, of the
        one attribute value the player asked for if they did ("only fire")."""
        if self.only is not None:
            attr, value = self.only
            unit = self.pack.catalog.get(self.view.unit_kind, cid)
            if unit is None or unit.value(attr) != value:
                return False
        return self.owns(cid) and cid not in self.excluded and cid not in self.unsure

    def chosen_from(self, ids: Sequence[str]) -> list[str]:
        """`ids` kept to the units the player offered, when they offered any of them."""
        return [u for u in ids if u in self.choice] or list(ids)

    def fresh_first(self, ids: Sequence[str]) -> list[str]:
        """`ids` with the previous reply's picks moved last when the player asks for another option:
        the alternative comes first, and the old pick stays only if nothing else exists."""
        if not self.alternative:
            return list(ids)
        seen = self.put_forward or self.avoid  # asked again twice: none of the last few picks first
        return [c for c in ids if c not in seen] + [c for c in ids if c in seen]

    def add(
        self,
        paragraph: ParagraphType,
        key: str,
        keep: str,
        covers: Iterable[str] = (),
        **values: Any,
    ) -> None:
        self.lines.append(Line(paragraph, key, values, keep, frozenset(covers)))


# --- spoken forms -------------------------------------------------------------------------------


def spoken_list(items: Sequence[str]) -> str:
    """ "A", "A and B", "A, B and C"."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def article(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def rotate(items: Sequence[str], turn_index: int, n: int) -> list[str]:
    """`n` of `items`, starting at an offset that moves with the turn (a different subset each turn)."""
    if len(items) <= n:
        return list(items)
    start = turn_index % len(items)
    return [items[(start + i) % len(items)] for i in range(n)]
