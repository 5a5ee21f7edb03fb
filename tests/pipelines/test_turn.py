"""End-to-end turns through the actor pipeline (TextCoach), against a scripted LLM server.

Every LLM call of a turn goes over real HTTP to `ScriptedLLMServer`; requests are routed to
the W1, W2 (slot) or Talker script by their system prompt. What is asserted is what the
design promises for a turn: tools dispatched early on a Φ hit, narration never held behind
W2, fall-through on a Φ miss, graceful fallbacks on broken output and broken streams, no
half-written answer.meta after a barge-in, W3 history surviving a restart, bad tool calls
dropped. The last test runs one turn through the real embedded llama.cpp model.
"""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.conftest import STATE
from voicecoach.actors.talker import FALLBACK_REPLY
from voicecoach.coach.engines import Engines
from voicecoach.coach.session import CoachConfig, Session
from voicecoach.coach.store import MemorySessionStore, SessionStore, SQLiteSessionStore
from voicecoach.core.latency import Milestone
from voicecoach.core.state import LiveState
from voicecoach.domain.pack import Pack
from voicecoach.grounding.prompt import slot_prompt
from voicecoach.llm.client import LLMClient, LLMConfig
from voicecoach.perception.narration import FALLBACK_NARRATION
from voicecoach.perception.prompt import w1_system_prompt
from voicecoach.pipelines.text import TextCoach, TurnResult
from voicecoach.talker.conditioning import talker_system_prompt
from voicecoach.testing.scripted_llm import RecordedRequest, Script, ScriptedLLMServer

ROOT = Path(__file__).resolve().parents[2]

# lineup/counter is in Φ: find_counters + suggest_lineup bound to $ic.match.opponent_lineup,
# requiring ic.match.opponent_lineup and fs.inventory.owned — both present in STATE.
HIT_HEAD = ["<INTENT>lineup</INTENT>", "<SUB_INTENT>counter</SUB_INTENT>"]
NARRATION = ["<NARRATION>", "Let", " me", " check", " their", " team", " against", " yours.", "</NARRATION>"]
HIT_PLAN = ["<PLAN>find_counters(opponent=[briarcat, shellbastion, voltail])</PLAN>"]
W1_HIT = Script(chunks=HIT_HEAD + NARRATION + HIT_PLAN, inter_token_s=0.01)
W1_MISS = Script(
    chunks=["<INTENT>inventory</INTENT>", "<SUB_INTENT>shiny_hunting</SUB_INTENT>", *NARRATION,
            "<PLAN>get_inventory()</PLAN>"],
    inter_token_s=0.01,
)  # fmt: skip
W2_EMPTY = Script('{"wanted_entities": [], "excluded_entities": []}')
REPLY = Script("Sparkwing shocks Shellbastion, so keep it in and lead with Emberfox.", inter_token_s=0.005)


class Router:
    """Routes each request to a role by system prompt; each role plays its scripts in order
    and repeats the last one."""

    def __init__(self, pack: Pack) -> None:
        self.prompts = {
            "w1": w1_system_prompt(pack),
            "w2": slot_prompt(pack),
            "talker": talker_system_prompt(pack),
        }
        self.scripts: dict[str, list[Script]] = {"w1": [W1_HIT], "w2": [W2_EMPTY], "talker": [REPLY]}

    def role(self, body: dict[str, Any]) -> str:
        if body.get("max_tokens") == 1:  # session-open prewarm of a role's static prefix
            return "prewarm"
        system = body["messages"][0]["content"]
        for role, prompt in self.prompts.items():
            if system == prompt:
                return role
        raise LookupError(f"unrouted system prompt: {system[:80]!r}")

    def set(self, role: str, *scripts: Script) -> None:
        self.scripts[role] = list(scripts)

    def __call__(self, body: dict[str, Any]) -> Script:
        if self.role(body) == "prewarm":
            return Script("ok")
        queue = self.scripts[self.role(body)]
        return queue.pop(0) if len(queue) > 1 else queue[0]


