"""A scripted OpenAI-compatible chat-completions server: a test double that speaks the real protocol.

The voice coach reaches every LLM through `openai.AsyncOpenAI`, so the honest way to test the
streaming path (timeouts, cut streams, stalls, concurrent W1/W2/Talker calls) is a real HTTP/1.1
server on loopback whose replies are scripted. It is plain `asyncio.start_server`, no framework:

    async with ScriptedLLMServer() as server:
        server.enqueue(Script("Use Thunderbolt.", ttft_s=0.2, inter_token_s=0.02))
        client = AsyncOpenAI(base_url=server.base_url, api_key="x", max_retries=0)

Routes: `POST /v1/chat/completions` (SSE when `"stream": true`, else one `chat.completion` JSON),
`GET /v1/models`, and a 404 JSON error for anything else. Connections are keep-alive; streamed
bodies use `Transfer-Encoding: chunked`, so a cut stream is a protocol error the client sees
(with `Connection: close` framing an early close would look like a normal end).

Which script answers a request: `router(body)` if set and it returns a Script, otherwise the next
script of the queue, otherwise a 500 whose message says that nothing was scripted.

Standalone, for manual runs: `python -m voicecoach.testing.scripted_llm --port 8099 --text "hello"`.
"""

from __future__ import annotations

import argparse
import asyncio
import http
import itertools
import json
import re
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal

FailMode = Literal["http_error", "cut", "stall"]
Router = Callable[[dict[str, Any]], "Script | None"]

_FAIL_MODES = ("http_error", "cut", "stall")


@dataclass
class Script:
    """One scripted response.

    Chunking: `chunks` if given, else one chunk per word with the whitespace before a word
    travelling with it (`"Use Thunderbolt now."` -> `["Use", " Thunderbolt", " now."]`), which is
    how BPE tokens look; `"".join(chunks) == text` always holds.

    Timing: `ttft_s` before the first content chunk, `inter_token_s` between chunks. A
    non-streaming request waits `ttft_s + (n - 1) * inter_token_s` and then sends everything.
    `late_headers`: the response headers wait for the first chunk too, as llama-server's do while
    it processes the prompt (the client's create() call itself then waits `ttft_s`).

    Failures:
      - "http_error": after `ttft_s`, an OpenAI-style JSON error with HTTP `status`.
      - "cut": `cut_after` chunks, then the connection closes with no final chunk and no [DONE]
        (non-streaming: half of the JSON body, then the close).
      - "stall": `stall_after` chunks, then silence; the connection stays open until the client
        gives up or the server stops (non-streaming: no response at all).
    """

    text: str = ""
    chunks: list[str] | None = None
    ttft_s: float = 0.0
    inter_token_s: float = 0.0
    fail: FailMode | None = None
    status: int = 500
    cut_after: int = 0
    stall_after: int = 0
    late_headers: bool = False

    def __post_init__(self) -> None:
        if self.fail is not None and self.fail not in _FAIL_MODES:
            raise ValueError(f"fail must be one of {_FAIL_MODES} or None, not {self.fail!r}")
        if self.chunks is not None:
            joined = "".join(self.chunks)
            if not self.text:
                self.text = joined
            elif joined != self.text:
                # A mismatch is always a typo in the test; better to fail here than in an assert later.
                raise ValueError(f"chunks join to {joined!r}, not to text {self.text!r}")

    def pieces(self) -> list[str]:
        """The content chunks this script streams, in order."""
        if self.chunks is not None:
            return list(self.chunks)
        pieces = re.findall(r"\s*\S+", self.text)
        tail = self.text[len("".join(pieces)) :]  # trailing whitespace has no word to ride on
        if tail:
            if pieces:
                pieces[-1] += tail
            else:
                pieces = [tail]
        return pieces


@dataclass
class RecordedRequest:
    """A chat-completions request as the server saw it (times on the time.monotonic() clock)."""

    body: dict[str, Any]
    arrived_at: float
    script: Script | None = None
    first_chunk_at: float | None = None  # first content chunk written (non-streaming: the body)
    last_chunk_at: float | None = None  # last content chunk written
    completed: bool = False  # the response ended normally ([DONE] or the full JSON body)

    @property
    def system_prompt(self) -> str:
        """Content of the first system message, or "" (what routers usually look at)."""
        for message in self.body.get("messages", []):
            if message.get("role") == "system":
                return str(message.get("content", ""))
        return ""


