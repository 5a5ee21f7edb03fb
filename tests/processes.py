"""Helpers for tests that start real server processes (redis-server, haproxy, coach workers)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
from collections.abc import Iterable

import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def required_binary(name: str, require_env: str) -> str:
    """The path of Debian's `name`; a missing one skips the test, or fails it when `require_env`
    is set (.ci/run sets it: CI installs the package, so a skip there would check nothing)."""
    binary = shutil.which(name)
    if binary is None:
        if os.environ.get(require_env):
            pytest.fail(f"{name} is not installed (apt-get install {name})")
        pytest.skip(f"{name} is not installed")
    return binary


def stop_all(procs: Iterable[subprocess.Popen[bytes]]) -> None:
    """Terminate every process (resuming a stopped one first), then wait, killing a straggler."""
    procs = list(procs)
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGCONT)
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
