"""The fixtures' control decisions (c1 / c2 / c3) on a scripted LLM, against a committed record.

Every fixture turn runs through the text-mode actor pipeline (`TextCoach`), its state pushed
first as the replay does; the scripted server answers W1 with the fixture's expected labels,
W2 with the entities its drift traps name, the Talker with one fixed sentence. What the
kernels and actors then decide (Φ outcome and tools, conflicts and paragraph plan, guidance
and cooldowns, answer.meta) is compared with `fixture_decisions.json`, first recorded before the
actors and the turn timeline were refactored: a refactor that changes a decision fails here.
Re-recorded since for intended changes: W2 keeps only names the player said (a name the slot call
adds on its own is dropped, not judged), and the record says who labelled the turn and where its
reply came from; W3 holds back a candidate whose `requires` the state lacks (a follow-up about
"it" when the player named no creature), and one the turn's answer covers (`unsaid_after`: no
"want me to check how that matches up?" after a matchup answer; s01 turn 4, s06 turn 2); the match
line (scene_flavor) is planned only where pet's Φ entry says the question is about the match, not on
a counter pick or a creature question (s01, s04, s05, s09, s10); the record keeps the turn as the
coach read it in its dialogue ("Can he use the Slugger?" -> "Can Dumaka use the Slugger?", "And
the Dome Projector on Brannoc?" re-asking the last question, st03) and two questions in one
breath get two answers (st04 turn 4).

strike_team's sessions (audio_fixtures/strike_team/) are recorded the same way in
`fixture_decisions_strike_team.json`, W1 planning the pack's own collection tool.

Regenerate (only for an intended change of behaviour):
    python -m tests.bench.test_fixture_decisions > tests/fixture_decisions.json
    python -m tests.bench.test_fixture_decisions --pack strike_team > tests/fixture_decisions_strike_team.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicecoach.bench.fixtures import FixtureSession, FixtureTurn, discover
from voicecoach.coach.engines import Engines
from voicecoach.coach.session import CoachConfig, Session
from voicecoach.core.state import load_state
from voicecoach.domain.pack import load_pack
from voicecoach.grounding.prompt import slot_prompt
from voicecoach.llm.client import LLMClient, LLMConfig
from voicecoach.perception.prompt import w1_system_prompt
from voicecoach.pipelines.text import TextCoach, TurnResult
from voicecoach.testing.scripted_llm import Script, ScriptedLLMServer

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).resolve().parents[1] / "fixture_decisions.json"
REPLY = "Here is what I would do."


@dataclass(frozen=True)
class Fixtures:
    """One pack's fixture folder, its record, and the tool W1 plans on a Φ miss."""

    folder: Path
    expected: Path
    plan: str


PACKS = {
    "pet_arena": Fixtures(ROOT / "audio_fixtures", EXPECTED, "get_inventory()"),
    "strike_team": Fixtures(
        ROOT / "audio_fixtures" / "strike_team",
        Path(__file__).resolve().parents[1] / "fixture_decisions_strike_team.json",
        "get_collection()",
    ),
}


def _w1_script(turn: FixtureTurn, plan: str = "get_inventory()") -> Script:
    chunks = [
        f"<INTENT>{turn.expect_intent}</INTENT>",
        f"<SUB_INTENT>{turn.expect_sub_intent}</SUB_INTENT>",
        "<NARRATION>", "Let me", " check.", "</NARRATION>",
        f"<PLAN>{plan}</PLAN>",
    ]  # fmt: skip
    return Script(chunks=chunks)


def _w2_script(turn: FixtureTurn) -> Script:
    entities = sorted({t.entity for t in turn.drift_traps if t.entity})
    return Script(json.dumps({"wanted_entities": entities, "excluded_entities": []}))


class _Router:
    """W1 by the player's utterance, W2 by its system prompt, everything else the Talker."""

    def __init__(self, fixtures: list[FixtureSession], pack_id: str = "pet_arena") -> None:
        self.slot_system = slot_prompt(load_pack(pack_id))
        self.w1_system = w1_system_prompt(load_pack(pack_id))
        self.plan = PACKS[pack_id].plan
        self.turns = {t.transcript: t for f in fixtures for t in f.turns}
        # The turn being asked: the coach reads "Can he use the Slugger?" as "Can Dumaka use the
        # Slugger?" (perception.dialogue), so its calls carry the read text, not the transcript.
        self.current: FixtureTurn | None = None

    def __call__(self, body: dict[str, Any]) -> Script:
        if body.get("max_tokens") == 1:  # prewarm
            return Script("ok")
        messages = body["messages"]
        if messages[0]["content"] == self.slot_system:
            utterance = messages[-1]["content"].split("\nplayer: ", 1)[-1]
            turn = self.turns.get(utterance, self.current)
            assert turn is not None, utterance
            return _w2_script(turn)
        turn = self.turns.get(messages[-1]["content"], self.current)
        # W1: its system prompt (and the pack's worked turns, when it has any), then the utterance.
        if turn is not None and (len(messages) > 2 or messages[0]["content"] == self.w1_system):
            return _w1_script(turn, self.plan)
        return Script(REPLY)


