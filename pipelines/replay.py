"""Fixture replay: recorded utterances through the real voice pipeline, S2FA per turn.

    python -m voicecoach.pipelines.replay PATH [--out DIR] [--mode sgc_full] [--turn-stop vad] ...

PATH is a fixture WAV, a session JSON or a folder of sessions (`voicecoach.bench.fixtures.discover`;
a bad session is reported and skipped, the others run). Each session runs on the pack its
`pack_id` names; `--pack ID` picks the pack of a lone WAV and skips any other pack's session.
For each session a fresh voice pipeline (`pipelines/speech/voice.py`) runs between two replay transports:

- `ReplayInput` plays each turn's 16 kHz audio at real-time pace in 20 ms frames, and keeps
  sending silence between turns (so the VAD hears the speech end, as from a microphone);
- `ReplayOutput` plays what the coach says at real-time pace (a sound card one chunk ahead)
  and records every chunk with the monotonic time it starts playing.

Before each turn the turn's state or patch is applied to the session; the replay then waits
for the coach turn to complete and its audio to finish. `ReplayProbe` (an observer) records
every milestone on the same clock; `voicecoach.core.latency` turns them into S2FA (fixture speech
end → first non-silent output sample) and its breakdown. Pipecat's `UserBotLatencyObserver`
is attached too, and its figure is reported beside ours.

Per turn, under `--out` (default ~/.cache/voicecoach/runs/replay/<timestamp>/: voicecoach.core.runs,
outside the checkout): <session>/turn<N>/out.wav (the coach on the turn's timeline), dialog.wav
(player left, coach right), timeline.jsonl (every event, ms since speech end) and turn.json; at the
top, summary.json and a rich table.

Why one module of ~900 lines: one harness on one clock: a turn's report (`SessionReplay._report`)
reads the output's recorded chunks, the probe's milestones and the input's push times together,
and bench latency and the cascade reuse `SessionReplay` whole. The seam: the two replay transports
(`ReplayInput`, `ReplayOutput` with `Playback`, ~135 lines), which need nothing else here.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np
import soundfile as sf
from loguru import logger
from pipecat.clocks.base_clock import BaseClock
from pipecat.clocks.system_clock import SystemClock
from pipecat.frames.frames import (
    AggregatedTextFrame,
    EndFrame,
    ErrorFrame,
    Frame,
    InputAudioRawFrame,
    InterruptionFrame,
    OutputAudioRawFrame,
    StartFrame,
    TranscriptionFrame,
    TTSAudioRawFrame,
    TTSTextFrame,
)
from pipecat.observers.base_observer import FramePushed
from pipecat.observers.user_bot_latency_observer import UserBotLatencyObserver
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.tts_service import TTSService
from pipecat.transports.base_input import BaseInputTransport
from pipecat.transports.base_output import BaseOutputTransport
from pipecat.transports.base_transport import TransportParams
from pipecat.workers.runner import WorkerRunner

from voicecoach.actors.frames import (
    IntentControlFrame,
    NarrationTextFrame,
    ReplyTextFrame,
    ToolDispatchFrame,
    ToolResultFrame,
)
from voicecoach.bench.fixtures import FixtureError, FixtureSession, FixtureTurn, discover, load_audio
from voicecoach.coach.config import add_replay_arguments, coach_config, speech_config
from voicecoach.coach.engines import Engines, describe_llm, load_coach_pack, prewarm
from voicecoach.coach.session import CoachConfig, Session
from voicecoach.coach.speech_config import SpeechConfig
from voicecoach.core.console import DefaultsHelpFormatter
from voicecoach.core.latency import (
    Event,
    Milestone,
    coach_turn,
    critical_path,
    first_audible_after_bytes,
    first_audio_clock,
    first_non_silent,
    first_reply_audio_ms,
    milestones_from_events,
    percentile,
    reply_lead_bytes,
    s2fa_ms,
    since,
    speech_end_clock,
    summarize,
    wer,
)
from voicecoach.core.runs import run_dir
from voicecoach.core.state import StateError, load_state
from voicecoach.domain.pack import PackError, load_pack
from voicecoach.llm.client import LLMClient, LLMError, NoLLM
from voicecoach.pipelines.speech.voice import (
    PhraseFrame,
    listening_processors,
    narration_audio_ready,
    pipeline_params,
    voice_pipeline,
)
from voicecoach.pipelines.timeline import TimelineObserver

FRAME_S = 0.020
INPUT_RATE = 16000


def to_int16(audio: np.ndarray) -> np.ndarray:
    """Float samples in [-1, 1] (or int16 already) as int16."""
    if audio.dtype == np.int16:
        return audio
    return (np.clip(audio, -1.0, 1.0) * 32767.0).round().astype(np.int16)


# --- transports ----------------------------------------------------------------------------


@dataclass
class Playback:
    """One utterance being fed, and when each of its frames was delivered."""

    pcm: np.ndarray  # int16 mono at the input rate
    push_times: list[float] = field(default_factory=list)  # monotonic, one per frame
    done: asyncio.Event = field(default_factory=asyncio.Event)
    position: int = 0


class ReplayInput(BaseInputTransport):
    """A microphone that plays fixtures: 20 ms frames at real-time pace, silence in between.

    Frames are scheduled on an absolute grid (start + n × 20 ms), so a late wake-up is made
    up for instead of drifting; each frame is delivered when its last sample has been
    "captured", as a sound card does.
    """

    def __init__(self, sample_rate: int = INPUT_RATE, frame_s: float = FRAME_S):
        super().__init__(TransportParams(audio_in_enabled=True, audio_in_sample_rate=sample_rate))
        self._rate = sample_rate
        self._frame = round(sample_rate * frame_s)
        self.frame_s = self._frame / sample_rate
        self._playback: Playback | None = None
        self._feeder: asyncio.Task | None = None
        self.ready = asyncio.Event()

    def play(self, audio: np.ndarray) -> Playback:
        """Start feeding `audio` (mono at the input rate) at the next frame."""
        self._playback = Playback(to_int16(audio))
        return self._playback

    async def start(self, frame: StartFrame):
        await super().start(frame)
        await self.set_transport_ready(frame)
        if self._feeder is None:
            self._feeder = self.create_task(self._feed(), name="replay-input")
        self.ready.set()

    async def stop(self, frame: EndFrame):
        await self._stop_feeder()
        await super().stop(frame)

    async def cancel(self, frame):
        await self._stop_feeder()
        await super().cancel(frame)

    async def cleanup(self):
        await super().cleanup()
        await self._stop_feeder()

    async def _stop_feeder(self) -> None:
        if self._feeder is not None:
            await self.cancel_task(self._feeder)
            self._feeder = None

    async def _feed(self) -> None:
        silence = bytes(2 * self._frame)
        origin = time.monotonic()
        n = 0
        while True:
            n += 1
            delay = origin + n * self.frame_s - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            audio = silence
            playback = self._playback
            if playback is not None and not playback.done.is_set():
                chunk = playback.pcm[playback.position : playback.position + self._frame]
                playback.position += self._frame
                audio = chunk.tobytes().ljust(len(silence), b"\0")
                playback.push_times.append(time.monotonic())
                if playback.position >= len(playback.pcm):
                    playback.done.set()
            await self.push_audio_frame(
                InputAudioRawFrame(audio=audio, sample_rate=self._rate, num_channels=1)
            )


class ReplayOutput(BaseOutputTransport):
    """A loudspeaker that records: plays chunks at real-time pace, notes when each starts."""

    def __init__(self) -> None:
        super().__init__(TransportParams(audio_out_enabled=True))
        self.chunks: list[tuple[float, bytes]] = []  # (monotonic play start, int16 mono PCM)
        self.play_end = 0.0
        self.ready = asyncio.Event()

    async def start(self, frame: StartFrame):
        await super().start(frame)
        await self.set_transport_ready(frame)
        self.ready.set()

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        if isinstance(frame, InterruptionFrame):
            self.play_end = min(self.play_end, time.monotonic())  # a barge-in empties the device
        await super().process_frame(frame, direction)

    async def write_audio_frame(self, frame: OutputAudioRawFrame) -> bool:
        now = time.monotonic()
        start = max(now, self.play_end)
        self.play_end = start + len(frame.audio) / (2 * frame.num_channels * frame.sample_rate)
        self.chunks.append((start, bytes(frame.audio)))
        if start > now:  # hold the writer back: a device buffers one chunk ahead, no more
            await asyncio.sleep(start - now)
        return True

    def first_audible(self, after: float) -> float | None:
        """When the first non-silent sample of a chunk starting at or after `after` plays."""
        for start, pcm in self.chunks:
            if start < after:
                continue
            offset = first_non_silent(np.frombuffer(pcm, dtype=np.int16))
            if offset is not None:
                return first_audio_clock(start, offset, self.sample_rate)
        return None

    def render(self, begin: float, end: float) -> np.ndarray:
        """What played in [begin, end), as int16 on that timeline (silence where nothing did)."""
        rate = self.sample_rate
        out = np.zeros(max(0, round((end - begin) * rate)), dtype=np.int16)
        for start, pcm in self.chunks:
            if not begin <= start < end:
                continue
            samples = np.frombuffer(pcm, dtype=np.int16)
            at = round((start - begin) * rate)
            n = min(len(samples), len(out) - at)
            if n > 0:
                out[at : at + n] = samples[:n]
        return out


# --- observation ---------------------------------------------------------------------------


class ReplayProbe(TimelineObserver):
    """Every mark of the run as an `Event` on the monotonic clock, with the turn's texts.

    A turn's narration and reply are marked once, at their first piece; the rest only adds to
    `narration` / `reply`. The output transport's chunks are timed by `ReplayOutput` itself.
    """

    def __init__(self, clock: BaseClock):
        super().__init__()
        self._clock = clock
        self._base_ns: int | None = None
        self.events: list[Event] = []
        self.changed = asyncio.Event()
        self.narration: dict[int, str] = {}
        self.reply: dict[int, str] = {}
        self.tts_bytes = 0  # TTS audio pushed so far: where in the output each phrase's audio starts

    async def on_push_frame(self, data: FramePushed) -> None:
        await super().on_push_frame(data)
        frame = data.frame
        if data.direction == FrameDirection.DOWNSTREAM and isinstance(frame, TTSAudioRawFrame):
            if isinstance(data.source, TTSService):
                self.tts_bytes += len(frame.audio)

    def mark(self, kind: str, t: float | None = None, turn: int | None = None, **detail: Any) -> None:
        self.events.append(Event(t=time.monotonic() if t is None else t, kind=kind, turn=turn, detail=detail))
        self.changed.set()

    def clock(self, data: FramePushed) -> float:
        if data.timestamp <= 0:
            return time.monotonic()
        if self._base_ns is None:
            self._base_ns = time.monotonic_ns() - self._clock.get_time()
        return (data.timestamp + self._base_ns) / 1e9

    async def on_mark(self, kind: str, t: float, frame: Frame) -> None:
        turn = getattr(frame, "turn_index", None)
        if isinstance(frame, NarrationTextFrame | ReplyTextFrame):
            texts = self.narration if isinstance(frame, NarrationTextFrame) else self.reply
            if frame.turn_index not in texts:
                self.mark(kind, t, frame.turn_index)
            texts[frame.turn_index] = texts.get(frame.turn_index, "") + frame.text
        elif kind in ("tts_audio", "tts_text"):
            self.mark(kind, t, turn, tts_bytes=self.tts_bytes, **_detail(frame))
        elif kind != "audio_out":
            self.mark(kind, t, turn, **_detail(frame))

    async def wait_until(self, ready: Callable[[], bool], timeout_s: float) -> bool:
        """Wait until `ready()` holds (re-checked on every event, and every 100 ms)."""
        deadline = time.monotonic() + timeout_s
        while not ready():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), timeout=min(remaining, 0.1))
            except TimeoutError:
                pass
        return True


def _detail(frame: Frame) -> dict[str, Any]:
    """What the timeline keeps of a frame besides its time."""
    if isinstance(frame, IntentControlFrame):
        return {"intent": frame.intent, "sub_intent": frame.sub_intent, "outcome": frame.outcome}
    if isinstance(frame, ToolDispatchFrame):
        return {"source": frame.source, "tools": [c.tool for c in frame.calls]}
    if isinstance(frame, ToolResultFrame):
        return {"ok": [o.ok for o in frame.outcomes]}
    if isinstance(frame, ErrorFrame):
        return {"error": frame.error}
    if isinstance(frame, PhraseFrame):
        return {"text": frame.text, "part": frame.part, "segment": frame.id}
    if isinstance(frame, TTSTextFrame):
        return {"text": frame.text, "segment": frame.segment_id}
    if isinstance(frame, TranscriptionFrame | AggregatedTextFrame):
        return {"text": frame.text}
    return {}


class TimedLLM:
    """The coach's LLM client, marking each call's request and first token on the probe.

    W1's first token is a milestone no frame carries (narration starts a few tags later);
    the other calls show how the turn's LLM calls queue on an embedded server. Each call is
    labelled with the `role` its caller passes.
    """

    def __init__(self, inner: LLMClient, probe: ReplayProbe):
        self._inner = inner
        self._probe = probe

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def stream(self, messages: list[dict[str, str]], **kwargs: Any) -> AsyncIterator[str]:
        label = kwargs.get("role") or "llm"
        self._probe.mark("llm_request", label=label)
        first = True
        async for delta in self._inner.stream(messages, **kwargs):
            if first:
                self._probe.mark(
                    Milestone.W1_FIRST_TOKEN if label == "w1" else "llm_first_token", label=label
                )
                first = False
            yield delta

    async def complete(self, messages: list[dict[str, str]], **kwargs: Any) -> str:
        return "".join([delta async for delta in self.stream(messages, **kwargs)])


# --- one turn, one session -----------------------------------------------------------------


@dataclass
class ReplayOptions:
    out_dir: Path
    turn_timeout_s: float = 60.0  # speech end → coach turn completed
    transcript_timeout_s: float = 10.0  # speech end → a transcript, or the turn is given up
    drain_timeout_s: float = 60.0  # turn completed → its audio played out
    warmup: bool = True  # session-open prewarm of the LLM roles' prefixes, as a live session does
    # Only listen: VAD, STT and the turn-stop strategy, no coach and no TTS. Measures the
    # turn-stop strategy alone (docs/BENCHMARKS.md, "Turn-stop strategy").
    listen_only: bool = False


@dataclass
class TurnReport:
    session_id: str
    turn: int  # index in the fixture
    coach_turn: int | None
    expected: str
    transcript: str
    wer: float | None
    expect: str
    c1: str
    completed: bool
    s2fa_ms: float | None
    pipecat_ms: float | None  # UserBotLatencyObserver: VAD stop − stop_secs → bot started speaking
    milestones_ms: dict[str, float]  # since speech end
    stages_ms: list[tuple[str, float]]
    pipecat_breakdown: list[str] = field(default_factory=list)
    narration: str = ""
    reply: str = ""
    first_reply_audio_ms: float | None = None  # speech end → the reply's first audible sample
    user_turns: int = 0  # transcripts released for the utterance (more than 1: split at a pause)
    problems: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)

    @classmethod
    def failed(cls, fixture: FixtureSession, index: int, problem: str) -> TurnReport:
        turn = fixture.turns[index]
        return cls(
            session_id=fixture.session_id, turn=index, coach_turn=None, expected=turn.transcript,
            transcript="", wer=None, expect=f"{turn.expect_intent}/{turn.expect_sub_intent}", c1="",
            completed=False, s2fa_ms=None, pipecat_ms=None, milestones_ms={}, stages_ms=[],
            problems=[problem],
        )  # fmt: skip

    @property
    def pipecat_diff_ms(self) -> float | None:
        if self.s2fa_ms is None or self.pipecat_ms is None:
            return None
        return round(self.pipecat_ms - self.s2fa_ms, 1)


def _apply_state(session: Session, turn: FixtureTurn) -> None:
    if turn.state is not None:
        session.update_state(snapshot=turn.state)
    elif turn.state_patch is not None:
        session.update_state(patch=turn.state_patch)


class SessionReplay:
    """One fixture session through one voice pipeline."""

    def __init__(
        self,
        fixture: FixtureSession,
        engines: Engines,
        config: CoachConfig,
        speech: SpeechConfig,
        options: ReplayOptions,
    ):
        self.fixture = fixture
        self.engines = engines
        self.config = config
        self.speech = speech
        self.options = options
        pack = load_pack(fixture.pack_id)
        self.session = Session.open(fixture.session_id, state=load_state(fixture.initial_state), pack=pack)
        self.clock = SystemClock()
        self.probe = self.make_probe()
        self.input = ReplayInput()
        self.output = ReplayOutput()
        pipeline = self.build_pipeline()
        latency = UserBotLatencyObserver()

        @latency.event_handler("on_latency_measured")
        async def _measured(_observer: Any, seconds: float) -> None:
            self.probe.mark("pipecat_latency", latency_ms=round(seconds * 1000.0, 1))

        @latency.event_handler("on_latency_breakdown")
        async def _breakdown(_observer: Any, breakdown: Any) -> None:
            self.probe.mark("pipecat_breakdown", lines=breakdown.turn_contribution_lines())

        self.worker = PipelineWorker(
            pipeline,
            params=pipeline_params(speech),
            observers=[self.probe, latency],
            clock=self.clock,
            idle_timeout_secs=None,
            enable_rtvi=False,
        )
        self.runner = WorkerRunner(handle_sigint=False)
        self._task: asyncio.Task | None = None

    # Hooks for other assemblies between the same transports (pipelines/speech/cascade.py).

    @property
    def speaking_config(self) -> str:
        """The configuration, as `latency.speaking_role` names it (which call is heard first)."""
        return self.config.mode

    def make_probe(self) -> ReplayProbe:
        return ReplayProbe(self.clock)

    def build_pipeline(self) -> Pipeline:
        """Input transport → the voice coach (or only its listening half) → output transport."""
        pack = self.session.pack
        if self.options.listen_only:
            return Pipeline([self.input, *listening_processors(self.speech, pack), self.output])

        def timed(llm: LLMClient) -> LLMClient:
            return cast(LLMClient, TimedLLM(llm, self.probe))

        lead = self.engines.lead
        engines = Engines(llm=timed(self.engines.llm), lead=timed(lead) if lead is not None else None)
        return voice_pipeline(self.input, self.output, self.session, engines, self.config, self.speech)

    async def prewarm(self) -> None:
        await prewarm(self.engines, self.session.pack, [self.config])

    async def start(self) -> None:
        await narration_audio_ready()  # once per process: the pack's phrases synthesised ahead
        if self.options.warmup and not self.options.listen_only:
            await self.prewarm()
        await self.runner.add_workers(self.worker)
        self._task = asyncio.create_task(self.runner.run())
        ready = asyncio.gather(self.input.ready.wait(), self.output.ready.wait())
        await asyncio.wait_for(ready, timeout=60)
        await asyncio.sleep(0.5)  # let the VAD hear some silence first

    async def stop(self) -> None:
        await self.worker.queue_frame(EndFrame())
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, timeout=15)
            except TimeoutError:
                await self.runner.cancel()

    async def run_turn(self, index: int) -> TurnReport:
        turn = self.fixture.turns[index]
        problems: list[str] = []
        try:
            _apply_state(self.session, turn)
        except StateError as err:
            problems.append(f"state not applied, previous kept: {err}")
        audio = load_audio(self.fixture.audio_path(turn))
        first_event = len(self.probe.events)
        first_turn = self.session.next_turn
        begin = time.monotonic()
        playback = self.input.play(audio)
        await playback.done.wait()
        speech_end_s = turn.speech_end_s if turn.speech_end_s is not None else len(audio) / INPUT_RATE
        speech_end = speech_end_clock(playback.push_times, self.input.frame_s, speech_end_s)

        def window() -> list[Event]:
            return self.probe.events[first_event:]

        def handed_over() -> bool:  # the player's last turn is over and its transcript went to the coach
            kinds = [
                e.kind for e in window() if e.kind in ("user_started", "user_stopped", Milestone.TURN_STOP)
            ]
            return bool(kinds) and kinds[-1] == Milestone.TURN_STOP

        def released() -> int:
            return sum(1 for e in window() if e.kind == Milestone.TURN_STOP)

        def completed() -> bool:
            last = self.session.next_turn - 1
            return (
                handed_over()
                and self.session.next_turn - first_turn == released()
                and any(e.kind == Milestone.TURN_COMPLETED and e.turn == last for e in window())
            )

        budget = max(0.0, speech_end + self.options.transcript_timeout_s - time.monotonic())
        if not await self.probe.wait_until(lambda: released() > 0, budget):
            problems.append(f"no transcript within {self.options.transcript_timeout_s:.0f}s of speech end")
        elif self.options.listen_only:
            await self.probe.wait_until(handed_over, self.options.turn_timeout_s)
        elif not await self.probe.wait_until(completed, self.options.turn_timeout_s):
            problems.append(f"coach turn not completed within {self.options.turn_timeout_s:.0f}s")
        else:
            await self._drain(first_event)
        end = max(time.monotonic(), self.output.play_end)
        return self._report(index, turn, window(), playback, begin, end, speech_end, problems)

    async def _drain(self, first_event: int) -> None:
        """Wait until every phrase sent to TTS has been synthesised and played."""

        def drained() -> bool:
            # A turn whose reply is ready at once (the grounded realization) completes before TTS
            # has said a word: wait for its phrases to reach TTS and be played, not just counted.
            events = self.probe.events[first_event:]
            phrases = sum(1 for e in events if e.kind == "phrase")
            spoken = sum(1 for e in events if e.kind == "tts_text")
            return 0 < phrases <= spoken and time.monotonic() >= self.output.play_end

        await self.probe.wait_until(drained, self.options.drain_timeout_s)

    def audio_out(self, events: list[Event], after: float) -> Event | None:
        """`audio_out`: when the output transport started playing the first chunk after the TTS's
        first audio. It splits "to first audible" into the transport's part and the TTS's leading
        silence (the first audible sample is inside that audio)."""
        tts = next((e.t for e in events if e.kind == "tts_audio" and e.t >= after), None)
        start = next((s for s, _pcm in self.output.chunks if tts is not None and s >= tts), None)
        return Event(t=start, kind="audio_out") if start is not None else None

    def first_reply_audio(
        self, events: list[Event], released: float, first_audio: float | None, audio_out: Event | None
    ) -> float | None:
        """When the reply's first audible sample played: the first audio when nothing was spoken
        before the reply, else the first audible sample past the narration's audio."""
        lead = reply_lead_bytes(events, released)
        if lead is None or first_audio is None:
            return None
        if lead == 0:
            return first_audio
        if audio_out is None:
            return None
        return first_audible_after_bytes(self.output.chunks, audio_out.t, lead, self.output.sample_rate)

    def _report(
        self,
        index: int,
        turn: FixtureTurn,
        events: list[Event],
        playback: Playback,
        begin: float,
        end: float,
        speech_end: float,
        problems: list[str],
    ) -> TurnReport:
        handed = [e.t for e in events if e.kind == Milestone.TURN_STOP]  # the coach turn starts at the last
        released_at = handed[-1] if handed else speech_end
        first_audio = self.output.first_audible(released_at)
        audio_out = self.audio_out(events, released_at)
        if audio_out is not None:
            events = [*events, audio_out]
        first_reply_audio = self.first_reply_audio(events, released_at, first_audio, audio_out)
        m = milestones_from_events(
            events, speech_end, first_audio, config=self.speaking_config, first_reply_audio=first_reply_audio
        )
        coach = coach_turn(events)
        transcript = " ".join(e.detail.get("text", "") for e in events if e.kind == Milestone.TURN_STOP)
        c1 = next((e for e in events if e.kind == Milestone.C1 and e.turn == coach), None)
        pipecat = [e.detail["latency_ms"] for e in events if e.kind == "pipecat_latency"]
        breakdown = [e.detail["lines"] for e in events if e.kind == "pipecat_breakdown"]
        released = sum(1 for e in events if e.kind == Milestone.TURN_STOP)
        if released > 1:
            problems.append(f"the utterance made {released} user turns (split at a pause)")
        if first_audio is None and not self.options.listen_only:
            problems.append("no audible output")
        report = TurnReport(
            session_id=self.fixture.session_id,
            turn=index,
            coach_turn=coach,
            expected=turn.transcript,
            transcript=transcript,
            wer=round(wer(turn.transcript, transcript), 3) if turn.transcript else None,
            expect=f"{turn.expect_intent}/{turn.expect_sub_intent}",
            c1=f"{c1.detail['intent']}/{c1.detail['sub_intent']}" if c1 else "",
            # Listening only, a turn is complete once its transcript is handed over.
            completed=m[Milestone.TURN_STOP if self.options.listen_only else Milestone.TURN_COMPLETED]
            is not None,
            s2fa_ms=s2fa_ms(m),
            first_reply_audio_ms=first_reply_audio_ms(m),
            pipecat_ms=pipecat[-1] if pipecat else None,
            milestones_ms=since(m, speech_end),
            stages_ms=critical_path(m),
            pipecat_breakdown=breakdown[-1] if breakdown else [],
            narration=self.probe.narration.get(coach, "") if coach is not None else "",
            reply=self.probe.reply.get(coach, "") if coach is not None else "",
            user_turns=released,
            problems=problems,
        )
        self._write(report, events, playback, begin, end, speech_end, first_audio)
        return report

    def _write(
        self,
        report: TurnReport,
        events: list[Event],
        playback: Playback,
        begin: float,
        end: float,
        speech_end: float,
        first_audio: float | None,
    ) -> None:
        folder = self.options.out_dir / report.session_id / f"turn{report.turn + 1}"
        folder.mkdir(parents=True, exist_ok=True)
        rate = self.output.sample_rate
        coach = self.output.render(begin, end)
        sf.write(folder / "out.wav", coach, rate, subtype="PCM_16")
        # The player on the same timeline: the first frame's audio started one frame before its delivery.
        import soxr

        player = soxr.resample(playback.pcm.astype(np.float32) / 32768.0, INPUT_RATE, rate)
        at = max(0, round((playback.push_times[0] - self.input.frame_s - begin) * rate))
        dialog = np.zeros((max(len(coach), at + len(player)), 2), dtype=np.float32)
        dialog[at : at + len(player), 0] = player
        dialog[: len(coach), 1] = coach.astype(np.float32) / 32768.0
        sf.write(folder / "dialog.wav", dialog, rate, subtype="PCM_16")

        marks = [Event(speech_end, Milestone.SPEECH_END)]
        if first_audio is not None:
            marks.append(Event(first_audio, Milestone.FIRST_AUDIO))
        if report.first_reply_audio_ms is not None:
            marks.append(
                Event(speech_end + report.first_reply_audio_ms / 1000.0, Milestone.FIRST_REPLY_AUDIO)
            )
        with (folder / "timeline.jsonl").open("w", encoding="utf-8") as f:
            for e in sorted([*events, *marks], key=lambda e: e.t):
                row = {"ms": round((e.t - speech_end) * 1000.0, 1), "event": e.kind}
                if e.turn is not None:
                    row["turn"] = e.turn
                f.write(json.dumps({**row, **e.detail}) + "\n")
        report.files = {name: str(folder / name) for name in ("out.wav", "dialog.wav", "timeline.jsonl")}
        (folder / "turn.json").write_text(json.dumps(asdict(report), indent=2), encoding="utf-8")


