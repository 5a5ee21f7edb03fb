"""strike_team's Φ answer steps (phi.json `answer`) against its own tools.json builtins and
templates, and realized from its example state through the generic recipes."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from voicecoach.core.state import LiveState, load_state
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import PACKS_DIR, Pack, pack_problems, read_pack
from voicecoach.perception.phi import bind_args
from voicecoach.talker.conditioning import ToolOutcome
from voicecoach.talker.realizer import realize
from voicecoach.tools.registry import ToolError, run_tool

FOLDER = PACKS_DIR / "strike_team"
# Every tool-using pair is answered by recipes (the tool-less ones by templates.json's answers).
ANSWERED = {
    "hero/info", "hero/owned", "hero/unlock", "hero/role", "hero/counters", "hero/on_map", "hero/worth_it",
    "item/info", "item/unlock", "item/best", "item/equipped", "item/equip", "item/next_unlock",
    "comp/build", "comp/counter", "comp/evaluate", "comp/quota", "comp/swap", "comp/fill_slot", "comp/dive",
    "comp/poke", "comp/brawl", "comp/list", "comp/build_around", "map/picks", "map/info", "enemy/analysis",
    "enemy/threat", "match/score", "match/losing", "progression/next_hero", "progression/level_priority",
    "meta/tier_list",
}  # fmt: skip


@pytest.fixture(scope="module")
def pack() -> Pack:
    return read_pack(FOLDER)


@pytest.fixture(scope="module")
def state() -> LiveState:
    doc: dict[str, Any] = json.loads((FOLDER / "example_state.json").read_text(encoding="utf-8"))
    doc["ic"]["focus"] = {"hero": "brannoc", "item": "dome_projector", "map": "fathom_docks"}
    return load_state(doc)


def _reply(pack: Pack, state: LiveState, pair: str) -> tuple[str, list[ToolOutcome]]:
    entry = next(e for e in pack.phi if f"{e.intent}/{e.sub_intent}" == pair)
    outcomes = []
    for use in entry.tools:
        args = bind_args(use.args, state)
        try:
            outcomes.append(
                ToolOutcome(tool=use.tool, args=args, ok=True, result=run_tool(pack, state, use.tool, args))
            )
        except ToolError as err:
            outcomes.append(ToolOutcome(tool=use.tool, args=args, ok=False, error=str(err)))
    reply = realize(pack, state, None, None, outcomes, "", state.turn_index, entry.intent, entry.sub_intent)
    return reply, outcomes


def test_the_answer_steps_check_against_the_packs_tools_and_templates(pack: Pack) -> None:
    assert {f"{e.intent}/{e.sub_intent}" for e in pack.phi if e.answer} == ANSWERED
    assert [str(p) for p in pack_problems(pack, FOLDER) if "answer[" in str(p)] == []


def test_every_answered_pair_is_answered_from_the_example_state(pack: Pack, state: LiveState) -> None:
    generic = pack.templates.paragraphs["guidance"].generic
    unanswered = set()
    for pair in sorted(ANSWERED):
        reply, outcomes = _reply(pack, state, pair)
        if generic in reply or not all(o.ok for o in outcomes):
            unanswered.add(pair)
    assert unanswered == set()


def test_a_comp_names_only_heroes_the_player_has(pack: Pack, state: LiveState) -> None:
    reply, _ = _reply(pack, state, "comp/build")
    owned = {pack.catalog.display_name(u.id) for u in state.fs.collection.units}  # type: ignore[union-attr]
    heroes = {e.display for e in pack.catalog.entities["hero"].values()}
    team = reply.split(". ")[0]  # the team; what follows reads it against theirs
    named = {h for h in heroes if h in team}
    assert len(named) == 5 and named <= owned, reply


def test_a_locked_item_says_only_the_gate_still_unmet(pack: Pack, state: LiveState) -> None:
    # Dome Projector needs hero level 12 and account level 15; the example's Brannoc is level 13.
    reply, _ = _reply(pack, state, "item/unlock")
    assert "hero level 12" not in reply and "account level 15" in reply, reply


def test_no_template_puts_the_players_pick_on_the_opponents_side(pack: Pack) -> None:
    """A guidance template's {hero} / {heroes} is a hero of the player's: filled with real names, the
    checker must not read one as an opponent's ("Put your games into Elowen" read "into" as a cue)."""
    from string import Formatter

    from voicecoach.talker.claims import read_reply

    # "{item} belongs to {hero}, so it only goes on {hero}": the item's owner, a catalog fact about
    # a hero who may not be the player's ("on" is an opponent cue for the checker: "use X on Y").
    owner_facts = {"equip_locked", "equip_wrong_hero"}
    # ... and lines whose {hero} is the opponent's by design: the one that beats the player's unit.
    owner_facts |= {"swap_worse", "counter_edge", "swap_kept_risk", "item_theirs"}

    ours, foe = ["Elowen", "Renzo"], "Quillon"
    values = {"hero": ours[0], "heroes": f"{ours[0]} and {ours[1]}", "leader": ours[1], "foe": foe,
              "out": "Tamsin", "item": "Heron Rifle", "items": "Heron Rifle", "levels": "2 levels",
              "unlock": "hero level 5", "level": 3, "map": "Fathom Docks"}  # fmt: skip
    opposed = []
    for key, variants in pack.templates.paragraphs["guidance"].templates.items():
        for template in variants:
            fields = {f for _, f, _, _ in Formatter().parse(template) if f}
            if not fields & {"hero", "heroes", "leader"} or not fields <= set(values) | {"status", "reason"}:
                continue
            text = template.format(**values, status="a hard counter to", reason="it wins the fight")
            theirs = {
                c.entity for c in read_reply(pack, text) if c.role == "opponent" and c.kind_role == "unit"
            }
            if theirs - {"quillon", "tamsin"} and key not in owner_facts:
                opposed.append((key, text))
    assert opposed == [], opposed


def test_no_team_template_gives_its_leader_a_role(pack: Pack, state: LiveState) -> None:
    """{leader} is the team's first unit, in quota order (a tank when the team has one): a template
    that says "with {leader} on tank" claims a role the pick may not have ("with Bexley on tank",
    Bexley a support). The team itself is named tank first."""
    comp = pack.catalog.schema.composition
    assert comp is not None and comp.quota is not None
    roles = set(comp.quota.counts)
    said = [
        (key, v)
        for g in pack.templates.paragraphs.values()
        for key, variants in g.templates.items()
        for v in variants
        if "{leader}" in v and any(re.search(rf"\b{r}\b", v) for r in roles)
    ]
    assert said == []
    reply, _ = _reply(pack, state, "comp/build")
    first = next(m.id for m in link_entities(pack, reply) if m.kind == "hero")
    assert pack.catalog.get("hero", first).value(comp.quota.attribute) == next(iter(comp.quota.counts)), reply  # type: ignore[union-attr]
