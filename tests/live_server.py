"""The coach server running in the test's event loop, against the scripted LLM server.

`LiveServer` starts `ScriptedLLMServer` (requests routed by system prompt, as in
tests/pipelines/test_turn.py) and the real `CoachServer` app under uvicorn on a free loopback port.
Speech engines are the embedded ones (Silero, Whisper tiny.en, piper), loaded once per
LiveServer as `voicecoach serve` loads them once per process, so audio is really heard and
spoken; only the LLM is scripted, which makes turns fast and their decisions deterministic.
The server object is at hand, so a test can look at connections and the store.
"""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import Any

import uvicorn

from tests.conftest import STATE
from tests.pipelines.test_turn import Router
from tests.processes import free_port
from voicecoach.app.client import CoachClient
from voicecoach.coach.engines import Engines
from voicecoach.coach.session import CoachConfig
from voicecoach.coach.store import MemorySessionStore, SessionStore
from voicecoach.domain.pack import Pack, load_pack
from voicecoach.llm.client import LLMClient, LLMConfig
from voicecoach.pipelines.server import CoachServer, ServerConfig, SessionLimits, uvicorn_config
from voicecoach.testing.scripted_llm import RecordedRequest, ScriptedLLMServer

TOKEN = "test-token-0123456789"
GAME_STATE = {"ic": STATE["ic"], "fs": STATE["fs"]}  # what a game pushes: it owns ic and fs


class LiveServer:
    def __init__(
        self,
        store: SessionStore | None = None,
        pack: Pack | None = None,
        max_message_bytes: int = 64 * 1024,
        warm: bool = False,
        limits: SessionLimits | None = None,
        server: dict[str, Any] | None = None,
        embedded: bool = False,
        **coach: Any,
    ) -> None:
        self.pack = pack or load_pack()
        self.router = Router(self.pack)
        self.llm = ScriptedLLMServer(router=self.router)
        self.store = store if store is not None else MemorySessionStore()
        self.port = free_port()
        self._max = max_message_bytes
        self._warm = warm
        self._limits = limits or SessionLimits()
        self._coach = coach
        # The coach as `voicecoach serve` runs it by default (no --llm-url): the prior, the rules and
        # the realizer, no LLM call at all; the scripted server then sees no request.
        self._embedded = embedded
        self._server = {"token": TOKEN, **(server or {})}  # more ServerConfig fields (signing_key ...)
        self.server: CoachServer | None = None
        self._uvicorn: uvicorn.Server | None = None
        self._task: asyncio.Task[None] | None = None
        self.clients: list[CoachClient] = []

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> LiveServer:
        await self.llm.start()
        llm = LLMConfig(base_url=self.llm.base_url, first_token_timeout_s=5.0, inter_token_timeout_s=2.0)
        # The server's tests script the reply's pace (a slow reply, a cut one): the unguarded LLM
        # path streams it as scripted; the guard and the realizer have tests of their own.
        values: dict[str, Any] = {
            "tool_timeout_s": 2.0, "slot_timeout_s": 3.0, "talker_deadline_s": 4.0, "talker": "llm"
        }  # fmt: skip
        values.update(self._coach)
        coach = CoachConfig(**self._coach) if self._embedded else CoachConfig(llm=llm, **values)
        config = ServerConfig(
            port=self.port, coach=coach, max_message_bytes=self._max, warm=self._warm,
            limits=self._limits, **self._server,
        )  # fmt: skip
        engines = Engines.start(coach) if self._embedded else Engines(llm=LLMClient(coach.llm))
        self.server = CoachServer(config, engines, self.store, self.pack)
        self._uvicorn = uvicorn.Server(uvicorn_config(self.server))
        self._task = asyncio.create_task(self._uvicorn.serve())
        async with asyncio.timeout(10):
            while not self._uvicorn.started:
                if self._task.done():
                    await self._task  # raises what stopped it
                await asyncio.sleep(0.02)
        await self.server.start()  # the process's engines: real Silero, Whisper and piper, once
        return self

    async def connect(self, session: str = "player", **kwargs: Any) -> CoachClient:
        token = kwargs.pop("token", TOKEN)
        client = await CoachClient.connect(self.url, token=token, session=session, **kwargs)
        self.clients.append(client)
        return client

    def requests(self, role: str) -> list[RecordedRequest]:
        return [r for r in self.llm.requests if self.router.role(r.body) == role]

    async def stop(self) -> None:
        for client in self.clients:
            await client.close()
        if self._uvicorn is not None and self._task is not None:
            self._uvicorn.should_exit = True
            try:
                async with asyncio.timeout(15):
                    await self._task
            except TimeoutError:
                self._task.cancel()
        if self.server is not None:
            self.server.close_engines()
            await self.server.engines.close()
        await self.llm.stop()

    async def __aenter__(self) -> LiveServer:
        return await self.start()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()
