"""The live coach server: games and the in-game overlay talk to the coach over one websocket.

    voicecoach serve [--host 127.0.0.1] [--port 8765] [--token T] [--allowed-origin URL ...]
    python -m voicecoach.pipelines.server ...          (the same)

One FastAPI app on localhost serves:

- `GET /` — the in-game overlay (`pipelines/overlay/`, a committed static bundle);
- `WS /ws?session=ID[&token=T]` — a coach session, in Pipecat's conventions so that the official
  Pipecat JS client (`@pipecat-ai/client-js` + `@pipecat-ai/websocket-transport`) connects
  as it is: Pipecat protobuf frames (audio both ways, JSON messages) and RTVI messages on
  top (`voicecoach/coach/protocol.py` and docs/PROTOCOL.md have every message);
- `GET /api/example-state` — the pack's example snapshot (what the overlay plays with).

Each connection runs its own voice pipeline (`pipelines/speech/voice.py`) in a `PipelineWorker`
with Pipecat's RTVI processor and observer, over a `FastAPIWebsocketTransport`; the engines
are the process's: the LLM (embedded llama.cpp by default) and the speech models (Silero,
Whisper, Piper: `SpeechEngines`) load and warm once, at start, and every session shares them,
STT and TTS each behind a bounded executor. `/healthz` (and `/api/health`) says ready once they
are loaded and warm; until then connections are refused (1013, "try again later").

The session id resumes the session's SQLite-stored state and W3 history. A second connection
to a session that is live *takes it over*: the older one is closed (4409) and its pipeline
stopped before the new one opens the session, so two pipelines never write one session. A game
that reconnects after a crash or a network change therefore gets its session back at once,
instead of being locked out until the server notices that the old socket is dead; the token is
what keeps strangers out.

Nothing slow runs on the event loop, which every session shares: coach requests (RTVI
client-message) are taken from the serializer to the connection's request queue and answered
outside the pipeline, state validation, storage and the state's JSON in a thread.

Access: every connection needs the server's token (`--token`, or one generated and printed
at start), as `?token=` (what the JS transport sends) or `Authorization: Bearer`; browser
pages must come from an allowed origin (the server's own by default); messages are limited in
size. A refused connection is accepted and closed at once with a close code and a reason
(`protocol.CloseCode`), so every client can tell the user why.

Why one module of ~1,250 lines: one connection's parts are each other's callbacks: `Connection`
builds the guarded serializer (its `report`, `on_request`, `on_disconnect` are the connection's),
the `CoachEvents` observer (its `send`) and the pipeline, and `CoachServer` holds the connections,
takeovers and engines. The seam: `CoachEvents` with the frame-to-event builders (~200 lines).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import hmac
import json
import os
import re
import secrets
import signal
import socket
import sys
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pipecat.frames.protobufs.frames_pb2 as frame_protos
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
    OutputTransportMessageUrgentFrame,
    TranscriptionFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.processors.frameworks.rtvi import RTVIProcessor
from pipecat.processors.frameworks.rtvi.frames import RTVISendTextFrame
from pipecat.processors.frameworks.rtvi.models import Message as RTVIMessageModel
from pipecat.serializers.protobuf import ProtobufFrameSerializer
from pipecat.transports.websocket.fastapi import FastAPIWebsocketParams, FastAPIWebsocketTransport
from pipecat.utils.time import time_now_iso8601
from pipecat.workers.runner import WorkerRunner
from pydantic import BaseModel, ValidationError
from starlette.websockets import WebSocketState

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
    TypedTranscriptionFrame,
)
from voicecoach.coach import protocol
from voicecoach.coach.config import (
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_PORT,
    add_serve_arguments,
    coach_config,
    speech_config,
)
from voicecoach.coach.engines import Engines, describe_llm, load_coach_pack, prewarm
from voicecoach.coach.protocol import CloseCode, ErrorCode
from voicecoach.coach.session import ORPHANED, CoachConfig, Session
from voicecoach.coach.speech_config import SpeechConfig
from voicecoach.coach.store import (
    LEASE_RENEW_S,
    Lease,
    SessionStore,
    StoreError,
    TurnRecord,
    open_store,
)
from voicecoach.coach.tokens import SIGNING_KEY_ENV, TokenError, check_key, looks_signed, verify
from voicecoach.core import latency
from voicecoach.core.console import DefaultsHelpFormatter, Startup, report_console
from voicecoach.core.latency import Milestone
from voicecoach.core.state import StateError
from voicecoach.domain.pack import Pack, PackError, example_state_path, load_pack
from voicecoach.llm.client import LLMError
from voicecoach.pipelines.rtvi import CoachRTVIProcessor, close_notice
from voicecoach.pipelines.speech.voice import (
    SpeechEngines,
    narration_texts,
    pipeline_params,
    voice_pipeline,
)
from voicecoach.pipelines.timeline import TimelineObserver

OVERLAY_DIR = Path(__file__).resolve().parent / "overlay"
SESSION_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
# The window of the flood limit (SessionLimits.max_bad_messages).
BAD_WINDOW_S = 10.0
# On SIGTERM / SIGINT, how long the sessions have to close before the server exits anyway.
SHUTDOWN_TIMEOUT_S = 10.0
# Push-to-talk release: the silence fed to the VAD goes in frames of this length.
PTT_SILENCE_FRAME_S = 0.02
# A browser may present its token as a websocket subprotocol, `voicecoach.token.<token>`, next to
# `voicecoach` (the one the server accepts, so the token is not echoed back): a header proxies do
# not log, where a `?token=` query is in every access log line.
SUBPROTOCOL = "voicecoach"
TOKEN_SUBPROTOCOL_PREFIX = "voicecoach.token."
# With --retain-days on SQLite: how often idle sessions are purged.
PURGE_EVERY_S = 3600.0
# Why a connection that ends mid-turn stores that turn as cut (TurnRecord.failure).
CUT_DISCONNECTED = "closed: the connection ended before the turn did"
CUT_TAKEN_OVER = "closed: a newer connection took the session over before the turn ended"
CUT_SHUTDOWN = "closed: the server shut down before the turn ended"
LOST_REASON = "session taken over by a newer connection on another worker"


@dataclass
class SessionLimits:
    """How many sessions, and how long the server waits on a client (0 turns a timeout off)."""

    # Past it, a new connection is refused (1013). On 2 cores, more sessions speaking at once
    # would all answer slowly rather than some answering well.
    max_sessions: int = 16
    handshake_timeout_s: float = 10.0  # accept -> the client's RTVI client-ready (else 4408)
    # A connection that has not said client-ready this long after it was let in no longer counts
    # against max_sessions (it is still closed at handshake_timeout_s): sockets that hold a token
    # and never speak cannot lock the server.
    handshake_grace_s: float = 2.0
    # TCP connect -> the whole HTTP request (the websocket upgrade's headers), else the socket is
    # dropped: half-sent headers hold nothing for long (uvicorn itself waits forever).
    header_timeout_s: float = 10.0
    # No message from the client for this long (audio included): closed (4410). A game with an
    # open microphone sends audio all the time; a push-to-talk one may be silent for minutes.
    idle_timeout_s: float = 900.0
    takeover_timeout_s: float = 10.0  # for the older connection of a session to close (else 1013)
    max_bad_messages: int = 50  # answered in BAD_WINDOW_S; past it the client is closed (1008)


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    # The static token: any session opens with it (the local single-player overlay). None: only
    # signed tokens (`signing_key`) open sessions, each its own.
    token: str | None = field(default_factory=lambda: secrets.token_urlsafe(18))
    signing_key: str | None = None  # VOICECOACH_SIGNING_KEY: verifies per-session tokens (coach/tokens.py)
    retain_days: float | None = None  # sessions idle this long are forgotten (--retain-days)
    allowed_origins: list[str] = field(default_factory=list)  # besides the server's own; "*" allows any
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    coach: CoachConfig = field(default_factory=CoachConfig)
    speech: SpeechConfig = field(default_factory=SpeechConfig)
    warm: bool = True  # at start, prewarm the LLM roles' static prefixes (once per process)
    # Transcriptions at once, each on stt.cpu_threads threads: two on one thread each, so a decode
    # of one player's question does not wait for another's (docs/BENCHMARKS.md, "Load").
    stt_workers: int = 2
    limits: SessionLimits = field(default_factory=SessionLimits)

    def origins(self) -> set[str]:
        own = {f"http://{host}:{self.port}" for host in (self.host, "127.0.0.1", "localhost", "[::1]")}
        return {o.rstrip("/").lower() for o in (*own, *self.allowed_origins)}


# --- the wire: Pipecat protobuf frames, checked -------------------------------------------------

Report = Callable[[ErrorCode, str, str | None], Awaitable[None]]  # code, message, the request's id


class GuardedSerializer(ProtobufFrameSerializer):
    """Pipecat's protobuf serializer, answering every message it cannot take.

    The stock serializer raises on bytes that are not protobuf, and a frame's own constructor
    can raise too (an audio frame with 0 channels divides by zero): either ends the transport's
    receive loop, and so the session. It also logs and drops JSON it cannot parse, and hands
    on JSON that is not an RTVI object, which the RTVI processor ignores. Here every message
    that cannot be taken, whatever it raises, is dropped and the client told why (`report`,
    which also counts it for the flood limit), and the connection goes on. On top: a size
    limit, JSON depth bounded before parsing, audio checks (the pipeline listens at 16 kHz
    mono 16-bit and does not resample), and text websocket messages taken as RTVI JSON (for
    raw clients).
    """

    def __init__(self, max_message_bytes: int, input_sample_rate: int):
        super().__init__()
        self._max = max_message_bytes
        self._rate = input_sample_rate
        self.report: Report | None = None
        self.on_disconnect: Callable[[], None] | None = None  # the client sent disconnect-bot
        # Coach requests (RTVI client-message) go here, not into the pipeline (see _rtvi_message).
        self.on_request: Callable[[RTVIMessageModel], Awaitable[None]] | None = None
        self.last_message = time.monotonic()  # for the idle timeout: any message counts

    async def _refuse(self, code: ErrorCode, message: str, request_id: str | None = None) -> None:
        if self.report is not None:
            await self.report(code, message, request_id)

    async def serialize(self, frame: Frame) -> str | bytes | None:
        # Pipecat's JS transport does not know the protobuf interruption frame (it logs an
        # error for each); its clients learn of a barge-in from RTVI's user-started-speaking,
        # and flush their player on it.
        if isinstance(frame, InterruptionFrame):
            return None
        if isinstance(frame, CoachMessageFrame) and frame.text is not None:
            proto = frame_protos.Frame()  # type: ignore[attr-defined]
            proto.message.data = frame.text
            return bytes(proto.SerializeToString())
        return await super().serialize(frame)

    async def deserialize(self, data: str | bytes) -> Frame | None:
        self.last_message = time.monotonic()
        try:
            return await self._deserialize(data)
        except protocol.ProtocolError as err:
            await self._refuse(err.code, err.message, err.request_id)
        except Exception as err:  # whatever else a frame raises must not end the receive loop
            logger.warning(f"a client frame raised {type(err).__name__}: {err}")
            await self._refuse("bad-frame", f"the frame could not be read ({_cause(err)})")
        return None

    async def _deserialize(self, data: str | bytes) -> Frame | None:
        size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
        if size > self._max:
            # Answered with the request's id when its envelope has one: a client waiting on it
            # learns at once that it was dropped.
            raise protocol.ProtocolError(
                "too-large",
                f"a message of {size} bytes is over the limit of {self._max}",
                protocol.envelope_id(data),
            )
        if isinstance(data, str):
            return await self._rtvi_message(data)
        try:
            proto = frame_protos.Frame.FromString(data)  # type: ignore[attr-defined]
        except (DecodeError, ValueError, TypeError, UnicodeDecodeError) as err:
            raise protocol.ProtocolError(
                "bad-frame", f"not a Pipecat protobuf frame ({_cause(err)})"
            ) from None
        which = proto.WhichOneof("frame")
        if which == "message":
            return await self._rtvi_message(proto.message.data)
        if which == "audio":
            problem = _audio_problem(proto.audio, self._rate)
            if problem:
                raise protocol.ProtocolError("bad-audio", problem)
            try:
                return await super().deserialize(data)
            except Exception as err:
                raise protocol.ProtocolError(
                    "bad-audio", f"the audio frame could not be read ({_cause(err)})"
                ) from None
        if which is None:
            raise protocol.ProtocolError(
                "bad-frame", "a protobuf frame with no known payload (expected audio or message)"
            )
        # Text and transcription frames would let a client put words in the coach's mouth or
        # bypass the turn path; typed input is RTVI send-text.
        raise protocol.ProtocolError(
            "bad-frame", f"clients may not send {which} frames (only audio and messages)"
        )

    async def _rtvi_message(self, text: str) -> Frame | None:
        """A JSON message as RTVI's processor takes it; ProtocolError if it is not an RTVI message."""
        try:
            message = protocol.load_message(text)
        except protocol.ProtocolError as err:  # not JSON: its id, if its envelope shows one
            err.request_id = protocol.envelope_id(text)
            raise
        request_id = message.get("id") if isinstance(message.get("id"), str) else None
        if message.get("label") != protocol.RTVI_LABEL:
            raise protocol.ProtocolError(
                "bad-message", f"not an RTVI message (its label must be {protocol.RTVI_LABEL!r})", request_id
            )
        try:
            envelope = RTVIMessageModel.model_validate(message)
        except ValidationError as err:
            raise protocol.ProtocolError(
                "bad-message", f"not an RTVI message ({protocol.describe(err)})", request_id
            ) from None
        _refuse_surrogates(message, text, request_id)
        if envelope.type == "disconnect-bot" and self.on_disconnect is not None:
            self.on_disconnect()
        if envelope.type == "client-message" and self.on_request is not None:
            # Handed to the connection, not pushed as a frame: the requests are answered
            # outside the pipeline anyway, and a frame carrying a large state update would be
            # formatted into a trace line at every processor it passes (CoachMessageFrame).
            await self.on_request(envelope)
            return None
        return InputTransportMessageFrame(message=message)


