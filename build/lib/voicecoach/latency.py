"""Speech-to-first-audio (S2FA) arithmetic: clocks, milestones, breakdown, percentiles, WER.

Pure functions over numbers and arrays (no Pipecat), so the measurement itself is
unit-tested. The replay (`pipelines/replay.py`) records *when* things happen on one
monotonic clock; this module says what those times mean:

- speech end: the fixture knows its last speech sample (`speech_end_s`); the replay knows
  when each 20 ms input frame was handed to the pipeline. A microphone delivers a frame
  when its last sample has been captured, so a sample was spoken `(end of its frame -
  the sample's time)` before its frame's delivery (`speech_end_clock`).
- first audio: the output recorder knows when each chunk started playing; the first
  non-silent sample plays `offset / rate` later (`first_audio_clock`).
- S2FA = first audio - speech end, and every other milestone is reported in ms since
  speech end. `critical_path` cuts S2FA into consecutive stages that sum to it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# Milestones of one turn, in the order they normally happen (names used in the timeline).
MILESTONES: tuple[str, ...] = (
    "speech_end",  # the fixture's last speech sample, on the replay clock
    "vad_stop",  # Silero reported the end of speech (after stop_secs of silence)
    "stt_final",  # the final transcript of the turn's last segment
    "turn_stop",  # the user turn was handed to the coach (its transcript released): the coach starts
    "w1_first_token",  # W1's stream produced its first token
    "c1",  # SUB_INTENT closed: c1 pushed
    "tool_dispatch",  # the turn's tools were dispatched (Φ hit or PLAN fallback)
    "first_narration_token",  # the first NARRATION text left W1
    "first_phrase",  # the first phrase was handed to TTS
    "tts_first_byte",  # TTS produced its first audio
    "first_audio",  # the first non-silent sample reached the output transport
    "tool_results",
    "talker_first_token",
    "turn_completed",
)

# S2FA as consecutive stages: (label, from milestone, to milestone). Missing milestones are
# skipped, and their time goes to the next stage that has both ends, so the stages still
# sum to S2FA.
CRITICAL_PATH: tuple[tuple[str, str], ...] = (
    ("VAD silence", "vad_stop"),
    ("STT", "stt_final"),
    ("turn stop", "turn_stop"),
    ("W1 first token", "w1_first_token"),
    ("W1 tags before narration", "first_narration_token"),
    ("first phrase", "first_phrase"),
    ("TTS first byte", "tts_first_byte"),
    ("to first audible sample", "first_audio"),
)

# Output samples at or under this magnitude count as silence (-40 dBFS of int16 full scale).
SILENCE_THRESHOLD = 328


def speech_end_clock(push_times: Sequence[float], frame_s: float, speech_end_s: float) -> float:
    """When the sample at `speech_end_s` (seconds into the fed audio) was spoken, on the replay clock.

    `push_times[j]` is when frame j (covering [j*frame_s, (j+1)*frame_s)) was delivered.
    """
    if not push_times:
        raise ValueError("no input frame was delivered")
    if frame_s <= 0:
        raise ValueError("frame_s must be positive")
    j = max(0, math.ceil(round(speech_end_s / frame_s, 9)) - 1)
    if j >= len(push_times):
        raise ValueError(f"speech end {speech_end_s:.3f}s is past the {len(push_times)} frames delivered")
    return push_times[j] - ((j + 1) * frame_s - speech_end_s)


def first_audio_clock(chunk_start: float, offset_samples: int, rate: int) -> float:
    """When the sample `offset_samples` into a chunk that started playing at `chunk_start` plays."""
    return chunk_start + offset_samples / rate


def first_non_silent(samples: np.ndarray, threshold: int = SILENCE_THRESHOLD) -> int | None:
    """Index of the first int16 sample louder than `threshold`, or None if all are silent."""
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > threshold)
    return int(loud[0]) if loud.size else None


def since(milestones: Mapping[str, float | None], origin: float) -> dict[str, float]:
    """Milestones as ms since `origin` (the speech end), missing ones left out."""
    return {name: round((t - origin) * 1000.0, 1) for name, t in milestones.items() if t is not None}


def s2fa_ms(milestones: Mapping[str, float | None]) -> float | None:
    """Speech end to first audio, in ms; None if either is missing."""
    end, audio = milestones.get("speech_end"), milestones.get("first_audio")
    if end is None or audio is None:
        return None
    return round((audio - end) * 1000.0, 1)


def critical_path(milestones: Mapping[str, float | None]) -> list[tuple[str, float]]:
    """S2FA cut into consecutive stages (label, ms); they sum to S2FA when both ends exist."""
    previous = milestones.get("speech_end")
    if previous is None:
        return []
    stages: list[tuple[str, float]] = []
    for label, end in CRITICAL_PATH:
        t = milestones.get(end)
        if t is None:
            continue
        stages.append((label, round((t - previous) * 1000.0, 1)))
        previous = t
    return stages


def is_ordered(milestones: Mapping[str, float | None], names: Sequence[str]) -> bool:
    """Whether the named milestones all exist and happened in that order."""
    times = [milestones.get(name) for name in names]
    present = [t for t in times if t is not None]
    return len(present) == len(times) and all(a < b for a, b in zip(present, present[1:], strict=False))


# --- percentiles -----------------------------------------------------------------------------


def percentile(values: Iterable[float], q: float) -> float:
    """The q-th percentile (0-100), linear between closest ranks (numpy's default method)."""
    data = sorted(values)
    if not data:
        raise ValueError("percentile of no values")
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"q must be within [0, 100], got {q}")
    rank = (len(data) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(data) - 1)
    return data[low] + (data[high] - data[low]) * (rank - low)


