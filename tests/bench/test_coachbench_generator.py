"""The CoachBench generator: reproducible files, the G.2 strata, valid states and Φ pairs, varied
phrasing, references consistent with the state, and validation errors that name file, session, field."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from voicecoach.bench.coachbench.generator import (
    BenchmarkError,
    BenchSession,
    load_benchmark,
    manifest_path,
    select,
    write_benchmark,
)
from voicecoach.core.state import load_state
from voicecoach.domain.pack import Pack


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bench") / "coachbench.jsonl"
    write_benchmark(path, seed=7)
    return path


@pytest.fixture(scope="module")
def sessions(written: Path) -> list[BenchSession]:
    return load_benchmark(written)


def test_a_seed_reproduces_the_files_byte_for_byte(written: Path, tmp_path: Path) -> None:
    again = tmp_path / "coachbench.jsonl"
    write_benchmark(again, seed=7)
    assert again.read_bytes() == written.read_bytes()
    assert manifest_path(again).read_bytes() == manifest_path(written).read_bytes()
    other = tmp_path / "other.jsonl"
    write_benchmark(other, seed=8)
    assert other.read_bytes() != written.read_bytes()


def test_manifest_records_seed_pack_and_counts(
    written: Path, sessions: list[BenchSession], pack: Pack
) -> None:
    manifest = json.loads(manifest_path(written).read_text())
    assert (manifest["seed"], manifest["pack_id"], manifest["pack_version"]) == (
        7,
        pack.pack_id,
        pack.version,
    )
    assert manifest["sessions"] == len(sessions) == 200
    assert manifest["scored_turns"] == sum(len(s.scored_turns) for s in sessions)


def test_strata_and_session_lengths_follow_g2(sessions: list[BenchSession]) -> None:
    assert Counter(s.stratum for s in sessions) == {"factual_qa": 80, "coaching": 60, "cross_turn": 60}
    lengths = Counter(s.length_class for s in sessions)
    assert {k: v / len(sessions) for k, v in lengths.items()} == {"single": 0.3, "short": 0.4, "long": 0.3}
    for s in sessions:
        n = len(s.scored_turns)
        assert {"single": n == 1, "short": 2 <= n <= 5, "long": n >= 6}[s.length_class]
    factual = [s for s in sessions if s.stratum == "factual_qa"]
    assert sum(s.length_class == "single" for s in factual) <= 0.6 * len(factual)  # G.2's cap
    scored = sum(len(s.scored_turns) for s in sessions)
    assert 900 <= scored <= 1100  # ≈ 1,000 scored turns, ≈ 5 per session


def test_eligibility_is_declared_by_stratum(sessions: list[BenchSession]) -> None:
    assert all(s.eligibility.dgp and s.goal for s in sessions if s.stratum == "coaching")
    assert all(s.eligibility.ccc for s in sessions if s.stratum == "cross_turn")
    assert all(s.eligibility.tga_sga for s in sessions)


def test_every_state_validates_and_every_pair_is_in_phi(sessions: list[BenchSession], pack: Pack) -> None:
    phi = {(e.intent, e.sub_intent): e.branch for e in pack.phi}
    seen = set()
    for s in sessions:
        for t in s.turns:
            state = load_state(t.state)
            assert state.turn_index == t.turn_index
            pair = (t.reference.intent, t.reference.sub_intent)
            assert phi[pair] == t.reference.branch
            seen.add(pair)
    assert len(seen) >= 0.9 * len(phi)  # the benchmark exercises nearly the whole Φ table


def test_phrasing_is_varied(sessions: list[BenchSession]) -> None:
    utterances = [t.utterance for s in sessions for t in s.turns]
    assert len(set(utterances)) / len(utterances) >= 0.9
    stt = [u for u in utterances if u == u.lower() and not any(ch in u for ch in "?.,!")]
    typed = [u for u in utterances if u.endswith("?")]
    assert len(stt) >= 0.3 * len(utterances) and len(typed) >= 0.2 * len(utterances)
    # One pair is many phrasings, not one template.
    builds = [t.utterance.lower() for s in sessions for t in s.turns if t.reference.sub_intent == "counter"]
    assert len(set(builds)) >= 0.8 * len(builds)


def test_references_are_derived_from_the_state(sessions: list[BenchSession], pack: Pack) -> None:
    for s in sessions:
        for i, t in enumerate(s.turns):
            inv = load_state(t.state).fs.inventory
            assert inv is not None
            ref = t.reference
            assert all(inv.owns(c) for c in ref.owned_mentioned)
            assert not any(inv.owns(c) for c in ref.unowned_mentioned)
            for sid in ref.locked_skills:
                assert not any(inv.skill_unlocked(c, sid) for c in pack.catalog.entities["creature"])
            for lu in ref.usable_lineups:
                assert all(inv.owns(c) for c in pack.catalog.entities["lineup"][lu].value("creatures"))
            if t.push == "late":  # a late push hides a real change from the coach
                assert i > 0 and t.state_change and t.state != {**s.turns[i - 1].state, "turn_index": i}


def test_drift_tags_are_diagnostic_and_cover_all_four(sessions: list[BenchSession]) -> None:
    for s in sessions:
        assert s.diagnostic_drift_tags == sorted({tag for t in s.scored_turns for tag in t.drift_tags})
    tagged = Counter(tag for s in sessions for tag in s.diagnostic_drift_tags)
    assert all(tagged[tag] >= 10 for tag in "ABCD")
    assert any(not s.diagnostic_drift_tags for s in sessions if s.stratum == "factual_qa")
    assert any(t.push == "late" for s in sessions for t in s.turns)
    assert any(t.reference.no_repeat for s in sessions for t in s.turns)
    assert any(t.reference.excluded for s in sessions for t in s.turns)


def test_a_prefix_keeps_the_strata_mixed(sessions: list[BenchSession]) -> None:
    first = select(sessions, 20)
    assert len(first) == 20
    assert {s.stratum for s in first} == {"factual_qa", "coaching", "cross_turn"}
    assert {s.length_class for s in first} == {"single", "short", "long"}


def _edit(written: Path, tmp_path: Path, line: int, change: object) -> Path:
    lines = written.read_text().splitlines()
    data = json.loads(lines[line])
    change(data)  # type: ignore[operator]
    lines[line] = json.dumps(data)
    bad = tmp_path / "edited.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    return bad


def test_a_hand_edited_bad_state_names_file_session_and_field(written: Path, tmp_path: Path) -> None:
    def zero_stage(data: dict) -> None:
        data["turns"][0]["state"]["fs"]["inventory"]["owned"][0]["stage"] = 0

    bad = _edit(written, tmp_path, 3, zero_stage)
    sid = json.loads(written.read_text().splitlines()[3])["session_id"]
    with pytest.raises(BenchmarkError) as err:
        load_benchmark(bad)
    message = str(err.value)
    assert str(bad) in message and f"session {sid}" in message
    assert "turns.0.state" in message and "fs.inventory.owned.0.stage" in message


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda d: d["turns"][0]["reference"].update(sub_intent="teleport"), "turns.0.reference"),
        (lambda d: d["turns"][0].update(utterence="typo"), "turns.0.utterence"),
        (lambda d: d.update(length_class="long"), "<session>"),
    ],
)
def test_other_bad_edits_are_named(written: Path, tmp_path: Path, edit: object, field: str) -> None:
    bad = _edit(written, tmp_path, 0, edit)
    with pytest.raises(BenchmarkError, match=rf"session cb-001: field {field}"):
        load_benchmark(bad)
