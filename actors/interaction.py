"""InteractionActor (W3): c3 from the session history and c1, as soon as c1 arrives.

W3 is a pure function of (resolved cross-turn state, candidates, seed), fast enough to run
inline. Its answer.meta rides along in the frame and is written back only when the turn
completes (the Talker's TurnCompletedFrame), so a barge-in leaves s_sh untouched.
"""

from __future__ import annotations

from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from voicecoach.actors.frames import IntentControlFrame, InteractionControlFrame
from voicecoach.coach.session import Session
from voicecoach.interaction.kernel import interact, recommend_violations


class InteractionActor(FrameProcessor):
    def __init__(self, session: Session):
        super().__init__()
        self._session = session

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        if isinstance(frame, IntentControlFrame):
            pack, state = self._session.pack, frame.snapshot
            # The player's excludes so far (this turn's own reach W2 in parallel; the realizer
            # checks those against c2).
            earlier = self._session.constraints
            violates = recommend_violations(
                pack, state, excluded=set(earlier.excluded_entities if earlier else ())
            )
            control, meta = interact(
                state, pack, frame.branch, frame.turn_index, self._session.seed, violates,
                pair=f"{frame.intent}/{frame.sub_intent}",
            )  # fmt: skip
            turn = self._session.turn(frame.turn_index)
            await self.push_frame(
                InteractionControlFrame(
                    turn_index=frame.turn_index, t_ms=turn.ms() if turn else 0.0, control=control, meta=meta
                )
            )
