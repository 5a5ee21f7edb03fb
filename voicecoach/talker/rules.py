"""The reply checker's vocabulary (paper G.3): rule ids and their families, `Failure`, `CheckContext`.

Shared by the speakable rules (`voicecoach.talker.speakable`), the grounding rules and the entry
points (`voicecoach.talker.checker`), the runtime guard and CoachBench's judge: a `Failure` names
its rule and drift tag (A latency, B slot, C fatigue, D coherence; None for a task failure), and a
`CheckContext` is what the rules judge a reply against (the live state, never a benchmark record).

The length bound: MAX_WORDS = 45 words is about 18 s of speech at ~150 words per minute, already
long for a player mid-match; the Talker is asked for one to three short sentences and W1's
narration adds one, so MAX_SENTENCES = 4 for a whole turn.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict

from voicecoach.core.state import FactSlots, Inventory, LiveState
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import Pack
from voicecoach.domain.view import StateView

DriftTag = Literal["A", "B", "C", "D"]
RuleId = Literal[
    # speakable
    "no_reply",
    "prompt_echo",
    "markup",
    "loop",
    "too_long",
    "unknown_name",
    # grounded
    "unavailable_entity",
    "false_missing",
    "self_contradiction",
    "repeated_guidance",
    "stale_evidence",
    "excluded_entity",
    # responsive (CoachBench only: it needs the reference)
    "unresponsive",
]
SPEAKABLE_RULES: frozenset[str] = frozenset(
    {"no_reply", "prompt_echo", "markup", "loop", "too_long", "unknown_name"}
)
GROUNDING_RULES: frozenset[str] = frozenset(
    {
        "unavailable_entity",
        "false_missing",
        "self_contradiction",
        "repeated_guidance",
        "stale_evidence",
        "excluded_entity",
    }
)
RESPONSIVE_RULES: frozenset[str] = frozenset({"unresponsive"})
RULES: frozenset[str] = SPEAKABLE_RULES | GROUNDING_RULES | RESPONSIVE_RULES
Role = Literal["recommended", "credited", "descriptive", "opponent"]

MAX_WORDS = 45
MAX_SENTENCES = 4
ECHO_NGRAM = 5


class Failure(BaseModel):
    model_config = ConfigDict(frozen=True)

    rule: RuleId
    drift: DriftTag | None
    entity: str | None = None
    evidence: str


@dataclass(frozen=True)
class CheckContext:
    """What the rules judge a reply against: the live state as the coach should have it.

    The player's units are read through `StateView` (voicecoach.domain.view), in the pack's own profile:
    `state` is the live snapshot (any pack), `seen_state` the one the coach read when older. A
    classic pack may give just the inventory instead (`inventory` / `seen_inventory`, pet's
    fs.inventory); `state` wins when both are given.
    """

    inventory: Inventory | None = None  # classic profile: fs.inventory, when no `state` is given
    mentioned: frozenset[str] = frozenset()  # catalog ids the player's utterance names
    excluded: frozenset[str] = frozenset()  # units the player asked to keep out this session
    opponent: frozenset[str] = frozenset()  # the opponent side (their units are not ours)
    previous_reply: str | None = None  # the coach's previous turn, for repetition
    seen_inventory: Inventory | None = None  # the snapshot the coach read, when older than live
    state: LiveState | None = None  # the live snapshot (any profile)
    seen_state: LiveState | None = None  # the snapshot the coach read, when older than live
    _views: dict[int, tuple[Pack, StateView, StateView | None]] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    def views(self, pack: Pack) -> tuple[StateView, StateView | None]:
        """(live, seen) as `pack` reads them; seen is None when the coach read the live snapshot
        (or an older one that had no units at all). Built once per context and pack."""
        hit = self._views.get(id(pack))
        if hit is None or hit[0] is not pack:
            live = self.state if self.state is not None else LiveState(fs=FactSlots(inventory=self.inventory))
            seen = self.seen_state
            if seen is None and self.seen_inventory is not None:
                seen = LiveState(fs=FactSlots(inventory=self.seen_inventory))
            seen_view = StateView(pack, seen) if seen is not None else None
            hit = (
                pack,
                StateView(pack, live),
                seen_view if seen_view is not None and seen_view.known else None,
            )
            self._views[id(pack)] = hit
        return hit[1], hit[2]

    @classmethod
    def live(
        cls,
        pack: Pack,
        state: LiveState,
        utterance: str = "",
        excluded: Iterable[str] = (),
        previous_reply: str | None = None,
    ) -> CheckContext:
        """The context of a live turn (the runtime guard's way in)."""
        match = state.ic.match
        return cls(
            mentioned=frozenset(m.id for m in link_entities(pack, utterance)),
            excluded=frozenset(excluded),
            opponent=frozenset(match.opponent_lineup) if match else frozenset(),
            previous_reply=previous_reply,
            state=state,
        )


def fail(rule: RuleId, drift: DriftTag | None, evidence: str, entity: str | None = None) -> Failure:
    return Failure(rule=rule, drift=drift, entity=entity, evidence=evidence)
