"""CoachBench metrics, as the paper defines them (§7.2, eq. 5; G.6, G.7).

- TGA = 100/N · Σ_i (1/T_i) Σ_t a_it: the mean over sessions of the share of passing scored turns
  (a session weighs the same whatever its length); a turn passes when it is speakable, responsive
  and grounded (`coachbench.checker`), and each component is reported with the same formula
  (speakable %, responsive %, grounded %), as is the previous checker's pass (grounding rules
  only, `grounded_only`) so old and new figures compare on the same turns;
- SGA = 100/|I_SGA| · Σ_i 𝕀[∏_t a_it = 1]: the share of sessions whose every scored turn passes
  (all sessions are SGA-eligible, |I_SGA| = N);
- drift incidence, per drift A/B/C/D, at both granularities: the share of sessions with at least one
  scored turn failing with that drift, and the share of scored turns failing with it;
- latency (M0): time to the first text the player would hear (narration or reply) and to the first
  reply token, from the turn records; the mean is per turn, then per session, then macro-averaged
  over sessions (G.7), p50/p90 over turns;
- McNemar's exact test on paired outcomes (sessions for SGA, turns for TGA): two-sided binomial on
  the discordant pairs b and c with p = 0.5, computed with `math.comb`;
- W1 intent accuracy: c1's (intent, sub_intent) against the reference pair (configurations with W1);
- the LLM-as-judge reference implementation of G.6 for TGQ / DGP / CCC (1-10), run only when a judge
  endpoint is configured; an item whose judge call fails three times is marked unscored, never
  given a score.
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from voicecoach.bench.coachbench.generator import DRIFT_NAMES, BenchSession, BenchTurn

if TYPE_CHECKING:
    from voicecoach.llm.client import LLMClient

# --- per-turn outcomes ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnScore:
    """One scored turn of one configuration, as the metrics need it."""

    session_id: str
    turn_index: int
    passed: bool
    drifts: tuple[str, ...] = ()
    speakable: bool = True
    responsive: bool = True
    grounded: bool = True
    grounded_only: bool = True  # the previous checker's pass
    intent_ok: bool | None = None  # (intent, sub_intent) == reference; None without W1
    intent_label_ok: bool | None = None  # intent alone
    first_text_ms: float | None = None
    first_reply_ms: float | None = None


K = TypeVar("K")


def by_session(scores: Iterable[TurnScore]) -> dict[str, list[TurnScore]]:
    out: dict[str, list[TurnScore]] = {}
    for s in scores:
        out.setdefault(s.session_id, []).append(s)
    return out


def tga(sessions: Mapping[str, Sequence[bool]]) -> float:
    """Turn-level grounded accuracy (eq. 5), in percent. Sessions without scored turns are skipped."""
    shares = [sum(turns) / len(turns) for turns in sessions.values() if turns]
    return 100.0 * sum(shares) / len(shares) if shares else 0.0


def sga(sessions: Mapping[str, Sequence[bool]]) -> float:
    """Session-level grounded accuracy (eq. 5), in percent."""
    eligible = [turns for turns in sessions.values() if turns]
    return 100.0 * sum(all(turns) for turns in eligible) / len(eligible) if eligible else 0.0


Component = Literal["passed", "speakable", "responsive", "grounded", "grounded_only"]


def passes(scores: Iterable[TurnScore], component: Component = "passed") -> dict[str, list[bool]]:
    return {sid: [bool(getattr(t, component)) for t in turns] for sid, turns in by_session(scores).items()}


def drift_incidence(scores: Sequence[TurnScore]) -> dict[str, dict[str, float]]:
    """drift letter -> {"sessions": % of sessions with such a failing turn, "turns": % of turns}."""
    sessions = by_session(scores)
    out = {}
    for letter in DRIFT_NAMES:
        hit_sessions = sum(any(letter in t.drifts for t in turns) for turns in sessions.values())
        hit_turns = sum(letter in t.drifts for t in scores)
        out[letter] = {
            "sessions": 100.0 * hit_sessions / len(sessions) if sessions else 0.0,
            "turns": 100.0 * hit_turns / len(scores) if scores else 0.0,
        }
    return out


def intent_accuracy(scores: Sequence[TurnScore]) -> tuple[float | None, float | None]:
    """(pair accuracy, intent-only accuracy) in percent over turns with a c1; None when there is none."""
    pairs = [t.intent_ok for t in scores if t.intent_ok is not None]
    labels = [t.intent_label_ok for t in scores if t.intent_label_ok is not None]
    return (
        100.0 * sum(pairs) / len(pairs) if pairs else None,
        100.0 * sum(labels) / len(labels) if labels else None,
    )


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolation percentile (numpy's default), q in [0, 100]."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


class LatencySummary(BaseModel):
    model_config = ConfigDict(frozen=True)

    mean_s: float  # per turn -> per session -> macro over sessions (G.7)
    p50_s: float
    p90_s: float
    turns: int


def latency_summary(
    scores: Sequence[TurnScore], field: Literal["first_text_ms", "first_reply_ms"]
) -> LatencySummary | None:
    timed = [t for t in scores if getattr(t, field) is not None]
    if not timed:
        return None
    values = [float(getattr(t, field)) / 1000.0 for t in timed]
    per_session = [
        statistics.fmean(float(getattr(t, field)) / 1000.0 for t in turns)
        for turns in by_session(timed).values()
    ]
    return LatencySummary(
        mean_s=statistics.fmean(per_session),
        p50_s=percentile(values, 50),
        p90_s=percentile(values, 90),
        turns=len(values),
    )


# --- McNemar's exact test ------------------------------------------------------------------------------


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value: a binomial test of min(b, c) in n = b + c trials at p = 1/2.

    Integer arithmetic until the final division, so it stays exact for the ≈1,000 paired turns of
    the full benchmark (2**1000 is far beyond float range; int / int still divides correctly).
    """
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1))
    return min(1.0, 2 * tail / 2**n)


