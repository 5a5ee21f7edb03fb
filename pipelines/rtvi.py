"""Pipecat's RTVI events as the official web client expects them from the coach's pipeline.

Pipecat's `RTVIObserver` turns frames into RTVI messages wherever they are first pushed. The
coach's pipeline pushes some frames more than once or in an order an LLM service would not, and
the official client (`@pipecat-ai/client-js` 1.13, RTVI 2.1.0) then saw (issue 30):

- two `user-transcription`s per utterance, the STT's (padded with spaces) and the turn gate's:
  only the turn gate's is reported, the one transcript per user turn the coach answers;
- `bot-llm-started` after `bot-llm-text` and `bot-llm-stopped`: the phrase chunker opens the
  TTS's turn once the text has reached it. Here `bot-llm-started` goes out before a turn's first
  words and `bot-llm-stopped` after its last (the Talker's end of response, or the interruption
  that cut it);
- `bot-interrupted` with every user turn, though nothing was playing: it is sent only when the
  coach's voice was playing, and only to clients of RTVI 2.2.0 or later, which know it
  (client-js 1.13 logs "Unrecognized message type"); `user-input` likewise;
- user-started/stopped-speaking for a typed question (Pipecat's turn starts on a transcript):
  only a user turn the VAD heard is reported, and a typed question gets no transcription (its
  text is what the client sent; RTVI 2.2.0 clients get `user-input` "chat" for it).

`close_notice` is the RTVI `error` a client gets just before the server closes its websocket,
with the close code and reason: the JS transport hands its callbacks only "Code: 4401".
"""

from __future__ import annotations

import json
from typing import Any

import pipecat.frames.protobufs.frames_pb2 as frame_protos
import pipecat.processors.frameworks.rtvi.models as RTVI
from pipecat.frames.frames import (
    InterimTranscriptionFrame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    TranscriptionFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
    VADUserStartedSpeakingFrame,
)
from pipecat.observers.base_observer import FramePushed
from pipecat.processors.frame_processor import FrameDirection
from pipecat.processors.frameworks.rtvi import RTVIObserver, RTVIObserverParams, RTVIProcessor
from pydantic import BaseModel

from voicecoach.actors.frames import TypedTranscriptionFrame
from voicecoach.coach import protocol
from voicecoach.pipelines.speech.voice import TurnGate

# The RTVI version that added `bot-interrupted` and `user-input` (client-js 1.13 speaks 2.1.0).
NEWER_EVENTS = [2, 2, 0]


class CoachRTVIObserver(RTVIObserver):
    """Pipecat's RTVI observer, with the coach pipeline's frames reported once and in order."""

    def __init__(self, rtvi: RTVIProcessor | None = None, *, params: RTVIObserverParams | None = None):
        params = params or RTVIObserverParams()
        super().__init__(rtvi, params=params)
        # Our own handles on what Pipecat keeps private (tests/actors/test_pipecat_compat.py).
        self._coach_rtvi = rtvi
        self._llm_events = params.bot_llm_enabled
        self._heard = False  # the VAD heard the player since the last user turn ended
        self._voiced_turn = False  # the user turn in progress began with the player's voice
        self._llm_turn: int | None = None  # the turn between bot-llm-started and bot-llm-stopped
        self._playing = False  # between bot-started-speaking and bot-stopped-speaking

    async def on_push_frame(self, data: FramePushed) -> None:
        frame = data.frame
        sibling = frame.broadcast_sibling_id is not None and data.direction != FrameDirection.DOWNSTREAM
        if not data.first_push or sibling:
            return await super().on_push_frame(data)  # what Pipecat reports late (aggregated text)
        if isinstance(frame, VADUserStartedSpeakingFrame):
            self._heard = True
        elif isinstance(frame, UserStartedSpeakingFrame):
            self._voiced_turn = self._heard
            if not self._voiced_turn:
                return  # a typed question started it
        elif isinstance(frame, UserStoppedSpeakingFrame):
            voiced, self._voiced_turn, self._heard = self._voiced_turn, False, False
            if not voiced:
                return
        elif isinstance(frame, TranscriptionFrame | InterimTranscriptionFrame):
            if isinstance(frame, TypedTranscriptionFrame) or not isinstance(data.source, TurnGate):
                return  # a typed question's, or a segment's transcript on its way to the gate
        elif isinstance(frame, LLMFullResponseStartFrame):
            return  # the chunker's, for the TTS: bot-llm-started went before the first words
        elif isinstance(frame, LLMTextFrame):
            turn = getattr(frame, "turn_index", -1)
            if self._llm_turn != turn:
                await self._llm_stopped()
                if self._llm_events:
                    await self.send_rtvi_message(RTVI.BotLLMStartedMessage())
                self._llm_turn = turn
        elif isinstance(frame, LLMFullResponseEndFrame):
            await self._llm_stopped()
            return
        elif isinstance(frame, InterruptionFrame):
            await self._llm_stopped()
        await super().on_push_frame(data)

    async def _llm_stopped(self) -> None:
        if self._llm_turn is not None:
            self._llm_turn = None
            if self._llm_events:
                await self.send_rtvi_message(RTVI.BotLLMStoppedMessage())

    async def send_rtvi_message(self, model: BaseModel, exclude_none: bool = True) -> None:
        if isinstance(model, RTVI.BotStartedSpeakingMessage):
            self._playing = True
        elif isinstance(model, RTVI.BotStoppedSpeakingMessage):
            self._playing = False
        elif isinstance(model, RTVI.BotInterruptedMessage):
            if not self._playing or not self._knows_newer_events():
                return
        elif isinstance(model, RTVI.UserInputMessage) and not self._knows_newer_events():
            return
        await super().send_rtvi_message(model, exclude_none)

    def _knows_newer_events(self) -> bool:
        """The client said RTVI 2.2.0 or later in client-ready (no processor: assume the current)."""
        return self._coach_rtvi is None or self._coach_rtvi.client_version >= NEWER_EVENTS


class CoachRTVIProcessor(RTVIProcessor):
    """Pipecat's RTVI processor, whose observer is the coach's (`PipelineWorker` asks it for one)."""

    def create_rtvi_observer(
        self, *, params: RTVIObserverParams | None = None, **kwargs: Any
    ) -> RTVIObserver:
        return CoachRTVIObserver(self, params=params)


def close_notice(code: int, reason: str) -> bytes:
    """The RTVI `error` (fatal) saying why the server is about to close the websocket, as a
    protobuf message frame: `closed: <code> <reason>`."""
    message = protocol.ErrorMessage(
        data=protocol.ErrorData(error=protocol.error_text("closed", f"{code} {reason}"), fatal=True)
    )
    proto = frame_protos.Frame()  # type: ignore[attr-defined]
    proto.message.data = json.dumps(message.model_dump(mode="json"))
    return bytes(proto.SerializeToString())
