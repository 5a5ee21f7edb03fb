"""A two-session smoke run of the CoachBench runner over all five configurations, against the scripted
OpenAI-compatible server (every LLM call goes over real HTTP through the actor pipeline)."""

from __future__ import annotations

import asyncio
import difflib
import json
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from loguru import logger

from voicecoach.bench.coachbench.generator import BenchSession, generate
from voicecoach.coach.session import MODES
from voicecoach.domain.pack import Pack
from voicecoach.grounding.prompt import slot_prompt
from voicecoach.perception.prompt import w1_system_prompt
from voicecoach.pipelines.bench.quality import QualityOptions, run_quality
from voicecoach.pipelines.bench.quality import main as runner_main
from voicecoach.talker.baselines import planner_system_prompt
from voicecoach.talker.conditioning import talker_system_prompt
from voicecoach.testing.scripted_llm import Script, ScriptedLLMServer

# Speakable, but it credits Pyrowl (never owned in these sessions' states) and answers no question:
# so every turn is speakable, none grounded, and TGA must be 0 whatever the old checker said.
REPLY = "Bring Pyrowl and Emberfox, they hit hard."


def two_sessions(pack: Pack) -> list[BenchSession]:
    """A single-turn factual session and a short cross-turn session with a late state push."""
    sessions = generate(7, pack)
    single = next(s for s in sessions if s.length_class == "single" and s.stratum == "factual_qa")
    late = next(s for s in sessions if len(s.turns) <= 4 and any(t.push == "late" for t in s.turns))
    return [single, late]


def write_bench(tmp_path: Path, sessions: list[BenchSession]) -> Path:
    bench = tmp_path / "bench.jsonl"
    bench.write_text("".join(s.model_dump_json() + "\n" for s in sessions), encoding="utf-8")
    return bench


class Router:
    """Routes by system prompt. W1 answers with the reference pair of the utterance it is asked about,
    so the runner's intent accuracy must come out at 100 % for the W1 configurations."""

    def __init__(self, pack: Pack, sessions: list[BenchSession], ttft_s: float = 0.0) -> None:
        self.ttft_s = ttft_s
        self.prompts = {
            w1_system_prompt(pack): "w1",
            slot_prompt(pack): "w2",
            talker_system_prompt(pack): "talker",
            planner_system_prompt(pack): "planner",
        }
        self.pairs = {t.utterance: t.reference for s in sessions for t in s.turns}

    def __call__(self, body: dict[str, Any]) -> Script:
        system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
        role = self.prompts[system]
        if role == "w1":
            # W1 is asked about the turn as the dialogue reads it ("build a team around it" ->
            # "... around Vinecoil"): the bench utterance closest to what it was asked.
            said = (
                user
                if user in self.pairs
                else difflib.get_close_matches(user, self.pairs, n=1, cutoff=0.6)[0]
            )
            ref = self.pairs[said]
            return Script(
                f"<INTENT>{ref.intent}</INTENT><SUB_INTENT>{ref.sub_intent}</SUB_INTENT>"
                "<NARRATION>Let me check that.</NARRATION><PLAN>none</PLAN>",
                ttft_s=self.ttft_s,
            )
        return Script({"w2": "{}", "planner": "none", "talker": REPLY}[role], ttft_s=self.ttft_s)