class Harness:
    def __init__(self, pack: Pack, state: LiveState) -> None:
        self.pack = pack
        self.state = state
        self.router = Router(pack)
        self.server = ScriptedLLMServer(router=self.router)
        self.coaches: list[TextCoach] = []
        self._n = 0

    def config(self, first_token_timeout_s: float = 2.0, **overrides: Any) -> CoachConfig:
        llm = LLMConfig(
            base_url=self.server.base_url,
            first_token_timeout_s=first_token_timeout_s,
            inter_token_timeout_s=1.0,
        )
        # The reply's streaming mechanics are tested on the unguarded LLM path (the guard and the
        # realizer have their tests in test_actors.py / test_guard.py / test_realizer.py).
        values: dict[str, Any] = {
            "tool_timeout_s": 1.0, "slot_timeout_s": 2.0, "talker_deadline_s": 3.0, "talker": "llm"
        }  # fmt: skip
        values.update(overrides)
        return CoachConfig(llm=llm, **values)

    async def coach(
        self,
        config: CoachConfig | None = None,
        store: SessionStore | None = None,
        session_id: str | None = None,
        state: LiveState | None = None,
    ) -> TextCoach:
        self._n += 1
        config = config or self.config()
        session = Session.open(
            session_id or f"turn-test-{self._n}",
            store=store if store is not None else MemorySessionStore(),
            state=state if state is not None else self.state,
            pack=self.pack,
        )
        coach = TextCoach(session, config, Engines(llm=LLMClient(config.llm)))
        self.coaches.append(coach)
        await coach.start()
        return coach

    def requests(self, role: str) -> list[RecordedRequest]:
        return [r for r in self.server.requests if self.router.role(r.body) == role]

    async def close(self) -> None:
        for coach in self.coaches:
            await coach.stop()
            await coach.engines.close()
        await self.server.stop()


@pytest_asyncio.fixture
async def harness(pack: Pack, state: LiveState) -> AsyncIterator[Harness]:
    h = Harness(pack, state)
    await h.server.start()
    try:
        yield h
    finally:
        await h.close()


def at(turn: TurnResult, label: Milestone) -> float:
    """ms (since end of input) at which `label` first reached the end of the pipeline."""
    for ms, what in turn.timeline:
        if what == label:
            return ms
    raise AssertionError(f"{label!r} not in timeline {turn.timeline}")


async def wait_until(condition: Callable[[], bool], timeout_s: float = 5.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.01)


def assert_completed(turn: TurnResult) -> None:
    assert turn.completed, f"turn {turn.turn_index} did not complete: {turn.timeline}"
    assert turn.record is not None and turn.c1 is not None
    assert turn.narration.strip(), "no narration spoken"
    assert turn.reply.strip(), "no reply spoken"


# --- 1. early dispatch --------------------------------------------------------------------------


async def test_phi_hit_dispatches_tools_before_narration_and_plan_end(harness: Harness) -> None:
    slow_narration = Script(chunks=HIT_HEAD + NARRATION + HIT_PLAN, ttft_s=0.05, inter_token_s=0.08)
    harness.router.set("w1", slow_narration)
    coach = await harness.coach()
    # Session-open prewarm sent each role's static prefix once, before the first turn.
    prewarmed = [r.body["messages"][0]["content"] for r in harness.requests("prewarm")]
    assert sorted(prewarmed) == sorted(harness.router.prompts.values())
    turn = await coach.ask("what counters their team?", timeout_s=10)
    assert_completed(turn)

    assert len(turn.dispatches) == 1
    dispatch = turn.dispatches[0]
    assert dispatch.source == "phi"
    assert [c.tool for c in dispatch.calls] == ["find_counters", "suggest_lineup"]
    assert dispatch.calls[0].args["opponent"] == ["briarcat", "shellbastion", "voltail"]
    assert turn.c1.outcome == "frozen" and (turn.c1.intent, turn.c1.sub_intent) == ("lineup", "counter")

    # On the turn's clock: tools went out while narration was still streaming.
    latency = turn.record.latency
    assert latency["tool_dispatch"] < latency["narration_end"] - 250, latency
    # On the monotonic clock: well before the W1 stream delivered </PLAN>. With the tool set
    # frozen the reply does not wait for PLAN, so the turn may end before PLAN streams in.
    w1 = harness.requests("w1")[0]
    await wait_until(lambda: w1.completed and coach.session.counters.plan_ignored == 1)
    clock = coach.session.turn(turn.turn_index)
    assert clock is not None and w1.last_chunk_at is not None
    dispatched_at = clock.started + dispatch.t_ms / 1000.0
    plan_closed_at = w1.last_chunk_at  # the last chunk is the one that closes PLAN
    assert dispatched_at < plan_closed_at - 0.5, (
        dispatched_at - clock.started,
        plan_closed_at - clock.started,
    )
    # Tool results came back (before narration ended, even) and reached the reply.
    assert turn.results is not None and [o.ok for o in turn.results.outcomes] == [True, True]
    assert turn.results.t_ms < latency["narration_end"]
    assert "find_counters:" in harness.requests("talker")[0].body["messages"][1]["content"]
    # The PLAN that came later did not override the frozen set (plan_ignored, above).
    assert len(turn.dispatches) == 1


