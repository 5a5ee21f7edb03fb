"""W1 Perception kernel (paper §4, A.1, A.5, C): the freeze decision of one turn.

`W1Decision` consumes the events of one turn (`voicecoach.perception.tags`): when SUB_INTENT
closes it looks up Φ(intent, sub_intent) (`voicecoach.perception.phi`); on a hit whose decision
fields are fresh in the live state it *freezes* the tool set and dispatches at once, otherwise
it waits for PLAN (`voicecoach.perception.plan`; a Φ miss is a *fall-through*; missing/stale
state is *degraded*). A later PLAN never overrides a frozen set. `W1Turn` wires the parser and
the decision together for an actor. W1's prompt and grammars are in `voicecoach.perception.prompt`,
its narration checks in `voicecoach.perception.narration`.

Pure Python: nothing here imports Pipecat, so every rule is unit-testable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from voicecoach.core.state import LiveState, field_status
from voicecoach.domain.pack import PhiEntry
from voicecoach.perception.phi import PhiTable, Validator, bind_args, decision_fields
from voicecoach.perception.plan import ToolCall, parse_plan
from voicecoach.perception.tags import (
    FormatError,
    IntentClosed,
    PlanClosed,
    SubIntentClosed,
    TagStreamParser,
    W1Event,
)

Outcome = Literal["frozen", "miss", "degraded", "format_error"]


@dataclass
class W1Counters:
    """Session-level W1 counts; `fall_through_rate` is the paper's maintained metric (C, L4)."""

    turns: int = 0
    frozen: int = 0
    fall_through: int = 0  # Φ undefined for the pair: dispatch waited for PLAN
    degraded: int = 0  # Φ hit but decision state missing or stale: no early path
    plan_ignored: int = 0  # a PLAN that arrived after the tool set was frozen
    format_errors: int = 0  # turns whose stream had at least one FormatError

    @property
    def fall_through_rate(self) -> float:
        return self.fall_through / self.turns if self.turns else 0.0


@dataclass(frozen=True)
class Dispatch:
    """The tool set of one turn. A turn driven to `finish()` produces exactly one Dispatch."""

    calls: list[ToolCall]
    source: Literal["phi", "plan", "none"]  # none: the turn ended with nothing to dispatch
    frozen: bool = False
    errors: list[str] = field(default_factory=list)  # PLAN calls dropped, and why


