"""Tools served by the game's MCP server (tools.json `mcp`), against a real local MCP server.

`GameMcp` is the game's MCP server: the official SDK's MCPServer (mcp 2's name for FastMCP) over
streamable HTTP on a free loopback port, run by uvicorn in a thread of the test, recording every
tools/call it serves. The pack is the toy hero shooter (tests/toy_pack.py) with MCP tools in its
tools.json. What is asserted is what the declaration promises, as for the HTTP tools
(tests/tools/test_http_tools.py): a read-only MCP tool's result reaches the runner, with names resolved
to ids and the declared state in `_meta`; a server that is down, slow, or answers an error or
invalid JSON gives a failed outcome saying so within the tool's timeout; a side-effect MCP tool is
never called before its turn is committed (the calls are counted on the server), is called after,
and a barge-in cancels it; a broken MCP declaration is refused naming the file and entry. One test
starts a stdio server the same way a pack's `command` does.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError as ServerToolError
from pipecat.frames.frames import Frame, InterruptionFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.tests.utils import SleepFrame, run_test

from tests.tools.test_http_tools import Router, Turns, w1_answer
from tests.toy_pack import EXAMPLE_STATE, FILES, base, write_pack
from voicecoach.actors.frames import (
    SideEffectResultFrame,
    ToolDispatchFrame,
    ToolResultFrame,
    TurnCommittedFrame,
)
from voicecoach.actors.tools import SCHEDULED, ToolActor, run_call
from voicecoach.app.packcheck import check_pack
from voicecoach.coach.session import Session
from voicecoach.core.state import load_state
from voicecoach.domain.pack import Pack, PackError, load_pack_from
from voicecoach.perception.plan import ToolCall
from voicecoach.perception.prompt import plan_gbnf_rules, w1_system_prompt
from voicecoach.talker.conditioning import conditioning
from voicecoach.testing.scripted_llm import Script
from voicecoach.tools.registry import MCP_META_SESSION, MCP_META_STATE, ToolError, ToolRunner, run_tool

CLOCK_TIMEOUT_S = 0.3  # tools.json timeout of match_clock
STATE = load_state(EXAMPLE_STATE)

MCP_TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_equipped",
        "mcp": True,
        "description": "A hero's equipped loadout, as the game has it.",
        "parameters": {"properties": {"hero": {"type": "string"}}, "required": ["hero"]},
        "entities": {"hero": "hero"},
        "state": ["fs.player_level"],
    },
    {"name": "match_clock", "mcp": True, "description": "The match clock.", "timeout_s": CLOCK_TIMEOUT_S},
    {
        "name": "equip_item",
        "mcp": True,
        "description": "Equip an item on a hero for the next round.",
        "parameters": {
            "properties": {"hero": {"type": "string"}, "item": {"type": "string"}},
            "required": ["hero", "item"],
        },
        "entities": {"hero": "hero", "item": "item"},
        "side_effect": True,
    },
    # The three below answer without structured content: their one text block is read as JSON.
    {"name": "loadout_text", "mcp": True, "description": "The loadout as JSON text."},
    {"name": "bad_json", "mcp": True, "description": "Answers text that is not JSON."},
    {"name": "a_list", "mcp": True, "description": "Answers a JSON list."},
    {"name": "two_texts", "mcp": True, "description": "Answers two text blocks."},
    {"name": "refuse", "mcp": True, "description": "Refuses every call."},
]
NAMES = [t["name"] for t in MCP_TOOLS]


# --- the game's MCP server --------------------------------------------------------------------------


class GameMcp:
    """The game's MCP server on 127.0.0.1:`port` (0: a free one), in a thread with its own event loop.

    `calls` records each tools/call as (tool, arguments, the request's `_meta`), `times` when it
    arrived and `observed` what `observe` said at that moment; `clock_delay_s` is how long
    match_clock takes to answer."""

    def __init__(self, port: int = 0) -> None:
        self.calls: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
        self.times: list[float] = []
        self.observed: list[Any] = []
        self.observe: Callable[[], Any] = lambda: None
        self.clock_delay_s = 0.0
        mcp = MCPServer("toy-shooter-game", log_level="WARNING")

        def record(ctx: Context, tool: str, **args: Any) -> None:
            self.calls.append((tool, args, dict(ctx.request_context.meta or {})))
            self.times.append(time.monotonic())
            self.observed.append(self.observe())

        @mcp.tool()
        def get_equipped(hero: str, ctx: Context) -> dict[str, Any]:
            record(ctx, "get_equipped", hero=hero)
            return {"hero": hero, "equipped": ["longshot"], "served_by": "mcp"}

        @mcp.tool()
        async def match_clock(ctx: Context) -> dict[str, Any]:
            record(ctx, "match_clock")
            await asyncio.sleep(self.clock_delay_s)
            return {"round": 2, "seconds_left": 41}

        @mcp.tool()
        def equip_item(hero: str, item: str, ctx: Context) -> dict[str, Any]:
            record(ctx, "equip_item", hero=hero, item=item)
            return {"equipped": item, "on": hero}

        @mcp.tool(structured_output=False)
        def loadout_text(ctx: Context) -> str:
            return json.dumps({"hero": "vanta", "equipped": []})

        @mcp.tool(structured_output=False)
        def bad_json(ctx: Context) -> str:
            return "{'round': 2,"

        @mcp.tool(structured_output=False)
        def a_list(ctx: Context) -> str:
            return "[1, 2]"

        @mcp.tool(structured_output=False)
        def two_texts(ctx: Context) -> list[str]:
            return ['{"round": 2}', '{"round": 3}']

        @mcp.tool()
        def refuse(ctx: Context) -> dict[str, Any]:
            raise ServerToolError("match not found")

        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port))
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        config = uvicorn.Config(mcp.streamable_http_app(), log_level="warning", timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    def called(self, tool: str) -> list[dict[str, Any]]:
        return [args for name, args, _ in self.calls if name == tool]

    def start(self) -> GameMcp:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            assert time.monotonic() < deadline and self._thread.is_alive(), "the MCP server did not start"
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()


@pytest.fixture
def game() -> Iterator[GameMcp]:
    server = GameMcp().start()
    yield server
    server.stop()


def dead_url() -> str:
    """A loopback URL where nothing listens: the game's MCP server is down."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/mcp"


def mcp_pack_folder(
    folder: Path,
    source: dict[str, Any] | None,
    tools: list[dict[str, Any]] | None = None,
    phi_edit: Callable[[list[dict[str, Any]]], None] | None = None,
) -> Path:
    """The toy hero shooter whose tools.json declares `tools` (default MCP_TOOLS) served by the MCP
    server `source` (None: no "mcp" key)."""
    files = dict(FILES)
    tools = MCP_TOOLS if tools is None else tools
    manifest = base()["manifest.json"]
    names = dict.fromkeys(t["name"] for t in tools)
    files["manifest.json"] = {**manifest, "tools": [*manifest["tools"], *names]}
    header = {} if source is None else {"mcp": source}
    # The toy's own tools (its manifest's first three) as builtins over its catalog.
    own = [{"name": "get_inventory", "builtin": "get_collection"},
           {"name": "suggest_lineup", "builtin": "suggest_group"},
           {"name": "get_creature", "builtin": "get_entity", "kind": "hero"}]  # fmt: skip
    files["tools.json"] = {**header, "tools": [*own, *tools]}
    if phi_edit is not None:
        phi = base()["phi.json"]
        phi_edit(phi)
        files["phi.json"] = phi
    return write_pack(folder, files)


@pytest.fixture
def mcp_pack(tmp_path: Path, game: GameMcp) -> Pack:
    return load_pack_from(mcp_pack_folder(tmp_path / "mcp_pack", {"url": game.url}))


async def call(pack: Pack, name: str, args: dict[str, Any], **runner: Any) -> Any:
    """One call through a fresh runner, as a ToolOutcome (run_call never raises)."""
    tools = ToolRunner(pack, **runner)
    try:
        return await run_call(tools, STATE, ToolCall(name, args))
    finally:
        await tools.aclose()


# --- the runner ---------------------------------------------------------------------------------


async def test_a_read_only_mcp_tool_result_reaches_the_runner(game: GameMcp, mcp_pack: Pack) -> None:
    runner = ToolRunner(mcp_pack, session_id="s-1")
    try:
        answer = await runner.call(STATE, "get_equipped", {"hero": "V"})  # a callsign
        again = await runner.call(STATE, "get_equipped", {"hero": "Bulwark"})  # the same connection
    finally:
        await runner.aclose()
    assert answer == {"hero": "vanta", "equipped": ["longshot"], "served_by": "mcp"}
    assert again["hero"] == "bulwark"
    (tool, args, meta), _ = game.calls
    assert (tool, args) == ("get_equipped", {"hero": "vanta"})  # the id, not the spoken name
    assert meta[MCP_META_SESSION] == "s-1"
    assert meta[MCP_META_STATE] == {"fs.player_level": STATE.fs.player_level}  # only what it declares


async def test_a_json_text_answer_is_read_as_the_result(game: GameMcp, mcp_pack: Pack) -> None:
    outcome = await call(mcp_pack, "loadout_text", {})
    assert outcome.ok and outcome.result == {"hero": "vanta", "equipped": []}


def test_mcp_tools_are_validated_and_listed_like_the_others(mcp_pack: Pack) -> None:
    with pytest.raises(ToolError, match="unknown hero"):
        run_tool(mcp_pack, STATE, "get_equipped", {"hero": "moonbat"})
    with pytest.raises(ToolError, match="served by the game from its MCP server"):
        run_tool(mcp_pack, STATE, "get_equipped", {"hero": "vanta"})
    assert "- equip_item(hero, item): Equip an item on a hero" in w1_system_prompt(mcp_pack)
    assert any('"equip_item("' in rule for rule in plan_gbnf_rules(mcp_pack))


@pytest.mark.parametrize(
    ("tool", "error"),
    [
        ("bad_json", "the game's answer is not valid JSON"),
        ("a_list", "not a JSON object (got list)"),
        ("two_texts", "no structured content or one JSON text (['text', 'text'])"),
        ("refuse", "the MCP server answered an error: Error executing tool refuse: match not found"),
    ],
)
async def test_a_bad_answer_is_a_failed_outcome_naming_what_is_wrong(
    game: GameMcp, mcp_pack: Pack, tool: str, error: str
) -> None:
    outcome = await call(mcp_pack, tool, {})
    assert not outcome.ok and outcome.result is None
    assert error in (outcome.error or "")
    note = conditioning(mcp_pack, None, None, [outcome]).must_say[-1]
    assert note.startswith("Say plainly that some live game data is unavailable") and error in note


async def test_a_slow_mcp_tool_fails_within_its_timeout_and_the_connection_serves_on(
    game: GameMcp, mcp_pack: Pack
) -> None:
    runner = ToolRunner(mcp_pack, timeout_s=2.0)  # the run's cap; the tool's own 0.3 s is shorter
    try:
        assert (await run_call(runner, STATE, ToolCall("get_equipped", {"hero": "vanta"}))).ok  # connected
        game_delay_s = game.clock_delay_s = 3.0
        started = time.monotonic()
        slow = await run_call(runner, STATE, ToolCall("match_clock", {}))
        elapsed = time.monotonic() - started
        game.clock_delay_s = 0.0
        after = await run_call(runner, STATE, ToolCall("match_clock", {}))
    finally:
        await runner.aclose()
    assert not slow.ok and slow.error == f"timed out after {CLOCK_TIMEOUT_S}s"
    assert CLOCK_TIMEOUT_S <= elapsed < game_delay_s  # cut by the timeout, not answered late
    assert after.ok and after.result == {"round": 2, "seconds_left": 41}


async def test_a_server_that_is_down_fails_at_once_naming_it(tmp_path: Path) -> None:
    url = dead_url()
    # A generous timeout: the refused connection, not the clock, must end the call (a loaded machine
    # can take longer than the 0.3 s tool's budget just to import the SDK and try to connect).
    tools = [{**MCP_TOOLS[1], "timeout_s": 20.0}]
    pack = load_pack_from(mcp_pack_folder(tmp_path / "down", {"url": url}, tools))
    outcome = await call(pack, "match_clock", {}, timeout_s=20.0)
    assert not outcome.ok and f"the MCP server {url} is unreachable" in (outcome.error or "")
    note = conditioning(pack, None, None, [outcome]).must_say[-1]
    assert "live game data is unavailable" in note and "unreachable" in note


async def test_a_server_that_restarts_is_reconnected_on_the_next_call(tmp_path: Path) -> None:
    first = GameMcp().start()
    pack = load_pack_from(mcp_pack_folder(tmp_path / "restart", {"url": first.url}))
    runner = ToolRunner(pack)
    equipped = ToolCall("get_equipped", {"hero": "vanta"})
    try:
        assert (await run_call(runner, STATE, equipped)).ok
        first.stop()
        gone = await run_call(runner, STATE, equipped)
        second = GameMcp(port=first.port).start()
        try:
            back = await run_call(runner, STATE, equipped)
        finally:
            second.stop()
    finally:
        await runner.aclose()
    assert not gone.ok and f"the MCP server {first.url}" in (gone.error or "")
    assert back.ok and second.called("get_equipped") == [{"hero": "vanta"}]


async def test_the_runner_refuses_a_side_effect_call_unless_the_turn_is_committed(
    game: GameMcp, mcp_pack: Pack
) -> None:
    runner = ToolRunner(mcp_pack)
    try:
        with pytest.raises(ToolError, match="runs only once the turn is committed"):
            await runner.call(STATE, "equip_item", {"hero": "Vanta", "item": "Longshot"})
        assert game.calls == []  # refused before anything was sent
        done = await runner.call(STATE, "equip_item", {"hero": "Vanta", "item": "Longshot"}, committed=True)
    finally:
        await runner.aclose()
    assert done == {"equipped": "longshot", "on": "vanta"}
    assert game.called("equip_item") == [{"hero": "vanta", "item": "longshot"}]


# --- the commit gate in the tool actor --------------------------------------------------------------


class _Stamp(FrameProcessor):
    """Notes when the commit passed on its way to the tool actor (a clock, not a sleep, to compare)."""

    def __init__(self) -> None:
        super().__init__()
        self.committed: float | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, TurnCommittedFrame):
            self.committed = time.monotonic()
        await self.push_frame(frame, direction)


