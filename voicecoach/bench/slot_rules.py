"""The slot extractor against CoachBench's references: `voicecoach bench slots [--llm N]`.

Slot accuracy (precision / recall per field, exact turns) of `voicecoach.grounding.slot_rules.extract_slots`
on every CoachBench turn, the session's earlier constraints carried turn to turn; with `--llm N`,
also the LLM slot call (the GroundingActor's messages and schema) on the embedded model, on an even
spread of N turns, raw and after `ground_slots`.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from voicecoach.bench.coachbench.generator import generate
from voicecoach.core.console import DefaultsHelpFormatter
from voicecoach.core.state import LiveState, load_state
from voicecoach.domain.pack import Pack, load_pack
from voicecoach.grounding.prompt import slot_prompt
from voicecoach.grounding.repair import ground_slots
from voicecoach.grounding.slot_rules import extract_slots
from voicecoach.grounding.slots import QuerySlots, parse_query_slots, query_slots_json_schema

SlotField = Literal["wanted", "excluded", "opponent", "skills"]
FIELDS: tuple[SlotField, ...] = ("wanted", "excluded", "opponent", "skills")


def slot_ids(pack: Pack, slots: QuerySlots) -> dict[SlotField, set[str]]:
    """The catalog ids a QuerySlots names, per scored field (pick pools count as wanted): units,
    and options as "skills"."""
    catalog = pack.catalog
    unit, option = catalog.schema.kind("unit") or "", catalog.schema.kind("option") or ""

    def creatures(names: Sequence[str]) -> set[str]:
        return {c.id for n in names if (c := catalog.by_name(unit, n)) is not None}

    pools = [n for g in slots.n_pick_k_swap_group for n in g.pool]
    skills = {
        s.id
        for p in slots.attribute_prefs
        if option and p.attribute == option and (s := catalog.by_name(option, p.value)) is not None
    }
    return {
        "wanted": creatures([*slots.wanted_entities, *pools]),
        "excluded": creatures(slots.excluded_entities),
        "opponent": creatures(slots.opponent_entities),
        "skills": skills,
    }


def reference_ids(
    pack: Pack, mentioned: Sequence[str], excluded: Sequence[str], opponent_lineup: Sequence[str]
) -> dict[SlotField, set[str]]:
    """Truth from a CoachBench Reference: excluded = the session's excludes so far; opponent = the
    mentioned creatures on the opponent's lineup in the turn's state; wanted = the other mentioned
    creatures; skills = the mentioned skills."""
    catalog = pack.catalog
    unit, option = catalog.schema.kind("unit") or "", catalog.schema.kind("option") or ""
    named = [m for m in mentioned if catalog.get(unit, m) is not None]
    out = set(excluded)
    opp = {c for c in named if c in opponent_lineup} - out
    return {
        "wanted": set(named) - out - opp,
        "excluded": out,
        "opponent": opp,
        "skills": {m for m in mentioned if catalog.get(option, m) is not None},
    }


@dataclass
class SlotScore:
    """Micro-averaged counts per field, and turns where all three entity fields are exact."""

    tp: dict[str, int]
    fp: dict[str, int]
    fn: dict[str, int]
    turns: int = 0
    exact: int = 0

    @classmethod
    def empty(cls) -> SlotScore:
        return cls({f: 0 for f in FIELDS}, {f: 0 for f in FIELDS}, {f: 0 for f in FIELDS})

    def add(self, got: dict[SlotField, set[str]], truth: dict[SlotField, set[str]]) -> None:
        self.turns += 1
        self.exact += all(got[f] == truth[f] for f in ("wanted", "excluded", "opponent"))
        for f in FIELDS:
            self.tp[f] += len(got[f] & truth[f])
            self.fp[f] += len(got[f] - truth[f])
            self.fn[f] += len(truth[f] - got[f])


@dataclass(frozen=True)
class BenchCase:
    """One CoachBench turn as the slot extractor sees it."""

    session_id: str
    turn_index: int
    utterance: str
    intent: str
    sub_intent: str
    state: LiveState  # the snapshot the coach reads (the previous one on a late push)
    truth: dict[SlotField, set[str]]


def bench_cases(pack: Pack) -> list[list[BenchCase]]:
    """CoachBench's 200 sessions (seed 7) as slot cases, one list per session, in turn order."""
    sessions = []
    for session in generate(pack=pack):
        cases = []
        for i, turn in enumerate(session.turns):
            seen = session.turns[i - 1].state if turn.push == "late" else turn.state
            state = load_state(seen)
            truth_state = load_state(turn.state)
            lineup = truth_state.ic.match.opponent_lineup if truth_state.ic.match else []
            ref = turn.reference
            cases.append(
                BenchCase(
                    session.session_id,
                    turn.turn_index,
                    turn.utterance,
                    ref.intent,
                    ref.sub_intent,
                    state,
                    reference_ids(pack, ref.mentioned, ref.excluded, lineup),
                )
            )
        sessions.append(cases)
    return sessions


