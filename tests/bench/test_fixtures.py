"""The audio-fixture format, its loader, and the committed fixtures in audio_fixtures/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from voicecoach.bench.fixtures import (
    FixtureError,
    FixtureSession,
    discover,
    load_audio,
    load_session,
    speech_end,
)
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import Pack

FIXTURES = Path(__file__).resolve().parents[2] / "audio_fixtures"
SESSION_FILES = sorted(FIXTURES.glob("*.json"))
RATE = 16000


@pytest.fixture(scope="module")
def sessions() -> list[FixtureSession]:
    return [load_session(p) for p in SESSION_FILES]


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if len(x) else 0.0


def _tone(seconds: float, rate: int = RATE, freq: float = 220.0, amp: float = 0.5) -> np.ndarray:
    t = np.arange(round(seconds * rate)) / rate
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


# --- the committed fixtures -----------------------------------------------------------------------


@pytest.mark.parametrize("path", SESSION_FILES, ids=lambda p: p.name)
def test_every_committed_session_loads(path: Path) -> None:
    session = load_session(path)
    assert session.session_id == path.stem
    assert len(session.states()) == len(session.turns)
    assert all(t.speech_end_s is not None for t in session.turns)


def test_enough_sessions_and_utterances(sessions: list[FixtureSession]) -> None:
    assert len(sessions) >= 10
    assert sum(len(s.turns) for s in sessions) >= 32
    assert all(3 <= len(s.turns) <= 4 for s in sessions), "sessions are 3-4 turn conversations"
    assert sum(any(t.state_patch for t in s.turns) for s in sessions) >= 8, "state changes between turns"


def test_every_wav_is_16k_mono_pcm16_and_referenced(sessions: list[FixtureSession]) -> None:
    referenced = {s.audio_path(t).resolve() for s in sessions for t in s.turns}
    # Another pack's sessions have their own folder (audio_fixtures/<pack>/) and their own test.
    others = {p.parent for p in FIXTURES.glob("*/*.json")}
    on_disk = {p.resolve() for p in FIXTURES.rglob("*.wav") if not any(d in p.parents for d in others)}
    assert on_disk == referenced, "every WAV belongs to a session turn and every turn has its WAV"
    for path in sorted(on_disk):
        info = sf.info(str(path))
        assert (info.samplerate, info.channels, info.subtype) == (RATE, 1, "PCM_16"), path


def test_fixture_folder_is_under_20_mb() -> None:
    total = sum(p.stat().st_size for p in FIXTURES.rglob("*") if p.is_file())
    assert total < 20 * 1024 * 1024


def test_speech_end_is_inside_the_file_and_followed_by_quiet(sessions: list[FixtureSession]) -> None:
    for s in sessions:
        for t in s.turns:
            audio = load_audio(s.audio_path(t))
            assert t.speech_end_s is not None
            end = round(t.speech_end_s * RATE)
            # The replay's VAD needs silence after the speech: at least 0.9 s of it.
            assert end + round(0.9 * RATE) <= len(audio), t.audio
            speech = audio[round(0.3 * RATE) : end]
            tail = audio[end + RATE // 100 :]  # 10 ms after the last speech sample
            noisy = "noise" in t.notes
            # Noise is added at 10-20 dB SNR; a clean file's tail is (near) digital silence.
            limit = 10 ** (-6 / 20) if noisy else 10 ** (-40 / 20)
            assert _rms(tail) < limit * _rms(speech), f"{t.audio}: tail not quiet"
            # And the last 20 ms before speech_end_s really is speech, not padding.
            assert _rms(audio[end - RATE // 50 : end]) > 0.0, t.audio


def test_recorded_speech_end_agrees_with_the_estimator_on_clean_files(sessions: list[FixtureSession]) -> None:
    for s in sessions:
        for t in s.turns:
            if "noise" in t.notes:
                continue  # the estimator takes noise within 35 dB for speech (documented)
            assert t.speech_end_s is not None
            estimate = speech_end(load_audio(s.audio_path(t)), RATE)
            # The estimator drops a faint final consonant (-35 dB) and rounds up to a 20 ms frame.
            assert -0.2 <= estimate - t.speech_end_s <= 0.02, t.audio


def test_drift_traps_are_true_for_the_state_at_their_turn(sessions: list[FixtureSession], pack: Pack) -> None:
    kinds: set[str] = set()
    for s in sessions:
        for t, state in zip(s.turns, s.states(), strict=True):
            inv = state.fs.inventory
            assert inv is not None
            mentioned = {m.id for m in link_entities(pack, t.transcript)}
            for trap in t.drift_traps:
                kinds.add(trap.kind)
                where = f"{t.audio}: {trap.kind} {trap.entity}"
                if trap.kind == "unowned":
                    assert trap.entity in pack.catalog.entities["creature"] and not inv.owns(trap.entity), (
                        where
                    )
                elif trap.kind in ("owned", "contradiction"):
                    assert trap.entity in pack.catalog.entities["creature"] and inv.owns(trap.entity), where
                elif trap.kind == "locked_skill":
                    assert trap.entity in pack.catalog.entities["skill"], where
                if trap.kind in ("unowned", "locked_skill", "contradiction"):
                    assert trap.entity in mentioned, f"{where}: not said in the utterance"
    assert kinds == {"unowned", "locked_skill", "owned", "repeat_pressure", "contradiction"}


# --- load_audio -----------------------------------------------------------------------------------


def test_load_audio_downmixes_and_resamples_44k1_stereo(tmp_path: Path) -> None:
    left = _tone(1.5, rate=44100)
    stereo = np.stack([left, left * 0.5], axis=1)
    path = tmp_path / "stereo.wav"
    sf.write(str(path), stereo, 44100, subtype="PCM_16")
    audio = load_audio(path)
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert abs(len(audio) - round(1.5 * RATE)) <= 2
    assert np.max(np.abs(audio)) <= 1.0
    # Mean of the two channels: 0.75 of the left one, so RMS ≈ 0.75 * 0.5 / sqrt(2).
    assert _rms(audio) == pytest.approx(0.75 * 0.5 / np.sqrt(2), rel=0.02)


def test_load_audio_rejects_an_empty_wav_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "empty.wav"
    sf.write(str(path), np.zeros(0, dtype=np.float32), RATE, subtype="PCM_16")
    with pytest.raises(FixtureError, match=r"empty\.wav: empty \(0 samples\)"):
        load_audio(path)


def test_load_audio_rejects_a_corrupt_file_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.wav"
    path.write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunk" + bytes(range(200)))
    with pytest.raises(FixtureError, match=r"corrupt\.wav: not a readable audio file"):
        load_audio(path)


# --- speech_end -----------------------------------------------------------------------------------


@pytest.mark.parametrize("tone_s", [1.0, 1.013, 0.537])
def test_speech_end_finds_the_end_of_a_tone(tone_s: float) -> None:
    rng = np.random.default_rng(0)
    signal = np.concatenate([np.zeros(RATE // 4), _tone(tone_s), np.zeros(RATE)]).astype(np.float32)
    signal += (rng.standard_normal(len(signal)) * 1e-4).astype(np.float32)  # -80 dBFS hiss
    truth = 0.25 + tone_s
    # One 20 ms frame of resolution, and it never ends before the truth by more than a sample.
    assert truth - 1 / RATE <= speech_end(signal, RATE) <= truth + 0.02


def test_speech_end_ignores_a_quiet_file_and_faint_tails() -> None:
    assert speech_end(np.zeros(RATE, dtype=np.float32), RATE) == 0.0
    faint = np.concatenate([_tone(0.5, amp=0.5), _tone(0.5, amp=0.5 * 10 ** (-40 / 20))])
    assert speech_end(faint, RATE) == pytest.approx(0.5, abs=0.02)  # -40 dB is outside the 35 dB window


# --- load_session and discover on hand-made sessions ------------------------------------------------


def _write_session(folder: Path, name: str, **overrides: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    wav = folder / f"{name}.wav"
    sf.write(str(wav), np.concatenate([np.zeros(4800), _tone(1.0), np.zeros(RATE)]), RATE, subtype="PCM_16")
    turn: dict[str, Any] = {
        "audio": wav.name,
        "transcript": "What should I run?",
        "expect_intent": "lineup",
        "expect_sub_intent": "build",
        "drift_traps": [],
    }
    turn.update(overrides.pop("turn", {}))
    doc = {
        "session_id": name,
        "title": "test",
        "initial_state": json.loads((FIXTURES / "s01.json").read_text())["initial_state"],
        "turns": [turn],
        **overrides,
    }
    path = folder / f"{name}.json"
    path.write_text(json.dumps(doc))
    return path


def test_load_session_estimates_a_missing_speech_end(tmp_path: Path) -> None:
    session = load_session(_write_session(tmp_path, "ok"))
    assert session.turns[0].speech_end_s == pytest.approx(1.3, abs=0.02)


def test_missing_field_is_named_with_the_file(tmp_path: Path) -> None:
    path = _write_session(tmp_path, "bad")
    doc = json.loads(path.read_text())
    del doc["turns"][0]["expect_intent"]
    path.write_text(json.dumps(doc))
    with pytest.raises(FixtureError, match=r"bad\.json: turns\.0\.expect_intent: Field required"):
        load_session(path)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"turn": {"expect_sub_intent": "juggle"}}, r"turns\.0\.expect_sub_intent: \(lineup, juggle\)"),
        ({"turn": {"audio": "nope.wav"}}, r"turns\.0\.audio: file not found"),
        ({"turn": {"state_patch": {"fs": {"player_level": 0}}}}, r"turns\.0\.state_patch: .*player_level"),
        ({"turn": {"speech_end_s": 9.0}}, r"turns\.0\.speech_end_s: 9\.000 s is past the end"),
        ({"turn": {"mood": "grumpy"}}, r"turns\.0\.mood: Extra inputs are not permitted"),
        (
            {"initial_state": {"fs": {"inventory": {"owned": [{"stage": 1}]}}}},
            r"initial_state: .*creature_id",
        ),
        ({"turns": []}, r"turns: List should have at least 1 item"),
    ],
)
def test_bad_sessions_are_rejected_naming_the_field(
    tmp_path: Path, overrides: dict[str, Any], message: str
) -> None:
    path = _write_session(tmp_path, "bad", **overrides)
    with pytest.raises(FixtureError, match=r"bad\.json: " + message):
        load_session(path)


def test_discover_skips_a_bad_session_and_names_it(tmp_path: Path) -> None:
    _write_session(tmp_path, "good1")
    _write_session(tmp_path, "good2")
    _write_session(tmp_path, "broken", turn={"expect_intent": "lineup", "expect_sub_intent": "nonsense"})
    sessions, errors = discover(tmp_path)
    assert sorted(s.session_id for s in sessions) == ["good1", "good2"]
    assert len(errors) == 1 and "broken.json" in errors[0]


def test_discover_a_single_wav_makes_an_adhoc_session(tmp_path: Path) -> None:
    _write_session(tmp_path, "clip")
    (tmp_path / "clip.txt").write_text("Can Emberfox use Inferno Roar?\n")
    sessions, errors = discover(tmp_path / "clip.wav")
    assert errors == []
    (session,) = sessions
    (turn,) = session.turns
    assert turn.transcript == "Can Emberfox use Inferno Roar?"
    assert (turn.expect_intent, turn.expect_sub_intent) == ("other", "other")
    assert session.audio_path(turn) == tmp_path / "clip.wav"
    assert turn.speech_end_s == pytest.approx(1.3, abs=0.02)
    assert session.states()[0].fs.inventory is not None  # the pack's example state


def test_discover_reports_a_missing_path_and_an_unreadable_wav(tmp_path: Path) -> None:
    assert discover(tmp_path / "nowhere") == ([], [f"{tmp_path / 'nowhere'}: no such file or folder"])
    bad = tmp_path / "noise.wav"
    bad.write_bytes(b"not audio at all")
    sessions, errors = discover(bad)
    assert sessions == [] and "noise.wav: not a readable audio file" in errors[0]


def test_discover_the_committed_folder() -> None:
    sessions, errors = discover(FIXTURES)
    assert errors == []
    assert [s.session_id for s in sessions] == [p.stem for p in SESSION_FILES]