def _refuse_surrogates(message: dict[str, Any], text: str | bytes, request_id: str | None) -> None:
    """ProtocolError naming the field if a string of `message` is not valid UTF-8 (a lone
    surrogate): no store could save it, and it would break every later read of the state."""
    path = protocol.lone_surrogate(message, text)
    if path is None:
        return
    problem = "not valid UTF-8 (a lone surrogate)"
    data = message.get("data")
    for part in ("snapshot", "patch"):
        prefix = f"data.d.{part}."
        if path.startswith(prefix) and isinstance(data, dict) and data.get("t") == "state-update":
            field_path = path.removeprefix(prefix)
            raise protocol.ProtocolError(
                "bad-state", f"{field_path}: {problem}; the previous state is kept", request_id
            )
    raise protocol.ProtocolError("bad-frame", f"{path}: {problem}", request_id)


def _cause(err: BaseException) -> str:
    text = str(err)
    return f"{type(err).__name__}: {text[:200]}" if text else type(err).__name__


def _audio_problem(audio: Any, rate: int) -> str | None:
    """What is wrong with a protobuf audio frame's parameters, checked before Pipecat's frame is built."""
    if audio.sample_rate != rate:
        return f"audio must be {rate} Hz (got {audio.sample_rate})"
    if audio.num_channels != 1:
        return f"audio must be mono (got {audio.num_channels} channels)"
    if not audio.audio or len(audio.audio) % 2:
        return f"audio must be whole 16-bit samples (got {len(audio.audio)} bytes)"
    return None


