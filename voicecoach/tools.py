"""The game-backend tools the coach may call, over a pack and a LiveState.

Two kinds, one interface. The in-process tools (`TOOLS`) are pure and synchronous:
`run_tool(pack, state, name, args)` validates the arguments against the tool's JSON schema,
resolves display names to catalog ids and returns a deterministic, JSON-serialisable dict.
A pack may also declare tools its game serves over HTTP (tools.json, `Pack.http_tools`;
docs/PACKS.md): the same validation, then a POST to the game's endpoint. `ToolRunner`
runs both: the in-process ones with the artificial latency of a remote game server (so the
pipeline can measure what the early tool path saves), the HTTP ones for real, each within
its timeout. A tool with side effects runs only when its caller says the turn is committed.
Nothing here imports Pipecat.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from voicecoach.pack import Creature, HttpTool, Pack, Skill, UnlockCondition, load_pack
from voicecoach.state import Inventory, LiveState, MatchState, OwnedCreature, get_field

ToolResult = dict[str, Any]
EntityKind = Literal["creature", "skill", "element"]


class ToolError(ValueError):
    """A call the backend refuses: unknown tool, malformed args, unknown entity, missing state."""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema, OpenAI function-calling style
    fn: Callable[..., ToolResult] | None  # fn(pack, state, **args); None: the game serves it (`http`)
    # Which arguments name catalog entities, so validate_args can resolve display names to
    # ids. Kept out of `parameters` because strict function-calling schemas reject extra keys.
    entities: dict[str, EntityKind] = field(default_factory=dict)
    # Arguments whose allowed values are pack data (a style), checked by validate_args.
    choices: dict[str, Callable[[Pack], Iterable[str]]] = field(default_factory=dict)
    http: HttpTool | None = None  # the pack's declaration of a tool its game serves over HTTP
    side_effect: bool = False  # changes the game: runs only once its turn is committed


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


# --- registry -----------------------------------------------------------------------------


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


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
            _schema({}, []),
            get_inventory,
        ),
        ToolSpec(
            "get_match_state",
            "The current match: round, score, and both lineups.",
            _schema({}, []),
            get_match_state,
        ),
        ToolSpec(
            "find_counters",
            "The player's owned creatures that best counter the given opponent creatures, top 5.",
            _schema({"opponent": _creature_list(f"opponent creatures ({_NAME})", 1)}, ["opponent"]),
            find_counters,
            {"opponent": "creature"},
        ),
        ToolSpec(
            "score_lineup",
            "Score a team 0-100 (power, role and element coverage, advantage against an optional opponent).",
            _schema(
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
            _schema({"skill": {"type": "string", "description": "skill id or display name"}}, ["skill"]),
            explain_skill,
            {"skill": "skill"},
        ),
        ToolSpec(
            "suggest_lineup",
            "The best team from the player's owned creatures, optionally against an opponent and in a style.",
            _schema(
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
            _schema({"creature": {"type": "string", "description": _NAME}}, ["creature"]),
            get_creature,
            {"creature": "creature"},
        ),
        ToolSpec(
            "evolution_path",
            "A creature's evolution stages, the skills each stage unlocks, and the player's next step.",
            _schema({"creature": {"type": "string", "description": _NAME}}, ["creature"]),
            evolution_path,
            {"creature": "creature"},
        ),
        ToolSpec(
            "element_matchup",
            "The damage multiplier when one element (or creature) attacks another.",
            _schema(
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
            _schema({}, []),
            list_lineups,
        ),
    ]
}
TOOL_NAMES: tuple[str, ...] = tuple(TOOLS)


def http_spec(tool: HttpTool) -> ToolSpec:
    """The ToolSpec of a tool the game serves (tools.json): validated like the in-process ones."""
    return ToolSpec(
        tool.name,
        tool.description,
        tool.parameters.model_dump(exclude_none=True),
        None,
        dict(tool.entities),
        http=tool,
        side_effect=tool.side_effect,
    )


def tool_spec(pack: Pack, name: str) -> ToolSpec | None:
    """Tool `name` as `pack` has it served: its game's declaration (tools.json) when it has one,
    which takes precedence over the in-process tool of that name, else the in-process tool."""
    served = pack.http_tools.get(name)
    return http_spec(served) if served is not None else TOOLS.get(name)


def pack_tools(pack: Pack) -> dict[str, ToolSpec]:
    """The tools `pack` declares (manifest.json), in its order, as they are served; the prompts
    and grammars that list tools read this, so a game-served tool is one W1's PLAN can write."""
    specs = {name: tool_spec(pack, name) for name in pack.tools}
    return {name: spec for name, spec in specs.items() if spec is not None}


# --- validation and dispatch ------------------------------------------------------------


