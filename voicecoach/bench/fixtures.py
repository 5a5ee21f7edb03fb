"""Audio fixtures: scripted multi-turn sessions with recorded utterances and per-turn live state.

A session is one JSON file (see ``audio_fixtures/README.md``) next to a folder of WAVs:

    {"session_id", "title", "pack_id", "initial_state": {LiveState},
     "turns": [{"audio": "s01/turn1.wav", "transcript", "state" | "state_patch",
                "expect_intent", "expect_sub_intent", "drift_traps": [...], "speech_end_s", "notes"}]}

Before turn i the replay applies that turn's ``state`` (a full snapshot) or ``state_patch``
(a JSON merge patch over the previous turn's state), then plays the WAV. `load_session`
validates all of it up front, so a broken fixture fails with the file and the field named
instead of midway through a benchmark. Pure: no Pipecat import.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import numpy as np
import soundfile as sf
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from voicecoach.core.state import LiveState, StateError, apply_patch, load_state
from voicecoach.domain.pack import (
    DEFAULT_PACK,
    PackError,
    check_state,
    example_state_path,
    load_pack,
)

SAMPLE_RATE = 16000
OTHER = "other"  # W1's fallback label; ("other", "other") is a valid expectation (a Φ miss)

# speech_end(): 20 ms frames; a frame is speech when within 35 dB of the loudest frame and
# above an absolute floor, so a quiet file's hiss is not taken for speech.
FRAME_S = 0.020
RELATIVE_DB = 35.0
FLOOR_DBFS = -50.0


class FixtureError(ValueError):
    """A fixture that cannot be used; the message names the file and the field or problem."""


class _Model(BaseModel):
    # extra="forbid": a misspelt key in a hand-edited fixture is an error, not a silent default.
    model_config = ConfigDict(extra="forbid")


class DriftTrap(_Model):
    """What a turn tempts the coach into getting wrong (DESIGN.md, "direction drift").

    `locked_option` is the pack-neutral name of `locked_skill` (an option of the pack's option
    kind, not usable yet): pet's fixtures keep their word, a pack with a schema uses the other.
    """

    kind: Literal["unowned", "locked_skill", "locked_option", "owned", "repeat_pressure", "contradiction"]
    entity: str | None = None  # catalog id the trap is about, when there is one
    detail: str


class FixtureTurn(_Model):
    audio: str = Field(min_length=1, description="WAV path relative to the session file")
    transcript: str
    state: dict[str, Any] | None = Field(default=None, description="full snapshot replacing the state")
    state_patch: dict[str, Any] | None = Field(default=None, description="JSON merge patch before the turn")
    expect_intent: str = Field(min_length=1)
    expect_sub_intent: str = Field(min_length=1)
    drift_traps: list[DriftTrap] = Field(default_factory=list)
    # Seconds from the start of the WAV to its last speech sample: S2FA is measured from here.
    # None in a hand-made fixture: load_session then estimates it with speech_end().
    speech_end_s: float | None = Field(default=None, gt=0)
    notes: str = ""


class FixtureSession(_Model):
    session_id: str = Field(min_length=1)
    title: str
    pack_id: str = "pet_arena"
    initial_state: dict[str, Any]
    turns: list[FixtureTurn] = Field(min_length=1)

    # Where `audio` paths are resolved from: the session file's folder (not serialised).
    _base_dir: Path = PrivateAttr(default_factory=Path)

    @property
    def base_dir(self) -> Path:
        return self._base_dir

    def audio_path(self, turn: FixtureTurn) -> Path:
        return self._base_dir / turn.audio

    def first_turns(self, n: int) -> FixtureSession:
        """A copy with only the first `n` turns, its audio still found where this session's is."""
        cut = self.model_copy(deep=True, update={"turns": [t.model_copy(deep=True) for t in self.turns[:n]]})
        cut._base_dir = self._base_dir
        return cut

    def states(self) -> list[LiveState]:
        """The live state in force at each turn (after that turn's snapshot or patch)."""
        current = load_state(self.initial_state)
        out = []
        for turn in self.turns:
            if turn.state is not None:
                current = load_state(turn.state)
            elif turn.state_patch is not None:
                current = apply_patch(current, turn.state_patch)
            out.append(current)
        return out


# --- audio ----------------------------------------------------------------------------------------


