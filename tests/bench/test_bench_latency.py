"""`voicecoach bench latency`: the table arithmetic on synthetic turns, and one fixture turn through
`sgc_full` and the stock Pipecat cascade on the real VAD / STT / TTS against the scripted LLM."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from voicecoach.domain.pack import load_pack
from voicecoach.pipelines.bench.latency import (
    STAGES,
    BenchOptions,
    config_summary,
    markdown,
    ratios,
    run_bench,
    scripted_router,
    stage_breakdown,
    targets,
    turn_overhead,
)
from voicecoach.pipelines.replay import TurnReport
from voicecoach.testing.scripted_llm import ScriptedLLMServer

FIXTURES = Path(__file__).resolve().parents[2] / "audio_fixtures"

# One SGC turn on the replay's timeline (ms since speech end): every stage of the breakdown.
MILESTONES = {
    "speech_end": 0.0,
    "vad_stop": 230.0,
    "stt_final": 700.0,
    "turn_stop": 705.0,
    "w1_first_token": 790.0,
    "first_narration_token": 800.0,
    "first_phrase": 820.0,
    "tts_first_byte": 950.0,
    "first_audio": 975.0,
}
ROWS = [
    {"ms": 600.0, "event": "llm_request", "label": "talker"},  # an earlier call: not the speaking one
    {"ms": 708.0, "event": "llm_request", "label": "w1"},
    {"ms": 790.0, "event": "w1_first_token", "label": "w1"},
    {"ms": 960.0, "event": "audio_out"},
]


def report(s2fa: float | None, dispatch: float | None = None, pipecat: float | None = None) -> TurnReport:
    milestones = dict(MILESTONES) if s2fa is not None else {}
    if s2fa is not None:
        milestones["first_audio"] = s2fa
    if dispatch is not None:
        milestones["tool_dispatch"] = dispatch
    return TurnReport(
        session_id="s", turn=0, coach_turn=0, expected="", transcript="", wer=None, expect="", c1="",
        completed=s2fa is not None, s2fa_ms=s2fa, pipecat_ms=pipecat, milestones_ms=milestones, stages_ms=[],
    )  # fmt: skip


def summaries(values: dict[str, list[float | None]]) -> dict[str, dict[str, Any]]:
    return {
        name: config_summary(name, [report(v) for v in vs], [ROWS] * len(vs)) for name, vs in values.items()
    }


def test_stages_cut_s2fa_into_parts_that_sum_to_it():
    stages = stage_breakdown("sgc_full", MILESTONES, ROWS)
    assert stages is not None
    assert list(stages) == list(STAGES)
    assert stages["LLM TTFT"] == 82.0  # 708 → 790: W1's request to its first token, not the talker's
    assert stages["before speaking call"] == 3.0
    assert sum(stages.values()) == pytest.approx(MILESTONES["first_audio"])
    # pe_agent is heard through its talker call, after the planner and the tools
    pe_rows = [
        {"ms": 706.0, "event": "llm_request", "label": "planner"},
        {"ms": 720.0, "event": "llm_first_token", "label": "planner"},
        {"ms": 760.0, "event": "llm_request", "label": "talker"},
        {"ms": 800.0, "event": "llm_first_token", "label": "talker"},
    ]
    pe = stage_breakdown("pe_agent", MILESTONES, pe_rows)
    assert pe is not None
    assert (pe["before speaking call"], pe["LLM TTFT"], pe["text to TTS"]) == (55.0, 40.0, 20.0)
    missing = {k: v for k, v in MILESTONES.items() if k != "first_phrase"}
    assert stage_breakdown("sgc_full", missing, ROWS) is None


def test_summary_ratios_and_targets():
    s = summaries(
        {
            "pe_agent": [3000.0, 4000.0, 5000.0],
            "cascade": [1500.0, 2000.0, None],  # a silent turn: counted, not in the percentiles
            "sgc_full": [900.0, 1000.0, 1100.0],
        }
    )
    assert s["cascade"]["turns"] == 3 and s["cascade"]["audible"] == 2
    assert s["cascade"]["s2fa_ms"]["p50"] == 1750.0
    assert s["pe_agent"]["s2fa_ms"]["p90"] == 4800.0
    r = ratios(s)
    assert r["sgc_full"]["pe_agent"] == 0.25
    assert r["sgc_full"]["cascade"] == round(1000.0 / 1750.0, 3)
    assert r["pe_agent"]["pe_agent"] == 1.0
    verdicts = {t["target"]: t["met"] for t in targets(s, {"overhead_ms": {"p50": 22.0}})}
    assert verdicts["sgc_full S2FA p50 <= 0.30 x pe_agent"] is True
    assert verdicts["sgc_full S2FA p50 <= 0.60 x cascade"] is True  # 0.571
    assert verdicts["sgc_full S2FA p90 <= 0.70 x cascade p90"] is True  # 1080 / 1950
    assert verdicts["framework overhead p50 <= 15 ms"] is False
    # without a cascade run the ratio is unknown, not "met"
    partial = summaries({"pe_agent": [3000.0], "sgc_full": [2000.0]})
    assert [t["met"] for t in targets(partial, None)] == [False, None, None, None, None, None]

    result = {
        "configs": s,
        "ratios": r,
        "ratios_p90": ratios(s, "p90"),
        "ratios_first_reply_audio": ratios(s, metric="first_reply_audio_ms"),
        "targets": targets(s, None),
        "overhead": None,
    }
    row = next(line for line in markdown(result).splitlines() if line.startswith("| sgc_full | 3 |"))
    assert "| 1000 | 1080 | 1098 |" in row and row.endswith("| 0.25 | 0.57 | 0.55 | - |")


def test_first_reply_audio_dispatch_after_the_transcript_and_splits_are_summarised():
    reports = [report(900.0, dispatch=720.0), report(1100.0, dispatch=740.0), report(1000.0)]
    for r, reply_audio in zip(reports, (2000.0, 2400.0, None), strict=True):
        r.first_reply_audio_ms = reply_audio
    reports[1].user_turns = 2
    s = config_summary("sgc_full", reports, [ROWS] * 3)
    assert s["first_reply_audio_ms"]["p50"] == 2200.0 and s["first_reply_audio_ms"]["n"] == 2
    assert s["tool_dispatch_after_transcript_ms"]["p50"] == 25.0  # 720 and 740 after turn stop at 705
    assert s["split_utterances"] == 1
    cascade = config_summary("cascade", [report(1500.0), report(1700.0)], [ROWS] * 2)
    both = {"sgc_full": s, "cascade": cascade}
    verdicts = {t["target"]: t for t in targets(both, None)}
    reply = verdicts["sgc_full first reply audio p50 <= 1.00 x cascade first audio p50"]
    assert reply["value"] == round(2200.0 / 1600.0, 3) and reply["met"] is False
    assert verdicts["sgc_full tool dispatch p50 <= 50 ms after the transcript"]["met"] is True


def test_a_turn_with_no_llm_call_before_its_first_phrase_has_zero_llm_stages():
    # the pack's narration on a prefilled turn: no W1 call; the stages still sum to S2FA
    rows = [{"ms": 960.0, "event": "audio_out"}, {"ms": 2000.0, "event": "llm_request", "label": "talker"}]
    stages = stage_breakdown("sgc_full", MILESTONES, rows)
    assert stages is not None
    assert stages["before speaking call"] == 0.0 and stages["LLM TTFT"] == 0.0
    assert stages["text to TTS"] == 115.0  # turn stop 705 → first phrase 820
    assert sum(stages.values()) == pytest.approx(MILESTONES["first_audio"])
    # an LLM call before the first phrase whose first token was not seen: no breakdown
    unseen = [{"ms": 710.0, "event": "llm_request", "label": "w1"}]
    assert stage_breakdown("sgc_full", MILESTONES, unseen) is None


def test_tool_dispatch_and_pipecat_figures_are_summarised():
    reports = [report(1000.0, dispatch=400.0, pipecat=1010.0), report(1200.0, dispatch=600.0, pipecat=1190.0)]
    rows = [[*ROWS, {"ms": 400.0, "event": "tool_dispatch", "tools": ["find_counters"]}], ROWS]
    s = config_summary("sgc_full", reports, rows)
    assert s["tool_dispatch_ms"]["p50"] == 500.0
    assert s["turns_with_tools"] == 1
    assert s["pipecat_minus_s2fa_ms"]["p50"] == 0.0  # +10 and -10
    assert s["stages_p50_ms"]["TTS first byte"] == 130.0


def test_framework_overhead_is_s2fa_minus_the_engines():
    o = turn_overhead(MILESTONES, ROWS, 975.0)
    assert o is not None
    # engines: VAD hang 230 + STT 470 + W1 TTFT 82 + TTS first byte 130 = 912
    assert o.engines_ms == {"VAD hang": 230.0, "STT": 470.0, "LLM TTFT": 82.0, "TTS first byte": 130.0}
    assert o.overhead_ms == 63.0
    assert o.tts_leading_silence_ms == 15.0  # first chunk played at 960, first audible sample at 975
    assert o.overhead_without_leading_silence_ms == 48.0


async def test_one_fixture_turn_through_sgc_full_and_the_cascade(tmp_path: Path):
    async with ScriptedLLMServer(router=scripted_router("pet_arena", ttft_s=0.05)) as server:
        options = BenchOptions(
            fixtures=FIXTURES / "s01.json",
            out=tmp_path,
            configs=["sgc_full", "cascade"],
            limit=1,
            llm_url=server.base_url,
            model="scripted",
            overhead_turns=1,
            turn_timeout_s=30.0,
            progress=False,
        )
        result = await run_bench(options)
        systems = {r.system_prompt for r in server.requests if r.body.get("max_tokens") != 1}
        cascade_requests = [r for r in server.requests if r.body.get("tools")]

    for name in ("sgc_full", "cascade"):
        s = result["configs"][name]
        assert s["turns"] == 1 and s["audible"] == 1, s["problems"]
        assert 0 < s["s2fa_ms"]["p50"] < 10_000
        assert s["stages_n"] == 1 and sum(s["stages_p50_ms"].values()) == pytest.approx(
            s["s2fa_ms"]["p50"], abs=1
        )
    assert result["configs"]["sgc_full"]["turns_with_tools"] == 1  # Φ froze lineup/counter's tools
    # the cascade advertised every tool to the LLM (the scripted one answers in text)
    assert len(cascade_requests) == 1 and len(cascade_requests[0].body["tools"]) == len(
        load_pack("pet_arena").tools
    )
    assert len(systems) >= 4  # W1, W2, Talker, the cascade's own prompt
    assert result["ratios"]["sgc_full"]["cascade"] is not None
    assert result["overhead"]["turns"] == 1 and result["overhead"]["overhead_ms"]["p50"] is not None

    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["configs"]["cascade"]["s2fa_ms"] == result["configs"]["cascade"]["s2fa_ms"]
    md = (tmp_path / "results.md").read_text()
    assert "| sgc_full | 1 | 1 |" in md and "| cascade | 1 | 1 |" in md and "framework overhead" in md
    assert (tmp_path / "s2fa.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "cascade" / "s01" / "turn1" / "timeline.jsonl").exists()
    # the cascade's first audio is its answer; sgc_full's answer comes after its narration
    turns = {t["config"]: t for t in saved["turns"]}
    assert turns["cascade"]["first_reply_audio_ms"] == turns["cascade"]["s2fa_ms"]
    assert turns["sgc_full"]["first_reply_audio_ms"] > turns["sgc_full"]["s2fa_ms"]

    # a rerun into the same folder replays nothing: every session is cached
    async with ScriptedLLMServer(router=scripted_router("pet_arena", ttft_s=0.05)) as server:
        options.llm_url = server.base_url
        with pytest.raises(ValueError, match="settings differ"):
            await run_bench(options)  # another LLM endpoint: the cached turns do not hold
    (tmp_path / "run.json").unlink()
    async with ScriptedLLMServer(router=scripted_router("pet_arena", ttft_s=0.05)) as server:
        options.llm_url = server.base_url
        again = await run_bench(options)
        assert [r for r in server.requests if r.body.get("max_tokens") != 1] == []
    assert again["configs"]["sgc_full"]["s2fa_ms"] == result["configs"]["sgc_full"]["s2fa_ms"]


def test_the_stt_variant_changes_only_when_whisper_starts():
    from voicecoach.coach.speech_config import SpeechConfig
    from voicecoach.pipelines.bench.latency import CONFIGS, BenchOptions, coach_config, speech_variant

    speech = SpeechConfig()
    assert speech.stt.at_silence_onset and "sgc_full_stt_at_stop" in CONFIGS
    late = speech_variant(speech, "sgc_full_stt_at_stop")
    assert not late.stt.at_silence_onset
    assert late.model_dump() == {
        **speech.model_dump(),
        "stt": {**speech.stt.model_dump(), "at_silence_onset": False},
    }
    assert speech_variant(speech, "sgc_full") is speech
    options = BenchOptions()
    assert coach_config(options, "sgc_full_stt_at_stop") == coach_config(options, "sgc_full")
    # The smart-turn rows change the turn stop and nothing else.
    smart = speech_variant(speech, "sgc_full_smart_turn_0.5")
    assert smart.model_dump() == {
        **speech.model_dump(),
        "turn_stop": "smart_turn",
        "smart_turn_fallback_s": 0.5,
    }
