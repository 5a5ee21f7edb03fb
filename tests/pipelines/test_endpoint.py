"""What ends the player's turn: smart-turn and the text-aware hold on a real fixture, how `bench
endpoint` scores pairs, and the hold's strategy on scripted VAD and transcript frames."""

from __future__ import annotations

from pathlib import Path

from voicecoach.bench.fixtures import load_session
from voicecoach.coach.engines import Engines
from voicecoach.coach.session import CoachConfig
from voicecoach.coach.speech_config import SpeechConfig
from voicecoach.coach.turn_hold import TurnHoldConfig
from voicecoach.llm.client import LLMConfig, NoLLM
from voicecoach.pipelines.bench.endpoint import pair_outcome
from voicecoach.pipelines.replay import ReplayOptions, replay_fixtures

FIXTURES = Path(__file__).resolve().parents[2] / "audio_fixtures"


async def test_smart_turn_hears_an_utterance_with_a_pause_inside_as_one_turn(tmp_path: Path) -> None:
    # "Hi coach, I just started playing." (espeak-ng en-us+f3, a pause after "coach"): the silence
    # rule hands the coach "Hi coach," alone (docs/BENCHMARKS.md, "One question per pause");
    # smart-turn judges it unfinished (p 0.05) and the whole of it finished (p 0.93). Real Silero,
    # Whisper and smart-turn v3.2, listening only.
    fixture = load_session(FIXTURES / "s07.json")
    fixture.turns = fixture.turns[:1]
    speech = SpeechConfig(turn_stop="smart_turn")
    options = ReplayOptions(out_dir=tmp_path, listen_only=True)
    engines = Engines(llm=NoLLM(LLMConfig()))
    [report] = await replay_fixtures([fixture], engines, CoachConfig(), speech, options)

    assert report.user_turns == 1, (report.transcript, report.problems)
    words = report.transcript.lower()
    assert words.startswith(("hi", "high")) and "started playing" in words, (
        report.transcript
    )  # "High Cult, ..."
    # Judged finished, not ended by the 3 s fallback (with room for a slower machine's Whisper).
    assert report.milestones_ms["turn_stop"] < 2000.0, report.milestones_ms


async def test_the_text_hold_hears_a_statement_then_its_question_as_one_turn(tmp_path: Path) -> None:
    # "Galehawk just evolved. What skills does it have?" (s05, a ~0.2 s pause after "evolved"): the
    # silence rule hands the coach the first sentence alone (docs/BENCHMARKS.md, "One question per
    # pause"); with the hold the statement keeps the turn open, the question after it ends the turn
    # at the VAD's stop. Real Silero and Whisper, listening only.
    fixture = load_session(FIXTURES / "s05.json")
    fixture.turns = fixture.turns[3:]
    speech = SpeechConfig(hold=TurnHoldConfig(enabled=True))
    options = ReplayOptions(out_dir=tmp_path, listen_only=True)
    engines = Engines(llm=NoLLM(LLMConfig()))
    [report] = await replay_fixtures([fixture], engines, CoachConfig(), speech, options)

    assert report.user_turns == 1, (report.transcript, report.problems)
    assert report.transcript.rstrip().endswith("have?"), report.transcript
    # The question ended it as soon as it was transcribed: no hold after it (a statement's is 750 ms).
    # Measured from the transcript, not the speech end, so a slower machine's Whisper does not fail it.
    m = report.milestones_ms
    assert m["turn_stop"] - m["stt_final"] < 300.0, m


def _rows(*events: tuple[float, str]) -> list[dict[str, object]]:
    return [{"ms": ms, "event": kind} for ms, kind in events]


