"""The classic answer dispatch: pet_arena's answers, keyed by its pair, tool and result names.

`_answer(t)` adds the line that answers the turn's question, from the tool results of the turn's
Φ pair. It dispatches on pet_arena's pair names (`skill/best`, `element/matchup`, ...), its tool
names (`find_counters`, `suggest_lineup`, `list_lineups`, `score_lineup`, ...) and reads their
result shapes. The realizer uses it for a Φ entry without an `answer` (every pet_arena entry); a
pack that writes `answer` steps is answered by the generic recipes (`voicecoach.talker.recipes`) instead.
Moved here verbatim from `voicecoach.talker.realizer` (issue 17, WP8): pet's replies stay byte-equal.
"""

from __future__ import annotations

from typing import Any

from voicecoach.core.state import Inventory
from voicecoach.domain.pack import UNHEARD, Creature, Pack, Skill
from voicecoach.grounding.kernel import skill_usable
from voicecoach.grounding.slot_rules import named_roles
from voicecoach.talker.lines import (
    PICK_KEYS,
    _article,
    _best_counter,
    _foes,
    _name,
    _pick_meanwhile,
    _power,
    _rotate,
    _Turn,
    spoken_list,
)
from voicecoach.talker.recipes import gate_text
from voicecoach.tools.registry import multiplier, unlock_text


def _usable_skills(pack: Pack, inv: Inventory, creature: Creature) -> list[Skill]:
    return [pack.skills[s] for s in creature.skills if skill_usable(inv, creature, pack.skills[s])]


def _stage_gains(pack: Pack, creature: Creature, stage: int) -> list[str]:
    """Skill names that unlock at evolution stage `stage`."""
    return [
        pack.skills[s].name
        for s in creature.skills
        if (u := pack.skills[s].unlock) is not None and u.min_stage == stage
    ]


def _counter_line(t: _Turn, foes: list[str], kind: str = "counter") -> None:
    """Name the best owned counter to `foes`, from find_counters' ranking (or the roster's)."""
    pack = t.pack
    ranked = [c["id"] for c in t.results.get("find_counters", {}).get("counters", [])]
    if t.inventory is not None:
        rest = sorted(
            (o.creature_id for o in t.inventory.owned if o.creature_id not in ranked),
            key=lambda cid: (-_power(pack, t.inventory, cid), cid),  # type: ignore[arg-type]
        )
        ranked += rest
    ranked = t.fresh_first(ranked)
    best = _best_counter(t, foes, ranked)
    if best is not None:
        cid, foe = best
        lineup = t.state.ic.match.player_lineup if t.state.ic.match else []
        if kind == "swap":
            kind = "keep_in" if cid in lineup else "swap_in"
        t.add(
            "guidance",
            kind,
            "answer",
            [cid, foe],
            creature=_name(pack, cid),
            foe=_name(pack, foe),
            element=pack.creatures[cid].element,
            foe_element=pack.creatures[foe].element,
        )
        return
    # No double damage anywhere: the one that takes the least from them.
    taken = {c["id"]: c["damage_taken"] for c in t.results.get("find_counters", {}).get("counters", [])}
    usable = [cid for cid in ranked if t.usable(cid)]
    safest = min(usable, key=lambda cid: (taken.get(cid, 99.0), usable.index(cid)), default=None)
    if safest is not None and foes:
        t.add(
            "guidance",
            "counter_none",
            "answer",
            [safest, *foes],  # nothing hits any of them: the per-foe accounts would only repeat it
            creature=_name(pack, safest),
            foe=_name(pack, foes[0]),
        )


# --- the answer to the question (the guidance paragraph) -------------------------------------------


