"""Whisper's encoder on a window fitted to the segment (pipelines/speech/whisper.py): the real tiny.en
reads a few seconds plus their padding instead of 30 s, and hears the fixtures as well."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from faster_whisper import WhisperModel

from voicecoach.bench.fixtures import discover, load_audio
from voicecoach.coach.speech_config import SpeechConfig
from voicecoach.core.latency import wer
from voicecoach.domain.pack import load_pack
from voicecoach.pipelines.speech.voice import (
    EmbeddedWhisperSTTService,
    whisper_model,
    whisper_prompt,
)
from voicecoach.pipelines.speech.whisper import FULL_WINDOW, fitted_window

FIXTURES = Path(__file__).resolve().parents[2] / "audio_fixtures"


def test_the_window_holds_the_content_and_five_seconds_of_padding_in_ten_second_steps() -> None:
    assert fitted_window(300, 1000, 500) == 1000  # a 3 s command: a 10 s window
    assert fitted_window(500, 1000, 500) == 1000
    assert fitted_window(501, 1000, 500) == 2000  # less than 5 s of padding left: the next step
    assert fitted_window(2400, 1000, 500) == FULL_WINDOW
    assert fitted_window(2900, 1000, 500) == FULL_WINDOW  # never more than Whisper's 30 s
    assert fitted_window(300, FULL_WINDOW, 500) == FULL_WINDOW  # step 30 s: faster-whisper's own


@pytest.fixture(scope="module")
def fitted() -> Any:
    return whisper_model(SpeechConfig())


@pytest.fixture(scope="module")
def every_utterance() -> list[tuple[str, np.ndarray]]:
    sessions, _ = discover(FIXTURES)
    return [(t.transcript, load_audio(s.audio_path(t))) for s in sessions for t in s.turns]


@pytest.fixture(scope="module")
def utterances(every_utterance: list[tuple[str, np.ndarray]]) -> list[tuple[str, np.ndarray]]:
    return every_utterance[::3]


def test_the_encoder_reads_the_fitted_window(
    fitted: Any, utterances: list[tuple[str, np.ndarray]], monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[int] = []
    encode = WhisperModel.encode

    def spy(self: Any, features: np.ndarray) -> Any:
        read.append(features.shape[-1])
        return encode(self, features)

    monkeypatch.setattr(WhisperModel, "encode", spy)
    _, audio = utterances[0]  # 2-6 s of speech and silence
    EmbeddedWhisperSTTService(fitted, warm=False).transcribe(audio)
    assert read == [1000]


def test_the_fitted_window_hears_the_fixtures_as_well_as_the_30_s_one(
    fitted: Any, every_utterance: list[tuple[str, np.ndarray]]
) -> None:
    # All 48: on a third of them either window can come out 0.03 ahead (beam 5: 0.156 against
    # 0.129 on one third, 0.073 against 0.114 on another); on all of them 0.089 against 0.090.
    utterances = every_utterance
    prompt = whisper_prompt(load_pack("pet_arena"))
    stt = EmbeddedWhisperSTTService(fitted, initial_prompt=prompt, warm=False)
    step = fitted.step
    try:
        heard = [stt.transcribe(audio) for _, audio in utterances]
        fitted.step = FULL_WINDOW  # faster-whisper's 30 s window
        full = [wer(ref, stt.transcribe(audio)) for ref, audio in utterances]
    finally:
        fitted.step = step
    short = [wer(ref, text) for (ref, _), text in zip(utterances, heard, strict=True)]
    assert sum(short) / len(short) <= sum(full) / len(full) + 0.02, (short, full)
    # A window too short makes tiny.en say the question again and again: none does here.
    for (ref, _), text in zip(utterances, heard, strict=True):
        assert len(text.split()) <= len(ref.split()) + 2, (ref, text)


def test_a_decode_may_produce_only_so_many_tokens_a_second_of_audio(
    fitted: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hallucination loop through the six fallback temperatures, each up to 448 tokens, held the
    STT queue every session shares; the bound is three times what fast speech needs."""
    asked: list[int] = []
    transcribe = fitted.transcribe

    def spy(audio: np.ndarray, **options: Any) -> Any:
        asked.append(options["max_new_tokens"])
        return transcribe(audio, **options)

    monkeypatch.setattr(fitted, "transcribe", spy)
    stt = EmbeddedWhisperSTTService(fitted, warm=False)
    stt.transcribe(np.zeros(16000 * 2, dtype=np.float32))
    stt.transcribe(np.zeros(16000 * 10, dtype=np.float32))
    assert asked == [12 * 2 + 16, 12 * 10 + 16]