class W1Decision:
    """Φ lookup and freeze decision for one turn (paper §4, A.1, A.5).

    Feed it the parser's events: `on_sub_intent` when SUB_INTENT closes, `on_plan` when PLAN
    closes, `on_format_error` for each FormatError, `finish` at end of stream. The first call
    that has a tool set to dispatch returns it; every other call returns None.

        Φ hit, decision fields fresh   -> freeze: Dispatch(source="phi", frozen=True) at once
        Φ hit, a field missing / stale -> degraded: no early path, wait for PLAN
        Φ miss (unregistered pair)     -> fall-through: wait for PLAN
        PLAN after a freeze            -> ignored (a later PLAN never overrides a frozen set)

    `validate` checks and normalises each call: `tool_validator(pack)` for the turn's pack (there is
    no default pack: the kernel is told which game it serves). A Φ call it rejects disables the
    early path (degraded); a PLAN call it rejects is dropped with the reason in `Dispatch.errors`.
    """

    def __init__(
        self,
        phi: PhiTable,
        counters: W1Counters | None = None,
        *,
        max_age: int = 0,
        validate: Validator,
    ) -> None:
        self.phi = phi
        self.counters = counters if counters is not None else W1Counters()
        self.max_age = max_age  # turns a snapshot may lag the turn and still count as fresh
        self.validate = validate
        self.outcome: Outcome | None = None  # set by on_sub_intent, or by on_plan/finish if never called
        self.reason = ""  # why the early path was not taken
        self.entry: PhiEntry | None = None  # the Φ hit, if any
        self.dispatch: Dispatch | None = None
        self.plan_ignored = False
        self.errors: list[str] = []  # format errors and dropped calls, for the turn's log
        self._looked_up = False
        self._format_error_seen = False
        self._finished = False
        self.counters.turns += 1

    @property
    def frozen(self) -> bool:
        return self.dispatch is not None and self.dispatch.frozen

    def on_sub_intent(
        self, intent: str, sub_intent: str, state: LiveState, turn_index: int
    ) -> Dispatch | None:
        """T̂ = Φ(intent, sub_intent, s_ic); freeze and dispatch on a hit with fresh decision fields."""
        if self._looked_up or self.dispatch is not None:
            return None
        self._looked_up = True
        if not intent or not sub_intent:
            self.outcome = "format_error"  # a label is missing: Φ cannot be consulted
            self.reason = "intent or sub_intent label missing"
            return None
        entry = self.phi.lookup(intent, sub_intent)
        if entry is None:
            self.outcome = "miss"
            self.reason = f"Φ undefined for {intent}/{sub_intent}"
            self.counters.fall_through += 1
            return None
        self.entry = entry
        statuses = {
            path: field_status(state, path, turn_index, self.max_age) for path in decision_fields(entry)
        }
        unusable = [f"{path} {status}" for path, status in statuses.items() if status != "fresh"]
        if unusable:
            self._degrade("decision state " + ", ".join(unusable))
            return None
        calls: list[ToolCall] = []
        for use in entry.tools:
            args = bind_args(use.args, state)
            try:
                calls.append(ToolCall(use.tool, self.validate(use.tool, args)))
            except ValueError as err:  # e.g. a bound id the catalog no longer knows
                self._degrade(f"Φ call {use.tool} rejected: {err}")
                return None
        self.outcome = "frozen"
        self.counters.frozen += 1
        self.dispatch = Dispatch(calls, source="phi", frozen=True)
        return self.dispatch

    def on_plan(self, plan_text: str) -> Dispatch | None:
        """Fallback path: dispatch the PLAN's valid calls, unless the tool set is already frozen."""
        if self.frozen:
            self.plan_ignored = True
            self.counters.plan_ignored += 1
            return None
        if self.dispatch is not None:
            return None
        if self.outcome is None:
            self.outcome = "format_error"  # PLAN without SUB_INTENT: Φ was never consulted
        parsed = parse_plan(plan_text)
        errors = list(parsed.errors)
        calls: list[ToolCall] = []
        for call in parsed.calls:
            try:
                calls.append(ToolCall(call.tool, self.validate(call.tool, call.args)))
            except ValueError as err:  # unknown tool or bad args: drop this call only
                errors.append(f"{call.tool}: {err}")
        self.errors += errors
        self.dispatch = Dispatch(calls, source="plan", errors=errors)
        return self.dispatch

    def on_format_error(self, reason: str) -> None:
        if not self._format_error_seen:  # counted once per turn
            self._format_error_seen = True
            self.counters.format_errors += 1
        self.errors.append(f"format: {reason}")

    def finish(self) -> Dispatch | None:
        """End of turn. If nothing was dispatched (no PLAN after a miss, or a lost stream),
        dispatch the empty set so downstream never waits for tool results that will not come."""
        if self._finished:
            return None
        self._finished = True
        if self.outcome is None:
            self.outcome = "format_error"
        if self.dispatch is None:
            self.dispatch = Dispatch([], source="none")
            return self.dispatch
        return None

    def _degrade(self, reason: str) -> None:
        self.outcome = "degraded"
        self.reason = reason
        self.counters.degraded += 1


@dataclass(frozen=True)
class W1Step:
    events: list[W1Event]
    dispatch: Dispatch | None = None


class W1Turn:
    """Parser + decision for one turn: what a W1 actor drives with the LLM's token stream.

    `state` is a snapshot or a callable returning the latest one; it is read when SUB_INTENT
    closes, the moment Φ needs the decision fields to be fresh.
    """

    def __init__(
        self,
        phi: PhiTable,
        state: LiveState | Callable[[], LiveState],
        turn_index: int,
        counters: W1Counters | None = None,
        *,
        max_age: int = 0,
        validate: Validator,
    ) -> None:
        self.parser = TagStreamParser()
        self.decision = W1Decision(phi, counters, max_age=max_age, validate=validate)
        self._state = state
        self.turn_index = turn_index
        self.intent = ""

    def feed(self, chunk: str) -> W1Step:
        return self._route(self.parser.feed(chunk), final=False)

    def finish(self) -> W1Step:
        return self._route(self.parser.finish(), final=True)

    def _route(self, events: list[W1Event], final: bool) -> W1Step:
        dispatch: Dispatch | None = None
        for ev in events:
            got: Dispatch | None = None
            if isinstance(ev, IntentClosed):
                self.intent = ev.label
            elif isinstance(ev, SubIntentClosed):
                state = self._state if isinstance(self._state, LiveState) else self._state()
                got = self.decision.on_sub_intent(self.intent, ev.label, state, self.turn_index)
            elif isinstance(ev, PlanClosed):
                got = self.decision.on_plan(ev.text)
            elif isinstance(ev, FormatError):
                self.decision.on_format_error(ev.reason)
            dispatch = dispatch or got
        if final:
            dispatch = dispatch or self.decision.finish()
        return W1Step(events, dispatch)