@pytest.mark.parametrize("ending", ["committed", "not-completed", "barge-in"])
async def test_the_gate_holds_a_side_effect_mcp_call_until_its_turn_is_committed(
    game: GameMcp, mcp_pack: Pack, ending: str
) -> None:
    session = Session.open("gate", state=STATE, pack=mcp_pack)
    turn = session.begin_turn("put longshot on vanta")
    calls = [
        ToolCall("equip_item", {"hero": "vanta", "item": "longshot"}),
        ToolCall("get_equipped", {"hero": "vanta"}),
    ]
    end: Frame = (
        InterruptionFrame()
        if ending == "barge-in"
        else TurnCommittedFrame(turn_index=turn.index, completed=ending == "committed")
    )
    stamp = _Stamp()
    down, _ = await run_test(
        Pipeline([stamp, ToolActor(session, ToolRunner(mcp_pack))]),
        frames_to_send=[
            ToolDispatchFrame(turn_index=turn.index, calls=calls, source="phi"),  # even from Φ: gated
            SleepFrame(sleep=0.3),
            end,
            SleepFrame(sleep=0.5),
        ],
    )
    [results] = [f for f in down if isinstance(f, ToolResultFrame)]
    equip, equipped = results.outcomes
    assert equip.ok and equip.result == SCHEDULED
    assert equipped.ok and equipped.result is not None and equipped.result["hero"] == "vanta"
    fired = [f for f in down if isinstance(f, SideEffectResultFrame)]
    if ending == "committed":
        [after] = fired
        assert after.outcomes[0].result == {"equipped": "longshot", "on": "vanta"}
        assert [name for name, _, _ in game.calls] == ["get_equipped", "equip_item"]
        assert stamp.committed is not None and game.times[1] >= stamp.committed  # sent after the commit
    else:
        assert fired == [] and game.called("equip_item") == []


