"""`voicecoach chat` and `voicecoach serve` as a user runs them: real processes, real stdin.

A typo in a chat command is said and the session goes on; an endpoint that does not answer and a
port in use are one line each, before anything loads; `serve` says "ready" only once it can answer.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.live_server import TOKEN, free_port
from voicecoach.app.client import CoachClient
from voicecoach.domain.pack import example_state_path

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}


def _voicecoach(*args: str, stdin: str = "", timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "voicecoach.app.cli", *args],
        input=stdin, capture_output=True, text=True, timeout=timeout, env=ENV, cwd=ROOT,
    )  # fmt: skip


def test_chat_says_what_is_wrong_with_a_bad_patch_or_state_and_goes_on(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    listed = tmp_path / "listed.json"
    listed.write_text("[1, 2]", encoding="utf-8")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xd0\xff\x00")
    lines = [
        '/patch {"ic": {"match": {"round": 3}',  # a typo: the JSON does not close
        '/patch {"fs": {"inventory": {"owned": "lots"}}}',  # JSON, refused by the state's validation
        f"/state {tmp_path / 'missing.json'}",
        f"/state {broken}",
        "/patch 5",  # JSON, but not an object: these three ended the session with a traceback
        f"/state {listed}",
        f"/state {binary}",  # not UTF-8
        '/patch {"ic": {"match": {"round": 3}}}',  # a good one still applies
        "what counters their team?",
        "/quit",
    ]
    done = _voicecoach("chat", "--store", "memory:", "--session", "typos", stdin="\n".join(lines) + "\n")
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert out.count("ready in") == 1
    refused = [line for line in out.splitlines() if "refused, the previous state is kept" in line]
    assert len(refused) == 7, out
    assert "Expecting" in refused[0]  # the JSON error says where
    assert "fs.inventory.owned" in refused[1]  # the validation names the field
    assert "missing.json" in refused[2] and "broken.json" not in refused[2]
    assert str(broken) in refused[3] or "Expecting" in refused[3]
    assert "a JSON object {...} is needed, this is a number" in refused[4]
    assert "listed.json: a JSON object {...} is needed, this is an array" in refused[5]
    assert "binary.json: 'utf-8' codec can't decode" in refused[6]
    assert "state updated (version" in out
    # The session went on after the typos: the question was answered.
    assert out.index("turn done") > out.index(refused[-1])
    # No Pipecat or coach log lines below WARNING without -v.
    assert "| DEBUG" not in done.stderr and "| INFO" not in done.stderr, done.stderr[:2000]


def test_chat_with_an_endpoint_that_does_not_answer_says_so_at_start() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    started = time.monotonic()
    done = _voicecoach("chat", "--store", "memory:", "--llm-url", url, stdin="what counters their team?\n")
    assert done.returncode != 0
    assert f"no LLM answers at {url}" in done.stderr
    assert "Traceback" not in done.stderr and "coach>" not in done.stdout
    assert time.monotonic() - started < 60


def test_serve_on_a_port_in_use_is_one_line_and_a_failure() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = _voicecoach("serve", "--store", "memory:", "--port", str(port), timeout=60)
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [
        f"cannot listen on 127.0.0.1:{port}: Address already in use (choose another with --port)"
    ]


async def test_serve_prints_its_url_once_it_answers_and_the_first_connection_is_served(
    tmp_path: Path,
) -> None:
    port = free_port()
    command = [
        sys.executable, "-m", "voicecoach.app.cli", "serve", "--port", str(port), "--store", "memory:",
        "--token", TOKEN,
    ]  # fmt: skip
    proc = subprocess.Popen(
        command, env=ENV, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        seen: list[str] = []
        started = time.monotonic()
        while not any(line.startswith("ready") for line in seen):
            line = await asyncio.to_thread(proc.stdout.readline)
            assert line or proc.poll() is None, (
                f"serve exited: {seen} {proc.stderr.read() if proc.stderr else ''}"
            )
            seen.append(line)
            assert time.monotonic() - started < 120, seen
        assert all("ws://" not in line and "overlay:" not in line for line in seen[:-1]), seen
        assert any("speech models" in line for line in seen), seen
        assert any("LLM: none" in line for line in seen), seen
        # At once, as a player who copied the URL: a session, not 1013 "try again later".
        client = await CoachClient.connect(f"ws://127.0.0.1:{port}/ws", token=TOKEN, session="first")
        try:
            assert client.session is not None
            state = json.loads(example_state_path("pet_arena").read_text(encoding="utf-8"))
            await client.push_state(snapshot={"ic": state["ic"], "fs": state["fs"]})
            n = len(client.messages)
            await client.ask("what counters their team?")
            await client.wait_event("turn-completed", timeout=60, after=n)
        finally:
            await client.close()
    finally:
        proc.terminate()
        await asyncio.to_thread(proc.wait, 20)


def test_serve_on_a_port_out_of_range_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """`--port 99999` ended in an OverflowError traceback from bind()."""
    from voicecoach.app.cli import build_parser

    for wrong in ("99999", "-1"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["serve", "--port", wrong])
        assert f"argument --port: {wrong} is not a TCP port (0-65535" in capsys.readouterr().err
