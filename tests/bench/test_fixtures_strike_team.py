"""strike_team's audio fixtures (audio_fixtures/strike_team/, `make_fixtures.py --pack strike_team`).

They are a test set: none of their utterances may be one of the pack's paraphrases, the prior's
training data. Their traps must be true of the state at their turn, read through StateView as
the kernels read it, and a replay of audio_fixtures must still find pet's sessions only.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import soundfile as sf

# pet's audio checks, collected here again on this module's `sessions` (strike_team's): speech_end
# inside the file and followed by quiet, and agreeing with the estimator on the clean files.
from tests.bench.test_fixtures import (  # noqa: F401
    test_recorded_speech_end_agrees_with_the_estimator_on_clean_files,
    test_speech_end_is_inside_the_file_and_followed_by_quiet,
)
from voicecoach.bench.fixtures import FixtureSession, discover, load_session
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import PACKS_DIR, Pack, load_pack
from voicecoach.domain.view import StateView

FIXTURES = Path(__file__).resolve().parents[2] / "audio_fixtures"
FOLDER = FIXTURES / "strike_team"
SESSION_FILES = sorted(FOLDER.glob("*.json"))


@pytest.fixture(scope="module")
def st_pack() -> Pack:
    return load_pack("strike_team")


@pytest.fixture(scope="module")
def sessions() -> list[FixtureSession]:
    return [load_session(p) for p in SESSION_FILES]


def _normal(text: str) -> str:
    """Case and punctuation left out: 'What's Kas about?' and 'whats kas about' are one utterance."""
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower().replace("'", "")).split())


def test_enough_sessions_of_four_turns_on_the_pack(sessions: list[FixtureSession]) -> None:
    assert len(sessions) >= 6
    assert sum(len(s.turns) for s in sessions) >= 24
    assert all(len(s.turns) == 4 and s.pack_id == "strike_team" and s.title for s in sessions)
    assert [s.session_id for s in sessions] == [p.stem for p in SESSION_FILES]
    assert sum(any(t.state_patch for t in s.turns) for s in sessions) >= 5, "state changes between turns"


def test_states_change_the_round_the_enemy_the_map_and_the_account(sessions: list[FixtureSession]) -> None:
    changed: set[str] = set()
    for s in sessions:
        states = s.states()
        for before, after in zip(states, states[1:], strict=False):
            m0, m1 = before.ic.match, after.ic.match
            assert m0 is not None and m1 is not None
            if m0.round != m1.round:
                changed.add("round")
            if m0.opponent_lineup != m1.opponent_lineup:
                changed.add("enemy")
            if m0.context != m1.context:
                changed.add("map")
            if before.fs.player_level != after.fs.player_level:
                changed.add("account level")
    assert changed == {"round", "enemy", "map", "account level"}


def test_every_state_is_in_the_collection_layout_with_a_map(sessions: list[FixtureSession]) -> None:
    for s in sessions:
        for state in s.states():
            assert state.fs.inventory is None and state.fs.collection is not None
            assert state.ic.match is not None and state.ic.match.context.get("map")


def test_the_collection_holds_exactly_the_heroes_the_account_level_unlocks(
    sessions: list[FixtureSession], st_pack: Pack
) -> None:
    heroes = st_pack.catalog.entities["hero"]
    for s in sessions:
        for state in s.states():
            level = state.fs.player_level
            unlocked = [
                h for h, e in heroes.items() if (e.value("unlock") or {}).get("min_player_level", 0) <= level
            ]
            assert state.fs.collection is not None
            assert [u.id for u in state.fs.collection.units] == unlocked, s.session_id


def test_drift_traps_are_true_for_the_state_at_their_turn(
    sessions: list[FixtureSession], st_pack: Pack
) -> None:
    kinds: set[str] = set()
    for s in sessions:
        for t, state in zip(s.turns, s.states(), strict=True):
            view = StateView(st_pack, state)
            said = {m.id for m in link_entities(st_pack, t.transcript)}
            for trap in t.drift_traps:
                kinds.add(trap.kind)
                where = f"{t.audio}: {trap.kind} {trap.entity}"
                if trap.kind == "unowned":
                    assert st_pack.catalog.get("hero", trap.entity or "") is not None, where
                    assert not view.owns(trap.entity or ""), where
                elif trap.kind in ("owned", "contradiction"):
                    assert view.owns(trap.entity or ""), where
                elif trap.kind == "locked_option":
                    assert st_pack.catalog.get("item", trap.entity or "") is not None, where
                    assert view.option_usable(trap.entity or "") == trap.detail.startswith("Now unlocked"), (
                        where
                    )
                if trap.entity is not None:
                    assert trap.entity in said, f"{where}: not said in the utterance"
    assert kinds == {"unowned", "locked_option", "owned", "repeat_pressure", "contradiction"}


def test_expectations_are_pairs_of_the_pack(sessions: list[FixtureSession], st_pack: Pack) -> None:
    pairs = {(e.intent, e.sub_intent) for e in st_pack.phi} | {("other", "other")}
    expected = [(t.expect_intent, t.expect_sub_intent) for s in sessions for t in s.turns]
    assert set(expected) <= pairs
    assert len(set(expected)) >= 20, "the sessions cover most of the pack's pairs, not a few"


def test_no_utterance_is_a_paraphrase_of_the_pack(sessions: list[FixtureSession]) -> None:
    """The fixtures test the coach; the paraphrases trained its prior. Not one may be both."""
    raw = json.loads((PACKS_DIR / "strike_team" / "paraphrases.json").read_text(encoding="utf-8"))
    training = {_normal(u) for entry in raw for u in entry["utterances"]}
    assert len(training) > 1000
    assert _normal("What's Kasimir like?") in training  # the check does find a paraphrase
    said = [t.transcript for s in sessions for t in s.turns]
    assert [u for u in said if _normal(u) in training] == []
    assert len({_normal(u) for u in said}) == len(said), "no utterance twice"


def test_every_wav_is_16k_mono_pcm16_and_referenced(sessions: list[FixtureSession]) -> None:
    referenced = {s.audio_path(t).resolve() for s in sessions for t in s.turns}
    on_disk = {p.resolve() for p in FOLDER.rglob("*.wav")}
    assert on_disk == referenced
    for path in sorted(on_disk):
        info = sf.info(str(path))
        assert (info.samplerate, info.channels, info.subtype) == (16000, 1, "PCM_16"), path


def test_the_default_folder_still_replays_pet_arena_alone() -> None:
    """`voicecoach replay audio_fixtures` reads the folder one level deep: the subfolder adds nothing."""
    sessions, errors = discover(FIXTURES)
    assert errors == []
    assert [s.session_id for s in sessions] == [f"s{i:02d}" for i in range(1, 13)]
    assert {s.pack_id for s in sessions} == {"pet_arena"}


def test_discover_with_a_pack_refuses_another_packs_sessions() -> None:
    sessions, errors = discover(FOLDER, "strike_team")
    assert [s.session_id for s in sessions] == [p.stem for p in SESSION_FILES] and errors == []
    sessions, errors = discover(FIXTURES, "strike_team")
    assert sessions == [] and len(errors) == 12
    assert "s01.json: pack_id: made for pack 'pet_arena', not 'strike_team'" in errors[0]
