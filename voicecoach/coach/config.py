"""Command-line arguments and the one place a run's configuration is built from them.

Every command that runs a coach (`chat`, `serve`, `replay`, `bench turn / latency / quality`)
takes its engine flags from `add_engine_arguments` and builds its `CoachConfig` with
`coach_config` and its `SpeechConfig` with `speech_config`: flags first, then the environment
(`VOICECOACH_LLM_*`, `VOICECOACH_STT_*`, `VOICECOACH_TTS_*`), then the models' defaults. So a
flag means the same thing, with the same default, everywhere.

A kernel (argparse is stdlib, no Pipecat): the CLI builds its parser from here without paying
for Pipecat's import, which keeps `voicecoach --help` instant. The `serve` and `replay`
commands' own arguments live here for the same reason.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from voicecoach.coach.session import MODES, CoachConfig
from voicecoach.coach.speech_config import SpeechConfig
from voicecoach.llm.client import LLMConfig

DEFAULT_PORT = 8765
DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024  # a full state snapshot is ~10 KB, 20 ms of audio 640 bytes

# Argument name -> LLMConfig field: what `add_engine_arguments` defines, `llm_config` reads.
_LLM_ARGUMENTS = {
    "llm_url": "base_url",
    "model": "model",
    "gguf": "model_path",
    "llm_threads": "embedded_threads",
    "split_lead": "embedded_split_lead",
}


def add_engine_arguments(parser: argparse.ArgumentParser, tuning: bool = False) -> None:
    """The LLM flags. `tuning` adds the embedded server's threads / split (the speech benchmarks)."""
    parser.add_argument(
        "--llm-url", default=None, help="OpenAI-compatible endpoint (default: embedded llama.cpp)"
    )
    parser.add_argument("--model", default=None, help="model name at --llm-url")
    parser.add_argument(
        "--gguf", default=None, help="GGUF for the embedded llama.cpp (default: SmolLM2-135M)"
    )
    if not tuning:
        return
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


def add_mode_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=MODES, default="sgc_full", help="coach configuration")
    add_coach_arguments(parser)


# Argument name -> (CoachConfig field, environment variable): what `coach_config` reads.
_COACH_ARGUMENTS = {
    "intent_prior": ("intent_prior", "VOICECOACH_INTENT_PRIOR"),
    "slots": ("slots", "VOICECOACH_SLOTS"),
    "talker": ("talker", "VOICECOACH_TALKER"),
    "narration": ("narration", "VOICECOACH_NARRATION"),
    "answer_first": ("answer_first", "VOICECOACH_ANSWER_FIRST"),
    "tool_endpoint": ("tool_endpoint", "VOICECOACH_TOOL_ENDPOINT"),
    "pack": ("pack_id", "VOICECOACH_PACK"),
}


PACK_HELP = "the game pack: a pack folder, or an installed pack's id (default pet_arena; VOICECOACH_PACK)"


def add_pack_argument(parser: argparse.ArgumentParser) -> None:
    """`serve`, `chat` and `bench quality`: the pack the coach runs on, a folder (its prior.json and
    example_state.json read from it) or an installed pack's id (voicecoach/packs/<id>)."""
    parser.add_argument("--pack", default=None, metavar="PACK", help=PACK_HELP)


def add_coach_arguments(parser: argparse.ArgumentParser) -> None:
    """How much of a turn rests on the LLM: the intent prior, the slot source, the reply path."""
    parser.add_argument(
        "--intent-prior", choices=["auto", "on", "off"], default=None,
        help="W1's tags prefilled by the intent prior when it is confident (auto: on for the embedded model)",
    )  # fmt: skip
    parser.add_argument(
        "--slots", choices=["auto", "rules", "llm"], default=None,
        help="W2's QuerySlots from rules (entity links + cue words) or the LLM slot call (auto: rules "
        "for the embedded model)",
    )  # fmt: skip
    parser.add_argument(
        "--talker", choices=["auto", "guarded", "llm", "template"], default=None,
        help="the reply: the LLM behind the runtime guard (the grounded realization when nothing passes), "
        "the unguarded LLM, or the grounded realization alone (auto: template for the embedded model, "
        "guarded for an endpoint)",
    )  # fmt: skip
    parser.add_argument(
        "--narration", choices=["auto", "pack", "llm"], default=None,
        help="on a turn the prior labelled, the pack's phrase for the pair (no W1 call) or the LLM's "
        "continuation (auto: the pack's phrase for the embedded model)",
    )  # fmt: skip
    parser.add_argument(
        "--answer-first", choices=["on", "off"], default=None,
        help="with the grounded realization: a short acknowledgement at once and the answer right "
        "after it, the narration only if the answer is late (default on); off: the narration first",
    )  # fmt: skip
    parser.add_argument(
        "--tool-endpoint", default=None,
        help="base URL where the game serves the pack's tools.json tools (default: the one tools.json names)",
    )  # fmt: skip


def llm_config(args: Any = None, **overrides: Any) -> LLMConfig:
    """LLMConfig from `args` (a parsed Namespace, or any object with the same attribute names),
    `overrides` (LLMConfig fields; None means "not given") and the environment."""
    values = {field: getattr(args, name, None) for name, field in _LLM_ARGUMENTS.items()}
    values.update({k: v for k, v in overrides.items() if v is not None})
    return LLMConfig.from_env(**values)


