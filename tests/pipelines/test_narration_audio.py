"""First reply audio (where the answer starts in the output), the narration audio cache (keying,
staleness), Piper's leading-silence trim, and the phrase chunker speaking a pack phrase whole."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from voicecoach.coach.speech_config import NarrationAudioCache, trim_leading_silence, trim_trailing_silence
from voicecoach.core.latency import (
    Event,
    Milestone,
    first_audible_after_bytes,
    first_reply_audio_ms,
    milestones_from_events,
    reply_lead_bytes,
)

RATE = 1000  # samples per second: 1 ms per sample keeps the arithmetic readable


def pcm(*parts: tuple[int, int]) -> bytes:
    """int16 PCM from (samples, amplitude) runs."""
    return np.concatenate([np.full(n, a, dtype=np.int16) for n, a in parts]).tobytes()


# --- first reply audio ---------------------------------------------------------------------------


def turn_events(narration_bytes: int = 400) -> list[Event]:
    """A turn released at t=1: the narration's phrase (its audio: `narration_bytes`), then the reply's
    two phrases; the TTS had pushed 1000 bytes in earlier turns."""
    return [
        Event(0.5, "phrase", detail={"part": "reply", "segment": 1}),  # an earlier turn's: ignored
        Event(1.0, Milestone.TURN_STOP),
        Event(1.1, "phrase", detail={"part": "narration", "segment": 10}),
        Event(1.2, "tts_audio", detail={"tts_bytes": 1000}),
        Event(1.3, "tts_text", detail={"segment": 10, "tts_bytes": 1000 + narration_bytes}),
        Event(1.5, "phrase", detail={"part": "reply", "segment": 11}),
        Event(1.6, "tts_text", detail={"segment": 11, "tts_bytes": 1000 + narration_bytes + 900}),
        Event(1.7, "phrase", detail={"part": "reply", "segment": 12}),
    ]


def test_the_reply_starts_after_the_narrations_audio():
    assert reply_lead_bytes(turn_events(400), after=1.0) == 400


def test_a_reply_spoken_first_starts_with_the_first_audio():
    # a baseline, or the cascade (whose derived phrase carries no part: it is its reply)
    events = [Event(1.0, Milestone.TURN_STOP), Event(1.1, "phrase", detail={"derived": "x"})]
    assert reply_lead_bytes(events, after=1.0) == 0


def test_no_reply_phrase_or_missing_tts_marks_give_no_figure():
    narration_only = [e for e in turn_events() if e.detail.get("part") != "reply" or e.t < 1.0]
    assert reply_lead_bytes(narration_only, after=1.0) is None
    no_text_mark = [e for e in turn_events() if not (e.kind == "tts_text" and e.detail["segment"] == 10)]
    assert reply_lead_bytes(no_text_mark, after=1.0) is None


def test_first_audible_after_bytes_skips_the_narration_and_the_silence_before_the_reply():
    chunks = [
        (0.2, pcm((100, 5000))),  # an earlier turn's audio: before `start`
        (2.0, pcm((50, 0), (50, 4000))),  # narration: 100 samples = 200 bytes
        (2.1, pcm((100, 4000))),  # narration: 200 more bytes
        (2.2, pcm((30, 0), (70, 3000))),  # the reply: 30 silent samples, then audible
    ]
    t = first_audible_after_bytes(chunks, start=2.0, lead_bytes=400, rate=RATE)
    assert t == pytest.approx(2.2 + 30 / RATE)
    # the reply begins inside a chunk: 150 samples in (300 bytes), audible 10 samples later
    mixed = [(2.0, pcm((150, 4000), (10, 0), (40, 2500)))]
    assert first_audible_after_bytes(mixed, 2.0, 300, RATE) == pytest.approx(2.0 + 160 / RATE)
    # an odd byte count rounds down to whole samples; all silence after it: no figure
    assert first_audible_after_bytes([(2.0, pcm((10, 4000), (90, 0)))], 2.0, 21, RATE) is None


def test_first_reply_audio_is_a_milestone_of_the_one_timeline():
    m = milestones_from_events(turn_events(), speech_end=0.8, first_audio=1.9, first_reply_audio=2.6)
    assert m[Milestone.FIRST_REPLY_AUDIO] == 2.6
    assert first_reply_audio_ms(m) == 1800.0
    assert first_reply_audio_ms({Milestone.SPEECH_END: 0.8}) is None


# --- the narration audio cache ---------------------------------------------------------------------


class Synth:
    """A synthesiser that records what it was asked for and returns audio naming its input."""

    def __init__(self, voice: str):
        self.voice, self.calls = voice, []

    def __call__(self, text: str) -> bytes:
        self.calls.append(text)
        return f"{self.voice}:{text}".encode()


def test_cache_synthesises_each_phrase_once_per_voice_and_rate():
    cache, joe = NarrationAudioCache(), Synth("joe")
    texts = ["Let me check.", "Okay,  building you a team now.", "Let me check."]
    assert cache.fill(texts, "joe.onnx", 22050, joe) == 2
    assert joe.calls == ["Let me check.", "Okay, building you a team now."]
    assert cache.fill(texts, "joe.onnx", 22050, joe) == 0  # already there: nothing synthesised
    built = cache.get("Okay, building you a team now.", "joe.onnx", 22050)
    assert built == b"joe:Okay, building you a team now."
    assert len(cache) == 2


def test_a_changed_phrase_voice_or_rate_is_never_served_stale():
    cache = NarrationAudioCache()
    cache.fill(["Let me check."], "joe.onnx", 22050, Synth("joe"))
    assert cache.get("Let me check.", "amy.onnx", 22050) is None  # another voice
    assert cache.get("Let me check.", "joe.onnx", 16000) is None  # another rate
    assert cache.get("Let me check that.", "joe.onnx", 22050) is None  # the phrase was edited
    amy = Synth("amy")
    assert cache.fill(["Let me check.", "Let me check that."], "amy.onnx", 22050, amy) == 2
    assert cache.get("Let me check.", "amy.onnx", 22050) == b"amy:Let me check."
    assert cache.get("Let me check.", "joe.onnx", 22050) == b"joe:Let me check."


def test_trim_leading_silence_keeps_a_few_ms_before_the_onset():
    audio = pcm((500, 0), (20, 100), (80, 6000))  # 520 silent samples (100 is under -40 dBFS)
    trimmed = trim_leading_silence(audio, RATE, keep_s=0.005)
    assert len(trimmed) == len(audio) - 2 * (520 - 5)
    assert np.frombuffer(trimmed, dtype=np.int16)[5] == 6000
    silent = pcm((100, 0))
    assert trim_leading_silence(silent, RATE) == silent


def test_trim_trailing_silence_keeps_a_breath_after_the_last_sound():
    audio = pcm((80, 6000), (20, 100), (900, 0))  # 920 silent samples after the last loud one
    trimmed = trim_trailing_silence(audio, RATE, keep_s=0.01)
    keep = round(0.01 * RATE)
    assert len(trimmed) == 2 * (80 + keep)
    assert np.frombuffer(trimmed, dtype=np.int16)[79] == 6000
    silent = pcm((100, 0))
    assert trim_trailing_silence(silent, RATE) == silent
    assert trim_trailing_silence(pcm((80, 6000)), RATE) == pcm((80, 6000))  # no tail: unchanged


# --- the phrase chunker -----------------------------------------------------------------------------


async def test_a_pack_phrase_is_spoken_whole_and_phrases_say_which_part_they_speak():
    from pipecat.frames.frames import EndFrame, Frame
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.worker import PipelineWorker
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
    from pipecat.workers.runner import WorkerRunner

    from voicecoach.actors.frames import NarrationEndFrame, NarrationTextFrame, ReplyTextFrame
    from voicecoach.coach.speech_config import SpeechConfig
    from voicecoach.pipelines.speech.voice import PhraseChunker, PhraseFrame

    spoken: list[tuple[str, str]] = []

    class TTS(FrameProcessor):
        async def process_frame(self, frame: Frame, direction: FrameDirection):
            await super().process_frame(frame, direction)
            if isinstance(frame, PhraseFrame):
                spoken.append((frame.part, frame.text))
            await self.push_frame(frame, direction)

    pack_phrase = "Let me put a team together from your pets."
    chunker = PhraseChunker(SpeechConfig(), whole=[pack_phrase])
    worker = PipelineWorker(Pipeline([chunker, TTS()]), idle_timeout_secs=None, enable_rtvi=False)
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    task = asyncio.create_task(runner.run())
    for frame in (
        NarrationTextFrame(text=pack_phrase, turn_index=0),
        NarrationEndFrame(turn_index=0),
        ReplyTextFrame(text="Lead with Emberfox and keep Rockram back.", turn_index=0),
        NarrationTextFrame(text="Let me think about your whole team here.", turn_index=1),  # not the pack's
        NarrationEndFrame(turn_index=1),
        EndFrame(),
    ):
        await worker.queue_frame(frame)
    await asyncio.wait_for(task, timeout=10)
    assert spoken == [
        ("narration", pack_phrase),  # whole: its audio is cached as one piece
        ("reply", "Lead with Emberfox and"),
        ("reply", "keep Rockram back."),
        ("narration", "Let me think about"),  # an LLM's narration is cut as before
        ("narration", "your whole team here."),
    ]
