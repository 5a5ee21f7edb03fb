"""A Python client of the live coach server, for a game, a bot or a test.

    async with await CoachClient.connect("ws://127.0.0.1:8765/ws", session="player-1", token=T) as coach:
        await coach.push_state(snapshot=my_game_state)          # or patch={...}
        streamed = await coach.stream_wav("question.wav")        # paced like a microphone
        done = await coach.wait_event("turn-completed", timeout=30)
        print(done.reply, coach.audio_bytes())

It speaks the server's protocol (`voicecoach/coach/protocol.py`, docs/PROTOCOL.md): the websocket
carries Pipecat protobuf frames — Pipecat's own `ProtobufFrameSerializer` encodes the audio
we send and decodes what arrives — and RTVI JSON messages inside them. Every message that
arrives is parsed into a protocol model and kept in order (`messages`), audio as timed
chunks (`audio`). Microphone input and speaker output need the optional `sounddevice`
package; everything else runs anywhere.

As a command, it asks a running server with recorded questions and times each turn:

    voicecoach client --token T --state game.json q1.wav q2.wav --repeat 3 --save-audio replies.wav
    voicecoach client --token T --session S --text "what beats water?"     # a typed question

(`python -m voicecoach.app.client` is the same.)
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import sys
import time
import wave
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import numpy as np
import soundfile as sf
import websockets
from loguru import logger
from pipecat.frames.frames import InputAudioRawFrame, InputTransportMessageFrame, OutputAudioRawFrame
from pipecat.frames.frames import OutputTransportMessageUrgentFrame as _MessageFrame
from pipecat.serializers.protobuf import ProtobufFrameSerializer
from pydantic import ValidationError
from websockets.asyncio.client import ClientConnection

from voicecoach.app.client_args import CLIENT_DESCRIPTION, add_arguments, reply_audio_path
from voicecoach.coach import protocol
from voicecoach.coach.protocol import RTVIMessage, ServerEvent, SessionEvent, StateInfo
from voicecoach.core import latency
from voicecoach.core.console import DefaultsHelpFormatter

FRAME_S = 0.02  # 20 ms of audio per frame, as a microphone delivers it


class CoachError(RuntimeError):
    """The server refused a request (`code` is the protocol's ErrorCode, if it gave one)."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text
        self.code = protocol.error_code(text)


class CoachClosed(CoachError):
    """The connection closed; `close_code` / `reason` say why (protocol.CloseCode)."""

    def __init__(self, close_code: int | None, reason: str):
        super().__init__(f"connection closed ({close_code}): {reason}")
        self.close_code = close_code
        self.reason = reason


@dataclass
class AudioChunk:
    """Audio the coach sent, and when it arrived (time.monotonic())."""

    pcm: bytes
    sample_rate: int
    received: float


@dataclass
class Received:
    """One message from the server: the RTVI envelope, and for a server-message its event."""

    rtvi: RTVIMessage
    event: ServerEvent | None
    received: float


@dataclass
class Streamed:
    """What `stream_wav` sent: when each frame left, so speech times map onto the clock."""

    push_times: list[float] = field(default_factory=list)
    frame_s: float = FRAME_S

    def clock(self, at_s: float) -> float:
        """When the sample `at_s` seconds into the stream was spoken (time.monotonic())."""
        return latency.speech_end_clock(self.push_times, self.frame_s, at_s)


def _pcm16(path: Path, rate: int) -> bytes:
    """A WAV (or any soundfile format) as 16-bit mono PCM at `rate`."""
    data, source_rate = sf.read(str(path), dtype="float32", always_2d=True)
    mono = data.mean(axis=1)
    if source_rate != rate:
        import soxr

        mono = soxr.resample(mono, source_rate, rate)
    return (np.clip(mono, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()


class CoachClient:
    """One connection to the coach server (one session). Create it with `connect`."""

    def __init__(self, ws: ClientConnection, serializer: ProtobufFrameSerializer):
        self._ws = ws
        self._serializer = serializer
        self._ids = itertools.count(1)
        self._pending: dict[str, asyncio.Future[Any]] = {}
        self._changed = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self.messages: list[Received] = []
        self.audio: list[AudioChunk] = []
        self.session: SessionEvent | None = None
        self.closed: CoachClosed | None = None
        self.on_audio: Callable[[AudioChunk], None] | None = None

    # --- connecting ------------------------------------------------------------------------

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        token: str,
        session: str | None = None,
        origin: str | None = None,
        token_in_query: bool = False,
        token_in_subprotocol: bool = False,
        timeout_s: float = 30.0,
    ) -> CoachClient:
        """Connect, do the RTVI handshake and wait for the `session` event.

        The token goes in an `Authorization` header, or the query (as Pipecat's JS transport sends
        it), or a `voicecoach.token.<token>` subprotocol (as a browser can without a proxy logging it).
        Raises CoachClosed if the server refuses the connection.
        """
        query = {"session": session} if session else {}
        headers = {}
        subprotocols = None
        if token_in_query:
            query["token"] = token
        elif token_in_subprotocol:
            subprotocols = [
                websockets.Subprotocol("voicecoach"),
                websockets.Subprotocol(f"voicecoach.token.{token}"),
            ]
        else:
            headers["Authorization"] = f"Bearer {token}"
        parts = urlsplit(url)
        full = urlunsplit(parts._replace(query="&".join(q for q in (parts.query, urlencode(query)) if q)))
        ws = await websockets.connect(
            full,
            additional_headers=headers,
            origin=websockets.Origin(origin) if origin else None,
            subprotocols=subprotocols,
            max_size=None,  # the server sizes its own messages
            compression=None,  # PCM does not compress
            open_timeout=timeout_s,
        )
        client = cls(ws, ProtobufFrameSerializer())
        client._reader = asyncio.create_task(client._read(), name="coach-client-read")
        await client.send_json(protocol.client_ready())
        event = await client.wait_event("session", timeout=timeout_s)
        assert isinstance(event, SessionEvent)
        client.session = event
        return client

    async def __aenter__(self) -> CoachClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        await self._ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)

    # --- receiving ---------------------------------------------------------------------------

    async def _read(self) -> None:
        try:
            async for data in self._ws:
                now = time.monotonic()
                frame = await self._serializer.deserialize(data) if isinstance(data, bytes) else None
                if isinstance(frame, InputAudioRawFrame):
                    chunk = AudioChunk(frame.audio, frame.sample_rate, now)
                    self.audio.append(chunk)
                    if self.on_audio is not None:
                        self.on_audio(chunk)
                elif isinstance(frame, InputTransportMessageFrame):
                    self._on_message(frame.message, now)
                self._changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = CoachClosed(self._ws.close_code, self._ws.close_reason or "")
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(self.closed)
            self._changed.set()

    def _on_message(self, message: Any, now: float) -> None:
        try:
            rtvi = RTVIMessage.model_validate(message)
        except ValidationError:
            return  # not RTVI: nothing of ours
        event: ServerEvent | None = None
        if rtvi.type == "server-message":
            try:
                event = protocol.parse_event(rtvi.data)
            except ValidationError:
                event = None  # an event type newer than this client
        self.messages.append(Received(rtvi, event, now))
        future = self._pending.pop(rtvi.id, None) if rtvi.id else None
        if future is not None and not future.done():
            if rtvi.type == "server-response":
                future.set_result((rtvi.data or {}).get("d"))
            elif rtvi.type == "error-response":
                future.set_exception(CoachError((rtvi.data or {}).get("error", "error")))

    def _more_than(self, count: int) -> bool:
        return len(self.messages) > count or self.closed is not None

    def events(self) -> list[ServerEvent]:
        return [m.event for m in self.messages if m.event is not None]

    def errors(self) -> list[str]:
        """Texts of the RTVI `error` messages received (the ones answering no request)."""
        return [str((m.rtvi.data or {}).get("error", "")) for m in self.messages if m.rtvi.type == "error"]

    async def wait_for(self, ready: Callable[[], Any], timeout: float = 30.0) -> Any:
        """Wait until `ready()` returns something truthy (re-checked on every message); return it."""
        async with asyncio.timeout(timeout):
            while True:
                self._changed.clear()
                result = ready()
                if result:
                    return result
                if self.closed is not None:
                    raise self.closed
                await self._changed.wait()

    async def wait_event(
        self, kind: str, timeout: float = 30.0, where: Callable[[Any], bool] | None = None, after: int = 0
    ) -> ServerEvent:
        """The first event of `kind` (the `type` field) at or after message index `after`."""

        def find() -> ServerEvent | None:
            for m in self.messages[after:]:
                if m.event is not None and m.event.type == kind and (where is None or where(m.event)):
                    return m.event
            return None

        result: ServerEvent = await self.wait_for(find, timeout)
        return result

    async def wait_message(self, rtvi_type: str, timeout: float = 30.0, after: int = 0) -> RTVIMessage:
        def find() -> RTVIMessage | None:
            return next((m.rtvi for m in self.messages[after:] if m.rtvi.type == rtvi_type), None)

        result: RTVIMessage = await self.wait_for(find, timeout)
        return result

    async def stream(self) -> AsyncIterator[Received]:
        """Every message as it arrives (from the next one on), until the connection closes."""
        seen = len(self.messages)
        while True:
            await self.wait_for(partial(self._more_than, seen), timeout=3600)
            while seen < len(self.messages):
                seen += 1
                yield self.messages[seen - 1]
            if self.closed is not None:
                return

    # --- sending -----------------------------------------------------------------------------

    async def send_json(self, message: dict[str, Any]) -> None:
        """One RTVI message, in a protobuf message frame (what Pipecat's clients send)."""
        data = await self._serializer.serialize(_MessageFrame(message=message))
        assert isinstance(data, bytes)
        await self._send(data)

    async def send_raw(self, data: bytes | str) -> None:
        """Bytes or text as they are: for tests of what the server does with bad input."""
        await self._send(data)

    async def _send(self, data: bytes | str) -> None:
        try:
            await self._ws.send(data)
        except websockets.ConnectionClosed as err:
            raise self.closed or CoachClosed(err.rcvd.code if err.rcvd else None, str(err)) from None

    async def request(self, t: str, d: Any = None, timeout: float = 10.0) -> Any:
        """A coach request (RTVI client-message); the `d` of its server-response, or CoachError."""
        msg_id = f"req-{next(self._ids)}"
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        await self.send_json(protocol.client_message(msg_id, t, d))
        return await asyncio.wait_for(future, timeout)

    async def push_state(
        self, snapshot: dict[str, Any] | None = None, patch: dict[str, Any] | None = None
    ) -> StateInfo:
        """Send a full snapshot or a JSON merge patch; the state the coach now has, or CoachError."""
        update = protocol.StateUpdate(snapshot=snapshot, patch=patch)
        d = await self.request("state-update", update.model_dump(exclude_none=True))
        return StateInfo.model_validate(d)

    async def get_state(self) -> StateInfo:
        return StateInfo.model_validate(await self.request("get-state", {}))

    async def ask(self, text: str) -> None:
        """A typed question (RTVI send-text): a turn without audio."""
        await self.send_json(protocol.send_text(f"text-{next(self._ids)}", text))

    async def push_to_talk(self, talking: bool) -> None:
        await self.request("ptt", {"talking": talking})

    async def send_audio(self, pcm: bytes, sample_rate: int = protocol.INPUT_SAMPLE_RATE) -> None:
        """16-bit mono PCM, as one protobuf audio frame."""
        frame = OutputAudioRawFrame(audio=pcm, sample_rate=sample_rate, num_channels=1)
        data = await self._serializer.serialize(frame)
        assert isinstance(data, bytes)
        await self._send(data)

    async def stream_pcm(self, pcm: bytes, *, realtime: bool = True, frame_s: float = FRAME_S) -> Streamed:
        """Send PCM (16 kHz) in `frame_s` frames; paced like a microphone when `realtime`.

        A microphone delivers a frame once its last sample is captured, so frame j leaves at
        start + (j + 1) * frame_s; the push times are recorded for S2FA.
        """
        rate = protocol.INPUT_SAMPLE_RATE
        step = int(rate * frame_s) * 2
        streamed = Streamed(frame_s=frame_s)
        start = time.monotonic()
        for j, offset in enumerate(range(0, len(pcm), step)):
            if realtime:
                delay = start + (j + 1) * frame_s - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            chunk = pcm[offset : offset + step]
            if len(chunk) < step:
                chunk = chunk + b"\x00" * (step - len(chunk))
            await self.send_audio(chunk, rate)
            streamed.push_times.append(time.monotonic())
        return streamed

    async def stream_wav(
        self, path: str | Path, *, realtime: bool = True, tail_silence_s: float = 1.0
    ) -> Streamed:
        """Stream an audio file as a microphone would, then `tail_silence_s` of silence (an open
        microphone in a quiet room), so the server's VAD hears the speech end."""
        pcm = _pcm16(Path(path), protocol.INPUT_SAMPLE_RATE)
        silence = b"\x00\x00" * int(protocol.INPUT_SAMPLE_RATE * tail_silence_s)
        return await self.stream_pcm(pcm + silence, realtime=realtime)

    async def stream_microphone(self, seconds: float, device: int | str | None = None) -> Streamed:
        """Stream the default (or `device`) microphone for `seconds`. Needs `sounddevice`."""
        try:
            import sounddevice
        except ImportError as err:
            raise RuntimeError("microphone input needs the sounddevice package") from err
        rate = protocol.INPUT_SAMPLE_RATE
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def captured(data: Any, frames: int, when: Any, status: Any) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, bytes(data))

        streamed = Streamed()
        blocksize = int(rate * FRAME_S)
        with sounddevice.RawInputStream(
            samplerate=rate, channels=1, dtype="int16", blocksize=blocksize, device=device, callback=captured
        ):
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                pcm = await queue.get()
                await self.send_audio(pcm, rate)
                streamed.push_times.append(time.monotonic())
        return streamed

    def play_audio(self, device: int | str | None = None) -> Any:
        """Play what the coach says on the speaker as it arrives. Needs `sounddevice`.

        Returns the output stream; close it to stop playing."""
        import sounddevice

        stream = sounddevice.RawOutputStream(
            samplerate=protocol.OUTPUT_SAMPLE_RATE, channels=1, dtype="int16", device=device
        )
        stream.start()
        self.on_audio = lambda chunk: stream.write(chunk.pcm)
        return stream

    # --- what was heard ----------------------------------------------------------------------

    def audio_bytes(self, after: float = 0.0) -> bytes:
        """All coach audio received after `after` (time.monotonic()), concatenated."""
        return b"".join(c.pcm for c in self.audio if c.received >= after)

    def save_audio(self, path: str | Path, after: float = 0.0) -> float:
        """Write the coach audio received after `after` (time.monotonic()) to `path` as a WAV
        (16-bit mono at the server's rate); its length in seconds."""
        pcm = self.audio_bytes(after)
        rate = next((c.sample_rate for c in self.audio if c.received >= after), protocol.OUTPUT_SAMPLE_RATE)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(rate)
            out.writeframes(pcm)
        return len(pcm) / 2 / rate

    def first_audible(self, after: float) -> float | None:
        """When the first audible sample received after `after` plays (time.monotonic()).

        The server paces its audio in real time, so a sample `offset` into a chunk plays
        `offset / rate` after the chunk arrived.
        """
        for chunk in self.audio:
            if chunk.received < after:
                continue
            offset = latency.first_non_silent(np.frombuffer(chunk.pcm, dtype="<i2"))
            if offset is not None:
                return latency.first_audio_clock(chunk.received, offset, chunk.sample_rate)
        return None


