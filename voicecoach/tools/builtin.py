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
publishes its `result_schema`. Dispatch and argument validation are `voicecoach.tools.registry`'.

Why one module of ~650 lines: it is the table of the eight builtin kinds (`_KINDS`, checked against
pack.py's `BuiltinKind`) and their specs (`builtin_spec`), sharing the lookups and one team scorer
(`_score`, behind score_group, suggest_group's search and the swaps). The seam: score_group and
suggest_group with that scorer (~250 lines) into a module of their own.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from functools import partial
from typing import Any, get_args

from voicecoach.core.state import LiveState, get_field
from voicecoach.domain.catalog import Catalog, Entity, Matchup
from voicecoach.domain.pack import BuiltinKind, BuiltinTool, Pack
from voicecoach.domain.tool_shapes import builtin_shape
from voicecoach.domain.view import Owned, StateView
from voicecoach.tools.base import ToolError, ToolResult, ToolSpec, object_schema

SUGGEST_POOL = 12  # suggest_group searches every team among the 12 best single units
TOP = 5  # ranked lists are cut here: a spoken answer names a handful
# score_group's components (their maxima sum to 100).
POWER_MAX, COMPOSITION_MAX, EDGE_MAX = 40.0, 30.0, 30.0
# With a match context (a map) the fit on it is a fourth component; power gives way to it, so the
# role quota still weighs as much (a swap that breaks it never pays for itself through the map).
CONTEXT_MAXIMA = (30.0, 30.0, 25.0, 15.0)  # power, composition, edge, fit
# With a coverage matchup (tools.json "coverage"), the types a team hits hard are a fourth component.
COVERAGE_MAXIMA = (40.0, 20.0, 20.0, 20.0)  # power, composition, edge, coverage
# suggest_group's bonus per member with a preferred attribute value ("a dive comp"), as a share of
# one quota slot's points: the preference picks among teams that keep the quota, never breaks it.
PREFER_SHARE = 0.8
SWAPS = 3  # score_group's best single swaps from the player's other units


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
    by both entities' value of the matchup's attribute (pet: creatures by element). Memoised on the
    catalog: a team search reads the same pairs thousands of times."""
    key = (matchup.name, a, b)
    hit = catalog.memo.get(key)
    if hit is None:
        x, y = a, b
        if matchup.attribute is not None:
            ea, eb = catalog.get(matchup.between[0], a), catalog.get(matchup.between[1], b)
            x = str(ea.value(matchup.attribute)) if ea is not None else a
            y = str(eb.value(matchup.attribute)) if eb is not None else b
        hit = catalog.memo[key] = value_multiplier(catalog, matchup, x, y)
    return hit


def value_multiplier(catalog: Catalog, matchup: Matchup, a: object, b: object) -> float:
    """How much one value of the matchup's attribute beats another ("fire" against "grass"): an
    option's value against a unit's, where `multiplier` takes two entities."""
    return float(catalog.tables.get(matchup.name, {}).get(str(a), {}).get(str(b), matchup.default))


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


def unmet_gates(
    pack: Pack, state: LiveState, kind: str, entity_id: str, level: int | None
) -> tuple[list[str], list[str], int]:
    """The entity's gates this player has not met yet, spoken: (the unit's own, its level or tier;
    the rest, account-wide state), and how many of its own levels it still needs. Saying every gate
    ("hero level 12 and account level 15") to a player whose hero is level 13 is a false claim.
    `level`: the owned unit's level (None: not owned, its own gates all unmet)."""
    entity = pack.catalog.get(kind, entity_id)
    unlock = entity.value("unlock") if entity is not None else None
    own: list[str] = []
    other: list[str] = []
    gap = 0
    gates = pack.catalog.schema.kinds[kind].gate
    for field, value in unlock.items() if isinstance(unlock, dict) else []:
        gate = gates.get(field)
        if gate is None or not isinstance(value, int):
            continue
        spoken = gate.spoken.format(value=value) if gate.spoken else f"{field.replace('_', ' ')} {value}"
        if gate.state in ("level", "tier"):
            have = level if gate.state == "level" else None
            if have is None or have < value:
                own.append(spoken)
                gap = max(gap, value - (have or 0))
        else:
            have_state = get_field(state, gate.state)
            if not isinstance(have_state, int) or have_state < value:
                other.append(spoken)
    return own, other, gap


def _options(pack: Pack, unit_id: str) -> list[str]:
    field = pack.catalog.schema.options_field()
    unit = pack.catalog.get(pack.catalog.schema.kind("unit") or "", unit_id)
    return list(unit.value(field) or []) if unit is not None and field is not None else []


def _locked_text(pack: Pack, state: LiveState, kind: str, option_id: str, level: int) -> str:
    """A locked option of an owned unit: only the gates still unmet for this player ("unlocks with
    account level 15" on a hero past its hero-level gate); every gate when none reads as unmet."""
    own, other, _ = unmet_gates(pack, state, kind, option_id, level)
    entity = _entity(pack.catalog, kind, option_id)
    return "unlocks with " + " and ".join(own + other) if own or other else unlock_text(pack, kind, entity)


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
                "unlock_text": _locked_text(pack, view.state, option, o, owned.level),
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
        if m.notes is not None:  # the designer's reason for each win, said as {reason}
            notes = {f: catalog.note(m.name, owned.id, f) for f in row["beats"]}
            row["reasons"] = {f: n for f, n in notes.items() if n}
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


def _tier_power(pack: Pack, tool: BuiltinTool, view: StateView | None, unit_id: str, attr: str) -> float:
    """The unit's power attribute, raised by `tool.tier_bonus` for each tier the player's unit has
    past the first (a unit the player lacks counts at its first tier), and cut by its level's share
    of the others' when the player's unit is far behind them (a level-5 pet in a level-14 team)."""
    power = float(_entity(pack.catalog, pack.catalog.schema.kind("unit") or "", unit_id).value(attr) or 0)
    if view is None:
        return power
    owned, norm = view.unit(unit_id), view.level_norm(unit_id)
    if owned is not None and norm and view.far_behind(unit_id):
        power *= owned.level / norm
    if not tool.tier_bonus:
        return power
    tier = owned.tier if owned is not None and owned.tier is not None else 1
    return power * (1 + tool.tier_bonus * (tier - 1))


def _score(
    pack: Pack,
    tool: BuiltinTool,
    team: list[str],
    opponent: list[str],
    context: str | None = None,
    view: StateView | None = None,
) -> dict[str, Any]:
    """0-100: power (mean of the power attribute over the catalog's best, raised by the tier bonus
    of the player's units in `view`), composition (the quota's roles filled, else the composition's
    size), matchup edge against an opponent (neutral: half) and, with a match context, the fit on
    it (the unit x context matchup; neutral: half)."""
    catalog, schema = pack.catalog, pack.catalog.schema
    unit = schema.kind("unit") or ""
    fit_m = schema.context_matchup() if context is not None else None
    cover_m = _matchup(pack, tool.coverage) if tool.coverage is not None and fit_m is None else None
    power_max, comp_max, edge_max, fit_max = (
        CONTEXT_MAXIMA if fit_m is not None
        else COVERAGE_MAXIMA if cover_m is not None
        else (POWER_MAX, COMPOSITION_MAX, EDGE_MAX, 0.0)
    )  # fmt: skip
    power_attr = _power(pack, tool)
    best = tool.power_full or catalog.max_value(unit, power_attr) or 1.0
    mean = sum(_tier_power(pack, tool, view, u, power_attr) for u in team) / len(team)
    power = power_max * min(1.0, mean / best)
    comp = schema.composition
    quota = comp.quota if comp is not None else None
    missing: dict[str, int] = {}
    if quota is not None:
        have = [_entity(catalog, unit, u).value(quota.attribute) for u in team]
        missing = {v: n - have.count(v) for v, n in quota.counts.items() if have.count(v) < n}
        filled = sum(quota.counts.values()) - sum(missing.values())
        composition = comp_max * filled / max(1, sum(quota.counts.values()))
    elif tool.spread is not None:
        # No quota: the more distinct values of the spread attribute, the better (all roles covered).
        values = {e.value(tool.spread) for e in catalog.entities.get(unit, {}).values()}
        have_values = {_entity(catalog, unit, u).value(tool.spread) for u in team}
        composition = comp_max * len(have_values) / max(1, min(len(values), len(team)))
    else:
        composition = comp_max * min(1.0, len(team) / (comp.size if comp is not None else len(team)))
    edge = edge_max / 2
    versus = next((m for m in schema.matchups if m.between == (unit, unit)), None)
    if opponent and versus is not None:
        # Best hit we land on each foe, less the best hit they land on each of ours.
        offense = sum(max(multiplier(catalog, versus, u, f) for u in team) for f in opponent) / len(opponent)
        threat = sum(max(multiplier(catalog, versus, f, u) for f in opponent) for u in team) / len(team)
        edge = edge_max * min(1.0, max(0.0, 0.5 + (offense - threat) / 2))
    total = power + composition + edge
    breakdown = {"power": round(power, 1), "composition": round(composition, 1), "edge": round(edge, 1)}
    maxima = {"power": power_max, "composition": comp_max, "edge": edge_max}
    if cover_m is not None:
        coverage = fit_max * _coverage(catalog, cover_m, team)
        total += coverage
        breakdown["coverage"], maxima["coverage"] = round(coverage, 1), fit_max
    if fit_m is not None and context is not None:
        mean_fit = sum(multiplier(catalog, fit_m, u, context) for u in team) / len(team)
        fit = fit_max * min(1.0, max(0.0, 0.5 + (mean_fit - fit_m.default)))
        total += fit
        breakdown[fit_m.name], maxima[fit_m.name] = round(fit, 1), fit_max
    return {"score": round(total), "breakdown": breakdown, "max": maxima, "quota_missing": missing,
            "_total": total}  # fmt: skip


def _coverage(catalog: Catalog, m: Matchup, team: list[str]) -> float:
    """The share of the matchup table's defenders (pet: the elements) some member beats, by the
    member's value of the matchup's attribute (or its id)."""
    table = catalog.tables.get(m.name, {})
    defenders = set(table) | {d for row in table.values() for d in row}
    if not defenders:
        return 0.0
    mine = set()
    for u in team:
        entity = catalog.get(m.between[0], u)
        mine.add(str(entity.value(m.attribute)) if entity is not None and m.attribute is not None else u)

    def beaten(d: str) -> bool:
        return any(float(table.get(a, {}).get(d, m.default)) > m.default for a in mine)

    return sum(beaten(d) for d in defenders) / len(defenders)


def _scored(pack: Pack, tool: BuiltinTool, team: list[str], opponent: list[str],
            context: str | None, view: StateView | None = None) -> dict[str, Any]:  # fmt: skip
    """_score without its unrounded total (which only ranks teams)."""
    out = _score(pack, tool, team, opponent, context, view)
    del out["_total"]
    return out


def _members_arg(pack: Pack) -> str:
    """score_group's team argument: the unit kind's plural (pet: "creatures"), if it is a name."""
    plural = pack.catalog.schema.plural(pack.catalog.schema.kind("unit") or "")
    return plural if re.fullmatch(r"[a-z_][a-z0-9_]*", plural) else "units"


def _context_arg(pack: Pack) -> str | None:
    """The optional context argument of score_group / suggest_group: the context kind of the unit x
    context matchup (a map), when the schema has one."""
    m = pack.catalog.schema.context_matchup()
    return m.between[1] if m is not None else None


def preferences(pack: Pack) -> dict[str, list[str]]:
    """The unit attributes suggest_group can lean a team to ("a dive comp"), with their values:
    categorical with known values, not ordered (W2 reads those as bounds), not numeric, not the
    quota's (the quota fixes it), not a reference to a kind, not a name another argument has."""
    schema = pack.catalog.schema
    unit = schema.kind("unit") or ""
    comp = schema.composition
    quota = comp.quota.attribute if comp is not None and comp.quota is not None else None
    vocabulary = {
        "vocabulary.roles": set(pack.vocabulary.roles),
        "vocabulary.styles": set(pack.vocabulary.styles),
    }
    taken = {"opponent", "size", "include", _members_arg(pack), _context_arg(pack)}
    out: dict[str, list[str]] = {}
    for name, spec in schema.kinds[unit].attributes.items():
        ref = spec.values
        if spec.numeric or spec.ordered or ref is None or name == quota or name in taken:
            continue
        if isinstance(ref, str) and ref in schema.kinds:
            continue
        values = pack.catalog.values(ref, vocabulary)
        if values:
            out[name] = sorted(values)
    return out


def _swaps(pack: Pack, view: StateView, tool: BuiltinTool, team: list[str], opponent: list[str],
           context: str | None) -> list[dict[str, Any]]:  # fmt: skip
    """The best single changes to a team of the player's own: one member out, one of their other
    units in, each raising the score (the quota, the edge and the fit all count), best first; each
    member's best swap among them, so "who should I swap X for?" finds X's, and each spare unit's,
    so "who would X replace?" does."""
    if not view.known or not all(view.owns(u) for u in team):
        return []
    catalog, unit = pack.catalog, view.unit_kind
    before = _score(pack, tool, team, opponent, context, view)
    base = before["_total"]
    spare = sorted({o.id for o in view.owned()} - set(team))
    rows = []
    for i, out in enumerate(team):
        for other in spare:
            scored = _score(pack, tool, [*team[:i], other, *team[i + 1 :]], opponent, context, view)
            if scored["_total"] > base + 0.5:  # a gain the rounded score shows
                # What moved, by component: the reason a coach gives is the largest gain, not the sum.
                moved = {k: round(v - before["breakdown"][k], 1) for k, v in scored["breakdown"].items()}
                rows.append({"out": _ref(catalog, unit, out), "in": _ref(catalog, unit, other),
                             "score": scored["score"], "gain": round(scored["_total"] - base),
                             "changes": {k: v for k, v in moved.items() if v}})  # fmt: skip
    ranked = sorted(rows, key=lambda r: (-r["gain"], r["out"]["id"], r["in"]["id"]))
    best = ranked[:SWAPS]
    for side in ("out", "in"):
        own_best: dict[str, dict[str, Any]] = {}
        for r in ranked:
            own_best.setdefault(r[side]["id"], r)
        best += [r for r in own_best.values() if r not in best]
    return best


def score_group(pack: Pack, state: LiveState, tool: BuiltinTool, **args: Any) -> ToolResult:
    view, catalog = _view(pack, state), pack.catalog
    team, opponent = args[_members_arg(pack)], args.get("opponent") or []
    where = _context_arg(pack)
    context = args.get(where) if where is not None else None
    comp = catalog.schema.composition
    out: dict[str, Any] = {
        "units": [_ref(catalog, view.unit_kind, u) for u in team],
        "opponent": [_ref(catalog, view.unit_kind, u) for u in opponent],
        **_scored(pack, tool, team, opponent, context, view),
        "size_ok": comp is None or len(team) == comp.size,
        "not_owned": sorted(u for u in team if not view.owns(u)),
    }
    if where is not None and context is not None:
        out[where] = _ref(catalog, where, context)
    if opponent or context is not None:  # a team scored for the match: what would improve it
        out["swaps"] = _swaps(pack, view, tool, team, opponent, context)
    return out


def suggest_group(
    pack: Pack,
    state: LiveState,
    tool: BuiltinTool,
    opponent: list[str] | None = None,
    size: int | None = None,
    include: list[str] | None = None,
    **args: str,
) -> ToolResult:
    view, catalog = _view(pack, state), pack.catalog
    comp = catalog.schema.composition
    size = size or (comp.size if comp is not None else 3)
    opponent = opponent or []
    where = _context_arg(pack)
    context = args.get(where) if where is not None else None
    prefer = {a: args[a] for a in preferences(pack) if args.get(a) is not None}
    style = args.get("style") if tool.style is not None else None
    styles = pack.vocabulary.styles
    lean = set(styles[style].roles) if style in styles else set()  # the style's roles
    owned = sorted({o.id for o in view.owned()})
    if len(owned) < size:
        many = catalog.schema.plural(view.unit_kind)
        raise ToolError(f"the player has {len(owned)} {many}; a team of {size} needs more")
    forced = [u for u in include or [] if view.owns(u)][:size]
    quota = comp.quota if comp is not None else None
    slots = sum(quota.counts.values()) if quota is not None else size
    bonus = PREFER_SHARE * COMPOSITION_MAX / max(1, slots)

    def matches(uid: str) -> bool:
        entity = _entity(catalog, view.unit_kind, uid)
        leans = not lean or entity.value(tool.style or "") in lean
        return leans and all(entity.value(a) == v for a, v in prefer.items())

    # A lean on the spread attribute (a style's roles) is what the player asked for: the team is
    # searched without the spread's reward for variety there (it would undo the lean).
    leaning = bool(prefer or lean)
    spread_lean = tool.spread in prefer or (lean and tool.spread == tool.style)
    search = tool.model_copy(update={"spread": None}) if spread_lean else tool

    def objective(team: list[str]) -> float:
        value = float(_score(pack, search, team, opponent, context, view)["_total"])
        return value + bonus * sum(matches(u) for u in team) if leaning else value

    # Exhaustive search over a pool of the strongest singles keeps big collections cheap; with each
    # quota role's best few in it, so that a team keeping the quota is always among those searched
    # (the 12 strongest alone may hold one support: every team found then broke the quota).
    rest = sorted((u for u in owned if u not in forced), key=lambda u: (-objective([u]), u))
    pool = rest[:SUGGEST_POOL]
    if quota is not None:
        for role, count in quota.counts.items():
            fits = [u for u in rest if _entity(catalog, view.unit_kind, u).value(quota.attribute) == role]
            pool += [u for u in fits[:count] if u not in pool]
    teams = (sorted([*forced, *t]) for t in itertools.combinations(pool, size - len(forced)))
    best = min(teams, key=lambda t: (-objective(t), t))
    out: dict[str, Any] = {
        "size": size,
        "units": [_ref(catalog, view.unit_kind, u) for u in best],
        "opponent": [_ref(catalog, view.unit_kind, u) for u in opponent],
        **_scored(pack, tool, best, opponent, context, view),
    }
    if where is not None and context is not None:
        out[where] = _ref(catalog, where, context)
    if style is not None:
        out["style"] = style
    if leaning:
        out |= {"prefer": prefer, "matching": sum(matches(u) for u in best),
                "available": sum(matches(u) for u in owned)}  # fmt: skip
    if include is not None:
        out |= {"include": [_ref(catalog, view.unit_kind, u) for u in forced],
                "not_owned": [u for u in include if not view.owns(u)]}  # fmt: skip
    return out


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
        # Optional arguments only a schema that has them gets: the match context (a unit x context
        # matchup) and, for suggest_group, the unit attributes a team can lean to.
        context = _context_arg(pack)
        if tool.builtin == "score_group":
            members = _members_arg(pack)
            params = {members: _ids(f"the team ({many}, id or name)", 1), **params}
            required, entities = [members], {members: unit, **entities}
            description = (
                f"Score a team of {many} 0-100 (power, composition, edge against an optional opponent)."
            )
        else:
            params["size"] = {"type": "integer", "minimum": 1, "maximum": 10, "description": "team size"}
            params["include"] = _ids(f"the player's {many} the team must have, optional")
            entities["include"] = unit
            description = f"The best team from the player's {many}, optionally against an opponent."
            for attr, values in preferences(pack).items():
                params[attr] = {"type": "string", "enum": values, "description": f"prefer this {attr}"}
            if tool.style is not None:
                params["style"] = {"type": "string", "enum": sorted(pack.vocabulary.styles),
                                   "description": "preferred play style (the pack's styles)"}  # fmt: skip
        if context is not None:
            params[context] = {
                "type": "string",
                "description": f"the {context}, optional: the fit on it counts",
            }
            entities[context] = context
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
        result_schema=builtin_shape(schema, tool.builtin, tool.matchup),
    )
