"""Text-mode coach: typed input in, streamed narration / decisions / reply out.

The same actor pipeline as the voice coach, minus audio: a transcript goes in where STT
would put it, and a `TurnCollector` at the end gathers what TTS would have spoken plus
every control frame, with its time since the end of input. `TextCoach.ask` runs one turn
and returns its `TurnResult`; `voicecoach chat` and the tests both drive it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pipecat.frames.frames import EndFrame, Frame, InterruptionFrame, TranscriptionFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.workers.runner import WorkerRunner

from voicecoach.actors.frames import ToolDispatchFrame, TurnFrames
from voicecoach.coach.engines import Engines, prewarm
from voicecoach.coach.session import CoachConfig, Session
from voicecoach.coach.store import TurnRecord
from voicecoach.core.latency import Milestone
from voicecoach.pipelines.coach import coach_processors


@dataclass
class TurnResult(TurnFrames):
    """One turn as the player and an engineer see it: its frames (c1, results, c2, c3, ...),
    narration and reply, every tool dispatch, and its timeline."""

    dispatches: list[ToolDispatchFrame] = field(default_factory=list)
    # (ms since end of input, milestone), in arrival order at the end of the pipeline
    timeline: list[tuple[float, Milestone]] = field(default_factory=list)

    @property
    def completed(self) -> bool:
        return self.completion is not None

    @property
    def record(self) -> TurnRecord | None:
        done = self.completion
        return done.record if done is not None else None


class TurnCollector(FrameProcessor):
    """Last in the pipeline: where TTS would be. Collects the current turn; forwards all."""

    def __init__(self, on_frame: Callable[[Frame, float], None] | None = None):
        super().__init__()
        self.current: TurnResult | None = None
        self.started = 0.0
        self.done = asyncio.Event()
        self._on_frame = on_frame

    def begin(self, turn_index: int) -> TurnResult:
        self.current = TurnResult(turn_index)
        self.started = time.monotonic()
        self.done.clear()
        return self.current

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        turn = self.current
        index = getattr(frame, "turn_index", None)
        if turn is not None and index == turn.turn_index:
            ms = round((time.monotonic() - self.started) * 1000.0, 1)
            self._collect(turn, frame, ms)
            if self._on_frame is not None:
                self._on_frame(frame, ms)
        await self.push_frame(frame, direction)

    def _collect(self, turn: TurnResult, frame: Frame, ms: float) -> None:
        if isinstance(frame, ToolDispatchFrame):
            turn.dispatches.append(frame)
        milestone = turn.add(frame)
        if milestone is None:
            return
        turn.timeline.append((ms, milestone))
        if milestone is Milestone.TURN_COMPLETED:
            self.done.set()


class TextCoach:
    """A running text-mode coach over one session."""

    def __init__(
        self,
        session: Session,
        config: CoachConfig,
        engines: Engines,
        on_frame: Callable[[Frame, float], None] | None = None,
    ):
        self.session = session
        self.config = config
        self.engines = engines
        self.collector = TurnCollector(on_frame)
        pipeline = Pipeline([*coach_processors(session, engines, config), self.collector])
        # No idle timeout: a player may think for minutes between questions.
        self._worker = PipelineWorker(pipeline, idle_timeout_secs=None, enable_rtvi=False)
        self._runner = WorkerRunner(handle_sigint=False)
        self._run_task: asyncio.Task | None = None

    async def start(self, warm: bool = True) -> None:
        if warm:
            await prewarm(self.engines, self.session.pack, [self.config])
        await self._runner.add_workers(self._worker)
        self._run_task = asyncio.create_task(self._runner.run())
        await asyncio.sleep(0)

    async def ask(self, text: str, timeout_s: float = 120.0) -> TurnResult:
        """Run one turn to completion (or until `timeout_s`; then `completed` is False)."""
        turn = self.collector.begin(self.session.next_turn)
        await self._worker.queue_frame(
            TranscriptionFrame(text=text, user_id="player", timestamp=datetime.now(UTC).isoformat())
        )
        try:
            await asyncio.wait_for(self.collector.done.wait(), timeout=timeout_s)
        except TimeoutError:
            pass
        return turn

    async def interrupt(self) -> None:
        """Barge-in as the pipeline sees an interruption: the turn in flight is cancelled. No player
        input comes with it, so the recorder stores the cut as a playback stop, not 'interrupted'."""
        await self._worker.queue_frame(InterruptionFrame())

    async def push_state(
        self, snapshot: dict[str, Any] | None = None, patch: dict[str, Any] | None = None
    ) -> None:
        """Apply a game push as the server does: off the loop, and a bad one raises StateError
        naming the field (the previous state is kept), so the caller can say why."""
        await asyncio.to_thread(self.session.update_state, snapshot, patch)

    async def stop(self) -> None:
        await self._worker.queue_frame(EndFrame())
        if self._run_task is not None:
            try:
                await asyncio.wait_for(self._run_task, timeout=10)
            except TimeoutError:
                await self._runner.cancel()
