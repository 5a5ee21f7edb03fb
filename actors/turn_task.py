"""TurnTaskActor: the base of the actors that work on a turn in a task of their own.

An actor that called the LLM (or a slow game server) inside `process_frame` would hold every
frame behind it, narration included. So the turn's work runs in a task, and that task must end
with the turn: a barge-in (InterruptionFrame) or a newer turn makes it worthless, and a pipeline
stopped mid-turn must not leave an LLM stream running. This base is the one place that starts,
cancels and releases those tasks; the actors only say what a turn's work is.

In the spirit of LiveKit Agents' `SpeechHandle` (one object per utterance owns its tasks and
tells how it ended), each started turn is a `TurnHandle`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

from pipecat.frames.frames import Frame, InterruptionFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor


@dataclass
class TurnHandle:
    """One turn's work in one actor: its task, and whether it was cut short.

    `interrupted` is set before the task is cancelled, so whoever holds the handle can tell a
    turn that was stopped (barge-in, newer turn, shutdown) from one that finished.
    """

    turn_index: int
    task: asyncio.Task[Any]
    interrupted: bool = False

    def done(self) -> bool:
        return self.task.done()


class TurnTaskActor(FrameProcessor):
    """Owns the tasks of the turns this actor works on.

    `start_turn` runs a turn's work in a task (by default cancelling the previous turn's first:
    one turn at a time); an InterruptionFrame cancels every running turn before the subclass
    sees the frame; `cleanup` cancels them too, since tasks from `create_task` are ours to
    release. A subclass calls `super().process_frame` first, as for any FrameProcessor.
    """

    # The tasks' names: "<task_name>-turn-<index>" (shown by Pipecat's task manager and in logs).
    task_name = "turn"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._handles: list[TurnHandle] = []

    @property
    def running(self) -> list[TurnHandle]:
        """The turns whose work has not ended yet, oldest first."""
        return [h for h in self._handles if not h.done()]

    async def start_turn(
        self, turn_index: int, work: Coroutine[Any, Any, None], replace: bool = True
    ) -> TurnHandle:
        """Run `work` for `turn_index` in its own task; `replace`: cancel the running turns first."""
        if replace:
            await self.cancel_turns()
        task = self.create_task(work, name=f"{self.task_name}-turn-{turn_index}")
        handle = TurnHandle(turn_index, task)
        self._handles = [*self.running, handle]
        return handle

    async def cancel_turns(self) -> None:
        """Stop every running turn (a barge-in, a newer turn, the pipeline stopping)."""
        handles, self._handles = self._handles, []
        for handle in handles:
            if not handle.done():
                handle.interrupted = True
                await self.cancel_task(handle.task)

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, InterruptionFrame):
            await self.cancel_turns()

    async def cleanup(self) -> None:
        await super().cleanup()
        await self.cancel_turns()