class ReasonedWebSocket:
    """The connection's websocket as Pipecat's transport sees it, whose close carries a reason.

    When a pipeline ends, Pipecat's transport closes the socket with 1000 and no reason; a
    client must always be able to tell why its session ended (docs/PROTOCOL.md). Everything
    else is the websocket's own.
    """

    def __init__(self, websocket: WebSocket, reason: str = "the session ended"):
        self._websocket = websocket
        self.reason = reason

    def __getattr__(self, name: str) -> Any:
        return getattr(self._websocket, name)

    async def close(self, code: int = CloseCode.NORMAL, reason: str | None = None) -> None:
        await self._websocket.close(code=code, reason=reason or self.reason)


@dataclass
class CoachMessageFrame(OutputTransportMessageUrgentFrame):
    """An RTVI message of the coach's own (a response, an event) on its way to the client.

    Pipecat formats every frame it passes between processors into a trace log line, whether
    or not that level is logged; the stock message frame prints its whole message, which for a
    state of 5,000 creatures took ~25 ms per hop, ~500 ms through the pipeline, on the loop.
    `text`, when given, is the message's JSON encoded already (off the loop): `message` then
    holds only its envelope (label, type, id), for the log line.
    """

    text: str | None = None

    def __str__(self) -> str:
        m = self.message if isinstance(self.message, dict) else {}
        return f"{self.name}(message: {m.get('type')} {m.get('id', '')})"


def rtvi_json(envelope: dict[str, Any], data_json: str) -> str:
    """The JSON of an RTVI `envelope` with `"data": <data_json>` added (JSON encoded already)."""
    return f'{json.dumps(envelope)[:-1]}, "data": {data_json}}}'


# --- typed questions ---------------------------------------------------------------------------


