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

import asyncio
import math
import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np


class Milestone(StrEnum):
    """What happened when in one turn: the one vocabulary of the turn timeline.

    The actors stamp their frames (`t_ms`), the observers record these milestones on their
    clock, and every report reads them by these names: text mode's `TurnResult.timeline`, the
    server's latency event, the replay's `milestones_ms`, the benchmarks' stages and the turn
    record's `latency`. The values are the names written to JSON. In the order they normally
    happen.
    """

    SPEECH_END = "speech_end"  # the player's last speech sample (typed input: its arrival)
    VAD_STOP = "vad_stop"  # Silero reported the end of speech (after stop_secs of silence)
    STT_FINAL = "stt_final"  # the final transcript of the turn's last segment
    TURN_STOP = "turn_stop"  # the user turn was handed to the coach (its transcript released)
    SPEAKING_CALL = "speaking_call"  # request of the LLM call whose text is heard first
    W1_FIRST_TOKEN = "w1_first_token"  # W1's stream produced its first token
    SPEAKING_FIRST_TOKEN = "speaking_first_token"  # that call's first token
    C1 = "c1"  # SUB_INTENT closed: c1 pushed
    TOOL_DISPATCH = "tool_dispatch"  # the turn's tools were dispatched (Φ hit or PLAN fallback)
    FIRST_NARRATION_TOKEN = "first_narration_token"  # the first NARRATION text left W1
    NARRATION_END = "narration_end"  # NARRATION closed
    FIRST_PHRASE = "first_phrase"  # the first phrase was handed to TTS
    TTS_FIRST_BYTE = "tts_first_byte"  # TTS produced its first audio
    FIRST_AUDIO = "first_audio"  # the first non-silent sample reached the output transport
    TOOL_RESULTS = "tool_results"  # every tool of the dispatch answered (or failed)
    C2 = "c2"  # W2's conflicts and paragraph plan
    C3 = "c3"  # W3's guidance pick
    REPLY_FIRST_TOKEN = "reply_first_token"  # the reply's first text (the Talker's, or a baseline's)
    # The reply's first non-silent sample at the output, after the narration's audio; the first
    # audio itself when nothing is spoken before the reply (a baseline, the cascade).
    FIRST_REPLY_AUDIO = "first_reply_audio"
    TURN_COMPLETED = "turn_completed"  # the reply ended: the turn is committed


MILESTONES: tuple[Milestone, ...] = tuple(Milestone)

# S2FA as consecutive stages: (label, the milestone that ends it; the previous stage's end, or
# speech end, starts it). `critical_path` skips a stage whose end is missing and gives its time
# to the next stage that has one, so the stages still sum to S2FA.
STAGES: tuple[tuple[str, Milestone], ...] = (
    ("VAD hang", Milestone.VAD_STOP),  # the VAD's stop_secs of silence, and its frames
    ("STT", Milestone.STT_FINAL),
    ("turn stop", Milestone.TURN_STOP),  # the user turn handed to the coach / the cascade's LLM
    ("before speaking call", Milestone.SPEAKING_CALL),  # pe_agent: the planner and the tools
    ("LLM TTFT", Milestone.SPEAKING_FIRST_TOKEN),
    ("text to TTS", Milestone.FIRST_PHRASE),  # W1's tags first; the cascade's whole first sentence
    ("TTS first byte", Milestone.TTS_FIRST_BYTE),
    ("to first audible", Milestone.FIRST_AUDIO),  # transport, and the TTS's leading silence
)
STAGE_LABELS: tuple[str, ...] = tuple(label for label, _ in STAGES)

# Which LLM call's text is heard first, per configuration (the `label` of the LLM call events);
# the SGC configurations are heard through W1's narration (see `speaking_role`).
SPEAKING_ROLE = {"prompting": "talker", "pe_agent": "talker", "cascade": "cascade"}

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


