"""STT started at the silence onset: the real Silero VAD says when silence begins, and the real
faster-whisper transcribes from there; a pause that was not the end drops that transcription."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from pipecat.frames.frames import (
    Frame,
    InputAudioRawFrame,
    STTMetadataFrame,
    TranscriptionFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.tests.utils import SleepFrame, run_test

from voicecoach.coach.speech_config import SpeechConfig
from voicecoach.pipelines.speech.voice import (
    WHISPER_TTFS_P99_S,
    EmbeddedWhisperSTTService,
    SilenceOnsetFrame,
    SilenceOnsetVADProcessor,
    SpeechResumedFrame,
    vad_analyzer,
    whisper_model,
)

FIXTURE = Path(__file__).resolve().parents[2] / "audio_fixtures" / "s01" / "turn1.wav"  # "How do I beat
# their water team?", speech over at 1.8956 s
RATE = 16000
CHUNK = 320  # 20 ms


def chunks(pcm: np.ndarray) -> list[Frame]:
    return [
        InputAudioRawFrame(audio=pcm[i : i + CHUNK].tobytes(), sample_rate=RATE, num_channels=1)
        for i in range(0, len(pcm), CHUNK)
    ]


@pytest.fixture(scope="module")
def speech() -> np.ndarray:
    audio, rate = sf.read(FIXTURE, dtype="int16")
    assert rate == RATE
    return audio[: int(1.9 * RATE)]


@pytest.fixture(scope="module")
def model() -> Any:
    return whisper_model(SpeechConfig())


class CountingWhisper(EmbeddedWhisperSTTService):
    """The real service; it also notes how many samples each transcription was given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.given: list[int] = []

    def transcribe(self, audio: np.ndarray, abandon: threading.Event | None = None) -> str:
        self.given.append(len(audio))
        return super().transcribe(audio, abandon)


async def _transcribe(model: Any, frames: list[Frame], at_silence_onset: bool) -> tuple[str, list[int]]:
    stt = CountingWhisper(model, warm=False, at_silence_onset=at_silence_onset)
    down, _ = await run_test(stt, frames_to_send=[*frames, SleepFrame(3.0)])
    texts = [f.text for f in down if isinstance(f, TranscriptionFrame)]
    assert len(texts) == 1, texts
    return texts[0], stt.given


async def test_the_stt_says_how_late_its_final_transcript_can_come(model: Any) -> None:
    """Pipecat's aggregators read it; unset, Pipecat warns in the server's log on every connection."""
    down, _ = await run_test(EmbeddedWhisperSTTService(model, warm=False), frames_to_send=[])
    told = [f.ttfs_p99_latency for f in down if isinstance(f, STTMetadataFrame)]
    assert told == [WHISPER_TTFS_P99_S]


def _words(text: str) -> str:
    return " ".join(text.lower().replace("?", "").replace(".", "").split())


async def test_the_segment_is_transcribed_from_the_onset_with_the_same_words(
    model: Any, speech: np.ndarray
) -> None:
    hang = np.zeros(int(0.2 * RATE), dtype=np.int16)  # the VAD's stop_secs of silence
    frames = [
        VADUserStartedSpeakingFrame(), *chunks(speech), SilenceOnsetFrame(), *chunks(hang),
        VADUserStoppedSpeakingFrame(),
    ]  # fmt: skip
    early, given_early = await _transcribe(model, frames, at_silence_onset=True)
    late, given_late = await _transcribe(model, frames, at_silence_onset=False)
    assert _words(early) == _words(late) and "water team" in _words(early), (early, late)
    # One transcription each; the early one was given the audio as it stood at the onset.
    assert len(given_early) == len(given_late) == 1
    assert given_late[0] - given_early[0] == len(hang)


async def test_a_pause_that_was_not_the_end_drops_the_early_transcription(
    model: Any, speech: np.ndarray
) -> None:
    cut = int(0.9 * RATE)  # mid-sentence: "How do I beat ..."
    pause = np.zeros(int(0.1 * RATE), dtype=np.int16)
    frames = [
        VADUserStartedSpeakingFrame(), *chunks(speech[:cut]), SilenceOnsetFrame(), *chunks(pause),
        SleepFrame(0.1),  # the pause in real time: the early transcription is under way
        SpeechResumedFrame(), *chunks(speech[cut:]), SilenceOnsetFrame(), VADUserStoppedSpeakingFrame(),
    ]  # fmt: skip
    text, given = await _transcribe(model, frames, at_silence_onset=True)
    assert "water team" in _words(text), text  # the words after the pause are in the transcript
    assert len(given) == 2 and given[1] > given[0]  # the dropped early one, then the whole segment