def _answer(t: _Turn) -> None:
    """The sentence that answers the question, from the tool results of the turn's Φ pair."""
    pack, sub, r = t.pack, t.sub_intent, t.results
    if t.why and _why(t):
        return
    pair = "/".join(UNHEARD) if t.unheard else f"{t.intent}/{sub}"
    focus = t.mentioned[0] if t.mentioned else None
    creature = r.get("get_creature") or r.get("evolution_path")
    if creature is not None:
        focus = creature["id"]

    if pair == "skill/best" and focus is not None:
        _best_skill(t, focus)
        return
    if pair in pack.templates.answers:
        # The pack's first wording is the answer; asked again, the next one no recent reply said.
        variants = pack.templates.answers[pair]
        fresh = next((i for i, v in enumerate(variants) if not any(v in r for r in t.recent)), 0)
        t.add("guidance", f"answer:{pair}", "answer", variant=fresh)
        return
    about_creature = t.intent == "creature" or (t.intent == "lineup" and sub == "build_around")
    if focus is not None and about_creature:
        _creature_answer(t, focus)
        return
    if "explain_skill" in r:
        _skill_answer(t, r["explain_skill"])
        return
    if t.intent == "element" and sub == "matchup" and focus is not None:
        _matchup_answer(t, focus)
        return
    if sub == "saved":
        _saved(t)
        return
    if "find_counters" in r and _foes(t):
        _counter_line(t, _foes(t), "swap" if sub == "swap" else "counter")
        return
    if "suggest_lineup" in r or (t.intent == "inventory" and "get_inventory" in r):
        _team_answer(t)
        return
    if "list_lineups" in r:
        _lineups_answer(t)
        return
    if "score_lineup" in r:
        _score_answer(t, r["score_lineup"])
        return
    if "get_match_state" in r:
        m = r["get_match_state"]
        t.add(
            "guidance",
            "match_score",
            "answer",
            score_player=m["score"]["player"],
            score_opponent=m["score"]["opponent"],
            round=m["round"],
            rounds=m["rounds_total"],
        )
        return
    if "get_inventory" in r:
        _inventory_list(t)


def _creature_info(t: _Turn, c: Creature, name: str) -> None:
    role = t.pack.vocabulary.roles[c.role]
    t.add("guidance", "creature_info", "answer", creature=name, rarity=_article(c.rarity),
          element=c.element, role=c.role, role_summary=role.summary)  # fmt: skip


def _creature_answer(t: _Turn, cid: str) -> None:
    pack, sub = t.pack, t.sub_intent
    c = pack.creatures[cid]
    owned = t.inventory.get(cid) if t.inventory is not None else None
    name = c.name
    if t.inventory is None:
        return  # the unavailable line says why
    if sub == "owned" or (
        owned is None and sub in ("worth_it", "evolve", "skills", "build_around", "best_lineup")
    ):
        if owned is not None:
            t.add(
                "guidance", "owned_yes", "answer", [cid], creature=name, stage=owned.stage, level=owned.level
            )
        elif sub == "evolve":
            t.add("guidance", "evolve_unowned", "answer", [cid], creature=name, stage_name=c.stages[0])
        else:
            t.add("guidance", "owned_no", "answer", [cid], creature=name)
        if owned is None and sub == "worth_it":
            _creature_info(t, c, name)  # catalog facts help them decide whether to get one
        elif owned is None and sub == "skills":
            skills = spoken_list([pack.skills[s].name for s in c.skills])
            t.add("guidance", "creature_skills", "answer", creature=name, skills=skills)
        if owned is None and sub in ("build_around", "best_lineup"):
            _lineup_for(t, cid)
            if not any(line.key in PICK_KEYS for line in t.lines):
                _pick_meanwhile(t)
        if owned is None or sub == "owned":
            return
    if sub == "info":
        _creature_info(t, c, name)
        if owned is not None:
            t.add(
                "guidance", "owned_yes", "answer", [cid], creature=name, stage=owned.stage, level=owned.level
            )
        else:
            t.add("guidance", "owned_no", "answer", [cid], creature=name)
    elif sub == "best_role":
        role = pack.vocabulary.roles[c.role]
        t.add("guidance", "creature_role", "answer", creature=name, role=c.role, role_summary=role.summary)
    elif sub == "skills" and owned is not None:
        usable = [s.name for s in _usable_skills(pack, t.inventory, c)]
        t.add("guidance", "creature_skills_owned", "answer", [cid], creature=name, skills=spoken_list(usable))
        locked = [
            pack.skills[s] for s in c.skills if s not in {u.id for u in _usable_skills(pack, t.inventory, c)}
        ]
        if locked:
            s = locked[0]
            t.add(
                "constraint_account",
                "option_locked",
                "answer",
                [s.id],
                skill=s.name,
                creature=name,
                unlock=gate_text(pack, "skill", s.id),
            )
    elif sub in ("evolve", "worth_it") and owned is not None:
        if owned.stage >= len(c.stages):
            kind = "evolve_full" if sub == "evolve" else "worth_full"
            t.add("guidance", kind, "answer", [cid], creature=name, stage_name=c.stages[-1])
            return
        gains = _stage_gains(pack, c, owned.stage + 1)
        nxt, now = c.stages[owned.stage], c.stages[owned.stage - 1]
        if sub == "worth_it" and gains:
            # The species is often named after a later stage: "evolving Emberfox into Emberfox".
            t.add(
                "guidance",
                "worth_yes_stage" if nxt == name else "worth_yes",
                "answer",
                [cid],
                creature=name,
                stage_name=now,
                next_stage=nxt,
                skills=spoken_list(gains),
            )
        elif gains:
            t.add(
                "guidance",
                "evolve_next",
                "answer",
                [cid],
                stage_name=now,
                next_stage=nxt,
                skills=spoken_list(gains),
            )
        else:
            t.add("guidance", "evolve_next_plain", "answer", [cid], stage_name=now, next_stage=nxt)
    elif sub == "counters":
        _counter_line(t, [cid])
    elif sub in ("best_lineup", "build_around"):
        _lineup_for(t, cid)
    elif owned is not None:
        t.add("guidance", "owned_yes", "answer", [cid], creature=name, stage=owned.stage, level=owned.level)