async def test_a_side_effect_from_the_plan_fires_only_after_the_turn_is_stored_completed(
    game: GameMcp, mcp_pack: Pack
) -> None:
    reply = Script("Longshot goes on Vanta once you've heard me.", inter_token_s=0.005)
    w1 = w1_answer("lineup", "other", "equip_item(hero=vanta, item=longshot)")  # a Φ miss: PLAN decides
    turns = Turns(mcp_pack, STATE, Router(mcp_pack, w1, reply))
    async with turns as coach:
        session = coach.session
        # what the store holds when the game is asked to equip: the turn, completed
        game.observe = lambda: [
            (t.turn_index, t.completed) for t in session.store.load_turns(session.session_id)
        ]
        turn = await coach.ask("put longshot on vanta", timeout_s=10)
        async with asyncio.timeout(3):
            while not turns.of(SideEffectResultFrame):
                await asyncio.sleep(0.01)
    assert turn.completed and turn.dispatch is not None and turn.dispatch.source == "plan"
    assert turn.results is not None and turn.results.outcomes[0].result == SCHEDULED
    assert game.called("equip_item") == [{"hero": "vanta", "item": "longshot"}]
    assert game.observed == [[(turn.turn_index, True)]]  # fired after the commit, never before
    [done] = turns.of(SideEffectResultFrame)
    assert done.outcomes[0].result == {"equipped": "longshot", "on": "vanta"}