# --- command line: ask the coach with recorded questions, and time it ------------------------------


async def _ask_files(args: argparse.Namespace) -> int:
    from voicecoach.bench.fixtures import load_audio, speech_end

    token = args.token or os.environ.get("VOICECOACH_TOKEN", "")
    coach = await CoachClient.connect(args.url, token=token, session=args.session)
    assert coach.session is not None
    print(f"session {coach.session.session_id} ({'resumed' if coach.session.resumed else 'new'})")
    if args.state:
        await coach.push_state(snapshot=json.loads(Path(args.state).read_text(encoding="utf-8")))
    await asyncio.sleep(args.settle)  # let the session-open prewarm finish before the first question
    client_ms: list[float] = []
    questions = [Path(p) for p in args.wav] * args.repeat
    for i, path in enumerate(questions, 1):
        end_s = speech_end(load_audio(path))
        n = len(coach.messages)
        asked = time.monotonic()
        streamed = await coach.stream_wav(path, tail_silence_s=args.tail)
        done = await coach.wait_event("turn-completed", timeout=args.timeout, after=n)
        measured = await coach.wait_event("latency", timeout=args.timeout, after=n)
        assert isinstance(done, protocol.TurnCompletedEvent) and isinstance(measured, protocol.LatencyEvent)
        end = streamed.clock(end_s)
        heard = coach.first_audible(after=end)
        ms = (heard - end) * 1000.0 if heard is not None else float("nan")
        client_ms.append(ms)
        stages = ", ".join(f"{s.label} {s.ms:.0f}" for s in measured.stages)
        print(f"{path.name}: {done.utterance!r} -> {done.reply!r}")
        print(f"  S2FA client {ms:.0f} ms, server {measured.s2fa_ms} ms  [{stages}]")
        await coach.wait_message("bot-stopped-speaking", timeout=args.timeout, after=n)
        if args.save_audio:
            out = reply_audio_path(Path(args.save_audio), i, len(questions))
            print(f"  reply audio: {out} ({coach.save_audio(out, after=asked):.1f} s)")
    for text in args.text * args.repeat:
        n = len(coach.messages)
        await coach.ask(text)
        done = await coach.wait_event("turn-completed", timeout=args.timeout, after=n)
        measured = await coach.wait_event("latency", timeout=args.timeout, after=n)
        assert isinstance(done, protocol.TurnCompletedEvent) and isinstance(measured, protocol.LatencyEvent)
        # A turn is stored as completed once its reply was heard to the end: wait for it.
        await coach.wait_message("bot-stopped-speaking", timeout=args.timeout, after=n)
        print(f"typed: {text!r} -> {done.reply!r} (turn {done.turn_index})")
        print(f"  first audio {measured.s2fa_ms} ms after the question arrived (server)")
    summary = latency.summarize(m for m in client_ms if m == m)
    if summary is not None:
        print("S2FA client: " + ", ".join(f"{k} {v}" for k, v in summary.as_dict().items()))
    await coach.close()
    return 0


def run(args: argparse.Namespace) -> int:
    if not args.wav and not args.text:
        raise SystemExit("nothing to ask: give WAVs or --text QUESTION")
    # Pipecat's serializer logs every frame at DEBUG: only what went wrong, besides our lines.
    logger.remove()
    logger.add(sys.stderr, level="WARNING")
    try:
        return asyncio.run(_ask_files(args))
    except CoachClosed as err:  # the server said why: one line, not a traceback
        raise SystemExit(f"refused: {err}") from None
    except websockets.InvalidStatus as err:  # a load balancer with no worker free answers itself
        body = err.response.body.decode(errors="replace").strip() if err.response.body else ""
        raise SystemExit(f"refused: HTTP {err.response.status_code}: {body or err}") from None
    except OSError as err:
        raise SystemExit(f"cannot reach {args.url}: {err}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        formatter_class=DefaultsHelpFormatter,
        prog="python -m voicecoach.app.client",
        description=CLIENT_DESCRIPTION,
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
