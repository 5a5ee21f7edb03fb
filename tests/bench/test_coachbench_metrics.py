"""CoachBench metrics: eq. 5 on a toy table computed by hand, McNemar's exact test against known
values, latency aggregation, and the LLM judge (skipped without an endpoint; failures unscored)."""

from __future__ import annotations

import math

import pytest

from voicecoach.bench.coachbench.metrics import (
    JUDGE_SKIPPED,
    JudgeConfig,
    JudgeItem,
    TurnScore,
    config_metrics,
    drift_incidence,
    judge_aggregate,
    latency_summary,
    mcnemar_exact,
    mcnemar_paired,
    parse_score,
    percentile,
    run_judge,
    sga,
    tga,
)
from voicecoach.testing.scripted_llm import Script, ScriptedLLMServer

# s1 passes 2 of 3 turns, s2 its only turn, s3 none of 2.
TOY = {"s1": [True, True, False], "s2": [True], "s3": [False, False]}


def test_tga_is_the_mean_of_per_session_shares_not_pooled_turns() -> None:
    assert tga(TOY) == pytest.approx(100 * (2 / 3 + 1 + 0) / 3)  # 55.6; pooled turns would give 50.0
    assert tga({"a": [True] * 9 + [False], "b": [False]}) == pytest.approx(45.0)


def test_sga_is_the_share_of_sessions_whose_every_turn_passes() -> None:
    assert sga(TOY) == pytest.approx(100 / 3)
    assert sga({"a": [True], "b": [True, True]}) == 100.0
    assert tga({}) == 0.0 and sga({}) == 0.0


def test_config_row_and_drift_incidence_at_both_granularities() -> None:
    scores = [
        TurnScore("s1", 0, True),
        TurnScore("s1", 1, False, ("B",), intent_ok=True, intent_label_ok=True),
        TurnScore("s1", 2, False, ("B", "C"), intent_ok=False, intent_label_ok=True),
        TurnScore("s2", 0, True, intent_ok=True, intent_label_ok=True),
    ]
    drift = drift_incidence(scores)
    assert drift["B"] == {"sessions": 50.0, "turns": 50.0}
    assert drift["C"] == {"sessions": 50.0, "turns": 25.0}
    assert drift["A"] == {"sessions": 0.0, "turns": 0.0}
    row = config_metrics("sgc_full", scores)
    assert row.tga == pytest.approx(100 * (1 / 3 + 1) / 2)
    assert row.sga == 50.0
    assert row.intent_accuracy == pytest.approx(200 / 3)
    assert row.intent_label_accuracy == 100.0


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [
        (10, 2, 0.0386),  # 2 * (1 + 12 + 66) / 2**12
        (2, 10, 0.0386),
        (0, 6, 0.03125),
        (5, 5, 1.0),
        (0, 0, 1.0),
        (7, 3, 0.34375),
    ],
)
def test_mcnemar_exact_known_values(b: int, c: int, p: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(p, abs=5e-5)


def test_mcnemar_exact_stays_exact_at_benchmark_scale() -> None:
    p = mcnemar_exact(900, 100)
    assert 0.0 < p < 1e-100
    assert p == pytest.approx(2 * sum(math.comb(1000, k) for k in range(101)) / 2**1000, rel=1e-9)


def test_mcnemar_paired_counts_discordant_pairs() -> None:
    x = {"s1": True, "s2": True, "s3": False, "s4": True, "only_x": True}
    y = {"s1": True, "s2": False, "s3": True, "s4": False}
    result = mcnemar_paired("sgc_full", "prompting", "sessions", x, y)
    assert (result.pairs, result.b, result.c) == (4, 2, 1)
    assert result.p_value == pytest.approx(1.0)


def test_latency_is_macro_averaged_over_sessions_with_turn_percentiles() -> None:
    scores = [TurnScore("a", i, True, first_text_ms=ms) for i, ms in enumerate([100.0, 300.0])]
    scores += [TurnScore("b", 0, True, first_text_ms=1000.0), TurnScore("b", 1, True)]
    summary = latency_summary(scores, "first_text_ms")
    assert summary is not None
    assert summary.mean_s == pytest.approx((0.2 + 1.0) / 2)  # pooled would be 0.4667
    assert summary.p50_s == pytest.approx(0.3)
    assert summary.turns == 3
    assert latency_summary(scores, "first_reply_ms") is None
    assert percentile([1, 2, 3, 4], 90) == pytest.approx(3.7)


# --- the LLM judge ------------------------------------------------------------------------------

ITEM = JudgeItem(
    metric="TGQ", config="sgc_full", session_id="cb-001", turn_index=0, prompt="Player: hi\nCoach: hi"
)


def test_judge_config_comes_from_the_environment_only_when_set() -> None:
    assert JudgeConfig.from_env({}) is None
    cfg = JudgeConfig.from_env(
        {"VOICECOACH_JUDGE_BASE_URL": "http://judge/v1", "VOICECOACH_JUDGE_MODEL": "big"}
    )
    assert cfg is not None and (cfg.base_url, cfg.model) == ("http://judge/v1", "big")


async def test_judge_is_skipped_with_a_clear_message_without_an_endpoint() -> None:
    run = await run_judge(None, [ITEM])
    assert run.skipped and run.results == []
    assert run.message == JUDGE_SKIPPED and "VOICECOACH_JUDGE_BASE_URL" in run.message


async def test_judge_http_errors_leave_the_item_unscored_after_three_tries() -> None:
    async with ScriptedLLMServer(router=lambda body: Script(fail="http_error", status=503)) as server:
        cfg = JudgeConfig(base_url=server.base_url, model="judge", api_key="x")
        run = await run_judge(cfg, [ITEM])
        assert len(server.requests) == 3
    (result,) = run.results
    assert result.score is None and not result.scored
    assert result.attempts == 3 and "503" in result.reason
    assert judge_aggregate(run.results)["TGQ"].model_dump() == {"mean": None, "scored": 0, "unscored": 1}


async def test_judge_retries_then_scores_and_unparsable_answers_stay_unscored() -> None:
    scripts = [Script(fail="http_error"), Script('{"dimensions": {"Q1": 2}, "score": 7, "reason": "ok"}')]
    async with ScriptedLLMServer(scripts) as server:
        cfg = JudgeConfig(base_url=server.base_url, model="judge", api_key="x")
        scored = await run_judge(cfg, [ITEM])
    assert [(r.score, r.attempts) for r in scored.results] == [(7, 2)]
    async with ScriptedLLMServer(router=lambda body: Script("It looks fine to me.")) as server:
        cfg = JudgeConfig(base_url=server.base_url, model="judge", api_key="x")
        vague = await run_judge(cfg, [ITEM])
    assert vague.results[0].score is None and "no 1-10 score" in vague.results[0].reason
    aggregate = judge_aggregate(scored.results + vague.results)["TGQ"]
    assert (aggregate.mean, aggregate.scored, aggregate.unscored) == (7.0, 1, 1)


def test_parse_score_reads_json_or_a_score_line() -> None:
    assert parse_score('{"score": 9, "reason": "x"}') == 9
    assert parse_score("Reasoning...\nScore: 4") == 4
    assert parse_score('{"score": 42}') is None
    assert parse_score("no number here") is None
