"""`voicecoach bench latency`: speech-to-first-audio of every configuration, on the same engines.

    python -m voicecoach.pipelines.bench.latency [--fixtures audio_fixtures] [--limit N] [--configs a,b,...]
        [--tool-latency-ms 150] [--out DIR]

Replays the audio fixtures (`pipelines/replay.py`: real-time input, real-time output, the probe
and S2FA arithmetic of `voicecoach.core.latency`) under the five coach configurations — `prompting`,
`pe_agent`, `sgc_w1`, `sgc_w1_w2`, `sgc_full` —, the VARIANTS (`sgc_full` with one lever
changed: `sgc_full_llm_narration`, `sgc_full_no_prior`, `sgc_full_guarded`,
`sgc_full_narration_first`) and the stock Pipecat cascade (`pipelines/speech/cascade.py`), session
by session (every configuration replays a session, after its session-open prewarm, before the
next one starts), all on the same engines: one embedded llama.cpp server (or `--llm-url`), the
same Silero VAD, Whisper and Piper, the same tools with the same artificial latency.

Per configuration: S2FA p50 / p90 / p99, first reply audio (the answer's first audible sample,
after the narration) p50 / p90, tool dispatch after the transcript, utterances split into two
user turns, Pipecat's UserBotLatencyObserver figure beside ours, the ratios against `pe_agent`
and the cascade, and S2FA cut into stages (p50): VAD hang, STT, turn stop, before the speaking
LLM call, its TTFT, its text until the first phrase reaches TTS, TTS first byte, to the first
audible sample.

Framework overhead (run first): `sgc_full` against a scripted LLM server (fixed W1 / W2 /
Talker outputs with a known time to first token) on the real VAD, STT and TTS; per turn, S2FA
minus the engines' own measured times (VAD hang, STT, W1 TTFT, TTS first byte), p50.

Writes `results.json`, `results.md`, `s2fa.png` (and each replayed turn's files) under `--out`,
after every session; a rerun into the same `--out` replays only the (configuration, session)
pairs not finished (`run.json` pins the settings they depend on).
Module level imports no Pipecat, so the CLI can build its parser instantly.

Why one module of ~900 lines: one CLI harness whose run, summaries and presentation share the run's
options and the result it rewrites after every session. The seam: the pure per-turn arithmetic and
per-configuration summaries (~190 lines, no Pipecat), which would move out as they are.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicecoach.coach.config import add_engine_arguments, speech_config
from voicecoach.coach.config import coach_config as build_coach_config
from voicecoach.coach.session import MODES, CoachConfig
from voicecoach.core.console import DefaultsHelpFormatter
from voicecoach.core.latency import (
    STAGE_LABELS,
    Event,
    Milestone,
    critical_path,
    percentile,
    speaking_call,
    speaking_role,
    summarize,
)
from voicecoach.core.latency import STAGES as LATENCY_STAGES
from voicecoach.core.runs import run_dir

if TYPE_CHECKING:
    from voicecoach.bench.fixtures import FixtureSession
    from voicecoach.pipelines.replay import SessionReplay, TurnReport

CASCADE = "cascade"  # = pipelines.cascade.CASCADE (not imported here: it pulls in Pipecat)
# The levers as A/B rows: sgc_full with one CoachConfig change each (as in bench_quality.VARIANTS).
VARIANTS: dict[str, dict[str, str]] = {
    "sgc_full_llm_narration": {"narration": "llm"},  # the LLM continues the prior's prefill
    "sgc_full_no_prior": {"intent_prior": "off"},  # W1's LLM labels every turn: the tag preamble
    "sgc_full_guarded": {"talker": "guarded"},  # the LLM's reply behind the guard
    "sgc_full_narration_first": {"answer_first": "off"},  # the answer waits behind the narration
}
# ... and with one SpeechConfig change: Whisper started after the VAD's stop_secs, as before; the
# turn ended by smart-turn v3.2 (Pipecat's 3 s fallback, or a shorter one) instead of the silence rule;
# the silence rule with the text-aware hold (voicecoach/coach/turn_hold.py) on, or off.
SPEECH_VARIANTS: dict[str, dict[str, Any]] = {
    "sgc_full_stt_at_stop": {"stt": {"at_silence_onset": False}},
    "sgc_full_smart_turn": {"turn_stop": "smart_turn"},
    "sgc_full_smart_turn_0.5": {"turn_stop": "smart_turn", "smart_turn_fallback_s": 0.5},
    "sgc_full_text_hold": {"hold": {"enabled": True}},
    "sgc_full_no_hold": {"hold": {"enabled": False}},
}
CONFIGS: tuple[str, ...] = (*MODES, *VARIANTS, *SPEECH_VARIANTS, CASCADE)
BASELINES = ("pe_agent", CASCADE)  # ratios are taken against these
# The targets: sgc_full S2FA p50 (and p90) against each baseline's, the answer against
# the cascade's first audio, the framework overhead and the dispatch after the transcript.
TARGET_RATIO = {"pe_agent": 0.30, CASCADE: 0.60}
TARGET_RATIO_P90 = {CASCADE: 0.70}
TARGET_OVERHEAD_MS = 15.0
TARGET_DISPATCH_MS = 50.0

# S2FA as consecutive stages, by label: the kernel's one stage list (voicecoach.core.latency.STAGES).
STAGES = STAGE_LABELS


# --- per-turn arithmetic (pure) ---------------------------------------------------------------


Row = Mapping[str, Any]  # one timeline.jsonl row: {"ms": since speech end, "event": kind, ...}


def _events(rows: Sequence[Row]) -> list[Event]:
    return [Event(t=r["ms"], kind=r["event"], turn=r.get("turn"), detail=r) for r in rows]


def audio_out_ms(rows: Sequence[Row], after_ms: float) -> float | None:
    """When the output transport started playing the first chunk at/after `after_ms` (the replay's
    `audio_out` mark)."""
    return next((r["ms"] for r in rows if r["event"] == "audio_out" and r["ms"] >= after_ms), None)


def stage_breakdown(
    config: str, milestones: Mapping[str, float], rows: Sequence[Row]
) -> dict[str, float] | None:
    """S2FA of one turn cut into STAGES (ms), or None when a milestone is missing.

    The call heard first is found in the turn's timeline rows (its request and first token)."""
    m: dict[str, float | None] = {**milestones, Milestone.SPEECH_END: 0.0}
    turn_stop = m.get(Milestone.TURN_STOP)
    if turn_stop is None:
        return None
    call = speaking_call(_events(rows), speaking_role(config, m), m[Milestone.TURN_STOP] or 0.0)
    phrase = m.get(Milestone.FIRST_PHRASE)
    if phrase is None:
        return None
    if call is None and any(r["event"] == "llm_request" and turn_stop <= r["ms"] < phrase for r in rows):
        return None  # an LLM call came before the first phrase but its first token was not seen
    if call is None:  # nothing asked an LLM before the first phrase (the pack's narration): 0 ms each
        call = (turn_stop, turn_stop)
    m[Milestone.SPEAKING_CALL], m[Milestone.SPEAKING_FIRST_TOKEN] = call
    if any(m.get(end) is None for _, end in LATENCY_STAGES):
        return None
    return dict(critical_path(m, unit_ms=1.0))