def coach_config(args: Any = None, llm: dict[str, Any] | None = None, **overrides: Any) -> CoachConfig:
    """The run's CoachConfig: `mode` and `tool_latency_ms` from `args` if it has them, the LLM from
    `llm_config(args, **llm)`, then `overrides` (CoachConfig fields; None means "not given")."""
    values = {name: getattr(args, name, None) for name in ("mode", "tool_latency_ms")}
    for name, (field, env) in _COACH_ARGUMENTS.items():
        values[field] = getattr(args, name, None) or os.environ.get(env) or None
    values.update(overrides)
    given = {k: v for k, v in values.items() if v is not None}
    return CoachConfig(llm=llm_config(args, **(llm or {})), **given)


def speech_config(args: Any = None, **overrides: Any) -> SpeechConfig:
    """The run's SpeechConfig: the environment, then `--turn-stop` / `--stop-secs` /
    `--smart-turn-fallback` / `--first-phrase-words` where `args` has them, then `overrides`."""
    speech = SpeechConfig.from_env(turn_stop=getattr(args, "turn_stop", None), **overrides)
    if (stop_secs := getattr(args, "stop_secs", None)) is not None:
        speech.vad.stop_secs = stop_secs
    if (fallback := getattr(args, "smart_turn_fallback", None)) is not None:
        speech.smart_turn_fallback_s = fallback
    if (words := getattr(args, "first_phrase_words", None)) is not None:
        speech.phrases.first_max_words = words
    return speech


# --- the commands that run a coach on speech -------------------------------------------------------


def port(text: str) -> int:
    """--port: 0-65535 (0: any free one), said by argparse; 99999 was an OverflowError traceback."""
    number = int(text)  # argparse says "invalid port value: 'x'"
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"{number} is not a TCP port (0-65535; 0: any free one)")
    return number


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """`voicecoach serve`."""
    parser.add_argument(
        "--host", default="127.0.0.1", help="interface to listen on (default: localhost only)"
    )
    parser.add_argument("--port", type=port, default=DEFAULT_PORT, help="TCP port to listen on")
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
    parser.add_argument(
        "--retain-days", type=float, default=None, metavar="D",
        help="forget a session idle this long (Redis: its keys expire; SQLite: purged hourly; default: keep)",
    )  # fmt: skip
    add_mode_argument(parser)
    add_pack_argument(parser)
    add_engine_arguments(parser)
    parser.add_argument(
        "--max-message-kb",
        type=int,
        default=DEFAULT_MAX_MESSAGE_BYTES // 1024,
        help="a client message over this is refused (too-large); over 4x it, the connection closes",
    )
    parser.add_argument("--no-warm", action="store_true", help="skip the LLM prewarm at start")
    # Defaults: pipelines.server.SessionLimits (None here keeps them).
    parser.add_argument(
        "--max-sessions", type=int, default=None, metavar="N",
        help="live sessions at most; more are refused with 1013 (0: no cap; default 16)",
    )  # fmt: skip
    parser.add_argument(
        "--handshake-timeout", type=float, default=None, metavar="S",
        help="seconds a new connection has to send RTVI client-ready (0: no limit; default 10)",
    )  # fmt: skip
    parser.add_argument(
        "--idle-timeout", type=float, default=None, metavar="S",
        help="close a client that sent nothing for this long (0: never; default 900)",
    )  # fmt: skip
    parser.add_argument(
        "--takeover-timeout", type=float, default=None, metavar="S",
        help="seconds for a session's older connection to close on a takeover (default 10)",
    )  # fmt: skip
    parser.add_argument(
        "--log-level",
        default="WARNING",
        help="loguru's level, ours and Pipecat's (default WARNING; INFO: per session)",
    )


def add_speech_arguments(parser: argparse.ArgumentParser) -> None:
    """What `speech_config` reads: the turn stop and the first phrase (replay)."""
    parser.add_argument("--turn-stop", default=None, choices=["vad", "speech_timeout", "smart_turn"])
    parser.add_argument(
        "--stop-secs", type=float, default=None, help="VAD stop_secs (silence that ends speech)"
    )
    parser.add_argument(
        "--smart-turn-fallback", type=float, default=None, metavar="S",
        help="with --turn-stop smart_turn: the silence after the VAD's stop that ends a turn it judged "
        "unfinished (default 3)",
    )  # fmt: skip
    parser.add_argument("--first-phrase-words", type=int, default=None, help="word limit of the first phrase")


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    """`voicecoach replay`."""
    parser.add_argument("path", help="a fixture WAV, a session JSON, or a folder of sessions")
    parser.add_argument(
        "--out",
        default=None,
        help="output folder (default: ~/.cache/voicecoach/runs/replay/<timestamp>; or $VOICECOACH_RUNS)",
    )
    add_mode_argument(parser)
    parser.add_argument(
        "--pack", default=None, metavar="PACK",
        help="a pack folder or an installed pack's id: the pack a lone WAV plays on (on its "
        "example_state.json), and the only one whose sessions run (default: each session on the pack its "
        "pack_id names; VOICECOACH_PACK)",
    )  # fmt: skip
    add_speech_arguments(parser)
    add_engine_arguments(parser, tuning=True)
    parser.add_argument("--sessions", default=None, help="comma-separated session ids to run (default all)")
    parser.add_argument("--max-turns", type=int, default=None, help="turns per session (default all)")
    parser.add_argument(
        "--turn-timeout", type=float, default=60.0, help="seconds for a coach turn to complete"
    )
    parser.add_argument("--no-warmup", action="store_true", help="do not prime the LLM's prompt cache")
    parser.add_argument(
        "--listen-only", action="store_true", help="VAD, STT and turn stop only (measures the turn stop)"
    )