def _resolve(pack: Pack, kind: EntityKind, ref: str) -> str:
    """Catalog id for an id or display name (case-insensitive); creatures also by stage name."""
    key = ref.strip().lower()
    if kind == "skill":
        skill = pack.skill_by_name(key)
        if skill is None:
            raise ToolError(f"unknown skill {ref!r}")
        return skill.id
    if kind == "element" and key in pack.elements.elements:
        return key
    creature = pack.creature_by_name(key) or next(
        (c for c in pack.creatures.values() if key in (s.lower() for s in c.stages)), None
    )
    if creature is None:
        raise ToolError(f"unknown {'element or creature' if kind == 'element' else 'creature'} {ref!r}")
    return creature.id


def _check_type(tool: str, key: str, value: Any, schema: dict[str, Any]) -> None:
    where = f"{tool}: argument {key!r}"
    kind = schema["type"]
    if kind == "string":
        if not isinstance(value, str):
            raise ToolError(f"{where} must be a string, got {type(value).__name__}")
        if "enum" in schema and value not in schema["enum"]:
            raise ToolError(f"{where} must be one of {schema['enum']}, got {value!r}")
    elif kind in ("integer", "number"):
        ok = isinstance(value, int) or (kind == "number" and isinstance(value, float))
        if not ok or isinstance(value, bool):
            raise ToolError(f"{where} must be {'an integer' if kind == 'integer' else 'a number'}, "
                            f"got {type(value).__name__}")  # fmt: skip
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            raise ToolError(f"{where} must be between {low} and {high}, got {value}")
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise ToolError(f"{where} must be true or false, got {type(value).__name__}")
    elif kind == "array":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ToolError(f"{where} must be a list of strings")
        if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)):
            raise ToolError(
                f"{where} must have {schema.get('minItems', 0)}-{schema.get('maxItems', 'any')} items"
            )


def validate_args(name: str, args: dict[str, Any], pack: Pack | None = None) -> dict[str, Any]:
    """Check `args` against tool `name`'s schema and return them with names resolved to ids.

    `pack` is the catalog names are resolved against (default: the installed default pack).
    Raises ToolError naming the tool and the offending argument or entity.
    """
    pack = pack or load_pack()
    spec = tool_spec(pack, name)
    if spec is None:
        known = dict.fromkeys([*TOOL_NAMES, *pack.http_tools])
        raise ToolError(f"unknown tool {name!r}; known tools: {', '.join(known)}")
    if not isinstance(args, dict):
        raise ToolError(f"{name}: arguments must be an object, got {type(args).__name__}")
    props: dict[str, Any] = spec.parameters["properties"]
    unknown = sorted(set(args) - set(props))
    if unknown:
        raise ToolError(f"{name}: unknown argument(s) {unknown}")
    missing = [k for k in spec.parameters["required"] if k not in args]
    if missing:
        raise ToolError(f"{name}: missing required argument(s) {missing}")
    out: dict[str, Any] = {}
    for key, value in args.items():
        _check_type(name, key, value, props[key])
        if key in spec.choices:
            allowed = sorted(spec.choices[key](pack))
            if value not in allowed:
                raise ToolError(f"{name}: argument {key!r} must be one of {allowed}, got {value!r}")
        kind = spec.entities.get(key)
        if kind is None:
            out[key] = value
        elif isinstance(value, list):
            ids = [_resolve(pack, kind, v) for v in value]
            if len(set(ids)) != len(ids):
                raise ToolError(f"{name}: argument {key!r} names the same creature twice")
            out[key] = ids
        else:
            out[key] = _resolve(pack, kind, value)
    return out


def run_tool(pack: Pack, state: LiveState, name: str, args: dict[str, Any]) -> ToolResult:
    """Validate and run one in-process tool synchronously. Raises ToolError on any refusal
    (a tool the game serves over HTTP included: only `ToolRunner` calls the game)."""
    resolved = validate_args(name, args, pack)  # first: it also rejects unknown tool names
    fn = TOOLS[name].fn if name not in pack.http_tools else None
    if fn is None:
        raise ToolError(f"{name} is served by the game over HTTP: run it with a ToolRunner")
    return fn(pack, state, **resolved)


# --- tools served by the game over HTTP -------------------------------------------------------

MAX_RESPONSE_BYTES = 1 << 20  # a tool answer is a few KB; a bigger one is refused, not buffered


def http_request(tool: HttpTool, args: dict[str, Any], state: LiveState, session_id: str) -> dict[str, Any]:
    """The JSON body of one call: the validated arguments, the session, and only the state fields
    the tool declares (the game owns its state; these are what the coach's snapshot says)."""
    slices = {path: _plain(get_field(state, path)) for path in tool.state}
    return {"tool": tool.name, "args": args, "session_id": session_id, "state": slices}