def _error_body(message: str, kind: str = "server_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def _status_line(status: int) -> str:
    try:
        phrase = http.HTTPStatus(status).phrase
    except ValueError:
        phrase = "Scripted Status"
    return f"HTTP/1.1 {status} {phrase}\r\n"


class ScriptedLLMServer:
    """An OpenAI-compatible HTTP server on 127.0.0.1 that answers with queued or routed Scripts."""

    def __init__(
        self,
        scripts: Iterable[Script] = (),
        *,
        router: Router | None = None,
        model: str = "scripted-llm",
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.router = router
        self.model = model
        self.requests: list[RecordedRequest] = []
        self._queue: deque[Script] = deque(scripts)
        self._host = host
        self._port = port
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[Any]] = set()
        self._ids = itertools.count(1)

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> ScriptedLLMServer:
        self._server = await asyncio.start_server(self._handle_connection, self._host, self._port)
        self._port = int(self._server.sockets[0].getsockname()[1])
        return self

    async def stop(self) -> None:
        """Stop listening and drop every open connection, stalled ones included."""
        if self._server is None:
            return
        self._server.close()
        # Python 3.11's Server.close() leaves accepted connections alone, so end them ourselves.
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        await self._server.wait_closed()
        self._server = None

    async def __aenter__(self) -> ScriptedLLMServer:
        return await self.start()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("ScriptedLLMServer is not running (call start() first)")
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self.port}/v1"

    # -- scripting -----------------------------------------------------------------------------

    def enqueue(self, *scripts: Script) -> None:
        """Append scripts to the queue; requests the router does not claim consume it in order."""
        self._queue.extend(scripts)

    @property
    def pending(self) -> int:
        """Scripts still waiting in the queue."""
        return len(self._queue)

    async def wait_for_requests(self, count: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Wait until at least `count` chat-completions requests have arrived."""
        async with asyncio.timeout(timeout):
            while len(self.requests) < count:
                await asyncio.sleep(0.005)
        return self.requests

    def _pick(self, body: dict[str, Any]) -> Script:
        if self.router is not None:
            routed = self.router(body)
            if routed is not None:
                return routed
        if self._queue:
            return self._queue.popleft()
        raise LookupError(
            "scripted LLM: no script for this request (the router returned None and the queue is empty)"
        )

    # -- HTTP ----------------------------------------------------------------------------------

    async def _handle_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            while await self._serve_one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the client went away, or stop() is dropping this connection
        finally:
            self._connections.discard(task)
            writer.close()

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Serve one request; True when the connection may carry another one."""
        request_line = await reader.readline()
        if not request_line:
            return False  # the client closed its idle keep-alive connection
        method, target, _version = request_line.decode("latin-1").split(maxsplit=2)
        headers: dict[str, str] = {}
        while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        raw_body = await reader.readexactly(int(headers.get("content-length", "0")))
        keep_alive = headers.get("connection", "").lower() != "close"
        path = target.split("?", 1)[0].rstrip("/")

        if method == "POST" and path == "/v1/chat/completions":
            return await self._chat_completions(raw_body, reader, writer, keep_alive)
        if method == "GET" and path == "/v1/models":
            models = {
                "object": "list",
                "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "scripted"}],
            }
            await self._send_json(writer, 200, models, keep_alive)
            return keep_alive
        body = _error_body(f"scripted LLM has no route for {method} {path}", "invalid_request_error")
        await self._send_json(writer, 404, body, keep_alive)
        return keep_alive

    async def _chat_completions(
        self, raw_body: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, keep_alive: bool
    ) -> bool:
        arrived_at = time.monotonic()
        try:
            body = json.loads(raw_body)
        except ValueError as err:
            await self._send_json(
                writer, 400, _error_body(f"body is not JSON: {err}", "invalid_request_error")
            )
            return False
        record = RecordedRequest(body=body, arrived_at=arrived_at)
        self.requests.append(record)
        try:
            script = self._pick(body)
        except Exception as err:  # a router bug or an empty queue: say so in the 500 the test will see
            await self._send_json(writer, 500, _error_body(f"{type(err).__name__}: {err}"), keep_alive)
            return keep_alive
        record.script = script

        if script.fail == "http_error":
            await asyncio.sleep(script.ttft_s)
            message = f"scripted HTTP {script.status} error"
            await self._send_json(writer, script.status, _error_body(message), keep_alive)
            return keep_alive
        if body.get("stream"):
            return await self._stream(script, record, reader, writer, keep_alive)
        return await self._complete(script, record, reader, writer, keep_alive)

    async def _stream(
        self,
        script: Script,
        record: RecordedRequest,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        keep_alive: bool,
    ) -> bool:
        pieces = script.pieces()
        limit = {"cut": script.cut_after, "stall": script.stall_after}.get(script.fail or "", len(pieces))
        # Headers go out at once, as OpenAI's do: the client's create() returns and the wait for
        # the first token happens while iterating the stream. Late headers: create() waits.
        if script.late_headers:
            await asyncio.sleep(script.ttft_s)
        writer.write(
            (
                _status_line(200) + "Content-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                "Transfer-Encoding: chunked\r\n"
                f"Connection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n"
            ).encode()
        )
        await writer.drain()

        completion_id = f"chatcmpl-scripted-{next(self._ids)}"
        created = int(time.time())

        async def send(delta: dict[str, Any], finish_reason: str | None) -> None:
            chunk = {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": self.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
            }
            await self._send_chunk(writer, f"data: {json.dumps(chunk)}\n\n")

        for index, piece in enumerate(pieces[:limit]):
            first_wait = 0.0 if script.late_headers else script.ttft_s
            await asyncio.sleep(first_wait if index == 0 else script.inter_token_s)
            # Like OpenAI, only the first delta carries the role.
            await send({"role": "assistant", "content": piece} if index == 0 else {"content": piece}, None)
            record.last_chunk_at = time.monotonic()
            if record.first_chunk_at is None:
                record.first_chunk_at = record.last_chunk_at

        if script.fail == "cut":
            return False  # the caller closes the socket without the terminating zero-size chunk
        if script.fail == "stall":
            await reader.read()  # returns at EOF, when the client gives up; stop() cancels it
            return False

        await send({}, "stop")
        await self._send_chunk(writer, "data: [DONE]\n\n")
        writer.write(b"0\r\n\r\n")  # end of the chunked body
        await writer.drain()
        record.completed = True
        return keep_alive

    async def _complete(
        self,
        script: Script,
        record: RecordedRequest,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        keep_alive: bool,
    ) -> bool:
        pieces = script.pieces()
        await asyncio.sleep(script.ttft_s + script.inter_token_s * max(len(pieces) - 1, 0))
        if script.fail == "stall":
            await reader.read()
            return False
        completion = {
            "id": f"chatcmpl-scripted-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": script.text},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ],
            "usage": {"prompt_tokens": 0, "completion_tokens": len(pieces), "total_tokens": len(pieces)},
        }
        payload = json.dumps(completion).encode()
        if script.fail == "cut":
            # Promise the whole body, deliver half: the client must notice the short read.
            writer.write(self._json_head(200, len(payload), keep_alive) + payload[: len(payload) // 2])
            await writer.drain()
            return False
        writer.write(self._json_head(200, len(payload), keep_alive) + payload)
        await writer.drain()
        record.first_chunk_at = record.last_chunk_at = time.monotonic()
        record.completed = True
        return keep_alive

    @staticmethod
    def _json_head(status: int, length: int, keep_alive: bool) -> bytes:
        return (
            _status_line(status) + "Content-Type: application/json\r\n"
            f"Content-Length: {length}\r\nConnection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n"
        ).encode()

    async def _send_json(
        self, writer: asyncio.StreamWriter, status: int, payload: dict[str, Any], keep_alive: bool = False
    ) -> None:
        data = json.dumps(payload).encode()
        writer.write(self._json_head(status, len(data), keep_alive) + data)
        await writer.drain()

    @staticmethod
    async def _send_chunk(writer: asyncio.StreamWriter, text: str) -> None:
        data = text.encode()
        writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        await writer.drain()


async def _serve_forever(args: argparse.Namespace) -> None:
    fixed = Script(args.text, ttft_s=args.ttft, inter_token_s=args.inter_token)
    server = ScriptedLLMServer(router=lambda _body: fixed, model=args.model, port=args.port)
    async with server:
        print(f"scripted LLM listening on {server.base_url}", flush=True)
        await asyncio.Event().wait()


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve a fixed scripted reply on an OpenAI-compatible API.")
    parser.add_argument("--port", type=int, default=8099)
    parser.add_argument("--text", default="hello")
    parser.add_argument("--ttft", type=float, default=0.0, help="seconds before the first chunk")
    parser.add_argument("--inter-token", type=float, default=0.0, help="seconds between chunks")
    parser.add_argument("--model", default="scripted-llm")
    try:
        asyncio.run(_serve_forever(parser.parse_args()))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