def load_audio(path: str | Path, rate: int = SAMPLE_RATE) -> np.ndarray:
    """Read `path` as float32 mono in [-1, 1] at `rate` Hz (downmixed and resampled as needed)."""
    path = Path(path)
    if not path.is_file():
        raise FixtureError(f"{path}: audio file not found")
    try:
        data, file_rate = sf.read(str(path), dtype="float32", always_2d=True)
    except (sf.LibsndfileError, RuntimeError, ValueError) as err:
        raise FixtureError(f"{path}: not a readable audio file ({err})") from None
    if data.shape[0] == 0:
        raise FixtureError(f"{path}: empty (0 samples)")
    mono = data.mean(axis=1) if data.shape[1] > 1 else data[:, 0]
    if not np.all(np.isfinite(mono)):
        raise FixtureError(f"{path}: contains NaN or infinite samples")
    if file_rate != rate:
        import soxr  # only needed off the 16 kHz path; keeps the import cost out of the common case

        mono = soxr.resample(mono, file_rate, rate, quality="HQ")
    # Float WAVs and resampling overshoot may leave [-1, 1]; downstream int16 conversion must not wrap.
    return np.clip(mono, -1.0, 1.0).astype(np.float32, copy=False)


def speech_end(audio: np.ndarray, rate: int = SAMPLE_RATE) -> float:
    """Estimate, in seconds, where speech ends in `audio` (float mono in [-1, 1]).

    The signal is cut into consecutive 20 ms frames from its start; a frame counts as speech
    when its RMS is within 35 dB of the loudest frame's RMS and above -50 dBFS. The result is
    the end time of the last speech frame (so it errs late by at most one frame), or 0.0 when
    no frame qualifies. Only meant for clean recordings: background noise within 35 dB of the
    speech counts as speech. Generated fixtures record the exact value from the noise-free
    TTS signal instead, and `load_session` prefers a recorded value.
    """
    frame = max(1, round(rate * FRAME_S))
    n = len(audio) // frame
    if n == 0:
        return 0.0
    frames = np.asarray(audio[: n * frame], dtype=np.float64).reshape(n, frame)
    rms = np.sqrt(np.mean(frames**2, axis=1))
    db = 20.0 * np.log10(np.maximum(rms, 1e-10))
    threshold = max(float(db.max()) - RELATIVE_DB, FLOOR_DBFS)
    speech = np.flatnonzero(db >= threshold)
    if len(speech) == 0:
        return 0.0
    return float((speech[-1] + 1) * frame / rate)


# --- sessions -------------------------------------------------------------------------------------


def _describe(err: ValidationError) -> str:
    first = err.errors()[0]
    loc = ".".join(str(p) for p in first["loc"]) or "<root>"
    return f"{loc}: {first['msg']}"


def _registered_pairs(pack_id: str) -> set[tuple[str, str]]:
    pack = load_pack(pack_id)
    return {(e.intent, e.sub_intent) for e in pack.phi} | {(OTHER, OTHER)}


def _check_meaning(pack_id: str, state: LiveState) -> None:
    """The state against the pack's catalog, as `Session.open` and every push check it: a fixture
    naming a unit the pack lacks fails at load, not in the middle of a replay."""
    check_state(load_pack(pack_id), state)


def _check_session(session: FixtureSession, where: str, fill_speech_end: bool) -> None:
    """Cross-field checks pydantic cannot do: pack, Φ pairs, states, audio files."""
    try:
        pairs = _registered_pairs(session.pack_id)
    except PackError as err:
        raise FixtureError(f"{where}: pack_id: {err}") from None
    try:
        current = load_state(session.initial_state)
        _check_meaning(session.pack_id, current)
    except StateError as err:
        raise FixtureError(f"{where}: initial_state: {err}") from None
    for i, turn in enumerate(session.turns):
        at = f"{where}: turns.{i}"
        if (turn.expect_intent, turn.expect_sub_intent) not in pairs:
            raise FixtureError(
                f"{at}.expect_sub_intent: ({turn.expect_intent}, {turn.expect_sub_intent}) is not a "
                f"registered Φ pair of pack {session.pack_id!r} nor ({OTHER}, {OTHER})"
            )
        if turn.state is not None and turn.state_patch is not None:
            raise FixtureError(f"{at}: give either state or state_patch, not both")
        try:
            if turn.state is not None:
                current = load_state(turn.state)
            elif turn.state_patch is not None:
                current = apply_patch(current, turn.state_patch)
            _check_meaning(session.pack_id, current)
        except StateError as err:
            field = "state" if turn.state is not None else "state_patch"
            raise FixtureError(f"{at}.{field}: {err}") from None
        path = session.audio_path(turn)
        if not path.is_file():
            raise FixtureError(f"{at}.audio: file not found: {path}")
        try:
            info = sf.info(str(path))
        except (sf.LibsndfileError, RuntimeError) as err:
            raise FixtureError(f"{at}.audio: {path}: not a readable audio file ({err})") from None
        duration = info.frames / info.samplerate
        if turn.speech_end_s is None:
            if not fill_speech_end:
                continue
            estimate = speech_end(load_audio(path), SAMPLE_RATE)
            if estimate == 0.0:
                raise FixtureError(f"{at}.audio: {path}: no speech found (speech_end is 0)")
            turn.speech_end_s = estimate
        if turn.speech_end_s > duration:
            raise FixtureError(
                f"{at}.speech_end_s: {turn.speech_end_s:.3f} s is past the end of {path} ({duration:.3f} s)"
            )