def _plain(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _answer(name: str, status: int, body: bytes) -> ToolResult:
    """The game's answer as a result object, or a ToolError saying what is wrong with it."""
    if len(body) > MAX_RESPONSE_BYTES:
        raise ToolError(f"{name}: the game's answer is larger than {MAX_RESPONSE_BYTES} bytes")
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        data = None
        if status < 400:
            raise ToolError(f"{name}: the game's answer is not valid JSON: {body[:80]!r}") from None
    if status >= 400:  # the game refused the call: its {"error": ...} says why, when it sends one
        why = data.get("error") if isinstance(data, dict) else None
        raise ToolError(f"{name}: the game answered HTTP {status}" + (f": {why}" if why else ""))
    if not isinstance(data, dict):
        raise ToolError(f"{name}: the game's answer is not a JSON object (got {type(data).__name__})")
    return data


class ToolRunner:
    """Runs a pack's tools as on a remote game server.

    In-process tools wait `latency_ms` first (one value for every tool or a per-tool dict,
    missing tools: 0). Game-served tools POST to `endpoint` (default: the pack's tools.json
    endpoint) + "/" + the tool's name, over one keep-alive aiohttp session (pipecat's own
    HTTP client, already installed; `aclose` releases it). Arguments are validated before
    anything is sent. A call that takes longer than `timeout_for(name)` raises TimeoutError;
    a game that is down or answers badly raises ToolError saying so.

    The commit gate: a side-effect tool runs only with `committed=True`, which the caller passes
    once the turn's reply was delivered to the end (actors/tools.py); otherwise it is refused.
    """

    def __init__(
        self,
        pack: Pack,
        latency_ms: float | dict[str, float] = 0.0,
        timeout_s: float | None = None,
        endpoint: str | None = None,
        session_id: str = "",
    ):
        unserved = [name for name in pack.tools if tool_spec(pack, name) is None]
        if unserved:
            raise ToolError(f"pack {pack.pack_id!r} declares tools this runner does not serve: {unserved}")
        self.pack = pack
        self.latency_ms = latency_ms
        self.timeout_s = timeout_s
        self.endpoint = (endpoint or pack.tool_endpoint).rstrip("/")
        self.session_id = session_id
        self._http: Any = None  # aiohttp.ClientSession, opened on the first game-served call
        self._http_loop: asyncio.AbstractEventLoop | None = None

    def latency_s(self, name: str) -> float:
        ms = self.latency_ms.get(name, 0.0) if isinstance(self.latency_ms, dict) else self.latency_ms
        return ms / 1000.0

    def side_effect(self, name: str) -> bool:
        spec = tool_spec(self.pack, name)
        return spec is not None and spec.side_effect

    def timeout_for(self, name: str) -> float | None:
        """The tool's own timeout (tools.json), capped by the runner's; the runner's for the rest."""
        served = self.pack.http_tools.get(name)
        if served is None:
            return self.timeout_s
        return served.timeout_s if self.timeout_s is None else min(served.timeout_s, self.timeout_s)

    async def call(
        self, state: LiveState, name: str, args: dict[str, Any], *, committed: bool = False
    ) -> ToolResult:
        resolved = validate_args(name, args, self.pack)
        spec = tool_spec(self.pack, name)
        assert spec is not None  # validate_args refused unknown tools
        if spec.side_effect and not committed:
            raise ToolError(f"{name} has side effects: it runs only once the turn is committed")
        if spec.http is not None:
            body = http_request(spec.http, resolved, state, self.session_id)
            return await asyncio.wait_for(self._post(name, body), timeout=self.timeout_for(name))
        fn = spec.fn
        assert fn is not None

        async def remote() -> ToolResult:
            await asyncio.sleep(self.latency_s(name))
            return fn(self.pack, state, **resolved)

        return await asyncio.wait_for(remote(), timeout=self.timeout_s)

    async def _post(self, name: str, body: dict[str, Any]) -> ToolResult:
        import aiohttp  # here, not at import: the CLI and the kernels' tests never pay for it

        url = f"{self.endpoint}/{name}"
        try:
            async with self._session(aiohttp).post(url, json=body) as resp:
                raw = await resp.content.read(MAX_RESPONSE_BYTES + 1)
                return _answer(name, resp.status, raw)
        except aiohttp.ClientError as err:  # refused, reset, DNS: the game is unreachable
            why = f"{type(err).__name__}: {err}"
            raise ToolError(f"{name}: the game's endpoint {url} is unreachable ({why})") from None

    def _session(self, aiohttp: Any) -> Any:
        loop = asyncio.get_running_loop()
        if self._http is None or self._http.closed or self._http_loop is not loop:
            self._http = aiohttp.ClientSession(headers={"Accept": "application/json"})
            self._http_loop = loop
        return self._http

    async def aclose(self) -> None:
        """Release the HTTP session (the actor that owns the runner calls it at cleanup)."""
        if self._http is not None and not self._http.closed:
            await self._http.close()
        self._http = None