class TypedInput(FrameProcessor):
    """RTVI `send-text` (typed input) becomes the player's utterance, as if STT had heard it.

    Sits right after the STT (`listening_processors`). The transcript then takes the path a
    spoken one takes; outside a user turn the turn gate lets it through at once.
    """

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, RTVISendTextFrame) and frame.text.strip():
            await self.push_frame(frame, direction)
            await self.push_frame(
                TypedTranscriptionFrame(
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

    def __init__(self, send: Send, vad_stop_s: float, session: Session | None = None):
        super().__init__()
        self._send = send
        self._session = session
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
            await self._index_stored(frame.turn_index)
        event = _EVENTS[milestone](frame)
        if event is not None:
            await self._send(event)
        if milestone is Milestone.TURN_COMPLETED:
            await self._maybe_report(frame.turn_index)

    async def _index_stored(self, turn: int) -> None:
        """Wait until the store holds the turn's index (`Session.index_stored`); instant unless
        the store is down. Events queue behind it in order; the pipeline does not wait."""
        taken = self._session.index_stored(turn) if self._session is not None else None
        if taken is None:
            return
        try:
            await asyncio.wrap_future(taken)
        except Exception:  # the session logged it; the reply was made, so the client is told
            pass

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
        transcript=frame.transcript, repaired=list(frame.repaired),
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


# Past this many owned creatures, dumping a state is worth a thread (~4 µs a creature).
LARGE_INVENTORY = 250


def _large(session: Session) -> bool:
    inventory = session.state.fs.inventory
    return inventory is not None and len(inventory.owned) > LARGE_INVENTORY


def pack_info(pack: Pack) -> protocol.PackInfo:
    """The session event's catalog: the pack's units (its schema's unit kind) with their categorical
    attributes, sorted by name. A pack in the inventory state profile (pet_arena) sends them in the
    profile's own wire format, `creatures` with their element and role, as its clients read them."""
    schema = pack.catalog.schema
    kind = schema.kind("unit") or ""
    if schema.state == "classic":
        creatures = [
            protocol.CreatureInfo(
                id=e.id, name=e.display, element=str(e.value("element")), role=str(e.value("role"))
            )
            for e in sorted(pack.catalog.entities.get(kind, {}).values(), key=lambda e: e.display)
        ]
        return protocol.PackInfo(id=pack.pack_id, version=pack.version, creatures=creatures)
    categorical = [a for a, spec in schema.kinds[kind].attributes.items() if not spec.numeric]
    units = [
        protocol.UnitInfo(
            id=e.id,
            name=e.display,
            attributes={a: v for a in categorical if isinstance(v := e.value(a), str)},
        )
        for e in sorted(pack.catalog.entities.get(kind, {}).values(), key=lambda e: e.display)
    ]
    kinds = {
        k: protocol.KindInfo(plural=schema.plural(k), names={e.id: e.display for e in entities.values()})
        for k, entities in pack.catalog.entities.items()
    }
    return protocol.PackInfo(
        id=pack.pack_id, version=pack.version, creatures=[], unit_kind=kind, units=units, kinds=kinds
    )


class Connection:
    """One websocket's coach session: its pipeline, its RTVI requests, its events."""

    def __init__(self, server: CoachServer, websocket: WebSocket, session_id: str, took_over: bool):
        self.server = server
        self.websocket = websocket
        self.session_id = session_id
        self.took_over = took_over
        self.session: Session | None = None
        # The turn events sent, for tests and debugging (not the state and session events: each
        # holds a whole state, and kept they would hold every state a game ever pushed).
        self.sent: deque[BaseModel] = deque(maxlen=1000)
        self.finished = asyncio.Event()
        self._worker: PipelineWorker | None = None
        self._transport: FastAPIWebsocketTransport | None = None
        self._serializer: GuardedSerializer | None = None
        self._bad: deque[float] = deque()
        self._closing = False
        self._client_ready = asyncio.Event()
        self._socket = ReasonedWebSocket(websocket)
        # Coach requests in arrival order; a full queue holds the client's receive loop back.
        self._requests: asyncio.Queue[RTVIMessageModel] = asyncio.Queue(maxsize=8)
        self._closer: asyncio.Task[None] | None = None
        self.on_ready: Callable[[], object] | None = None  # the client said client-ready
        self.lease: Lease | None = None
        self._cut_reason = CUT_DISCONNECTED  # how a turn in flight is stored if the connection ends

    def _open_session(self, loop: asyncio.AbstractEventLoop) -> tuple[bool, Session]:
        """Own the session (its lease: any older owner, on any worker, can write it no more),
        then read it: nothing an older owner writes can land after these reads."""
        store = self.server.store
        self.lease = lease = store.acquire(self.session_id)
        # A live lease held elsewhere: a takeover across workers, said as one inside this process.
        self.took_over = self.took_over or lease.took_over
        resumed = store.load_state(self.session_id) is not None or store.next_turn_index(self.session_id) > 0
        session = Session.open(self.session_id, store=store, pack=self.server.pack, lease=lease)
        session.on_lost = lambda: loop.call_soon_threadsafe(self._lost)
        return resumed, session

    def _lost(self) -> None:
        """The store refused a write or a renewal: another connection owns the session now."""
        if not self._closing:
            logger.info(f"session {self.session_id}: {LOST_REASON}")
            self._cut_reason = CUT_TAKEN_OVER
            self._close_soon(CloseCode.TAKEN_OVER, LOST_REASON)

    async def _keep_lease(self) -> None:
        """Renew the lease while the connection lives; close it (4409) once another owner has it.
        A store that does not answer is no loss: the lease is renewed once it answers again."""
        while self.lease is not None:
            await asyncio.sleep(LEASE_RENEW_S)
            try:
                kept = await asyncio.to_thread(self.server.store.renew, self.lease)
            except StoreError as err:
                logger.warning(f"session {self.session_id}: lease not renewed ({err.code}): {err}")
                continue
            if not kept:
                self._lost()
                return

    def _end_session(self) -> None:
        """The connection is over (its pipeline stopped): store its turns in flight as cut, let
        the session's writes land, end the lease (a reconnect then is no takeover)."""
        session, lease = self.session, self.lease
        if session is None:
            return
        session.finish_turns(self._cut_reason)
        session.close()
        if lease is not None:
            try:
                self.server.store.release(lease)
            except StoreError as err:  # it expires by itself
                logger.warning(f"session {self.session_id}: lease not released ({err.code}): {err}")

    # Built off the event loop: small with the models shared, but it reads the voice's config.
    def _build(self, session: Session) -> tuple[FastAPIWebsocketTransport, Pipeline]:
        config = self.server.config
        self._serializer = GuardedSerializer(config.max_message_bytes, config.speech.input_sample_rate)
        params = FastAPIWebsocketParams(
            audio_in_enabled=True,
            audio_out_enabled=True,
            audio_in_sample_rate=config.speech.input_sample_rate,
            audio_out_sample_rate=protocol.OUTPUT_SAMPLE_RATE,
            # The reply's audio in 100 ms frames, not Pipecat's 40 ms: each frame is a websocket
            # send and a pass through the observers on the one event loop every session shares.
            audio_out_10ms_chunks=protocol.OUTPUT_FRAME_MS // 10,
            add_wav_header=False,
            serializer=self._serializer,
            allowed_origins=[],  # checked before the connection was accepted
        )
        self._serializer.on_disconnect = self._on_disconnect_bot
        self._serializer.on_request = self._requests.put
        transport = FastAPIWebsocketTransport(self._socket, params)  # type: ignore[arg-type]
        pipeline = voice_pipeline(
            transport.input(), transport.output(), session, self.server.engines, config.coach, config.speech,
            speech_engines=self.server.speech_engines, typed=TypedInput(),
        )  # fmt: skip
        return transport, pipeline

    async def run(self) -> None:
        server = self.server
        try:
            loop = asyncio.get_running_loop()
            resumed, session = await asyncio.to_thread(self._open_session, loop)  # the stores are sync
            self.session = session
            transport, pipeline = await asyncio.to_thread(self._build, session)
            self._transport = transport
            assert self._serializer is not None
            self._serializer.report = self._report
            events = CoachEvents(self._send_event, server.config.speech.vad.stop_secs, session)
            worker = PipelineWorker(
                pipeline,
                params=pipeline_params(server.config.speech),
                observers=[events],
                idle_timeout_secs=None,  # a player may think for minutes; the socket's end ends it
                enable_rtvi=True,
                # Its observer reports the frames as the official web client expects (pipelines/rtvi.py).
                rtvi_processor=CoachRTVIProcessor(),
                # Pipecat's turn tracking feeds its tracing, which we do not run; as an observer it
                # is told of every frame every processor handles, on the loop all sessions share.
                enable_turn_tracking=False,
            )
            self._worker = worker
            self._wire(worker.rtvi, transport, resumed)
            if self._closing:
                return
            runner = WorkerRunner(handle_sigint=False)
            await runner.add_workers(worker)
            helpers = [
                asyncio.create_task(self._watch_timeouts(), name=f"watchdog-{self.session_id}"),
                asyncio.create_task(self._serve_requests(), name=f"requests-{self.session_id}"),
                asyncio.create_task(self._keep_lease(), name=f"lease-{self.session_id}"),
            ]
            try:
                await runner.run()
            finally:
                for task in helpers:
                    task.cancel()
        except StoreError as err:  # the store is down: the player may retry (health says 503 meanwhile)
            logger.warning(f"session {self.session_id}: cannot open ({err.code}): {err}")
            await self._close_socket(
                CloseCode.TRY_AGAIN_LATER, "the session store is unreachable; retry in a few seconds"
            )
        except Exception as err:  # a session that cannot start must not take the server down
            logger.exception(f"session {self.session_id}: {err}")
            await self._close_socket(CloseCode.GOING_AWAY, "the coach could not start this session")
        finally:
            # The session stored each state update and each turn as it happened; left to store:
            # the turns in flight, as cut.
            try:
                await asyncio.shield(asyncio.to_thread(self._end_session))
            except Exception as err:
                logger.exception(f"session {self.session_id}: ending: {err}")
            self.finished.set()

    def _wire(self, rtvi: RTVIProcessor, transport: FastAPIWebsocketTransport, resumed: bool) -> None:
        @rtvi.event_handler("on_client_ready")
        async def on_client_ready(rtvi: RTVIProcessor) -> None:
            # Registered after the worker's own handler, which answers bot-ready first.
            assert self.session is not None
            self._client_ready.set()
            if self.on_ready is not None:
                self.on_ready()
            event, event_json = await asyncio.to_thread(
                self._session_event, resumed
            )  # the state may be large
            await self._send_event(event, event_json)
            for cut in self.session.orphaned:  # stored as cut by this connection's open
                failed = protocol.TurnFailedEvent(
                    turn_index=cut.turn_index, t_ms=0.0, failed="closed", reason=ORPHANED, heard=""
                )  # fmt: skip
                await self._send_event(failed)

        @transport.event_handler("on_client_disconnected")
        async def on_client_disconnected(transport: Any, websocket: Any) -> None:
            logger.info(f"session {self.session_id}: client gone")
            await self.stop()

    def _on_disconnect_bot(self) -> None:
        self._socket.reason = "the client ended the session (disconnect-bot)"

    async def _watch_timeouts(self) -> None:
        """Close a client that never says client-ready, or that has gone quiet for too long."""
        limits = self.server.config.limits
        if limits.handshake_timeout_s > 0:
            try:
                await asyncio.wait_for(self._client_ready.wait(), limits.handshake_timeout_s)
            except TimeoutError:
                reason = f"no RTVI client-ready within {limits.handshake_timeout_s:g} s of connecting"
                logger.info(f"session {self.session_id}: {reason}")
                self._close_soon(CloseCode.HANDSHAKE_TIMEOUT, reason)
                return
        if limits.idle_timeout_s <= 0 or self._serializer is None:
            return
        while True:
            quiet = time.monotonic() - self._serializer.last_message
            if quiet >= limits.idle_timeout_s:
                reason = f"no message from the client for {limits.idle_timeout_s:g} s"
                logger.info(f"session {self.session_id}: {reason}")
                self._close_soon(CloseCode.IDLE, reason)
                return
            await asyncio.sleep(limits.idle_timeout_s - quiet + 0.01)

    def _session_event(self, resumed: bool) -> tuple[protocol.SessionEvent, str]:
        assert self.session is not None
        config = self.server.config
        event = protocol.SessionEvent(
            session_id=self.session_id,
            resumed=resumed,
            turns=self.session.next_turn,
            took_over=self.took_over,
            fence=self.lease.fence if self.lease is not None else None,
            state=state_info(self.session),
            pack=pack_info(self.session.pack),
            audio=protocol.AudioInfo(input_sample_rate=config.speech.input_sample_rate),
            max_message_bytes=config.max_message_bytes,
        )
        return event, event.model_dump_json()

    def _update_state(self, request: protocol.StateUpdate) -> tuple[protocol.StateEvent, str]:
        """Apply a state update (raises StateError): the event that announces it, and the new
        state's JSON (encoded here, in the thread: ~5 ms in Rust for 5,000 creatures)."""
        assert self.session is not None
        self.session.update_state(request.snapshot, request.patch)
        info = state_info(self.session)
        return protocol.StateEvent(state=info), info.model_dump_json()

    async def _serve_requests(self) -> None:
        while True:
            message = await self._requests.get()
            try:
                await self._on_request(message)
            except Exception as err:  # a request that fails must not end the session
                logger.exception(f"session {self.session_id}: request {message.id}: {err}")
                await self._error_response(message.id, f"the coach could not handle it ({_cause(err)})")

    async def _on_request(self, message: RTVIMessageModel) -> None:
        """One coach request (RTVI client-message `{t, d}`), answered with the same id."""
        session = self.session
        assert session is not None
        data = message.data or {}
        t = data.get("t")
        try:
            if not isinstance(t, str):
                raise protocol.ProtocolError("bad-message", "a client-message's data needs a string 't'")
            request = protocol.parse_request(t, data.get("d"))
        except protocol.ProtocolError as err:
            await self._count_bad()
            await self._error_response(message.id, err.text)
            return
        if isinstance(request, protocol.StateUpdate):
            # Applied here, not as a frame through the pipeline: the game gets its answer at
            # once, and an update sent just before the player speaks cannot queue behind the
            # audio the STT is still working on. The turn reads the session's state when it
            # starts, so the next turn sees it either way.
            # Validating, storing and dumping a large snapshot takes tens of ms: in a thread,
            # so other sessions' frames keep moving (the session's lock keeps it consistent).
            try:
                event, state_json = await asyncio.to_thread(self._update_state, request)
            except StateError as err:
                await self._error_response(message.id, protocol.error_text("bad-state", str(err)))
                return
            except StoreError as err:  # nothing applied: the session keeps its stored state
                logger.warning(f"session {self.session_id}: state update not stored ({err.code}): {err}")
                await self._error_response(
                    message.id,
                    protocol.error_text(
                        "store-unavailable",
                        "the session store did not take the update; the previous state is kept, retry",
                    ),
                )
                return
            await self._response(message.id, t, state_json)
            await self._send_event(event, f'{{"type": "state", "state": {state_json}}}')
        elif isinstance(request, protocol.GetState):

            def encode() -> str:
                return state_info(session).model_dump_json()

            # A large state's JSON takes ms, in a thread; a small one's less than the handoff.
            await self._response(
                message.id, t, await asyncio.to_thread(encode) if _large(session) else encode()
            )
        elif isinstance(request, protocol.PushToTalk):
            if not request.talking:
                await self._end_of_speech()
            await self._response(message.id, t, '{"ok": true}')

    async def _response(self, msg_id: str, t: str, d_json: str) -> None:
        """RTVI server-response `{t, d}` to request `msg_id`; `d_json` is `d` as JSON already."""
        envelope = {"label": protocol.RTVI_LABEL, "type": "server-response", "id": msg_id}
        await self._push_message(envelope, rtvi_json(envelope, f'{{"t": {json.dumps(t)}, "d": {d_json}}}'))

    async def _error_response(self, msg_id: str, text: str) -> None:
        await self._push_message(
            {"label": protocol.RTVI_LABEL, "type": "error-response", "id": msg_id, "data": {"error": text}}
        )

    async def _push_message(self, message: dict[str, Any], text: str | None = None) -> None:
        """To the client, from the RTVI processor as its own messages go: in order with them
        (bot-ready before the session event). `text`: `message` as JSON, encoded already."""
        if self._worker is not None and not self._closing:
            await self._worker.rtvi.push_frame(CoachMessageFrame(message=message, text=text))

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

    async def _send_event(self, event: BaseModel, event_json: str | None = None) -> None:
        """Send `event` as an RTVI server-message (`event_json`: its JSON, encoded off the loop
        for a large one)."""
        if not isinstance(event, protocol.StateEvent | protocol.SessionEvent):
            self.sent.append(event)
        envelope = {"label": protocol.RTVI_LABEL, "type": "server-message"}
        if event_json is None:
            await self._push_message({**envelope, "data": event.model_dump(mode="json")})
        else:
            await self._push_message(envelope, rtvi_json(envelope, event_json))

    async def _report(self, code: ErrorCode, message: str, request_id: str | None = None) -> None:
        """A message the server could not take: tell the client (an error-response to its id if it
        had one, else an RTVI error), and give up on a flood."""
        await self._count_bad()
        if request_id is not None:
            await self._error_response(request_id, protocol.error_text(code, message))
        elif self._worker is not None and not self._closing:
            await self._worker.rtvi.send_error(protocol.error_text(code, message))

    async def _count_bad(self) -> None:
        now = time.monotonic()
        self._bad.append(now)
        while self._bad and self._bad[0] < now - BAD_WINDOW_S:
            self._bad.popleft()
        limit = self.server.config.limits.max_bad_messages
        if len(self._bad) > limit:
            logger.warning(f"session {self.session_id}: too many invalid messages, closing")
            self._close_soon(CloseCode.POLICY, f"more than {limit} invalid messages in {BAD_WINDOW_S:g} s")

    def _close_soon(self, code: int, reason: str) -> None:
        """Close from inside the session's own tasks (which the close cancels): in a task of its own."""
        if self._closer is None:
            self._closer = asyncio.get_running_loop().create_task(self.close(code, reason))

    async def _close_socket(self, code: int, reason: str) -> None:
        ws = self.websocket
        if ws.application_state == WebSocketState.CONNECTED and ws.client_state == WebSocketState.CONNECTED:
            try:
                await close_with_notice(ws, code, reason)
            except RuntimeError as err:  # closed under us
                logger.debug(f"session {self.session_id}: close: {err}")

    async def close(self, code: int, reason: str) -> None:
        """Close the websocket with `code`/`reason`, stop the pipeline, wait until it is down.

        A turn in flight is cut: the client is told (turn-failed, `closed`) before the close, and
        it is stored so once the pipeline is down (`_end_session`)."""
        if code == CloseCode.TAKEN_OVER:
            self._cut_reason = CUT_TAKEN_OVER
        elif code == CloseCode.GOING_AWAY:
            self._cut_reason = CUT_SHUTDOWN
        if not self._closing:
            await self._tell_cut()
        self._closing = True
        await self._close_socket(code, reason)
        await self.stop()
        await self.finished.wait()

    async def _tell_cut(self) -> None:
        """Send turn-failed for each turn in flight, straight on the socket (the pipeline is
        about to stop, and the close to follow)."""
        session, serializer = self.session, self._serializer
        if session is None or serializer is None:
            return
        envelope = {"label": protocol.RTVI_LABEL, "type": "server-message"}
        for index in sorted(session.pending):
            turn = session.turn(index)
            event = protocol.TurnFailedEvent(
                turn_index=index, t_ms=turn.ms() if turn else 0.0, failed="closed",
                reason=self._cut_reason, heard=session.heard.get(index, ""),
            )  # fmt: skip
            self.sent.append(event)
            frame = CoachMessageFrame(message=envelope, text=rtvi_json(envelope, event.model_dump_json()))
            try:
                data = await serializer.serialize(frame)
                if data is not None and self.websocket.client_state == WebSocketState.CONNECTED:
                    await self.websocket.send_bytes(data if isinstance(data, bytes) else data.encode())
            except Exception as err:  # the socket went meanwhile: the turn is still stored as cut
                logger.debug(f"session {self.session_id}: turn-failed not sent: {err}")

    async def stop(self) -> None:
        self._closing = True
        if self._worker is not None and not self._worker.has_finished():
            await self._worker.cancel(reason="connection closed")


# --- the server --------------------------------------------------------------------------------


@dataclass
class _TakeoverLock:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0  # holding it or waiting for it


async def close_with_notice(websocket: WebSocket, code: int, reason: str) -> None:
    """Close with `code` and `reason`, an RTVI `error` saying both sent just before: Pipecat's JS
    transport hands its callbacks the close code only. A normal close (1000) needs no notice."""
    if code != CloseCode.NORMAL:
        try:
            await websocket.send_bytes(close_notice(code, reason))
        except Exception as err:  # the peer is gone: the close below says the rest, if it can
            logger.debug(f"close notice not sent: {err}")
    await websocket.close(code=code, reason=reason)


def presented_token(websocket: WebSocket) -> str | None:
    """The token a client presents: `?token=` (an empty one is none), `Authorization: Bearer`, or
    a `voicecoach.token.<token>` subprotocol (the ways a proxy does not log)."""
    token = websocket.query_params.get("token")
    auth = websocket.headers.get("authorization", "")
    if not token and auth.lower().startswith("bearer "):
        token = auth[7:].strip()
    if not token:
        for offered in websocket.scope.get("subprotocols") or []:
            if offered.startswith(TOKEN_SUBPROTOCOL_PREFIX):
                token = offered.removeprefix(TOKEN_SUBPROTOCOL_PREFIX)
                break
    return token or None


class CoachServer:
    """Connections, their sessions and the access rules; `app()` is the FastAPI app."""

    def __init__(self, config: ServerConfig, engines: Engines, store: SessionStore, pack: Pack | None = None):
        self.config = config
        self.engines = engines
        self.store = store
        self.pack = pack or load_pack(config.coach.pack_id)
        self.connections: dict[str, Connection] = {}
        self._admitted = 0  # connections past the access checks and the cap, until they end
        # Admitted connections that have not said client-ready yet: ticket -> when let in.
        self._waiting: dict[object, float] = {}
        self._takeovers: dict[str, _TakeoverLock] = {}  # only sessions with a takeover in progress
        self.speech_engines: SpeechEngines | None = None
        self.ready = False  # the engines are loaded and warm: sessions may open
        self.stopping = False
        self.loop_lag = latency.LoopLag()
        self._lag_task: asyncio.Task[None] | None = None
        self._purge_task: asyncio.Task[None] | None = None

    async def start(self, startup: Startup | None = None) -> None:
        """Load and warm the engines every session shares; then the server is ready.

        Off the event loop (seconds of CPU), so `/healthz` answers meanwhile. The LLM prewarm
        (paper A.5) runs once here, not per connection: a first turn never waits behind it.
        `startup` prints each step as it loads (`voicecoach serve`).
        """
        config = self.config
        step = startup.step if startup is not None else _quiet_step
        self._lag_task = asyncio.create_task(self.loop_lag.run(), name="loop-lag")
        if config.retain_days is not None:
            self._purge_task = asyncio.create_task(self._purge(), name="store-purge")
        if self.speech_engines is None:
            with step(f"speech models: {speech_models(config.speech)}"):
                self.speech_engines = await asyncio.to_thread(
                    SpeechEngines.load, config.speech, config.stt_workers
                )
            # The narration phrases' audio, cached as sessions start: their first audio is instant.
            self.speech_engines.synthesise_ahead(narration_texts(self.pack))
        roles = config.coach.llm_roles
        if config.warm and roles:
            with step(f"LLM prompts prewarmed ({', '.join(sorted(roles))})"):
                await prewarm(self.engines, self.pack, [config.coach])
        # Everything loaded so far lives as long as the process: out of the garbage collector's
        # sight. A full collection walked all of it (~600k objects with the models and Pipecat),
        # 150-400 ms with the event loop stopped, a few times a minute under state pushes.
        gc.collect()
        gc.freeze()
        self.ready = True

    def close_engines(self) -> None:
        if self.speech_engines is not None:
            self.speech_engines.close()

    async def _purge(self) -> None:
        """--retain-days: forget idle sessions now and every PURGE_EVERY_S (Redis expires them itself)."""
        while True:
            try:
                if purged := await asyncio.to_thread(self.store.purge):
                    logger.info(
                        f"store: {purged} sessions idle over {self.config.retain_days:g} days forgotten"
                    )
            except StoreError as err:
                logger.warning(f"store: purge failed ({err.code}): {err}")
            await asyncio.sleep(PURGE_EVERY_S)

    def refusal(self, websocket: WebSocket) -> tuple[tuple[int, str] | None, str | None]:
        """Why this connection may not open a session (close code, reason), or None; and the
        session it opens (the query's, else a signed token's; None: a new one)."""
        origin = websocket.headers.get("origin")
        allowed = self.config.origins()
        # No Origin header: not a browser page (a game, a script); the token still applies.
        if origin is not None and "*" not in allowed and origin.rstrip("/").lower() not in allowed:
            return (
                CloseCode.FORBIDDEN_ORIGIN,
                f"origin {origin} is not allowed (see --allowed-origin)",
            ), None
        token = presented_token(websocket)
        if not token:
            return (
                CloseCode.UNAUTHORIZED,
                "unauthorized: a token is required (?token=, Authorization: Bearer, or the "
                f"{TOKEN_SUBPROTOCOL_PREFIX}<token> subprotocol)",
            ), None
        session_id = websocket.query_params.get("session")
        if session_id is not None and not SESSION_ID.match(session_id):
            return (CloseCode.BAD_REQUEST, "bad session id: 1-64 of A-Z a-z 0-9 . _ -"), None
        key = self.config.signing_key
        if key is not None and looks_signed(token):
            try:
                signed_for = verify(key, token)
            except TokenError as err:
                return (CloseCode.UNAUTHORIZED, f"unauthorized: {err}"), None
            if not SESSION_ID.match(signed_for):
                return (CloseCode.BAD_REQUEST, "bad session id in the token: 1-64 of A-Z a-z 0-9 . _ -"), None
            if session_id is not None and session_id != signed_for:
                # Said apart from "invalid": the game's backend minted it for another session.
                return (CloseCode.UNAUTHORIZED, "unauthorized: the token is for another session"), None
            return None, signed_for
        static = self.config.token
        if static is not None and hmac.compare_digest(token.encode("utf-8"), static.encode("utf-8")):
            return None, session_id
        return (CloseCode.UNAUTHORIZED, "unauthorized: invalid token"), None

    def capacity_refusal(self, session_id: str | None) -> tuple[int, str] | None:
        """Why no session can open now (close code, reason), or None.

        A takeover of a live session is let in past the cap: it replaces a connection, and a game
        that reconnects after a network change must get its session back."""
        if self.stopping:
            return CloseCode.GOING_AWAY, "server shutting down"
        if not self.ready:
            return CloseCode.TRY_AGAIN_LATER, "the coach is still loading its engines; retry in a few seconds"
        limits = self.config.limits
        cap = limits.max_sessions
        now = time.monotonic()
        silent = sum(1 for since in self._waiting.values() if now - since > limits.handshake_grace_s)
        if cap > 0 and self._admitted - silent >= cap and session_id not in self.connections:
            return (
                CloseCode.TRY_AGAIN_LATER,
                f"the coach is full ({cap} sessions, --max-sessions); retry later",
            )
        return None

    @contextlib.asynccontextmanager
    async def _takeover_lock(self, session_id: str) -> AsyncIterator[None]:
        """One takeover at a time per session; the entry goes once nobody holds or waits for it."""
        entry = self._takeovers.setdefault(session_id, _TakeoverLock())
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if entry.users == 0:
                del self._takeovers[session_id]

    async def serve_websocket(self, websocket: WebSocket) -> None:
        refusal, session = self.refusal(websocket)
        refusal = refusal or self.capacity_refusal(session)
        # A client that offered subprotocols (a browser presenting its token as one) must get one
        # of them back: ours, never the token's.
        offered = websocket.scope.get("subprotocols") or []
        await websocket.accept(subprotocol=SUBPROTOCOL if SUBPROTOCOL in offered else None)
        if refusal is not None:
            code, reason = refusal
            logger.info(f"connection refused ({code}): {reason}")
            await close_with_notice(websocket, code, reason)
            return
        session_id = session or f"s-{secrets.token_hex(4)}"
        self._admitted += 1  # no await since the cap's check: concurrent connections count
        ticket = object()
        self._waiting[ticket] = time.monotonic()
        try:
            connection = await self._open(websocket, session_id)
            if connection is None:
                return
            connection.on_ready = lambda: self._waiting.pop(ticket, None)
            logger.info(f"session {session_id}: connected")
            try:
                await connection.run()
            finally:
                if self.connections.get(session_id) is connection:
                    del self.connections[session_id]
                logger.info(f"session {session_id}: closed")
        finally:
            self._admitted -= 1
            self._waiting.pop(ticket, None)

    async def _open(self, websocket: WebSocket, session_id: str) -> Connection | None:
        """The session's connection, after closing an older one (a takeover); None if it would not close."""
        timeout_s = self.config.limits.takeover_timeout_s or None
        try:
            async with asyncio.timeout(timeout_s), self._takeover_lock(session_id):
                old = self.connections.get(session_id)
                if old is not None:
                    logger.info(f"session {session_id}: taken over by a new connection")
                    await old.close(CloseCode.TAKEN_OVER, "session taken over by a newer connection")
                connection = Connection(self, websocket, session_id, took_over=old is not None)
                self.connections[session_id] = connection
                return connection
        except TimeoutError:
            reason = f"the session's older connection did not close within {timeout_s:g} s; retry"
            logger.warning(f"session {session_id}: {reason}")
            await close_with_notice(websocket, CloseCode.TRY_AGAIN_LATER, reason)
            return None

    async def shutdown(self) -> None:
        """Close every session (1001, with the reason) and refuse new ones."""
        self.stopping = True
        await asyncio.gather(
            *(c.close(CloseCode.GOING_AWAY, "server shutting down") for c in list(self.connections.values()))
        )
        for task in (self._lag_task, self._purge_task):
            if task is not None:
                task.cancel()

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
            path = example_state_path(self.pack)
            return JSONResponse(json.loads(path.read_text(encoding="utf-8")))

        @app.get("/healthz")
        @app.get("/api/health")
        async def health() -> Any:
            # 503 until the engines are loaded and warm, and while the store does not answer: a load
            # balancer sends no player here then (one that came would be refused).
            store = "ok"
            try:
                await asyncio.to_thread(self.store.ping)
            except StoreError as err:
                store = f"unavailable ({err.code})"
            ok = self.ready and store == "ok"
            body = {
                "ok": ok,
                "ready": self.ready,
                "store": store,
                "sessions": len(self.connections),
                "loop_lag_ms": self.loop_lag.summary(),  # over the last 10 s
            }
            return JSONResponse(body, status_code=200 if ok else 503)

        @app.websocket("/ws")
        async def ws(websocket: WebSocket) -> None:
            await self.serve_websocket(websocket)

        app.mount("/overlay", StaticFiles(directory=dist, check_dir=False), name="overlay")
        return app


# --- running it --------------------------------------------------------------------------------


def bounded_http(header_timeout_s: float) -> type[Any]:
    """uvicorn's h11 protocol, dropping a connection whose first request has not fully arrived
    `header_timeout_s` after it connected (a slowloris: uvicorn times out only idle keep-alives).
    Once upgraded to a websocket the connection is the websocket's, and left alone."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class BoundedH11Protocol(H11Protocol):
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if header_timeout_s > 0:
                self._header_timer = self.loop.call_later(header_timeout_s, self._header_timeout)

        def _header_timeout(self) -> None:
            if (
                self.cycle is None
                and self.transport.get_protocol() is self
                and not self.transport.is_closing()
            ):
                self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            if header_timeout_s > 0:
                self._header_timer.cancel()
            super().connection_lost(exc)

    return BoundedH11Protocol


def uvicorn_config(server: CoachServer, **overrides: Any) -> Any:
    import uvicorn

    config = server.config
    return uvicorn.Config(
        server.app(),
        host=config.host,
        port=config.port,
        http=bounded_http(config.limits.header_timeout_s),
        # Request headers past 16 KiB are refused (h11's default, said here: a browser's upgrade
        # request is under 2 KiB).
        h11_max_incomplete_event_size=16 * 1024,
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


def _browser_host(config: ServerConfig) -> str:
    return "127.0.0.1" if config.host in ("0.0.0.0", "::") else config.host


def overlay_url(config: ServerConfig, session: str = "player", with_token: bool = True) -> str:
    """The overlay's URL; `with_token`: the static token in its fragment (only a generated one is
    printed: a configured token stays out of logs)."""
    token = f"&token={config.token}" if with_token and config.token else ""
    return f"http://{_browser_host(config)}:{config.port}/#session={session}{token}"


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    values: dict[str, Any] = dict(
        host=args.host, port=args.port, allowed_origins=list(args.allowed_origin),
        max_message_bytes=args.max_message_kb * 1024, coach=coach_config(args), speech=speech_config(),
        warm=not args.no_warm,
    )  # fmt: skip
    if args.token:
        values["token"] = args.token
    key = os.environ.get(SIGNING_KEY_ENV) or None
    if key is not None:
        try:
            values["signing_key"] = check_key(key)
        except TokenError as err:
            raise SystemExit(str(err)) from None
        if not args.token:  # signed tokens only: no static token opens every session
            values["token"] = None
    values["retain_days"] = getattr(args, "retain_days", None)
    limits = {
        "max_sessions": args.max_sessions, "handshake_timeout_s": args.handshake_timeout,
        "idle_timeout_s": args.idle_timeout, "takeover_timeout_s": args.takeover_timeout,
    }  # fmt: skip
    values["limits"] = SessionLimits(**{k: v for k, v in limits.items() if v is not None})
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


def listen_socket(host: str, port: int) -> socket.socket:
    """The server's listening socket, bound before any engine loads: a port in use is said at
    once, and uvicorn serves on this socket (no second bind to race another process for)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: TIME_WAIT is no conflict
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def speech_models(speech: SpeechConfig) -> str:
    """The speech engines `SpeechEngines.load` loads, in words."""
    stt = "Whisper" if speech.stt.engine == "whisper" else f"STT endpoint ({speech.stt.model})"
    tts = "piper" if speech.tts.engine == "piper" else f"TTS endpoint ({speech.tts.model})"
    return f"Silero VAD, {stt}, {tts}"


def _quiet_step(what: str) -> contextlib.AbstractContextManager[None]:
    return contextlib.nullcontext()


async def serve(
    config: ServerConfig,
    store_url: str | None = None,
    ready: Callable[[], None] | None = None,
    sock: socket.socket | None = None,
    startup: Startup | None = None,
) -> None:
    """Run the server until a signal stops it. `sock`: bound already (`listen_socket`); `startup`:
    print each step as it loads; `ready` is called once the server can answer."""
    store = open_store(store_url, config.retain_days)
    engines: Engines | None = None
    server: CoachServer | None = None
    step = startup.step if startup is not None else _quiet_step
    try:
        with step(describe_llm(config.coach)):
            engines = await asyncio.to_thread(Engines.start, config.coach)
        server = CoachServer(config, engines, store)
        uvicorn_server = _uvicorn_server(uvicorn_config(server))
        loop = asyncio.get_running_loop()
        stopping: list[asyncio.Task[None]] = []

        async def stop() -> None:
            # Our sessions first, with the documented 1001 and a reason: on its own exit uvicorn
            # closes the websockets still open with 1012 and none. A session that will not
            # close in time is left to uvicorn.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(SHUTDOWN_TIMEOUT_S):
                    await server.shutdown()
            uvicorn_server.should_exit = True

        def on_signal() -> None:
            if not stopping:
                stopping.append(loop.create_task(stop()))
            else:  # a second signal: do not wait for the sessions
                uvicorn_server.should_exit = True

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, on_signal)
        serving = asyncio.create_task(uvicorn_server.serve(sockets=[sock] if sock is not None else None))
        while not uvicorn_server.started and not serving.done():
            await asyncio.sleep(0.05)
        if uvicorn_server.started:  # /healthz answers "not ready" while the engines load
            starting = asyncio.create_task(server.start(startup))
            await asyncio.wait([starting, serving], return_when=asyncio.FIRST_COMPLETED)
            if starting.done():
                starting.result()  # an engine that cannot load stops the server, loudly
                if ready is not None:
                    ready()
        await serving
    finally:
        if server is not None:
            server.close_engines()
        if engines is not None:
            await engines.close()
        store.close()