async def replay_fixtures(
    sessions: list[FixtureSession],
    engines: Engines,
    config: CoachConfig,
    speech: SpeechConfig,
    options: ReplayOptions,
    on_turn: Callable[[TurnReport], None] | None = None,
    replay_class: type[SessionReplay] | None = None,
) -> list[TurnReport]:
    reports: list[TurnReport] = []
    for fixture in sessions:
        replay = (replay_class or SessionReplay)(fixture, engines, config, speech, options)
        await replay.start()
        try:
            for index in range(len(fixture.turns)):
                try:
                    report = await replay.run_turn(index)
                except FixtureError as err:  # e.g. its WAV went missing: report it, go on
                    report = TurnReport.failed(fixture, index, str(err))
                reports.append(report)
                if on_turn is not None:
                    on_turn(report)
        finally:
            await replay.stop()
    return reports


# --- summary -------------------------------------------------------------------------------


def summary(reports: list[TurnReport], errors: list[str], meta: dict[str, Any]) -> dict[str, Any]:
    """Aggregates over the turns: S2FA and Pipecat's figure (p50/p90/p99), milestone and stage p50s."""
    s2fa = summarize(r.s2fa_ms for r in reports if r.s2fa_ms is not None)
    reply_audio = summarize(r.first_reply_audio_ms for r in reports if r.first_reply_audio_ms is not None)
    pipecat = summarize(r.pipecat_ms for r in reports if r.pipecat_ms is not None)
    diff = summarize(d for r in reports if (d := r.pipecat_diff_ms) is not None)
    milestones: dict[str, list[float]] = {}
    stages: dict[str, list[float]] = {}
    for r in reports:
        for name, ms in r.milestones_ms.items():
            milestones.setdefault(name, []).append(ms)
        for label, ms in r.stages_ms:
            stages.setdefault(label, []).append(ms)
    wers = [r.wer for r in reports if r.wer is not None]
    return {
        "meta": meta,
        "turns": len(reports),
        "completed": sum(r.completed for r in reports),
        "intent_match": sum(r.c1 == r.expect for r in reports),
        "mean_wer": round(sum(wers) / len(wers), 3) if wers else None,
        "s2fa_ms": s2fa.as_dict() if s2fa else None,
        "first_reply_audio_ms": reply_audio.as_dict() if reply_audio else None,
        "pipecat_ms": pipecat.as_dict() if pipecat else None,
        "pipecat_minus_s2fa_ms": diff.as_dict() if diff else None,
        "milestones_p50_ms": {k: round(percentile(v, 50), 1) for k, v in milestones.items()},
        "stages_p50_ms": {k: round(percentile(v, 50), 1) for k, v in stages.items()},
        "errors": errors,
        "reports": [asdict(r) for r in reports],
    }


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def summary_table(reports: list[TurnReport]) -> Any:
    from rich.table import Table

    table = Table(title="replay: speech-to-first-audio per turn (ms since the fixture's speech end)")
    for name in ("turn", "WER", "c1 (expected)", "VAD", "STT", "turn stop", "W1 tok", "narr", "phrase",
                 "TTS", "S2FA", "reply audio", "pipecat", "Δ", "done"):  # fmt: skip
        table.add_column(name, justify="left" if name in ("turn", "c1 (expected)") else "right")
    for r in reports:
        m = r.milestones_ms
        c1 = r.c1 if r.c1 == r.expect else f"[red]{r.c1 or '-'}[/] ({r.expect})"
        table.add_row(
            f"{r.session_id}/{r.turn + 1}",
            "-" if r.wer is None else f"{r.wer:.2f}",
            c1,
            _ms(m.get("vad_stop")),
            _ms(m.get("stt_final")),
            _ms(m.get("turn_stop")),
            _ms(m.get("w1_first_token")),
            _ms(m.get("first_narration_token")),
            _ms(m.get("first_phrase")),
            _ms(m.get("tts_first_byte")),
            f"[bold]{_ms(r.s2fa_ms)}[/]",
            _ms(r.first_reply_audio_ms),
            _ms(r.pipecat_ms),
            _ms(r.pipecat_diff_ms),
            "yes" if r.completed and not r.problems else "[yellow]" + ("; ".join(r.problems) or "no") + "[/]",
        )
    return table