class McNemar(BaseModel):
    model_config = ConfigDict(frozen=True)

    a: str  # the two configurations compared
    b_config: str
    unit: Literal["sessions", "turns"]
    pairs: int
    b: int  # a passes, b_config fails
    c: int  # a fails, b_config passes
    p_value: float


def mcnemar_paired(
    a: str, b: str, unit: Literal["sessions", "turns"], x: Mapping[K, bool], y: Mapping[K, bool]
) -> McNemar:
    """McNemar between two configurations over the units both have an outcome for."""
    keys = [k for k in x if k in y]
    b_count = sum(x[k] and not y[k] for k in keys)
    c_count = sum(y[k] and not x[k] for k in keys)
    return McNemar(
        a=a,
        b_config=b,
        unit=unit,
        pairs=len(keys),
        b=b_count,
        c=c_count,
        p_value=mcnemar_exact(b_count, c_count),
    )


def session_outcomes(scores: Iterable[TurnScore]) -> dict[str, bool]:
    return {sid: all(t.passed for t in turns) for sid, turns in by_session(scores).items()}


def turn_outcomes(scores: Iterable[TurnScore]) -> dict[tuple[str, int], bool]:
    return {(t.session_id, t.turn_index): t.passed for t in scores}


# --- one configuration's row of Table 3 ----------------------------------------------------------------


class JudgeAggregate(BaseModel):
    model_config = ConfigDict(frozen=True)

    mean: float | None
    scored: int
    unscored: int


class ConfigMetrics(BaseModel):
    config: str
    sessions: int
    turns: int
    tga: float
    sga: float
    speakable: float = 100.0  # TGA's formula over each component alone
    responsive: float = 100.0
    grounded: float = 100.0
    tga_grounded_only: float = 100.0  # the previous checker's TGA / SGA (grounding rules only)
    sga_grounded_only: float = 100.0
    drift_sessions: dict[str, float]
    drift_turns: dict[str, float]
    intent_accuracy: float | None
    intent_label_accuracy: float | None
    latency_first_text: LatencySummary | None
    latency_first_reply: LatencySummary | None
    judge: dict[str, JudgeAggregate] | None = None


def config_metrics(config: str, scores: Sequence[TurnScore]) -> ConfigMetrics:
    drift = drift_incidence(scores)
    pair_acc, label_acc = intent_accuracy(scores)
    outcomes = passes(scores)
    return ConfigMetrics(
        config=config,
        sessions=len(outcomes),
        turns=len(scores),
        tga=tga(outcomes),
        sga=sga(outcomes),
        speakable=tga(passes(scores, "speakable")),
        responsive=tga(passes(scores, "responsive")),
        grounded=tga(passes(scores, "grounded")),
        tga_grounded_only=tga(passes(scores, "grounded_only")),
        sga_grounded_only=sga(passes(scores, "grounded_only")),
        drift_sessions={k: v["sessions"] for k, v in drift.items()},
        drift_turns={k: v["turns"] for k, v in drift.items()},
        intent_accuracy=pair_acc,
        intent_label_accuracy=label_acc,
        latency_first_text=latency_summary(scores, "first_text_ms"),
        latency_first_reply=latency_summary(scores, "first_reply_ms"),
    )


