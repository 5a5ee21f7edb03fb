"""End to end in headless Chromium: the overlay page, a fake microphone, the live coach server.

Debian's chromium, driven by playwright-core (tests/browser/drive.mjs), opens the overlay
served by the real server app, connects with the official Pipecat JS client, and "speaks"
through Chromium's fake audio capture: a WAV with the same question twice, a long pause
between. Whisper hears it, the coach answers aloud through piper; the LLM is the scripted
server, so the decisions are deterministic. Between the two turns the test removes a
creature from the inventory *on the page*; the second turn's tools and the Talker's
conditioning must no longer offer it. A screenshot is kept under runs/browser/.

A second case serves strike_team (a pack with a schema.json): the page must show its heroes,
its match and its map by name, under the pack's own headings, and none of pet's panels.

A third connects the page as a player behind a load balancer does, with a signed token typed into
it: the token goes as a websocket subprotocol, never in a URL; a refused or taken-over page shows
the server's own reason.

Needs `chromium` and `tests/browser/node_modules` (.ci/run installs both); without them the
test is skipped, unless VOICECOACH_REQUIRE_BROWSER=1 (set by .ci/run) makes that a failure.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from tests.live_server import TOKEN, LiveServer
from voicecoach.bench.fixtures import load_session
from voicecoach.coach import protocol
from voicecoach.coach.tokens import mint
from voicecoach.domain.pack import load_pack
from voicecoach.pipelines.server import pack_info

ROOT = Path(__file__).resolve().parents[2]
DRIVER = ROOT / "tests" / "browser" / "drive.mjs"
PLAYWRIGHT = ROOT / "tests" / "browser" / "node_modules" / "playwright-core"
_S01 = load_session(ROOT / "audio_fixtures" / "s01.json")
FIXTURE = _S01.audio_path(_S01.turns[0])  # "How do I beat their water team?"
_S05 = load_session(ROOT / "audio_fixtures" / "s05.json")
MISHEARD = _S05.audio_path(_S05.turns[0])  # "Should I get Dunecrawler ...": tiny.en writes another word
REMOVED = "hexmoth"  # in the lineup the coach suggests for this state (suggest_lineup)
RATE = 48000  # what Chromium's capture runs at: the fake file is read without resampling surprises


def _missing() -> str | None:
    if shutil.which("chromium") is None:
        return "chromium is not installed (apt-get install -y chromium)"
    if shutil.which("node") is None or not PLAYWRIGHT.is_dir():
        return "playwright-core is not installed (npm ci --prefix tests/browser)"
    return None


def _need_browser() -> None:
    missing = _missing()
    if missing:
        if os.environ.get("VOICECOACH_REQUIRE_BROWSER") == "1":
            pytest.fail(missing)
        pytest.skip(missing)


def _at_rate(wav: Path) -> np.ndarray:
    speech, rate = sf.read(str(wav), dtype="float32")
    if rate != RATE:
        import soxr

        speech = soxr.resample(speech, rate, RATE)
    return speech


def fake_microphone(path: Path, gap_s: float = 11.0) -> Path:
    """The question, a long pause (the first turn is answered, the page changes state), the question
    again, and a question with a name speech-to-text mishears."""
    speech = _at_rate(FIXTURE)
    # The player talks a few seconds after opening the page (the session is up by then).
    silence = np.zeros(int(RATE * 5.0), dtype=np.float32)
    gap = np.zeros(int(RATE * gap_s), dtype=np.float32)
    tail = np.zeros(int(RATE * 12.0), dtype=np.float32)
    audio = np.concatenate([silence, speech, gap, speech, gap, _at_rate(MISHEARD), tail])
    sf.write(str(path), audio, RATE, subtype="PCM_16")
    return path


def suggested(events: list[Any], turn: int) -> list[str]:
    """The creature ids the suggest_lineup tool (a suggest_group builtin) returned in `turn`."""
    for e in events:
        if isinstance(e, protocol.ToolResultsEvent) and e.turn_index == turn:
            for o in e.outcomes:
                if o.tool == "suggest_lineup" and o.ok and o.result:
                    return [c["id"] for c in o.result.get("units", [])]
    return []


async def test_overlay_in_headless_chromium(tmp_path: Path) -> None:
    _need_browser()

    out = ROOT / "runs" / "browser" / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    wav = fake_microphone(tmp_path / "microphone.wav")
    async with LiveServer() as live:
        session = "browser"
        config = {
            "url": f"{live.http}/#session={session}&token={TOKEN}",
            "wav": str(wav),
            "chromium": shutil.which("chromium"),
            "userDataDir": str(tmp_path / "chromium-profile"),
            "screenshot": str(out / "overlay.png"),
            "word": "beat",
            "remove": REMOVED,
            "third": True,
        }
        driver = await asyncio.create_subprocess_exec(
            "node", str(DRIVER), json.dumps(config), cwd=DRIVER.parent,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert live.server is not None
        # Hold on to the page's connection: it leaves the server's table when the page closes.
        async with asyncio.timeout(60):
            while session not in live.server.connections:
                await asyncio.sleep(0.05)
        connection = live.server.connections[session]
        stdout, stderr = await asyncio.wait_for(driver.communicate(), timeout=240)
        (out / "driver.log").write_bytes(stderr)
        result = json.loads(stdout.decode().strip().splitlines()[-1])
        (out / "page.json").write_text(json.dumps(result, indent=2))
        talker = [r.body["messages"][-1]["content"] for r in live.requests("talker")]

    print(f"\nscreenshot: {out / 'overlay.png'}  (page state: {out / 'page.json'})")
    assert result["ok"], f"{result.get('error')}\n{stderr.decode()[-3000:]}"
    final = result["final"]
    assert Path(result["screenshot"]).is_file()

    # The page heard the fixture's words and played the coach's (non-silent) audio.
    heard = final["transcripts"]
    assert any("beat" in t.lower() and "team" in t.lower() for t in heard), heard
    assert final["audio"]["audibleChunks"] > 0 and final["audio"]["peak"] > 328, final["audio"]
    assert len(final["completed"]) >= 2 and final["latency"], final
    assert REMOVED in result["first"]["owned"] and REMOVED not in final["owned"]

    # The state change made on the page between the turns changed the advice: the first turn's
    # suggested lineup had the creature, the second's cannot, and the Talker was not told of it.
    events = list(connection.sent)
    first, second = sorted({e.turn_index for e in events if isinstance(e, protocol.TurnCompletedEvent)})[:2]
    assert REMOVED in suggested(events, first), suggested(events, first)
    assert suggested(events, second) and REMOVED not in suggested(events, second)
    assert REMOVED in talker[0].lower() and REMOVED not in talker[1].lower()
    # The misheard name the coach put back is shown: what it understood, and what STT wrote under it.
    repaired = [e for e in events if isinstance(e, protocol.IntentEvent) and e.repaired]
    assert repaired and any(name == "Dunecrawler" for e in repaired for _, name in e.repaired), repaired
    shown = {r["turn"]: r for r in final["repairs"]}
    assert {e.turn_index for e in repaired} == set(shown), final["repairs"]
    for e in repaired:
        assert shown[e.turn_index]["heard"] == e.transcript and shown[e.turn_index]["read"] == e.utterance
        line = next(text for text in result["playerLines"] if f"heard: {e.transcript}" in text)
        assert e.utterance in line, result["playerLines"]
    latency = [e for e in events if isinstance(e, protocol.LatencyEvent)]
    print("S2FA in the browser run (server side): " + ", ".join(f"{e.s2fa_ms} ms" for e in latency))


def test_the_pack_message_names_every_kind_for_the_overlay() -> None:
    """What the overlay names a schema pack's ids with; pet_arena's message has no such key."""
    assert "kinds" not in json.loads(pack_info(load_pack("pet_arena")).model_dump_json())
    pack = load_pack("strike_team")
    kinds = pack_info(pack).kinds
    assert kinds is not None and set(kinds) == set(pack.catalog.schema.kinds)
    assert kinds["hero"].plural == "heroes" and kinds["map"].names["fathom_docks"] == "Fathom Docks"
    assert all(len(k.names) == len(pack.catalog.entities[kind]) for kind, k in kinds.items())


async def test_a_schema_packs_overlay_shows_its_units_and_match_by_name(tmp_path: Path) -> None:
    _need_browser()
    out = ROOT / "runs" / "browser" / (time.strftime("%Y%m%d-%H%M%S") + "-strike_team")
    out.mkdir(parents=True, exist_ok=True)
    silent = tmp_path / "silence.wav"  # the page's microphone: nothing is said, no turn starts
    sf.write(str(silent), np.zeros(RATE * 20, dtype=np.float32), RATE, subtype="PCM_16")
    pack = load_pack("strike_team")
    async with LiveServer(pack=pack) as live:
        config = {
            "url": f"{live.http}/#session=st-browser&token={TOKEN}",
            "wav": str(silent),
            "chromium": shutil.which("chromium"),
            "userDataDir": str(tmp_path / "chromium-profile"),
            "screenshot": str(out / "overlay.png"),
            "look": True,
        }
        driver = await asyncio.create_subprocess_exec(
            "node", str(DRIVER), json.dumps(config), cwd=DRIVER.parent,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        stdout, stderr = await asyncio.wait_for(driver.communicate(), timeout=120)
    (out / "driver.log").write_bytes(stderr)
    result = json.loads(stdout.decode().strip().splitlines()[-1])
    (out / "page.json").write_text(json.dumps(result, indent=2))
    print(f"\nscreenshot: {out / 'overlay.png'}")
    assert result["ok"], f"{result.get('error')}\n{stderr.decode()[-3000:]}"
    text = result["text"]

    # The example state was loaded and is shown: the unit kind's plural, the match, the map.
    assert re.search(r"^heroes \(12 owned of 24\b", text, re.M | re.I), text  # headings are upper case
    assert "round 2/3" in text and "Fathom Docks" in text, text
    for hero in ("Brannoc", "Dumaka", "Renzo", "Yarrow"):  # opponent, both lineups, the collection
        assert hero in text, hero
    assert "lv 13" in text  # Brannoc's level in the collection
    # No raw id where the catalog has a name (ids are lowercase, names are not), no pet panel.
    named = {i for kind in pack.catalog.entities.values() for i, e in kind.items() if e.display != i}
    shown = {i for i in named if re.search(rf"\b{re.escape(i)}\b", text)}
    assert shown == set(), shown
    assert "Inventory" not in text and "Add to inventory" not in text, text


async def run_driver(config: dict[str, Any], out: Path, timeout_s: float = 120) -> dict[str, Any]:
    driver = await asyncio.create_subprocess_exec(
        "node", str(DRIVER), json.dumps(config), cwd=DRIVER.parent,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    stdout, stderr = await asyncio.wait_for(driver.communicate(), timeout=timeout_s)
    (out / "driver.log").write_bytes(stderr)
    result: dict[str, Any] = json.loads(stdout.decode().strip().splitlines()[-1])
    (out / "page.json").write_text(json.dumps(result, indent=2))
    assert result["ok"], f"{result.get('error')}\n{stderr.decode()[-3000:]}"
    return result


async def test_overlay_sends_its_token_as_a_subprotocol_and_shows_the_servers_reasons(tmp_path: Path) -> None:
    _need_browser()
    out = ROOT / "runs" / "browser" / (time.strftime("%Y%m%d-%H%M%S") + "-tokens")
    out.mkdir(parents=True, exist_ok=True)
    silent = tmp_path / "silence.wav"
    sf.write(str(silent), np.zeros(RATE * 20, dtype=np.float32), RATE, subtype="PCM_16")
    key = "browser-test-signing-key-0123456789abcdef"
    valid = mint(key, "overlay-a", ttl_s=600)
    expired = mint(key, "overlay-a", ttl_s=1, now=time.time() - 3600)
    # As behind a load balancer: signed tokens only (no static token opens anything).
    async with LiveServer(server={"signing_key": key, "token": None}) as live:
        result = await run_driver(
            {
                "url": f"{live.http}/",  # no token in the page's URL: the player pastes it
                "wav": str(silent),
                "chromium": shutil.which("chromium"),
                "userDataDir": str(tmp_path / "chromium-profile"),
                "screenshot": str(out / "overlay.png"),
                "attempts": [
                    {"token": valid, "session": "player"},  # the token's own session is used
                    {"token": "not-a-token"},
                    {"token": expired},
                    {"token": mint("another-key-0123456789abcdef0123456789", "overlay-a", 600)},
                ],
                "takeover": {"token": valid},
            },
            out,
        )
    opened, wrong, old, forged = result["attempts"]
    assert opened["ready"] and opened["session"] == "overlay-a" and not opened["closeReason"], opened
    assert opened["hash"] == "#session=overlay-a", opened  # the address bar keeps no token
    # The token never went into a URL: as a subprotocol (a browser cannot send Authorization).
    assert result["sockets"] and all("token" not in url for url in result["sockets"]), result["sockets"]
    # Refusals in the server's words (its close notice), not a text of the page's own.
    assert (wrong["closeCode"], wrong["status"]) == (4401, "unauthorized: invalid token"), wrong
    assert (old["closeCode"], old["status"]) == (4401, "unauthorized: the token has expired"), old
    assert (forged["closeCode"], forged["status"]) == (4401, "unauthorized: invalid token"), forged
    older = result["takeover"]["older"]
    assert result["takeover"]["newer"]["ready"], result["takeover"]
    # Taken over on this server: the reason the server closed the older page with, word for word.
    assert (older["closeCode"], older["status"]) == (4409, "session taken over by a newer connection"), older
