"""pet-arena's tools: the classic registry, pure functions over the classic catalog files.

`TOOLS` is the ten tools a pack in the classic layout (creatures, skills, lineups, elements; no
schema.json) is served, unchanged since the paper's runs. A pack with its own kinds instantiates
builtin tool kinds instead (`voicecoach.tools.builtin`). Dispatch and validation:
`voicecoach.tools.registry`.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from voicecoach.core.state import Inventory, LiveState, MatchState, OwnedCreature
from voicecoach.domain.pack import Creature, Pack, Skill, UnlockCondition
from voicecoach.tools.base import ToolError, ToolResult, ToolSpec, object_schema

# --- scoring constants ------------------------------------------------------------------

STAGE_BONUS = 0.15  # each evolution stage past the first adds 15% to base power
POWER_CAP = 100.0  # mean effective power that earns the full power component
# Roles and styles are pack data (vocabulary.json): suggest_lineup rewards a style's roles.
STYLE_BONUS = 30.0  # strong enough to beat role diversity: the player asked for this style
SUGGEST_POOL = 12  # suggest_lineup searches all teams among the 12 best single creatures


# --- lookups shared by the tools ----------------------------------------------------------


def _creature(pack: Pack, cid: str) -> Creature:
    try:
        return pack.creatures[cid]
    except KeyError:
        raise ToolError(f"unknown creature {cid!r}") from None


def _skill(pack: Pack, sid: str) -> Skill:
    try:
        return pack.skills[sid]
    except KeyError:
        raise ToolError(f"unknown skill {sid!r}") from None


def _inventory(state: LiveState) -> Inventory:
    if state.fs.inventory is None:
        raise ToolError("the player's inventory is not known yet (state.fs.inventory is missing)")
    return state.fs.inventory


def _match(state: LiveState) -> MatchState:
    if state.ic.match is None:
        raise ToolError("no match in progress (state.ic.match is missing)")
    return state.ic.match


def _ref(item: Creature | Skill) -> dict[str, str]:
    return {"id": item.id, "name": item.name}


def _brief(pack: Pack, cid: str) -> dict[str, str]:
    c = _creature(pack, cid)
    return {"id": c.id, "name": c.name, "element": c.element, "role": c.role}


def unlock_text(cond: UnlockCondition | None) -> str:
    """One spoken-style phrase for an unlock condition."""
    if cond is None:
        return "available from the start"
    parts = []
    if cond.min_stage is not None:
        parts.append(f"evolution stage {cond.min_stage}")
    if cond.min_level is not None:
        parts.append(f"level {cond.min_level}")
    if cond.quest is not None:
        parts.append(f'the quest "{cond.quest}"')
    return "unlocks with " + " and ".join(parts) if parts else "available from the start"


def multiplier(pack: Pack, attacker: str, defender: str) -> float:
    return pack.elements.counters.get(attacker, {}).get(defender, 1.0)


def effective_power(c: Creature, owned: OwnedCreature | None) -> float:
    stage = owned.stage if owned else 1  # a creature the player lacks would start at stage 1
    return c.base_power * (1 + STAGE_BONUS * (stage - 1))


# --- the tools ----------------------------------------------------------------------------


def get_inventory(pack: Pack, state: LiveState) -> ToolResult:
    inv = _inventory(state)
    creatures = []
    for o in sorted(inv.owned, key=lambda o: o.creature_id):
        c = _creature(pack, o.creature_id)
        creatures.append(
            {
                **_brief(pack, c.id),
                "stage": o.stage,
                # min(): a game snapshot may report a stage the catalog does not list yet
                "stage_name": c.stages[min(o.stage, len(c.stages)) - 1],
                "level": o.level,
                "unlocked_skills": [_ref(_skill(pack, s)) for s in c.skills if s in o.unlocked_skills],
                "locked_skills": [_ref(_skill(pack, s)) for s in c.skills if s not in o.unlocked_skills],
            }
        )
    return {
        "count": len(creatures),
        "creatures": creatures,
        "saved_lineups": {k: inv.saved_lineups[k] for k in sorted(inv.saved_lineups)},
    }


def get_match_state(pack: Pack, state: LiveState) -> ToolResult:
    m = _match(state)
    return {
        "mode": m.mode,
        "round": m.round,
        "rounds_total": m.rounds_total,
        "score": {"player": m.score_player, "opponent": m.score_opponent},
        "player_lineup": [_brief(pack, cid) for cid in m.player_lineup],
        "opponent_lineup": [_brief(pack, cid) for cid in m.opponent_lineup],
    }


def find_counters(pack: Pack, state: LiveState, opponent: list[str]) -> ToolResult:
    inv = _inventory(state)
    foes = [_creature(pack, cid) for cid in opponent]
    ranked: list[dict[str, Any]] = []
    for o in inv.owned:
        mine = _creature(pack, o.creature_id)
        deals = [(f, multiplier(pack, mine.element, f.element)) for f in foes]
        takes = sum(multiplier(pack, f.element, mine.element) for f in foes)
        strong = [f.name for f, m in deals if m > 1]
        weak = [f.name for f, m in deals if m < 1]
        reason = (
            f"{mine.name} ({mine.element}) hits "
            + (f"{', '.join(strong)} for double damage" if strong else "nothing for double damage")
            + (f" but only half against {', '.join(weak)}" if weak else "")
        )
        ranked.append(
            {
                **_brief(pack, mine.id),
                "stage": o.stage,
                "advantage": sum(m for _, m in deals),
                "damage_taken": takes,
                "reason": reason,
            }
        )
    # Most damage dealt first; then least damage taken; the id makes the order total.
    ranked.sort(key=lambda r: (-r["advantage"], r["damage_taken"], r["id"]))
    return {"opponent": [_brief(pack, f.id) for f in foes], "counters": ranked[:5]}


def _lineup_score(pack: Pack, inv: Inventory, team: list[str], opponent: list[str]) -> ToolResult:
    """The 0-100 score: power 40, role coverage 20, element coverage 20, counter advantage 20."""
    members = [_creature(pack, cid) for cid in team]
    foes = [_creature(pack, cid) for cid in opponent]
    mean_power = sum(effective_power(c, inv.get(c.id)) for c in members) / len(members)
    power = 40 * min(1.0, mean_power / POWER_CAP)
    roles = 20 * len({c.role for c in members}) / min(len(pack.vocabulary.roles), len(members))
    team_elements = {c.element for c in members}
    covered = {d for d in pack.elements.elements if any(multiplier(pack, a, d) > 1 for a in team_elements)}
    elements = 20 * len(covered) / len(pack.elements.elements)
    if foes:
        # Best hit we land on each foe, minus best hit they land on each of ours: [-1.5, 1.5].
        offense = sum(max(multiplier(pack, c.element, f.element) for c in members) for f in foes) / len(foes)
        threat = sum(max(multiplier(pack, f.element, c.element) for f in foes) for c in members) / len(
            members
        )
        counter = 20 * (offense - threat + 1.5) / 3
    else:
        counter = 10.0  # neutral: nothing to counter
    return {
        "score": round(power + roles + elements + counter),
        "breakdown": {
            "power": round(power, 1),
            "role_coverage": round(roles, 1),
            "element_coverage": round(elements, 1),
            "counter_advantage": round(counter, 1),
        },
    }


def score_lineup(
    pack: Pack, state: LiveState, creatures: list[str], opponent: list[str] | None = None
) -> ToolResult:
    inv = _inventory(state)
    opponent = opponent or []
    return {
        "creatures": [_brief(pack, cid) for cid in creatures],
        "opponent": [_brief(pack, cid) for cid in opponent],
        **_lineup_score(pack, inv, creatures, opponent),
        "valid_size": 3 <= len(creatures) <= 5,
        "not_owned": sorted(cid for cid in creatures if not inv.owns(cid)),
    }


def explain_skill(pack: Pack, state: LiveState, skill: str) -> ToolResult:
    inv = _inventory(state)
    s = _skill(pack, skill)
    holders = [c for c in pack.creatures.values() if s.id in c.skills]
    unlocked_on = sorted(c.id for c in holders if inv.skill_unlocked(c.id, s.id))
    return {
        "skill": {
            **_ref(s),
            "element": s.element,
            "kind": s.kind,
            "power": s.power,
            "description": s.description,
        },
        "unlock": s.unlock.model_dump(exclude_none=True) if s.unlock else None,
        "unlock_text": unlock_text(s.unlock),
        "creatures": [
            {**_ref(c), "owned": inv.owns(c.id), "unlocked": c.id in unlocked_on}
            for c in sorted(holders, key=lambda c: c.id)
        ],
        "unlocked_for_player": bool(unlocked_on),
        "unlocked_on": unlocked_on,
    }


def suggest_lineup(
    pack: Pack, state: LiveState, opponent: list[str] | None = None, style: str = "", size: int = 3
) -> ToolResult:
    inv = _inventory(state)
    opponent = opponent or []
    owned = sorted(o.creature_id for o in inv.owned)
    if len(owned) < size:
        raise ToolError(f"the player owns {len(owned)} creatures; a team of {size} needs more")
    styles = pack.vocabulary.styles
    preferred = frozenset(styles[style].roles) if style in styles else frozenset()

    def objective(team: list[str]) -> float:
        bonus = STYLE_BONUS * sum(_creature(pack, c).role in preferred for c in team) / len(team)
        return _lineup_score(pack, inv, team, opponent)["score"] + bonus

    # Exhaustive search over a pool of the strongest singles keeps big inventories cheap.
    pool = sorted(owned, key=lambda cid: (-objective([cid]), cid))[:SUGGEST_POOL]
    teams = [sorted(t) for t in itertools.combinations(pool, size)]
    best = min(teams, key=lambda t: (-objective(t), t))
    return {
        "style": style or "any",
        "size": size,
        "creatures": [_brief(pack, cid) for cid in best],
        **_lineup_score(pack, inv, best, opponent),
        "opponent": [_brief(pack, cid) for cid in opponent],
    }


def get_creature(pack: Pack, state: LiveState, creature: str) -> ToolResult:
    c = _creature(pack, creature)
    o = _inventory(state).get(c.id)
    return {
        **_brief(pack, c.id),
        "rarity": c.rarity,
        "stages": c.stages,
        "base_power": c.base_power,
        "skills": [
            {**_ref(_skill(pack, s)), "unlock_text": unlock_text(_skill(pack, s).unlock)} for s in c.skills
        ],
        "owned": o is not None,
        "stage": o.stage if o else None,
        "level": o.level if o else None,
        "unlocked_skills": [s for s in c.skills if o and s in o.unlocked_skills],
    }


def evolution_path(pack: Pack, state: LiveState, creature: str) -> ToolResult:
    c = _creature(pack, creature)
    o = _inventory(state).get(c.id)
    skills = [_skill(pack, s) for s in c.skills]

    def at_stage(n: int) -> list[dict[str, str]]:
        # Stage 1 lists the skills known from the start; later stages, those they unlock.
        return [
            _ref(s) for s in skills if (s.unlock is None and n == 1) or (s.unlock and s.unlock.min_stage == n)
        ]

    stages: list[dict[str, Any]] = [
        {"stage": n, "name": name, "unlocks": at_stage(n)} for n, name in enumerate(c.stages, 1)
    ]
    other = [
        {**_ref(s), "unlock_text": unlock_text(s.unlock)}
        for s in skills
        if s.unlock and s.unlock.min_stage is None
    ]
    if o is None:
        next_step = f"The player does not own {c.name} yet: obtain a {c.stages[0]} first."
    elif o.stage < len(c.stages):
        gains = [s["name"] for s in stages[o.stage]["unlocks"]]
        next_step = f"Evolve {c.stages[o.stage - 1]} into {c.stages[o.stage]}" + (
            f" to unlock {', '.join(gains)}." if gains else "."
        )
    else:
        next_step = f"{c.stages[-1]} is fully evolved."
    return {
        **_brief(pack, c.id),
        "stages": stages,
        "other_unlocks": other,
        "owned": o is not None,
        "current_stage": o.stage if o else None,
        "next_step": next_step,
    }


def _matchup_side(pack: Pack, ref: str) -> tuple[str, str]:
    """(label, element) for an element id or a creature id."""
    if ref in pack.elements.elements:
        return ref.capitalize(), ref
    c = _creature(pack, ref)
    return f"{c.name} ({c.element})", c.element


def element_matchup(pack: Pack, state: LiveState, attacker: str, defender: str) -> ToolResult:
    (a_label, a_el), (d_label, d_el) = _matchup_side(pack, attacker), _matchup_side(pack, defender)
    mult = multiplier(pack, a_el, d_el)
    effect = {2.0: "double", 1.0: "normal", 0.5: "half"}.get(mult, f"x{mult}")
    return {
        "attacker": {"ref": attacker, "element": a_el},
        "defender": {"ref": defender, "element": d_el},
        "multiplier": mult,
        "explanation": f"{a_label} attacks on {d_label} deal {effect} damage.",
    }


def list_lineups(pack: Pack, state: LiveState) -> ToolResult:
    inv = _inventory(state)
    lineups = []
    for lu in pack.lineups.values():  # pack order: T1..T16
        missing = [cid for cid in lu.creatures if not inv.owns(cid)]
        lineups.append(
            {
                "id": lu.id,
                "name": lu.name,
                "style": lu.style,
                "summary": lu.summary,
                "creatures": lu.creatures,
                "owned_count": len(lu.creatures) - len(missing),
                "missing": missing,
                "complete": not missing,
            }
        )
    return {"lineups": lineups}


# --- result shapes ------------------------------------------------------------------------
# What each tool returns (JSON schema, as the builtins publish theirs: voicecoach.domain.tool_shapes), so
# the pack loader checks a Φ entry's `answer` selectors ("find_counters.counters[*].id") against
# them. Only the shape is declared here; the tools above are unchanged.

_S, _I, _N, _B = ({"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"})
_IDS = {"type": "array", "items": _S}
_OBJ = {"type": "object"}  # keys are data (a breakdown's components, saved lineups by name)


def _obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def _rows(**extra: Any) -> dict[str, Any]:
    return {"type": "array", "items": _obj(id=_S, name=_S, **extra)}


_BRIEF = {"element": _S, "role": _S}
_SCORE = {"score": _I, "breakdown": _OBJ}
RESULT_SHAPES: dict[str, dict[str, Any]] = {
    "get_inventory": _obj(count=_I, saved_lineups=_OBJ, creatures=_rows(
        **_BRIEF, stage=_I, stage_name=_S, level=_I, unlocked_skills=_rows(), locked_skills=_rows())),
    "get_match_state": _obj(mode=_S, round=_I, rounds_total=_I, score=_obj(player=_I, opponent=_I),
                            player_lineup=_rows(**_BRIEF), opponent_lineup=_rows(**_BRIEF)),
    "find_counters": _obj(opponent=_rows(**_BRIEF), counters=_rows(
        **_BRIEF, stage=_I, advantage=_N, damage_taken=_N, reason=_S)),
    "score_lineup": _obj(creatures=_rows(**_BRIEF), opponent=_rows(**_BRIEF), **_SCORE, valid_size=_B,
                         not_owned=_IDS),
    "explain_skill": _obj(
        skill=_obj(id=_S, name=_S, element=_S, kind=_S, power=_I, description=_S), unlock=_OBJ,
        unlock_text=_S, creatures=_rows(owned=_B, unlocked=_B), unlocked_for_player=_B, unlocked_on=_IDS),
    "suggest_lineup": _obj(style=_S, size=_I, creatures=_rows(**_BRIEF), **_SCORE, opponent=_rows(**_BRIEF)),
    "get_creature": _obj(id=_S, name=_S, **_BRIEF, rarity=_S, stages=_IDS, base_power=_N,
                         skills=_rows(unlock_text=_S), owned=_B, stage=_I, level=_I, unlocked_skills=_IDS),
    "evolution_path": _obj(id=_S, name=_S, **_BRIEF, owned=_B, current_stage=_I, next_step=_S,
                           stages={"type": "array", "items": _obj(stage=_I, name=_S, unlocks=_rows())},
                           other_unlocks=_rows(unlock_text=_S)),
    "element_matchup": _obj(attacker=_obj(ref=_S, element=_S), defender=_obj(ref=_S, element=_S),
                            multiplier=_N, explanation=_S),
    "list_lineups": _obj(lineups={"type": "array", "items": _obj(
        id=_S, name=_S, style=_S, summary=_S, creatures=_IDS, owned_count=_I, missing=_IDS, complete=_B)}),
}  # fmt: skip


# --- registry -----------------------------------------------------------------------------


def _creature_list(description: str, min_items: int = 0) -> dict[str, Any]:
    return {
        "type": "array",
        "items": {"type": "string"},
        "minItems": min_items,
        "maxItems": 5,
        "uniqueItems": True,
        "description": description,
    }


_NAME = "creature id or display name"
TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in [
        ToolSpec(
            "get_inventory",
            "The player's owned creatures with stage, level, and unlocked and locked skills.",
            object_schema({}, []),
            get_inventory,
        ),
        ToolSpec(
            "get_match_state",
            "The current match: round, score, and both lineups.",
            object_schema({}, []),
            get_match_state,
        ),
        ToolSpec(
            "find_counters",
            "The player's owned creatures that best counter the given opponent creatures, top 5.",
            object_schema({"opponent": _creature_list(f"opponent creatures ({_NAME})", 1)}, ["opponent"]),
            find_counters,
            {"opponent": "creature"},
        ),
        ToolSpec(
            "score_lineup",
            "Score a team 0-100 (power, role and element coverage, advantage against an optional opponent).",
            object_schema(
                {
                    "creatures": _creature_list(f"the team ({_NAME})", 1),
                    "opponent": _creature_list(f"opponent creatures ({_NAME}), optional"),
                },
                ["creatures"],
            ),
            score_lineup,
            {"creatures": "creature", "opponent": "creature"},
        ),
        ToolSpec(
            "explain_skill",
            "What a skill does, how it unlocks, which creatures have it, and if the player has it unlocked.",
            object_schema(
                {"skill": {"type": "string", "description": "skill id or display name"}}, ["skill"]
            ),
            explain_skill,
            {"skill": "skill"},
        ),
        ToolSpec(
            "suggest_lineup",
            "The best team from the player's owned creatures, optionally against an opponent and in a style.",
            object_schema(
                {
                    "opponent": _creature_list(f"opponent creatures ({_NAME}), optional"),
                    "style": {"type": "string", "description": "preferred play style (the pack's styles)"},
                    "size": {"type": "integer", "minimum": 3, "maximum": 5, "description": "team size"},
                },
                [],
            ),
            suggest_lineup,
            {"opponent": "creature"},
            {"style": lambda pack: pack.vocabulary.styles},
        ),
        ToolSpec(
            "get_creature",
            "A creature's catalog entry and whether the player owns it, at which stage, with which skills.",
            object_schema({"creature": {"type": "string", "description": _NAME}}, ["creature"]),
            get_creature,
            {"creature": "creature"},
        ),
        ToolSpec(
            "evolution_path",
            "A creature's evolution stages, the skills each stage unlocks, and the player's next step.",
            object_schema({"creature": {"type": "string", "description": _NAME}}, ["creature"]),
            evolution_path,
            {"creature": "creature"},
        ),
        ToolSpec(
            "element_matchup",
            "The damage multiplier when one element (or creature) attacks another.",
            object_schema(
                {
                    "attacker": {"type": "string", "description": "element, or creature id or name"},
                    "defender": {"type": "string", "description": "element, or creature id or name"},
                },
                ["attacker", "defender"],
            ),
            element_matchup,
            {"attacker": "element", "defender": "element"},
        ),
        ToolSpec(
            "list_lineups",
            "The catalog's named lineups with how many of their creatures the player owns.",
            object_schema({}, []),
            list_lineups,
        ),
    ]
}
TOOLS = {name: replace(spec, result_schema=RESULT_SHAPES[name]) for name, spec in TOOLS.items()}
TOOL_NAMES: tuple[str, ...] = tuple(TOOLS)
