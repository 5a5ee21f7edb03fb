"""The builtin tool kinds: tools over any pack's catalog and live state, by role, not by name.

A pack with its own kinds (schema.json) needs no code for its everyday tools: tools.json
instantiates a builtin kind under the pack's own name, with what it works on,

    {"name": "hero_counters", "builtin": "rank_matchup", "matchup": "counters",
     "description": "The player's heroes that best counter the given enemy heroes."}

and manifest.json lists it like any tool. The kinds (plan §1, "tools.py"):

    get_collection   the player's units: tier, level, unlocked and locked options, equipped
    get_entity       one entity of `kind`, and what the player has of it
    rank_matchup     the player's units ranked against opponents by a matchup table
    context_fit      the player's units ranked for the match context (a map) by a matchup table
    score_group      a team scored 0-100: power, composition (the schema's quota), matchup edge
    suggest_group    the best team of the composition's size from the player's units
    list_groups      the catalog's groups, and which members the player lacks
    get_match_state  round, score, both sides and the match context

Each reads the state through `StateView` (either profile) and the catalog, is deterministic, and
publishes its `result_schema`. Dispatch and argument validation are `voicecoach.tools`'.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from functools import partial
from typing import Any, get_args

from voicecoach.catalog import Catalog, Entity, Matchup
from voicecoach.pack import BuiltinKind, BuiltinTool, Pack
from voicecoach.state import LiveState
from voicecoach.tool_shapes import builtin_result_schema
from voicecoach.toolbase import ToolError, ToolResult, ToolSpec, object_schema
from voicecoach.view import Owned, StateView

SUGGEST_POOL = 12  # suggest_group searches every team among the 12 best single units
TOP = 5  # ranked lists are cut here: a spoken answer names a handful
# score_group's components (their maxima sum to 100).
POWER_MAX, COMPOSITION_MAX, EDGE_MAX = 40.0, 30.0, 30.0


# --- lookups ----------------------------------------------------------------------------------


def _entity(catalog: Catalog, kind: str, entity_id: str) -> Entity:
    entity = catalog.get(kind, entity_id)
    if entity is None:
        raise ToolError(f"unknown {kind} {entity_id!r}")
    return entity


def _ref(catalog: Catalog, kind: str, entity_id: str) -> dict[str, str]:
    return {"id": entity_id, "name": _entity(catalog, kind, entity_id).display}


def _view(pack: Pack, state: LiveState) -> StateView:
    view = StateView(pack, state)
    if not view.known:
        where = "fs.inventory" if view.classic else "fs.collection"
        raise ToolError(f"the player's {pack.catalog.schema.plural(view.unit_kind)} are not known yet "
                        f"(state.{where} is missing)")  # fmt: skip
    return view


def _matchup(pack: Pack, name: str | None) -> Matchup:
    found = next((m for m in pack.catalog.schema.matchups if m.name == name), None)
    if found is None:
        raise ToolError(f"unknown matchup {name!r}")
    return found


def multiplier(catalog: Catalog, matchup: Matchup, a: str, b: str) -> float:
    """How much entity `a` (of between[0]) beats entity `b` (of between[1]) in the table: by id, or
    by both entities' value of the matchup's attribute (pet: creatures by element)."""
    if matchup.attribute is not None:
        ea, eb = catalog.get(matchup.between[0], a), catalog.get(matchup.between[1], b)
        a = str(ea.value(matchup.attribute)) if ea is not None else a
        b = str(eb.value(matchup.attribute)) if eb is not None else b
    return float(catalog.tables.get(matchup.name, {}).get(a, {}).get(b, matchup.default))


def unlock_text(pack: Pack, kind: str, entity: Entity) -> str:
    """The entity's unlock gates, spoken from the schema's gate templates ("hero level 5")."""
    unlock = entity.value("unlock")
    if not unlock:
        return "available from the start"
    gates = pack.catalog.schema.kinds[kind].gate
    parts = []
    for field, value in unlock.items() if isinstance(unlock, dict) else []:
        spoken = gates[field].spoken if field in gates else ""
        parts.append(spoken.format(value=value) if spoken else f"{field.replace('_', ' ')} {value}")
    return "unlocks with " + " and ".join(parts)


def _options(pack: Pack, unit_id: str) -> list[str]:
    field = pack.catalog.schema.options_field()
    unit = pack.catalog.get(pack.catalog.schema.kind("unit") or "", unit_id)
    return list(unit.value(field) or []) if unit is not None and field is not None else []


def _owned_entry(pack: Pack, view: StateView, owned: Owned) -> dict[str, Any]:
    catalog, option = pack.catalog, view.option_kind
    entry: dict[str, Any] = {**_ref(catalog, view.unit_kind, owned.id), "level": owned.level}
    if owned.tier is not None:
        entry["tier"] = owned.tier
    if option is not None:
        options = _options(pack, owned.id)
        usable = [o for o in options if view.option_usable(o, owned.id)]
        entry["unlocked"] = [_ref(catalog, option, o) for o in usable]
        entry["locked"] = [
            {
                **_ref(catalog, option, o),
                "unlock_text": unlock_text(pack, option, _entity(catalog, option, o)),
            }
            for o in options
            if o not in usable
        ]
        entry["equipped"] = dict(sorted(owned.equipped.items()))
    return entry


# --- the builtin kinds --------------------------------------------------------------------------


def get_collection(pack: Pack, state: LiveState, tool: BuiltinTool) -> ToolResult:
    view = _view(pack, state)
    units = [_owned_entry(pack, view, o) for o in sorted(view.owned(), key=lambda o: o.id)]
    saved = view.saved_groups()
    return {"count": len(units), "units": units, "saved_groups": {k: saved[k] for k in sorted(saved)}}


def get_entity(pack: Pack, state: LiveState, tool: BuiltinTool, **args: str) -> ToolResult:
    catalog, kind = pack.catalog, tool.kind or ""
    entity = _entity(catalog, kind, args[kind])
    view = StateView(pack, state)
    role = catalog.schema.kinds[kind].role
    out: dict[str, Any] = {"kind": kind, **entity.model_dump(mode="json")}
    if role == "unit":
        owned = view.unit(entity.id)
        out["owned"] = owned is not None if view.known else None
        out["unit"] = _owned_entry(pack, view, owned) if owned is not None else None
        out["unlock_text"] = unlock_text(pack, kind, entity)
    elif role == "option":
        out["unlock_text"] = unlock_text(pack, kind, entity)
        out["units"] = [
            {
                **_ref(catalog, view.unit_kind, u),
                "owned": view.owns(u),
                "usable": view.option_usable(entity.id, u),
            }
            for u in view.learners(entity.id)
        ]
        out["usable"] = view.option_usable(entity.id)
    elif role == "group":
        members = view.members(entity.id)
        out["missing"] = [m for m in members if not view.owns(m)]
        out["fieldable"] = view.fieldable(entity.id)
    return out


def _ranked(rows: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    # Best first; the id makes the order total.
    return sorted(rows, key=lambda r: (-r[key], r.get("against", 0.0), r["id"]))[:TOP]


def rank_matchup(pack: Pack, state: LiveState, tool: BuiltinTool, opponent: list[str]) -> ToolResult:
    view, catalog = _view(pack, state), pack.catalog
    m = _matchup(pack, tool.matchup)
    a_kind, b_kind = m.between
    foes = [_ref(catalog, b_kind, f) for f in opponent]
    symmetric = a_kind == b_kind  # a hero can also be countered by the heroes it faces
    rows = []
    for owned in view.owned():
        deals = {f: multiplier(catalog, m, owned.id, f) for f in opponent}
        row: dict[str, Any] = {
            **_ref(catalog, a_kind, owned.id),
            "advantage": round(sum(deals.values()), 4),
            "beats": [f for f, x in deals.items() if x > m.default],
            "beaten_by": [
                f for f in opponent if symmetric and multiplier(catalog, m, f, owned.id) > m.default
            ],
        }
        if symmetric:
            row["against"] = round(sum(multiplier(catalog, m, f, owned.id) for f in opponent), 4)
        rows.append(row)
    return {"matchup": m.name, "opponent": foes, "ranked": _ranked(rows, "advantage")}


def context_fit(pack: Pack, state: LiveState, tool: BuiltinTool, **args: str) -> ToolResult:
    view, catalog = _view(pack, state), pack.catalog
    m = _matchup(pack, tool.matchup)
    unit, context = m.between
    where = args.get(context) or view.context(context)
    if where is None:
        raise ToolError(f"no {context} given and none in the match (state.ic.match.context.{context})")
    rows = [{**_ref(catalog, unit, o.id), "fit": multiplier(catalog, m, o.id, where)} for o in view.owned()]
    return {"matchup": m.name, context: _ref(catalog, context, where), "ranked": _ranked(rows, "fit")}


def _power(pack: Pack, tool: BuiltinTool) -> str:
    schema = pack.catalog.schema
    spec = schema.kinds[schema.kind("unit") or ""]
    return tool.power or next(a for a, s in spec.attributes.items() if s.numeric)


def _score(pack: Pack, tool: BuiltinTool, team: list[str], opponent: list[str]) -> dict[str, Any]:
    """0-100: power (mean of the power attribute over the catalog's best), composition (the quota's
    roles filled, else the composition's size), matchup edge against an opponent (neutral: half)."""
    catalog, schema = pack.catalog, pack.catalog.schema
    unit = schema.kind("unit") or ""
    power_attr = _power(pack, tool)
    units = catalog.entities.get(unit, {})
    best = max((float(e.value(power_attr) or 0) for e in units.values()), default=1.0) or 1.0
    mean = sum(float(_entity(catalog, unit, u).value(power_attr) or 0) for u in team) / len(team)
    power = POWER_MAX * min(1.0, mean / best)
    comp = schema.composition
    quota = comp.quota if comp is not None else None
    missing: dict[str, int] = {}
    if quota is not None:
        have = [_entity(catalog, unit, u).value(quota.attribute) for u in team]
        missing = {v: n - have.count(v) for v, n in quota.counts.items() if have.count(v) < n}
        filled = sum(quota.counts.values()) - sum(missing.values())
        composition = COMPOSITION_MAX * filled / max(1, sum(quota.counts.values()))
    else:
        composition = COMPOSITION_MAX * min(1.0, len(team) / (comp.size if comp is not None else len(team)))
    edge = EDGE_MAX / 2
    versus = next((m for m in schema.matchups if m.between == (unit, unit)), None)
    if opponent and versus is not None:
        # Best hit we land on each foe, less the best hit they land on each of ours.
        offense = sum(max(multiplier(catalog, versus, u, f) for u in team) for f in opponent) / len(opponent)
        threat = sum(max(multiplier(catalog, versus, f, u) for f in opponent) for u in team) / len(team)
        edge = EDGE_MAX * min(1.0, max(0.0, 0.5 + (offense - threat) / 2))
    return {
        "score": round(power + composition + edge),
        "breakdown": {"power": round(power, 1), "composition": round(composition, 1), "edge": round(edge, 1)},
        "max": {"power": POWER_MAX, "composition": COMPOSITION_MAX, "edge": EDGE_MAX},
        "quota_missing": missing,
    }


def _members_arg(pack: Pack) -> str:
    """score_group's team argument: the unit kind's plural (pet: "creatures"), if it is a name."""
    plural = pack.catalog.schema.plural(pack.catalog.schema.kind("unit") or "")
    return plural if re.fullmatch(r"[a-z_][a-z0-9_]*", plural) else "units"


def score_group(pack: Pack, state: LiveState, tool: BuiltinTool, **args: list[str]) -> ToolResult:
    view, catalog = _view(pack, state), pack.catalog
    team, opponent = args[_members_arg(pack)], args.get("opponent") or []
    comp = catalog.schema.composition
    return {
        "units": [_ref(catalog, view.unit_kind, u) for u in team],
        "opponent": [_ref(catalog, view.unit_kind, u) for u in opponent],
        **_score(pack, tool, team, opponent),
        "size_ok": comp is None or len(team) == comp.size,
        "not_owned": sorted(u for u in team if not view.owns(u)),
    }


def suggest_group(
    pack: Pack,
    state: LiveState,
    tool: BuiltinTool,
    opponent: list[str] | None = None,
    size: int | None = None,
) -> ToolResult:
    view, catalog = _view(pack, state), pack.catalog
    comp = catalog.schema.composition
    size = size or (comp.size if comp is not None else 3)
    opponent = opponent or []
    owned = sorted({o.id for o in view.owned()})
    if len(owned) < size:
        many = catalog.schema.plural(view.unit_kind)
        raise ToolError(f"the player has {len(owned)} {many}; a team of {size} needs more")

    def objective(team: list[str]) -> float:
        return float(_score(pack, tool, team, opponent)["score"])

    # Exhaustive search over a pool of the strongest singles keeps big collections cheap.
    pool = sorted(owned, key=lambda u: (-objective([u]), u))[:SUGGEST_POOL]
    best = min((sorted(t) for t in itertools.combinations(pool, size)), key=lambda t: (-objective(t), t))
    return {
        "size": size,
        "units": [_ref(catalog, view.unit_kind, u) for u in best],
        "opponent": [_ref(catalog, view.unit_kind, u) for u in opponent],
        **_score(pack, tool, best, opponent),
    }


def list_groups(pack: Pack, state: LiveState, tool: BuiltinTool) -> ToolResult:
    view, catalog = _view(pack, state), pack.catalog
    groups = []
    for gid, group in catalog.entities.get(view.group_kind or "", {}).items():  # catalog order
        members = view.members(gid)
        missing = [u for u in members if not view.owns(u)]
        groups.append({"id": gid, "name": group.display, "members": members,
                       "owned_count": len(members) - len(missing), "missing": missing,
                       "complete": not missing})  # fmt: skip
    return {"groups": groups}


def get_match_state(pack: Pack, state: LiveState, tool: BuiltinTool) -> ToolResult:
    match = state.ic.match
    if match is None:
        raise ToolError("no match in progress (state.ic.match is missing)")
    catalog, unit = pack.catalog, pack.catalog.schema.kind("unit") or ""
    return {
        "mode": match.mode,
        "round": match.round,
        "rounds_total": match.rounds_total,
        "score": {"player": match.score_player, "opponent": match.score_opponent},
        "player_side": [_ref(catalog, unit, u) for u in match.player_lineup],
        "opponent_side": [_ref(catalog, unit, u) for u in match.opponent_lineup],
        "context": {k: _ref(catalog, k, v) for k, v in sorted(match.context.items())},
    }


# --- specs: parameters, result shapes, descriptions ---------------------------------------------


def _ids(description: str, min_items: int = 0) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "minItems": min_items, "maxItems": 5,
            "uniqueItems": True, "description": description}  # fmt: skip