# --- LLM-as-judge reference implementation (G.6) ---------------------------------------------------------

JudgeMetric = Literal["TGQ", "DGP", "CCC"]
JUDGE_TRIES = 3
JUDGE_SKIPPED = (
    "LLM judge skipped: no judge endpoint configured. Set VOICECOACH_JUDGE_BASE_URL "
    "(and VOICECOACH_JUDGE_MODEL, VOICECOACH_JUDGE_API_KEY) to score TGQ / DGP / CCC."
)


@dataclass(frozen=True)
class JudgeConfig:
    base_url: str
    model: str
    api_key: str

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> JudgeConfig | None:
        """The judge endpoint from VOICECOACH_JUDGE_*; None when no base URL is set."""
        env = os.environ if env is None else env
        base_url = env.get("VOICECOACH_JUDGE_BASE_URL", "").strip()
        if not base_url:
            return None
        return cls(
            base_url=base_url,
            model=env.get("VOICECOACH_JUDGE_MODEL", "").strip() or "judge",
            api_key=env.get("VOICECOACH_JUDGE_API_KEY", "").strip() or "not-needed",
        )

    def client(self) -> LLMClient:
        from voicecoach.llm.client import LLMClient, LLMConfig

        # A judge answers whole; generous timeouts, no grammar, greedy decoding for repeatability.
        config = LLMConfig(
            base_url=self.base_url,
            model=self.model,
            api_key=self.api_key,
            constrain="none",
            temperature=0.0,
            first_token_timeout_s=120.0,
            inter_token_timeout_s=60.0,
        )
        return LLMClient(config)


# One shared system prompt plus a task prompt per metric (G.6); the rubrics follow G.3's dimensions.
JUDGE_SYSTEM = (
    "You are an expert evaluator of a realtime voice coach for the game Pet Arena. You judge the coach's "
    "replies against the player's live game state and the dialogue so far, never against your own "
    "knowledge of other games. Reasonable paraphrases are fine; wrong mechanics, invalid assumptions "
    "about what the player owns or has unlocked, and misleading recommendations are penalised. Answer "
    'with one JSON object only: {"dimensions": {...}, "score": <integer 1-10>, "reason": "<one sentence>"}.'
)
TGQ_TASK = (
    "Score the turn-level guidance quality (TGQ) of the coach's reply.\n"
    "Dimensions, each 0/1/2: Q1 relevance to the question, Q2 explanation (why), Q3 actionability "
    "(what to do now). Then an overall score from 1 to 10.\n\n{context}"
)
DGP_TASK = (
    "Score the dialogue-level guidance progression (DGP) of this whole session towards the player's goal "
    "({goal}).\nDimensions, each 0/1/2: P1 each reply builds on the earlier guidance, P2 it adapts to "
    "the player's progress and feedback, P3 the session moves the goal forward without circling. Then an "
    "overall score from 1 to 10.\n\n{context}"
)
CCC_TASK = (
    "Score the cross-turn contextual consistency (CCC) of this session.\nDimensions, each 0/1/2: C1 "
    "consistent with facts stated earlier, C2 respects constraints the player added, C3 reflects state "
    "updates between turns, C4 does not repeat guidance already given, C5 no contradictions across "
    "turns. Then an overall score from 1 to 10.\n\n{context}"
)


class JudgeItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    metric: JudgeMetric
    config: str
    session_id: str
    turn_index: int | None  # TGQ is per turn; DGP and CCC per session
    prompt: str


class JudgeResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    metric: JudgeMetric
    config: str
    session_id: str
    turn_index: int | None
    score: int | None  # None: unscored
    reason: str
    attempts: int

    @property
    def scored(self) -> bool:
        return self.score is not None


def _turn_context(turn: BenchTurn, reply: str) -> str:
    state = {k: turn.state[k] for k in ("ic", "fs") if k in turn.state}
    change = f"State change before this turn: {turn.state_change}\n" if turn.state_change else ""
    return (
        f"{change}Live state: {json.dumps(state, separators=(',', ':'))}\n"
        f"Reference direction: {turn.reference.direction}\n"
        f"Player: {turn.utterance}\nCoach: {reply}"
    )


