"""CoachBench's grounding rules (paper G.3) on hand-written good and bad replies, rule by rule.

These tests judge the grounded component (`verdict.grounded`, the grounding rule ids); speakable
and responsive rules have their own tests (tests/talker/test_checker.py, tests/talker/test_responsive.py).

The state is the shared test state (tests/conftest.py): the player owns Emberfox (stage 2, so
Inferno Roar is locked), Galehawk, Granitusk, Hexmoth, Lumifawn, Oakhorn, Sparkwing and Tidefang,
and faces Briarcat, Shellbastion and Voltail. Pyrowl and Kindlemoth are not owned.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.conftest import STATE
from voicecoach.bench.coachbench.checker import (
    ReplyEvidence,
    TurnVerdict,
    check_session,
    check_turn,
    read_reply,
)
from voicecoach.bench.coachbench.generator import BenchSession, BenchTurn, Eligibility, build_reference
from voicecoach.domain.pack import Pack
from voicecoach.talker.rules import GROUNDING_RULES


def snapshot(turn_index: int = 0, extra_owned: tuple[str, ...] = ()) -> dict[str, Any]:
    state = copy.deepcopy(STATE)
    state["turn_index"] = turn_index
    for cid in extra_owned:
        state["fs"]["inventory"]["owned"].append(
            {"creature_id": cid, "stage": 2, "level": 15, "unlocked_skills": []}
        )
    return state


def turn(
    pack: Pack,
    utterance: str = "what should i field against their team",
    pair: str = "lineup/counter",
    *,
    state: dict[str, Any] | None = None,
    index: int = 0,
    excluded: tuple[str, ...] = (),
    push: str = "snapshot",
) -> BenchTurn:
    state = state or snapshot(index)
    return BenchTurn(
        turn_index=index,
        utterance=utterance,
        push=push,  # type: ignore[arg-type]
        state=state,
        reference=build_reference(pack, state, pair, utterance, list(excluded), no_repeat=False),
    )


def check(pack: Pack, reply: str, t: BenchTurn | None = None, **kw: Any) -> TurnVerdict:
    return check_turn(pack, t or turn(pack), ReplyEvidence(reply=reply, **kw))


def rules(verdict: TurnVerdict) -> set[str]:
    """The grounding rules a verdict fails (speakable / responsive failures are judged elsewhere)."""
    return {f.rule for f in verdict.failures} & (GROUNDING_RULES | {"no_reply"})


# --- (a) recommending or crediting what the player cannot use ---------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        "Use Pyrowl against them.",
        "Your Pyrowl is ready for this one.",
        "Bring Emberfox, Hexmoth and Pyrowl.",
        "Pyrowl is a great pick here.",
        "Use Inferno Roar to burn their front line.",
        "Hit them with Emberfox's Inferno Roar.",
        "Try the Wildfire Rush lineup (aggressive style).",
    ],
)
def test_unavailable_entity_fails(pack: Pack, reply: str) -> None:
    verdict = check(pack, reply)
    assert not verdict.passed
    assert "unavailable_entity" in rules(verdict)
    assert verdict.drifts == ["B"]


@pytest.mark.parametrize(
    "reply",
    [
        "You don't own Pyrowl, so lead with Emberfox.",
        "Inferno Roar isn't unlocked yet; it unlocks at stage 3, so use Flame Burst for now.",
        "Emberfox doesn't have Inferno Roar yet, unlock it first.",
        "Use Emberfox against Voltail and Briarcat.",
        "Galehawk beats Briarcat, and Tidefang handles Shellbastion.",
        "Pick Emberfox over Pyrowl.",
        "Wildfire Rush needs Pyrowl and Kindlemoth, which you would need to get first.",
        "Sorry, I lost the thread there. Could you ask me that again?",
        "Emberfox just evolved, can it use Inferno Roar now?",
    ],
)
def test_grounded_replies_pass(pack: Pack, reply: str) -> None:
    verdict = check(pack, reply)
    assert verdict.grounded and verdict.grounded_only, verdict.failures


@pytest.mark.parametrize(
    "reply",
    [
        "You must not: Do not apologise for or call missing Emberfox: the player owns it.",
        "You must not apologize for or call missing Emberfox:",  # echoed in sgc_full replies, full run
    ],
)
def test_echoed_instructions_claim_nothing_but_are_not_speakable(pack: Pack, reply: str) -> None:
    verdict = check(pack, reply)
    assert verdict.grounded, verdict.failures
    assert not verdict.speakable and not verdict.passed
    assert "prompt_echo" in {f.rule for f in verdict.failures}


def test_describing_an_entity_the_player_asked_about_is_not_a_recommendation(pack: Pack) -> None:
    asked = turn(pack, "tell me about pyrowl", "creature/info")
    assert check(pack, "Pyrowl is a great fire striker with strong attacks.", asked).grounded
    # ...but steering them to use it still is.
    assert "unavailable_entity" in rules(check(pack, "Field Pyrowl next round.", asked))


# --- (b) calling missing what the player has ----------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        "Sorry, you don't have Emberfox.",
        "Hexmoth is missing from your roster.",
        "Flame Burst is locked for you right now.",
        "If you had Galehawk this would be easy.",
    ],
)
def test_false_missing_fails(pack: Pack, reply: str) -> None:
    verdict = check(pack, reply)
    assert rules(verdict) == {"false_missing"}
    assert verdict.drifts == ["B"]


# --- (c) affirming and denying the same entity ----------------------------------------------------


def test_self_contradiction_fails_and_is_coherence_drift(pack: Pack) -> None:
    verdict = check(pack, "Lead with Emberfox, but you don't own Emberfox.")
    assert "self_contradiction" in rules(verdict)
    assert "D" in verdict.drifts
    unowned = check(pack, "Use Pyrowl. You don't have Pyrowl though.")
    assert rules(unowned) == {"unavailable_entity", "self_contradiction"}


def test_praise_of_one_and_denial_of_another_is_not_a_contradiction(pack: Pack) -> None:
    assert check(pack, "Lead with Emberfox, and you don't own Pyrowl, so skip it.").grounded


# --- (d) repeating the previous turn's guidance ------------------------------------------------------


def test_repeated_lineup_fails_as_fatigue(pack: Pack) -> None:
    owns_t1 = snapshot(1, extra_owned=("pyrowl", "kindlemoth"))
    t = turn(pack, "something else", "lineup/build", state=owns_t1, index=1)
    previous = ReplyEvidence(reply="Try the Wildfire Rush lineup.")
    again = check_turn(pack, t, ReplyEvidence(reply="Run Wildfire Rush, it's your best team."), previous)
    assert rules(again) == {"repeated_guidance"}
    assert again.drifts == ["C"]
    other = check_turn(pack, t, ReplyEvidence(reply="Go with Oakhorn, Granitusk and Lumifawn."), previous)
    assert other.grounded


def test_same_creature_set_or_same_guidance_id_fails(pack: Pack) -> None:
    t = turn(pack, "any other ideas", "lineup/build", index=1, state=snapshot(1))
    before = ReplyEvidence(reply="Use Emberfox, Hexmoth and Galehawk.", guidance_id="rec_counter_opponent")
    same_set = check_turn(pack, t, ReplyEvidence(reply="Go with Galehawk, Emberfox and Hexmoth."), before)
    assert rules(same_set) == {"repeated_guidance"}
    same_id = ReplyEvidence(reply="Keep practising your combos.", guidance_id="rec_counter_opponent")
    assert rules(check_turn(pack, t, same_id, before)) == {"repeated_guidance"}
    fresh = ReplyEvidence(reply="Go with Oakhorn and Sparkwing.", guidance_id="rec_evolve_first")
    assert check_turn(pack, t, fresh, before).grounded


# --- (e) resting on a stale snapshot -------------------------------------------------------------------


def test_stale_snapshot_claims_fail_unless_flagged(pack: Pack) -> None:
    t = turn(pack, index=3, state=snapshot(3), push="late")
    stale = check(pack, "Use Emberfox.", t, snapshot_turn=2, tools=("find_counters",))
    assert rules(stale) == {"stale_evidence"}
    assert stale.drifts == ["A"]
    assert "turn 2" in stale.failures[0].evidence
    tools = ("find_counters",)
    assert check(pack, "From the last update I saw, use Emberfox.", t, snapshot_turn=2, tools=tools).grounded
    assert check(pack, "Use Emberfox.", t, snapshot_turn=3, tools=tools).grounded
    # No tool result to rest on: a right claim passes; a wrong one fails (a) or (b) instead.
    assert check(pack, "Use Emberfox.", t, snapshot_turn=2).grounded


def test_latency_attribution_when_the_stale_snapshot_made_the_claim_true(pack: Pack) -> None:
    had_pyrowl = snapshot(0, extra_owned=("pyrowl",))
    traded = snapshot(1)  # Pyrowl was traded away; the coach still saw turn 0's snapshot
    session = BenchSession(
        session_id="late-1",
        stratum="cross_turn",
        length_class="short",
        eligibility=Eligibility(dgp=False, ccc=True),
        diagnostic_drift_tags=["A", "B"],
        w3_seed=1,
        turns=[
            turn(pack, "what team should i run", "lineup/build", state=had_pyrowl, index=0),
            turn(
                pack, "i traded away pyrowl, who do i run", "lineup/build", state=traded, index=1, push="late"
            ),
        ],
    )
    replies = [ReplyEvidence(reply="Go with Oakhorn and Sparkwing."), ReplyEvidence(reply="Bring Pyrowl.")]
    verdicts = check_session(pack, session, replies)
    assert verdicts[0].grounded
    grounding = [(f.rule, f.drift) for f in verdicts[1].failures if f.rule in GROUNDING_RULES]
    assert grounding == [("unavailable_entity", "A")]


# --- (f) excluded entities, and no reply ------------------------------------------------------------------


def test_excluded_creature_recommended_fails(pack: Pack) -> None:
    t = turn(pack, "build me a team but leave emberfox out", "lineup/build", excluded=("emberfox",))
    assert rules(check(pack, "Bring Emberfox and Hexmoth.", t)) == {"excluded_entity"}
    assert check(pack, "Bring Hexmoth and Galehawk, no Emberfox.", t).grounded


def test_no_reply_fails(pack: Pack) -> None:
    assert rules(check(pack, "", completed=False)) == {"no_reply"}


def test_reading_roles_and_polarity(pack: Pack) -> None:
    claims = {c.entity: c for c in read_reply(pack, "Use Emberfox against Voltail, but Pyrowl isn't yours.")}
    assert claims["emberfox"].role == "recommended" and not claims["emberfox"].negated
    assert claims["voltail"].role == "opponent"
    assert claims["pyrowl"].negated