# --- 2. narration not held behind W2 ------------------------------------------------------------


async def test_narration_reaches_the_end_while_w2_is_still_running(harness: Harness) -> None:
    harness.router.set("w2", Script('{"wanted_entities": ["sparkwing"]}', ttft_s=1.5))
    coach = await harness.coach(harness.config(talker_deadline_s=4.0, slot_timeout_s=3.0))
    turn = await coach.ask("what counters their team?", timeout_s=10)
    assert_completed(turn)

    first_narration = at(turn, Milestone.FIRST_NARRATION_TOKEN)
    assert first_narration < at(turn, Milestone.C2)
    assert turn.c2 is not None and not turn.c2.slot_errors  # W2 did finish, just later
    w2 = harness.requests("w2")[0]
    assert w2.last_chunk_at is not None
    narration_wall = coach.collector.started + first_narration / 1000.0
    assert narration_wall < w2.last_chunk_at - 1.0
    assert first_narration < 1000  # it did not wait for the 1.5 s slot call at all


# --- 3. Φ miss waits for PLAN ---------------------------------------------------------------------


async def test_phi_miss_falls_through_to_the_plan(harness: Harness) -> None:
    harness.router.set("w1", W1_MISS)
    coach = await harness.coach()
    turn = await coach.ask("any tips for shiny hunting?", timeout_s=10)
    assert_completed(turn)

    assert turn.c1.outcome == "miss"
    assert [d.source for d in turn.dispatches] == ["plan"]
    assert [c.tool for c in turn.dispatches[0].calls] == ["get_inventory"]
    assert turn.dispatches[0].t_ms >= turn.record.latency["narration_end"]
    assert at(turn, Milestone.TOOL_DISPATCH) > at(turn, Milestone.FIRST_NARRATION_TOKEN)
    assert turn.results is not None and turn.results.outcomes[0].ok
    counters = coach.session.counters
    assert (counters.turns, counters.fall_through, counters.frozen) == (1, 1, 0)


# --- 4. broken or missing tags --------------------------------------------------------------------


async def test_broken_tags_still_speak_and_the_session_goes_on(harness: Harness) -> None:
    harness.router.set(
        "w1",
        Script("Sure thing, use your fire creature against the grass one."),
        Script("<INTENT>lin<eup</SUB_INTENT><FOO>bar <PLAN>summon(x=</NARRATION>"),
        W1_HIT,
    )
    coach = await harness.coach()

    untagged = await coach.ask("what counters their team?", timeout_s=10)
    assert_completed(untagged)
    assert untagged.narration == FALLBACK_NARRATION
    assert untagged.c1.outcome == "format_error"
    assert coach.session.counters.format_errors == 1

    garbage = await coach.ask("what counters their team?", timeout_s=10)
    assert_completed(garbage)
    assert garbage.c1.outcome in ("format_error", "miss")
    assert all(d.source != "phi" for d in garbage.dispatches)

    fine = await coach.ask("what counters their team?", timeout_s=10)
    assert_completed(fine)
    assert fine.c1.outcome == "frozen" and fine.narration == "Let me check their team against yours."
    assert [r.turn_index for r in coach.session.store.load_turns(coach.session.session_id)] == [0, 1, 2]


# --- 5. stream errors -----------------------------------------------------------------------------


async def test_w1_http_error_speaks_a_fallback(harness: Harness) -> None:
    harness.router.set("w1", Script(fail="http_error", status=503), W1_HIT)
    coach = await harness.coach()
    started = time.monotonic()
    turn = await coach.ask("what counters their team?", timeout_s=10)
    assert time.monotonic() - started < 5.0
    assert_completed(turn)
    assert turn.narration == FALLBACK_NARRATION
    assert turn.c1.outcome == "llm_error"
    assert (await coach.ask("what counters their team?", timeout_s=10)).c1.outcome == "frozen"