Run = Callable[..., ToolResult]
_KINDS: dict[str, Run] = {
    "get_collection": get_collection, "get_entity": get_entity, "rank_matchup": rank_matchup,
    "context_fit": context_fit, "score_group": score_group, "suggest_group": suggest_group,
    "list_groups": list_groups, "get_match_state": get_match_state,
}  # fmt: skip
# pack.py names the kinds tools.json may instantiate (it cannot import this module): both agree.
assert set(_KINDS) == set(get_args(BuiltinKind))


def builtin_spec(pack: Pack, tool: BuiltinTool) -> ToolSpec:
    """The ToolSpec of one builtin instance: its parameters, entity arguments and result shape,
    all from the pack's schema (the unit kind's plural names a team argument, a kind its own)."""
    schema = pack.catalog.schema
    unit = schema.kind("unit") or ""
    many = schema.plural(unit)
    params: dict[str, Any] = {}
    required: list[str] = []
    entities: dict[str, str] = {}
    description = ""
    context: str | None = None
    if tool.builtin == "get_collection":
        description = f"The player's {many}: level, unlocked and locked options, what is equipped."
    elif tool.builtin == "get_entity":
        kind = tool.kind or ""
        params, required, entities = (
            {kind: {"type": "string", "description": f"{kind} id or name"}},
            [kind],
            {kind: kind},
        )
        description = f"A {kind}'s catalog entry and what the player has of it."
    elif tool.builtin == "rank_matchup":
        m = _matchup(pack, tool.matchup)
        params, required = (
            {"opponent": _ids(f"opponent {schema.plural(m.between[1])} (id or name)", 1)},
            ["opponent"],
        )
        entities = {"opponent": m.between[1]}
        description = (
            f"The player's {many} that best beat the given {schema.plural(m.between[1])}, top {TOP}."
        )
    elif tool.builtin == "context_fit":
        m = _matchup(pack, tool.matchup)
        context = m.between[1]
        params, entities = (
            {context: {"type": "string", "description": f"{context} (default: the match's)"}},
            {context: context},
        )
        description = f"The player's {many} that fit the {context} best, top {TOP}."
    elif tool.builtin in ("score_group", "suggest_group"):
        params = {"opponent": _ids(f"opponent {many} (id or name), optional")}
        entities = {"opponent": unit}
        if tool.builtin == "score_group":
            members = _members_arg(pack)
            params = {members: _ids(f"the team ({many}, id or name)", 1), **params}
            required, entities = [members], {members: unit, **entities}
            description = (
                f"Score a team of {many} 0-100 (power, composition, edge against an optional opponent)."
            )
        else:
            params["size"] = {"type": "integer", "minimum": 1, "maximum": 10, "description": "team size"}
            description = f"The best team from the player's {many}, optionally against an opponent."
    elif tool.builtin == "list_groups":
        description = "The catalog's named teams, and which of their members the player lacks."
    else:  # get_match_state
        description = "The current match: round, score, both sides and the match context."
    return ToolSpec(
        tool.name,
        tool.description or description,
        object_schema(params, required),
        partial(_KINDS[tool.builtin], tool=tool),
        entities,
        result_schema=builtin_result_schema(tool.builtin, context),
    )
