"""CoachBench's judge: does a turn pass as the player hears it — speakable, responsive AND grounded?

The paper scores a turn PASS iff annotators agree the reply does the task and does not mis-direct
s_live (eq. 1). This is the rule-based stand-in, judged against the shared reference of the benchmark
turn (its live-state snapshot and `Reference`), the same for every configuration. It builds the
kernel's `CheckContext` from the turn and calls `voicecoach.talker.checker` (the same rules the runtime
guard runs: speakable rules and grounding rules (a)-(c), (f), (d) by reply text), then adds what
only a benchmark can judge:

- `unresponsive`: the reply does not do what the turn's `Expectation` asks (`responsive.py`);
- (e) `stale_evidence`: rests on tool results taken on a snapshot older than the turn (a late
  push), making a claim about the player's entities without flagging that the data may be out of
  date (a turn without tools that errs on the stale snapshot fails (a) or (b), attributed to A);
- (d) `repeated_guidance` by guidance id: the same c3 guidance id recorded twice in a row.

A verdict carries the three components: `speakable` (no speakable failure), `responsive` (no
`unresponsive`), `grounded` (no grounding failure), `passed` = all three; and `grounded_only`
(no grounding failure and not `no_reply`): the previous checker's pass, which ignored speakability
and task completion, kept so old and new figures compare on the same cached turns.

The rules, their reading of a reply and the blind spots are documented in `voicecoach.talker.checker`
(speakable, grounding) and `voicecoach.bench.coachbench.responsive` (responsive).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from voicecoach.bench.coachbench.generator import BenchSession, BenchTurn, DriftTag
from voicecoach.bench.coachbench.responsive import responsive_failure
from voicecoach.core.state import load_state
from voicecoach.domain.pack import Pack
from voicecoach.talker.checker import check_reply
from voicecoach.talker.claims import HEDGE, Claim, read_reply, recommended_sets
from voicecoach.talker.rules import GROUNDING_RULES, RULES, SPEAKABLE_RULES, CheckContext, Failure, RuleId

__all__ = [
    "RULES",
    "RULE_LETTER",
    "Claim",
    "Failure",
    "ReplyEvidence",
    "RuleId",
    "TurnVerdict",
    "check_session",
    "check_turn",
    "read_reply",
    "recommended_sets",
]

RULE_LETTER: dict[str, str] = {
    "unavailable_entity": "a",
    "false_missing": "b",
    "self_contradiction": "c",
    "repeated_guidance": "d",
    "stale_evidence": "e",
    "excluded_entity": "f",
    **{rule: "-" for rule in SPEAKABLE_RULES},
    "unresponsive": "-",
}


@dataclass(frozen=True)
class ReplyEvidence:
    """What a configuration produced for one turn, as the checker needs it."""

    reply: str
    completed: bool = True
    guidance_id: str | None = None  # c3 guidance candidate recorded for the turn (SGC with W3)
    snapshot_turn: int | None = None  # turn of the snapshot the turn's tools / prompt read
    tools: tuple[str, ...] = ()


class TurnVerdict(BaseModel):
    model_config = ConfigDict(frozen=True)

    session_id: str
    turn_index: int
    scored: bool
    passed: bool  # speakable and responsive and grounded
    failures: list[Failure]
    drifts: list[DriftTag]  # attribution of the failures, sorted, unique
    speakable: bool = True
    responsive: bool = True
    grounded: bool = True
    grounded_only: bool = True  # the previous checker's pass: grounding rules and no_reply only


def _fail(rule: RuleId, drift: DriftTag | None, evidence: str, entity: str | None = None) -> Failure:
    return Failure(rule=rule, drift=drift, entity=entity, evidence=evidence)


def context_of(
    turn: BenchTurn, previous_reply: str | None, seen_state: dict[str, Any] | None
) -> CheckContext:
    """The kernel's context for a benchmark turn: its live state (and the older one the coach read,
    on a late push) and reference. The rules read the states through the pack's StateView."""
    ref = turn.reference
    state = load_state(turn.state)
    match = state.ic.match
    return CheckContext(
        mentioned=frozenset(ref.mentioned),
        excluded=frozenset(ref.excluded),
        opponent=frozenset(match.opponent_lineup) if match is not None else frozenset(),
        previous_reply=previous_reply,
        state=state,
        seen_state=load_state(seen_state) if seen_state is not None else None,
    )


