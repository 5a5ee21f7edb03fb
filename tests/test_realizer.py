"""The grounded realizer: each paragraph type, the answer when the plan is thin, fallbacks, bad
templates rejected at load, and CoachBench turns read by the checker with no grounding failure.

The conftest state owns emberfox, galehawk, granitusk, hexmoth, lumifawn, oakhorn, sparkwing and
tidefang (Riptide locked until stage 2), leads 1-0 in round 2 of 3, against briarcat (grass),
shellbastion (water) and voltail (electric).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from voicecoach.coachbench.checker import ReplyEvidence, check_turn, read_reply
from voicecoach.coachbench.generator import generate
from voicecoach.pack import PACKS_DIR, Pack, PackError, load_pack, load_pack_from
from voicecoach.realizer import MAX_SENTENCES, MAX_WORDS, Line, realize, realize_session, say
from voicecoach.slot_rules import extract_slots
from voicecoach.state import FactSlots, Inventory, LiveState
from voicecoach.talker import ToolOutcome
from voicecoach.tools import run_tool
from voicecoach.w2 import QuerySlots, ground
from voicecoach.w3 import interact

PACK: Pack = load_pack()


def tool(state: LiveState, name: str, **args: Any) -> ToolOutcome:
    return ToolOutcome(tool=name, args=args, ok=True, result=run_tool(PACK, state, name, args))


def speak(
    state: LiveState,
    utterance: str,
    intent: str,
    sub_intent: str,
    tools: list[ToolOutcome] | None = None,
    slots: QuerySlots | None = None,
    turn: int | None = None,
    c3: bool = False,
) -> str:
    turn = state.turn_index if turn is None else turn
    slots = slots if slots is not None else extract_slots(PACK, utterance, state)
    c2 = ground(slots, state, PACK, intent, sub_intent, utterance=utterance)
    control = interact(state, PACK, "recommend", turn, 1)[0] if c3 else None
    return realize(PACK, state, c2, control, tools or [], utterance, turn, intent, sub_intent)


def names(text: str) -> set[str]:
    return {c.entity for c in read_reply(PACK, text)}


def test_guidance_names_the_best_owned_counter(state: LiveState) -> None:
    counters = tool(state, "find_counters", opponent=["briarcat", "shellbastion", "voltail"])
    reply = speak(state, "who beats their team", "lineup", "counter", [counters])
    claims = [c for c in read_reply(PACK, reply) if c.role == "recommended"]
    assert claims, reply
    assert all(state.fs.inventory and state.fs.inventory.owns(c.entity) for c in claims)
    # find_counters' first pick that deals double damage to one of them is the one named.
    chart = PACK.elements.counters
    foes = [PACK.creatures[f] for f in ("briarcat", "shellbastion", "voltail")]
    top = next(
        c
        for c in counters.result["counters"]  # type: ignore[index]
        if any(chart[c["element"]][f.element] > 1 for f in foes)
    )
    assert [c.entity for c in claims] == [top["id"]]


def test_constraint_account_for_a_creature_the_player_lacks(state: LiveState) -> None:
    reply = speak(state, "build around pyrowl", "lineup", "build", [tool(state, "suggest_lineup")])
    assert re.search(r"(don't have Pyrowl|Pyrowl isn't in your roster)", reply), reply


def test_apology_for_an_empty_roster() -> None:
    empty = LiveState(fs=FactSlots(inventory=Inventory(owned=[])))
    reply = speak(empty, "make me a team", "lineup", "build")
    assert "don't own any creatures" in reply


def test_praise_confirms_a_creature_kept_out(state: LiveState) -> None:
    reply = speak(state, "a team without tidefang", "lineup", "build", [tool(state, "suggest_lineup")])
    assert "Leaving Tidefang out" in reply or "leaving Tidefang out" in reply
    recommended = {c.entity for c in read_reply(PACK, reply) if c.affirmed}
    assert "tidefang" not in recommended


def test_scene_flavor_from_the_match(state: LiveState) -> None:
    reply = speak(state, "what's the plan", "match", "round_strategy")
    assert "ahead 1 to 0" in reply


def test_do_i_own_is_answered_yes_or_no(state: LiveState) -> None:
    yes = speak(
        state, "do i own hexmoth", "creature", "owned", [tool(state, "get_creature", creature="hexmoth")]
    )
    no = speak(
        state, "do i own pyrowl", "creature", "owned", [tool(state, "get_creature", creature="pyrowl")]
    )
    assert yes.startswith("Yes") and "Hexmoth" in yes
    assert no.startswith("No") and "Pyrowl" in no


def test_can_x_use_y_says_yes_or_the_unlock_condition(state: LiveState) -> None:
    locked = speak(
        state, "can tidefang use riptide", "skill", "unlock", [tool(state, "explain_skill", skill="riptide")]
    )
    assert "Riptide" in locked and "evolution stage 2" in locked and "Yes" not in locked
    usable = speak(
        state,
        "can emberfox use blaze charge",
        "skill",
        "unlock",
        [tool(state, "explain_skill", skill="blaze_charge")],
    )
    assert usable.startswith("Yes") and "Blaze Charge" in usable


def test_a_failed_tool_is_said_plainly_and_nothing_is_guessed(state: LiveState) -> None:
    failed = ToolOutcome(tool="find_counters", ok=False, error="timed out")
    reply = speak(state, "who beats their team", "lineup", "counter", [failed])
    assert "matchup data" in reply and "won't guess" in reply


def test_a_stale_snapshot_is_hedged(state: LiveState) -> None:
    reply = speak(
        state,
        "i just got pyrowl, is it good",
        "creature",
        "worth_it",
        [tool(state, "get_creature", creature="pyrowl")],
        turn=state.turn_index + 1,
    )
    assert re.search(r"last update|latest update", reply), reply
    # What it owns may have changed: catalog facts only, no claim either way about its roster.
    assert not [c for c in read_reply(PACK, reply) if c.affirmed or c.absent], reply


def test_a_question_missing_its_subject_asks_for_it(state: LiveState) -> None:
    assert "Which creature" in speak(state, "is it worth it", "creature", "worth_it")


def test_a_placeholder_with_no_value_falls_back_to_the_generic_sentence() -> None:
    line = Line(paragraph="guidance", key="counter", values={"creature": "Emberfox"}, keep="answer")
    assert say(PACK, line, 0) == PACK.templates.paragraphs["guidance"].generic
    unknown_key = Line(paragraph="praise", key="no_such_template", values={}, keep="praise")
    assert say(PACK, unknown_key, 0) == PACK.templates.paragraphs["praise"].generic


def test_same_inputs_same_words_and_turns_vary(state: LiveState) -> None:
    counters = tool(state, "find_counters", opponent=["briarcat", "shellbastion", "voltail"])
    args = (state, "who beats their team", "lineup", "counter", [counters])
    assert speak(*args) == speak(*args)
    later = [speak(s, *args[1:]) for s in (state.model_copy(update={"turn_index": i}) for i in range(4, 8))]
    assert len(set(later)) > 1


def test_smalltalk_is_short_and_has_no_advice(state: LiveState) -> None:
    reply = speak(state, "hello coach", "smalltalk", "greeting", c3=True)
    assert reply in PACK.templates.answers["smalltalk/greeting"]


# --- bad templates are rejected when the pack loads --------------------------------------------------


def _broken_templates(tmp_path: Path, edit: Any) -> Path:
    folder = tmp_path / "pet_arena"
    shutil.copytree(PACKS_DIR / "pet_arena", folder)
    path = folder / "templates.json"
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    return folder


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda d: d["paragraphs"].update(pep_talk={"generic": "Go!"}),
            r"entry 'pep_talk': unknown paragraph type",
        ),
        (
            lambda d: d["paragraphs"]["guidance"]["templates"]["counter"].append("Bring {creatur}."),
            r"entry 'guidance/counter\[3\]': unknown placeholder \{creatur\}",
        ),
        (lambda d: d["paragraphs"]["praise"].update(generic="Nice {creature}."), r"entry 'praise/generic'"),
        (
            lambda d: d["answers"].update({"lineup/dance": ["Dance."]}),
            r"entry 'answers/lineup/dance': not a Φ pair",
        ),
        (
            lambda d: d["paragraphs"].pop("apology"),
            r"entry 'paragraphs': missing paragraph type\(s\) apology",
        ),
        (
            lambda d: d["tool_data"].update(order_pizza="pizza"),
            r"entry 'tool_data/order_pizza': unknown tool",
        ),
    ],
)
def test_bad_templates_name_file_and_entry(tmp_path: Path, edit: Any, message: str) -> None:
    with pytest.raises(PackError, match=r"templates\.json: " + message):
        load_pack_from(_broken_templates(tmp_path, edit))


# --- many CoachBench turns, read by the checker --------------------------------------------------------

GROUNDING_RULES = {"unavailable_entity", "false_missing", "self_contradiction", "excluded_entity"}


@pytest.fixture(scope="module")
def realized() -> list[tuple[Any, list[Any]]]:
    sessions = generate(pack=PACK)[::4]  # 50 sessions across every stratum
    return [(s, realize_session(PACK, s)) for s in sessions]


def test_realizations_are_short_speakable_and_never_read_json_or_placeholders(
    realized: list[tuple[Any, list[Any]]],
) -> None:
    for _, turns in realized:
        for r in turns:
            assert r.reply.strip(), r
            assert not re.search(r"[{}\[\]\"_]|\bnull\b|\btrue\b|https?:", r.reply), r.reply
            assert len(r.reply.split()) <= MAX_WORDS + 12, r.reply  # one long pack sentence may ride along
            assert len(re.findall(r"[.!?](?:\s|$)", r.reply)) <= MAX_SENTENCES + 1, r.reply


def test_realizations_have_no_grounding_failure(realized: list[tuple[Any, list[Any]]]) -> None:
    failures = []
    for session, turns in realized:
        previous = None
        for turn, r in zip(session.turns, turns, strict=True):
            evidence = ReplyEvidence(
                r.reply, guidance_id=r.guidance_id, snapshot_turn=r.snapshot_turn, tools=r.tools
            )
            verdict = check_turn(PACK, turn, evidence, previous, r.seen_state, session.session_id)
            failures += [
                (r.reply, f.rule, f.evidence)
                for f in verdict.failures
                if f.rule in GROUNDING_RULES | {"stale_evidence", "no_reply"}
            ]
            previous = evidence
    assert failures == []


def test_every_recommended_creature_is_owned(realized: list[tuple[Any, list[Any]]]) -> None:
    from voicecoach.state import load_state

    checked = 0
    for session, turns in realized:
        for turn, r in zip(session.turns, turns, strict=True):
            inv = load_state(r.seen_state or turn.state).fs.inventory
            for claim in read_reply(PACK, r.reply):
                if claim.kind == "creature" and claim.role == "recommended" and not claim.negated:
                    checked += 1
                    assert inv is not None and inv.owns(claim.entity), r.reply
    assert checked > 50  # the test reads real recommendations, not an empty set


def test_roles_and_styles_are_pack_data(tmp_path: Path) -> None:
    folder = tmp_path / "pet_arena"
    shutil.copytree(PACKS_DIR / "pet_arena", folder)
    path = folder / "vocabulary.json"
    data = json.loads(path.read_text())
    data["styles"]["aggressive"]["roles"].append("berserker")
    path.write_text(json.dumps(data))
    with pytest.raises(
        PackError, match=r"vocabulary\.json: entry 'styles/aggressive': unknown role 'berserker'"
    ):
        load_pack_from(folder)
    del data["styles"]["tempo"]
    data["styles"]["aggressive"]["roles"].remove("berserker")
    path.write_text(json.dumps(data))
    with pytest.raises(PackError, match=r"lineups\.json: entry 'T4': unknown style 'tempo'"):
        load_pack_from(folder)
