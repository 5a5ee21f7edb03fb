"""SessionRecorder: commits completed turns to the session (answer.meta into s_sh, the store)."""

from __future__ import annotations

import asyncio

from loguru import logger
from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from voicecoach.actors.frames import TurnCompletedFrame
from voicecoach.session import Session
from voicecoach.store import StoreError


class SessionRecorder(FrameProcessor):
    def __init__(self, session: Session):
        super().__init__()
        self._session = session

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, TurnCompletedFrame) and frame.record is not None:
            try:
                # The stores are sync (SQLite, Redis): off the event loop, so other sessions'
                # frames keep moving while the record is written.
                await asyncio.to_thread(self._session.commit_turn, frame.record)
            except StoreError as err:  # the turn was spoken; losing its record must not end the session
                logger.error(f"turn {frame.turn_index} not persisted: {err}")
                await self.push_error(str(err))
        await self.push_frame(frame, direction)
