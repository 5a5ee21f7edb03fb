"""The live coach server: games and the in-game overlay talk to the coach over one websocket.

    voicecoach serve [--host 127.0.0.1] [--port 8765] [--token T] [--allowed-origin URL ...]
    python -m voicecoach.pipelines.server ...          (the same)

One FastAPI app on localhost serves:

- `GET /` — the in-game overlay (`pipelines/overlay/`, a committed static bundle);
- `WS /ws?session=ID[&token=T]` — a coach session, in Pipecat's conventions so that the official
  Pipecat JS client (`@pipecat-ai/client-js` + `@pipecat-ai/websocket-transport`) connects
  as it is: Pipecat protobuf frames (audio both ways, JSON messages) and RTVI messages on
  top (`voicecoach/protocol.py` and docs/PROTOCOL.md have every message);
- `GET /api/example-state` — the pack's example snapshot (what the overlay plays with).

Each connection runs its own voice pipeline (`pipelines/speech.py`) in a `PipelineWorker`
with Pipecat's RTVI processor and observer, over a `FastAPIWebsocketTransport`; the engines
(the LLM, embedded llama.cpp by default) are shared. The session id resumes the session's
SQLite-stored state and W3 history. A second connection to a session that is live *takes it
over*: the older one is closed (4409) and its pipeline stopped before the new one opens the
session, so two pipelines never write one session. A game that reconnects after a crash or a
network change therefore gets its session back at once, instead of being locked out until
the server notices that the old socket is dead; the token is what keeps strangers out.

Access: every connection needs the server's token (`--token`, or one generated and printed
at start), as `?token=` (what the JS transport sends) or `Authorization: Bearer`; browser
pages must come from an allowed origin (the server's own by default); messages are limited in
size. A refused connection is accepted and closed at once with a close code and a reason
(`protocol.CloseCode`), so every client can tell the user why.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hmac
import json
import re
import secrets
import signal
import sys
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import FastAPI, WebSocket
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from google.protobuf.message import DecodeError
from loguru import logger
from pipecat.frames.frames import (
    Frame,
    InputAudioRawFrame,
    InputTransportMessageFrame,
    InterruptionFrame,
    OutputAudioRawFrame,
    TranscriptionFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.processors.frameworks.rtvi import RTVIProcessor
from pipecat.processors.frameworks.rtvi.frames import RTVISendTextFrame
from pipecat.processors.frameworks.rtvi.models import ClientMessage as RTVIClientMessage
from pipecat.serializers.protobuf import ProtobufFrameSerializer
from pipecat.transports.websocket.fastapi import FastAPIWebsocketParams, FastAPIWebsocketTransport
from pipecat.utils.time import time_now_iso8601
from pipecat.workers.runner import WorkerRunner
from pydantic import BaseModel
from starlette.websockets import WebSocketState

from voicecoach import latency, protocol
from voicecoach.actors.frames import (
    GroundingControlFrame,
    IntentControlFrame,
    InteractionControlFrame,
    NarrationTextFrame,
    ReplyTextFrame,
    ToolDispatchFrame,
    ToolResultFrame,
    TurnCompletedFrame,
    TurnFailedFrame,
    TurnFrame,
)
from voicecoach.config import (
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_PORT,
    add_serve_arguments,
    coach_config,
    speech_config,
)
from voicecoach.engines import Engines, prewarm
from voicecoach.latency import Milestone
from voicecoach.pack import PACKS_DIR, Pack, load_pack
from voicecoach.pipelines.speech import pipeline_params, voice_pipeline
from voicecoach.pipelines.timeline import TimelineObserver
from voicecoach.protocol import CloseCode, ErrorCode
from voicecoach.session import CoachConfig, Session
from voicecoach.speech import SpeechConfig
from voicecoach.state import StateError
from voicecoach.store import SessionStore, TurnRecord, open_store

OVERLAY_DIR = Path(__file__).resolve().parent / "overlay"
SESSION_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
# Bad messages the server answers before it gives up on a client (in BAD_WINDOW_S seconds).
MAX_BAD_MESSAGES = 50
BAD_WINDOW_S = 10.0
# Push-to-talk release: the silence fed to the VAD goes in frames of this length.
PTT_SILENCE_FRAME_S = 0.02


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    token: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    allowed_origins: list[str] = field(default_factory=list)  # besides the server's own; "*" allows any
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    coach: CoachConfig = field(default_factory=CoachConfig)
    speech: SpeechConfig = field(default_factory=SpeechConfig)
    warm: bool = True  # session-open prewarm of the LLM roles' static prefixes

    def origins(self) -> set[str]:
        own = {f"http://{host}:{self.port}" for host in (self.host, "127.0.0.1", "localhost", "[::1]")}
        return {o.rstrip("/").lower() for o in (*own, *self.allowed_origins)}


# --- the wire: Pipecat protobuf frames, checked -------------------------------------------------

Report = Callable[[ErrorCode, str], Awaitable[None]]


class GuardedSerializer(ProtobufFrameSerializer):
    """Pipecat's protobuf serializer, answering every message it cannot take.

    The stock serializer raises on bytes that are not protobuf (which ends the transport's
    receive loop, and so the session) and logs and drops JSON it cannot parse; here each
    such message is dropped and the client told why (`report`), and the connection goes
    on. On top: a size limit, audio checks (the pipeline listens at 16 kHz mono 16-bit and
    does not resample), and text websocket messages taken as RTVI JSON (for raw clients).
    """

    def __init__(self, max_message_bytes: int, input_sample_rate: int):
        super().__init__()
        self._max = max_message_bytes
        self._rate = input_sample_rate
        self.report: Report | None = None

    async def _refuse(self, code: ErrorCode, message: str) -> None:
        if self.report is not None:
            await self.report(code, message)

    async def serialize(self, frame: Frame) -> str | bytes | None:
        # Pipecat's JS transport does not know the protobuf interruption frame (it logs an
        # error for each); its clients learn of a barge-in from RTVI's user-started-speaking,
        # and flush their player on it.
        if isinstance(frame, InterruptionFrame):
            return None
        return await super().serialize(frame)

    async def deserialize(self, data: str | bytes) -> Frame | None:
        size = len(data.encode("utf-8")) if isinstance(data, str) else len(data)
        if size > self._max:
            await self._refuse("too-large", f"a message of {size} bytes is over the limit of {self._max}")
            return None
        if isinstance(data, str):
            return await self._json_message(data)
        try:
            frame = await super().deserialize(data)
        except (DecodeError, ValueError, TypeError, UnicodeDecodeError) as err:
            await self._refuse("bad-frame", f"not a Pipecat protobuf frame ({type(err).__name__})")
            return None
        if frame is None:
            # The stock deserializer returns None for an unknown oneof *and* for a message
            # frame whose JSON does not parse; tell the two apart for the client.
            await self._refuse(*_why_not(data))
            return None
        if isinstance(frame, InputAudioRawFrame):
            problem = _audio_problem(frame, self._rate)
            if problem:
                await self._refuse("bad-audio", problem)
                return None
            return frame
        if isinstance(frame, InputTransportMessageFrame):
            return frame
        # Text and transcription frames would let a client put words in the coach's mouth or
        # bypass the turn path; typed input is RTVI send-text.
        kind = type(frame).__name__.removesuffix("Frame").lower()
        await self._refuse("bad-frame", f"clients may not send {kind} frames (only audio and messages)")
        return None

    async def _json_message(self, text: str) -> Frame | None:
        try:
            message = json.loads(text)
        except json.JSONDecodeError as err:
            await self._refuse("bad-json", f"the message is not JSON ({err.msg} at {err.pos})")
            return None
        if not isinstance(message, dict):
            await self._refuse("bad-message", "a message must be a JSON object (an RTVI message)")
            return None
        return InputTransportMessageFrame(message=message)


def _why_not(data: bytes) -> tuple[ErrorCode, str]:
    import pipecat.frames.protobufs.frames_pb2 as frame_protos

    proto = frame_protos.Frame.FromString(data)  # type: ignore[attr-defined]
    which = proto.WhichOneof("frame")
    if which == "message":
        try:
            json.loads(proto.message.data)
        except ValueError as err:
            return "bad-json", f"the message frame's data is not JSON ({err})"
    if which is None:
        return "bad-frame", "a protobuf frame with no known payload (expected audio, message or text)"
    return "bad-frame", f"a {which!r} frame is not accepted from clients"


def _audio_problem(frame: InputAudioRawFrame, rate: int) -> str | None:
    if frame.sample_rate != rate:
        return f"audio must be {rate} Hz (got {frame.sample_rate})"
    if frame.num_channels != 1:
        return f"audio must be mono (got {frame.num_channels} channels)"
    if not frame.audio or len(frame.audio) % 2:
        return f"audio must be whole 16-bit samples (got {len(frame.audio)} bytes)"
    return None


# --- typed questions ---------------------------------------------------------------------------


class TypedInput(FrameProcessor):
    """RTVI `send-text` (typed input) becomes the player's utterance, as if STT had heard it.

    Sits right after the input transport. The transcript then takes the path a spoken one
    takes; outside a user turn the turn gate lets it through at once.
    """

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, RTVISendTextFrame) and frame.text.strip():
            await self.push_frame(frame, direction)
            await self.push_frame(
                TranscriptionFrame(
                    text=frame.text.strip(),
                    user_id=frame.user_id or "player",
                    timestamp=time_now_iso8601(),
                    finalized=True,
                )  # fmt: skip
            )
            return
        await self.push_frame(frame, direction)


# --- events to the client, and each turn's latency -----------------------------------------------

Send = Callable[[BaseModel], Awaitable[None]]


class CoachEvents(TimelineObserver):
    """The coach's control frames as protocol events for the client, and each turn's S2FA.

    The turn timeline's observer (`pipelines/timeline.py`): it sees every frame where it is
    first pushed (transcripts at the STT and the turn gate, c1..c3 at their actors, audio at the
    TTS and at the output transport) without sitting in the audio path. Events go out as RTVI
    server messages.

    S2FA on the server's side: from the VAD's stop minus its silence window (Pipecat's
    `UserBotLatencyObserver` does the same), or from a typed question's arrival, to the
    first audible sample the output transport sent. A client measures its own end to end
    (docs/PROTOCOL.md); this one says where the time went.
    """

    def __init__(self, send: Send, vad_stop_s: float):
        super().__init__()
        self._send = send
        self._vad_stop_s = vad_stop_s
        self._pending: dict[str, float] = {}  # the user turn in progress, before it has an index
        self._origin = "speech"
        self._turns: dict[int, dict[str, float]] = {}
        self._origins: dict[int, str] = {}
        self._current: int | None = None
        self._completed: set[int] = set()
        self._reported: set[int] = set()

    def kind(self, frame: Frame, source: object) -> str | None:
        if isinstance(frame, TranscriptionFrame) and isinstance(source, TypedInput):
            return "typed_input"
        if isinstance(frame, TurnFailedFrame):
            return "turn_failed"
        return super().kind(frame, source)

    async def on_mark(self, kind: str, t: float, frame: Frame) -> None:
        if kind == "vad_start":
            self._pending = {}
            self._origin = "speech"
        elif kind == Milestone.VAD_STOP:
            self._pending[Milestone.VAD_STOP] = t
            self._pending[Milestone.SPEECH_END] = t - self._vad_stop_s
        elif kind in (Milestone.STT_FINAL, Milestone.TURN_STOP):
            self._pending[kind] = t
        elif kind == "typed_input":
            self._pending = {Milestone.SPEECH_END: t, Milestone.TURN_STOP: t}
            self._origin = "text"
        elif kind == "phrase":
            self._mark(Milestone.FIRST_PHRASE, t)
        elif kind == "tts_audio":
            self._mark(Milestone.TTS_FIRST_BYTE, t)
        elif kind == "turn_failed" and isinstance(frame, TurnFailedFrame):
            await self._send(
                protocol.TurnFailedEvent(
                    turn_index=frame.turn_index,
                    t_ms=frame.t_ms,
                    failed=frame.failed,
                    reason=frame.reason,
                    heard=frame.heard,
                )  # fmt: skip
            )
        elif kind == "audio_out" and isinstance(frame, OutputAudioRawFrame):
            await self._on_audio_out(frame, t)
        elif isinstance(kind, Milestone) and isinstance(
            frame, TurnFrame | NarrationTextFrame | ReplyTextFrame
        ):
            await self._on_coach_frame(kind, frame, t)

    def _bind(self, turn: int) -> dict[str, float]:
        """The milestones of `turn`, taking over those of the user turn that started it."""
        if turn not in self._turns:
            self._turns[turn] = self._pending
            self._origins[turn] = self._origin
            self._pending = {}
            self._current = turn
        return self._turns[turn]

    def _mark(self, name: Milestone, t: float, turn: int | None = None) -> None:
        index = turn if turn is not None else self._current
        if index is None:
            return
        self._bind(index).setdefault(name, t)

    async def _on_audio_out(self, frame: OutputAudioRawFrame, t: float) -> None:
        turn = self._current
        if turn is None or Milestone.FIRST_AUDIO in self._turns.get(turn, {}):
            return
        offset = latency.first_non_silent(np.frombuffer(frame.audio, dtype=np.int16))
        if offset is None:
            return
        # Pushed on right after it was sent (an idle transport does not pace the first chunk).
        self._mark(Milestone.FIRST_AUDIO, t + offset / frame.sample_rate)
        await self._maybe_report(turn)

    async def _on_coach_frame(
        self, milestone: Milestone, frame: TurnFrame | NarrationTextFrame | ReplyTextFrame, t: float
    ) -> None:
        self._mark(milestone, t, frame.turn_index)
        if milestone is Milestone.TURN_COMPLETED:
            self._completed.add(frame.turn_index)
        event = _EVENTS[milestone](frame)
        if event is not None:
            await self._send(event)
        if milestone is Milestone.TURN_COMPLETED:
            await self._maybe_report(frame.turn_index)

    async def _maybe_report(self, turn: int) -> None:
        """The turn's latency, once it has both completed and been heard."""
        marks = self._turns.get(turn, {})
        if turn in self._reported or turn not in self._completed or "first_audio" not in marks:
            return
        self._reported.add(turn)
        origin = marks.get("speech_end")
        if origin is None:
            return
        stages = [protocol.Stage(label=label, ms=ms) for label, ms in latency.critical_path(marks)]
        await self._send(
            protocol.LatencyEvent(
                turn_index=turn,
                origin="text" if self._origins.get(turn) == "text" else "speech",
                s2fa_ms=latency.s2fa_ms(marks),
                milestones=latency.since(marks, origin),
                stages=stages,
            )  # fmt: skip
        )


