"""The official Pipecat web client against the live coach, in headless Chromium.

`@pipecat-ai/client-js` 1.13 + `@pipecat-ai/websocket-transport` 1.7, from npm
(tests/browser/package.json), bundled with esbuild and run by Debian's chromium with a fake
microphone playing an audio fixture (tests/browser/official_drive.mjs, official_page.mjs). The
server is the real one with the embedded default coach (no LLM call: the prior, the rules, the
realizer), real Silero, Whisper and piper. The page does what docs/PROTOCOL.md tells a game to:
connect, push the pack's example state, then let the player talk; then it types two questions
(the second cutting the first's answer), and a second client takes the session over.

What the client must see (issue 30, item 5): a refusal's reason in its `onError`, not only the
close code; per spoken utterance user-started/stopped-speaking, then one final transcription;
`bot-llm-started` before the first `bot-llm-text` and `bot-llm-stopped` after the last; no
`bot-interrupted` when nothing was playing, nor any message type the client does not know; no
user speaking events or transcription for typed text; a spoken answer that names a unit of the
example state; and, closed by the takeover, the reason.

Needs `chromium` and `tests/browser/node_modules` (.ci/run installs both); without them the test
is skipped, unless VOICECOACH_REQUIRE_BROWSER=1 (set by .ci/run) makes that a failure.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from tests.live_server import TOKEN, LiveServer, free_port
from tests.pipelines.test_browser import RATE, _need_browser
from voicecoach.bench.fixtures import load_session
from voicecoach.domain.pack import example_state_path, load_pack

ROOT = Path(__file__).resolve().parents[2]
DRIVER = ROOT / "tests" / "browser" / "official_drive.mjs"
_S01 = load_session(ROOT / "audio_fixtures" / "s01.json")
FIXTURE = _S01.audio_path(_S01.turns[0])  # "How do I beat their water team?"
TYPED = "what beats their water creature?"
PACKAGES = ("@pipecat-ai/client-js", "@pipecat-ai/websocket-transport", "esbuild")

USER_TURN = {"user-started-speaking", "user-stopped-speaking", "user-transcription"}


def _need_client() -> None:
    _need_browser()
    missing = [p for p in PACKAGES if not (DRIVER.parent / "node_modules" / p).is_dir()]
    if missing:
        reason = f"{', '.join(missing)} not installed (npm ci --prefix tests/browser)"
        if os.environ.get("VOICECOACH_REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)


def microphone(path: Path) -> Path:
    """Six seconds of silence (connect and push the state first), the question, then silence."""
    speech, rate = sf.read(str(FIXTURE), dtype="float32")
    if rate != RATE:
        import soxr

        speech = soxr.resample(speech, rate, RATE)
    silence, tail = np.zeros(int(RATE * 6.0), np.float32), np.zeros(int(RATE * 90.0), np.float32)
    sf.write(str(path), np.concatenate([silence, speech, tail]), RATE, subtype="PCM_16")
    return path


def between(log: list[dict[str, Any]], start: int, end: int, client: str = "player") -> list[dict[str, Any]]:
    return [e for e in log if e["client"] == client and start <= e["t"] <= end]


def types(entries: list[dict[str, Any]]) -> list[str]:
    return [e["type"] if e["type"] != "server-message" else e["event"] for e in entries]


def assert_llm_bracketed(entries: list[dict[str, Any]]) -> None:
    """Every bot-llm-text inside a bot-llm-started ... bot-llm-stopped, and at least one."""
    seq = [t for t in types(entries) if t.startswith("bot-llm")]
    assert "bot-llm-text" in seq, seq
    open_ = False
    for t in seq:
        if t == "bot-llm-started":
            assert not open_, seq
            open_ = True
        elif t == "bot-llm-text":
            assert open_, seq
        else:
            assert open_, seq
            open_ = False
    assert not open_, seq


async def test_the_official_web_client_hears_a_grounded_answer(tmp_path: Path) -> None:
    _need_client()
    out = ROOT / "runs" / "browser" / (time.strftime("%Y%m%d-%H%M%S") + "-official")
    out.mkdir(parents=True, exist_ok=True)
    pack = load_pack("pet_arena")
    example = json.loads(example_state_path(pack).read_text())
    page_port = free_port()
    site = f"http://127.0.0.1:{page_port}"  # the game's page, from an origin the server allows
    async with LiveServer(pack=pack, embedded=True, server={"allowed_origins": [site]}) as live:
        page = {
            "server": live.url.removesuffix("/ws"), "session": "official-1", "token": TOKEN,
            "snapshot": {"ic": example["ic"], "fs": example["fs"]}, "typed": TYPED, "turnTimeoutMs": 60000,
        }  # fmt: skip
        config = {
            "pagePort": page_port,
            "wav": str(microphone(tmp_path / "microphone.wav")),
            "chromium": shutil.which("chromium"),
            "userDataDir": str(tmp_path / "chromium-profile"),
            "page": page,
            "deadlineMs": 200_000,
        }
        driver = await asyncio.create_subprocess_exec(
            "node", str(DRIVER), json.dumps(config), cwd=DRIVER.parent,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        stdout, stderr = await asyncio.wait_for(driver.communicate(), timeout=260)
        llm_requests = len(live.llm.requests)
    (out / "driver.log").write_bytes(stderr)
    result = json.loads(stdout.decode().strip().splitlines()[-1])
    (out / "page.json").write_text(json.dumps(result, indent=2))
    print(f"\npage log: {out / 'page.json'}")
    assert result["ok"], f"{result.get('error')}\n{stderr.decode()[-3000:]}"
    state = result["state"]
    log, phases = state["log"], state["phases"]
    assert llm_requests == 0  # the embedded default coach: no LLM call

    # 1. The wrong token's refusal reached onError with its reason (sent before the close; the
    # client's callbacks may see the bare close first: it parses messages asynchronously).
    refused = phases["refused"]["errors"]
    assert any("unauthorized: invalid token" in e for e in refused), refused
    first = next(e for e in log if e["client"] == "intruder" and e["type"] == "error")
    assert first["fatal"] is True and "4401" in first["error"], first

    # 2. The spoken turn: speaking, one final transcript of the fixture, the coach's words bracketed.
    spoken = between(log, phases["spoken"]["start"], phases["spoken"]["end"])
    seq = types(spoken)
    transcripts = [e for e in spoken if e["type"] == "user-transcription"]
    assert len(transcripts) == 1 and transcripts[0]["final"] is True, transcripts
    text = transcripts[0]["text"]
    assert text == text.strip() and "beat" in text.lower() and "team" in text.lower(), text
    assert seq.count("user-started-speaking") == 1 and seq.count("user-stopped-speaking") == 1, seq
    assert (
        seq.index("user-started-speaking")
        < seq.index("user-stopped-speaking")
        < seq.index("user-transcription")
    )
    assert seq.index("user-transcription") < seq.index("bot-llm-started")
    assert_llm_bracketed(spoken)
    assert (
        seq.index("bot-llm-started") < seq.index("bot-started-speaking") < seq.index("bot-stopped-speaking")
    )
    assert "bot-interrupted" not in seq, seq  # nothing was playing when the player spoke
    # The answer was heard (audible audio reached the player) and is grounded in the pushed state:
    # it names one of the player's creatures from the pack's example state.
    assert state["player"]["audio"]["audible"] > 0 and state["player"]["audio"]["peak"] > 328, state["player"]
    reply = next(e["reply"] for e in spoken if e.get("event") == "turn-completed")
    catalog = pack.catalog.entities[pack.catalog.schema.kind("unit") or ""]
    mine = {catalog[o["creature_id"]].display for o in example["fs"]["inventory"]["owned"]}
    assert any(name in reply for name in mine), (reply, mine)
    assert "can't see your roster" not in reply, reply
    spoken_words = "".join(e["text"] for e in spoken if e["type"] == "bot-llm-text")
    assert reply.split()[0] in spoken_words, (reply, spoken_words)

    # 3. Typed questions: no user speaking events, no transcription; the answer is bracketed and
    # spoken. The third cut the second's audio: its speaking stopped at once and it failed as
    # interrupted. No bot-interrupted (client-js 1.13 speaks RTVI 2.1.0, which has none; the
    # server tells 2.2.0 clients, tests/pipelines/test_rtvi_events.py).
    typed = between(log, phases["typed"]["start"], phases["typed"]["end"])
    seq = types(typed)
    assert not USER_TURN & set(seq), seq
    assert "bot-interrupted" not in seq, seq
    assert_llm_bracketed(typed)
    assert "bot-started-speaking" in seq and "turn-completed" in seq, seq
    barge = types(between(log, phases["bargeIn"]["start"], phases["bargeIn"]["end"]))
    assert not USER_TURN & set(barge), barge
    cut = between(log, phases["bargeIn"]["cut"], phases["bargeIn"]["end"])
    stopped = next(e for e in cut if e["type"] == "bot-stopped-speaking")
    assert stopped["t"] - phases["bargeIn"]["cut"] < 1000, (stopped, phases["bargeIn"])
    assert "turn-failed" in barge and "bot-interrupted" not in barge, barge
    assert barge.count("bot-started-speaking") >= 2, barge  # the cut answer, then the last one
    assert barge.count("bot-started-speaking") == barge.count("bot-stopped-speaking"), barge

    # 4. The takeover closed the first client with its reason in onError.
    taken = phases["takeover"]["errors"]
    assert any("session taken over by a newer connection" in e for e in taken), taken

    # The client knew every message it was sent (it warns "Unrecognized message type" otherwise).
    unknown = [c["text"] for c in result["console"] if "Unrecognized message type" in c["text"]]
    assert unknown == [], unknown
