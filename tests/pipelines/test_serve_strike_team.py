"""`voicecoach serve --pack strike_team` end to end: a spoken strike_team fixture turn, a spoken reply.

A real `voicecoach serve` process (the CLI, uvicorn, Silero VAD, Whisper tiny.en, piper) runs the
second pack; a websocket client (voicecoach.app.client) pushes the fixture turn's game state and
streams its WAV. Only the LLM is scripted (the scripted server in this test, routed by system
prompt as in tests/pipelines/test_turn.py): W1 answers with the fixture's expected labels. The slots come
from the rules and the reply is the grounded realization (`--slots rules --talker template`), so
what the coach says is the pack's own answer from its tools, not a line of this test.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest_asyncio

from tests.live_server import TOKEN, free_port
from tests.pipelines.test_deploy import health, wait_port
from tests.pipelines.test_turn import Router
from voicecoach.app.client import CoachClient
from voicecoach.bench.fixtures import load_session
from voicecoach.coach import protocol
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import load_pack
from voicecoach.testing.scripted_llm import Script, ScriptedLLMServer

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = load_session(ROOT / "audio_fixtures" / "strike_team" / "st01.json")
TURN = 2  # "We lost round one. How does Renzo do on this map?" (round 2 on Fathom Docks)


def _w1(intent: str, sub_intent: str) -> Script:
    chunks = [
        f"<INTENT>{intent}</INTENT>", f"<SUB_INTENT>{sub_intent}</SUB_INTENT>",
        "<NARRATION>", "Checking", " the map.", "</NARRATION>", "<PLAN>get_collection()</PLAN>",
    ]  # fmt: skip
    return Script(chunks=chunks, inter_token_s=0.01)


@pytest_asyncio.fixture
async def llm() -> AsyncIterator[ScriptedLLMServer]:
    turn = FIXTURE.turns[TURN]
    router = Router(load_pack("strike_team"))
    router.set("w1", _w1(turn.expect_intent, turn.expect_sub_intent))
    async with ScriptedLLMServer(router=router) as server:
        yield server


def _serve(port: int, llm_url: str, log: Path) -> subprocess.Popen[bytes]:
    command = [
        sys.executable, "-m", "voicecoach.app.cli", "serve", "--pack", "strike_team", "--port", str(port),
        "--llm-url", llm_url, "--store", "memory:", "--no-warm", "--slots", "rules", "--talker", "template",
        "--log-level", "WARNING",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VOICECOACH_TOKEN": TOKEN}
    with log.open("wb") as out:
        proc = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    # Ready once the speech engines are loaded (health says so), not merely listening.
    wait_port(lambda: (h := health(port)) is not None and h.get("ready") is True, "serve", proc, 120.0)
    return proc


def _names(text: str, names: set[str]) -> set[str]:
    return {n for n in names if re.search(rf"\b{re.escape(n)}\b", text, re.IGNORECASE)}


async def test_serve_strike_team_answers_a_spoken_fixture_turn_aloud_naming_its_heroes(
    llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    pack, pet = load_pack("strike_team"), load_pack("pet_arena")
    port = free_port()
    proc = await asyncio.to_thread(_serve, port, llm.base_url, tmp_path / "serve.log")
    try:
        client = await CoachClient.connect(f"ws://127.0.0.1:{port}/ws", token=TOKEN, session="st-e2e")
        try:
            # The session event's catalog is the pack's heroes, not pet's creatures.
            assert client.session is not None
            info = client.session.pack
            assert (info.id, info.unit_kind, info.creatures) == ("strike_team", "hero", [])
            assert info.units is not None
            assert {u.id for u in info.units} == set(pack.catalog.entities["hero"])
            renzo = next(u for u in info.units if u.id == "renzo")
            assert renzo.name == "Renzo" and renzo.attributes["role"] == "damage"

            state = FIXTURE.states()[TURN].model_dump(mode="json")
            await client.push_state(snapshot={"ic": state["ic"], "fs": state["fs"]})
            turn = FIXTURE.turns[TURN]
            n = len(client.messages)
            streamed = await client.stream_wav(FIXTURE.audio_path(turn), tail_silence_s=1.5, realtime=False)
            done = await client.wait_event("turn-completed", timeout=120, after=n)
            assert isinstance(done, protocol.TurnCompletedEvent)
            # The reply's audio has all arrived once none has come for a second (it is paced in real time).
            async with asyncio.timeout(60):
                while not client.audio or time.monotonic() - client.audio[-1].received < 1.0:
                    await asyncio.sleep(0.1)
        finally:
            await client.close()
    finally:
        proc.terminate()
        await asyncio.to_thread(proc.wait, 20)

    print(f"\nheard: {done.utterance!r}\nintent: {done.intent}/{done.sub_intent}\nreply: {done.reply!r}")
    assert "renzo" in done.utterance.lower(), done.utterance  # Whisper heard the hero
    assert (done.intent, done.sub_intent) == ("hero", "on_map")
    assert "map_picks" in done.tools

    # Audible: a second or more of coach audio after the player's speech, well above silence.
    pcm = np.frombuffer(client.audio_bytes(after=streamed.push_times[-1]), dtype="<i2").astype(np.float64)
    assert len(pcm) >= protocol.OUTPUT_SAMPLE_RATE, f"{len(pcm)} samples of reply audio"
    assert np.sqrt(np.mean(pcm**2)) > 300, "the reply audio is (near) silent"

    # The reply names the pack's heroes (and map), and nothing of pet_arena.
    said = done.narration + " " + done.reply
    linked = {(m.kind, m.id) for m in link_entities(pack, done.reply)}
    assert ("hero", "renzo") in linked, done.reply
    assert {kind for kind, _ in linked} <= set(pack.catalog.schema.kinds)
    # Pet's named entities: creatures, skills, lineups (its elements are plain words, "fire").
    pet_names = {e.display for kind in pet.catalog.entities.values() for e in kind.values() if e.name}
    assert len(pet_names) > 50 and "Emberfox" in pet_names
    assert _names(said, pet_names) == set(), said


def test_the_session_events_catalog_is_pets_creatures_as_before_and_another_packs_units() -> None:
    from voicecoach.pipelines.server import pack_info

    pets = load_pack("pet_arena")
    pet = json.loads(pack_info(pets).model_dump_json())
    assert list(pet) == ["id", "version", "creatures"]  # no unit_kind / units keys: pet's bytes as before
    creatures = sorted(pets.catalog.entities["creature"].values(), key=lambda c: c.name)
    assert pet["creatures"] == [
        {"id": c.id, "name": c.name, "element": c.value("element"), "role": c.value("role")}
        for c in creatures
    ]
    st = pack_info(load_pack("strike_team"))
    again = protocol.PackInfo.model_validate_json(st.model_dump_json())  # what a client reads back
    assert again == st and st.unit_kind == "hero" and st.creatures == [] and st.units is not None
    assert [u.name for u in st.units] == sorted(u.name for u in st.units) and len(st.units) == 24
    assert {"role", "style", "difficulty", "range"} == set(st.units[0].attributes)  # power is numeric


def test_replay_and_serve_take_the_pack() -> None:
    from voicecoach.app.cli import build_parser

    parser = build_parser()
    assert (
        parser.parse_args(["replay", "audio_fixtures/strike_team", "--pack", "strike_team"]).pack
        == "strike_team"
    )
    assert parser.parse_args(["replay", "audio_fixtures"]).pack is None  # each session's own pack_id
    assert parser.parse_args(["serve", "--pack", "strike_team"]).pack == "strike_team"


def test_whisper_is_prompted_with_the_packs_own_unit_names() -> None:
    """Before, strike_team's Whisper got pet's prompt with no names in it ("Pets: ."): 'Galen' came
    out 'gay Lynn' and one fixture turn came out empty (st06 turn 2) in the replay."""
    from voicecoach.pipelines.speech.voice import whisper_prompt

    pack = load_pack("strike_team")
    prompt = whisper_prompt(pack)
    assert prompt.startswith("Heroes: Brannoc, ") and prompt.endswith(", Galen.")
    assert all(e.display in prompt for e in pack.catalog.entities["hero"].values())
    assert whisper_prompt(load_pack("pet_arena")).startswith("Creatures: Emberfox, Pyrowl, ")