def _best_skill(t: _Turn, cid: str) -> None:
    """The strongest move the player can use on `cid` now, or why there is none."""
    pack, inv = t.pack, t.inventory
    c = pack.creatures[cid]
    if inv is None:
        return
    if not t.owns(cid):
        t.add("guidance", "owned_no", "answer", [cid], creature=c.name)
        return
    usable = sorted(_usable_skills(pack, inv, c), key=lambda s: (-s.power, s.id))
    if usable:
        t.add("guidance", "skill_best", "answer", [usable[0].id, cid], skill=usable[0].name, creature=c.name)


def _lineup_for(t: _Turn, cid: str) -> None:
    pack = t.pack
    holding = [lu for lu in pack.lineups.values() if cid in lu.creatures]
    complete = [lu for lu in holding if all(t.usable(m) for m in lu.creatures)]
    name = _name(pack, cid)
    if complete:
        lu = complete[t.turn_index % len(complete)]
        t.add("guidance", "lineup_for_creature", "answer", [cid], creature=name, lineup=lu.name)
        return
    if t.sub_intent == "build_around" and t.usable(cid) and t.inventory is not None:
        # Partners of other roles, strongest first.
        me = pack.creatures[cid]
        partners = sorted(
            (
                o.creature_id
                for o in t.inventory.owned
                if o.creature_id != cid
                and t.usable(o.creature_id)
                and pack.creatures[o.creature_id].role != me.role
            ),
            key=lambda p: (-_power(pack, t.inventory, p), p),  # type: ignore[arg-type]
        )
        if partners:
            partner = _rotate(partners[:3], t.turn_index, 1)[0]
            if {cid, partner} <= t.avoid:  # that pair was the last reply's advice
                partner = next((p for p in partners if {cid, p} - t.avoid), partner)
            # A team of three: the third of yet another role if one is owned.
            rest = [p for p in partners if p != partner]
            roles = {me.role, pack.creatures[partner].role}
            third = next((p for p in rest if pack.creatures[p].role not in roles), rest[0] if rest else None)
            team = [partner] if third is None else [partner, third]
            t.add(
                "guidance",
                "build_around",
                "answer",
                [cid, *team],
                creature=name,
                leader=_name(pack, partner),
                creatures=spoken_list([_name(pack, p) for p in team]),
            )
            return
    if holding:
        lu = min(holding, key=lambda lu: (sum(not t.owns(m) for m in lu.creatures), lu.id))
        missing = [_name(pack, m) for m in lu.creatures if not t.owns(m)]
        t.add(
            "guidance",
            "lineup_for_creature_missing",
            "answer",
            creature=name,
            lineup=lu.name,
            missing=spoken_list(missing),
        )