async def test_w1_stall_times_out_into_a_fallback(harness: Harness) -> None:
    harness.router.set("w1", Script("<INTENT>lineup</INTENT>", fail="stall", stall_after=0), W1_HIT)
    coach = await harness.coach(harness.config(first_token_timeout_s=0.5))
    started = time.monotonic()
    turn = await coach.ask("what counters their team?", timeout_s=10)
    elapsed = time.monotonic() - started
    assert_completed(turn)
    assert 0.4 < elapsed < 5.0, elapsed
    assert turn.narration == FALLBACK_NARRATION
    assert turn.c1.outcome == "llm_error" and "stalled" in turn.c1.reason
    assert at(turn, Milestone.FIRST_NARRATION_TOKEN) >= 450  # spoken when the timeout fired, not before
    assert_completed(await coach.ask("what counters their team?", timeout_s=10))


async def test_talker_cut_stream_speaks_a_fallback_reply(harness: Harness) -> None:
    harness.router.set("talker", Script("Bring Sparkwing in.", fail="cut", cut_after=0), REPLY)
    coach = await harness.coach()
    started = time.monotonic()
    turn = await coach.ask("what counters their team?", timeout_s=10)
    assert time.monotonic() - started < 5.0
    assert_completed(turn)
    assert turn.reply == FALLBACK_REPLY
    nxt = await coach.ask("what counters their team?", timeout_s=10)
    assert_completed(nxt)
    assert nxt.reply == REPLY.text


async def test_talker_cut_mid_reply_keeps_what_was_said(harness: Harness) -> None:
    harness.router.set("talker", Script("Bring Sparkwing in now.", fail="cut", cut_after=2), REPLY)
    coach = await harness.coach()
    turn = await coach.ask("what counters their team?", timeout_s=10)
    assert_completed(turn)
    assert turn.reply == "Bring Sparkwing"  # no fallback appended to a reply already under way
    assert turn.record.reply == "Bring Sparkwing"


# --- 6. barge-in ----------------------------------------------------------------------------------


async def test_barge_in_cancels_the_turn_and_stores_it_cut_with_no_meta_in_history(harness: Harness) -> None:
    slow = Script(" ".join(f"word{i}" for i in range(40)), inter_token_s=0.15)  # 6 s if not stopped
    harness.router.set("talker", slow, REPLY)
    coach = await harness.coach()
    session = coach.session
    store = session.store
    metas_before = list(session.state.sh.metas)

    asking = asyncio.create_task(coach.ask("what counters their team?", timeout_s=2.0))
    await wait_until(lambda: coach.collector.current is not None and bool(coach.collector.current.reply))
    interrupted_at = time.monotonic()
    await coach.interrupt()
    turn = await asking  # waits out its 2 s: a cancelled turn never completes

    assert not turn.completed and turn.record is None
    assert Milestone.TURN_COMPLETED not in [label for _, label in turn.timeline]
    assert len(turn.reply.split()) < 5, turn.reply  # the reply stopped where the player cut in
    assert session.state.sh.metas == metas_before
    # Stored as cut, with what was said before the player cut in; its guidance goes on no cooldown.
    [cut] = store.load_turns(session.session_id)
    assert cut.turn_index == turn.turn_index and not cut.completed and cut.failure is not None
    # A bare InterruptionFrame is no player input (voice mode's barge-in sends UserStartedSpeakingFrame
    # first: 'interrupted', tests/actors/test_actors.py), so the recorder names it a playback stop.
    assert cut.failure.startswith("playback") and cut.reply == turn.reply and cut.heard is not None
    assert cut.heard.endswith(turn.reply) and cut.meta is not None
    assert store.load_history(session.session_id) == []
    # The Talker's HTTP stream was dropped, not left running behind the player's back.
    talker = harness.requests("talker")[0]
    assert not talker.completed
    assert talker.last_chunk_at is not None and talker.last_chunk_at < interrupted_at + 0.5

    again = await coach.ask("what counters their team?", timeout_s=10)
    assert_completed(again)
    assert again.turn_index == turn.turn_index + 1
    assert again.reply == REPLY.text
    assert again.record.meta is not None
    assert session.state.sh.metas == [*metas_before, again.record.meta]
    turns = store.load_turns(session.session_id)
    assert [(r.turn_index, r.completed) for r in turns] == [
        (turn.turn_index, False),
        (again.turn_index, True),
    ]
    assert store.load_history(session.session_id) == [again.record.meta]