def test_a_pair_is_apart_merged_or_continued_by_when_the_first_question_was_handed_over() -> None:
    # The first question ends 2 s before the pair's speech end, the second starts 1 s after it.
    times = {"first_end_s": -2.0, "second_start_s": -1.0}
    handed_then_quiet = _rows((-1750.0, "turn_stop"), (-800.0, "user_started"))
    assert pair_outcome(handed_then_quiet, **times) == "continued"  # 950 ms: Session continues it
    handed_long_before = _rows((-1950.0, "turn_stop"), (-800.0, "user_started"))
    assert pair_outcome(handed_long_before, **times) == "apart"  # 1150 ms: a question of its own
    waited = _rows((-800.0, "user_started"), (300.0, "turn_stop"))
    assert pair_outcome(waited, **times) == "merged"  # nothing handed over between the two


# --- the text-aware hold (HoldingTurnStopStrategy) through Pipecat's UserTurnProcessor and TurnGate ---


async def _turns(steps: list[object], hold: TurnHoldConfig) -> list[tuple[float, str]]:
    """Queue (frame or pause seconds) steps through UserTurnProcessor(the silence rule with `hold`)
    and TurnGate; the transcripts handed to the coach and when, in s after the last step."""
    import asyncio
    import time

    from pipecat.frames.frames import EndFrame, Frame, TranscriptionFrame
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.worker import PipelineWorker
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
    from pipecat.turns.user_turn_processor import UserTurnProcessor
    from pipecat.workers.runner import WorkerRunner

    from voicecoach.pipelines.speech.voice import HoldingTurnStopStrategy, TurnGate, turn_strategies

    handed: list[tuple[float, str]] = []
    clock = {"last": time.monotonic()}

    class Coach(FrameProcessor):
        async def process_frame(self, frame: Frame, direction: FrameDirection):
            await super().process_frame(frame, direction)
            if isinstance(frame, TranscriptionFrame):
                handed.append((time.monotonic() - clock["last"], frame.text))
            await self.push_frame(frame, direction)

    strategies = turn_strategies(SpeechConfig(hold=hold))
    assert strategies.stop is not None and isinstance(strategies.stop[0], HoldingTurnStopStrategy)
    turns = UserTurnProcessor(user_turn_strategies=strategies, user_turn_stop_timeout=5.0)
    worker = PipelineWorker(Pipeline([turns, TurnGate(), Coach()]), idle_timeout_secs=None, enable_rtvi=False)
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    task = asyncio.create_task(runner.run())
    await asyncio.sleep(0.2)
    for step in steps:
        if isinstance(step, float):
            await asyncio.sleep(step)
        else:
            await worker.queue_frame(step)  # type: ignore[arg-type]
            await asyncio.sleep(0.02)  # system and data frames keep their order here
        clock["last"] = time.monotonic()
    await asyncio.sleep(1.5)
    await worker.queue_frame(EndFrame())
    await asyncio.wait_for(task, timeout=10)
    return handed


def _start() -> object:
    from pipecat.frames.frames import VADUserStartedSpeakingFrame

    return VADUserStartedSpeakingFrame()


def _stop() -> object:
    from pipecat.frames.frames import VADUserStoppedSpeakingFrame

    return VADUserStoppedSpeakingFrame(stop_secs=0.2)


def _said(text: str) -> object:
    from pipecat.frames.frames import TranscriptionFrame

    return TranscriptionFrame(text=text, user_id="", timestamp="", finalized=True)


HOLD = TurnHoldConfig(statement_s=0.5, unfinished_s=0.7, onset_grace_s=0.3)


async def test_a_finished_question_ends_the_turn_at_the_stop() -> None:
    handed = await _turns([_start(), _stop(), _said(" What skills does it have? ")], HOLD)
    assert [text for _, text in handed] == ["What skills does it have?"]
    assert handed[0][0] < 0.15  # no hold


async def test_a_statement_is_held_and_the_question_after_the_pause_joins_it() -> None:
    # "It evolved." <0.4 s> "What skills does it have?": one turn, handed over at the question's stop.
    question = [_start(), _stop(), _said("What skills does it have?")]
    steps = [_start(), _stop(), _said("It evolved."), 0.4, *question]
    handed = await _turns(steps, HOLD)
    assert [text for _, text in handed] == ["It evolved. What skills does it have?"]
    assert handed[0][0] < 0.15