def _grounding_event(frame: GroundingControlFrame) -> protocol.GroundingEvent:
    c2 = frame.control
    conflicts = [protocol.ConflictInfo.model_validate(c.model_dump()) for c in c2.conflicts] if c2 else []
    plan = (
        [
            protocol.ParagraphInfo(
                type=p.type, constraints=sorted(p.constraints), polarity=p.polarity, detail=p.detail
            )
            for p in c2.plan
        ]  # fmt: skip
        if c2
        else []
    )
    return protocol.GroundingEvent(
        turn_index=frame.turn_index, t_ms=frame.t_ms, conflicts=conflicts, plan=plan,
        inventory_empty=c2.inventory_empty if c2 else False, slot_errors=frame.slot_errors,
    )  # fmt: skip


def _interaction_event(frame: InteractionControlFrame) -> protocol.InteractionEvent:
    c3 = frame.control
    guidance = protocol.GuidanceInfo.model_validate(c3.guidance.model_dump()) if c3 and c3.guidance else None
    return protocol.InteractionEvent(
        turn_index=frame.turn_index, t_ms=frame.t_ms, branch=c3.branch if c3 else "", guidance=guidance,
        cooling=c3.cooling if c3 else [], abstain_reason=c3.abstain_reason if c3 else None,
    )  # fmt: skip


