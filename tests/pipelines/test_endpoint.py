"""What ends the player's turn: smart-turn on a real fixture, and how `bench endpoint` scores pairs."""

from __future__ import annotations

from pathlib import Path

from voicecoach.bench.fixtures import load_session
from voicecoach.coach.engines import Engines
from voicecoach.coach.session import CoachConfig
from voicecoach.coach.speech_config import SpeechConfig
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
    assert report.milestones_ms["turn_stop"] < 1000.0  # not the 3 s fallback: judged finished


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
