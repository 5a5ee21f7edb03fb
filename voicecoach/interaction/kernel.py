"""W3 Interaction: cross-turn guidance scheduling (paper §6, appendices A.3 and E).

W3 prevents fatigue drift (drift C): advice that is fine on its own but repeats what the
coach said a turn ago. It is a pure function of (resolved cross-turn state, candidate pool,
seed), shared by the three reply branches (recommend, teaching, knowledge-qa), which
differ only in their candidate pool and its p_c / w_c / cooldown configuration:

1. hard filter: drop candidates still cooling down, the candidate issued the turn before,
   and cross-turn rule violators (the caller says what violates);
2. Bernoulli leak: keep c iff U_c < p_c, so the pick does not collapse onto the
   highest-weight candidate;
3. weighted pick of c* with probability proportional to w_c;
4. writeback: a new ``answer.meta`` (c* or "no guidance") that later turns read back
   through ``s_sh``.

Every random draw comes from one `random.Random` seeded from (session seed, turn index,
branch), so the same seed and the same prior answer.meta sequence give a byte-identical
meta on replay, whatever order the candidates arrive in.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from voicecoach.core.state import SESSION_HISTORY_K, AnswerMeta, LiveState, get_field
from voicecoach.domain.pack import Pack, W3Candidate
from voicecoach.domain.view import StateView

NO_GUIDANCE = "none"  # answer.meta.guidance_type when W3 abstains

# A cross-turn rule: the reason candidate c may not be issued now, or None when it may.
Violates = Callable[[W3Candidate], str | None]


# --- step 0: resolve the cross-turn state from s_sh -----------------------------------------


@dataclass(frozen=True)
class CrossTurnState:
    """What the prior answer.meta records imply for the turn being decided."""

    turn_index: int
    branch: str
    cooling: dict[str, int]  # candidate id -> last turn index it still cools (>= turn_index)
    previous_candidate: str | None  # issued by the latest prior meta; never issued twice in a row
    recent_lineups: tuple[str, ...]  # lineups recommended in the window, oldest first
    abstain_streak: int  # consecutive latest metas that issued no guidance


def resolve_cross_turn_state(
    history: Sequence[AnswerMeta], c1_branch: str, turn_index: int, k: int = SESSION_HISTORY_K
) -> CrossTurnState:
    """Reconstruct cooldown_t from the answer.meta of the prior K turns (paper §6).

    Only metas of turns ``turn_index - k .. turn_index - 1`` count: older ones are outside
    s_sh, and a meta of this turn or a later one (a retried or replayed turn) must not
    influence its own decision, or a replay would not reproduce it.
    """
    window = sorted(
        (m for m in history if turn_index - k <= m.turn_index < turn_index), key=lambda m: m.turn_index
    )
    cooling: dict[str, int] = {}
    for meta in window:
        for cid, last in meta.cooldown_writeback.items():
            # Each meta carries forward what still cools, so entries repeat; keep the latest end.
            if last >= turn_index:
                cooling[cid] = max(last, cooling.get(cid, last))
    streak = 0
    for meta in reversed(window):
        if meta.candidate_id is not None:
            break
        streak += 1
    return CrossTurnState(
        turn_index=turn_index,
        branch=c1_branch,
        cooling=dict(sorted(cooling.items())),
        # The latest prior meta, even if turns without a W3 decision came in between: the
        # player hears answers in sequence, so "consecutive" means consecutive answers.
        previous_candidate=window[-1].candidate_id if window else None,
        recent_lineups=tuple(m.lineup_id for m in window if m.lineup_id is not None),
        abstain_streak=streak,
    )


# --- steps 1-4: select guidance ---------------------------------------------------------


@dataclass(frozen=True)
class W3Decision:
    """The outcome of one W3 run: c* (or None for "no guidance") and the evidence behind it."""

    chosen: W3Candidate | None
    filtered: dict[str, str]  # candidate id -> why the hard filter dropped it
    survivors: tuple[W3Candidate, ...]  # C_2: passed both the hard filter and the Bernoulli leak
    meta: AnswerMeta  # the writeback for later turns
    reason: str | None  # why W3 abstained; None when it chose a candidate


def session_seed(session_id: str) -> int:
    """A stable seed for a session id (the injectable seed's default).

    sha256, not hash(): Python salts str hashes per process, which would break replay.
    """
    return int.from_bytes(hashlib.sha256(session_id.encode("utf-8")).digest()[:8], "big")


def _turn_rng(seed: int, turn_index: int, branch: str) -> random.Random:
    # One RNG per (session, turn, branch): a turn's draws do not depend on how many draws
    # earlier turns made, so replaying turn t needs only the seed and the prior metas.
    material = f"w3|{seed}|{turn_index}|{branch}".encode()
    return random.Random(int.from_bytes(hashlib.sha256(material).digest(), "big"))


def candidate_pool_hash(candidates: Sequence[W3Candidate]) -> str:
    """Fingerprint of the pool configuration (ids with p_c, w_c, cooldown), order-independent.

    Stored in answer.meta so a replay can tell "same seed, different config" from a bug.
    """
    canon = [
        {"id": c.id, "p": c.p, "w": c.w, "cooldown": c.cooldown}
        for c in sorted(candidates, key=lambda c: c.id)
    ]
    blob = json.dumps(canon, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def select_guidance(
    cross: CrossTurnState,
    candidates: Sequence[W3Candidate],
    seed: int,
    turn_index: int,
    branch: str,
    violates: Violates | None = None,
) -> W3Decision:
    """Run the four W3 steps over the candidate pool C of `branch` at `turn_index`."""
    # Canonical order: sorting by id makes every draw independent of the input order.
    pool = sorted(candidates, key=lambda c: c.id)
    ids = [c.id for c in pool]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise ValueError(f"W3 candidate pool for {branch!r} has candidate {dup!r} twice")

    # 1. Hard filter -> C_1.
    filtered: dict[str, str] = {}
    for c in pool:
        if c.id in cross.cooling:
            filtered[c.id] = f"cooling down until turn {cross.cooling[c.id]}"
        elif c.id == cross.previous_candidate:
            # Holds even when a misconfigured cooldown or a lost writeback left it uncooled.
            filtered[c.id] = "issued in the previous turn"
        elif violates is not None and (why := violates(c)) is not None:
            filtered[c.id] = why
    c1 = [c for c in pool if c.id not in filtered]

    # 2. Bernoulli leak -> C_2. Draw U_c for every candidate of the pool, filtered or not, so
    # whether c leaks through does not depend on which other candidates were filtered.
    rng = _turn_rng(seed, turn_index, branch)
    u = {c.id: rng.random() for c in pool}
    c2 = tuple(c for c in c1 if u[c.id] < c.p)

    # 3. Weighted pick of c* with probability w_c / sum(w), on the same RNG.
    chosen: W3Candidate | None = None
    if c2:
        r = rng.random() * sum(c.w for c in c2)
        chosen = c2[-1]  # float round-off may leave r just past the last bucket
        for c in c2:
            r -= c.w
            if r < 0:
                chosen = c
                break

    # 4. Writeback. Carry forward what still cools after this turn, so a later turn needs only
    # the latest metas; the chosen candidate rests for its cooldown window.
    writeback = {cid: last for cid, last in cross.cooling.items() if last > turn_index}
    if chosen is not None:
        writeback[chosen.id] = max(turn_index + chosen.cooldown, writeback.get(chosen.id, 0))
    meta = AnswerMeta(
        turn_index=turn_index,
        branch=branch,
        guidance_type=chosen.guidance_type if chosen else NO_GUIDANCE,
        candidate_id=chosen.id if chosen else None,
        lineup_id=chosen.lineup_id if chosen else None,
        cooldown_writeback=dict(sorted(writeback.items())),
        seed=seed,
        candidate_pool_hash=candidate_pool_hash(pool),
    )
    if chosen is not None:
        reason = None
    elif not pool:
        reason = "empty candidate pool"
    elif not c1:
        reason = "every candidate is cooling down, was just issued, or breaks a cross-turn rule"
    else:
        reason = "no candidate passed the Bernoulli leak"
    return W3Decision(chosen=chosen, filtered=filtered, survivors=c2, meta=meta, reason=reason)


# --- c3: what the Talker is told ----------------------------------------------------------


class _Control(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Guidance(_Control):
    """The one piece of guidance the reply must carry this turn."""

    guidance_type: str
    candidate_id: str
    text: str
    lineup_id: str | None = None


class InteractionControl(_Control):
    """c3 = W3(x, s_sh, c1): the cross-turn decision the Talker words but does not make."""

    branch: str
    turn_index: int
    guidance: Guidance | None  # None: give no guidance this turn
    cooling: list[str]  # candidate ids still cooling: the reply must not repeat them
    cooling_lineups: list[str]  # their lineups, which the reply must not recommend again
    abstain_reason: str | None = None


def interact(
    state: LiveState,
    pack: Pack,
    branch: str,
    turn_index: int,
    seed: int,
    violates: Violates | None = None,
    candidates: Sequence[W3Candidate] | None = None,
    pair: str = "",
) -> tuple[InteractionControl, AnswerMeta]:
    """One W3 run over `state.sh`: the c3 control for the Talker and the answer.meta to append.

    `pair` is c1's "intent/sub_intent": a candidate whose `unsaid_after` names it, or whose
    `said_after` topics leave it out, is held back.

    The caller appends the meta to s_sh only once the turn commits (a barge-in discards it).
    """
    if candidates is None:
        # A branch the pack configures no pool for gets an empty one: W3 abstains.
        candidates = next((cfg.pool for name, cfg in pack.w3.branches.items() if name == branch), [])
    cross = resolve_cross_turn_state(state.sh.metas, branch, turn_index)
    decision = select_guidance(
        cross, candidates, seed, turn_index, branch, _with_requires(state, violates, pair, pack)
    )

    # Cooling ids may come from any branch's pool (a lineup recommended in `recommend` still
    # cools while the player asks a knowledge question), so look their lineups up everywhere.
    by_id = {c.id: c for cfg in pack.w3.branches.values() for c in cfg.pool}
    by_id.update((c.id, c) for c in candidates)
    cooling = sorted(cross.cooling)
    lineups = {lu for cid in cooling if cid in by_id and (lu := by_id[cid].lineup_id) is not None}
    c = decision.chosen
    control = InteractionControl(
        branch=branch,
        turn_index=turn_index,
        guidance=(
            Guidance(guidance_type=c.guidance_type, candidate_id=c.id, text=c.text, lineup_id=c.lineup_id)
            if c is not None
            else None
        ),
        cooling=cooling,
        cooling_lineups=sorted(lineups),
        abstain_reason=decision.reason,
    )
    return control, decision.meta


def _with_requires(
    state: LiveState, violates: Violates | None, pair: str = "", pack: Pack | None = None
) -> Violates:
    """`violates`, plus: a candidate whose `requires` decision fields the state lacks is held back,
    and so is one whose `owned` fields name a unit the player does not own, and one the turn's
    answer (`pair`) covers already or whose topics it is not on."""
    view = StateView(pack, state) if pack is not None else None

    def check(c: W3Candidate) -> str | None:
        if pair and pair in c.unsaid_after:
            return f"the {pair} answer covers it"
        if pair and not c.on_topic(pair):
            return f"off the {pair} topic"
        missing = [path for path in c.requires if get_field(state, path) in (None, [], {})]
        if missing:
            return f"needs {', '.join(missing)}"
        for path in c.owned:
            unit = get_field(state, path)
            if view is not None and not isinstance(unit, str):
                return f"no unit of the player's at {path}"  # "that loadout" of no hero in focus
            if view is not None and not view.owns(unit):
                return f"{unit} is not the player's"
        for paths, side, whose in (
            (c.not_theirs, "opponent_side", "theirs"),
            (c.not_mine, "player_side", "yours"),
        ):
            for path in paths:
                unit = get_field(state, path)
                if view is not None and isinstance(unit, str) and unit in getattr(view, side)():
                    return f"{unit} is {whose} on the field"
        for path in c.ready:
            unit = get_field(state, path)
            if view is not None and isinstance(unit, str) and view.far_behind(unit):
                return f"{unit} is far behind on levels"
        for path in c.advances:
            unit = get_field(state, path)
            if view is not None and isinstance(unit, str) and not _has_later_tier(view, unit):
                return f"{unit} is at its last tier"
        for path in c.locks:
            unit = get_field(state, path)
            if view is not None and isinstance(unit, str) and not _has_locked(view, unit):
                return f"{unit} has nothing left to unlock"
        mine = [u for u in state.ic.mentioned_creatures if view is not None and view.owns(u)]
        if len(mine) >= 2 and any(path.startswith("ic.focus") for path in c.requires):
            # An answer about several of the player's units: "it" in the offer would be any of them.
            return f"the answer names {len(mine)} of the player's units"
        return violates(c) if violates is not None else None

    return check


def _has_locked(view: StateView, unit_id: str) -> bool:
    """Is one of the unit's options still locked for the player ("how to unlock its next skill"
    offered of a unit with every one unlocked is an offer of nothing)? False for one they lack."""
    return view.owns(unit_id) and any(not view.option_usable(o, unit_id) for o in view.options_of(unit_id))


def _has_later_tier(view: StateView, unit_id: str) -> bool:
    """Has the unit a tier past the player's (past its first, for one they lack)? True for a pack
    without tiers: the candidate's own `requires` decide there."""
    tiers = view.tiers(unit_id)
    if not tiers:
        return True
    owned = view.unit(unit_id)
    return ((owned.tier or 1) if owned is not None else 1) < len(tiers)