def judge_items(config: str, session: BenchSession, replies: Sequence[str]) -> list[JudgeItem]:
    """TGQ for every scored turn; DGP and CCC once per session when it is eligible (Appendix B)."""
    items = []
    for turn, reply in zip(session.turns, replies, strict=True):
        if turn.scored:
            prompt = TGQ_TASK.format(context=_turn_context(turn, reply))
            items.append(
                JudgeItem(
                    metric="TGQ",
                    config=config,
                    session_id=session.session_id,
                    turn_index=turn.turn_index,
                    prompt=prompt,
                )
            )
    dialogue = "\n\n".join(
        f"Turn {t.turn_index}:\n{_turn_context(t, r)}" for t, r in zip(session.turns, replies, strict=True)
    )
    if session.eligibility.dgp and len(session.turns) > 1:
        prompt = DGP_TASK.format(goal=session.goal or "the player's coaching goal", context=dialogue)
        items.append(
            JudgeItem(
                metric="DGP", config=config, session_id=session.session_id, turn_index=None, prompt=prompt
            )
        )
    if session.eligibility.ccc and len(session.turns) > 1:
        prompt = CCC_TASK.format(context=dialogue)
        items.append(
            JudgeItem(
                metric="CCC", config=config, session_id=session.session_id, turn_index=None, prompt=prompt
            )
        )
    return items


_SCORE = re.compile(r'"?score"?\s*[:=]\s*"?(10|[1-9])\b', re.IGNORECASE)


def parse_score(text: str) -> int | None:
    """The 1-10 score of a judge answer (JSON, or a "score: n" line); None when there is none."""
    for match in re.finditer(r"\{", text):
        try:
            value, _ = json.JSONDecoder().raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and isinstance(value.get("score"), int | float | str):
            try:
                score = int(float(value["score"]))
            except ValueError:
                continue
            if 1 <= score <= 10:
                return score
    found = _SCORE.search(text)
    return int(found.group(1)) if found else None


async def judge_item(client: LLMClient, item: JudgeItem, tries: int = JUDGE_TRIES) -> JudgeResult:
    """One judge call, retried; after `tries` failures (call errors or no parsable score) unscored."""
    from voicecoach.llm.client import LLMError

    messages = [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": item.prompt}]
    problem = ""
    for attempt in range(1, tries + 1):
        try:
            answer = await client.complete(messages, max_tokens=300)
        except LLMError as err:
            problem = f"judge call failed: {err}"
            continue
        score = parse_score(answer)
        if score is not None:
            return _result(item, score, answer[:300], attempt)
        problem = f"no 1-10 score in the judge's answer: {answer[:120]!r}"
    return _result(item, None, problem, tries)


def _result(item: JudgeItem, score: int | None, reason: str, attempts: int) -> JudgeResult:
    return JudgeResult(
        metric=item.metric,
        config=item.config,
        session_id=item.session_id,
        turn_index=item.turn_index,
        score=score,
        reason=reason,
        attempts=attempts,
    )


@dataclass
class JudgeRun:
    skipped: bool
    message: str
    results: list[JudgeResult]


async def run_judge(
    config: JudgeConfig | None,
    items: Sequence[JudgeItem],
    done: Callable[[JudgeResult], Awaitable[None] | None] | None = None,
    tries: int = JUDGE_TRIES,
) -> JudgeRun:
    """Judge every item, one at a time; skipped (with the reason) when no endpoint is configured."""
    if config is None:
        return JudgeRun(skipped=True, message=JUDGE_SKIPPED, results=[])
    client = config.client()
    results = []
    try:
        for item in items:
            result = await judge_item(client, item, tries)
            results.append(result)
            if done is not None:
                pending = done(result)
                if pending is not None:
                    await pending
    finally:
        await client.close()
    unscored = sum(not r.scored for r in results)
    return JudgeRun(
        skipped=False,
        message=f"LLM judge {config.model}: {len(results) - unscored} scored, {unscored} unscored",
        results=results,
    )


def judge_aggregate(results: Iterable[JudgeResult]) -> dict[str, JudgeAggregate]:
    """Per metric: the mean over scored items (unscored ones are counted, never averaged in)."""
    out: dict[str, JudgeAggregate] = {}
    for metric in ("TGQ", "DGP", "CCC"):
        mine = [r for r in results if r.metric == metric]
        scores = [r.score for r in mine if r.score is not None]
        out[metric] = JudgeAggregate(
            mean=statistics.fmean(scores) if scores else None,
            scored=len(scores),
            unscored=len(mine) - len(scores),
        )
    return out


def jsonable(value: Any) -> Any:
    """Models and dataclasses to plain JSON values (for results.json)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value
