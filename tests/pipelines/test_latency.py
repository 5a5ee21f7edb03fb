"""S2FA arithmetic, percentiles, WER, first-phrase cutting, and the replay transports' clocks."""

from __future__ import annotations

import asyncio
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from voicecoach.coach.speech_config import PhraseCutter
from voicecoach.core.latency import (
    STAGES,
    Event,
    LoopLag,
    Milestone,
    critical_path,
    first_audio_clock,
    first_non_silent,
    is_ordered,
    milestones_from_events,
    percentile,
    s2fa_ms,
    since,
    speech_end_clock,
    summarize,
    wer,
)

# --- clocks ----------------------------------------------------------------------------------


def test_speech_end_is_mapped_back_from_its_frames_delivery():
    push = [10.02 + 0.02 * j + 0.001 * j for j in range(10)]  # delivery drifts a little late
    # 0.05 s is in frame 2 ([0.04, 0.06)), delivered at push[2]; it was spoken 10 ms before that.
    assert speech_end_clock(push, 0.02, 0.05) == pytest.approx(push[2] - 0.01)
    # A sample on a frame boundary belongs to the frame it ends.
    assert speech_end_clock(push, 0.02, 0.04) == pytest.approx(push[1])
    assert speech_end_clock(push, 0.02, 0.0) == pytest.approx(push[0] - 0.02)


def test_speech_end_past_the_delivered_audio_is_an_error():
    with pytest.raises(ValueError):
        speech_end_clock([1.0, 1.02], 0.02, 0.5)
    with pytest.raises(ValueError):
        speech_end_clock([], 0.02, 0.01)


def test_first_non_silent_finds_the_onset_of_a_synthetic_signal():
    rng = np.random.default_rng(7)
    samples = (rng.normal(0, 40, 2000)).astype(np.int16)  # hiss far under the threshold
    onset = 1234
    tone = (8000 * np.sin(2 * np.pi * 440 * np.arange(500) / 22050)).astype(np.int16)
    tone[0] = 9000  # the onset itself is loud
    samples[onset : onset + 500] = tone
    assert first_non_silent(samples) == onset
    assert first_non_silent(np.zeros(100, dtype=np.int16)) is None
    assert first_audio_clock(5.0, onset, 22050) == pytest.approx(5.0 + onset / 22050)


# --- milestones and breakdown ----------------------------------------------------------------

MILESTONES = {
    "speech_end": 100.0,
    "vad_stop": 100.25,
    "stt_final": 100.70,
    "turn_stop": 100.701,
    "speaking_call": 100.701,
    "w1_first_token": 100.80,
    "speaking_first_token": 100.80,
    "first_narration_token": 101.0,
    "first_phrase": 101.1,
    "tts_first_byte": 101.3,
    "first_audio": 101.35,
    "c1": 100.95,
}


def test_s2fa_and_milestones_since_speech_end():
    assert s2fa_ms(MILESTONES) == pytest.approx(1350.0)
    assert s2fa_ms({**MILESTONES, "first_audio": None}) is None
    ms = since(MILESTONES, 100.0)
    assert ms["vad_stop"] == pytest.approx(250.0) and ms["speech_end"] == 0.0
    assert "tool_results" not in since({**MILESTONES, "tool_results": None}, 100.0)


def test_critical_path_stages_sum_to_s2fa_even_with_gaps():
    stages = critical_path(MILESTONES)
    assert [label for label, _ in stages] == [label for label, _ in STAGES]
    assert dict(stages)["LLM TTFT"] == pytest.approx(99.0)  # the speaking call's request → first token
    assert sum(ms for _, ms in stages) == pytest.approx(s2fa_ms(MILESTONES), abs=0.5)
    gappy = {**MILESTONES, "speaking_first_token": None, "first_phrase": None}
    stages = critical_path(gappy)
    assert "LLM TTFT" not in dict(stages) and "text to TTS" not in dict(stages)
    assert sum(ms for _, ms in stages) == pytest.approx(s2fa_ms(gappy), abs=0.5)
    # the same stages on a timeline in ms
    in_ms = {name: (t - 100.0) * 1000.0 for name, t in MILESTONES.items()}
    assert critical_path(in_ms, unit_ms=1.0) == critical_path(MILESTONES)


def test_ordering_check():
    assert is_ordered(MILESTONES, ["speech_end", "stt_final", "first_audio"])
    assert not is_ordered(MILESTONES, ["first_audio", "stt_final"])
    assert not is_ordered(MILESTONES, ["speech_end", "tool_results"])  # missing