@dataclass(frozen=True)
class Overhead:
    """One turn's S2FA split into the engines' own times and what is left: the framework's."""

    s2fa_ms: float
    engines_ms: dict[str, float]  # VAD hang, STT, LLM TTFT (W1), TTS first byte
    tts_leading_silence_ms: float | None  # first chunk played → its first audible sample

    @property
    def overhead_ms(self) -> float:
        return round(self.s2fa_ms - sum(self.engines_ms.values()), 1)

    @property
    def overhead_without_leading_silence_ms(self) -> float | None:
        if self.tts_leading_silence_ms is None:
            return None
        return round(self.overhead_ms - self.tts_leading_silence_ms, 1)


def turn_overhead(
    milestones: Mapping[str, float], rows: Sequence[Row], s2fa: float | None
) -> Overhead | None:
    stages = stage_breakdown("sgc_full", milestones, rows)
    if stages is None or s2fa is None:
        return None
    engines = {k: stages[k] for k in ("VAD hang", "STT", "LLM TTFT", "TTS first byte")}
    out = audio_out_ms(rows, milestones["tts_first_byte"])
    silence = round(milestones["first_audio"] - out, 1) if out is not None else None
    return Overhead(s2fa_ms=s2fa, engines_ms=engines, tts_leading_silence_ms=silence)


# --- per-configuration summaries (pure) -------------------------------------------------------


def _dist(values: Iterable[float]) -> dict[str, float] | None:
    s = summarize(values)
    return s.as_dict() if s else None


def config_summary(
    config: str, reports: Sequence[TurnReport], timelines: Sequence[Sequence[Row]]
) -> dict[str, Any]:
    """One configuration's figures over its turns (`timelines[i]` is report i's timeline rows)."""
    stages: dict[str, list[float]] = {s: [] for s in STAGES}
    for report, rows in zip(reports, timelines, strict=True):
        cut = stage_breakdown(config, report.milestones_ms, rows)
        for stage, ms in (cut or {}).items():
            stages[stage].append(ms)
    dispatch = [r.milestones_ms["tool_dispatch"] for r in reports if "tool_dispatch" in r.milestones_ms]
    after_transcript = [
        r.milestones_ms["tool_dispatch"] - r.milestones_ms["turn_stop"]
        for r in reports
        if "tool_dispatch" in r.milestones_ms and "turn_stop" in r.milestones_ms
    ]
    fired = sum(
        1 for rows in timelines if any(row["event"] == "tool_dispatch" and row.get("tools") for row in rows)
    )
    return {
        "config": config,
        "turns": len(reports),
        "completed": sum(r.completed for r in reports),
        "audible": sum(r.s2fa_ms is not None for r in reports),
        "s2fa_ms": _dist(r.s2fa_ms for r in reports if r.s2fa_ms is not None),
        "first_reply_audio_ms": _dist(
            r.first_reply_audio_ms for r in reports if r.first_reply_audio_ms is not None
        ),
        "tool_dispatch_ms": _dist(dispatch),
        "tool_dispatch_after_transcript_ms": _dist(after_transcript),
        "split_utterances": sum(r.user_turns > 1 for r in reports),  # one utterance, two user turns
        "turns_with_tools": fired,  # a dispatch that named at least one tool
        "pipecat_ms": _dist(r.pipecat_ms for r in reports if r.pipecat_ms is not None),
        "pipecat_minus_s2fa_ms": _dist(d for r in reports if (d := r.pipecat_diff_ms) is not None),
        "stages_p50_ms": {s: round(percentile(v, 50), 1) for s, v in stages.items() if v},
        "stages_n": len(stages["VAD hang"]),
        "problems": sorted({p for r in reports for p in r.problems}),
    }


