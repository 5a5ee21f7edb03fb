"""The embedded llama-server's lifetime: it must never outlive the process that started it."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from voicecoach.coach.engines import Engines, prewarm
from voicecoach.coach.session import CoachConfig
from voicecoach.domain.pack import load_pack
from voicecoach.llm.client import LLMClient, LLMConfig, LLMError, NoLLM
from voicecoach.talker.conditioning import talker_system_prompt
from voicecoach.testing.scripted_llm import ScriptedLLMServer

# Starts the server and keeps it busy evaluating a long prompt: on SIGTERM a busy llama-server
# first finishes its work (an orphan was seen alive 90 s after the coach was killed).
CHILD = """
import json, threading, time, urllib.request
from voicecoach.llm.client import EmbeddedLlamaServer
server = EmbeddedLlamaServer(threads=1, slots=1, ram_cache=False)
server.start()
body = {"messages": [{"role": "user", "content": "Tell a very long story. " * 300}], "max_tokens": 4000}
request = urllib.request.Request(
    server.base_url + "/chat/completions", data=json.dumps(body).encode(),
    headers={"Content-Type": "application/json"},
)
threading.Thread(target=lambda: urllib.request.urlopen(request, timeout=120).read(), daemon=True).start()
time.sleep(1.0)  # the reply is being generated
print(server._proc.pid, flush=True)
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    """A zombie (exited, not yet reaped by whoever adopted it) counts as gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_llama_server_dies_with_a_killed_parent_and_leaves_no_log() -> None:
    # SIGKILL: the parent runs no cleanup at all, so only the kernel's parent-death signal can stop
    # the server (before it, a killed benchmark left its llama-servers running), and nothing can
    # remove a log file it left (its log is unlinked from the start).
    logs_before = set(Path(tempfile.gettempdir()).glob("voicecoach-llama-*"))
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True, cwd=os.getcwd()
    )
    assert child.stdout is not None
    server_pid = int(child.stdout.readline())
    assert _alive(server_pid)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    deadline = time.monotonic() + 3  # at once: the parent-death signal is SIGKILL
    while _alive(server_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(server_pid)
    assert set(Path(tempfile.gettempdir()).glob("voicecoach-llama-*")) <= logs_before


# --- which configurations start an LLM, and what they prewarm ----------------------------------------


def _roles(**config: object) -> set[str]:
    return set(CoachConfig.model_validate(config).llm_roles)


def test_llm_roles_are_the_calls_a_configuration_makes() -> None:
    # The embedded default: the prior labels (threshold 0), the pack narrates, rules fill the slots,
    # the realizer words the reply. No LLM call at all.
    assert _roles() == set()
    assert _roles(narration="llm") == {"w1"}
    assert _roles(intent_prior="off") == {"w1"}
    assert _roles(slots="llm") == {"w2"}
    assert _roles(slots="llm", mode="sgc_w1") == set()  # sgc_w1 has no W2
    assert _roles(talker="guarded") == {"talker"} == _roles(talker="llm")
    assert _roles(mode="prompting") == {"talker"}
    assert _roles(mode="pe_agent") == {"planner", "talker"}
    # An endpoint: the prior keeps its trained threshold, so W1 may call; the LLM fills and words.
    assert _roles(llm={"base_url": "http://127.0.0.1:9/v1"}) == {"w1", "w2", "talker"}


async def test_the_embedded_default_starts_no_llm_server_and_prewarms_nothing() -> None:

    config = CoachConfig()
    engines = Engines.start(config)
    assert engines.server is None and engines.lead_server is None and engines.lead is None
    assert isinstance(engines.llm, NoLLM)
    with pytest.raises(LLMError, match="no LLM configured"):  # a call, if one ever came, says so
        await engines.llm.complete([{"role": "user", "content": "hi"}])
    await engines.close()

    # The default configuration sends no prewarm, even to an LLM that is there.
    async with ScriptedLLMServer() as server:
        there = Engines(llm=LLMClient(LLMConfig(base_url=server.base_url)))
        await prewarm(there, load_pack(), [config])
        assert server.requests == []
        # ... and a configuration with one LLM role warms that role's prompt only.
        await prewarm(there, load_pack(), [CoachConfig(talker="guarded")])
        await there.close()
    assert [r.body["messages"][0]["content"] for r in server.requests] == [talker_system_prompt(load_pack())]


def test_a_configuration_that_calls_the_llm_starts_the_embedded_server() -> None:

    config = CoachConfig(slots="llm", llm=LLMConfig(embedded_split_lead=False, embedded_threads=1))
    engines = Engines.start(config)
    try:
        assert engines.server is not None and engines.server.pid is not None and _alive(engines.server.pid)
        assert type(engines.llm) is LLMClient
    finally:
        asyncio.run(engines.close())


def test_an_endpoint_that_does_not_answer_is_an_error_naming_it() -> None:

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    with pytest.raises(LLMError, match=f"no LLM answers at {url}"):
        Engines.start(CoachConfig(llm=LLMConfig(base_url=url)))