# --- command -------------------------------------------------------------------------------


async def run(args: argparse.Namespace) -> int:
    """`voicecoach replay`: 0 when every turn completed, 1 otherwise, 130 when interrupted."""
    try:
        return await _run(args)
    except asyncio.CancelledError:  # Ctrl-C or SIGTERM: what finished is on disk, engines stopped
        return 130


async def _run(args: argparse.Namespace) -> int:
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from voicecoach.core.console import report_console

    console = report_console()
    # SIGTERM cancels the run like Ctrl-C does, so the embedded LLM server is stopped, not orphaned.
    main_task = asyncio.current_task()
    if main_task is not None:
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main_task.cancel)
    config, speech = coach_config(args), speech_config(args)
    out = Path(args.out) if args.out else run_dir("replay")
    out.mkdir(parents=True, exist_ok=True)
    logger.remove()  # Pipecat logs every frame at DEBUG: to the run's log file, not the terminal
    logger.add(out / "replay.log", level="DEBUG")
    logger.add(sys.stderr, level="ERROR")

    # Without --pack each session runs on the pack its pack_id names (a folder holds one pack's).
    sessions, errors = discover(args.path, args.pack or os.environ.get("VOICECOACH_PACK"))
    if args.sessions:
        wanted = set(args.sessions.split(","))
        sessions = [s for s in sessions if s.session_id in wanted]
    if args.max_turns:
        for s in sessions:
            s.turns = s.turns[: args.max_turns]
    for error in errors:
        console.print(f"[yellow]skipped:[/] {error}")
    if not sessions:
        console.print("[red]no session to replay[/]")
        return 1
    try:  # each pack's prior, read from its folder, before any engine starts
        for ref in sorted({s.pack_id for s in sessions}):
            load_coach_pack(config.model_copy(update={"pack_id": ref}))
    except PackError as err:
        console.print(f"[red]{escape(str(err))}[/]")
        return 1

    options = ReplayOptions(
        out_dir=out, turn_timeout_s=args.turn_timeout, warmup=not args.no_warmup, listen_only=args.listen_only
    )
    if options.listen_only:
        engines = Engines(llm=NoLLM(config.llm))  # VAD, STT and the turn stop only
    else:
        try:
            with console.status(f"{describe_llm(config)} …"):
                engines = await asyncio.to_thread(Engines.start, config)
        except LLMError as err:  # the LLM extra not installed, an endpoint that does not answer
            console.print(f"[red]{escape(str(err))}[/]")
            return 1
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    try:
        with Progress(*columns, console=console) as progress:
            task = progress.add_task("replaying", total=sum(len(s.turns) for s in sessions))

            def on_turn(r: TurnReport) -> None:
                progress.update(
                    task, advance=1, description=f"{r.session_id}/{r.turn + 1}: S2FA {_ms(r.s2fa_ms)} ms"
                )

            reports = await replay_fixtures(sessions, engines, config, speech, options, on_turn)
    finally:
        if not options.listen_only:
            await engines.close()

    meta = {
        "path": str(args.path),
        "packs": sorted({s.pack_id for s in sessions}),
        "mode": "listen_only" if options.listen_only else config.mode,
        "speech": speech.model_dump(),
        "warmup": options.warmup,
        "llm_threads": args.llm_threads,
        "split_lead": config.llm.embedded_split_lead,
        "load_average": [round(x, 2) for x in os.getloadavg()],  # the run shares the CPU with this
    }
    result = summary(reports, errors, meta)
    (out / "summary.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    console.print(summary_table(reports))
    for key in ("s2fa_ms", "first_reply_audio_ms", "pipecat_ms", "pipecat_minus_s2fa_ms"):
        if result[key]:
            s = result[key]
            spread = f"p50={s['p50']} p90={s['p90']} p99={s['p99']} (min {s['min']}, max {s['max']})"
            console.print(f"{key}: n={s['n']} {spread}")
    console.print(f"stages p50 (ms): {result['stages_p50_ms']}")
    console.print(f"written to {out}")
    return 0 if reports and all(r.completed for r in reports) and not errors else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        formatter_class=DefaultsHelpFormatter, prog="voicecoach replay", description=__doc__.splitlines()[0]
    )
    add_replay_arguments(parser)
    try:
        return asyncio.run(run(parser.parse_args(argv)))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