def reply_lead_bytes(events: Sequence[Event], after: float) -> int | None:
    """Bytes of TTS audio a turn speaks before its reply: what the narration's phrases produced.

    `after` is when the user turn was released. Each phrase handed to TTS is a "phrase" event
    (`part` "narration" or "reply"; no part: a reply, as in the cascade; `segment` its id); the
    TTS marks each phrase's text after its audio ("tts_text", same `segment`) and the first
    audio of each context ("tts_audio"), both with `tts_bytes`, the TTS audio pushed before
    them. 0 when the reply is the first thing spoken, None when the turn has no reply phrase
    (or its TTS marks are missing)."""
    phrases = [e for e in events if e.kind == "phrase" and e.t >= after]
    first_reply = next((i for i, e in enumerate(phrases) if e.detail.get("part", "reply") == "reply"), None)
    if first_reply is None:
        return None
    before = {e.detail.get("segment") for e in phrases[:first_reply]}
    if not before:
        return 0
    start = next((e for e in events if e.kind == "tts_audio" and e.t >= after), None)
    ends = [
        e.detail["tts_bytes"]
        for e in events
        if e.kind == "tts_text"
        and e.t >= after
        and e.detail.get("segment") in before
        and "tts_bytes" in e.detail
    ]
    if start is None or "tts_bytes" not in start.detail or len(ends) < len(before):
        return None
    return max(ends) - start.detail["tts_bytes"]


