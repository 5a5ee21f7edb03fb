"""A private redis-server (Debian's) a test may kill and restart, unlike the session's shared
`redis_url` fixture (tests/conftest.py)."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.processes import free_port, required_binary


def redis_binary() -> str:
    return required_binary("redis-server", "VOICECOACH_REQUIRE_REDIS")


class RedisServer:
    """redis-server on a free loopback port; `args` go after `config` (a file, or none)."""

    def __init__(self, data_dir: Path, config: Path | None = None, *args: str) -> None:
        self.port = free_port()
        self.data_dir = data_dir
        self.config = config
        self.args = args
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        command = [redis_binary()]
        if self.config is not None:
            command.append(str(self.config))
        command += [
            "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.data_dir),
            "--daemonize", "no", *self.args,
        ]  # fmt: skip
        self.proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.proc.kill()
                    pytest.fail(f"redis-server did not start on port {self.port}")
                time.sleep(0.05)

    def kill(self) -> None:
        """kill -9: no shutdown save, as a crash or an OOM kill."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