def _skill_answer(t: _Turn, result: dict[str, Any]) -> None:
    pack, sub = t.pack, t.sub_intent
    skill = pack.skills[result["skill"]["id"]]
    learners = [pack.creatures[c["id"]] for c in result["creatures"]]
    focus = next((pack.creatures[c] for c in t.mentioned if skill.id in pack.creatures[c].skills), None)
    inv = t.inventory
    owned_learners = [c for c in learners if t.owns(c.id)]
    usable_on = [c for c in owned_learners if inv is not None and skill_usable(inv, c, skill)]
    owner = focus if focus is not None else next(iter(usable_on or owned_learners), None)
    unlock = unlock_text(skill.unlock)

    def availability(as_answer: bool) -> None:
        if owner is not None and owner in usable_on:
            kind = "skill_usable" if as_answer else "option"
            t.add(
                "guidance" if as_answer else "praise",
                kind,
                "answer",
                [skill.id, owner.id],
                skill=skill.name,
                creature=owner.name,
            )
        elif owner is not None and t.owns(owner.id):
            kind = ("skill_unlock_how" if t.asks_how else "skill_not_yet") if as_answer else "option_locked"
            t.add(
                "guidance" if as_answer else "constraint_account",
                kind,
                "answer",
                [skill.id, owner.id],
                skill=skill.name,
                creature=owner.name,
                unlock=unlock if as_answer else gate_text(pack, "skill", skill.id),
            )
        elif owner is not None and t.mentioned and owner.id == t.mentioned[0]:
            t.add(
                "constraint_account",
                "option_unowned",
                "answer",
                [skill.id, owner.id],
                skill=skill.name,
                creature=owner.name,
            )
        elif learners:
            t.add(
                "constraint_account",
                "option_unowned",
                "answer",
                [skill.id, learners[0].id],
                skill=skill.name,
                creature=learners[0].name,
            )

    if t.mentioned and focus is None and t.mentioned[0] in pack.creatures and sub == "unlock":
        t.add(
            "constraint_account",
            "option_unlearnable",
            "answer",
            [skill.id],
            creature=_name(pack, t.mentioned[0]),
            skill=skill.name,
        )
        return
    if sub == "unlock":
        availability(as_answer=True)
        return
    if sub == "counter":
        usable = bool(usable_on)
        foes = _foes(t)
        weak = [f for f in foes if multiplier(pack, skill.element, pack.creatures[f].element) > 1]
        if not usable:
            availability(as_answer=False)
        elif weak:
            t.add("guidance", "skill_hits", "answer", [skill.id], skill=skill.name, foe=_name(pack, weak[0]))
        else:
            t.add(
                "guidance", "skill_no_targets", "answer", [skill.id], skill=skill.name, element=skill.element
            )
        return
    if sub == "when_to_use" and usable_on:
        covers = [skill.id, *(c.id for c in usable_on)]
        t.add(
            "guidance", f"skill_when_{skill.kind}", "answer", covers, skill=skill.name, element=skill.element
        )
        return
    t.add(
        "guidance",
        "skill_explain",
        "answer",
        skill=skill.name,
        element=skill.element,
        kind=_article(skill.kind),
        description=skill.description,
    )
    availability(as_answer=False)


def _matchup_answer(t: _Turn, cid: str) -> None:
    pack = t.pack
    element = pack.creatures[cid].element
    match = t.state.ic.match
    others = (
        [c for c in t.mentioned[1:] if c != cid]
        or [f for f in _foes(t) if f != cid]
        or [f for f in (match.opponent_lineup if match else []) if f != cid]
    )
    if not others:
        # No one to match it against: what its element hits hard is the catalog's answer.
        weak = [d for d in pack.elements.elements if multiplier(pack, element, d) > 1]
        t.add(
            "guidance",
            "element_hits",
            "answer",
            creature=_name(pack, cid),
            element=element,
            elements=spoken_list(weak),
        )
        return
    # Against a lineup, the foe it does best against is the useful fact.
    foe = max(others, key=lambda f: multiplier(pack, element, pack.creatures[f].element))
    mult = multiplier(pack, element, pack.creatures[foe].element)
    status = {2.0: "double", 1.0: "normal", 0.5: "half"}.get(mult, f"{mult:g} times")
    t.add(
        "guidance", "matchup", "answer", [cid], creature=_name(pack, cid), foe=_name(pack, foe), status=status
    )