async def test_an_early_transcription_still_queued_is_cancelled_when_speech_resumes(
    model: Any, speech: np.ndarray
) -> None:
    """Under load the STT executor is busy: the transcription begun at a pause waits in its queue,
    and is cancelled there when speech resumes instead of costing a whole decode."""
    busy = threading.Event()
    executor = ThreadPoolExecutor(max_workers=1)  # the server's one STT thread
    executor.submit(busy.wait, 10.0)  # another session's decode
    cut = int(0.9 * RATE)
    pause = np.zeros(int(0.1 * RATE), dtype=np.int16)
    frames = [
        VADUserStartedSpeakingFrame(), *chunks(speech[:cut]), SilenceOnsetFrame(), *chunks(pause),
        SpeechResumedFrame(), *chunks(speech[cut:]), SilenceOnsetFrame(), SleepFrame(0.2),
        VADUserStoppedSpeakingFrame(),
    ]  # fmt: skip
    stt = CountingWhisper(model, warm=False, at_silence_onset=True, executor=executor)
    try:
        task = asyncio.create_task(run_test(stt, frames_to_send=[*frames, SleepFrame(3.0)]))
        await asyncio.sleep(0.5)  # every frame is in: the early transcription is queued, then dropped
        busy.set()
        down, _ = await task
    finally:
        executor.shutdown(wait=True)
    [text] = [f.text for f in down if isinstance(f, TranscriptionFrame)]
    assert "water team" in _words(text), text
    assert len(given := stt.given) == 1 and given[0] > cut  # only the whole segment was decoded


async def test_the_vad_says_when_silence_begins_before_it_calls_the_speech_over(speech: np.ndarray) -> None:
    silence = np.zeros(int(0.6 * RATE), dtype=np.int16)
    processor = SilenceOnsetVADProcessor(vad_analyzer=vad_analyzer(SpeechConfig()))
    down, _ = await run_test(processor, frames_to_send=[*chunks(speech), *chunks(silence)])
    kinds = [type(f) for f in down if not isinstance(f, InputAudioRawFrame)]
    assert SilenceOnsetFrame in kinds and VADUserStoppedSpeakingFrame in kinds, kinds
    last_onset = len(kinds) - 1 - kinds[::-1].index(SilenceOnsetFrame)
    assert last_onset < kinds.index(VADUserStoppedSpeakingFrame)


async def test_the_shared_vad_runs_on_the_loop_with_the_stock_analyzers_states(speech: np.ndarray) -> None:
    """Pipecat's analyzer hands every 20 ms frame to a thread of its own and back; under load that
    hand-off waited for the GIL behind every session's frames. The shared one runs Silero on the
    loop (~0.2 ms a window): nothing is handed over, and the states are the same."""
    from pipecat.audio.vad.silero import SileroVADAnalyzer

    from voicecoach.actors.pipecat_compat import vad_executor
    from voicecoach.pipelines.speech.voice import (
        SharedSileroVADAnalyzer,
        silero_session,
        vad_params,
    )

    params = vad_params(SpeechConfig())
    shared = SharedSileroVADAnalyzer(silero_session(), sample_rate=RATE, params=params)
    stock = SileroVADAnalyzer(sample_rate=RATE, params=params)
    for analyzer in (shared, stock):
        analyzer.set_sample_rate(RATE)
    pcm = np.concatenate([speech, np.zeros(int(0.6 * RATE), dtype=np.int16)])
    frames = [pcm[i : i + CHUNK].tobytes() for i in range(0, len(pcm) - CHUNK + 1, CHUNK)]
    states = [(await shared.analyze_audio(f), await stock.analyze_audio(f)) for f in frames]
    assert all(a == b for a, b in states) and any(a.name == "SPEAKING" for a, _ in states)
    assert states[-1][0].name == "QUIET"  # the trailing silence ended the speech
    assert not vad_executor(shared)._threads  # no frame was handed to its thread
