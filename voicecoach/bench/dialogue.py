"""CoachBench's dialogue suite: multi-turn player sessions with a rubric per turn.

`<pack>/dialogue_suite.json` holds sessions written blind from the pack's data files (never from
the project's phrasings, and never training data for the prior): references ("how do I beat
him?"), corrections, follow-ups, whose unit is whose, descriptions, element- or role-level
questions, two questions in one breath, opponent analysis, clarification and composition. Each
turn says what a right reply must contain (`must`: every group, any phrase of a group) and must
not (`must_not`), and optionally the pair it asks (`intent`, "intent/sub_intent").

This module is the data and the verdict (pure); `voicecoach.pipelines.bench.dialogue` plays the
sessions through the coach and prints the table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from voicecoach.domain.pack import PACKS_DIR, PackError

FILE = "dialogue_suite.json"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DialogueTurn(_Model):
    say: str = Field(min_length=1)
    kind: str
    intent: str | None = None
    must: list[list[str]] = Field(default_factory=list, description="AND over groups, OR within one")
    must_not: list[str] = Field(default_factory=list)


class DialogueSession(_Model):
    id: str
    kind: str
    state_patch: dict[str, Any] = Field(default_factory=dict, description="RFC 7386 merge patch")
    turns: list[DialogueTurn] = Field(min_length=1)


class DialogueSuite(_Model):
    comment: str = Field(default="", alias="_comment")
    pack: str
    sessions: list[DialogueSession]


def suite_path(pack_id: str) -> Path:
    return PACKS_DIR / pack_id / FILE


def load_suite(pack_id: str, path: Path | None = None) -> DialogueSuite:
    """Read and validate a pack's dialogue suite; PackError names the file and the problem."""
    path = path or suite_path(pack_id)
    try:
        suite = DialogueSuite.model_validate(json.loads(path.read_text()))
    except (OSError, ValueError) as err:
        raise PackError(f"{path}: {err}") from err
    if suite.pack != pack_id:
        raise PackError(f"{path}: written for pack {suite.pack!r}, not {pack_id!r}")
    return suite


def verdict(turn: DialogueTurn, reply: str, label: str | None = None) -> list[str]:
    """What is wrong with `reply` to `turn` ([]: right in every respect the rubric checks);
    `label`: the turn's "intent/sub_intent", checked when the turn names one."""
    said = reply.lower()
    problems = [f"missing one of {group}" for group in turn.must if not any(p.lower() in said for p in group)]
    problems += [f"says {phrase!r}" for phrase in turn.must_not if phrase.lower() in said]
    return problems


def intent_right(turn: DialogueTurn, label: str | None) -> bool | None:
    """Was the pair right (None: the turn names none)?"""
    return None if turn.intent is None else label == turn.intent