async def test_barge_in_during_narration_stops_it_and_no_reply_follows(harness: Harness) -> None:
    slow = Script(chunks=HIT_HEAD + NARRATION + HIT_PLAN, inter_token_s=0.2)  # narration takes ~1.6 s
    harness.router.set("w1", slow, W1_HIT)
    coach = await harness.coach()

    asking = asyncio.create_task(coach.ask("what counters their team?", timeout_s=2.0))
    # The narration is held until its sentence closes (it is checked before it is spoken): cut in
    # while W1 is still streaming it, a few chunks after its first.
    await wait_until(lambda: any(r.first_chunk_at is not None for r in harness.requests("w1")))
    await asyncio.sleep(0.5)
    await coach.interrupt()
    turn = await asking

    assert not turn.completed
    assert turn.narration == ""  # a narration cut before its sentence closed is not spoken at all
    assert Milestone.NARRATION_END not in [label for _, label in turn.timeline] and not turn.reply
    assert harness.requests("talker") == []  # no reply was even started for a turn the player cut
    assert not harness.requests("w1")[0].completed

    again = await coach.ask("what counters their team?", timeout_s=10)
    assert_completed(again)
    assert again.narration == "Let me check their team against yours."
    turns = coach.session.store.load_turns(coach.session.session_id)
    assert [(r.turn_index, r.completed) for r in turns] == [(0, False), (1, True)]
    assert turns[0].heard == turn.narration and turns[0].reply == ""  # the narration's start, no reply


async def test_stop_mid_turn_leaves_no_turn_task_running(harness: Harness) -> None:
    harness.router.set("w1", Script(chunks=HIT_HEAD + NARRATION + HIT_PLAN, inter_token_s=0.3))
    coach = await harness.coach(harness.config(tool_latency_ms=5000.0, tool_timeout_s=10.0))
    turn = await coach.ask("what counters their team?", timeout_s=0.8)
    assert not turn.completed and turn.dispatches  # W1 is streaming, the tools are running
    await coach.stop()
    await asyncio.sleep(0.05)
    running = [t.get_name() for t in asyncio.all_tasks() if "-turn-" in t.get_name() and not t.done()]
    assert running == []


# --- 7. restart -----------------------------------------------------------------------------------

_REOPEN = """
import json, sys
from voicecoach.domain.pack import load_pack
from voicecoach.coach.session import Session
from voicecoach.coach.store import SQLiteSessionStore
store = SQLiteSessionStore(sys.argv[2])
session = Session.open(sys.argv[1], store=store, pack=load_pack("pet_arena"))
print(json.dumps({"metas": [m.model_dump(mode="json") for m in session.state.sh.metas],
                  "next_turn": session.next_turn}))
store.close()
"""