def _completed_event(frame: TurnCompletedFrame) -> protocol.TurnCompletedEvent:
    # Every coach configuration completes a turn with its record (only the benchmarks' cascade has none).
    r = frame.record or TurnRecord(session_id="-", turn_index=frame.turn_index)
    return protocol.TurnCompletedEvent(
        turn_index=frame.turn_index, t_ms=frame.t_ms, utterance=r.utterance, intent=r.intent,
        sub_intent=r.sub_intent, narration=r.narration, reply=r.reply, tools=[c["tool"] for c in r.tools],
        guidance=r.c3.get("guidance"), latency=r.latency,
    )  # fmt: skip


def _intent_event(frame: IntentControlFrame) -> protocol.IntentEvent:
    return protocol.IntentEvent(
        turn_index=frame.turn_index, t_ms=frame.t_ms, utterance=frame.utterance, intent=frame.intent,
        sub_intent=frame.sub_intent, branch=frame.branch, outcome=frame.outcome, reason=frame.reason,
    )  # fmt: skip


def _dispatch_event(frame: ToolDispatchFrame) -> protocol.ToolDispatchEvent:
    calls = [protocol.ToolCallInfo(tool=c.tool, args=c.args) for c in frame.calls]
    return protocol.ToolDispatchEvent(
        turn_index=frame.turn_index, t_ms=frame.t_ms, source=frame.source, calls=calls, errors=frame.errors
    )


