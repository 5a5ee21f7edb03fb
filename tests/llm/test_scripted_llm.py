"""The scripted LLM server, driven by the real `openai.AsyncOpenAI` client over real HTTP."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import openai
import pytest
import pytest_asyncio
from openai import AsyncOpenAI
from openai.types.chat import ChatCompletionMessageParam

from voicecoach.testing.scripted_llm import RecordedRequest, Script, ScriptedLLMServer

try:  # the transport errors of the HTTP library under openai (httpx2 here, httpx elsewhere)
    import httpx2 as httpx_lib
except ImportError:  # pragma: no cover
    import httpx as httpx_lib  # type: ignore[no-redef]

# What a broken stream may raise: openai wraps some transport failures, others surface as they are.
STREAM_BROKE = (openai.APIError, httpx_lib.TransportError)
TOLERANCE_S = 0.02  # asyncio.sleep may wake a hair early on coarse clocks
REPO = Path(__file__).resolve().parents[2]


def client_for(server: ScriptedLLMServer) -> AsyncOpenAI:
    # max_retries=0: a retry would hide the failure modes under test.
    return AsyncOpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=10.0)


def messages(system: str = "You are a coach.", user: str = "hi") -> list[ChatCompletionMessageParam]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


async def stream_deltas(client: AsyncOpenAI, **extra: Any) -> list[str]:
    """Content deltas of one streamed completion, in arrival order."""
    stream = await client.chat.completions.create(
        model="m",
        messages=messages(**extra.pop("prompt", {})),
        stream=True,
        **extra,
    )
    return [chunk.choices[0].delta.content async for chunk in stream if chunk.choices[0].delta.content]


# -- happy paths --------------------------------------------------------------------------------


async def test_stream_delivers_the_scripted_chunks_in_order() -> None:
    chunks = ["Hel", "lo", ", wor", "ld", "!"]
    async with ScriptedLLMServer([Script(chunks=chunks)]) as server, client_for(server) as client:
        stream = await client.chat.completions.create(model="m", messages=messages(), stream=True)
        received = [chunk async for chunk in stream]

    contents = [c.choices[0].delta.content for c in received if c.choices[0].delta.content]
    assert contents == chunks
    assert "".join(contents) == "Hello, world!"
    assert received[0].choices[0].delta.role == "assistant"
    assert received[-1].choices[0].finish_reason == "stop"
    assert all(c.object == "chat.completion.chunk" and c.model == "scripted-llm" for c in received)
    assert server.requests[0].completed


async def test_default_chunking_is_per_word_and_rejoins_to_the_text() -> None:
    assert Script("Use Thunderbolt now.").pieces() == ["Use", " Thunderbolt", " now."]
    for text in ["", "   ", "  lead and trail  ", "one\nline\ttab"]:
        assert "".join(Script(text).pieces()) == text
    async with ScriptedLLMServer([Script("Switch to Pidgey, it resists.")]) as server:
        async with client_for(server) as client:
            deltas = await stream_deltas(client)
    assert deltas == ["Switch", " to", " Pidgey,", " it", " resists."]


async def test_non_streaming_returns_the_whole_text() -> None:
    async with ScriptedLLMServer([Script("Use Surf.")]) as server, client_for(server) as client:
        completion = await client.chat.completions.create(model="m", messages=messages())
    assert completion.choices[0].message.content == "Use Surf."
    assert completion.choices[0].finish_reason == "stop"
    assert server.requests[0].completed and "stream" not in server.requests[0].body


def test_script_rejects_chunks_that_do_not_join_to_text() -> None:
    assert Script(chunks=["a", "b"]).text == "ab"
    with pytest.raises(ValueError, match="join"):
        Script("abc", chunks=["a", "b"])
    with pytest.raises(ValueError, match="fail"):
        Script("x", fail="explode")  # type: ignore[arg-type]


async def test_models_endpoint_and_404_for_unknown_routes() -> None:
    async with ScriptedLLMServer(model="tiny") as server, client_for(server) as client:
        models = await client.models.list()
        assert [m.id for m in models.data] == ["tiny"]
        # A raw request, so the 404 is seen exactly as sent (and Connection: close is honoured).
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"GET /v1/nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        raw = await asyncio.wait_for(reader.read(), timeout=5)
        writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 404")
    assert "no route" in json.loads(body)["error"]["message"]
    assert server.requests == []  # only chat completions are recorded


# -- timing -------------------------------------------------------------------------------------


async def test_ttft_and_inter_token_delays_are_honoured() -> None:
    ttft, gap, chunks = 0.2, 0.05, ["a", "b", "c", "d", "e"]
    async with ScriptedLLMServer([Script(chunks=chunks, ttft_s=ttft, inter_token_s=gap)]) as server:
        async with client_for(server) as client:
            started = time.monotonic()
            stream = await client.chat.completions.create(model="m", messages=messages(), stream=True)
            arrivals = [time.monotonic() async for c in stream if c.choices[0].delta.content]

    assert len(arrivals) == len(chunks)
    assert arrivals[0] - started >= ttft - TOLERANCE_S
    assert arrivals[-1] - started >= ttft + (len(chunks) - 1) * gap - TOLERANCE_S
    assert arrivals[-1] - started < ttft + (len(chunks) - 1) * gap + 2.0  # generous: only catches hangs
    record = server.requests[0]
    assert record.first_chunk_at is not None and record.last_chunk_at is not None
    assert record.first_chunk_at - record.arrived_at >= ttft - TOLERANCE_S
    assert record.last_chunk_at - record.first_chunk_at >= (len(chunks) - 1) * gap - TOLERANCE_S


async def test_non_streaming_waits_for_the_whole_generation() -> None:
    script = Script(chunks=["x", "y", "z"], ttft_s=0.1, inter_token_s=0.05)
    async with ScriptedLLMServer([script]) as server, client_for(server) as client:
        started = time.monotonic()
        await client.chat.completions.create(model="m", messages=messages())
        assert time.monotonic() - started >= 0.1 + 2 * 0.05 - TOLERANCE_S


# -- failure modes ------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("status", [500, 503, 429])
async def test_http_error_raises_api_status_error_with_the_status(stream: bool, status: int) -> None:
    async with ScriptedLLMServer([Script(fail="http_error", status=status)]) as server:
        async with client_for(server) as client:
            with pytest.raises(openai.APIStatusError) as caught:
                await client.chat.completions.create(model="m", messages=messages(), stream=stream)
    assert caught.value.status_code == status
    assert f"scripted HTTP {status}" in str(caught.value)


async def test_cut_stream_raises_after_the_scripted_chunks() -> None:
    script = Script(chunks=["one", " two", " three", " four"], fail="cut", cut_after=2)
    async with ScriptedLLMServer([script]) as server, client_for(server) as client:
        stream = await client.chat.completions.create(model="m", messages=messages(), stream=True)
        received: list[str] = []
        with pytest.raises(STREAM_BROKE):
            async for chunk in stream:
                received.append(chunk.choices[0].delta.content or "")
    assert received == ["one", " two"]
    assert not server.requests[0].completed


async def test_cut_non_streaming_response_raises() -> None:
    async with ScriptedLLMServer([Script("a b c", fail="cut")]) as server, client_for(server) as client:
        with pytest.raises(STREAM_BROKE):
            await client.chat.completions.create(model="m", messages=messages())


async def test_stall_sends_nothing_more_until_the_server_stops() -> None:
    script = Script(chunks=["first", " never"], fail="stall", stall_after=1)
    server = await ScriptedLLMServer([script]).start()
    async with client_for(server) as client:
        stream = await client.chat.completions.create(model="m", messages=messages(), stream=True)
        received: list[str] = []

        async def consume() -> None:
            async for chunk in stream:
                received.append(chunk.choices[0].delta.content or "")

        consumer = asyncio.create_task(consume())
        with pytest.raises(TimeoutError):  # shield: the timeout must not cancel the consumer
            await asyncio.wait_for(asyncio.shield(consumer), timeout=0.3)
        assert received == ["first"]

        await server.stop()  # drops the stalled connection, so the client's read fails
        with pytest.raises(STREAM_BROKE):
            await asyncio.wait_for(consumer, timeout=5)
    assert received == ["first"]
    assert not server.requests[0].completed


# -- routing and recording ----------------------------------------------------------------------


async def test_router_gives_concurrent_requests_their_own_scripts() -> None:
    def router(body: dict[str, Any]) -> Script | None:
        system = body["messages"][0]["content"]
        if "grammar" in body:
            return Script('{"slot": "move"}', ttft_s=0.01)
        if "perceive" in system:
            return Script("W1 sees a low-HP ally.", ttft_s=0.15, inter_token_s=0.01)
        if "talk" in system:
            return Script("Heal now!", ttft_s=0.05, inter_token_s=0.01)
        return None

    async with ScriptedLLMServer(router=router) as server, client_for(server) as client:
        w1, w2, talker = await asyncio.gather(
            stream_deltas(client, prompt={"system": "You perceive the game."}),
            stream_deltas(client, prompt={"system": "Extract slots."}, extra_body={"grammar": "root ::= x"}),
            stream_deltas(client, prompt={"system": "You talk to the player."}),
        )
    assert "".join(w1) == "W1 sees a low-HP ally."
    assert "".join(w2) == '{"slot": "move"}'
    assert "".join(talker) == "Heal now!"

    assert len(server.requests) == 3
    by_prompt = {r.system_prompt: r for r in server.requests}
    assert by_prompt["Extract slots."].body["grammar"] == "root ::= x"  # extra_body reaches the server
    assert "grammar" not in by_prompt["You talk to the player."].body
    assert by_prompt["You perceive the game."].body["stream"] is True
    # The slow W1 request finished last although it was sent first.
    slowest = max(server.requests, key=lambda r: r.last_chunk_at or 0.0)
    assert slowest.system_prompt == "You perceive the game."


async def test_queue_is_consumed_in_order_then_answers_500() -> None:
    async with ScriptedLLMServer(router=lambda body: None) as server, client_for(server) as client:
        server.enqueue(Script("first"), Script("second"))
        assert await stream_deltas(client) == ["first"]
        assert await stream_deltas(client) == ["second"]
        assert server.pending == 0
        with pytest.raises(openai.APIStatusError) as caught:
            await stream_deltas(client)
    assert caught.value.status_code == 500
    assert "no script" in str(caught.value)
    assert len(server.requests) == 3  # the unanswerable request is recorded too


async def test_requests_are_recorded_with_bodies_and_arrival_times() -> None:
    async with ScriptedLLMServer([Script("ok"), Script("ok")]) as server, client_for(server) as client:
        before = time.monotonic()
        await stream_deltas(client, prompt={"user": "first"}, max_tokens=7, extra_body={"grammar": "g1"})
        await stream_deltas(client, prompt={"user": "second"})
        records: list[RecordedRequest] = await server.wait_for_requests(2)
    assert [r.body["messages"][1]["content"] for r in records] == ["first", "second"]
    assert records[0].body["max_tokens"] == 7 and records[0].body["grammar"] == "g1"
    assert before <= records[0].arrived_at <= records[1].arrived_at
    assert records[0].script is not None and records[0].script.text == "ok"


# -- lifecycle ----------------------------------------------------------------------------------


@pytest_asyncio.fixture
async def scripted_llm() -> AsyncIterator[ScriptedLLMServer]:
    """A started ScriptedLLMServer with an empty queue and no router; stopped after the test."""
    async with ScriptedLLMServer() as server:
        yield server


async def test_fixture_yields_a_started_server(scripted_llm: ScriptedLLMServer) -> None:
    assert scripted_llm.base_url == f"http://127.0.0.1:{scripted_llm.port}/v1"
    scripted_llm.enqueue(Script("from the fixture"))
    async with client_for(scripted_llm) as client:
        assert "".join(await stream_deltas(client)) == "from the fixture"


async def test_stop_closes_the_listening_socket() -> None:
    server = ScriptedLLMServer()
    with pytest.raises(RuntimeError):
        _ = server.base_url
    await server.start()
    port = server.port
    await server.stop()
    await server.stop()  # idempotent
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", port)


async def test_standalone_process_serves_a_fixed_reply() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "voicecoach.testing.scripted_llm", "--port", str(port), "--text", "hello there",
        cwd=REPO, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        banner = await asyncio.wait_for(proc.stdout.readline(), timeout=15)
        assert f"127.0.0.1:{port}/v1" in banner.decode()
        client = AsyncOpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0)
        async with client:
            for _ in range(2):  # a fixed reply, not a queue: it answers every time
                assert "".join(await stream_deltas(client)) == "hello there"
    finally:
        proc.terminate()
        await proc.wait()
