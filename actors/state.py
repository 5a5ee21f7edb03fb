"""StateUpdater: applies the game's state pushes to the session, first in every chain.

A push is a snapshot or a JSON merge patch. A bad one is refused with the field named (an
ErrorFrame upstream, a log line) and the previous state is kept; the session goes on.
"""

from __future__ import annotations

import asyncio

from loguru import logger
from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from voicecoach.actors.frames import StateUpdateFrame
from voicecoach.coach.session import Session
from voicecoach.core.state import StateError


class StateUpdater(FrameProcessor):
    def __init__(self, session: Session):
        super().__init__()
        self._session = session

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, StateUpdateFrame):
            try:
                # Validating and storing a large snapshot is slow, sync work: off the event loop.
                await asyncio.to_thread(self._session.update_state, frame.snapshot, frame.patch)
            except StateError as err:
                logger.warning(f"state update rejected, previous state kept: {err}")
                await self.push_error(str(err))
        await self.push_frame(frame, direction)
