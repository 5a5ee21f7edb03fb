"""ToolActor: runs a turn's dispatched tools concurrently, each with its own timeout.

Tools run in a task per dispatch, so narration frames pass this actor untouched while the
(remote, slow) game server answers. A tool that raises or times out becomes a failed
`ToolOutcome` with its reason: the reply says the data is missing rather than guessing.

Read-only tools fire the moment they are dispatched, which is what makes W1's early dispatch
(before the turn commits) safe. A side-effect tool (tools.json `side_effect`: "equip this
loadout") goes through the commit gate instead: it waits until its turn is *committed as
completed* — the SessionRecorder stored the turn after its reply was delivered to the end
(text mode: the reply text went out; speech: its last audio was sent), and says so upstream
with a TurnCommittedFrame — and is dropped, never sent, if a barge-in comes first or the turn
ends not completed. Meanwhile the turn's ToolResultFrame reports it as scheduled, so the reply
can say what will happen; its real result follows in a SideEffectResultFrame.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, replace

from loguru import logger
from pipecat.frames.frames import Frame, InterruptionFrame, StartFrame
from pipecat.processors.frame_processor import FrameDirection

from voicecoach.actors.frames import (
    SecondQuestionFrame,
    SideEffectResultFrame,
    ToolDispatchFrame,
    ToolResultFrame,
    TurnCommittedFrame,
)
from voicecoach.actors.turn_task import TurnTaskActor
from voicecoach.coach.session import Session
from voicecoach.core.state import LiveState
from voicecoach.perception.plan import ToolCall
from voicecoach.talker.conditioning import ToolOutcome
from voicecoach.tools.registry import ToolError, ToolRunner

# What the turn's ToolResultFrame says of a side-effect call that waits for the commit gate.
SCHEDULED = {
    "status": "scheduled",
    "runs": "once the player has heard this reply to the end",
    "cancelled_by": "the player speaking over the reply",
}


async def run_call(
    runner: ToolRunner, state: LiveState, call: ToolCall, *, committed: bool = False
) -> ToolOutcome:
    """One tool call as an outcome; never raises (cancellation aside). `committed`: the turn is
    committed, so a side-effect tool may run (without it the runner refuses one)."""
    started = time.monotonic()
    try:
        result = await runner.call(state, call.tool, call.args, committed=committed)
        ok, error = True, None
    except TimeoutError:
        result, ok, error = None, False, f"timed out after {runner.timeout_for(call.tool)}s"
    except ToolError as err:
        result, ok, error = None, False, str(err)
    except Exception as err:  # a buggy tool must not take the turn down with it
        result, ok, error = None, False, f"{type(err).__name__}: {err}"
    ms = round((time.monotonic() - started) * 1000.0, 1)
    if not ok:
        logger.warning(f"tool {call.tool}({call.args}) failed: {error}")
    return ToolOutcome(tool=call.tool, args=call.args, ok=ok, result=result, error=error, ms=ms)


@dataclass
class _Gated:
    """A turn's side-effect calls, waiting for the turn to be committed as completed."""

    turn_index: int
    calls: list[ToolCall]


class ToolActor(TurnTaskActor):
    task_name = "tools"

    def __init__(self, session: Session, runner: ToolRunner):
        super().__init__()
        self._session = session
        self._runner = runner
        self._gated: dict[int, _Gated] = {}  # turn -> its side-effect calls behind the commit gate
        self._firing: set[asyncio.Task] = set()  # gated calls released: a barge-in no longer stops them

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)  # a barge-in cancels the running tools here
        if isinstance(frame, StartFrame):
            self._runner.prewarm()  # the game's MCP server, if the pack has one: connect before turn 1
        elif isinstance(frame, InterruptionFrame):
            self._drop_gated("cancelled by a barge-in")
        elif isinstance(frame, TurnCommittedFrame):
            self._release(frame)
        elif isinstance(frame, SecondQuestionFrame) and frame.outcomes is None:
            # Sent on once answered (read-only calls only: a second question never changes the game).
            await self.start_turn(frame.turn_index, self._run_second(frame), replace=False)
            return
        elif isinstance(frame, ToolDispatchFrame):
            read_only = [c for c in frame.calls if not self._runner.side_effect(c.tool)]
            gated = [c for c in frame.calls if self._runner.side_effect(c.tool)]
            if gated:  # held here, not in the task: a barge-in that comes first finds them
                self._gated[frame.turn_index] = _Gated(frame.turn_index, gated)
            # An earlier dispatch's tools run on: read-only, and a newer turn's Talker drops them.
            await self.start_turn(frame.turn_index, self._run(frame, read_only, gated), replace=False)
        await self.push_frame(frame, direction)

    async def _run(self, dispatch: ToolDispatchFrame, calls: list[ToolCall], gated: list[ToolCall]) -> None:
        # The dispatch may precede c1 (tools go first), so read the turn's snapshot directly.
        turn = self._session.turn(dispatch.turn_index)
        state = turn.snapshot if turn is not None else self._session.state
        ran = iter(await asyncio.gather(*(run_call(self._runner, state, c) for c in calls)))
        outcomes = [  # in dispatch order; the gated calls as scheduled
            ToolOutcome(tool=c.tool, args=c.args, ok=True, result=dict(SCHEDULED)) if c in gated
            else next(ran)
            for c in dispatch.calls
        ]  # fmt: skip
        t_ms = turn.ms() if turn is not None else 0.0
        await self.push_frame(ToolResultFrame(turn_index=dispatch.turn_index, t_ms=t_ms, outcomes=outcomes))

    async def _run_second(self, frame: SecondQuestionFrame) -> None:
        calls = [c for c in frame.calls if not self._runner.side_effect(c.tool)]
        outcomes = list(await asyncio.gather(*(run_call(self._runner, frame.snapshot, c) for c in calls)))
        turn = self._session.turn(frame.turn_index)
        answered = replace(frame, outcomes=outcomes, t_ms=turn.ms() if turn is not None else frame.t_ms)
        await self.push_frame(answered)

    def _drop_gated(self, why: str) -> None:
        for gated in self._gated.values():
            names = ", ".join(c.tool for c in gated.calls)
            logger.info(f"turn {gated.turn_index}: side-effect call(s) {names} not sent: {why}")
        self._gated = {}

    def _release(self, commit: TurnCommittedFrame) -> None:
        gated = self._gated.pop(commit.turn_index, None)
        if gated is None:
            return
        if not commit.completed:
            names = ", ".join(c.tool for c in gated.calls)
            logger.info(f"turn {gated.turn_index}: side-effect call(s) {names} not sent: turn not completed")
            return
        task = self.create_task(self._fire(gated), name=f"tools-committed-turn-{gated.turn_index}")
        self._firing.add(task)
        task.add_done_callback(self._firing.discard)

    async def _fire(self, gated: _Gated) -> None:
        turn = self._session.turn(gated.turn_index)
        state = turn.snapshot if turn is not None else self._session.state
        outcomes = await asyncio.gather(
            *(run_call(self._runner, state, c, committed=True) for c in gated.calls)
        )
        for o in outcomes:
            logger.info(f"turn {gated.turn_index}: side effect {o.tool} ran: {o.result if o.ok else o.error}")
        t_ms = turn.ms() if turn is not None else 0.0
        await self.push_frame(
            SideEffectResultFrame(turn_index=gated.turn_index, t_ms=t_ms, outcomes=list(outcomes))
        )

    async def cleanup(self) -> None:
        self._drop_gated("the pipeline stopped")
        for task in list(self._firing):
            await self.cancel_task(task)
        await super().cleanup()
        await self._runner.aclose()