def run(args: argparse.Namespace) -> int:
    logger.remove()
    logger.add(sys.stderr, level=args.log_level.upper())
    config = config_from_args(args)
    try:
        load_coach_pack(config.coach)  # a bad --pack (or its prior) is said before any engine starts
    except PackError as err:
        raise SystemExit(str(err)) from None
    try:
        sock = listen_socket(config.host, config.port)
    except OSError as err:
        reason = err.strerror or err
        raise SystemExit(
            f"cannot listen on {config.host}:{config.port}: {reason} (choose another with --port)"
        ) from None
    config.port = int(sock.getsockname()[1])  # --port 0: the one the system gave
    console = report_console()
    console.print(
        f"[bold]VoiceCoach serve[/]: pack {config.coach.pack_id}, mode {config.coach.mode}; loading, "
        f"http://{_browser_host(config)}:{config.port}/healthz says ready once it can answer",
        soft_wrap=True,
    )
    startup = Startup(console)
    generated = not args.token and config.token is not None

    def ready() -> None:
        startup.ready(f"VoiceCoach listening on ws://{config.host}:{config.port}/ws")
        # A configured token (--token, VOICECOACH_TOKEN) is never printed: logs keep what serve says.
        console.print(f"overlay: {overlay_url(config, with_token=generated)}", soft_wrap=True)
        if generated:
            console.print(f"token (generated; pass --token to fix one): {config.token}", soft_wrap=True)
        elif config.token is not None:
            console.print("token: the one configured (--token / VOICECOACH_TOKEN)", soft_wrap=True)
        else:
            console.print("token: signed tokens only (the overlay takes one from voicecoach token mint)")
        if config.signing_key is not None:
            console.print(
                f"signed tokens: verified with {SIGNING_KEY_ENV} (voicecoach token mint --session S)",
                soft_wrap=True,
            )
        sys.stdout.flush()

    try:
        asyncio.run(serve(config, args.store, ready, sock, startup))
    except KeyboardInterrupt:
        pass
    except LLMError as err:  # the LLM this configuration calls cannot start: say what to do
        raise SystemExit(str(err)) from None
    except StoreError as err:  # a bad --store path, Redis down at start: one line
        raise SystemExit(f"session store: {err}") from None
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        formatter_class=DefaultsHelpFormatter,
        prog="voicecoach serve",
        description="Run the live coach server.",
    )
    add_serve_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