# --- stdio ----------------------------------------------------------------------------------------

STDIO_SERVER = """
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("toy-shooter-stdio", log_level="WARNING")


@mcp.tool()
def get_equipped(hero: str) -> dict:
    return {"hero": hero, "equipped": [], "served_by": "stdio"}


mcp.run()  # stdio
"""


async def test_a_stdio_server_the_pack_names_is_started_and_called(tmp_path: Path) -> None:
    script = tmp_path / "game_mcp.py"
    script.write_text(STDIO_SERVER)
    # the process start (importing the SDK) counts against the first call unless prewarmed
    tools = [{**MCP_TOOLS[0], "timeout_s": 20.0}]
    pack = load_pack_from(
        mcp_pack_folder(tmp_path / "stdio", {"command": [sys.executable, str(script)]}, tools)
    )
    runner = ToolRunner(pack)
    try:
        runner.prewarm()  # what the tool actor does at the pipeline's start
        answer = await runner.call(STATE, "get_equipped", {"hero": "Vanta"})
    finally:
        await runner.aclose()
    assert answer == {"hero": "vanta", "equipped": [], "served_by": "stdio"}


async def test_a_stdio_server_that_cannot_start_is_a_failed_outcome(tmp_path: Path) -> None:
    missing = str(tmp_path / "no_such_server")
    pack = load_pack_from(mcp_pack_folder(tmp_path / "nostdio", {"command": [missing]}))
    outcome = await call(pack, "match_clock", {})
    assert not outcome.ok and f"the MCP server {missing} is unreachable" in (outcome.error or "")