def _why(t: _Turn) -> bool:
    """The reason for the previous reply's pick ("why that one?"), not another pick: the score of
    the team it named, or the foe its pick hits hardest. False when there is no reason to give."""
    pack = t.pack
    suggested = t.results.get("suggest_lineup", {})
    if "score" in suggested and {c["id"] for c in suggested.get("creatures", [])} == set(t.why):
        t.add("guidance", "why_team", "answer", score=suggested["score"])
        return True
    match = t.state.ic.match
    foes = t.opponents or (match.opponent_lineup if match else [])
    for cid in dict.fromkeys(t.why):
        creature = pack.creatures.get(cid)
        if creature is None or not foes:
            continue
        foe = max(foes, key=lambda f: multiplier(pack, creature.element, pack.creatures[f].element))
        mult = multiplier(pack, creature.element, pack.creatures[foe].element)
        if mult > 1.0:
            t.add(
                "guidance",
                "why_counter",
                "answer",
                [cid],
                creature=creature.name,
                foe=_name(pack, foe),
                element=creature.element,
                foe_element=pack.creatures[foe].element,
                status={2.0: "double"}.get(mult, f"{mult:g} times the"),
            )
            return True
    return False


def _team_answer(t: _Turn) -> None:
    pack, sub, r = t.pack, t.sub_intent, t.results
    inv = t.inventory
    if inv is None:
        return
    if not inv.owned:
        t.add("guidance", "inventory_empty", "answer")
        return
    suggested = [c["id"] for c in r.get("suggest_lineup", {}).get("creatures", [])]
    team = [c for c in suggested if t.usable(c)]
    roster = sorted(
        (o.creature_id for o in inv.owned if t.usable(o.creature_id)),
        key=lambda c: (-_power(pack, inv, c), c),
    )
    if sub == "strongest" and roster and t.alternative and roster[0] in t.avoid:
        other = next((c for c in roster if c not in t.avoid), None)
        if other is not None:
            t.add("guidance", "other_pick", "answer", [other], creature=_name(pack, other))
            return
    if sub == "strongest" and roster:
        # "Who's my best striker?": the strongest of that role, or that none is owned.
        roles = named_roles(pack, t.utterance)  # read here, not on every turn: ~0.4 ms
        of_role = [c for c in roster if pack.creatures[c].role in roles]
        best = of_role[0] if of_role else roster[0]
        o = inv.get(best)
        key = "strongest" if not roles else "strongest_role" if of_role else "strongest_role_none"
        t.add(
            "guidance",
            key,
            "answer",
            [best],
            creature=_name(pack, best),
            stage=o.stage if o else 1,
            role=roles[0] if roles and not of_role else pack.creatures[best].role,
        )
        return
    if sub in ("upgrade_priority", "evolve_next"):
        pool = [c for c in (team or roster) if (o := inv.get(c)) and o.stage < len(pack.creatures[c].stages)]
        if t.alternative and any(c not in t.avoid for c in pool):
            pool = [c for c in pool if c not in t.avoid]
        if sub == "evolve_next" and pool:
            cid = max(pool, key=lambda c: (pack.creatures[c].base_power, c))
            o = inv.get(cid)
            stage = o.stage if o else 1
            c = pack.creatures[cid]
            gains = _stage_gains(pack, c, stage + 1)
            kind = "evolve_next" if gains else "evolve_next_plain"
            t.add(
                "guidance",
                kind,
                "answer",
                [cid],
                stage_name=c.stages[stage - 1],
                next_stage=c.stages[stage],
                skills=spoken_list(gains),
            )
            return
        if pool:
            t.add("guidance", "train_first", "answer", [pool[0]], creature=_name(pack, pool[0]))
            return
    if sub == "list" or (t.intent == "inventory" and not team):
        _inventory_list(t)
        return
    if sub == "saved":
        _saved(t)
        return
    if sub == "fill_slot":
        lineup = t.state.ic.match.player_lineup if t.state.ic.match else []
        pick = next((c for c in t.fresh_first(team + roster) if c not in lineup), None)
        if pick is not None:
            t.add("guidance", "fill_slot", "answer", [pick], creature=_name(pack, pick))
        return
    if len(team) < 3:
        # Excluded members leave the suggestion: fill it back up from the strongest of the rest.
        team = (team + [c for c in roster if c not in team])[:3]
    style = r.get("suggest_lineup", {}).get("style", "any")
    kind = "team_style" if style in pack.vocabulary.styles else "team"
    spare = [c for c in roster if c not in team]
    if len(team) >= 3 and set(team) <= t.avoid and spare:
        # Not the set the previous reply recommended (repeated guidance): its last member gives way
        # to the strongest creature left out.
        team = team[:-1] + spare[:1]
    if len(team) >= 3 and not set(team) <= t.avoid:
        # The whole team, as the player will field it.
        t.add(
            "guidance",
            kind,
            "answer",
            team,
            leader=_name(pack, team[0]),
            creatures=spoken_list([_name(pack, c) for c in team]),
            style=style,
        )
        if set(team) == set(suggested) and "score" in r.get("suggest_lineup", {}):
            t.add("guidance", "team_score", "praise", score=r["suggest_lineup"]["score"])
        return
    pairs = [tuple(_rotate(team, t.turn_index + k, 2)) for k in range(len(team))] if len(team) >= 2 else []
    # Not the pair the previous reply recommended (repeated guidance), nor, when the player asks for
    # another option, one made only of its picks.
    fresh = [p for p in pairs if not set(p) <= t.avoid] if t.avoid else pairs
    if len(team) == 2 and (t.turn_index % 2 or not fresh):
        # Only two to choose from: every other turn (or after that pair) name the lead alone.
        lead = t.fresh_first(team)[0]
        t.add("guidance", "team_lead", "answer", [lead], leader=_name(pack, lead))
    elif len(team) >= 2:
        # Two of the team, rotating with the turn: the coach does not repeat one pair turn after turn.
        lead, partner = (fresh or pairs)[0]
        t.add(
            "guidance",
            f"{kind}_pair",
            "answer",
            [lead, partner],
            leader=_name(pack, lead),
            creature=_name(pack, partner),
            style=style,
        )
        if set(team) == set(suggested) and "score" in r.get("suggest_lineup", {}):
            t.add("guidance", "team_score", "praise", score=r["suggest_lineup"]["score"])
    elif team:
        t.add("guidance", "fill_slot", "answer", [team[0]], creature=_name(pack, team[0]))