def score_rules(pack: Pack, sessions: list[list[BenchCase]]) -> tuple[SlotScore, list[float]]:
    """Run the extractor over every session, carrying earlier constraints turn to turn."""
    score, ms = SlotScore.empty(), []
    for cases in sessions:
        earlier: QuerySlots | None = None
        for case in cases:
            start = time.perf_counter()
            slots = extract_slots(pack, case.utterance, case.state, earlier)
            ms.append((time.perf_counter() - start) * 1000)
            score.add(slot_ids(pack, slots), case.truth)
            earlier = slots
    return score, ms


async def score_llm(
    pack: Pack, cases: list[BenchCase], threads: int = 1
) -> tuple[SlotScore, SlotScore, list[float]]:
    """The LLM slot call (the GroundingActor's messages and schema) on the embedded model, per turn:
    raw, and after `ground_slots` + `carry_over` with the session's earlier slots from the rules."""
    from voicecoach.llm.client import EmbeddedLlamaServer, LLMClient, LLMConfig, LLMError

    config = LLMConfig(embedded_threads=threads, embedded_split_lead=False)
    server = EmbeddedLlamaServer(threads=threads, slots=1)
    llm = LLMClient(config, server.start())
    system, schema = slot_prompt(pack), query_slots_json_schema(pack)
    raw_score, grounded_score, ms = SlotScore.empty(), SlotScore.empty(), []
    try:
        for case in cases:
            messages = [
                {"role": "system", "content": system},
                {
                    "role": "user",
                    "content": f"intent: {case.intent}/{case.sub_intent}\nplayer: {case.utterance}",
                },
            ]
            start = time.perf_counter()
            try:
                text = await llm.complete(
                    messages, max_tokens=120, json_schema=schema, first_token_timeout_s=60.0
                )
            except LLMError:
                text = ""
            ms.append((time.perf_counter() - start) * 1000)
            slots, _ = parse_query_slots(text, pack)
            raw_score.add(slot_ids(pack, slots), case.truth)
            grounded, _ = ground_slots(slots, pack, case.utterance, case.state)
            grounded_score.add(slot_ids(pack, grounded), case.truth)
    finally:
        await llm.close()
        server.stop()
    return raw_score, grounded_score, ms


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def table(rows: list[tuple[str, SlotScore]]) -> str:
    """A markdown table: precision / recall per field (n: reference items), and exact turns.
    A precision with nothing predicted, or a recall with nothing to find, is "-"."""

    def pct(num: int, den: int) -> str:
        return f"{100 * num / den:.1f}" if den else "-"

    head = "| extractor | turns | " + " | ".join(f"{f} P / R (n)" for f in FIELDS) + " | turns exact |"
    lines = [head, "|---" * (len(FIELDS) + 3) + "|"]
    for name, s in rows:
        cells = [
            f"{pct(s.tp[f], s.tp[f] + s.fp[f])} / {pct(s.tp[f], s.tp[f] + s.fn[f])} ({s.tp[f] + s.fn[f]})"
            for f in FIELDS
        ]
        exact = f"{100 * s.exact / max(1, s.turns):.1f} %"
        lines.append(f"| {name} | {s.turns} | " + " | ".join(cells) + f" | {exact} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None, prog: str = "python -m voicecoach.bench.slot_rules") -> int:
    parser = argparse.ArgumentParser(
        formatter_class=DefaultsHelpFormatter,
        prog=prog,
        description="slot accuracy against CoachBench's references\n\n"
        "Run time on 2 cores: ~2 s for the rules; --llm N adds ~2 s a turn (1.1 s p50, 5.2 s p90).",
    )
    parser.add_argument(
        "command", nargs="?", default="bench", choices=["bench"], help="the only command (may be left out)"
    )
    parser.add_argument(
        "--llm", type=int, default=0, metavar="N", help="also run the LLM slot call on N turns"
    )
    parser.add_argument("--threads", type=int, default=1, help="embedded llama.cpp threads for --llm")
    args = parser.parse_args(argv)

    pack = load_pack()
    sessions = bench_cases(pack)
    rules, ms = score_rules(pack, sessions)
    rows = [("rules, all turns", rules)]
    print(
        f"rules: {rules.turns} turns, {_pct(ms, 0.5):.2f} ms p50 / {_pct(ms, 0.9):.2f} ms p90 per utterance"
    )
    if args.llm:
        # An even spread over the benchmark: every k-th turn, in file order.
        flat = [case for cases in sessions for case in cases]
        step = max(1, len(flat) // args.llm)
        sample = flat[::step][: args.llm]
        keys = {(c.session_id, c.turn_index) for c in sample}
        sample_rules = SlotScore.empty()
        for cases in sessions:
            earlier: QuerySlots | None = None
            for case in cases:
                slots = extract_slots(pack, case.utterance, case.state, earlier)
                if (case.session_id, case.turn_index) in keys:
                    sample_rules.add(slot_ids(pack, slots), case.truth)
                earlier = slots
        raw, grounded, llm_ms = asyncio.run(score_llm(pack, sample, args.threads))
        rows += [
            (f"rules, the {len(sample)}-turn sample", sample_rules),
            ("LLM slot call (SmolLM2-135M), raw", raw),
            ("LLM slot call + ground_slots", grounded),
        ]
        print(f"LLM slot call: {_pct(llm_ms, 0.5):.0f} ms p50 / {_pct(llm_ms, 0.9):.0f} ms p90 per turn")
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