def _results_event(frame: ToolResultFrame) -> protocol.ToolResultsEvent:
    outcomes = [protocol.ToolOutcomeInfo.model_validate(o.model_dump()) for o in frame.outcomes]
    return protocol.ToolResultsEvent(turn_index=frame.turn_index, t_ms=frame.t_ms, outcomes=outcomes)


# The protocol event of each coach frame, by the milestone it marks (NARRATION_END has none).
_EVENTS: dict[Milestone, Callable[[Any], BaseModel | None]] = {
    Milestone.FIRST_NARRATION_TOKEN: lambda f: protocol.TextEvent(
        turn_index=f.turn_index, kind="narration", text=f.text
    ),
    Milestone.REPLY_FIRST_TOKEN: lambda f: protocol.TextEvent(
        turn_index=f.turn_index, kind="reply", text=f.text
    ),
    Milestone.C1: _intent_event,
    Milestone.TOOL_DISPATCH: _dispatch_event,
    Milestone.TOOL_RESULTS: _results_event,
    Milestone.C2: _grounding_event,
    Milestone.C3: _interaction_event,
    Milestone.NARRATION_END: lambda f: None,
    Milestone.TURN_COMPLETED: _completed_event,
}


# --- one connection --------------------------------------------------------------------------


def state_info(session: Session) -> protocol.StateInfo:
    s = session.state
    return protocol.StateInfo(version=s.version, ic=s.ic, fs=s.fs, stale=session.stale)