def check_turn(
    pack: Pack,
    turn: BenchTurn,
    evidence: ReplyEvidence,
    previous: ReplyEvidence | None = None,
    seen_state: dict[str, Any] | None = None,
    session_id: str = "",
) -> TurnVerdict:
    """Judge one reply against the turn's reference.

    `previous` is the same configuration's evidence for the turn before (rule d); `seen_state` the
    snapshot the coach actually read when it differs from the turn's (a late push), for attribution.
    """
    reply: object = evidence.reply
    if not evidence.completed:
        failures = [_fail("no_reply", None, "no reply within the turn's time budget")]
    else:
        ctx = context_of(turn, previous.reply if previous is not None else None, seen_state)
        failures = check_reply(pack, reply, ctx)
    text = reply if isinstance(reply, str) and evidence.completed else ""
    spoken = bool(text.strip())

    # Responsive: only a reply that was said can answer (no_reply already fails the turn).
    expect = turn.reference.expect
    if spoken and expect is not None:
        missed = responsive_failure(pack, expect, text, previous.reply if previous is not None else None)
        if missed is not None:
            failures.append(missed)

    # (d) the previous turn's c3 guidance id again.
    if (
        previous is not None
        and evidence.guidance_id is not None
        and evidence.guidance_id == previous.guidance_id
    ):
        failures.append(
            _fail("repeated_guidance", "C", f"c3 guidance {evidence.guidance_id} issued in consecutive turns")
        )

    # (e) claims about the player's entities resting on an old snapshot, unflagged.
    snap = evidence.snapshot_turn
    stale_tools = evidence.tools and snap is not None and snap < turn.turn_index
    if spoken and stale_tools and not HEDGE.search(text):
        stateful = [
            c
            for c in read_reply(pack, text)
            if c.judged and c.role != "opponent" and (c.affirmed or c.absent)
        ]
        if stateful:
            tools = ", ".join(evidence.tools)
            failures.append(
                _fail(
                    "stale_evidence",
                    "A",
                    f"{tools} read turn {snap}'s snapshot at turn {turn.turn_index}: {stateful[0].text!r}",
                )
            )

    unique = list(dict.fromkeys(failures))
    rules = {f.rule for f in unique}
    drifts = sorted({f.drift for f in unique if f.drift is not None})
    speakable = not rules & SPEAKABLE_RULES
    responsive = "unresponsive" not in rules
    grounded = not rules & GROUNDING_RULES
    return TurnVerdict(
        session_id=session_id,
        turn_index=turn.turn_index,
        scored=turn.scored,
        passed=speakable and responsive and grounded,
        failures=unique,
        drifts=drifts,
        speakable=speakable,
        responsive=responsive,
        grounded=grounded,
        grounded_only=grounded and "no_reply" not in rules,
    )


def check_session(pack: Pack, session: BenchSession, evidence: Sequence[ReplyEvidence]) -> list[TurnVerdict]:
    """Verdicts for every turn of `session` (scored or not), given one configuration's evidence."""
    if len(evidence) != len(session.turns):
        raise ValueError(
            f"session {session.session_id}: {len(evidence)} replies for {len(session.turns)} turns"
        )
    verdicts = []
    for i, (turn, ev) in enumerate(zip(session.turns, evidence, strict=True)):
        seen = session.turns[i - 1].state if turn.push == "late" else None
        previous = evidence[i - 1] if i > 0 else None
        verdicts.append(check_turn(pack, turn, ev, previous, seen, session.session_id))
    return verdicts


def checker_digest(pack: Pack) -> str:
    """sha256 of the rules that score a run: the kernel's and the judge's sources and the pack's
    CoachBench families (recorded with the results; a change rescores the cache, it does not rerun it)."""
    import hashlib
    import inspect
    import json

    from voicecoach.bench.coachbench import responsive
    from voicecoach.bench.coachbench.packdata import bench_data
    from voicecoach.talker import checker, claims, rules, speakable

    h = hashlib.sha256()
    for module in (checker, rules, claims, speakable, responsive, sys.modules[__name__]):
        h.update(inspect.getsource(module).encode("utf-8"))
    h.update(json.dumps(bench_data(pack).families, sort_keys=True).encode("utf-8"))
    return h.hexdigest()
