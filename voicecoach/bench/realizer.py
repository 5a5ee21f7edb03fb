"""The grounded realizer on CoachBench turns, W1-less, scored by CoachBench's checker.

    voicecoach bench realizer [check|sample] [--pack NAME] [--sessions N] [--seed S] [--reply-only]

`realize_session` runs every turn of a CoachBench session through the kernels as `voicecoach demo`
does (the reference's labels standing in for W1); `main` scores the realizations (`check`) or
prints a sample of them (`sample`).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Any

from voicecoach.bench.coachbench.checker import ReplyEvidence, check_turn
from voicecoach.bench.coachbench.generator import generate
from voicecoach.core.console import DefaultsHelpFormatter
from voicecoach.core.state import SessionHistory, load_state
from voicecoach.domain.entities import focus_fields, link_entities
from voicecoach.domain.pack import Pack, load_pack
from voicecoach.grounding.kernel import ground
from voicecoach.grounding.plan import branch_of
from voicecoach.grounding.slot_rules import extract_slots
from voicecoach.grounding.slots import QuerySlots
from voicecoach.interaction.kernel import interact, recommend_violations
from voicecoach.perception.kernel import W1Decision
from voicecoach.perception.narration import narration_for
from voicecoach.perception.phi import PhiTable, tool_validator
from voicecoach.talker.conditioning import ToolOutcome
from voicecoach.talker.realizer import MAX_SENTENCES, MAX_WORDS, RECENT_REPLIES, realize
from voicecoach.talker.rules import MAX_SENTENCES as TURN_SENTENCES
from voicecoach.talker.rules import MAX_WORDS as TURN_WORDS
from voicecoach.talker.speakable import split_sentences, words
from voicecoach.tools.registry import ToolError, run_tool


@dataclass(frozen=True)
class BenchRealization:
    """One CoachBench turn run through Φ's tools, W2 (rule slots), W3 and the realizer."""

    session_id: str
    turn_index: int
    utterance: str
    pair: str
    reply: str
    tools: tuple[str, ...]
    guidance_id: str | None
    snapshot_turn: int
    seen_state: dict[str, Any] | None  # the snapshot the coach read, when it differs (a late push)
    ms: float  # realize() alone
    narration: str = ""  # the pack's narration phrase said before the reply (when narrated)


def realize_session(pack: Pack, session: Any, narrate: bool = False) -> list[BenchRealization]:
    """Every turn of a `coachbench.generator.BenchSession`, as `voicecoach.app.cli` `cmd_demo` runs the
    kernels: the reference's (intent, sub_intent) stands in for W1, Φ's tools run on the snapshot the
    coach sees, rule slots carry the session's earlier constraints, W3's metas accumulate. With
    `narrate`, the pack's narration phrase for the pair leads the turn (as on the embedded default,
    W1's narration from the pack) and the reply gets the budget it leaves."""
    out: list[BenchRealization] = []
    earlier: QuerySlots | None = None
    metas: list[Any] = []
    for i, turn in enumerate(session.turns):
        late = turn.push == "late"
        seen = session.turns[i - 1].state if late else turn.state
        links = focus_fields(link_entities(pack, turn.utterance), pack)
        base = load_state(seen)
        state = base.model_copy(
            update={"ic": base.ic.model_copy(update=links), "sh": SessionHistory(metas=metas)}
        )
        intent, sub = turn.reference.intent, turn.reference.sub_intent
        decision = W1Decision(PhiTable(pack.phi), validate=tool_validator(pack))
        dispatch = decision.on_sub_intent(intent, sub, state, turn.turn_index) or decision.finish()
        outcomes = []
        for call in dispatch.calls if dispatch else []:
            try:
                outcomes.append(
                    ToolOutcome(
                        tool=call.tool,
                        args=call.args,
                        ok=True,
                        result=run_tool(pack, state, call.tool, call.args),
                    )
                )
            except ToolError as err:
                outcomes.append(ToolOutcome(tool=call.tool, args=call.args, ok=False, error=str(err)))
        slots = extract_slots(pack, turn.utterance, state, earlier)
        c2 = ground(slots, state, pack, intent, sub, utterance=turn.utterance, earlier=earlier)
        earlier = c2.carried
        branch = branch_of(pack, intent, sub) or "knowledge-qa"
        violates = recommend_violations(pack, state, set(c2.slots.excluded_entities))
        c3, meta = interact(
            state, pack, branch, turn.turn_index, session.w3_seed, violates, pair=f"{intent}/{sub}"
        )
        metas.append(meta)
        narration = narration_for(pack, intent, sub, turn.turn_index) if narrate else ""
        max_words, max_sentences = MAX_WORDS, MAX_SENTENCES
        if narration:
            # The checker bounds the whole turn: the reply gets what the narration leaves (counted as
            # the checker counts, at least one sentence).
            said = max(1, len(split_sentences(narration)))
            max_words = TURN_WORDS - len(words(narration))
            max_sentences = min(MAX_SENTENCES, TURN_SENTENCES - said)
        previous = out[-1].reply if out else None
        recent = [r.reply for r in out[-RECENT_REPLIES:]]
        start = time.perf_counter()
        reply = realize(
            pack, state, c2, c3, outcomes, turn.utterance, turn.turn_index, intent, sub,
            previous_reply=previous, recent_replies=recent, max_words=max_words, max_sentences=max_sentences,
        )  # fmt: skip
        ms = (time.perf_counter() - start) * 1000
        out.append(
            BenchRealization(
                session_id=session.session_id,
                turn_index=turn.turn_index,
                utterance=turn.utterance,
                pair=f"{intent}/{sub}",
                reply=reply,
                tools=tuple(o.tool for o in outcomes),
                guidance_id=c3.guidance.candidate_id if c3.guidance else None,
                snapshot_turn=state.turn_index,
                seen_state=seen if late else None,
                ms=ms,
                narration=narration,
            )
        )
    return out