def _inventory_list(t: _Turn) -> None:
    inv = t.inventory
    if inv is None:
        return
    if not inv.owned:
        t.add("guidance", "inventory_empty", "answer")
        return
    ids = sorted(o.creature_id for o in inv.owned)
    # A creature the player keeps out is not offered again in a listing (the excludes line says so).
    shown = [c for c in ids if c not in t.excluded and c not in t.unsure] or ids
    some = _rotate(t.fresh_first(shown) if t.alternative else shown, 0 if t.alternative else t.turn_index, 3)
    t.add(
        "guidance",
        "inventory_list",
        "answer",
        some,
        count=len(ids),
        creatures=spoken_list([_name(t.pack, c) for c in some]),
    )


def _saved(t: _Turn) -> None:
    inv = t.inventory
    if inv is None:
        return
    for name in sorted(inv.saved_lineups):
        members = inv.saved_lineups[name]
        if members and all(t.owns(c) and c in t.pack.creatures for c in members):
            shown = [_name(t.pack, c) for c in members]
            t.add("guidance", "saved", "answer", members, lineup=name, creatures=spoken_list(shown))
            return
    t.add("guidance", "saved_none", "answer")


def _lineups_answer(t: _Turn) -> None:
    pack = t.pack
    lineups = t.results["list_lineups"]["lineups"]
    named = [lu for lid in t.lineups for lu in lineups if lu["id"] == lid]
    if t.sub_intent == "compare" and len(named) >= 2:
        _compare_lineups(t, named[0], named[1])
        return
    fieldable = [lu["id"] for lu in lineups if all(t.usable(c) for c in lu["creatures"])]
    closest = min(lineups, key=lambda lu: (len(lu["missing"]) or 99, lu["id"]), default=None)
    missing = [_name(pack, c) for c in closest["missing"]] if closest else []
    if t.sub_intent == "missing":
        incomplete = [lu for lu in lineups if lu["missing"]]
        if incomplete and closest is not None and missing:
            t.add(
                "guidance",
                "lineups_missing",
                "answer",
                count=len(incomplete),
                lineup=closest["name"],
                missing=spoken_list(missing),
            )
            return
    # A lineup the last reply recommended is not recommended again (repeated guidance).
    fresh = [lid for lid in fieldable if lid not in t.avoid]
    # The pack knows its lineups, not live rankings: a meta question is told so first.
    meta = "_meta" if t.intent == "meta" else ""
    if fresh:
        lid = fresh[t.turn_index % len(fresh)]
        t.add("guidance", f"lineups_field{meta}", "answer", [lid], lineup=pack.lineups[lid].name)
    elif closest is not None and missing and not fieldable:
        t.add(
            "guidance", f"lineups_none{meta}", "answer", lineup=closest["name"], missing=spoken_list(missing)
        )
    if "score_lineup" in t.results:
        _score_answer(t, t.results["score_lineup"])