def load_session(path: str | Path, fill_speech_end: bool = True, pack: str | None = None) -> FixtureSession:
    """Load and validate one session JSON; raise FixtureError naming the file and the field.

    Every turn's `speech_end_s` is set on return: the recorded value when the fixture has one,
    else `speech_end()` of its audio (skip that with ``fill_speech_end=False``). With `pack` (a
    pack folder or id), a session made for that pack's id runs on it: a folder outside
    voicecoach/packs plays its own sessions.
    """
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FixtureError(f"{path}: session file not found") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise FixtureError(f"{path}: not valid JSON ({err})") from None
    try:
        session = FixtureSession.model_validate(raw)
    except ValidationError as err:
        raise FixtureError(f"{path}: {_describe(err)}") from None
    session._base_dir = path.parent
    if pack is not None and session.pack_id == _pack_id(pack):
        session.pack_id = pack
    _check_session(session, str(path), fill_speech_end)
    return session


def _pack_id(ref: str) -> str:
    """The id (manifest.json's) of the pack a folder or id names."""
    try:
        return load_pack(ref).pack_id
    except PackError as err:
        raise FixtureError(f"--pack {ref}: {err}") from None


def _example_state(pack_id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(example_state_path(pack_id).read_text("utf-8"))
    return data


def adhoc_session(wav: str | Path, pack_id: str = DEFAULT_PACK) -> FixtureSession:
    """A one-turn session around a lone WAV: the pack's example state, and the transcript from
    a sidecar ``<name>.txt`` when there is one. It has no real expectation, so it expects the
    fallback pair (other, other); score its latency, not its intent."""
    wav = Path(wav)
    audio = load_audio(wav)  # fails early, naming the file, on an unreadable WAV
    sidecar = wav.with_suffix(".txt")
    transcript = sidecar.read_text(encoding="utf-8").strip() if sidecar.is_file() else ""
    end = speech_end(audio, SAMPLE_RATE)
    if end == 0.0:
        raise FixtureError(f"{wav}: no speech found (speech_end is 0)")
    session = FixtureSession(
        session_id=wav.stem,
        title=f"ad-hoc: {wav.name}",
        pack_id=pack_id,
        initial_state=_example_state(pack_id),
        turns=[
            FixtureTurn(
                audio=wav.name,
                transcript=transcript,
                expect_intent=OTHER,
                expect_sub_intent=OTHER,
                speech_end_s=end,
                notes="ad-hoc WAV: no recorded expectation; speech end estimated",
            )
        ],
    )
    session._base_dir = wav.parent
    return session


def discover(path: str | Path, pack_id: str | None = None) -> tuple[list[FixtureSession], list[str]]:
    """Sessions at `path`: a session JSON, a single WAV, or a folder of session JSONs.

    A folder is read one level deep (`*.json` in it, not in its subfolders), so another pack's
    sessions in `audio_fixtures/<pack>/` never join `audio_fixtures`'s own. With `pack_id`, a lone
    WAV plays on that pack's example state and a session made for another pack is an error
    (each session otherwise runs on the pack its `pack_id` names).

    Bad sessions do not stop the others: each is reported as an error string naming its file
    and skipped. A missing path or an unsupported file type is one error.
    """
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files:
            return [], [f"{path}: no session files (*.json) in folder"]
    elif path.is_file():
        files = [path]
    else:
        return [], [f"{path}: no such file or folder"]
    sessions: list[FixtureSession] = []
    errors: list[str] = []
    if pack_id is not None:
        try:
            _pack_id(pack_id)
        except FixtureError as err:
            return [], [str(err)]
    for file in files:
        try:
            if file.suffix.lower() == ".json":
                session = load_session(file, pack=pack_id)
                if pack_id is not None and session.pack_id != pack_id:
                    want = _pack_id(pack_id)
                    errors.append(f"{file}: pack_id: made for pack {session.pack_id!r}, not {want!r}")
                    continue
                sessions.append(session)
            elif file.suffix.lower() in (".wav", ".flac", ".ogg"):
                sessions.append(adhoc_session(file, pack_id or DEFAULT_PACK))
            else:
                errors.append(f"{file}: not a session JSON or an audio file")
        except FixtureError as err:
            errors.append(str(err))
    return sessions, errors
