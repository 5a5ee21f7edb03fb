"""`voicecoach bench turn`: text-mode turn timings per configuration, no audio.

Measures what the streaming turn itself costs on the chosen LLM: time to first token of a
cold and a warm (prewarmed) call, and per turn the milliseconds from the end of input to
c1 (SUB_INTENT close), tool dispatch, the first narration token and the reply's first token. The
utterances come from the audio fixtures' transcripts when they exist (else a built-in set),
each configuration runs them in one session, and the table shows p50 / p90.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from rich.progress import Progress
from rich.table import Table

from voicecoach.coach.engines import Engines
from voicecoach.coach.session import MODES, CoachConfig, Session
from voicecoach.core.console import report_console
from voicecoach.core.latency import Milestone, percentile
from voicecoach.core.state import load_state
from voicecoach.domain.pack import example_state_path, load_pack
from voicecoach.llm.client import StreamStats
from voicecoach.pipelines.text import TextCoach, TurnResult
from voicecoach.talker.conditioning import talker_system_prompt

UTTERANCES = [
    "what counters their team?",
    "can emberfox use inferno roar yet?",
    "what should I swap in for round two?",
    "how do I evolve oakhorn?",
    "which of my creatures is strongest?",
    "explain bark skin",
]
MILESTONES = (
    Milestone.C1,
    Milestone.TOOL_DISPATCH,
    Milestone.FIRST_NARRATION_TOKEN,
    Milestone.REPLY_FIRST_TOKEN,
)


def fixture_utterances(folder: Path = Path("audio_fixtures")) -> list[str]:
    """Transcripts of the committed fixture sessions, in order (empty when there are none)."""
    texts: list[str] = []
    for path in sorted(folder.glob("*.json")):
        try:
            texts += [t["transcript"] for t in json.loads(path.read_text())["turns"]]
        except (OSError, KeyError, TypeError, json.JSONDecodeError):
            continue  # not a session file
    return texts


def milestones(turn: TurnResult) -> dict[str, float]:
    """c1 and the dispatch as their actors stamped them; the texts as they reached the end."""
    marks: dict[str, float] = {
        m: ms for m in (Milestone.C1, Milestone.TOOL_DISPATCH) if (ms := turn.t_ms(m)) is not None
    }
    for ms, milestone in turn.timeline:
        if milestone in (Milestone.FIRST_NARRATION_TOKEN, Milestone.REPLY_FIRST_TOKEN):
            marks[milestone] = ms
    return marks


async def _ttft(engines: Engines, system: str) -> float:
    stats = StreamStats()
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": "what counters their team?"},
    ]
    await engines.llm.complete(messages, max_tokens=4, stats=stats)
    return round((stats.ttft or 0.0) * 1000.0, 1)


async def run(modes: list[str], limit: int, config: CoachConfig) -> dict[str, Any]:
    pack = load_pack(config.pack_id)
    state = load_state(json.loads(example_state_path(config.pack_id).read_text()))
    utterances = (fixture_utterances() or UTTERANCES)[:limit]
    # The LLM's time to first token is part of the report, whatever the modes call.
    engines = await asyncio.to_thread(Engines.start, config, True)
    out: dict[str, Any] = {"utterances": len(utterances), "modes": {}}
    try:
        system = talker_system_prompt(pack)
        out["ttft_cold_ms"] = await _ttft(engines, system)
        out["ttft_warm_ms"] = await _ttft(engines, system)
        with Progress() as progress:
            bar = progress.add_task("turns", total=len(modes) * len(utterances))
            for mode in modes:
                cfg = config.model_copy(update={"mode": mode})
                coach = TextCoach(
                    Session.open(f"bench-turn-{mode}-{time.time_ns()}", state=state, pack=pack), cfg, engines
                )
                await coach.start()
                rows = []
                for text in utterances:
                    result = await coach.ask(text)
                    rows.append({"utterance": text, "completed": result.completed, **milestones(result)})
                    progress.advance(bar)
                await coach.stop()
                out["modes"][mode] = rows
    finally:
        await engines.close()
    return out


def table(result: dict[str, Any]) -> Table:
    t = Table(title=f"text-mode turn timings, ms since end of input ({result['utterances']} turns per mode)")
    t.add_column("mode")
    for m in MILESTONES:
        t.add_column(f"{m} p50 / p90", justify="right")
    for mode, rows in result["modes"].items():
        cells = []
        for m in MILESTONES:
            values = [r[m] for r in rows if m in r]
            cells.append(f"{percentile(values, 50):.0f} / {percentile(values, 90):.0f}" if values else "-")
        t.add_row(mode, *cells)
    return t


def main(modes: list[str] | None, limit: int, config: CoachConfig, out: Path | None) -> int:
    result = asyncio.run(run(modes or list(MODES), limit, config))
    console = report_console()
    console.print(
        f"LLM time to first token: cold {result['ttft_cold_ms']} ms, warm {result['ttft_warm_ms']} ms"
    )
    console.print(table(result))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2))
        console.print(f"written: {out}")
    return 0