# --- the loader and pack check --------------------------------------------------------------------


def test_a_phi_entry_listing_a_side_effect_mcp_tool_is_refused_naming_file_and_entry(tmp_path: Path) -> None:
    def equip_early(phi: list[dict[str, Any]]) -> None:
        entry = next(e for e in phi if (e["intent"], e["sub_intent"]) == ("smalltalk", "greeting"))
        entry["tools"].append({"tool": "equip_item", "args": {"hero": "vanta", "item": "longshot"}})

    folder = mcp_pack_folder(tmp_path / "early", {"url": "http://127.0.0.1:9/mcp"}, phi_edit=equip_early)
    with pytest.raises(PackError) as err:
        load_pack_from(folder)
    message = str(err.value)
    assert "phi.json" in message and "'smalltalk/greeting'" in message
    assert "'equip_item' has side effects" in message
    found = [f for f in check_pack(folder) if f.status == "error"]
    assert any("phi.json" in f.detail and "'equip_item' has side effects" in f.detail for f in found)


def _tool(**changes: Any) -> list[dict[str, Any]]:
    return [{**MCP_TOOLS[0], **changes}]


URL = {"url": "http://127.0.0.1:9/mcp"}


@pytest.mark.parametrize(
    ("source", "tools", "says"),
    [
        (None, None, "entry 'get_equipped': an MCP tool, but tools.json names no MCP server"),
        ({}, None, 'an MCP server needs either "url" (streamable HTTP) or "command" (stdio) at mcp'),
        ({**URL, "command": ["game-mcp"]}, None, 'an MCP server needs either "url"'),
        ({"url": "ftp://game/mcp"}, None, "String should match pattern"),
        ({"command": []}, None, "List should have at least 1 item"),
        ({**URL, "transport": "sse"}, None, "Extra inputs are not permitted at mcp.transport"),
        (URL, _tool(mcp=False), "entry 'get_equipped': Input should be True at mcp"),
        (URL, _tool(entities={"hero": "creature"}), "entities: 'hero' names 'creature', not a kind"),
        (URL, _tool(state=["fs.wallet"]), "entry 'get_equipped': unknown state field 'fs.wallet'"),
        (URL, [*_tool(), *_tool()], "entry 'get_equipped' defined twice"),
    ],
    ids=[
        "no-source",
        "no-url-or-command",
        "both",
        "url",
        "empty-command",
        "unknown-key",
        "mcp-false",
        "entity-kind",
        "state-path",
        "twice",
    ],  # fmt: skip
)
def test_a_broken_mcp_declaration_is_refused_naming_file_and_entry(
    tmp_path: Path, source: dict[str, Any] | None, tools: list[dict[str, Any]] | None, says: str
) -> None:
    folder = mcp_pack_folder(tmp_path / "broken", source, tools)
    with pytest.raises(PackError) as err:
        load_pack_from(folder)
    assert "tools.json" in str(err.value) and says in str(err.value)
    [finding] = [f for f in check_pack(folder) if f.status != "ok"]
    assert finding.status == "error" and finding.detail.startswith("tools.json: ") and says in finding.detail


def test_a_sound_mcp_pack_passes_the_loader_with_its_server(tmp_path: Path) -> None:
    pack = load_pack_from(mcp_pack_folder(tmp_path / "sound", URL))
    assert list(pack.mcp_tools) == NAMES and pack.http_tools == {}
    assert pack.mcp_server is not None and pack.mcp_server.url == URL["url"]
    assert pack.mcp_tools["equip_item"].side_effect and not pack.mcp_tools["get_equipped"].side_effect
    assert ToolRunner(pack).timeout_for("match_clock") == CLOCK_TIMEOUT_S