def test_a_decode_given_up_stops_before_its_next_fallback_temperature(fitted: Any) -> None:
    """The six fallback temperatures are six CTranslate2 `generate` calls: once the caller has
    given the decode up (speech resumed after the pause it began at), the next one is not made."""
    from voicecoach.pipelines.speech.whisper import DecodeAbandoned, abandonable

    calls: list[str] = []
    given_up = threading.Event()
    inner = fitted.model._model

    class Recording:
        def generate(self, *args: Any, **kwargs: Any) -> str:
            calls.append("generate")
            given_up.set()  # the player spoke on while this temperature ran
            return "ran"

    fitted.model._model = Recording()
    try:
        with abandonable(given_up):
            assert fitted.model.generate("features", ["prompt"]) == "ran"
            with pytest.raises(DecodeAbandoned):
                fitted.model.generate("features", ["prompt"])
        assert fitted.model.generate("features", ["prompt"]) == "ran"  # outside: not watched
    finally:
        fitted.model._model = inner
    assert calls == ["generate", "generate"]
    # The service says nothing of a decode given up, and decodes as before without the event.
    stt = EmbeddedWhisperSTTService(fitted, warm=False)
    sessions, _ = discover(FIXTURES)
    audio = load_audio(sessions[0].audio_path(sessions[0].turns[0]))  # "How do I beat their water team?"
    assert stt.transcribe(audio, given_up) == ""
    assert "water team" in stt.transcribe(audio).lower()


def test_a_decode_whisper_is_unsure_of_tries_only_the_configured_temperatures(fitted: Any) -> None:
    """faster-whisper retries a decode that fails its quality check at each fallback temperature
    (six by default, five sampled hypotheses each after the first): on a short, unclear snippet
    over a second of the STT thread every session shares. The server's STT tries STTConfig's."""
    from voicecoach.pipelines.speech.voice import SpeechEngines, stt_service

    tried: list[float] = []
    inner = fitted.model._model

    class Unsure:
        """The real decoder, each of whose results fails the average log-probability check."""

        def __getattr__(self, name: str) -> Any:
            return getattr(inner, name)

        def generate(self, *args: Any, **kwargs: Any) -> list[SimpleNamespace]:
            tried.append(kwargs.get("sampling_temperature", 0.0))
            [result] = inner.generate(*args, **kwargs)
            return [SimpleNamespace(sequences_ids=result.sequences_ids, scores=[-20.0], no_speech_prob=0.0)]

    sessions, _ = discover(FIXTURES)
    audio = load_audio(sessions[0].audio_path(sessions[0].turns[0]))
    heard = {}
    fitted.model._model = Unsure()
    try:
        for temperatures in ([0.0, 0.2, 0.4, 0.6, 0.8, 1.0], SpeechConfig().stt.temperatures):
            speech = SpeechConfig.model_validate({"stt": {"temperatures": temperatures}})
            stt = stt_service(speech, engines=SpeechEngines(speech=speech, silero=None, whisper=fitted))
            assert isinstance(stt, EmbeddedWhisperSTTService)
            tried.clear()
            heard[len(temperatures)] = stt.transcribe(audio)
            assert tried == temperatures  # every one tried: the check failed each time
    finally:
        fitted.model._model = inner
    assert SpeechConfig().stt.temperatures == [0.0]  # greedy only: one decode a piece
    assert "water team" in heard[1].lower()  # and its words are kept, not dropped as unsure