def pack_info(pack: Pack) -> protocol.PackInfo:
    creatures = [
        protocol.CreatureInfo(id=c.id, name=c.name, element=c.element, role=c.role)
        for c in sorted(pack.creatures.values(), key=lambda c: c.name)
    ]
    return protocol.PackInfo(id=pack.pack_id, version=pack.version, creatures=creatures)


class Connection:
    """One websocket's coach session: its pipeline, its RTVI requests, its events."""

    def __init__(self, server: CoachServer, websocket: WebSocket, session_id: str, took_over: bool):
        self.server = server
        self.websocket = websocket
        self.session_id = session_id
        self.took_over = took_over
        self.session: Session | None = None
        self.sent: deque[BaseModel] = deque(maxlen=5000)  # events sent, for tests and debugging
        self.finished = asyncio.Event()
        self._worker: PipelineWorker | None = None
        self._transport: FastAPIWebsocketTransport | None = None
        self._serializer: GuardedSerializer | None = None
        self._bad: deque[float] = deque()
        self._closing = False
        self._prewarm: asyncio.Task[None] | None = None

    # The pipeline is built off the event loop: loading Whisper and the piper voice takes
    # about a second and a half, during which other sessions' audio must keep flowing.
    def _build(self, session: Session) -> tuple[FastAPIWebsocketTransport, Pipeline]:
        config = self.server.config
        self._serializer = GuardedSerializer(config.max_message_bytes, config.speech.input_sample_rate)
        params = FastAPIWebsocketParams(
            audio_in_enabled=True,
            audio_out_enabled=True,
            audio_in_sample_rate=config.speech.input_sample_rate,
            audio_out_sample_rate=protocol.OUTPUT_SAMPLE_RATE,
            add_wav_header=False,
            serializer=self._serializer,
            allowed_origins=[],  # checked before the connection was accepted
        )
        transport = FastAPIWebsocketTransport(self.websocket, params)
        typed = Pipeline([transport.input(), TypedInput()])
        pipeline = voice_pipeline(
            typed, transport.output(), session, self.server.engines, config.coach, config.speech
        )
        return transport, pipeline

    async def run(self) -> None:
        server = self.server
        try:
            store = server.store
            resumed = (
                store.load_state(self.session_id) is not None or store.next_turn_index(self.session_id) > 0
            )
            session = Session.open(self.session_id, store=store, pack=server.pack)
            self.session = session
            transport, pipeline = await asyncio.to_thread(self._build, session)
            self._transport = transport
            assert self._serializer is not None
            self._serializer.report = self._report
            events = CoachEvents(self._send_event, server.config.speech.vad.stop_secs)
            worker = PipelineWorker(
                pipeline,
                params=pipeline_params(server.config.speech),
                observers=[events],
                idle_timeout_secs=None,  # a player may think for minutes; the socket's end ends it
                enable_rtvi=True,
            )
            self._worker = worker
            self._wire(worker.rtvi, transport, resumed)
            if server.config.warm:  # in the background: the player may speak before it is done
                self._prewarm = asyncio.create_task(
                    prewarm(server.engines, session.pack, [server.config.coach.mode])
                )
            if self._closing:
                return
            runner = WorkerRunner(handle_sigint=False)
            await runner.add_workers(worker)
            await runner.run()
        except Exception as err:  # a session that cannot start must not take the server down
            logger.exception(f"session {self.session_id}: {err}")
            await self._close_socket(CloseCode.GOING_AWAY, "the coach could not start this session")
        finally:
            # Nothing to save here: the session stores each state update and each completed turn
            # as it happens, so a client that vanishes leaves its session as it last was.
            if self._prewarm is not None:
                self._prewarm.cancel()
            self.finished.set()

    def _wire(self, rtvi: RTVIProcessor, transport: FastAPIWebsocketTransport, resumed: bool) -> None:
        @rtvi.event_handler("on_client_ready")
        async def on_client_ready(rtvi: RTVIProcessor) -> None:
            # Registered after the worker's own handler, which answers bot-ready first.
            assert self.session is not None
            config = self.server.config
            await self._send_event(
                protocol.SessionEvent(
                    session_id=self.session_id,
                    resumed=resumed,
                    turns=self.session.next_turn,
                    took_over=self.took_over,
                    state=state_info(self.session),
                    pack=pack_info(self.session.pack),
                    audio=protocol.AudioInfo(input_sample_rate=config.speech.input_sample_rate),
                    max_message_bytes=config.max_message_bytes,
                )  # fmt: skip
            )

        @rtvi.event_handler("on_client_message")
        async def on_client_message(rtvi: RTVIProcessor, message: RTVIClientMessage) -> None:
            await self._on_request(rtvi, message)

        @transport.event_handler("on_client_disconnected")
        async def on_client_disconnected(transport: Any, websocket: Any) -> None:
            logger.info(f"session {self.session_id}: client gone")
            await self.stop()

    async def _on_request(self, rtvi: RTVIProcessor, message: RTVIClientMessage) -> None:
        assert self.session is not None
        try:
            request = protocol.parse_request(message.type, message.data)
        except protocol.ProtocolError as err:
            await self._count_bad()
            await rtvi.send_error_response(message, err.text)
            return
        if isinstance(request, protocol.StateUpdate):
            # Applied here, not as a frame through the pipeline: the game gets its answer at
            # once, and an update sent just before the player speaks cannot queue behind the
            # audio the STT is still working on. The turn reads the session's state when it
            # starts, so the next turn sees it either way.
            try:
                self.session.update_state(request.snapshot, request.patch)
            except StateError as err:
                await rtvi.send_error_response(message, protocol.error_text("bad-state", str(err)))
                return
            info = state_info(self.session)
            await rtvi.send_server_response(message, info.model_dump(mode="json"))
            await self._send_event(protocol.StateEvent(state=info))
        elif isinstance(request, protocol.GetState):
            await rtvi.send_server_response(message, state_info(self.session).model_dump(mode="json"))
        elif isinstance(request, protocol.PushToTalk):
            if not request.talking:
                await self._end_of_speech()
            await rtvi.send_server_response(message, {"ok": True})

    async def _end_of_speech(self) -> None:
        """Push-to-talk released: feed the VAD the silence it waits for, at once.

        The client stops sending audio when the talk key is released, so the VAD would never
        hear the silence that ends the speech. A silence window's worth of zero frames, pushed
        faster than real time, ends it now: push-to-talk saves the VAD's wait.
        """
        if self._transport is None:
            return
        speech = self.server.config.speech
        rate = speech.input_sample_rate
        frames = int((speech.vad.stop_secs + 0.1) / PTT_SILENCE_FRAME_S) + 1
        silence = b"\x00\x00" * int(rate * PTT_SILENCE_FRAME_S)
        for _ in range(frames):
            await self._transport.input().push_audio_frame(
                InputAudioRawFrame(audio=silence, sample_rate=rate, num_channels=1)
            )

    async def _send_event(self, event: BaseModel) -> None:
        self.sent.append(event)
        if self._worker is not None and not self._closing:
            await self._worker.rtvi.send_server_message(event.model_dump(mode="json"))

    async def _report(self, code: ErrorCode, message: str) -> None:
        """A message the server could not take: tell the client, and give up on a flood."""
        await self._count_bad()
        if self._worker is not None and not self._closing:
            await self._worker.rtvi.send_error(protocol.error_text(code, message))

    async def _count_bad(self) -> None:
        now = time.monotonic()
        self._bad.append(now)
        while self._bad and self._bad[0] < now - BAD_WINDOW_S:
            self._bad.popleft()
        if len(self._bad) > MAX_BAD_MESSAGES:
            logger.warning(f"session {self.session_id}: too many invalid messages, closing")
            asyncio.get_running_loop().create_task(
                self.close(
                    CloseCode.POLICY, f"more than {MAX_BAD_MESSAGES} invalid messages in {BAD_WINDOW_S:g} s"
                )
            )

    async def _close_socket(self, code: int, reason: str) -> None:
        ws = self.websocket
        if ws.application_state == WebSocketState.CONNECTED and ws.client_state == WebSocketState.CONNECTED:
            try:
                await ws.close(code=code, reason=reason)
            except RuntimeError as err:  # closed under us
                logger.debug(f"session {self.session_id}: close: {err}")

    async def close(self, code: int, reason: str) -> None:
        """Close the websocket with `code`/`reason`, stop the pipeline, wait until it is down."""
        self._closing = True
        await self._close_socket(code, reason)
        await self.stop()
        await self.finished.wait()

    async def stop(self) -> None:
        self._closing = True
        if self._worker is not None and not self._worker.has_finished():
            await self._worker.cancel(reason="connection closed")


