"""Tools served by the game's backend (tools.json), against a real local HTTP server.

`GameServer` is the game's tool endpoint: an aiohttp.web server on loopback, started by each test,
whose answer per tool is scripted (a result, a slow answer, broken JSON, a list, an HTTP error).
What is asserted is what the pack declaration promises: a game-served read-only tool runs through
the ToolRunner and through a whole text-mode turn (Φ's early dispatch included); a game that is
down, slow or answers badly gives the Talker the "data unavailable" note within the tool's
timeout and the turn goes on; a side-effect tool never fires early — not from Φ (the loader
refuses it), not before the turn is committed, never after a barge-in; a bad tools.json entry is
refused naming file and entry.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web
from pipecat.frames.frames import Frame
from pipecat.tests.utils import SleepFrame, run_test

from voicecoach.actors.frames import (
    SideEffectResultFrame,
    ToolDispatchFrame,
    ToolResultFrame,
    TurnCommittedFrame,
)
from voicecoach.actors.tools import SCHEDULED, ToolActor, run_call
from voicecoach.coach.engines import Engines
from voicecoach.coach.session import CoachConfig, Session
from voicecoach.core.latency import Milestone
from voicecoach.core.state import LiveState
from voicecoach.domain.pack import PACKS_DIR, Pack, PackError, load_pack, load_pack_from
from voicecoach.grounding.prompt import slot_prompt
from voicecoach.llm.client import LLMClient, LLMConfig
from voicecoach.perception.plan import ToolCall
from voicecoach.perception.prompt import plan_gbnf_rules, w1_system_prompt
from voicecoach.pipelines.text import TextCoach
from voicecoach.talker.conditioning import conditioning, talker_system_prompt
from voicecoach.testing.scripted_llm import Script, ScriptedLLMServer
from voicecoach.tools.registry import ToolError, ToolRunner, run_tool, validate_args

MATCH_TIMEOUT_S = 0.3  # tools.json timeout of the game-served get_match_state
GAME_TOOLS: list[dict[str, Any]] = [
    {  # the game serves this one itself: its declaration takes precedence over the in-process tool
        "name": "get_match_state",
        "description": "The current match as the game server sees it.",
        "state": ["ic.match.round"],
        "timeout_s": MATCH_TIMEOUT_S,
    },
    {
        "name": "get_loadout",
        "description": "A creature's equipped gear.",
        "parameters": {
            "properties": {"creature": {"type": "string", "description": "creature id or name"}},
            "required": ["creature"],
        },
        "entities": {"creature": "creature"},
        "state": ["fs.player_level"],
    },
    {
        "name": "equip_lineup",
        "description": "Equip one of the named lineups for the next round.",
        "parameters": {"properties": {"lineup": {"type": "string"}}, "required": ["lineup"]},
        "side_effect": True,
    },
]


# --- the game's tool endpoint ---------------------------------------------------------------------

Answer = Callable[[dict[str, Any]], Awaitable[web.StreamResponse]]


def result(obj: Any, status: int = 200, delay_s: float = 0.0) -> Answer:
    async def answer(body: dict[str, Any]) -> web.StreamResponse:
        await asyncio.sleep(delay_s)
        return web.json_response(obj, status=status)

    return answer


def raw(text: str) -> Answer:
    async def answer(body: dict[str, Any]) -> web.StreamResponse:
        return web.Response(text=text, content_type="application/json")

    return answer


class GameServer:
    """POST /tools/{name}: records each request (and what `observe` says at that moment), then
    answers with the tool's scripted `Answer` (404 for a tool with none)."""

    def __init__(self) -> None:
        self.answers: dict[str, Answer] = {}
        self.requests: list[tuple[str, dict[str, Any], Any]] = []  # (tool, body, observed)
        self.times: list[float] = []  # time.monotonic() of each request
        self.observe: Callable[[], Any] = lambda: None
        self._runner: web.AppRunner | None = None
        self.url = ""

    def calls(self, tool: str) -> list[dict[str, Any]]:
        return [body for name, body, _ in self.requests if name == tool]

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        body = await request.json()
        self.requests.append((name, body, self.observe()))
        self.times.append(time.monotonic())
        answer = self.answers.get(name)
        if answer is None:
            return web.json_response({"error": f"no tool {name}"}, status=404)
        return await answer(body)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/tools/{name}", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}/tools"

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