async def test_a_transcript_late_after_speech_resumed_still_joins_the_turn() -> None:
    steps = [_start(), _stop(), _start(), _said("Thanks coach,"), _stop(), _said("what should I run?")]
    handed = await _turns(steps, HOLD)
    assert [text for _, text in handed] == ["Thanks coach, what should I run?"]


async def test_a_statement_alone_ends_the_turn_when_its_hold_is_over() -> None:
    handed = await _turns([_start(), _stop(), _said("It evolved.")], HOLD)
    assert [text for _, text in handed] == ["It evolved."]
    assert 0.45 < handed[0][0] < 0.75  # statement_s, not the 5 s watchdog


async def test_an_unfinished_clause_is_held_longer_and_a_voiced_window_extends_the_hold() -> None:
    from voicecoach.pipelines.speech.voice import SpeechOnsetFrame

    handed = await _turns([_start(), _stop(), _said("Thanks coach,")], HOLD)
    assert 0.65 < handed[0][0] < 0.95  # unfinished_s
    # A voiced window 0.5 s into a 0.7 s hold that the VAD never confirms: 0.3 s more from it.
    steps = [_start(), _stop(), _said("Thanks coach,"), 0.48, SpeechOnsetFrame()]
    handed = await _turns(steps, HOLD)
    assert [text for _, text in handed] == ["Thanks coach,"]
    assert 0.25 < handed[0][0] < 0.5


async def test_two_questions_a_second_apart_stay_two_turns() -> None:
    second = [_start(), _stop(), _said("Who should I evolve next?")]
    steps = [_start(), _stop(), _said("Do I have Hexmoth?"), 0.8, *second]
    handed = await _turns(steps, HOLD)
    assert [text for _, text in handed] == ["Do I have Hexmoth?", "Who should I evolve next?"]


async def test_a_finished_question_waits_when_speech_has_begun_again_before_its_transcript() -> None:
    from voicecoach.pipelines.speech.voice import SpeechOnsetFrame

    # "Who beats their tank?" read at the stop while "or their healer?" has begun.
    steps = [_start(), _stop(), SpeechOnsetFrame(), _said("Who beats their tank?"), 0.15]
    handed = await _turns([*steps, _start(), _stop(), _said("Or their healer?")], HOLD)
    assert [text for _, text in handed] == ["Who beats their tank? Or their healer?"]
    # ... and a voiced window the VAD never confirms costs onset_grace_s, no more.
    handed = await _turns(steps[:-1], HOLD)
    assert [text for _, text in handed] == ["Who beats their tank?"]
    assert 0.2 < handed[0][0] < 0.45


async def test_the_vads_flickering_start_keeps_a_hold_open_until_it_calls_the_speech() -> None:
    from voicecoach.pipelines.speech.voice import SpeechOnsetFrame

    # "We took round one." then voiced windows the VAD drops again (a breath, the next word's
    # onset) 0.4-1.0 s after its stop, then its start: one turn (s04's fourth utterance).
    flicker = [0.36, SpeechOnsetFrame(), 0.2, SpeechOnsetFrame(), 0.2, SpeechOnsetFrame(), 0.2]
    question = [_start(), _stop(), _said("Keep the same team?")]
    handed = await _turns([_start(), _stop(), _said("We took round one."), *flicker, *question], HOLD)
    assert [text for _, text in handed] == ["We took round one. Keep the same team?"]
    # ... and voiced windows that never become speech hold it at most onset_max_s past the hold.
    noise = [_start(), _stop(), _said("We took round one.")] + [SpeechOnsetFrame(), 0.1] * 20
    handed = await _turns(noise, HOLD)
    assert [text for _, text in handed] == ["We took round one."]
