"""`voicecoach replay`'s arguments, apart from the replay so that the CLI builds its parser
without importing Pipecat (the replay module does; `voicecoach --help` stays instant)."""

from __future__ import annotations

import argparse

from voicecoach.session import MODES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="a fixture WAV, a session JSON, or a folder of sessions")
    parser.add_argument("--out", default=None, help="output folder (default runs/replay/<timestamp>)")
    parser.add_argument("--mode", choices=MODES, default="sgc_full", help="coach configuration")
    parser.add_argument("--turn-stop", default=None, choices=["vad", "speech_timeout", "smart_turn"])
    parser.add_argument(
        "--stop-secs", type=float, default=None, help="VAD stop_secs (silence that ends speech)"
    )
    parser.add_argument("--first-phrase-words", type=int, default=None, help="word limit of the first phrase")
    add_llm_arguments(parser)
    parser.add_argument("--sessions", default=None, help="comma-separated session ids to run (default all)")
    parser.add_argument("--max-turns", type=int, default=None, help="turns per session (default all)")
    parser.add_argument(
        "--turn-timeout", type=float, default=60.0, help="seconds for a coach turn to complete"
    )
    parser.add_argument("--no-warmup", action="store_true", help="do not prime the LLM's prompt cache")
    parser.add_argument(
        "--listen-only", action="store_true", help="VAD, STT and turn stop only (measures the turn stop)"
    )


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """The LLM options every speech command shares (replay, bench latency)."""
    parser.add_argument(
        "--llm-url", default=None, help="OpenAI-compatible endpoint (default: embedded llama.cpp)"
    )
    parser.add_argument("--model", default=None, help="model name at --llm-url")
    parser.add_argument("--gguf", default=None, help="GGUF for the embedded llama.cpp")
    parser.add_argument(
        "--llm-threads", type=int, default=None, help="embedded llama.cpp threads (default 2)"
    )
    parser.add_argument(
        "--split-lead",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="embedded: a second llama.cpp server for each turn's first call (W1, planner), threads split "
        "(default on)",
    )
