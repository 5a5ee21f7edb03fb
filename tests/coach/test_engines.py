"""The embedded llama-server's lifetime: it must never outlive the process that started it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