def _decisions(result: TurnResult) -> dict[str, Any]:
    c1, c2, c3 = result.c1, result.c2, result.c3
    return {
        "completed": result.completed,
        "c1": None
        if c1 is None
        else {"intent": c1.intent, "sub_intent": c1.sub_intent, "branch": c1.branch, "outcome": c1.outcome},
        "tools": [
            {"source": d.source, "calls": [[c.tool, c.args] for c in d.calls], "errors": d.errors}
            for d in result.dispatches
        ],
        "results": [[o.tool, o.ok] for o in result.results.outcomes] if result.results else None,
        "c2": None
        if c2 is None or c2.control is None
        else {
            "plan": [[p.type, p.polarity] for p in c2.control.plan],
            "conflicts": [[c.constraint, c.tier, c.satisfied] for c in c2.control.conflicts],
            "slot_errors": c2.slot_errors,
        },
        "c3": None
        if c3 is None or c3.control is None
        else {
            "branch": c3.control.branch,
            "guidance": c3.control.guidance.candidate_id if c3.control.guidance else None,
            "abstain_reason": c3.control.abstain_reason,
            "cooling": c3.control.cooling,
            "meta": c3.meta.model_dump(mode="json") if c3.meta else None,
        },
        "reply": result.reply,
        "record": _record(result),
    }


def _record(result: TurnResult) -> dict[str, Any] | None:
    """The turn record the store persists, less its clock readings."""
    if result.record is None:
        return None
    record = result.record.model_dump(mode="json", exclude={"latency", "created_at"})
    record["tools"] = [{k: v for k, v in t.items() if k != "ms"} for t in record["tools"]]
    return record


async def fixture_decisions(pack_id: str = "pet_arena") -> dict[str, list[dict[str, Any]]]:
    fixtures, problems = discover(PACKS[pack_id].folder, pack_id)
    assert not problems, problems
    pack = load_pack(pack_id)
    out: dict[str, list[dict[str, Any]]] = {}
    router = _Router(fixtures, pack_id)
    async with ScriptedLLMServer(router=router) as server:
        llm = LLMConfig(base_url=server.base_url, first_token_timeout_s=5.0, inter_token_timeout_s=5.0)
        config = CoachConfig(llm=llm, tool_timeout_s=5.0, slot_timeout_s=5.0, talker_deadline_s=10.0)
        for fixture in fixtures:
            session = Session.open(fixture.session_id, state=load_state(fixture.initial_state), pack=pack)
            coach = TextCoach(session, config, Engines(llm=LLMClient(config.llm)))
            await coach.start(warm=False)
            try:
                turns = []
                for turn in fixture.turns:
                    if turn.state is not None:
                        await coach.push_state(snapshot=turn.state)
                    elif turn.state_patch is not None:
                        await coach.push_state(patch=turn.state_patch)
                    router.current = turn
                    turns.append(_decisions(await coach.ask(turn.transcript, timeout_s=30.0)))
                out[fixture.session_id] = turns
            finally:
                await coach.stop()
                await coach.engines.close()
    return out


async def test_fixture_decisions_are_those_recorded_before_the_refactor() -> None:
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    got = json.loads(json.dumps(await fixture_decisions()))
    assert sorted(got) == sorted(expected)
    for session_id, turns in expected.items():
        for i, (want, have) in enumerate(zip(turns, got[session_id], strict=True)):
            assert have == want, f"{session_id} turn {i + 1}"


async def test_strike_team_fixture_decisions_are_those_recorded() -> None:
    fixtures = PACKS["strike_team"]
    expected = json.loads(fixtures.expected.read_text(encoding="utf-8"))
    got = json.loads(json.dumps(await fixture_decisions("strike_team")))
    assert sorted(got) == sorted(expected) == [p.stem for p in sorted(fixtures.folder.glob("*.json"))]
    for session_id, turns in expected.items():
        for i, (want, have) in enumerate(zip(turns, got[session_id], strict=True)):
            assert have == want, f"{session_id} turn {i + 1}"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="print the fixtures' decisions as JSON")
    parser.add_argument("--pack", choices=sorted(PACKS), default="pet_arena")
    json.dump(asyncio.run(fixture_decisions(parser.parse_args().pack)), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
