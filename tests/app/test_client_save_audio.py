"""`voicecoach client --save-audio PATH`: the reply's audio as a WAV, against the live server."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from tests.live_server import TOKEN, LiveServer
from voicecoach.app.cli import build_parser
from voicecoach.app.client import _ask_files
from voicecoach.app.client_args import reply_audio_path
from voicecoach.bench.fixtures import load_session
from voicecoach.coach import protocol
from voicecoach.domain.pack import example_state_path, load_pack

ROOT = Path(__file__).resolve().parents[2]
_S01 = load_session(ROOT / "audio_fixtures" / "s01.json")
FIXTURE = _S01.audio_path(_S01.turns[0])  # "How do I beat their water team?"


def test_several_questions_save_one_file_each() -> None:
    assert reply_audio_path(Path("out/r.wav"), 1, 1) == Path("out/r.wav")
    assert reply_audio_path(Path("out/r.wav"), 2, 3) == Path("out/r-2.wav")
    assert reply_audio_path(Path("out/r"), 1, 2) == Path("out/r-1.wav")


async def test_client_saves_the_spoken_reply(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "replies" / "answer.wav"
    state = example_state_path(load_pack("pet_arena"))
    async with LiveServer(embedded=True) as live:
        argv = ["client", str(FIXTURE), "--url", live.url, "--token", TOKEN, "--state", str(state)]
        args = build_parser().parse_args([*argv, "--settle", "0", "--save-audio", str(out)])
        assert await _ask_files(args) == 0
    printed = capsys.readouterr().out
    assert f"reply audio: {out}" in printed, printed
    audio, rate = sf.read(str(out), dtype="int16")
    assert rate == protocol.OUTPUT_SAMPLE_RATE and audio.ndim == 1
    assert len(audio) / rate > 1.0  # a sentence, not a click
    assert np.abs(audio.astype(np.int32)).max() > 3000  # speech, not silence
    spoken = (np.abs(audio.astype(np.int32)) > 328).mean()
    assert spoken > 0.2, spoken  # the reply fills the file, not silence around it
