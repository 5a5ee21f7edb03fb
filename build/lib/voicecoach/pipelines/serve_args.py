"""`voicecoach serve`'s arguments, apart from the server so that the CLI builds its parser
without importing Pipecat (the server module does; `voicecoach --help` stays instant)."""

from __future__ import annotations

import argparse
import os

from voicecoach.session import MODES

DEFAULT_PORT = 8765
DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024  # a full state snapshot is ~10 KB, 20 ms of audio 640 bytes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="interface to listen on (default: localhost only)"
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument(
        "--token",
        default=os.environ.get("VOICECOACH_TOKEN"),
        help="session token (default: generated, printed)",
    )
    parser.add_argument(
        "--allowed-origin", action="append", default=[], metavar="URL",
        help="another origin whose pages may connect (repeatable; '*' for any); the server's own is allowed",
    )  # fmt: skip
    parser.add_argument(
        "--store", default=None, help="sqlite:///path, a path, or memory: (default ~/.local/state)"
    )
    parser.add_argument("--mode", choices=MODES, default="sgc_full", help="coach configuration")
    parser.add_argument(
        "--llm-url", default=None, help="OpenAI-compatible endpoint (default: embedded llama.cpp)"
    )
    parser.add_argument("--model", default=None, help="model name at --llm-url")
    parser.add_argument(
        "--gguf", default=None, help="GGUF for the embedded llama.cpp (default: SmolLM2-135M)"
    )
    parser.add_argument("--max-message-kb", type=int, default=DEFAULT_MAX_MESSAGE_BYTES // 1024)
    parser.add_argument("--no-warm", action="store_true", help="skip the session-open LLM prewarm")
    parser.add_argument("--log-level", default="INFO")
