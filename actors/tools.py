"""ToolActor: runs a turn's dispatched tools concurrently, each with its own timeout.

Tools run in a task per dispatch, so narration frames pass this actor untouched while the
(remote, slow) game server answers. A tool that raises or times out becomes a failed
`ToolOutcome` with its reason: the reply says the data is missing rather than guessing.
Every tool here is read-only, which is what makes firing them before the turn commits safe.
"""

from __future__ import annotations

import asyncio
import time

from loguru import logger
from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection

from voicecoach.actors.frames import ToolDispatchFrame, ToolResultFrame
from voicecoach.actors.turn_task import TurnTaskActor
from voicecoach.session import Session
from voicecoach.state import LiveState
from voicecoach.talker import ToolOutcome
from voicecoach.tools import ToolError, ToolRunner
from voicecoach.w1 import ToolCall


async def run_call(runner: ToolRunner, state: LiveState, call: ToolCall) -> ToolOutcome:
    """One tool call as an outcome; never raises (cancellation aside)."""
    started = time.monotonic()
    try:
        result = await runner.call(state, call.tool, call.args)
        ok, error = True, None
    except TimeoutError:
        result, ok, error = None, False, f"timed out after {runner.timeout_s}s"
    except ToolError as err:
        result, ok, error = None, False, str(err)
    except Exception as err:  # a buggy tool must not take the turn down with it
        result, ok, error = None, False, f"{type(err).__name__}: {err}"
    ms = round((time.monotonic() - started) * 1000.0, 1)
    if not ok:
        logger.warning(f"tool {call.tool}({call.args}) failed: {error}")
    return ToolOutcome(tool=call.tool, args=call.args, ok=ok, result=result, error=error, ms=ms)


class ToolActor(TurnTaskActor):
    task_name = "tools"

    def __init__(self, session: Session, runner: ToolRunner):
        super().__init__()
        self._session = session
        self._runner = runner

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)  # a barge-in cancels the running tools here
        if isinstance(frame, ToolDispatchFrame):
            # An earlier dispatch's tools run on: read-only, and a newer turn's Talker drops them.
            await self.start_turn(frame.turn_index, self._run(frame), replace=False)
        await self.push_frame(frame, direction)

    async def _run(self, dispatch: ToolDispatchFrame) -> None:
        # The dispatch may precede c1 (tools go first), so read the turn's snapshot directly.
        turn = self._session.turn(dispatch.turn_index)
        state = turn.snapshot if turn is not None else self._session.state
        outcomes = await asyncio.gather(*(run_call(self._runner, state, c) for c in dispatch.calls))
        t_ms = turn.ms() if turn is not None else 0.0
        await self.push_frame(
            ToolResultFrame(turn_index=dispatch.turn_index, t_ms=t_ms, outcomes=list(outcomes))
        )