@dataclass(frozen=True)
class Summary:
    n: int
    p50: float
    p90: float
    p99: float
    mean: float
    min: float
    max: float

    def as_dict(self) -> dict[str, float]:
        return {k: round(float(v), 1) for k, v in self.__dict__.items()}


def summarize(values: Iterable[float]) -> Summary | None:
    data = [float(v) for v in values]
    if not data:
        return None
    return Summary(
        n=len(data),
        p50=percentile(data, 50),
        p90=percentile(data, 90),
        p99=percentile(data, 99),
        mean=sum(data) / len(data),
        min=min(data),
        max=max(data),
    )


# --- transcript accuracy ---------------------------------------------------------------------

_NON_WORD = re.compile(r"[^a-z0-9' ]+")


def words(text: str) -> list[str]:
    """Lower-cased words without punctuation (hyphens split words: "pick-up" is two)."""
    return _NON_WORD.sub(" ", text.lower().replace("-", " ")).split()


def wer(reference: str, hypothesis: str) -> float:
    """Word error rate: word-level edit distance over the reference length."""
    ref, hyp = words(reference), words(hypothesis)
    if not ref:
        return 0.0 if not hyp else 1.0
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, start=1):
        diag, row[0] = row[0], i
        for j, h in enumerate(hyp, start=1):
            diag, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diag + (r != h))
    return row[-1] / len(ref)


# --- from recorded events to milestones ------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """Something that happened during a replayed turn, on the replay's monotonic clock."""

    t: float
    kind: str
    turn: int | None = None  # the coach turn (session turn index) it belongs to, if any
    detail: Mapping[str, Any] = field(default_factory=dict)


# The user turn can be cut into several VAD segments: the one that counts is the last.
# milestone: event kind ("transcript" is the turn's transcript handed to the coach).
_LAST_OF = {"vad_stop": "vad_stop", "stt_final": "stt_final", "turn_stop": "transcript"}
# Coach milestones belong to one coach turn: the one that completed (the last one started).
# milestone: event kind ("narration" / "reply" are the first text frame of each per turn).
_FIRST_OF_TURN = {
    "c1": "c1",
    "tool_dispatch": "tool_dispatch",
    "first_narration_token": "narration",
    "tool_results": "tool_results",
    "talker_first_token": "reply",
    "turn_completed": "turn_completed",
}
# Engine milestones carry no turn: the first one after the user turn was released.
_FIRST_AFTER_TURN_STOP = {
    "w1_first_token": "w1_first_token",
    "first_phrase": "phrase",
    "tts_first_byte": "tts_audio",
}


def coach_turn(events: Sequence[Event]) -> int | None:
    """The coach turn a fixture turn ended in: the last completed one, else the last started."""
    completed = [e.turn for e in events if e.kind == "turn_completed" and e.turn is not None]
    if completed:
        return completed[-1]
    started = [e.turn for e in events if e.turn is not None]
    return max(started) if started else None


def milestones_from_events(
    events: Sequence[Event], speech_end: float, first_audio: float | None = None
) -> dict[str, float | None]:
    """The turn's milestones (MILESTONES) on the replay clock; None where one did not happen."""
    m: dict[str, float | None] = dict.fromkeys(MILESTONES)
    m["speech_end"] = speech_end
    for name, kind in _LAST_OF.items():
        times = [e.t for e in events if e.kind == kind]
        m[name] = times[-1] if times else None
    turn = coach_turn(events)
    for name, kind in _FIRST_OF_TURN.items():
        m[name] = next((e.t for e in events if e.kind == kind and e.turn == turn), None)
    released = m["turn_stop"] if m["turn_stop"] is not None else speech_end
    for name, kind in _FIRST_AFTER_TURN_STOP.items():
        m[name] = next((e.t for e in events if e.kind == kind and e.t >= released), None)
    m["first_audio"] = first_audio
    return m