def _compare_lineups(t: _Turn, a: dict[str, Any], b: dict[str, Any]) -> None:
    """Two named pack lineups side by side: which the player's roster fields better (the pack has
    no win rates, so the comparison is what they own of each), and their styles."""
    even = a["owned_count"] == b["owned_count"]
    best, other = (a, b) if even or a["owned_count"] > b["owned_count"] else (b, a)
    t.add(
        "guidance",
        "lineups_compare_even" if even else "lineups_compare",
        "answer",
        [a["id"], b["id"]] if even else [best["id"]],
        lineup=best["name"],
        style=best["style"],
        count=best["owned_count"],
        size=len(best["creatures"]),
        other_lineup=other["name"],
        other_style=other["style"],
        other_count=other["owned_count"],
        other_size=len(other["creatures"]),
    )


_BREAKDOWN_WORDS = {
    "power": "raw power",
    "role_coverage": "role coverage",
    "element_coverage": "element coverage",
    "counter_advantage": "the matchup",
}
_BREAKDOWN_MAX = {"power": 40.0, "role_coverage": 20.0, "element_coverage": 20.0, "counter_advantage": 20.0}


def _score_answer(t: _Turn, result: dict[str, Any]) -> None:
    pack = t.pack
    missing = [c for c in result.get("not_owned", []) if c in pack.creatures]
    if missing:
        names = spoken_list([_name(pack, c) for c in missing])
        t.add("guidance", "rate_missing", "answer", missing, missing=names)
    breakdown = result.get("breakdown", {})
    if t.intent == "element" and t.sub_intent == "coverage":
        team = [c["id"] for c in result.get("creatures", [])]
        elements = {pack.creatures[c].element for c in team}
        covered = [d for d in pack.elements.elements if any(multiplier(pack, a, d) > 1 for a in elements)]
        missed = [d for d in pack.elements.elements if d not in covered]
        size = len(pack.elements.elements)
        # Three names at most per side: a longer list is not heard, a count says the rest.
        hit = spoken_list(covered) if len(covered) <= 3 else f"{len(covered)} of the {size} elements"
        some = ", ".join(missed[:2])
        gaps = spoken_list(missed) if len(missed) <= 3 else f"{some} and {len(missed) - 2} more"
        if not missed:
            t.add("guidance", "coverage_full", "answer", size=size)
        elif not covered:
            t.add("guidance", "coverage_none", "answer", elements=spoken_list(sorted(elements)), missed=gaps)
        else:
            t.add("guidance", "coverage", "answer", elements=hit, missed=gaps)
        return
    if result.get("opponent"):
        # A plan for the match names who to play: the best owned counter to their side, said first.
        if not any(line.key in ("counter", "counter_none") for line in t.lines):
            _counter_line(t, _foes(t) or list(result.get("opponent", [])))
        counter = breakdown.get("counter_advantage", 10.0)
        status = (
            "you have the edge"
            if counter > 11
            else "they have the edge"
            if counter < 9
            else "it's about even"
        )
        t.add("guidance", "team_edge", "answer", status=status, score=result.get("score"))
        return
    weakest = (
        min(breakdown, key=lambda k: (breakdown[k] / _BREAKDOWN_MAX.get(k, 20.0), k)) if breakdown else None
    )
    # The player's own lineup, or a team they named ("how strong are A, B and C").
    team = [c["id"] for c in result.get("creatures", []) if c["id"] in pack.creatures]
    mine = t.state.ic.match is not None and team == list(t.state.ic.match.player_lineup)
    # The team is named, so the player hears which team was rated (only members they own when it is
    # their lineup: the rating credits them).
    shown = [c for c in team if t.owns(c)] if mine else team
    if mine and len(shown) >= 2 and set(shown) <= t.avoid:
        # The last reply named this team already: naming it again reads as the same advice twice.
        t.add(
            "guidance",
            "team_eval_lead",
            "answer",
            score=result.get("score"),
            weakest=_BREAKDOWN_WORDS.get(weakest or ""),
            creature=_name(pack, shown[0]),
        )
        return
    t.add(
        "guidance",
        "team_eval" if mine else "rate_eval",
        "answer",
        score=result.get("score"),
        weakest=_BREAKDOWN_WORDS.get(weakest or ""),
        creatures=spoken_list([_name(pack, c) for c in shown]),
    )