# --- the default cross-turn rule of the recommend branch -------------------------------------


def recommend_violations(pack: Pack, state: LiveState, excluded: set[str]) -> Violates:
    """A group candidate violates if it fields a unit the player lacks or excluded (pet: a lineup
    with a creature not owned; the candidates' `lineup_id`, the stored field name, is a group id).

    `excluded` holds unit ids or names (W2's excluded entities). With no units in s_fs (pet:
    fs.inventory; a schema.json pack: fs.collection) we cannot show the player owns anything, so
    every group is held back rather than risk recommending one they cannot field (drift B);
    candidates without a group still go. Members and ownership are read through `StateView`.
    """
    view = StateView(pack, state)
    schema = pack.catalog.schema
    unit, group_kind = view.unit_kind, view.group_kind
    excluded_ids = set()
    for name in excluded:
        found = pack.catalog.by_name(unit, name)
        excluded_ids.add(found.id if found is not None else name)

    def violates(c: W3Candidate) -> str | None:
        if c.lineup_id is None:
            return None
        group = pack.catalog.get(group_kind, c.lineup_id) if group_kind is not None else None
        if group is None:
            return f"unknown {group_kind or 'group'} {c.lineup_id!r}"
        if not view.known:
            return f"{schema.collection_noun()} unknown"
        for uid in view.members(group.id):
            if uid in excluded_ids:
                return f"{group_kind} {group.id} fields excluded {unit} {uid!r}"
            if not view.owns(uid):
                return f"{group_kind} {group.id} needs unowned {unit} {uid!r}"
        return None

    return violates