def ratios(
    summaries: Mapping[str, Mapping[str, Any]], quantile: str = "p50", metric: str = "s2fa_ms"
) -> dict[str, dict[str, float | None]]:
    """Each configuration's `metric` `quantile` over each baseline's S2FA (None where either is
    missing): with metric="first_reply_audio_ms", the answer against the baseline's first audio."""
    out: dict[str, dict[str, float | None]] = {}
    for config, s in summaries.items():
        out[config] = {}
        for base in BASELINES:
            mine, theirs = (
                (s.get(metric) or {}).get(quantile),
                (summaries.get(base, {}).get("s2fa_ms") or {}),
            )
            ref = theirs.get(quantile)
            out[config][base] = round(mine / ref, 3) if mine is not None and ref else None
    return out


def _target(name: str, limit: float, value: float | None) -> dict[str, Any]:
    return {"target": name, "limit": limit, "value": value, "met": None if value is None else value <= limit}


def targets(
    summaries: Mapping[str, Mapping[str, Any]], overhead: Mapping[str, Any] | None
) -> list[dict[str, Any]]:
    """The issue's targets, each with the measured value and whether it is met (None: not measured)."""
    r, r90 = ratios(summaries), ratios(summaries, "p90")
    reply = ratios(summaries, metric="first_reply_audio_ms")
    rows = [
        _target(f"sgc_full S2FA p50 <= {limit:.2f} x {base}", limit, r.get("sgc_full", {}).get(base))
        for base, limit in TARGET_RATIO.items()
    ]
    rows += [
        _target(f"sgc_full S2FA p90 <= {limit:.2f} x {base} p90", limit, r90.get("sgc_full", {}).get(base))
        for base, limit in TARGET_RATIO_P90.items()
    ]
    rows.append(
        _target(
            f"sgc_full first reply audio p50 <= 1.00 x {CASCADE} first audio p50",
            1.0,
            reply.get("sgc_full", {}).get(CASCADE),
        )
    )
    p50 = _q((overhead or {}).get("overhead_ms"), "p50")
    rows.append(_target(f"framework overhead p50 <= {TARGET_OVERHEAD_MS:.0f} ms", TARGET_OVERHEAD_MS, p50))
    dispatch = _q((summaries.get("sgc_full") or {}).get("tool_dispatch_after_transcript_ms"), "p50")
    rows.append(
        _target(
            f"sgc_full tool dispatch p50 <= {TARGET_DISPATCH_MS:.0f} ms after the transcript",
            TARGET_DISPATCH_MS,
            dispatch,
        )
    )
    return rows


def overhead_summary(turns: Sequence[Overhead]) -> dict[str, Any]:
    engines: dict[str, list[float]] = {}
    for o in turns:
        for k, v in o.engines_ms.items():
            engines.setdefault(k, []).append(v)
    silences = [o.tts_leading_silence_ms for o in turns if o.tts_leading_silence_ms is not None]
    without = [w for o in turns if (w := o.overhead_without_leading_silence_ms) is not None]
    return {
        "turns": len(turns),
        "s2fa_ms": _dist(o.s2fa_ms for o in turns),
        "engines_p50_ms": {k: round(percentile(v, 50), 1) for k, v in engines.items()},
        "overhead_ms": _dist(o.overhead_ms for o in turns),
        "tts_leading_silence_ms": _dist(silences),
        "overhead_without_leading_silence_ms": _dist(without),
    }


# --- presentation -------------------------------------------------------------------------------


