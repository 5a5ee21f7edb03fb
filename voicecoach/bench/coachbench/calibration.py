"""The checker's calibration set: replies judged by hand, and how often the checker agrees.

Each line of the JSONL (tests/fixtures/calibration.jsonl) is one reply as the player hears it
(narration + reply), tied to a CoachBench turn (seed 7, `session_id` / `turn_index`) whose state and
reference the checker judges it against, with a hand label: `pass`, and for a failure the `rule`
a listener would name first and the `reason` in words. Real replies come from `bench quality` runs
(`source: "real"`, with the configuration); written ones probe the rules (`source: "written"`).
Labels were given by reading each reply as a player would, before looking at the checker's verdict.

A record with an unknown rule id, a failure without a rule, a pass with one, or no reason is
rejected naming the file and the line.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from voicecoach.bench.coachbench.checker import ReplyEvidence, TurnVerdict, check_turn
from voicecoach.bench.coachbench.generator import BenchSession
from voicecoach.domain.pack import Pack
from voicecoach.talker.rules import RULES


class CalibrationError(ValueError):
    """A calibration file that does not validate; the message names file and line."""


class CalibrationRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    source: Literal["real", "written"]
    config: str | None = None  # the configuration that produced a real reply
    session_id: str
    turn_index: int
    reply: str
    previous: str | None = None  # the same configuration's reply the turn before
    completed: bool = True
    snapshot_turn: int | None = None
    tools: tuple[str, ...] = ()
    passed: bool
    rule: str | None = None  # the first rule a listener would name for a failure
    reason: str

    @field_validator("rule")
    @classmethod
    def _known_rule(cls, value: str | None) -> str | None:
        if value is not None and value not in RULES:
            raise ValueError(f"unknown rule id {value!r}; known: {', '.join(sorted(RULES))}")
        return value

    @field_validator("reason")
    @classmethod
    def _has_reason(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the reason is empty: say why the reply passes or fails")
        return value

    @model_validator(mode="after")
    def _rule_iff_fail(self) -> CalibrationRecord:
        if not self.passed and self.rule is None:
            raise ValueError("a failing reply needs the rule it fails")
        if self.passed and self.rule is not None:
            raise ValueError("a passing reply names no rule")
        return self


def load_calibration(path: str | Path) -> list[CalibrationRecord]:
    path = Path(path)
    records: list[CalibrationRecord] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as err:
            raise CalibrationError(f"{path}:{number}: not valid JSON ({err})") from None
        if isinstance(raw, dict) and "pass" in raw:
            raw["passed"] = raw.pop("pass")
        try:
            record = CalibrationRecord.model_validate(raw)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "<record>"
            raise CalibrationError(f"{path}:{number}: field {where}: {first['msg']}") from None
        if record.id in seen:
            raise CalibrationError(f"{path}:{number}: field id: {record.id!r} defined twice")
        seen.add(record.id)
        records.append(record)
    return records


def judge(pack: Pack, sessions: dict[str, BenchSession], record: CalibrationRecord) -> TurnVerdict:
    """The checker's verdict on one calibration reply, in its bench turn's context."""
    session = sessions[record.session_id]
    turn = session.turns[record.turn_index]
    seen = session.turns[turn.turn_index - 1].state if turn.push == "late" else None
    evidence = ReplyEvidence(
        reply=record.reply, completed=record.completed, snapshot_turn=record.snapshot_turn, tools=record.tools
    )
    previous = ReplyEvidence(reply=record.previous) if record.previous is not None else None
    return check_turn(pack, turn, evidence, previous, seen, session.session_id)


def agreement(
    pack: Pack, sessions: dict[str, BenchSession], records: Sequence[CalibrationRecord]
) -> tuple[float, list[tuple[CalibrationRecord, TurnVerdict]]]:
    """(% of records where the checker's pass / fail equals the hand label, the disagreements)."""
    disagreements = []
    for record in records:
        verdict = judge(pack, sessions, record)
        if verdict.passed != record.passed:
            disagreements.append((record, verdict))
    return 100.0 * (len(records) - len(disagreements)) / len(records), disagreements
