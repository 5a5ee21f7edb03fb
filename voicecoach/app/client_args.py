"""`voicecoach client`'s options, apart from the client (which imports Pipecat): building the
command line must not load Pipecat, whose import logs a banner before a command has set up its logs."""

from __future__ import annotations

import argparse
from pathlib import Path

CLIENT_DESCRIPTION = (
    "Ask a running coach server with WAVs or typed questions; time S2FA (and save the replies' audio)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("wav", nargs="*", help="questions, one WAV each (any rate; sent as 16 kHz)")
    parser.add_argument(
        "--text",
        action="append",
        default=[],
        metavar="QUESTION",
        help="a typed question, asked after the WAVs (repeatable); the reply is waited for to its end",
    )
    parser.add_argument("--url", default="ws://127.0.0.1:8765/ws", help="the server's websocket")
    parser.add_argument("--token", default=None, help="the server's token (default: $VOICECOACH_TOKEN)")
    parser.add_argument("--session", default="client", help="session id; an existing one is resumed")
    parser.add_argument("--state", default=None, help="a game snapshot (JSON) to push first")
    parser.add_argument("--repeat", type=int, default=1, help="ask the questions this many times")
    parser.add_argument("--tail", type=float, default=1.0, help="seconds of silence after each question")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds to wait before the first question")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for each answer")
    parser.add_argument(
        "--save-audio",
        metavar="PATH",
        default=None,
        help="save each reply's audio as a WAV (24 kHz mono): PATH, or PATH-1.wav, PATH-2.wav ...",
    )


def reply_audio_path(path: Path, index: int, count: int) -> Path:
    """Where question `index` (1-based) of `count` saves its reply: `path` itself for one,
    else `path` with `-<index>` before its suffix."""
    return path if count == 1 else path.with_name(f"{path.stem}-{index}{path.suffix or '.wav'}")