def test_milestones_from_a_split_turn_take_the_last_user_turn_and_the_completed_coach_turn():
    events = [
        Event(1.0, "vad_stop"),
        Event(1.3, "stt_final"),
        Event(1.31, "turn_stop"),
        Event(1.315, "llm_request", detail={"label": "w1"}),
        Event(1.4, "w1_first_token", detail={"label": "w1"}),  # the cancelled coach turn's W1
        Event(1.5, "c1", turn=3),
        Event(1.6, "vad_stop"),
        Event(2.0, "stt_final"),
        Event(2.01, "turn_stop"),
        Event(2.02, "llm_request", detail={"label": "w1"}),
        Event(2.1, "w1_first_token", detail={"label": "w1"}),
        Event(2.3, "c1", turn=4),
        Event(2.35, "first_narration_token", turn=4),
        Event(2.4, "phrase"),
        Event(2.6, "tts_audio"),
        Event(2.7, "llm_request", detail={"label": "talker"}),
        Event(3.0, "llm_first_token", detail={"label": "talker"}),
        Event(3.0, "reply_first_token", turn=4),
        Event(3.5, "turn_completed", turn=4),
    ]
    m = milestones_from_events(events, speech_end=1.45, first_audio=2.65, config="sgc_full")
    assert m["vad_stop"] == 1.6 and m["stt_final"] == 2.0 and m["turn_stop"] == 2.01
    assert m["w1_first_token"] == 2.1 and m["c1"] == 2.3 and m["first_narration_token"] == 2.35
    assert m["first_phrase"] == 2.4 and m["tts_first_byte"] == 2.6
    assert m["reply_first_token"] == 3.0 and m["turn_completed"] == 3.5
    assert m["tool_dispatch"] is None and m["first_audio"] == 2.65
    assert s2fa_ms(m) == pytest.approx(1200.0)
    # heard through W1's narration: the speaking call is the completed turn's W1 call
    assert (m[Milestone.SPEAKING_CALL], m[Milestone.SPEAKING_FIRST_TOKEN]) == (2.02, 2.1)
    # prompting is heard through its reply call
    m = milestones_from_events(events, speech_end=1.45, first_audio=2.65, config="prompting")
    assert (m[Milestone.SPEAKING_CALL], m[Milestone.SPEAKING_FIRST_TOKEN]) == (2.7, 3.0)


# --- percentiles -----------------------------------------------------------------------------


@given(st.lists(st.floats(min_value=-1e6, max_value=1e6), min_size=1, max_size=50), st.floats(0, 100))
def test_percentile_matches_numpy(values, q):
    assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)), rel=1e-9, abs=1e-6)


def test_summary_and_bad_percentiles():
    s = summarize([100.0, 200.0, 300.0, 400.0, 1000.0])
    assert s is not None and s.n == 5 and s.p50 == 300.0 and s.min == 100.0 and s.max == 1000.0
    assert s.p90 == pytest.approx(760.0) and s.as_dict()["mean"] == 400.0
    assert summarize([]) is None
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1.0], 101)


# --- WER -------------------------------------------------------------------------------------


def test_wer():
    assert wer("How do I beat their water team?", "how do i beat their water team") == 0.0
    assert wer("Can Emberfox use Inferno Roar yet?", "Can Emberfox use Inferno War yet?") == pytest.approx(
        1 / 6
    )
    assert wer("Can Emberfox use Inferno Roar yet?", "Can Ember Fox use Inferno Roar yet") == pytest.approx(
        2 / 6
    )
    assert wer("one two three", "") == 1.0
    assert wer("", "") == 0.0 and wer("", "extra") == 1.0
    assert wer("a b c d", "a x c d e") == pytest.approx(2 / 4)


# --- first phrase ----------------------------------------------------------------------------


def _stream(cutter: PhraseCutter, tokens: list[str]) -> list[tuple[int, str]]:
    """(index of the token that completed the phrase, phrase)."""
    out = [(i, p) for i, tok in enumerate(tokens) for p in cutter.feed(tok)]
    rest = cutter.flush()
    return out + ([(len(tokens), rest)] if rest else [])


def test_first_phrase_is_cut_at_the_first_punctuation_as_soon_as_the_next_word_starts():
    tokens = ["Sure", ",", " let", " me", " check", " your", " team", ".", " Emberfox", " is", " ready", "."]
    phrases = _stream(PhraseCutter(first_max_words=4, max_words=24), tokens)
    assert phrases[0] == (2, "Sure,")  # out at " let", not at the end of the sentence
    assert [p for _, p in phrases] == ["Sure,", "let me check your team.", "Emberfox is ready."]


def test_first_phrase_without_punctuation_is_cut_at_its_word_limit():
    tokens = ["Let", " me", " look", " at", " your", " whole", " lineup", " now"]
    phrases = _stream(PhraseCutter(first_max_words=4, max_words=24), tokens)
    assert phrases == [(4, "Let me look at"), (8, "your whole lineup now")]


def test_phrases_keep_numbers_whole_and_later_phrases_end_at_sentences():
    cutter = PhraseCutter(first_max_words=3, max_words=5)
    phrases = _stream(
        cutter,
        ["It", " deals", " 3.5", "x", ",", " so", " pick", " it", ",", " then", " swap", " late", " ok"],
    )
    assert [p for _, p in phrases] == ["It deals 3.5x,", "so pick it, then swap", "late ok"]
    cutter.reset()
    assert cutter.feed("Hi! ") == ["Hi!"]


