"""The checker against the hand-labelled calibration set (tests/fixtures/calibration.jsonl).

Agreement is on the verdict a player cares about: may this be spoken as the answer (pass) or not.
Every disagreement is printed with the hand reason and the checker's failures.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from voicecoach.bench.coachbench.calibration import CalibrationError, agreement, judge, load_calibration
from voicecoach.bench.coachbench.generator import BenchSession, generate
from voicecoach.domain.pack import Pack

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "calibration.jsonl"
MIN_AGREEMENT = 95.0


@pytest.fixture(scope="module")
def sessions() -> dict[str, BenchSession]:
    from voicecoach.domain.pack import load_pack

    wanted = {r.session_id for r in load_calibration(FIXTURE)}
    return {s.session_id: s for s in generate(7, load_pack()) if s.session_id in wanted}


def test_the_set_is_large_and_covers_every_configuration() -> None:
    records = load_calibration(FIXTURE)
    assert len(records) >= 150
    configs = Counter(r.config for r in records if r.source == "real")
    assert set(configs) == {"prompting", "pe_agent", "sgc_w1", "sgc_w1_w2", "sgc_full"}, configs
    assert any(r.source == "written" and r.passed for r in records)
    assert any(r.source == "written" and not r.passed for r in records)


def test_checker_agrees_with_the_hand_labels(pack: Pack, sessions: dict[str, BenchSession]) -> None:
    records = load_calibration(FIXTURE)
    score, disagreements = agreement(pack, sessions, records)
    for record, verdict in disagreements:
        hand = "pass" if record.passed else f"fail ({record.rule})"
        found = "; ".join(f"{f.rule}: {f.evidence}" for f in verdict.failures) or "no failure"
        print(
            f"{record.id}: hand {hand} — {record.reason}\n    reply: {record.reply!r}\n    checker: {found}"
        )
    rule_hits = sum(
        1 for r in records if not r.passed and r.rule in {f.rule for f in judge(pack, sessions, r).failures}
    )
    failing = sum(not r.passed for r in records)
    print(f"agreement {score:.1f} % over {len(records)} replies; the hand rule among the checker's "
          f"failures on {rule_hits}/{failing} failing replies")  # fmt: skip
    assert score >= MIN_AGREEMENT


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "x", "source": "written", "session_id": "cb-001", "turn_index": 0, "reply": "hi", '
         '"pass": false, "rule": "rudeness", "reason": "r"}',
         r"bad.jsonl:2: field rule: .*unknown rule id 'rudeness'"),
        ('{"id": "x", "source": "written", "session_id": "cb-001", "turn_index": 0, "reply": "hi", '
         '"pass": false, "rule": "loop"}', r"bad.jsonl:2: field reason: Field required"),
        ('{"id": "x", "source": "written", "session_id": "cb-001", "turn_index": 0, "reply": "hi", '
         '"pass": false, "rule": "loop", "reason": "  "}', r"bad.jsonl:2: field reason: .*empty"),
        ('{"id": "x", "source": "written", "session_id": "cb-001", "turn_index": 0, "reply": "hi", '
         '"pass": false, "reason": "no rule"}', r"bad.jsonl:2: .*needs the rule"),
    ],
)  # fmt: skip
def test_bad_records_are_rejected_naming_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    good = FIXTURE.read_text(encoding="utf-8").splitlines()[0]
    path = tmp_path / "bad.jsonl"
    path.write_text(good + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(CalibrationError, match=message):
        load_calibration(path)
