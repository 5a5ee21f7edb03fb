"""`voicecoach bench dialogue`: CoachBench's dialogue suite played through the coach.

Each session of `<pack>/dialogue_suite.json` (`voicecoach.bench.dialogue`) runs in its own coach
session on the pack's example state (with the session's merge patch), turn by turn through the
same text pipeline as `voicecoach chat`, and each reply is judged by its turn's rubric. The table
says, per kind of turn, how many replies are right in every respect the rubric checks, how often
the coach asked back instead of answering, and how often the pair of an answered turn was right
(a question asked back has no pair: the turn that answers it is judged on its own); `--show N`
prints N consecutive turns verbatim (what was said, how the coach read it, what it answered, the
verdict) so a reader can judge them too.

It measures the embedded default (the intent prior labels, rules fill the slots, the grounded
realization words the reply) on the engines `voicecoach chat` starts, not prewarmed: that path
makes no LLM call in a turn. Results go to `<out>/<pack>.jsonl` (one line a turn).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from loguru import logger
from rich.progress import Progress
from rich.table import Table

from voicecoach.actors.perception import CLARIFY
from voicecoach.bench.dialogue import FILE, intent_right, load_suite, verdict
from voicecoach.coach.engines import Engines
from voicecoach.coach.session import CoachConfig, Session
from voicecoach.coach.store import MemorySessionStore
from voicecoach.core.console import DefaultsHelpFormatter, report_console
from voicecoach.core.runs import run_dir
from voicecoach.core.state import load_state, merge_patch
from voicecoach.domain.pack import PACKS_DIR, example_state_path, load_pack
from voicecoach.perception.prompt import OTHER
from voicecoach.pipelines.text import TextCoach

ASKED_BACK = f"{OTHER}/{CLARIFY}"


async def play(
    pack_id: str, engines: Engines, config: CoachConfig, progress: Progress | None = None
) -> list[dict[str, Any]]:
    """Every turn of the pack's suite, played and judged, in order."""
    pack = load_pack(pack_id)
    suite = load_suite(pack_id)
    config = config.model_copy(update={"pack_id": pack_id})
    example = json.loads(example_state_path(pack_id).read_text())
    rows: list[dict[str, Any]] = []
    task = progress.add_task(pack_id, total=len(suite.sessions)) if progress else None
    for bench_session in suite.sessions:
        state = load_state(merge_patch(example, bench_session.state_patch))
        session = Session.open(f"dialogue-{bench_session.id}", MemorySessionStore(), state, pack=pack)
        coach = TextCoach(session, config, engines)
        await coach.start(warm=False)
        try:
            for i, turn in enumerate(bench_session.turns):
                result = await coach.ask(turn.say, timeout_s=30)
                record = result.record
                label = f"{record.intent}/{record.sub_intent}" if record and record.sub_intent else None
                reply = " ".join(p for p in (result.narration, result.reply) if p).strip()
                problems = verdict(turn, reply) if record else ["no reply"]
                rows.append(
                    {
                        "session": bench_session.id, "turn": i, "kind": turn.kind, "say": turn.say,
                        "read_as": record.utterance if record else None, "label": label,
                        "intent": turn.intent, "asked_back": label == ASKED_BACK,
                        "intent_right": None if label == ASKED_BACK else intent_right(turn, label),
                        "reply": reply, "right": not problems, "problems": problems,
                    }
                )  # fmt: skip
        finally:
            await coach.stop()
        if progress is not None and task is not None:
            progress.advance(task)
    return rows


async def play_all(packs: list[str], progress: Progress | None = None) -> dict[str, list[dict[str, Any]]]:
    config = CoachConfig()
    engines = await asyncio.to_thread(Engines.start, config)
    try:
        return {p: await play(p, engines, config, progress) for p in packs}
    finally:
        await engines.close()


def table(pack_id: str, rows: list[dict[str, Any]]) -> Table:
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_kind[row["kind"]].append(row)
    out = Table(title=f"dialogue suite: {pack_id}")
    for column in ("kind", "turns", "right %", "asked back", "intent % (answered)"):
        out.add_column(column, justify="left" if column == "kind" else "right")

    def add(name: str, group: list[dict[str, Any]]) -> None:
        judged = [r["intent_right"] for r in group if r["intent_right"] is not None]
        right = 100.0 * sum(r["right"] for r in group) / len(group)
        intent = f"{100.0 * sum(judged) / len(judged):.1f}" if judged else "-"
        asked = sum(bool(r.get("asked_back")) for r in group)
        out.add_row(name, str(len(group)), f"{right:.1f}", str(asked), intent)

    for kind in sorted(by_kind):
        add(kind, by_kind[kind])
    add("all", rows)
    return out


def verbatim(rows: list[dict[str, Any]], start: int, count: int) -> str:
    lines = []
    for row in rows[start : start + count]:
        lines.append(f"[{row['session']} #{row['turn']} {row['kind']}] player: {row['say']}")
        if row["read_as"] and row["read_as"] != row["say"]:
            lines.append(f"    read as: {row['read_as']}")
        lines.append(f"    coach ({row['label']}): {row['reply']}")
        lines.append(f"    verdict: {'right' if row['right'] else '; '.join(row['problems'])}")
    return "\n".join(lines)


SUMMARY = (__doc__ or "").split("\n\n")[0]
# Both packs' suites (218 turns), measured on 2 cores shared with other work (load ~2): 50 s.
RUN_TIME = "~50 s for both packs' suites (218 turns), about 0.2 s a turn"


def main(argv: list[str] | None = None, prog: str = "voicecoach bench dialogue") -> int:
    parser = argparse.ArgumentParser(
        formatter_class=DefaultsHelpFormatter,
        prog=prog,
        description=f"{SUMMARY}\n\nRun time on 2 cores: {RUN_TIME}.",
    )
    parser.add_argument("--pack", action="append", help="pack id, repeatable (default: all with a suite)")
    parser.add_argument(
        "--out",
        default=None,
        help="where <pack>.jsonl goes (default: ~/.cache/voicecoach/runs/dialogue/<timestamp>)",
    )
    parser.add_argument("--show", type=int, default=0, help="print N consecutive turns verbatim")
    parser.add_argument("--show-from", type=int, default=0, help="the first turn --show prints")
    args = parser.parse_args(argv)
    packs = args.pack or sorted(p.parent.name for p in PACKS_DIR.glob(f"*/{FILE}"))
    console = report_console()
    logger.remove()  # the table is the output; per-turn logs would bury it
    out = Path(args.out) if args.out else run_dir("dialogue")
    out.mkdir(parents=True, exist_ok=True)
    with Progress(console=console, transient=True) as progress:
        results = asyncio.run(play_all(packs, progress))
    for pack_id, rows in results.items():
        (out / f"{pack_id}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        console.print(table(pack_id, rows))
        if args.show:
            console.print(verbatim(rows, args.show_from, args.show), markup=False)
    console.print(f"turns written to {out}/")
    return 0