# --- replay transports -----------------------------------------------------------------------


async def _run_pipeline(processors, body, params=None):
    from pipecat.frames.frames import EndFrame
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.worker import PipelineWorker
    from pipecat.workers.runner import WorkerRunner

    worker = PipelineWorker(Pipeline(processors), params=params, idle_timeout_secs=None, enable_rtvi=False)
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    task = asyncio.create_task(runner.run())
    try:
        await body(worker)
    finally:
        await worker.queue_frame(EndFrame())
        try:
            await asyncio.wait_for(task, timeout=10)
        except TimeoutError:
            await runner.cancel()


async def test_replay_input_paces_frames_in_real_time_and_sends_silence_after():
    from pipecat.frames.frames import Frame, InputAudioRawFrame
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

    from voicecoach.pipelines.replay import ReplayInput

    arrivals: list[tuple[float, bytes]] = []

    class Mic(FrameProcessor):
        async def process_frame(self, frame: Frame, direction: FrameDirection):
            await super().process_frame(frame, direction)
            if isinstance(frame, InputAudioRawFrame):
                arrivals.append((time.monotonic(), frame.audio))
            await self.push_frame(frame, direction)

    source = ReplayInput()
    tone = 0.5 * np.sin(2 * np.pi * 300 * np.arange(8000) / 16000)  # 0.5 s

    async def body(_worker):
        await asyncio.wait_for(source.ready.wait(), 10)
        await asyncio.sleep(0.2)
        playback = source.play(tone)
        await asyncio.wait_for(playback.done.wait(), 5)
        started = playback.push_times[0]
        await asyncio.sleep(0.4)
        # 25 frames of 20 ms, delivered 20 ms apart: 480 ms from the first to the last.
        assert len(playback.push_times) == 25
        # Wide tolerances: a loaded CI core delays single wake-ups; unpaced (0 s) or a wrong frame
        # size (0.24 / 0.96 s) still fail.
        assert playback.push_times[-1] - started == pytest.approx(0.48, abs=0.1)
        during = [a for t, a in arrivals if started - 0.001 <= t <= playback.push_times[-1] + 0.01]
        after = [a for t, a in arrivals if t > playback.push_times[-1] + 0.01]
        assert all(len(a) == 640 for _, a in arrivals)  # 20 ms of 16-bit mono at 16 kHz
        assert sum(1 for a in during if any(a)) >= 24
        assert len(after) >= 15 and not any(any(a) for a in after)  # silence keeps coming
        # Real-time pace overall, within tolerance: frames per second of wall time.
        span = arrivals[-1][0] - arrivals[0][0]
        assert (len(arrivals) - 1) * 0.02 == pytest.approx(span, abs=0.15)

    await _run_pipeline([source, Mic()], body)


async def test_replay_output_records_chunks_at_play_time_and_finds_the_first_audible_sample():
    from pipecat.frames.frames import OutputAudioRawFrame
    from pipecat.pipeline.worker import PipelineParams

    from voicecoach.pipelines.replay import ReplayOutput

    rate = 22050
    sink = ReplayOutput()
    lead = 4410  # 200 ms of silence before the sound
    pcm = np.zeros(rate, dtype=np.int16)  # 1 s
    pcm[lead:] = (10000 * np.sin(2 * np.pi * 220 * np.arange(rate - lead) / rate)).astype(np.int16)
    pcm[lead] = 12000

    async def body(worker):
        await asyncio.wait_for(sink.ready.wait(), 10)
        sent = time.monotonic()
        await worker.queue_frame(OutputAudioRawFrame(audio=pcm.tobytes(), sample_rate=rate, num_channels=1))
        await asyncio.sleep(1.3)
        starts = [t for t, _ in sink.chunks]
        assert starts and starts[0] >= sent
        # Played, not dumped: the chunks' start times advance by their duration (real time).
        assert starts[-1] - starts[0] == pytest.approx(1.0 - len(sink.chunks[-1][1]) / 2 / rate, abs=0.03)
        first = sink.first_audible(sent)
        assert first == pytest.approx(starts[0] + lead / rate, abs=1 / rate)
        rendered = sink.render(starts[0], starts[0] + 1.0)
        assert first_non_silent(rendered) == pytest.approx(lead, abs=2)

    await _run_pipeline([sink], body, params=PipelineParams(audio_out_sample_rate=rate))


async def test_loop_lag_reports_how_late_a_blocked_loop_woke() -> None:
    lag = LoopLag(every_s=0.01)
    assert lag.summary() == {"p50": None, "p99": None, "max": None}
    task = asyncio.create_task(lag.run())
    await asyncio.sleep(0.1)
    time.sleep(0.2)  # a callback that holds the loop: everything due waits for it
    await asyncio.sleep(0.05)
    task.cancel()
    summary = lag.summary()
    assert summary["max"] is not None and summary["max"] >= 150.0
    assert summary["p50"] is not None and summary["p50"] < 50.0  # the other wake-ups were on time