async def test_two_session_smoke_run_writes_table3_for_five_configs(
    pack: Pack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = two_sessions(pack)
    bench = write_bench(tmp_path, sessions)
    turns = sum(len(s.turns) for s in sessions)
    async with ScriptedLLMServer(router=Router(pack, sessions)) as server:
        opts = QualityOptions(
            out=tmp_path / "out", bench=bench, llm_url=server.base_url, model="scripted", progress=False
        )
        report = await run_quality(opts)
        requests = len(server.requests)
        assert requests >= turns * len(MODES)

        # Table 3: five rows, every number in range.
        results = json.loads((opts.out / "results.json").read_text())
        assert [row[0] for row in results["table3"]["rows"]] == list(MODES)
        for row in results["configs"]:
            assert row["sessions"] == 2
            assert 0.0 <= row["tga"] <= 100.0 and 0.0 <= row["sga"] <= 100.0
            assert row["sga"] <= row["tga"] or row["sga"] == 100.0
            assert all(
                0.0 <= v <= 100.0 for v in [*row["drift_sessions"].values(), *row["drift_turns"].values()]
            )
            assert row["latency_first_text"]["mean_s"] > 0.0
        by_config = {row["config"]: row for row in results["configs"]}
        for mode in ("sgc_w1", "sgc_w1_w2", "sgc_full"):
            assert by_config[mode]["intent_accuracy"] == 100.0
        assert by_config["prompting"]["intent_accuracy"] is None
        # The baselines speak the scripted reply as it is: the same verdicts. It recommends a creature
        # the player may not own, which the SGC Talker's guard drops (the realization is said instead).
        baselines = [by_config[m] for m in ("prompting", "pe_agent")]
        assert len({(row["tga"], row["sga"]) for row in baselines}) == 1
        # A turn passes only when speakable, responsive and grounded; the old checker judged grounding.
        for row in results["configs"]:
            assert row["speakable"] == 100.0
            assert row["grounded"] < 100.0 if row in baselines else row["grounded"] == 100.0
            assert row["tga"] <= min(row["speakable"], row["responsive"], row["grounded"])
            assert row["tga_grounded_only"] == row["grounded"]  # no turn lacked a reply
        sources = {row["config"]: row["reply_source_pct"] for row in results["reply_sources"]}
        assert (
            set(sources["sgc_full"]) <= {"guarded llm", "realization"}
            and "realization" in sources["sgc_full"]
        )
        assert sources["prompting"] == {"llm (baseline)": 100.0}
        header = results["table3"]["header"]
        assert {"speakable %", "responsive %", "grounded %", "old TGA %"} <= set(header)
        markdown = (opts.out / "results.md").read_text()
        assert markdown.count("\n| ") >= 1 + len(MODES) and "| sgc_full |" in markdown
        assert "LLM judge skipped" in markdown
        assert (opts.out / "quality.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert len((opts.out / "turns.jsonl").read_text().splitlines()) == turns * len(MODES)
        assert len((opts.out / "verdicts.jsonl").read_text().splitlines()) == turns * len(MODES)
        assert {m.unit for m in report.mcnemar} == {"sessions", "turns"} and len(report.mcnemar) == 8

        # Resumable: a rerun finds every turn cached and asks the LLM nothing.
        again = await run_quality(opts)
        assert len(server.requests) == requests
        assert again.run_seconds < 1.0
        assert [r.tga for r in again.configs] == [r.tga for r in report.configs]

        # The command prints the whole table into a log too (not cut to 80 columns).
        argv = [
            "--out",
            str(opts.out),
            "--bench",
            str(bench),
            "--llm-url",
            server.base_url,
            "--model",
            "scripted",
        ]
        try:
            assert await asyncio.to_thread(runner_main, argv) == 0
        finally:  # the command sends loguru to its coach.log; give the other tests stderr back
            logger.remove()
            logger.add(sys.stderr)
        printed = capsys.readouterr().out
        assert "intent acc. %" in printed and "| sgc_w1_w2 " in printed.replace("│", "|")
        assert "speakable %" in printed and "responsive %" in printed and "grounded %" in printed


async def test_rerun_with_other_settings_is_refused(pack: Pack, tmp_path: Path) -> None:
    sessions = two_sessions(pack)[:1]
    bench = write_bench(tmp_path, sessions)
    async with ScriptedLLMServer(router=Router(pack, sessions)) as server:
        out = tmp_path / "out"
        opts = QualityOptions(
            out=out, bench=bench, llm_url=server.base_url, configs=("prompting",), progress=False
        )
        await run_quality(opts)
        opts.reply_max_tokens = 7
        with pytest.raises(SystemExit, match="reply_max_tokens"):
            await run_quality(opts)
        # Other prompts: the run.json digests differ, and the refusal names the prompt.
        opts.reply_max_tokens = QualityOptions.reply_max_tokens
        saved = json.loads((out / "run.json").read_text())
        saved["configs"]["prompting"]["prompt_talker"] = "0" * 64
        (out / "run.json").write_text(json.dumps(saved))
        with pytest.raises(SystemExit, match="other prompts .*prompting.prompt_talker"):
            await run_quality(opts)
        # Settings are pinned per configuration: another row runs although prompting's differ,
        # and prompting's pinned settings are kept for the next resume.
        opts.configs = ("sgc_w1",)
        await run_quality(opts)
        kept = json.loads((out / "run.json").read_text())["configs"]
        assert kept["prompting"]["prompt_talker"] == "0" * 64 and "sgc_w1" in kept
        opts.configs = ("prompting",)
        # --rescore runs nothing and scores the cache with the current checker.
        requests = len(server.requests)
        opts.rescore = True
        rescored = await run_quality(opts)
        assert len(server.requests) == requests and rescored.configs[0].sessions == 1
        # --rerun forgets the configuration's cached turns and pinned settings: it runs again.
        opts.rescore, opts.rerun = False, True
        rerun = await run_quality(opts)
        assert len(server.requests) > requests and rerun.configs[0].sessions == 1
        rows = [json.loads(line) for line in (out / "turns.jsonl").read_text().splitlines()]
        keys = [(r["config"], r["session_id"], r["turn_index"]) for r in rows]
        assert len(keys) == len(set(keys)) and {k[0] for k in keys} == {"prompting", "sgc_w1"}


async def test_interrupted_run_counts_its_time_in_the_total(pack: Pack, tmp_path: Path) -> None:
    """elapsed.json is written even when a run is stopped, so a resumed run's total counts both."""
    sessions = two_sessions(pack)
    bench = write_bench(tmp_path, sessions)
    router = Router(pack, sessions, ttft_s=0.2)
    async with ScriptedLLMServer(router=router) as server:
        out = tmp_path / "out"
        opts = QualityOptions(
            out=out, bench=bench, llm_url=server.base_url, configs=("prompting",), progress=False
        )
        run = asyncio.create_task(run_quality(opts))
        turns = out / "turns.jsonl"
        while not (turns.exists() and turns.read_text()):
            await asyncio.sleep(0.02)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        first = json.loads((out / "elapsed.json").read_text())["run_seconds"]
        assert first >= 0.2
        report = await run_quality(opts)
    assert report.run_seconds >= 0.2  # the turns the first run did not finish
    assert report.total_run_seconds == pytest.approx(first + report.run_seconds, abs=0.1)


async def test_sigterm_stops_bench_quality_like_ctrl_c(pack: Pack, tmp_path: Path) -> None:
    """`kill` on the CLI runs the cleanup: the running time is recorded and the cache stays valid."""
    sessions = two_sessions(pack)
    bench = write_bench(tmp_path, sessions)
    router = Router(pack, sessions, ttft_s=0.3)
    out = tmp_path / "out"
    async with ScriptedLLMServer(router=router) as server:
        args = ["bench", "quality", "--bench", str(bench), "--out", str(out), "--configs", "prompting"]
        cli = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "voicecoach.app.cli", *args, "--llm-url", server.base_url,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
            # As a background job from a script starts: with SIGINT ignored.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        )  # fmt: skip
        turns = out / "turns.jsonl"
        while not (turns.exists() and turns.read_text()):
            await asyncio.sleep(0.02)
        cli.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(cli.communicate(), timeout=60)
    assert cli.returncode != 0
    assert json.loads((out / "elapsed.json").read_text())["run_seconds"] >= 0.3, stderr.decode()[-2000:]
    assert all(json.loads(line)["completed"] for line in turns.read_text().splitlines())


async def test_two_workers_give_the_turns_one_worker_gives(pack: Pack, tmp_path: Path) -> None:
    """Sessions are independent (own store, own W3 seed), so running them side by side changes only
    the order of the cache file, never a turn."""
    sessions = two_sessions(pack)
    bench = write_bench(tmp_path, sessions)

    def turns(out: Path) -> dict[tuple[str, str, int], tuple[Any, ...]]:
        rows = [json.loads(line) for line in (out / "turns.jsonl").read_text().splitlines()]
        keep = ("narration", "reply", "completed", "intent", "sub_intent", "guidance_id", "tools")
        return {(r["config"], r["session_id"], r["turn_index"]): tuple(str(r[k]) for k in keep) for r in rows}

    async with ScriptedLLMServer(router=Router(pack, sessions)) as server:
        for workers in (1, 2):
            opts = QualityOptions(
                out=tmp_path / f"w{workers}",
                bench=bench,
                llm_url=server.base_url,
                model="scripted",
                workers=workers,
                progress=False,
            )
            await run_quality(opts)
    one, two = turns(tmp_path / "w1"), turns(tmp_path / "w2")
    assert len(one) == sum(len(s.turns) for s in sessions) * len(MODES)
    assert one == two