@pytest_asyncio.fixture
async def game() -> AsyncIterator[GameServer]:
    server = GameServer()
    await server.start()
    yield server
    await server.stop()


def free_port_url() -> str:
    """A loopback URL where nothing listens: the game's server is down."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/tools"


def game_pack_folder(tmp_path: Path, endpoint: str, tools: list[dict[str, Any]] | None = None) -> Path:
    """A copy of pet_arena whose game serves GAME_TOOLS (or `tools`) at `endpoint`."""
    folder = tmp_path / "game_pack"
    shutil.copytree(PACKS_DIR / "pet_arena", folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["tools"] += ["get_loadout", "equip_lineup"]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    served = tools or GAME_TOOLS
    # pet's own builtins (its tools.json) stay, but for the tools the game serves here instead.
    names = {t.get("name") for t in served}
    builtins = [t for t in json.loads((folder / "tools.json").read_text())["tools"] if t["name"] not in names]
    (folder / "tools.json").write_text(json.dumps({"endpoint": endpoint, "tools": [*builtins, *served]}))
    # A game-served tool declares no result shape, so the answer steps that read pet's builtin of
    # that name go (those pairs are answered by the generic sentence here).
    phi = json.loads((folder / "phi.json").read_text())
    for entry in phi:
        if any(f'"{name}.' in json.dumps(entry.get("answer")) for name in names):
            entry.pop("answer", None)
    (folder / "phi.json").write_text(json.dumps(phi))
    return folder


@pytest.fixture
def game_pack(tmp_path: Path, game: GameServer) -> Pack:
    return load_pack_from(game_pack_folder(tmp_path, game.url))


# --- the runner ---------------------------------------------------------------------------------


async def test_a_read_only_game_tool_runs_through_the_runner_with_its_declared_state(
    game: GameServer, game_pack: Pack, state: LiveState
) -> None:
    game.answers["get_loadout"] = result({"creature": "emberfox", "gear": ["ember charm"]})
    runner = ToolRunner(game_pack, session_id="s-1")
    try:
        answer = await runner.call(state, "get_loadout", {"creature": "Emberfox"})  # a display name
    finally:
        await runner.aclose()
    assert answer == {"creature": "emberfox", "gear": ["ember charm"]}
    [body] = game.calls("get_loadout")
    # the id, not the spoken name; only the state fields the tool declares
    assert body == {
        "tool": "get_loadout",
        "args": {"creature": "emberfox"},
        "session_id": "s-1",
        "state": {"fs.player_level": state.fs.player_level},
    }


async def test_game_tools_are_validated_and_listed_like_the_in_process_ones(game_pack: Pack) -> None:
    with pytest.raises(ToolError, match="missing required argument"):
        validate_args("get_loadout", {}, game_pack)
    with pytest.raises(ToolError, match="unknown creature"):
        validate_args("get_loadout", {"creature": "moonbat"}, game_pack)
    with pytest.raises(ToolError, match="served by the game over HTTP"):
        run_tool(game_pack, LiveState(), "get_loadout", {"creature": "emberfox"})
    # W1's prompt and PLAN grammar list them, so a PLAN can call a game-served tool
    assert "- equip_lineup(lineup): Equip one of the named lineups" in w1_system_prompt(game_pack)
    assert any('"equip_lineup("' in rule for rule in plan_gbnf_rules(game_pack))
    assert not any("equip_lineup" in rule for rule in plan_gbnf_rules(load_pack()))  # pet's has none


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (raw("{'round': 2,"), "not valid JSON"),
        (result([1, 2]), "not a JSON object (got list)"),
        (result({"error": "match not found"}, status=500), "HTTP 500: match not found"),
    ],
    ids=["invalid-json", "not-an-object", "http-error"],
)
async def test_a_bad_answer_is_a_failed_outcome_naming_what_is_wrong(
    game: GameServer, game_pack: Pack, state: LiveState, answer: Answer, error: str
) -> None:
    game.answers["get_match_state"] = answer
    runner = ToolRunner(game_pack)
    outcome = await run_call(runner, state, ToolCall("get_match_state", {}))
    await runner.aclose()
    assert not outcome.ok and outcome.result is None
    assert error in (outcome.error or "")
    note = conditioning(game_pack, None, None, [outcome]).must_say[-1]
    assert note.startswith("Say plainly that some live game data is unavailable") and error in note


async def test_a_slow_game_fails_within_the_tools_timeout(
    game: GameServer, game_pack: Pack, state: LiveState
) -> None:
    game.answers["get_match_state"] = result({"round": 2}, delay_s=3.0)
    runner = ToolRunner(game_pack, timeout_s=2.0)  # the run's cap; the tool's own 0.3 s is shorter
    started = time.monotonic()
    outcome = await run_call(runner, state, ToolCall("get_match_state", {}))
    elapsed = time.monotonic() - started
    await runner.aclose()
    assert not outcome.ok and outcome.error == f"timed out after {MATCH_TIMEOUT_S}s"
    assert MATCH_TIMEOUT_S <= elapsed < MATCH_TIMEOUT_S + 0.25
    assert runner.timeout_for("get_match_state") == MATCH_TIMEOUT_S
    assert ToolRunner(game_pack, timeout_s=0.1).timeout_for("get_match_state") == 0.1  # the cap wins


async def test_a_game_that_is_down_fails_at_once_naming_the_endpoint(
    tmp_path: Path, state: LiveState
) -> None:
    url = free_port_url()
    runner = ToolRunner(load_pack_from(game_pack_folder(tmp_path, url)))
    started = time.monotonic()
    outcome = await run_call(runner, state, ToolCall("get_match_state", {}))
    await runner.aclose()
    assert not outcome.ok and f"{url}/get_match_state is unreachable" in (outcome.error or "")
    assert time.monotonic() - started < MATCH_TIMEOUT_S


async def test_the_runner_refuses_a_side_effect_call_unless_the_turn_is_committed(
    game: GameServer, game_pack: Pack, state: LiveState
) -> None:
    game.answers["equip_lineup"] = result({"equipped": "T1"})
    runner = ToolRunner(game_pack)
    with pytest.raises(ToolError, match="runs only once the turn is committed"):
        await runner.call(state, "equip_lineup", {"lineup": "T1"})
    assert game.calls("equip_lineup") == []  # refused before anything was sent
    assert await runner.call(state, "equip_lineup", {"lineup": "T1"}, committed=True) == {"equipped": "T1"}
    await runner.aclose()


# --- the commit gate in the tool actor --------------------------------------------------------------


def equip_dispatch(turn_index: int, source: str = "plan") -> ToolDispatchFrame:
    calls = [ToolCall("equip_lineup", {"lineup": "T1"}), ToolCall("get_loadout", {"creature": "emberfox"})]
    return ToolDispatchFrame(turn_index=turn_index, calls=calls, source=source)


@pytest.mark.parametrize("completed", [True, False], ids=["committed", "not-completed"])
async def test_the_gate_holds_a_side_effect_call_until_its_turn_is_committed_as_completed(
    game: GameServer, game_pack: Pack, state: LiveState, completed: bool
) -> None:
    game.answers["equip_lineup"] = result({"equipped": "T1"})
    game.answers["get_loadout"] = result({"gear": []})
    session = Session.open("gate", state=state, pack=game_pack)
    turn = session.begin_turn("equip the first lineup")
    down, _ = await run_test(
        ToolActor(session, ToolRunner(game_pack)),
        frames_to_send=[
            equip_dispatch(turn.index, source="phi"),  # even a Φ-sourced call is gated
            SleepFrame(sleep=0.3),
            TurnCommittedFrame(turn_index=turn.index, completed=completed),
            SleepFrame(sleep=0.3),
        ],
    )
    [results] = [f for f in down if isinstance(f, ToolResultFrame)]
    equip, loadout = results.outcomes
    assert equip.ok and equip.result == SCHEDULED  # the reply can say it will happen
    assert loadout.ok and loadout.result == {"gear": []}  # the read-only call ran at once
    fired = [f for f in down if isinstance(f, SideEffectResultFrame)]
    if completed:
        [after] = fired
        assert after.outcomes[0].result == {"equipped": "T1"}
        assert [name for name, _, _ in game.requests] == ["get_loadout", "equip_lineup"]
        assert game.times[1] - game.times[0] >= 0.25  # equip waited out the 0.3 s before the commit
    else:
        assert fired == [] and game.calls("equip_lineup") == []


# --- whole text-mode turns ------------------------------------------------------------------------


class Router:
    """Routes the scripted LLM's requests by system prompt: W1, W2's slot call, the Talker."""

    def __init__(self, pack: Pack, w1: str, reply: Script) -> None:
        self.prompts = {
            "w1": w1_system_prompt(pack),
            "w2": slot_prompt(pack),
            "talker": talker_system_prompt(pack),
        }
        self.scripts = {
            "w1": Script(text=w1, inter_token_s=0.005),
            "w2": Script('{"wanted_entities": [], "excluded_entities": []}'),
            "talker": reply,
        }

    def role(self, body: dict[str, Any]) -> str:
        if body.get("max_tokens") == 1:
            return "prewarm"
        system = body["messages"][0]["content"]
        return next(role for role, prompt in self.prompts.items() if prompt == system)

    def __call__(self, body: dict[str, Any]) -> Script:
        role = self.role(body)
        return Script("ok") if role == "prewarm" else self.scripts[role]


class Turns:
    """A TextCoach on the game pack and a scripted LLM; every frame it emits, with its arrival time."""

    def __init__(self, pack: Pack, state: LiveState, router: Router, **config: Any) -> None:
        self.server = ScriptedLLMServer(router=router)
        self.router = router
        self.pack, self.state, self.overrides = pack, state, config
        self.frames: list[tuple[float, Frame]] = []
        self.coach: TextCoach | None = None

    async def __aenter__(self) -> TextCoach:
        await self.server.start()
        llm = LLMConfig(base_url=self.server.base_url, first_token_timeout_s=2.0, inter_token_timeout_s=1.0)
        values: dict[str, Any] = {"tool_timeout_s": 1.0, "slot_timeout_s": 2.0, "talker_deadline_s": 3.0,
                                  "talker": "llm", **self.overrides}  # fmt: skip
        config = CoachConfig(llm=llm, **values)
        session = Session.open("http-tools", state=self.state, pack=self.pack)
        self.coach = TextCoach(
            session,
            config,
            Engines(llm=LLMClient(llm)),
            on_frame=lambda f, _: self.frames.append((time.monotonic(), f)),
        )
        await self.coach.start()
        return self.coach

    async def __aexit__(self, *exc: object) -> None:
        assert self.coach is not None
        await self.coach.stop()
        await self.coach.engines.close()
        await self.server.stop()

    def talker_prompt(self) -> str:
        [request] = [r for r in self.server.requests if self.router.role(r.body) == "talker"]
        return request.body["messages"][-1]["content"]

    def of(self, kind: type) -> list[Any]:
        return [f for _, f in self.frames if isinstance(f, kind)]


def w1_answer(intent: str, sub_intent: str, plan: str = "none") -> str:
    return (f"<INTENT>{intent}</INTENT><SUB_INTENT>{sub_intent}</SUB_INTENT>"
            f"<NARRATION>Let me check.</NARRATION><PLAN>{plan}</PLAN>")  # fmt: skip


REPLY = Script("You lead one round to nil, keep the pressure on.", inter_token_s=0.005)


async def test_phi_dispatches_a_game_served_tool_early_and_the_talker_gets_the_games_answer(
    game: GameServer, game_pack: Pack, state: LiveState
) -> None:
    game.answers["get_match_state"] = result({"round": 2, "leader": "player", "served_by": "game"})
    router = Router(game_pack, w1_answer("match", "score_check"), REPLY)  # Φ: get_match_state()
    turns = Turns(game_pack, state, router)
    async with turns as coach:
        turn = await coach.ask("who's winning the match", timeout_s=10)
        [body] = game.calls("get_match_state")
        prompt = turns.talker_prompt()
    assert turn.completed and turn.reply
    assert turn.dispatch is not None and turn.dispatch.source == "phi"
    assert body["state"] == {"ic.match.round": 2} and body["session_id"] == "http-tools"
    assert turn.results is not None and turn.results.outcomes[0].result == {
        "round": 2, "leader": "player", "served_by": "game"
    }  # fmt: skip
    assert '"served_by":"game"' in prompt


async def test_a_slow_game_gives_the_talker_a_data_unavailable_note_and_the_turn_goes_on(
    game: GameServer, game_pack: Pack, state: LiveState
) -> None:
    game.answers["get_match_state"] = result({"round": 2}, delay_s=3.0)
    turns = Turns(game_pack, state, Router(game_pack, w1_answer("match", "score_check"), REPLY))
    async with turns as coach:
        turn = await coach.ask("who's winning the match", timeout_s=10)
        prompt = turns.talker_prompt()
    assert turn.completed and turn.reply == REPLY.text
    assert turn.results is not None
    [outcome] = turn.results.outcomes
    assert not outcome.ok and outcome.ms < (MATCH_TIMEOUT_S + 0.25) * 1000
    # the results reached the end of the pipeline within the tool's timeout, not the game's 3 s
    assert turn.t_ms(Milestone.TOOL_RESULTS) < (MATCH_TIMEOUT_S + 0.5) * 1000
    assert "Say plainly that some live game data is unavailable" in prompt
    assert f"get_match_state failed (timed out after {MATCH_TIMEOUT_S}s)" in prompt


async def test_the_run_may_point_at_another_game_endpoint(
    tmp_path: Path, game: GameServer, state: LiveState
) -> None:
    pack = load_pack_from(game_pack_folder(tmp_path, free_port_url()))  # tools.json names a dead one
    game.answers["get_match_state"] = result({"round": 2})
    turns = Turns(pack, state, Router(pack, w1_answer("match", "score_check"), REPLY), tool_endpoint=game.url)
    async with turns as coach:
        turn = await coach.ask("who's winning the match", timeout_s=10)
    assert turn.results is not None and turn.results.outcomes[0].ok
    assert len(game.calls("get_match_state")) == 1


async def test_a_side_effect_from_the_plan_fires_only_once_the_turn_is_committed(
    game: GameServer, game_pack: Pack, state: LiveState
) -> None:
    game.answers["equip_lineup"] = result({"equipped": "T1"})
    router = Router(game_pack, w1_answer("lineup", "other", "equip_lineup(lineup=T1)"), REPLY)
    turns = Turns(game_pack, state, router)
    async with turns as coach:
        session = coach.session
        # what the store holds when the game is asked to equip: the turn, completed
        game.observe = lambda: [
            (t.turn_index, t.completed) for t in session.store.load_turns(session.session_id)
        ]
        turn = await coach.ask("equip my first lineup", timeout_s=10)
        async with asyncio.timeout(3):
            while not turns.of(SideEffectResultFrame):
                await asyncio.sleep(0.01)
    assert turn.completed and turn.dispatch is not None and turn.dispatch.source == "plan"
    assert turn.results is not None and turn.results.outcomes[0].result == SCHEDULED
    [(name, body, stored)] = game.requests
    assert name == "equip_lineup" and body["args"] == {"lineup": "T1"}
    assert stored == [(turn.turn_index, True)]  # fired after the commit, never before
    [done] = turns.of(SideEffectResultFrame)
    assert done.turn_index == turn.turn_index and done.outcomes[0].result == {"equipped": "T1"}


async def test_a_barge_in_cancels_a_side_effect_waiting_for_the_commit(
    game: GameServer, game_pack: Pack, state: LiveState
) -> None:
    game.answers["equip_lineup"] = result({"equipped": "T1"})
    slow_reply = Script("Equipping it once you've heard me out.", ttft_s=1.0, inter_token_s=0.005)
    router = Router(game_pack, w1_answer("lineup", "other", "equip_lineup(lineup=T1)"), slow_reply)
    turns = Turns(game_pack, state, router)
    async with turns as coach:
        asking = asyncio.create_task(coach.ask("equip my first lineup", timeout_s=3))
        async with asyncio.timeout(3):
            while not turns.of(ToolResultFrame):
                await asyncio.sleep(0.01)
        await coach.interrupt()  # the player speaks over the reply before it is delivered
        turn = await asking
        await asyncio.sleep(0.5)  # a side effect let through would have reached the game by now
        stored = coach.session.store.load_turns(coach.session.session_id)
    assert not turn.completed
    assert [(t.turn_index, t.completed) for t in stored] == [(turn.turn_index, False)]
    assert game.calls("equip_lineup") == []


# --- the loader ---------------------------------------------------------------------------------


def _load_with(
    tmp_path: Path, tools: list[dict[str, Any]], phi_edit: Callable[[list], list] | None = None
) -> None:
    folder = game_pack_folder(tmp_path, "http://127.0.0.1:9/tools", tools)
    if phi_edit is not None:
        path = folder / "phi.json"
        path.write_text(json.dumps(phi_edit(json.loads(path.read_text()))))
    load_pack_from(folder)


def test_a_phi_entry_listing_a_side_effect_tool_is_refused_naming_file_and_entry(tmp_path: Path) -> None:
    def equip_early(phi: list[dict[str, Any]]) -> list[dict[str, Any]]:
        entry = next(e for e in phi if (e["intent"], e["sub_intent"]) == ("lineup", "aggressive"))
        entry["tools"].append({"tool": "equip_lineup", "args": {"lineup": "T1"}})
        return phi

    with pytest.raises(PackError) as err:
        _load_with(tmp_path, GAME_TOOLS, equip_early)
    message = str(err.value)
    assert "phi.json" in message and "'lineup/aggressive'" in message
    assert "'equip_lineup' has side effects" in message


def _tool(**changes: Any) -> dict[str, Any]:
    return {**GAME_TOOLS[1], **changes}


@pytest.mark.parametrize(
    ("tools", "says"),
    [
        ([_tool(state=["fs.wallet"])], "entry 'get_loadout': unknown state field 'fs.wallet'"),
        ([_tool(name="get_weather")], "entry 'get_weather': not one of manifest.json's tools"),
        ([_tool(), _tool()], "entry 'get_loadout' defined twice"),
        ([_tool(timeout_s=0)], "entry 'get_loadout': Input should be greater than 0"),
        ([_tool(parameters={"properties": {"slots": {"type": "array"}}})], "an array argument needs"),
        ([_tool(entities={"gear": "creature"})], "entities: 'gear' is not a string or array argument"),
        ([_tool(parameters={"properties": {}, "required": ["creature"]})], "required names no property"),
        ([_tool(side_effects=True)], "entry 'get_loadout': Extra inputs are not permitted"),
    ],
    ids=["state-path", "not-in-manifest", "twice", "timeout", "array-items", "entities", "required", "typo"],
)
def test_a_bad_tools_json_entry_is_refused_naming_file_and_entry(
    tmp_path: Path, tools: list[dict[str, Any]], says: str
) -> None:
    with pytest.raises(PackError) as err:
        _load_with(tmp_path, tools)
    assert "tools.json" in str(err.value) and says in str(err.value)


def test_a_tools_json_without_a_usable_endpoint_is_refused(tmp_path: Path) -> None:
    folder = game_pack_folder(tmp_path, "ftp://game/tools")
    with pytest.raises(PackError, match=r"tools\.json: .* at endpoint"):
        load_pack_from(folder)