# --- the server --------------------------------------------------------------------------------


class CoachServer:
    """Connections, their sessions and the access rules; `app()` is the FastAPI app."""

    def __init__(self, config: ServerConfig, engines: Engines, store: SessionStore, pack: Pack | None = None):
        self.config = config
        self.engines = engines
        self.store = store
        self.pack = pack or load_pack(config.coach.pack_id)
        self.connections: dict[str, Connection] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def refusal(self, websocket: WebSocket) -> tuple[int, str] | None:
        """Why this connection may not open a session (close code, reason), or None."""
        origin = websocket.headers.get("origin")
        allowed = self.config.origins()
        # No Origin header: not a browser page (a game, a script); the token still applies.
        if origin is not None and "*" not in allowed and origin.rstrip("/").lower() not in allowed:
            return CloseCode.FORBIDDEN_ORIGIN, f"origin {origin} is not allowed (see --allowed-origin)"
        token = websocket.query_params.get("token")
        auth = websocket.headers.get("authorization", "")
        if token is None and auth.lower().startswith("bearer "):
            token = auth[7:].strip()
        if not token:
            return (
                CloseCode.UNAUTHORIZED,
                "unauthorized: a token is required (?token= or Authorization: Bearer)",
            )
        if not hmac.compare_digest(token.encode("utf-8"), self.config.token.encode("utf-8")):
            return CloseCode.UNAUTHORIZED, "unauthorized: invalid token"
        session_id = websocket.query_params.get("session")
        if session_id is not None and not SESSION_ID.match(session_id):
            return CloseCode.BAD_REQUEST, "bad session id: 1-64 of A-Z a-z 0-9 . _ -"
        return None

    async def serve_websocket(self, websocket: WebSocket) -> None:
        refusal = self.refusal(websocket)
        await websocket.accept()
        if refusal is not None:
            code, reason = refusal
            logger.info(f"connection refused ({code}): {reason}")
            await websocket.close(code=code, reason=reason)
            return
        session_id = websocket.query_params.get("session") or f"s-{secrets.token_hex(4)}"
        lock = self._locks.setdefault(session_id, asyncio.Lock())
        async with lock:  # one takeover at a time per session
            old = self.connections.get(session_id)
            if old is not None:
                logger.info(f"session {session_id}: taken over by a new connection")
                await old.close(CloseCode.TAKEN_OVER, "session taken over by a newer connection")
            connection = Connection(self, websocket, session_id, took_over=old is not None)
            self.connections[session_id] = connection
        logger.info(f"session {session_id}: connected")
        try:
            await connection.run()
        finally:
            if self.connections.get(session_id) is connection:
                del self.connections[session_id]
            logger.info(f"session {session_id}: closed")

    async def shutdown(self) -> None:
        await asyncio.gather(
            *(c.close(CloseCode.GOING_AWAY, "server shutting down") for c in list(self.connections.values()))
        )

    def app(self) -> FastAPI:
        @asynccontextmanager
        async def lifespan(app: FastAPI) -> AsyncIterator[None]:
            yield
            await self.shutdown()  # sessions end before the engines they share

        app = FastAPI(title="VoiceCoach", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
        dist = OVERLAY_DIR / "dist"

        @app.get("/", include_in_schema=False)
        async def overlay() -> Any:
            index = OVERLAY_DIR / "index.html"
            if not (dist / "app.js").is_file():
                return HTMLResponse(
                    "<h1>overlay not built</h1><p>run <code>bash pipelines/overlay/build.sh</code></p>", 503
                )
            return FileResponse(index, headers={"Cache-Control": "no-store"})

        @app.get("/api/example-state")
        async def example_state() -> Any:
            path = PACKS_DIR / self.pack.pack_id / "example_state.json"
            return JSONResponse(json.loads(path.read_text(encoding="utf-8")))

        @app.get("/api/health")
        async def health() -> Any:
            return {"ok": True, "sessions": len(self.connections)}

        @app.websocket("/ws")
        async def ws(websocket: WebSocket) -> None:
            await self.serve_websocket(websocket)

        app.mount("/overlay", StaticFiles(directory=dist, check_dir=False), name="overlay")
        return app


# --- running it --------------------------------------------------------------------------------


def uvicorn_config(server: CoachServer, **overrides: Any) -> Any:
    import uvicorn

    config = server.config
    return uvicorn.Config(
        server.app(),
        host=config.host,
        port=config.port,
        ws="websockets-sansio",
        # A hard cap well above the per-message limit: past it the websocket layer closes the
        # connection (1009); under it, an oversized message is refused and the session goes on.
        ws_max_size=config.max_message_bytes * 4,
        ws_per_message_deflate=False,  # PCM does not compress, and deflate costs latency
        access_log=False,  # its lines would carry the token of ?token= URLs
        log_level="warning",
        lifespan="on",
        **overrides,
    )


def overlay_url(config: ServerConfig, session: str = "player") -> str:
    host = "127.0.0.1" if config.host in ("0.0.0.0", "::") else config.host
    return f"http://{host}:{config.port}/#session={session}&token={config.token}"


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    values: dict[str, Any] = dict(
        host=args.host, port=args.port, allowed_origins=list(args.allowed_origin),
        max_message_bytes=args.max_message_kb * 1024, coach=coach_config(args), speech=speech_config(),
        warm=not args.no_warm,
    )  # fmt: skip
    if args.token:
        values["token"] = args.token
    return ServerConfig(**values)


def _uvicorn_server(config: Any) -> Any:
    """uvicorn.Server without its signal capture: that re-raises SIGTERM / SIGINT once the
    server is down, which kills the process before the embedded LLM server is stopped (it
    would outlive us). `serve` handles those signals itself."""
    import uvicorn

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return Server(config)


async def serve(
    config: ServerConfig, store_url: str | None = None, ready: Callable[[], None] | None = None
) -> None:
    store = open_store(store_url)
    engines: Engines | None = None
    try:
        engines = await asyncio.to_thread(Engines.start, config.coach)
        server = CoachServer(config, engines, store)
        uvicorn_server = _uvicorn_server(uvicorn_config(server))
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, lambda: setattr(uvicorn_server, "should_exit", True))
        serving = asyncio.create_task(uvicorn_server.serve())
        while not uvicorn_server.started and not serving.done():
            await asyncio.sleep(0.05)
        if ready is not None and uvicorn_server.started:
            ready()
        await serving
    finally:
        if engines is not None:
            await engines.close()
        store.close()


def run(args: argparse.Namespace) -> int:
    logger.remove()
    logger.add(sys.stderr, level=args.log_level.upper())
    config = config_from_args(args)
    generated = not args.token

    def ready() -> None:
        print(f"VoiceCoach listening on ws://{config.host}:{config.port}/ws  (mode {config.coach.mode})")
        print(f"overlay: {overlay_url(config)}")
        if generated:
            print(f"token (generated; pass --token to fix one): {config.token}")
        sys.stdout.flush()

    try:
        asyncio.run(serve(config, args.store, ready))
    except KeyboardInterrupt:
        pass
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="voicecoach serve", description="Run the live coach server.")
    add_serve_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