async def test_w3_history_survives_a_restart(harness: Harness, tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SQLiteSessionStore(path)
    coach = await harness.coach(store=store, session_id="restart-1")
    for _ in range(2):
        assert_completed(await coach.ask("what counters their team?", timeout_s=10))
    written = [m.model_dump(mode="json") for m in coach.session.state.sh.metas]
    assert len(written) == 2
    await coach.stop()
    store.close()

    proc = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-c", _REOPEN, "restart-1", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    reopened = json.loads(proc.stdout.strip().splitlines()[-1])
    assert reopened == {"metas": written, "next_turn": 2}


# --- 8. bad input ---------------------------------------------------------------------------------


async def test_unknown_tool_and_bad_args_are_dropped(harness: Harness) -> None:
    plan = "<PLAN>summon_dragon(power=9)\nfind_counters(opponent=[not_a_creature])\nget_inventory()</PLAN>"
    harness.router.set(
        "w1", Script(chunks=["<INTENT>other</INTENT>", "<SUB_INTENT>other</SUB_INTENT>", *NARRATION, plan])
    )
    coach = await harness.coach()
    turn = await coach.ask("summon a dragon", timeout_s=10)
    assert_completed(turn)
    (dispatch,) = turn.dispatches
    assert dispatch.source == "plan"
    assert [c.tool for c in dispatch.calls] == ["get_inventory"]
    assert len(dispatch.errors) == 2, dispatch.errors
    assert "summon_dragon" in dispatch.errors[0] and "not_a_creature" in dispatch.errors[1]
    assert turn.results is not None and [o.tool for o in turn.results.outcomes] == ["get_inventory"]


async def test_tool_timeout_is_reported_and_the_reply_says_data_is_missing(harness: Harness) -> None:
    coach = await harness.coach(harness.config(tool_latency_ms=3000.0, tool_timeout_s=0.2))
    turn = await coach.ask("what counters their team?", timeout_s=10)
    assert_completed(turn)
    assert turn.dispatches[0].source == "phi"
    assert turn.results is not None and len(turn.results.outcomes) == 2
    for outcome in turn.results.outcomes:
        assert not outcome.ok and outcome.result is None
        assert "timed out" in (outcome.error or "")
        assert outcome.ms < 1000
    prompt = harness.requests("talker")[0].body["messages"][1]["content"]
    assert "unavailable" in prompt.lower()
    assert "find_counters:" not in prompt and "suggest_lineup:" not in prompt  # no facts to draw on
    assert [t["ok"] for t in turn.record.tools] == [False, False]


async def test_snapshot_without_inventory_disables_the_early_path(harness: Harness) -> None:
    coach = await harness.coach()
    snapshot = copy.deepcopy(STATE)
    del snapshot["fs"]["inventory"]
    await coach.push_state(snapshot=snapshot)
    turn = await coach.ask("what counters their team?", timeout_s=10)
    assert_completed(turn)
    assert coach.session.state.fs.inventory is None  # the push was applied before the turn began
    assert turn.c1.outcome == "degraded" and "fs.inventory.owned" in turn.c1.reason
    assert all(d.source != "phi" for d in turn.dispatches)
    assert coach.session.counters.degraded == 1 and coach.session.counters.frozen == 0


# --- 9. a real turn through the embedded model ------------------------------------------------------


async def test_split_engines_send_w1_to_the_lead_and_w2_talker_to_the_other(
    pack: Pack, state: LiveState
) -> None:
    lead_router, rest_router = Router(pack), Router(pack)
    async with ScriptedLLMServer(router=lead_router) as lead, ScriptedLLMServer(router=rest_router) as rest:
        config = CoachConfig(llm=LLMConfig(base_url=rest.base_url, first_token_timeout_s=2.0))
        engines = Engines(llm=LLMClient(config.llm), lead=LLMClient(config.llm, lead.base_url))
        session = Session.open("split", store=MemorySessionStore(), state=state, pack=pack)
        coach = TextCoach(session, config, engines)
        await coach.start()
        try:
            for _ in range(2):
                assert_completed(await coach.ask("what counters their team?", timeout_s=20))
        finally:
            await coach.stop()
            await engines.close()
    # prewarm of W1's prefix, then W1 only, on the lead; the slot call and the reply on the other.
    assert [lead_router.role(r.body) for r in lead.requests] == ["prewarm", "w1", "w1"]
    rest_roles = [rest_router.role(r.body) for r in rest.requests]
    assert rest_roles.count("w2") == 2 and rest_roles.count("talker") == 2 and "w1" not in rest_roles


@pytest.mark.parametrize("split", [False, True], ids=["one-server", "split-lead"])
async def test_real_turn_through_embedded_llama(pack: Pack, state: LiveState, split: bool) -> None:
    # The LLM slot call: the embedded default makes no LLM call and starts no server.
    config = CoachConfig(slots="llm", llm=LLMConfig(embedded_split_lead=split))
    engines = await asyncio.to_thread(Engines.start, config)
    coach: TextCoach | None = None
    try:
        assert engines.server is not None
        assert (engines.lead_server is not None) is split
        session = Session.open("real-model", store=MemorySessionStore(), state=state, pack=pack)
        coach = TextCoach(session, config, engines)
        await coach.start()
        turn = await coach.ask("what counters their team?", timeout_s=120)
        assert turn.completed and turn.record is not None and turn.c1 is not None, turn.timeline
        assert turn.reply.strip(), "no reply spoken"
        # The answer waits for the slot call (an LLM call, seconds on this CPU) only: nothing, or the
        # pack's acknowledgement and then the pair's phrase, is said before it; nothing of the LLM's.
        said_first = turn.narration.strip()
        assert said_first == "" or said_first.startswith(tuple(pack.templates.acknowledgements)), said_first
        assert turn.c1.outcome in ("frozen", "miss", "degraded", "format_error", "llm_error")
        # c2 may legitimately arrive after the reply (the slot call queues behind W1 on a
        # one-request-at-a-time server); c1, the dispatch and c3 always precede it.
        assert turn.dispatches and turn.c3 is not None
        assert turn.record.turn_index == 0 and session.store.load_turns("real-model")
    finally:
        if coach is not None:
            await coach.stop()
        await engines.close()
