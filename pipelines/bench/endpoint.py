"""`voicecoach bench endpoint`: what ends the player's turn, on the fixtures: splits, merges, wait.

    python -m voicecoach.pipelines.bench.endpoint [--configs silence,smart_turn,...] [--fixtures PATHS]
        [--pairs PATHS] [--gap 1.0] [--out DIR]

Listens only (`pipelines/replay.py --listen-only`: Silero VAD → Whisper → Pipecat's
`UserTurnProcessor` with the configuration's stop strategy → `TurnGate`; no coach, no TTS), each
configuration in turn over the same audio, one session at a time:

- the `--fixtures` (folders or session JSONs, comma-separated; counted by pack): an utterance
  handed to the coach as more than one transcript is **split** (the coach answers the first half,
  and the player talks over the answer); **handed** is when the last of them reached the coach, ms
  after the fixture's last speech sample. What comes after the transcript does not depend on the
  stop strategy, so the difference in handed is the configuration's S2FA cost.
- **pairs**: two real questions, the first two utterances of every session of `--pairs`, each cut
  to its speech and played with `--gap` s of silence between them. A pair whose first
  question reached the coach only after the second had begun is **merged** at the turn's end.
  A pair kept apart there may still be merged by the session: speech that starts within
  `CONTINUES_WITHIN_S` of a transcript continues that utterance (`Session.begin_turn`); that
  count is given apart ("then continued").

Writes `results.json` and `results.md` under `--out` after every session; a rerun into the same
`--out` replays only the (configuration, session) pairs not finished.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from voicecoach.bench.fixtures import (
    SAMPLE_RATE,
    FixtureSession,
    FixtureTurn,
    discover,
    load_audio,
    speech_end,
)
from voicecoach.coach.config import speech_config
from voicecoach.coach.session import CONTINUES_WITHIN_S
from voicecoach.core.console import DefaultsHelpFormatter
from voicecoach.core.latency import Milestone, percentile
from voicecoach.core.runs import run_dir

if TYPE_CHECKING:
    from voicecoach.pipelines.replay import TurnReport

# Each configuration: SpeechConfig changes over the defaults (today's: the silence rule).
NO_HOLD: dict[str, Any] = {"hold": {"enabled": False}}
CONFIGS: dict[str, dict[str, Any]] = {
    "silence": NO_HOLD,  # the VAD's 0.2 s stop and a transcript end the turn
    "silence_0.6": {"vad": {"stop_secs": 0.6}, **NO_HOLD},  # the same rule, three times the silence
    # ... with Whisper started after the VAD's stop, not at the silence onset (bench latency's
    # sgc_full_stt_at_stop): a pause shorter than the stop plus the decode no longer ends the turn.
    "silence_stt_at_stop": {"stt": {"at_silence_onset": False}, **NO_HOLD},
    # The silence rule with the text-aware hold (voicecoach/coach/turn_hold.py): a finished question
    # or request ends the turn at the VAD's stop, a statement is held statement_s, an unfinished
    # clause unfinished_s; speech resuming within the hold continues the turn.
    "text_hold": {"hold": {"enabled": True}},
    "text_hold_0.5": {"hold": {"enabled": True, "statement_s": 0.5, "unfinished_s": 0.7}},
    "smart_turn": {"turn_stop": "smart_turn"},  # smart-turn v3.2, Pipecat's 3 s fallback
    "smart_turn_1.0": {"turn_stop": "smart_turn", "smart_turn_fallback_s": 1.0},
    "smart_turn_0.5": {"turn_stop": "smart_turn", "smart_turn_fallback_s": 0.5},
}
# Default --fixtures and --pairs: the fixtures folder and each folder under it holding sessions.
FIXTURES = Path("audio_fixtures")
# Every fixture WAV starts with this much silence before its speech (audio_fixtures/make_fixtures.py).
FIXTURE_LEAD_S = 0.3
# A turn stop released this long after the second question's onset still came before its speech
# could be heard as speech (the VAD's start_secs): the two questions were kept apart.
ONSET_GRACE_S = 0.2


def speech_variant(name: str) -> Any:
    from voicecoach.pipelines.bench.latency import changed

    return changed(speech_config(), CONFIGS[name])


def pair_session(source: FixtureSession, gap_s: float, folder: Path) -> tuple[FixtureSession, dict[str, Any]]:
    """`source`'s first two utterances as one turn: the first up to its speech end and `gap_s` of
    its own tail (silence, or its noise), then the second from its speech onset; with where the
    first ends and the second starts (s before the pair's speech end)."""
    import soundfile as sf

    one, two = source.turns[:2]
    first, second = load_audio(source.audio_path(one)), load_audio(source.audio_path(two))
    lead = round(FIXTURE_LEAD_S * SAMPLE_RATE)
    first_end, second_end = (
        round(speech_end_s(t, a) * SAMPLE_RATE) for t, a in ((one, first), (two, second))
    )
    gap = round(gap_s * SAMPLE_RATE)
    tail = first[first_end : first_end + gap]
    tail = np.concatenate([tail, np.zeros(gap - len(tail), np.float32)])  # a gap longer than the tail
    audio = np.concatenate([first[:first_end], tail, second[lead:]])
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{source.session_id}_pair.wav"
    sf.write(folder / name, audio, SAMPLE_RATE, subtype="PCM_16")
    # S2FA counts from the second question's last speech sample, as for a lone utterance.
    end = (first_end + gap + second_end - lead) / SAMPLE_RATE
    turn = two.model_copy(
        update={
            "audio": name,
            "transcript": f"{one.transcript} {two.transcript}",
            "speech_end_s": end,
            "state": None,
            "state_patch": None,
        }
    )
    pair = source.model_copy(update={"session_id": f"{source.session_id}_pair", "turns": [turn]})
    pair._base_dir = folder
    times = {
        "first_end_s": first_end / SAMPLE_RATE - end,
        "second_start_s": (first_end + gap) / SAMPLE_RATE - end,
    }
    return pair, times


def speech_end_s(turn: FixtureTurn, audio: np.ndarray) -> float:
    return turn.speech_end_s if turn.speech_end_s is not None else speech_end(audio)


def pair_outcome(rows: Sequence[dict[str, Any]], first_end_s: float, second_start_s: float) -> str:
    """ "apart", "merged" (no transcript between the two questions) or "continued" (apart at the
    turn's end, but the second began within CONTINUES_WITHIN_S of the first's transcript, so the
    session asks them as one utterance)."""
    lo, hi = first_end_s * 1000.0, (second_start_s + ONSET_GRACE_S) * 1000.0
    stops = [r["ms"] for r in rows if r["event"] == Milestone.TURN_STOP and lo <= r["ms"] <= hi]
    if not stops:
        return "merged"
    started = [r["ms"] for r in rows if r["event"] == "user_started" and r["ms"] > stops[-1]]
    if started and started[0] - stops[-1] < CONTINUES_WITHIN_S * 1000.0:
        return "continued"
    return "apart"


def _timeline(report: TurnReport) -> list[dict[str, Any]]:
    path = report.files.get("timeline.jsonl")
    if not path or not Path(path).exists():
        return []
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def _dist(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    return {
        "n": len(values),
        "p50": round(percentile(values, 50), 1),
        "p90": round(percentile(values, 90), 1),
    }


def config_summary(reports: dict[str, list[TurnReport]], pairs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pack, rows in reports.items():
        handed = [r.milestones_ms["turn_stop"] for r in rows if "turn_stop" in r.milestones_ms]
        out[pack] = {
            "utterances": len(rows),
            "split": sum(r.user_turns > 1 for r in rows),
            "split_turns": [f"{r.session_id}/{r.turn + 1}" for r in rows if r.user_turns > 1],
            "no_transcript": sum(r.user_turns == 0 for r in rows),
            "handed_ms": _dist(handed),
            "wer": round(float(np.mean([r.wer for r in rows if r.wer is not None])), 3) if rows else None,
        }
    outcomes = [p["outcome"] for p in pairs.values()]
    out["pairs"] = {
        "pairs": len(outcomes),
        "merged": outcomes.count("merged"),
        "continued": outcomes.count("continued"),
        "merged_pairs": sorted(k for k, p in pairs.items() if p["outcome"] == "merged"),
    }
    return out


NOT_PACKS = ("pairs", "pair_outcomes", "_handed_all")


def markdown(result: dict[str, Any]) -> str:
    base = result["configs"].get("silence", {})
    packs = list(dict.fromkeys(k for s in result["configs"].values() for k in s if k not in NOT_PACKS))
    lines = [
        f"| configuration | {' | '.join(f'split {p}' for p in packs)} | handed p50 / p90 (all, ms) | "
        "cost p50 / p90 vs silence | pairs merged at the turn end | then continued | WER |",
        "|---|" + "---|" * (len(packs) + 6),
    ]

    def both(s: dict[str, Any]) -> list[float]:
        return s.get("_handed_all", [])

    for name, s in result["configs"].items():
        pairs = s["pairs"]
        hand, ref = both(s), both(base)
        p50, p90 = (round(percentile(hand, q), 1) if hand else None for q in (50, 90))
        cost = "-"
        if hand and ref:
            d50, d90 = (percentile(hand, q) - percentile(ref, q) for q in (50, 90))
            cost = f"{d50:+.0f} / {d90:+.0f}"
        wer = np.mean([w for p in packs if (w := s.get(p, {}).get("wer")) is not None])
        merged, continued, n = pairs["merged"], pairs["continued"], pairs["pairs"]
        splits = " | ".join(f"{s[p]['split']}/{s[p]['utterances']}" if p in s else "-" for p in packs)
        lines.append(
            f"| {name} | {splits} | {p50} / {p90} | {cost} | {merged}/{n} | {continued}/{n} | {wer:.3f} |"
        )
    return "\n".join(lines) + "\n"


def default_paths() -> list[Path]:
    return [FIXTURES, *sorted(d for d in FIXTURES.iterdir() if d.is_dir() and any(d.glob("*.json")))]


def sessions_of(paths: Sequence[Path]) -> list[FixtureSession]:
    out = []
    for path in paths:
        sessions, errors = discover(path)
        if errors:
            raise ValueError(f"fixtures at {path}: {errors}")
        out += sessions
    return out


async def run_bench(
    names: list[str],
    gap_s: float,
    out: Path,
    fixtures: Sequence[Path],
    pair_sources: Sequence[Path],
    log: Any = print,
) -> dict[str, Any]:
    from voicecoach.coach.engines import Engines
    from voicecoach.llm.client import LLMConfig, NoLLM
    from voicecoach.pipelines.bench.latency import cached_reports, mark_done
    from voicecoach.pipelines.replay import ReplayOptions, replay_fixtures

    groups: dict[str, list[FixtureSession]] = {}
    for session in sessions_of(fixtures):
        groups.setdefault(session.pack_id, []).append(session)
    pairs, pair_times = [], {}
    for source in sessions_of(pair_sources):
        pair, times = pair_session(source, gap_s, out / "pairs_audio")
        pairs.append(pair)
        pair_times[pair.session_id] = times
    groups["pairs"] = pairs

    from voicecoach.coach.session import CoachConfig

    config = CoachConfig()
    engines = Engines(llm=NoLLM(LLMConfig()))  # VAD, STT and the turn stop only
    result: dict[str, Any] = {
        "meta": {
            "gap_s": gap_s,
            "configs": {n: CONFIGS[n] for n in names},
            "fixtures": [str(p) for p in fixtures],
            "pairs": [str(p) for p in pair_sources],
            "command": " ".join(sys.argv),
        },
        "configs": {},
    }
    for name in names:
        speech = speech_variant(name)
        reports: dict[str, list[TurnReport]] = {}
        for group, sessions in groups.items():
            reports[group] = []
            for session in sessions:
                folder = out / name / group
                cached = cached_reports(folder, session)
                if cached is None:
                    options = ReplayOptions(out_dir=folder, listen_only=True)
                    cached = await replay_fixtures([session], engines, config, speech, options)
                    if all(r.files for r in cached):
                        mark_done(folder, session)
                reports[group] += cached
                split = sum(r.user_turns > 1 for r in cached)
                log(f"{name} {group} {session.session_id}: split {split}, load {os.getloadavg()[0]:.1f}")
        outcomes = {
            r.session_id: {
                "outcome": pair_outcome(_timeline(r), **pair_times[r.session_id]),
                "transcript": r.transcript,
            }
            for r in reports.pop("pairs")
        }
        summary = config_summary(reports, outcomes)
        summary["pair_outcomes"] = outcomes
        summary["_handed_all"] = [
            r.milestones_ms["turn_stop"]
            for rows in reports.values()
            for r in rows
            if "turn_stop" in r.milestones_ms
        ]
        result["configs"][name] = summary
        (out / "results.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
        (out / "results.md").write_text(markdown(result), encoding="utf-8")
    result["meta"]["load_average"] = [round(x, 2) for x in os.getloadavg()]
    (out / "results.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    return result


# `--configs silence` took 462 s on 2 cores shared with other work (load ~2.4): the fixtures are
# played in real time, once per configuration.
RUN_TIME = "~8 min per configuration (the fixtures play in real time): ~1 h for the default eight"


def main(argv: list[str] | None = None, prog: str = "voicecoach bench endpoint") -> int:
    parser = argparse.ArgumentParser(
        formatter_class=DefaultsHelpFormatter,
        prog=prog,
        description=f"{__doc__.splitlines()[0]}\n\n"
        + textwrap.fill(f"Run time on 2 cores: {RUN_TIME}.", 100),
    )
    parser.add_argument("--configs", default=",".join(CONFIGS), help=f"from {', '.join(CONFIGS)}")
    parser.add_argument(
        "--fixtures",
        default=None,
        help="folders or session JSONs, comma-separated (default: audio_fixtures and its packs)",
    )
    parser.add_argument(
        "--pairs", default=None, help="where the question pairs come from (default: as --fixtures')"
    )
    parser.add_argument("--gap", type=float, default=1.0, help="silence between a pair's two questions (s)")
    parser.add_argument(
        "--out",
        default=None,
        help="output folder (default: ~/.cache/voicecoach/runs/bench_endpoint/<timestamp>)",
    )
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.configs.split(",") if n.strip()]
    unknown = sorted(set(names) - set(CONFIGS))
    if unknown:
        parser.error(f"unknown configuration(s) {unknown}")
    out = Path(args.out) if args.out else run_dir("bench_endpoint")
    out.mkdir(parents=True, exist_ok=True)
    from loguru import logger

    logger.remove()  # Pipecat logs every frame at DEBUG: to the run's log file
    logger.add(out / "bench.log", level="INFO")
    logger.add(sys.stderr, level="ERROR")

    def paths(text: str | None) -> list[Path]:
        return [Path(p.strip()) for p in text.split(",") if p.strip()] if text else default_paths()

    runs = run_bench(
        names, args.gap, out, paths(args.fixtures), paths(args.pairs), lambda m: print(m, flush=True)
    )
    result = asyncio.run(runs)
    print(markdown(result))
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