def _pct(num: int, den: int) -> str:
    return f"{100 * num / den:5.1f}" if den else "    -"


def main(argv: list[str] | None = None, prog: str = "python -m voicecoach.bench.realizer") -> int:
    """`sample` prints every k-th realization; `check` scores every turn with CoachBench's checker
    (speakable / responsive / grounded, responsive per family) and prints the failing ones.

    The player hears W1's narration, then the reply: with `--turn` (the default) each reply is
    realized in the budget the pack's narration leaves and the checker judges the whole turn, as
    `bench quality` does; `--reply-only` judges the reply alone."""
    parser = argparse.ArgumentParser(
        formatter_class=DefaultsHelpFormatter,
        prog=prog,
        description="the grounded realization of CoachBench turns\n\n"
        "Run time on 2 cores: ~8 s for the default 200 sessions.",
    )
    parser.add_argument("command", nargs="?", default="check", choices=["sample", "check"])
    parser.add_argument("--pack", default="pet_arena", help="the pack whose CoachBench turns to realize")
    parser.add_argument("--sessions", type=int, default=200, help="CoachBench sessions to run")
    parser.add_argument("--seed", type=int, default=None, help="CoachBench seed (default: the benchmark's)")
    parser.add_argument("--every", type=int, default=33, help="sample: print every k-th turn")
    parser.add_argument("--reply-only", action="store_true", help="judge the reply without the narration")
    parser.add_argument("--quiet", action="store_true", help="check: print the tables only")
    args = parser.parse_args(argv)
    pack = load_pack(args.pack)
    bench = generate(pack=pack) if args.seed is None else generate(seed=args.seed, pack=pack)
    sessions = bench[: args.sessions]
    turns = failures = 0
    parts = {"speakable": 0, "responsive": 0, "grounded": 0}
    families: dict[str, list[int]] = {}  # family -> [turns, responsive]
    rules: dict[str, int] = {}
    ms: list[float] = []
    for session in sessions:
        realized = realize_session(pack, session, narrate=not args.reply_only)
        previous = None
        ms += [r.ms for r in realized]
        for turn, r in zip(session.turns, realized, strict=True):
            heard = r.reply if args.reply_only else f"{r.narration} {r.reply}".strip()
            evidence = ReplyEvidence(
                reply=heard, guidance_id=r.guidance_id, snapshot_turn=r.snapshot_turn, tools=r.tools
            )
            verdict = check_turn(pack, turn, evidence, previous, r.seen_state, session.session_id)
            previous = evidence
            if not verdict.scored:
                continue
            turns += 1
            failures += not verdict.passed
            parts["speakable"] += verdict.speakable
            parts["responsive"] += verdict.responsive
            parts["grounded"] += verdict.grounded
            family: str = turn.reference.expect.family if turn.reference.expect else "none"
            row = families.setdefault(family, [0, 0])
            row[0] += 1
            row[1] += verdict.responsive
            for f in verdict.failures:
                rules[f.rule] = rules.get(f.rule, 0) + 1
            stale = " (late push)" if r.seen_state is not None else ""
            if args.command == "sample" and turns % args.every == 1:
                where = f"[{r.session_id} t{r.turn_index} {r.pair}{stale}]"
                print(f"{where} player: {r.utterance}\n  coach: {heard}")
            if args.command == "check" and not verdict.passed and not args.quiet:
                why = "; ".join(f"{f.rule}: {f.evidence}" for f in verdict.failures)
                print(f"[{r.session_id} t{r.turn_index} {r.pair}{stale}] {heard}\n  {why}")
    ms.sort()
    print(f"realize(): {ms[len(ms) // 2]:.2f} ms p50 / {ms[int(len(ms) * 0.9)]:.2f} ms p90 per turn")
    judged = "reply alone" if args.reply_only else "narration + reply"
    print(f"{pack.pack_id}: {turns} scored turns ({judged}), {turns - failures} pass "
          f"({_pct(turns - failures, turns)} %)")  # fmt: skip
    print("  ".join(f"{k} {_pct(v, turns)} %" for k, v in parts.items()))
    print(f"failures by rule: {dict(sorted(rules.items())) or 'none'}")
    print("responsive by family:  family        turns  responsive %")
    for family, (n, ok) in sorted(families.items()):
        print(f"                       {family:<13} {n:5d}  {_pct(ok, n)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
