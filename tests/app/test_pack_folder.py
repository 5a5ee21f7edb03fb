"""A game's own pack from its own folder: `pack new`, the prior trained for the folder, then `chat`
and `replay` with `--pack PATH` read the pack, its prior.json and its example_state.json from there
(nothing of the folder is under voicecoach/packs, and no installed pack has its units)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from voicecoach.app.cli import main as cli_main
from voicecoach.bench import prior
from voicecoach.bench.fixtures import discover
from voicecoach.domain.pack import example_state_path, installed_packs, load_pack

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`voicecoach pack new .../card_duel` and its prior, trained by the folder's path."""
    folder = tmp_path_factory.mktemp("games") / "card_duel"
    assert cli_main(["pack", "new", str(folder)]) == 0
    assert prior.main(["train", "--pack", str(folder)]) == 0
    return folder


def _chat(cwd: Path, pack: str, said: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "voicecoach.app.cli", "chat", "--pack", pack, "--store", "memory:"]
    return subprocess.run(command, input=said, capture_output=True, text=True, timeout=120, cwd=cwd, env=ENV)


def test_chat_answers_from_a_pack_folder_by_its_relative_path(game: Path) -> None:
    assert "card_duel" not in installed_packs()
    done = _chat(game.parent, "card_duel", "who beats viper?\nbuild me a team\n/quit\n")
    assert done.returncode == 0, done.stderr
    # example_state.json: the player owns Blaze and Bulwark; counters.json: Bulwark counters Viper.
    assert "Against Viper, play Bulwark." in done.stdout, done.stdout
    assert "From your units, run Blaze and Bulwark." in done.stdout, done.stdout


def test_a_folder_whose_prior_is_missing_is_one_line_at_start_naming_it(game: Path, tmp_path: Path) -> None:
    folder = tmp_path / "card_duel"
    shutil.copytree(game, folder)
    (folder / "prior.json").unlink()
    done = _chat(tmp_path, str(folder), "who beats viper?\n")
    assert done.returncode != 0
    assert "Traceback" not in done.stderr + done.stdout
    retrain = f"retrain with: python -m voicecoach.bench.prior train --pack {folder}"
    assert f"{folder}/prior.json: intent prior file missing; {retrain}" in done.stderr, done.stderr


def test_a_pack_folder_resolves_its_own_files_and_an_id_the_installed_ones(game: Path) -> None:
    pack = load_pack(str(game))
    assert pack.pack_id == "card_duel" and pack.home == game.resolve()
    assert example_state_path(pack) == game.resolve() / "example_state.json"
    assert example_state_path("strike_team") == load_pack("strike_team").home / "example_state.json"


async def test_replay_plays_a_spoken_question_on_the_folders_pack_and_example_state(
    game: Path, tmp_path: Path
) -> None:
    """A question spoken by piper, replayed as `voicecoach replay WAV --pack PATH` does: heard by
    Whisper, answered from the folder's pack on its example_state.json, spoken back."""
    from voicecoach.coach.config import coach_config
    from voicecoach.coach.engines import Engines, load_coach_pack
    from voicecoach.coach.speech_config import SpeechConfig, piper_voice_path
    from voicecoach.pipelines.replay import ReplayOptions, replay_fixtures
    from voicecoach.pipelines.speech.voice import phrase_pcm, piper_voice

    speech = SpeechConfig()
    voice = piper_voice(piper_voice_path(speech.tts.voice_path))
    rate = int(voice.config.sample_rate)
    pcm = np.frombuffer(phrase_pcm(voice, "How do I beat Viper?"), dtype="<i2")
    pad = np.zeros(rate // 2, dtype="<i2")
    wav = tmp_path / "question.wav"
    sf.write(wav, np.concatenate([pad, pcm, pad, pad]), rate)

    [session], errors = discover(wav, str(game))
    assert errors == [] and session.pack_id == str(game)
    assert session.initial_state["fs"]["collection"]["units"][0]["id"] == "blaze"  # the folder's state
    config = coach_config(pack_id=str(game))
    load_coach_pack(config)  # what replay checks first: the folder's prior
    engines = await asyncio.to_thread(Engines.start, config)
    try:
        options = ReplayOptions(out_dir=tmp_path / "out", turn_timeout_s=60.0, drain_timeout_s=40.0)
        [report] = await replay_fixtures([session], engines, config, speech, options)
    finally:
        await engines.close()
    assert report.completed, report.problems
    assert "viper" in report.transcript.lower(), report.transcript
    assert report.reply.startswith("Against Viper, play Bulwark."), report.reply
    audio, _ = sf.read(report.files["out.wav"], dtype="int16")
    assert np.abs(audio).max() > 1000, "the coach said nothing audible"