def _fmt(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _q(dist: Mapping[str, float] | None, q: str) -> float | None:
    return None if not dist else dist.get(q)


def markdown(result: Mapping[str, Any]) -> str:
    summaries: Mapping[str, Mapping[str, Any]] = result["configs"]
    r = result["ratios"]
    r90, reply = result["ratios_p90"], result["ratios_first_reply_audio"]
    lines = [
        "| config | turns | audible | S2FA p50 | p90 | p99 | first reply audio p50 | p90 "
        "| tool dispatch after transcript p50 (turns with tools) | split utterances | Pipecat p50 "
        "| p50 × pe_agent | p50 × cascade | p90 × cascade p90 | reply audio p50 × cascade |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in summaries.items():
        d, a = s["s2fa_ms"], s.get("first_reply_audio_ms")
        t = s.get("tool_dispatch_after_transcript_ms")
        dispatch = f"{_fmt(_q(t, 'p50'))} ({s['turns_with_tools']})" if t else "-"
        lines.append(
            f"| {name} | {s['turns']} | {s['audible']} | {_fmt(_q(d, 'p50'))} | {_fmt(_q(d, 'p90'))} "
            f"| {_fmt(_q(d, 'p99'))} | {_fmt(_q(a, 'p50'))} | {_fmt(_q(a, 'p90'))} | {dispatch} "
            f"| {s.get('split_utterances', '-')} | {_fmt(_q(s['pipecat_ms'], 'p50'))} "
            f"| {_fmt(r[name].get('pe_agent'), 2)} | {_fmt(r[name].get(CASCADE), 2)} "
            f"| {_fmt(r90[name].get(CASCADE), 2)} | {_fmt(reply[name].get(CASCADE), 2)} |"
        )
    lines += ["", "S2FA stages, p50 ms (turns with every milestone):", ""]
    lines += ["| config | n | " + " | ".join(STAGES) + " |", "|---|---|" + "---|" * len(STAGES)]
    for name, s in summaries.items():
        cells = [_fmt(s["stages_p50_ms"].get(stage)) for stage in STAGES]
        lines.append(f"| {name} | {s['stages_n']} | " + " | ".join(cells) + " |")
    overhead = result.get("overhead")
    if overhead and overhead.get("overhead_ms"):
        o = overhead
        engines = ", ".join(f"{k} {v:.0f}" for k, v in o["engines_p50_ms"].items())
        lines += [
            "",
            f"Framework overhead (`sgc_full` on the scripted LLM, {o['turns']} turns): S2FA p50 "
            f"{_fmt(_q(o['s2fa_ms'], 'p50'))} ms; engines p50: {engines} ms; overhead = S2FA − engines: "
            f"p50 {_fmt(_q(o['overhead_ms'], 'p50'), 1)} ms, p90 {_fmt(_q(o['overhead_ms'], 'p90'), 1)} ms; "
            f"of which the TTS's leading silence p50 {_fmt(_q(o['tts_leading_silence_ms'], 'p50'), 1)} ms, "
            f"the rest p50 {_fmt(_q(o['overhead_without_leading_silence_ms'], 'p50'), 1)} ms.",
        ]
    elif overhead:
        lines += ["", f"Framework overhead not measured: {overhead.get('skipped', 'no turn measured')}."]
    lines += ["", "| target | measured | met |", "|---|---|---|"]
    for t in result["targets"]:
        met = "n/a" if t["met"] is None else ("yes" if t["met"] else "**no**")
        lines.append(f"| {t['target']} | {_fmt(t['value'], 2)} | {met} |")
    return "\n".join(lines) + "\n"


def chart(result: Mapping[str, Any], path: Path) -> None:
    """S2FA and first reply audio per configuration: every turn as a dot over a box (quartiles),
    p50 and p90 marked; one panel each, one above the other on the same columns.

    Stacked, and no wider than 13 in (1,430 px at 110 dpi) however many configurations: side by
    side, a run of twelve made a 3,102 x 528 px image whose labels were unreadable when shown."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n, s in result["configs"].items() if s["s2fa_ms"]]
    panels = (("s2fa_ms", "S2FA: speech end → first\naudible sample (ms)"),
              ("first_reply_audio_ms", "speech end → the reply's\nfirst audible sample (ms)"))  # fmt: skip
    width = min(13.0, max(7.0, 0.9 * len(names) + 3.0))
    fig, axes = plt.subplots(2, 1, figsize=(width, 8.5), sharex=True)
    for ax, (key, label) in zip(axes, panels, strict=True):
        values = [
            [t[key] for t in result["turns"] if t["config"] == n and t.get(key) is not None] for n in names
        ]
        shown = [(i, v) for i, v in enumerate(values, start=1) if v]
        if shown:
            ax.boxplot([v for _, v in shown], positions=[i for i, _ in shown], showfliers=False, widths=0.5)
            for i, v in shown:
                jitter = [i + 0.12 * ((k % 7) - 3) / 3 for k in range(len(v))]
                ax.scatter(jitter, v, s=12, alpha=0.45, color="tab:blue", zorder=3)
                p50, p90 = percentile(v, 50), percentile(v, 90)
                first = i == shown[0][0]
                ax.scatter([i], [p50], marker="D", color="black", zorder=4, label="p50" if first else None)
                ax.scatter([i], [p90], marker="^", color="tab:red", zorder=4, label="p90" if first else None)
                ax.annotate(f"{p50:.0f}", (i + 0.3, p50), fontsize=10, va="center")
            ax.legend(loc="upper left", fontsize=10)
        ax.set_ylabel(label, fontsize=11)
        ax.set_ylim(bottom=0)
        ax.set_xlim(0.5, len(names) + 0.9)  # room for the last column's p50 label
        ax.tick_params(axis="y", labelsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[1].set_xticks(range(1, len(names) + 1), names, rotation=20, ha="right", fontsize=10)
    axes[0].set_title(
        f"first audio (S2FA), {result['meta']['turns_per_config']} fixture turns each", fontsize=12
    )
    axes[1].set_title("first reply audio (the answer after any acknowledgement)", fontsize=12)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def rich_table(result: Mapping[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title="speech-to-first-audio per configuration (ms since the fixture's speech end)")
    for col in ("config", "audible", "p50", "p90", "p99", "reply audio p50/p90", "dispatch after transcript",
                "pipecat p50", "× pe_agent", "× cascade"):  # fmt: skip
        table.add_column(col, justify="left" if col == "config" else "right")
    for name, s in result["configs"].items():
        d, t, r = s["s2fa_ms"], s["tool_dispatch_after_transcript_ms"], result["ratios"][name]
        a = s["first_reply_audio_ms"]
        table.add_row(
            name,
            f"{s['audible']}/{s['turns']}",
            f"[bold]{_fmt(_q(d, 'p50'))}[/]",
            _fmt(_q(d, "p90")),
            _fmt(_q(d, "p99")),
            f"{_fmt(_q(a, 'p50'))}/{_fmt(_q(a, 'p90'))}",
            _fmt(_q(t, "p50")) if t else "-",
            _fmt(_q(s["pipecat_ms"], "p50")),
            _fmt(r.get("pe_agent"), 2),
            _fmt(r.get(CASCADE), 2),
        )
    return table


# --- running it -------------------------------------------------------------------------------


@dataclass
class BenchOptions:
    fixtures: Path = Path("audio_fixtures")
    out: Path = field(default_factory=lambda: run_dir("bench_latency"))
    configs: list[str] = field(default_factory=lambda: list(CONFIGS))
    limit: int | None = None  # fixture turns per configuration (the first N, in session order)
    tool_latency_ms: float = 150.0
    # Replies are played out at real time before the next turn: a short budget keeps a run of
    # 6 x 48 turns near an hour. The first audio never waits for the reply's end.
    reply_max_tokens: int = 48
    llm_url: str | None = None
    model: str | None = None
    gguf: str | None = None
    llm_threads: int | None = None
    split_lead: bool | None = None  # a second embedded server for each turn's first call (Engines.lead)
    chat_template: str | None = None  # the embedded server's; None = the GGUF's own template
    cascade_tool_choice: str = "unset"  # "unset" (Pipecat's default) or "auto"
    overhead: bool = True
    overhead_turns: int = 12
    overhead_ttft_s: float = 0.05  # the scripted LLM's time to first token, every role
    turn_timeout_s: float = 60.0
    progress: bool = True


def select_turns(sessions: Sequence[FixtureSession], limit: int | None) -> list[FixtureSession]:
    """The first `limit` turns in session order (a session cut short keeps its first turns)."""
    chosen: list[FixtureSession] = []
    left = limit if limit is not None else sum(len(s.turns) for s in sessions)
    for s in sessions:
        if left <= 0:
            break
        cut = s.first_turns(left)
        left -= len(cut.turns)
        chosen.append(cut)
    return chosen


def read_timeline(report: TurnReport) -> list[dict[str, Any]]:
    path = report.files.get("timeline.jsonl")
    if not path or not Path(path).exists():
        return []
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def _replay_class(config: str, tool_choice: str) -> type[SessionReplay]:
    from voicecoach.pipelines.replay import SessionReplay
    from voicecoach.pipelines.speech.cascade import CascadeAutoReplay, CascadeReplay

    if config != CASCADE:
        return SessionReplay
    return CascadeAutoReplay if tool_choice == "auto" else CascadeReplay


def speech_variant(speech: Any, name: str) -> Any:
    """`speech` with configuration `name`'s change (SPEECH_VARIANTS), if it has one."""
    change = SPEECH_VARIANTS.get(name)
    return speech if change is None else changed(speech, change)


def changed(model: Any, change: Mapping[str, Any]) -> Any:
    """A copy of the pydantic `model` with `change`; a dict for a sub-model changes its fields."""
    update = {
        key: changed(getattr(model, key), value) if isinstance(value, Mapping) else value
        for key, value in change.items()
    }
    return model.model_copy(update=update)


def coach_config(options: BenchOptions, mode: str, llm_url: str | None = None) -> CoachConfig:
    # The cascade has no mode of its own: CoachConfig carries its LLM, tool and budget settings.
    return build_coach_config(
        options,
        llm={"base_url": llm_url, "embedded_chat_template": options.chat_template},
        mode=mode if mode in MODES else "sgc_full",
        reply_max_tokens=options.reply_max_tokens,
        **VARIANTS.get(mode, {}),
    )


def scripted_router(pack_id: str, ttft_s: float) -> Callable[[dict[str, Any]], Any]:
    """Fixed outputs per role for the overhead run: the first W1 chunk already closes SUB_INTENT
    and opens the narration with a whole phrase, so W1's first token is also the first narration."""
    from voicecoach.domain.pack import load_pack
    from voicecoach.grounding.prompt import slot_prompt
    from voicecoach.perception.prompt import w1_system_prompt
    from voicecoach.talker.conditioning import talker_system_prompt
    from voicecoach.testing.scripted_llm import Script

    pack = load_pack(pack_id)
    roles = {w1_system_prompt(pack): "w1", slot_prompt(pack): "w2", talker_system_prompt(pack): "talker"}
    w1 = Script(
        chunks=[
            "<INTENT>lineup</INTENT><SUB_INTENT>counter</SUB_INTENT><NARRATION>Let me check.",
            " One moment.",
            "</NARRATION>",
            "<PLAN>none</PLAN>",
        ],
        ttft_s=ttft_s,
        inter_token_s=0.01,
    )
    scripts = {
        "w1": w1,
        "w2": Script('{"wanted_entities": [], "excluded_entities": []}', ttft_s=ttft_s),
        "talker": Script(
            "Lead with your strongest counter and keep the tank back.", ttft_s=ttft_s, inter_token_s=0.01
        ),
    }

    def route(body: dict[str, Any]) -> Any:
        if body.get("max_tokens") == 1:  # session-open prewarm
            return Script("ok")
        role = roles.get(body["messages"][0]["content"], "talker")
        return scripts[role]

    return route


def cached_reports(folder: Path, session: FixtureSession) -> list[TurnReport] | None:
    """The turn reports of a (configuration, session) an earlier run into the same --out finished
    (its `done.json` and every turn's turn.json), or None: it is replayed."""
    from voicecoach.pipelines.replay import TurnReport

    done = folder / session.session_id / "done.json"
    if not done.exists() or json.loads(done.read_text(encoding="utf-8")).get("turns") != len(session.turns):
        return None
    reports = []
    for index in range(len(session.turns)):
        path = folder / session.session_id / f"turn{index + 1}" / "turn.json"
        if not path.exists():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        data["stages_ms"] = [tuple(stage) for stage in data["stages_ms"]]
        reports.append(TurnReport(**data))
    return reports


def mark_done(folder: Path, session: FixtureSession) -> None:
    (folder / session.session_id).mkdir(parents=True, exist_ok=True)
    (folder / session.session_id / "done.json").write_text(
        json.dumps({"turns": len(session.turns)}), encoding="utf-8"
    )


def check_run_settings(options: BenchOptions, speech: Any) -> None:
    """`<out>/run.json` pins what the cached sessions depend on; a rerun with other settings is
    refused (the configurations and --limit may change: each session is cached per configuration)."""
    settings = {
        "fixtures": str(options.fixtures),
        "tool_latency_ms": options.tool_latency_ms,
        "reply_max_tokens": options.reply_max_tokens,
        "llm": [options.llm_url, options.model, options.gguf, options.llm_threads, options.split_lead],
        "chat_template": options.chat_template,
        "cascade_tool_choice": options.cascade_tool_choice,
        "overhead_ttft_s": options.overhead_ttft_s,
        "speech": speech.model_dump(),
    }
    path = options.out / "run.json"
    if path.exists():
        before = json.loads(path.read_text(encoding="utf-8"))
        changed = sorted(k for k in settings.keys() | before.keys() if before.get(k) != settings.get(k))
        if changed:
            raise ValueError(
                f"{path}: this run's settings differ from the cached run's ({', '.join(changed)}); "
                "use another --out"
            )
    path.write_text(json.dumps(settings, indent=2), encoding="utf-8")


async def replay_or_cached(
    folder: Path, session: FixtureSession, replay: Callable[[], Any]
) -> tuple[list[TurnReport], bool]:
    """A session's reports from the cache, else replayed (and then marked done)."""
    cached = cached_reports(folder, session)
    if cached is not None:
        return cached, True
    reports = await replay()
    if all(r.files for r in reports):  # every turn's files written: the session can be reused
        mark_done(folder, session)
    return reports, False


def turn_row(config: str, r: TurnReport, rows: Sequence[Row]) -> dict[str, Any]:
    """One replayed turn as results.json keeps it."""
    return {
        "config": config,
        "session": r.session_id,
        "turn": r.turn + 1,
        "s2fa_ms": r.s2fa_ms,
        "first_reply_audio_ms": r.first_reply_audio_ms,
        "user_turns": r.user_turns,
        "pipecat_ms": r.pipecat_ms,
        "stages_ms": stage_breakdown(config, r.milestones_ms, rows),
        "milestones_ms": r.milestones_ms,
        "transcript": r.transcript,
        "narration": r.narration,
        "reply": r.reply,
        "tools": [row.get("tools") for row in rows if row["event"] == "tool_dispatch"],
        "problems": r.problems,
    }


async def run_bench(
    options: BenchOptions, on_turn: Callable[[str, TurnReport], None] | None = None
) -> dict[str, Any]:
    """Replay the fixtures under every configuration, then the overhead run; write the results."""
    from voicecoach.bench.fixtures import discover
    from voicecoach.pipelines.replay import ReplayOptions, replay_fixtures

    unknown = sorted(set(options.configs) - set(CONFIGS))
    if unknown:
        raise ValueError(f"unknown configuration(s) {unknown}; known: {', '.join(CONFIGS)}")
    sessions, errors = discover(options.fixtures)
    sessions = select_turns(sessions, options.limit)
    if not sessions:
        raise ValueError(f"no fixture session to replay at {options.fixtures}: {errors}")
    n_turns = sum(len(s.turns) for s in sessions)
    options.out.mkdir(parents=True, exist_ok=True)
    speech = speech_config()
    check_run_settings(options, speech)
    load_before = os.getloadavg()
    started = time.monotonic()
    from voicecoach.coach.engines import Engines

    def result(reports: Mapping[str, list[TurnReport]], overhead: Any, done: int) -> dict[str, Any]:
        summaries: dict[str, dict[str, Any]] = {}
        turn_rows: list[dict[str, Any]] = []
        for name in options.configs:
            timelines = [read_timeline(r) for r in reports[name]]
            summaries[name] = config_summary(name, reports[name], timelines)
            turn_rows += [turn_row(name, r, rows) for r, rows in zip(reports[name], timelines, strict=True)]
        return {
            "meta": meta(options, speech, n_turns, errors, load_before, started, done, len(sessions)),
            "configs": summaries,
            "ratios": ratios(summaries),
            "ratios_p90": ratios(summaries, "p90"),
            "ratios_first_reply_audio": ratios(summaries, metric="first_reply_audio_ms"),
            "overhead": overhead,
            "targets": targets(summaries, overhead),
            "turns": turn_rows,
        }

    # The overhead run first (a few minutes): a long run cut short still has it.
    overhead = await run_overhead(options, sessions, speech, on_turn) if options.overhead else None
    # One LLM for every configuration: the configured endpoint, or one embedded llama.cpp server;
    # none when no configuration calls one (the cascade always does).
    need_llm = CASCADE in options.configs or any(coach_config(options, n).needs_llm for n in options.configs)
    engines = await asyncio.to_thread(Engines.start, coach_config(options, "sgc_full"), need_llm)
    reports: dict[str, list[TurnReport]] = {name: [] for name in options.configs}
    try:
        # Session-major: every configuration replays a session before the next session starts, so
        # a change of load on a shared machine falls on all of them alike. Each session opens with
        # the configuration's prewarm, which puts its static prompts back in the prompt cache.
        # Results are written after every session: a cut-short run reports the sessions it finished,
        # and a rerun into the same --out replays only what is not cached.
        for done, session in enumerate(sessions, start=1):
            for name in options.configs:

                def replay(name: str = name, session: FixtureSession = session) -> Any:
                    def report_turn(r: TurnReport) -> None:
                        if on_turn is not None:
                            on_turn(name, r)

                    return replay_fixtures(
                        [session],
                        engines,
                        coach_config(options, name),
                        speech_variant(speech, name),
                        ReplayOptions(out_dir=options.out / name, turn_timeout_s=options.turn_timeout_s),
                        report_turn,
                        replay_class=_replay_class(name, options.cascade_tool_choice),
                    )

                session_reports, cached = await replay_or_cached(options.out / name, session, replay)
                if cached and on_turn:
                    for cached_report in session_reports:
                        on_turn(name, cached_report)
                reports[name] += session_reports
            write_results(result(reports, overhead, done), options.out)
    finally:
        await engines.close()

    final = result(reports, overhead, len(sessions))
    write_results(final, options.out)
    return final


def meta(
    options: BenchOptions,
    speech: Any,
    n_turns: int,
    errors: list[str],
    load_before: tuple[float, float, float],
    started: float,
    sessions_done: int,
    sessions: int,
) -> dict[str, Any]:
    return {
        "fixtures": str(options.fixtures),
        "turns_per_config": n_turns,
        "sessions_done": f"{sessions_done}/{sessions}",
        "configs": options.configs,
        "variants": {
            name: VARIANTS.get(name) or SPEECH_VARIANTS[name]
            for name in options.configs
            if name in VARIANTS or name in SPEECH_VARIANTS
        },
        "tool_latency_ms": options.tool_latency_ms,
        "reply_max_tokens": options.reply_max_tokens,
        "llm": options.llm_url
        or f"embedded llama.cpp ({Path(options.gguf).name if options.gguf else 'SmolLM2-135M'})",
        "llm_threads": options.llm_threads,
        "split_lead": coach_config(options, "sgc_full").llm.embedded_split_lead,
        "chat_template": options.chat_template or "GGUF template",
        "cascade_tool_choice": options.cascade_tool_choice,
        "speech": speech.model_dump(),
        "machine": machine(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_now": [round(x, 2) for x in os.getloadavg()],
        "elapsed_s": round(time.monotonic() - started, 1),
        "fixture_errors": errors,
        "command": " ".join(sys.argv),
    }


async def run_overhead(
    options: BenchOptions,
    sessions: Sequence[FixtureSession],
    speech: Any,
    on_turn: Callable[[str, TurnReport], None] | None,
) -> dict[str, Any]:
    """`sgc_full` against the scripted LLM server on the real VAD / STT / TTS: framework overhead."""
    from voicecoach.coach.engines import Engines
    from voicecoach.llm.client import LLMClient
    from voicecoach.pipelines.replay import ReplayOptions, replay_fixtures
    from voicecoach.testing.scripted_llm import ScriptedLLMServer

    chosen = select_turns(sessions, options.overhead_turns)
    router = scripted_router(chosen[0].pack_id, options.overhead_ttft_s)
    async with ScriptedLLMServer(router=router) as server:
        config = coach_config(options, "sgc_full", llm_url=server.base_url)
        engines = Engines(llm=LLMClient(config.llm))
        replay_options = ReplayOptions(
            out_dir=options.out / "overhead_sgc_full", turn_timeout_s=options.turn_timeout_s
        )
        reports: list[TurnReport] = []
        try:
            for session in chosen:

                def replay(session: FixtureSession = session) -> Any:
                    return replay_fixtures(
                        [session],
                        engines,
                        config,
                        speech,
                        replay_options,
                        (lambda r: on_turn("overhead", r)) if on_turn else None,
                        replay_class=_replay_class("sgc_full", "unset"),
                    )

                session_reports, _cached = await replay_or_cached(replay_options.out_dir, session, replay)
                reports += session_reports
        finally:
            await engines.close()
    turns = [
        o for r in reports if (o := turn_overhead(r.milestones_ms, read_timeline(r), r.s2fa_ms)) is not None
    ]
    return {"scripted_ttft_ms": options.overhead_ttft_s * 1000.0, **overhead_summary(turns)}


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        cpu = next(
            (
                line.split(":", 1)[1].strip()
                for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")
            ),
            "",
        )
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def write_results(result: Mapping[str, Any], out: Path) -> None:
    (out / "results.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    (out / "results.md").write_text(markdown(result), encoding="utf-8")
    chart(result, out / "s2fa.png")


# --- command ------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fixtures", default="audio_fixtures", help="folder of fixture sessions (or one session)"
    )
    parser.add_argument("--limit", type=int, default=None, help="the first N fixture turns (default all)")
    parser.add_argument(
        "--configs", default=",".join(CONFIGS), help=f"comma-separated, from {', '.join(CONFIGS)}"
    )
    parser.add_argument("--tool-latency-ms", type=float, default=150.0, help="artificial game-server latency")
    parser.add_argument(
        "--out",
        default=None,
        help="output folder (default: ~/.cache/voicecoach/runs/bench_latency/<timestamp>)",
    )
    parser.add_argument(
        "--reply-max-tokens", type=int, default=48, help="reply budget (replies play out in real time)"
    )
    add_engine_arguments(parser, tuning=True)
    parser.add_argument(
        "--chat-template", default=None, help="embedded server's built-in chat template, e.g. chatml"
    )
    parser.add_argument(
        "--cascade-tool-choice", choices=["unset", "auto"], default="unset",
        help="the cascade's tool_choice: unset (Pipecat's default) or auto",
    )  # fmt: skip
    parser.add_argument("--no-overhead", action="store_true", help="skip the scripted-LLM overhead run")
    parser.add_argument("--overhead-turns", type=int, default=12, help="fixture turns in the overhead run")
    parser.add_argument("--turn-timeout", type=float, default=60.0, help="seconds for a turn to complete")


def options_from_args(args: argparse.Namespace) -> BenchOptions:
    options = BenchOptions(
        fixtures=Path(args.fixtures),
        configs=[c.strip() for c in args.configs.split(",") if c.strip()],
        limit=args.limit,
        tool_latency_ms=args.tool_latency_ms,
        reply_max_tokens=args.reply_max_tokens,
        llm_url=args.llm_url,
        model=args.model,
        gguf=args.gguf,
        llm_threads=args.llm_threads,
        split_lead=args.split_lead,
        chat_template=args.chat_template,
        cascade_tool_choice=args.cascade_tool_choice,
        overhead=not args.no_overhead,
        overhead_turns=args.overhead_turns,
        turn_timeout_s=args.turn_timeout,
    )
    if args.out:
        options.out = Path(args.out)
    return options


async def run(args: argparse.Namespace) -> int:
    from loguru import logger
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from voicecoach.core.console import report_console

    console = report_console()
    main_task = asyncio.current_task()
    if main_task is not None:  # SIGTERM cancels like Ctrl-C: the embedded LLM server is stopped, not orphaned
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main_task.cancel)
    options = options_from_args(args)
    options.out.mkdir(parents=True, exist_ok=True)
    logger.remove()  # Pipecat logs every frame at DEBUG: the run's log file gets INFO and up
    logger.add(options.out / "bench.log", level="INFO")
    logger.add(sys.stderr, level="ERROR")

    from voicecoach.bench.fixtures import discover

    sessions, _errors = discover(options.fixtures)
    n = sum(len(s.turns) for s in select_turns(sessions, options.limit))
    total = n * len(options.configs) + (min(n, options.overhead_turns) if options.overhead else 0)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, disable=not options.progress) as progress:
        task = progress.add_task("starting the engines...", total=total)

        def on_turn(config: str, r: TurnReport) -> None:
            s2fa = "-" if r.s2fa_ms is None else f"{r.s2fa_ms:.0f}"
            progress.update(
                task, advance=1, description=f"{config} {r.session_id}/{r.turn + 1}: S2FA {s2fa} ms"
            )

        result = await run_bench(options, on_turn)
    console.print(rich_table(result))
    console.print(markdown(result).split("\n\n", 1)[1])  # the stages, the overhead and the targets
    console.print(f"written to {options.out} (results.json, results.md, s2fa.png)")
    return 0 if all(s["audible"] for s in result["configs"].values()) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        formatter_class=DefaultsHelpFormatter,
        prog="voicecoach bench latency",
        description=__doc__.splitlines()[0],
    )
    add_arguments(parser)
    try:
        return asyncio.run(run(parser.parse_args(argv)))
    except (KeyboardInterrupt, asyncio.CancelledError):
        return 130


if __name__ == "__main__":
    sys.exit(main())