def first_audible_after_bytes(
    chunks: Sequence[tuple[float, bytes]], start: float, lead_bytes: int, rate: int
) -> float | None:
    """When the first non-silent sample past `lead_bytes` of output plays.

    `chunks` are (play start, int16 mono PCM) as the output transport played them; counting
    starts at the first chunk that started at or after `start` (the turn's first TTS audio).
    With `lead_bytes` the narration's audio, this is the first reply audio: the output plays
    the TTS's audio in order, so the reply begins that many bytes in."""
    skip = lead_bytes - lead_bytes % 2  # whole int16 samples
    for chunk_start, pcm in chunks:
        if chunk_start < start:
            continue
        if skip >= len(pcm):
            skip -= len(pcm)
            continue
        offset = first_non_silent(np.frombuffer(pcm, dtype=np.int16)[skip // 2 :])
        if offset is not None:
            return first_audio_clock(chunk_start, skip // 2 + offset, rate)
        skip = 0
    return None


def first_reply_audio_ms(milestones: Mapping[str, float | None]) -> float | None:
    """Speech end to the reply's first audible sample, in ms; None if either is missing."""
    end, audio = milestones.get(Milestone.SPEECH_END), milestones.get(Milestone.FIRST_REPLY_AUDIO)
    if end is None or audio is None:
        return None
    return round((audio - end) * 1000.0, 1)


def since(milestones: Mapping[str, float | None], origin: float) -> dict[str, float]:
    """Milestones as ms since `origin` (the speech end), missing ones left out."""
    return {name: round((t - origin) * 1000.0, 1) for name, t in milestones.items() if t is not None}


def s2fa_ms(milestones: Mapping[str, float | None]) -> float | None:
    """Speech end to first audio, in ms; None if either is missing."""
    end, audio = milestones.get(Milestone.SPEECH_END), milestones.get(Milestone.FIRST_AUDIO)
    if end is None or audio is None:
        return None
    return round((audio - end) * 1000.0, 1)


def critical_path(milestones: Mapping[str, float | None], unit_ms: float = 1000.0) -> list[tuple[str, float]]:
    """S2FA cut into STAGES (label, ms); they sum to S2FA when both ends exist.

    `milestones` are on one clock from speech end: seconds (the default) or, with unit_ms=1, ms."""
    previous = milestones.get(Milestone.SPEECH_END)
    if previous is None:
        return []
    stages: list[tuple[str, float]] = []
    for label, end in STAGES:
        t = milestones.get(end)
        if t is None:
            continue
        stages.append((label, round((t - previous) * unit_ms, 1)))
        previous = t
    return stages


def speaking_role(config: str, milestones: Mapping[str, float | None]) -> str:
    """The label of the LLM call whose text reached TTS first on this turn."""
    if config in SPEAKING_ROLE:
        return SPEAKING_ROLE[config]
    narration, phrase = (
        milestones.get(Milestone.FIRST_NARRATION_TOKEN),
        milestones.get(Milestone.FIRST_PHRASE),
    )
    if narration is not None and (phrase is None or narration <= phrase):
        return "w1"
    return "talker"  # W1 said no narration: the Talker's reply was heard first


def speaking_call(events: Sequence[Event], role: str, after: float) -> tuple[float, float] | None:
    """(request, first token) of the first `role` call to yield a token at or after `after`.

    The LLM events are `llm_request` / `llm_first_token` (W1's: `w1_first_token`) with the
    call's role in `detail["label"]`."""
    first = next(
        (
            e.t
            for e in events
            if e.kind in (Milestone.W1_FIRST_TOKEN, "llm_first_token")
            and e.detail.get("label") == role
            and e.t >= after
        ),
        None,
    )
    if first is None:
        return None
    requests = [
        e.t for e in events if e.kind == "llm_request" and e.detail.get("label") == role and e.t <= first
    ]
    return (requests[-1], first) if requests else None


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


class LoopLag:
    """How late an event loop runs what is due: the wait every callback on it shares.

    A task (`run`) asks to wake every `every_s` and records how much later it woke. On the server
    every session's frames, websocket reads and writes wait that long too, and no S2FA stage
    times it, so `/api/health` reports it; the load benchmark watches its own loop the same way,
    since its players' clocks run on it.
    """

    def __init__(self, every_s: float = 0.05, keep: int = 200):
        self.every_s = every_s
        self.lags_ms: deque[float] = deque(maxlen=keep)  # the last `keep` wake-ups (10 s)

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + self.every_s
            await asyncio.sleep(self.every_s)
            self.lags_ms.append((loop.time() - due) * 1000.0)

    def summary(self) -> dict[str, float | None]:
        lags = list(self.lags_ms)
        if not lags:
            return {"p50": None, "p99": None, "max": None}
        return {
            "p50": round(percentile(lags, 50), 1),
            "p99": round(percentile(lags, 99), 1),
            "max": round(max(lags), 1),
        }


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


# How each milestone is read off the replay's events. Coach frames and the gate's transcript
# are recorded under their milestone; TTS input and output repeat per phrase ("phrase" is each
# phrase handed to TTS, "tts_audio" the first audio of each).
# The user turn can be cut into several VAD segments: the one that counts is the last.
_LAST_OF = {
    Milestone.VAD_STOP: "vad_stop",
    Milestone.STT_FINAL: "stt_final",
    Milestone.TURN_STOP: "turn_stop",
}
# Coach milestones belong to one coach turn: the one that completed (the last one started).
_FIRST_OF_TURN = (
    Milestone.C1,
    Milestone.TOOL_DISPATCH,
    Milestone.FIRST_NARRATION_TOKEN,
    Milestone.NARRATION_END,
    Milestone.TOOL_RESULTS,
    Milestone.C2,
    Milestone.C3,
    Milestone.REPLY_FIRST_TOKEN,
    Milestone.TURN_COMPLETED,
)
# Engine milestones carry no turn: the first one after the user turn was released.
_FIRST_AFTER_TURN_STOP = {
    Milestone.W1_FIRST_TOKEN: "w1_first_token",
    Milestone.FIRST_PHRASE: "phrase",
    Milestone.TTS_FIRST_BYTE: "tts_audio",
}


def coach_turn(events: Sequence[Event]) -> int | None:
    """The coach turn a fixture turn ended in: the last completed one, else the last started."""
    completed = [e.turn for e in events if e.kind == Milestone.TURN_COMPLETED and e.turn is not None]
    if completed:
        return completed[-1]
    started = [e.turn for e in events if e.turn is not None]
    return max(started) if started else None


def milestones_from_events(
    events: Sequence[Event],
    speech_end: float,
    first_audio: float | None = None,
    config: str | None = None,
    first_reply_audio: float | None = None,
) -> dict[str, float | None]:
    """The turn's milestones (keyed by Milestone) on the replay clock; None where one did not happen.

    With `config` (a mode, or "cascade"), also when the call heard first was requested and
    gave its first token (SPEAKING_CALL, SPEAKING_FIRST_TOKEN). The output's two audio
    milestones are measured by the caller (`first_audible_after_bytes`)."""
    m: dict[str, float | None] = dict.fromkeys(MILESTONES)
    m[Milestone.SPEECH_END] = speech_end
    for name, kind in _LAST_OF.items():
        times = [e.t for e in events if e.kind == kind]
        m[name] = times[-1] if times else None
    turn = coach_turn(events)
    for name in _FIRST_OF_TURN:
        m[name] = next((e.t for e in events if e.kind == name and e.turn == turn), None)
    turn_stop = m[Milestone.TURN_STOP]
    released = turn_stop if turn_stop is not None else speech_end
    for name, kind in _FIRST_AFTER_TURN_STOP.items():
        m[name] = next((e.t for e in events if e.kind == kind and e.t >= released), None)
    m[Milestone.FIRST_AUDIO] = first_audio
    m[Milestone.FIRST_REPLY_AUDIO] = first_reply_audio
    if config is not None:
        call = speaking_call(events, speaking_role(config, m), released)
        if call is not None:
            m[Milestone.SPEAKING_CALL], m[Milestone.SPEAKING_FIRST_TOKEN] = call
    return m
