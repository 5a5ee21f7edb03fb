"""The embedded llama-server's lifetime: it must never outlive the process that started it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

CHILD = """
from voicecoach.llm import EmbeddedLlamaServer
server = EmbeddedLlamaServer(threads=1, slots=1, ram_cache=False)
server.start()
print(server._proc.pid, flush=True)
import time
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    """A zombie (exited, not yet reaped by whoever adopted it) counts as gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_llama_server_dies_with_a_killed_parent() -> None:
    # SIGKILL: the parent runs no cleanup at all, so only the kernel's parent-death signal can stop
    # the server (before it, a killed benchmark left its llama-servers running).
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True, cwd=os.getcwd()
    )
    assert child.stdout is not None
    server_pid = int(child.stdout.readline())
    assert _alive(server_pid)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    deadline = time.monotonic() + 10
    while _alive(server_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(server_pid)
