"""W3 Interaction: cooldown, Bernoulli leak, weighted pick, writeback and replay (paper §6, A.3, E)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voicecoach.core.state import (
    SESSION_HISTORY_K,
    AnswerMeta,
    Collection,
    FactSlots,
    Inventory,
    LiveState,
    MatchState,
    OwnedCreature,
    OwnedEntity,
    SessionHistory,
)
from voicecoach.domain.catalog import Catalog, Entity
from voicecoach.domain.pack import (
    PACKS_DIR,
    Pack,
    W3Branch,
    W3Candidate,
    W3Config,
    load_pack,
)
from voicecoach.interaction.kernel import (
    NO_GUIDANCE,
    candidate_pool_hash,
    interact,
    recommend_violations,
    resolve_cross_turn_state,
    select_guidance,
    session_seed,
)

BRANCHES = ["recommend", "teaching", "knowledge-qa"]
Violates = Callable[[W3Candidate], "str | None"]


def cand(
    cid: str, cooldown: int = 1, p: float = 1.0, w: float = 1.0, lineup: str | None = None
) -> W3Candidate:
    return W3Candidate(
        id=cid,
        guidance_type="lineup" if lineup else "tip",
        lineup_id=lineup,
        text=f"say {cid}",
        cooldown=cooldown,
        p=p,
        w=w,
    )


# Short cooldowns and high p on purpose: without the hard filter, repeats would be frequent.
POOL = [
    cand("a", cooldown=1, p=1.0, w=5.0),
    cand("b", cooldown=1, p=0.9, w=1.0),
    cand("c", cooldown=2, p=0.7, w=3.0),
    cand("d", cooldown=1, p=0.5, w=0.5),
    cand("e", cooldown=3, p=0.95, w=2.0),
    cand("f", cooldown=1, p=0.3, w=8.0),
]


def meta(turn: int, cid: str | None = None, writeback: dict[str, int] | None = None) -> AnswerMeta:
    return AnswerMeta(
        turn_index=turn,
        branch="teaching",
        guidance_type="tip" if cid else NO_GUIDANCE,
        candidate_id=cid,
        cooldown_writeback=writeback or {},
        seed=0,
        candidate_pool_hash="0" * 16,
    )


def run_session(
    seed: int,
    pools: Sequence[Sequence[W3Candidate]],
    branches: Sequence[str],
    rules: Sequence[Violates | None] | None = None,
    drop_writeback: bool = False,
) -> list[AnswerMeta]:
    """Run one W3 decision per turn, feeding each meta back into s_sh as the runtime does."""
    metas: list[AnswerMeta] = []
    for t, (pool, branch) in enumerate(zip(pools, branches, strict=True)):
        cross = resolve_cross_turn_state(metas, branch, t)
        d = select_guidance(cross, pool, seed, t, branch, rules[t] if rules else None)
        # drop_writeback simulates a lost or misconfigured cooldown: only the
        # previous-turn rule is left to prevent back-to-back repeats.
        metas.append(d.meta.model_copy(update={"cooldown_writeback": {}}) if drop_writeback else d.meta)
    return metas


def rule_from(ids: frozenset[str]) -> Violates:
    return lambda c: "ruled out" if c.id in ids else None


@st.composite
def sessions(draw: st.DrawFn) -> tuple[int, list[list[W3Candidate]], list[str], list[Violates | None]]:
    seed = draw(st.integers(min_value=0, max_value=2**63 - 1))
    n = draw(st.integers(min_value=2, max_value=30))
    ids = [c.id for c in POOL]
    pools, branches, rules = [], [], []
    for _ in range(n):
        keep = draw(st.sets(st.sampled_from(ids), min_size=1))
        pools.append([c for c in POOL if c.id in keep])
        branches.append(draw(st.sampled_from(BRANCHES)))
        bad = draw(st.frozensets(st.sampled_from(ids), max_size=2))
        rules.append(rule_from(bad) if bad else None)
    return seed, pools, branches, rules


# --- no candidate in two consecutive turns ----------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(sessions(), st.booleans())
def test_never_same_candidate_two_turns_in_a_row(session, drop_writeback: bool) -> None:
    seed, pools, branches, rules = session
    metas = run_session(seed, pools, branches, rules, drop_writeback=drop_writeback)
    issued = [m.candidate_id for m in metas]
    for prev, cur in zip(issued, issued[1:], strict=False):
        assert cur is None or cur != prev, issued
    for m, pool, rule in zip(metas, pools, rules, strict=True):
        if m.candidate_id is not None:
            chosen = next(c for c in pool if c.id == m.candidate_id)  # only from this turn's pool
            assert rule is None or rule(chosen) is None  # never a rule violator


def test_previous_turn_rule_holds_without_any_cooldown_writeback() -> None:
    # One dominant candidate with p=1: without the previous-turn rule it would win every turn.
    pool = [cand("hot", w=1e6), cand("cold", w=1e-6)]
    metas = run_session(7, [pool] * 12, ["teaching"] * 12, drop_writeback=True)
    assert [m.candidate_id for m in metas] == ["hot", "cold"] * 6


# --- replay is byte-identical -------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(sessions(), st.randoms(use_true_random=False))
def test_replay_is_byte_identical_and_input_order_free(session, shuffler: random.Random) -> None:
    seed, pools, branches, rules = session
    first = [m.model_dump_json() for m in run_session(seed, pools, branches, rules)]
    again = [m.model_dump_json() for m in run_session(seed, pools, branches, rules)]
    assert first == again
    shuffled = [shuffler.sample(list(p), len(p)) for p in pools]
    assert [m.model_dump_json() for m in run_session(seed, shuffled, branches, rules)] == first


@settings(max_examples=50, deadline=None)
@given(sessions())
def test_replaying_one_turn_from_its_prior_metas_reproduces_it(session) -> None:
    seed, pools, branches, rules = session
    metas = run_session(seed, pools, branches, rules)
    t = len(metas) - 1
    # A stored history that already holds turn t (a retried turn) must not change turn t.
    for history in (metas[:t], metas):
        cross = resolve_cross_turn_state(history, branches[t], t)
        d = select_guidance(cross, pools[t], seed, t, branches[t], rules[t])
        assert d.meta.model_dump_json() == metas[t].model_dump_json()


def test_seed_changes_the_sequence() -> None:
    runs = {tuple(m.candidate_id for m in run_session(s, [POOL] * 20, ["teaching"] * 20)) for s in range(5)}
    assert len(runs) > 1


_REPLAY_SCRIPT = """
from voicecoach.domain.pack import W3Candidate
from voicecoach.interaction.kernel import resolve_cross_turn_state, select_guidance, session_seed
pool = [W3Candidate(id=f"c{i}", guidance_type="tip", cooldown=1 + i % 3, p=0.3 + 0.1 * i, w=1.0 + i)
        for i in range(6)]
metas = []
for t in range(15):
    cross = resolve_cross_turn_state(metas, "teaching", t)
    metas.append(select_guidance(cross, pool, session_seed("session-42"), t, "teaching").meta)
print("\\n".join(m.model_dump_json() for m in metas))
"""


def test_replay_is_identical_across_processes() -> None:
    # Python salts str hashes per process; seeding from hash() would fail this test.
    root = Path(__file__).resolve().parents[2]
    outs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(root)}
        proc = subprocess.run(
            [sys.executable, "-c", _REPLAY_SCRIPT], capture_output=True, text=True, env=env, check=True
        )
        outs.append(proc.stdout)
    assert outs[0] == outs[1]
    assert outs[0].count("\n") == 15


def test_session_seed_is_stable() -> None:
    assert session_seed("abc") == session_seed("abc")
    assert session_seed("abc") != session_seed("abd")
    assert session_seed("abc") == 0xBA7816BF8F01CFEA  # first 8 bytes of sha256("abc")


# --- cooldown ------------------------------------------------------------------------------------


def test_cooldown_sole_candidate_rests_for_its_window() -> None:
    pool = [cand("hot", cooldown=3)]
    issued = [m.candidate_id for m in run_session(1, [pool] * 9, ["teaching"] * 9)]
    assert issued == ["hot", None, None, None, "hot", None, None, None, "hot"]


@pytest.mark.parametrize("seed", range(10))
def test_cooldown_three_blocks_the_next_three_turns(seed: int) -> None:
    # "hot" outweighs the rest a billion to one, so whenever it is allowed, it wins.
    pool = [cand("hot", cooldown=3, w=1e9), cand("x", w=1.0), cand("y", w=1.0)]
    metas = run_session(seed, [pool] * 13, ["recommend"] * 13)
    issued = [m.candidate_id for m in metas]
    assert issued[0::4] == ["hot"] * 4, issued
    for t in (0, 4, 8):
        assert metas[t].cooldown_writeback["hot"] == t + 3
        assert "hot" not in issued[t + 1 : t + 4]
        assert all(i in ("x", "y") for i in issued[t + 1 : t + 4])


def test_cooling_candidate_is_reported_with_reason() -> None:
    cross = resolve_cross_turn_state([meta(4, "a", {"a": 7})], "teaching", 6)
    assert cross.cooling == {"a": 7}
    d = select_guidance(cross, [cand("a"), cand("b")], 0, 6, "teaching")
    assert "cooling" in d.filtered["a"]
    assert d.chosen is not None and d.chosen.id == "b"
    # the still-cooling entry is carried forward next to the new one
    assert d.meta.cooldown_writeback == {"a": 7, "b": 7}


def test_writeback_drops_entries_that_stop_cooling() -> None:
    cross = resolve_cross_turn_state([meta(4, "a", {"a": 5})], "teaching", 5)
    assert cross.cooling == {"a": 5}
    d = select_guidance(cross, [cand("b", cooldown=2)], 0, 5, "teaching")
    assert d.meta.cooldown_writeback == {"b": 7}


# --- Bernoulli leak and weighted pick ---------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=2**63 - 1), st.integers(min_value=1, max_value=1000))
def test_single_survivor_with_p_one_is_always_chosen(seed: int, turn: int) -> None:
    pool = [cand("a"), cand("b"), cand("c"), cand("d", w=1e-3)]
    cross = resolve_cross_turn_state([meta(turn - 1, "a", {"a": turn + 2})], "recommend", turn)
    rule = rule_from(frozenset({"b", "c"}))
    d = select_guidance(cross, pool, seed, turn, "recommend", rule)
    assert d.chosen is not None and d.chosen.id == "d"
    assert [c.id for c in d.survivors] == ["d"]
    assert d.meta.candidate_id == "d" and d.meta.guidance_type == "tip"


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=2**63 - 1), st.integers(min_value=1, max_value=1000))
def test_tiny_p_means_no_guidance_and_still_writes_back(seed: int, turn: int) -> None:
    pool = [cand(i, p=1e-9, w=10.0) for i in "abcdef"]
    cross = resolve_cross_turn_state([meta(turn - 1, "z", {"z": turn + 1})], "knowledge-qa", turn)
    d = select_guidance(cross, pool, seed, turn, "knowledge-qa")
    assert d.chosen is None and d.survivors == ()
    assert d.reason == "no candidate passed the Bernoulli leak"
    assert d.meta.guidance_type == NO_GUIDANCE and d.meta.candidate_id is None and d.meta.lineup_id is None
    assert d.meta.turn_index == turn and d.meta.seed == seed
    assert d.meta.cooldown_writeback == {"z": turn + 1}  # abstaining still carries cooldowns forward
    assert d.meta.candidate_pool_hash == candidate_pool_hash(pool)


def test_leak_prevents_collapse_onto_the_heaviest_candidate() -> None:
    # "big" has 100x the weight but leaks through only 30% of the time.
    pool = [cand("big", p=0.3, w=100.0), cand("small", p=1.0, w=1.0)]
    picks = [
        select_guidance(resolve_cross_turn_state([], "teaching", 0), pool, s, 0, "teaching").chosen
        for s in range(2000)
    ]
    share_big = sum(1 for c in picks if c is not None and c.id == "big") / len(picks)
    assert 0.25 < share_big < 0.35


def test_weighted_pick_follows_w() -> None:
    pool = [cand("a", w=3.0), cand("b", w=1.0)]
    cross = resolve_cross_turn_state([], "teaching", 0)
    picks = [select_guidance(cross, pool, s, 0, "teaching").chosen for s in range(4000)]
    share_a = sum(1 for c in picks if c is not None and c.id == "a") / len(picks)
    assert 0.72 < share_a < 0.78


def test_everything_filtered_abstains_with_reason() -> None:
    cross = resolve_cross_turn_state([meta(0, "a", {"a": 3})], "teaching", 1)
    d = select_guidance(cross, [cand("a")], 0, 1, "teaching")
    assert d.chosen is None and "cooling" in (d.reason or "")
    assert select_guidance(cross, [], 0, 1, "teaching").reason == "empty candidate pool"


def test_duplicate_candidate_ids_are_rejected() -> None:
    with pytest.raises(ValueError, match="twice"):
        select_guidance(resolve_cross_turn_state([], "teaching", 0), [cand("a"), cand("a")], 0, 0, "teaching")


def test_pool_hash_is_order_free_and_tracks_config() -> None:
    a, b = cand("a"), cand("b")
    assert candidate_pool_hash([a, b]) == candidate_pool_hash([b, a])
    assert len(candidate_pool_hash([a, b])) == 16
    assert candidate_pool_hash([a, b]) != candidate_pool_hash([a, cand("b", p=0.5)])
    assert candidate_pool_hash([a, b]) != candidate_pool_hash([a, cand("b", cooldown=2)])


# --- the K=20 history window ---------------------------------------------------------------------


def test_metas_older_than_k_turns_do_not_cool() -> None:
    old = meta(0, "a", {"a": 1000})  # a misconfigured, very long cooldown
    later = [meta(t, "b" if t % 2 else "c") for t in range(1, 21)]
    history = [old, *later]
    assert SESSION_HISTORY_K == 20
    assert "a" in resolve_cross_turn_state(history, "teaching", 20).cooling  # turn 0 still in window
    cross = resolve_cross_turn_state(history, "teaching", 21)  # turn 0 now 21 turns back
    assert "a" not in cross.cooling
    d = select_guidance(cross, [cand("a")], 0, 21, "teaching")
    assert d.chosen is not None and d.chosen.id == "a"


def test_cross_turn_state_summarises_the_window() -> None:
    history = [
        AnswerMeta(
            turn_index=0,
            branch="recommend",
            guidance_type="lineup",
            candidate_id="rec_T1",
            lineup_id="T1",
            cooldown_writeback={"rec_T1": 3},
            seed=0,
            candidate_pool_hash="x",
        ),
        meta(1, "tip_a", {"rec_T1": 3, "tip_a": 2}),
        meta(2),
        meta(3),
    ]
    cross = resolve_cross_turn_state(history, "recommend", 4)
    assert cross.recent_lineups == ("T1",)
    assert cross.abstain_streak == 2
    assert cross.previous_candidate is None  # the latest answer gave no guidance
    assert cross.cooling == {}  # every entry ended before turn 4
    assert resolve_cross_turn_state(history, "recommend", 2).previous_candidate == "tip_a"
    assert resolve_cross_turn_state(history, "recommend", 2).cooling == {"rec_T1": 3, "tip_a": 2}


# --- recommend branch: cross-turn rule and interact() -----------------------------------------


def mini_pack() -> Pack:
    creatures = {
        cid: Entity(
            id=cid,
            name=name,
            element="fire",
            role="striker",
            rarity="common",
            stages=[name],
            base_power=10,
            skills=["s"],
        )
        for cid, name in [
            ("c1", "Emberpup"),
            ("c2", "Cindra"),
            ("c3", "Ashling"),
            ("c4", "Pyrokit"),
            ("c5", "Flarequill"),
        ]
    }
    lineups = {
        lid: Entity(id=lid, name=lid, creatures=list(members), style="balanced", summary="")
        for lid, members in [
            ("L_owned", ("c1", "c2", "c3")),
            ("L_unowned", ("c1", "c2", "c4")),
            ("L_excluded", ("c2", "c3", "c5")),
            ("L_owned2", ("c3", "c2", "c1")),
        ]
    }
    pool = [
        cand(f"rec_{lid}", cooldown=1, p=1.0, w=10.0 if lid == "L_unowned" else 1.0, lineup=lid)
        for lid in lineups
    ]
    pool.append(
        W3Candidate(id="rec_evolve_first", guidance_type="upgrade", text="evolve", cooldown=2, p=1.0, w=1.0)
    )
    entities = {
        "creature": creatures,
        "skill": {},
        "lineup": lineups,
        "element": {"fire": Entity(id="fire")},
    }
    catalog = Catalog(schema=load_pack().catalog.schema, entities=entities, tables={"elements": {}})
    return Pack(
        catalog=catalog,
        pack_id="mini",
        version="0",
        title="mini",
        persona="",
        domain_rules=[],
        tools=("get_inventory",),
        # W3 reads neither; the real pack's stand in for the fields every Pack has.
        vocabulary=load_pack().vocabulary,
        templates=load_pack().templates,
        phi=[],
        w3=W3Config(
            version="0",
            branches={
                "recommend": W3Branch(pool=pool),
                "teaching": W3Branch(pool=[cand("tip_x"), cand("tip_y")]),
            },
        ),
    )


def owning(*ids: str) -> LiveState:
    return LiveState(fs=FactSlots(inventory=Inventory(owned=[OwnedCreature(creature_id=i) for i in ids])))


def test_recommend_violations_reasons() -> None:
    pack = mini_pack()
    rule = recommend_violations(pack, owning("c1", "c2", "c3", "c5"), {"Flarequill"})  # by name
    pool = {c.id: c for c in pack.w3.branches["recommend"].pool}
    assert rule(pool["rec_L_owned"]) is None
    assert "unowned" in (rule(pool["rec_L_unowned"]) or "")
    assert "excluded" in (rule(pool["rec_L_excluded"]) or "")
    assert rule(pool["rec_evolve_first"]) is None  # not a lineup: nothing to own
    no_inventory = recommend_violations(pack, LiveState(), set())
    assert no_inventory(pool["rec_L_owned"]) == "inventory unknown"
    assert no_inventory(pool["rec_evolve_first"]) is None


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=2**63 - 1), st.integers(min_value=2, max_value=30))
def test_lineup_with_unowned_or_excluded_creature_is_never_issued(seed: int, turns: int) -> None:
    pack = mini_pack()
    state = owning("c1", "c2", "c3", "c5")
    rule = recommend_violations(pack, state, {"c5"})
    issued = []
    for t in range(turns):
        control, m = interact(state, pack, "recommend", t, seed, violates=rule)
        state = state.model_copy(update={"sh": SessionHistory(metas=[*state.sh.metas, m])})
        issued.append(m.lineup_id)
        assert control.guidance is None or control.guidance.lineup_id == m.lineup_id
    assert "L_unowned" not in issued and "L_excluded" not in issued
    assert {"L_owned", "L_owned2"} & set(issued)  # a satisfiable lineup does get recommended


def test_interact_reports_cooling_and_guidance() -> None:
    pack = mini_pack()
    state = owning("c1", "c2", "c3")
    control, m0 = interact(state, pack, "recommend", 0, 5, violates=recommend_violations(pack, state, set()))
    assert control.guidance is not None and control.abstain_reason is None
    assert control.guidance.candidate_id == m0.candidate_id
    state = state.model_copy(update={"sh": SessionHistory(metas=[m0])})
    control1, m1 = interact(state, pack, "teaching", 1, 5)
    assert control1.branch == "teaching" and m1.candidate_id in {"tip_x", "tip_y"}
    assert m0.candidate_id in control1.cooling  # still cooling at turn 1 (cooldown >= 1)
    if m0.lineup_id is not None:
        assert control1.cooling_lineups == [m0.lineup_id]
    assert m1.cooldown_writeback[m0.candidate_id or ""] >= 1  # carried into the teaching meta


def test_interact_unknown_branch_abstains() -> None:
    control, m = interact(LiveState(), mini_pack(), "knowledge-qa", 0, 1)
    assert control.guidance is None and control.abstain_reason == "empty candidate pool"
    assert m.guidance_type == NO_GUIDANCE


# --- the shipped pet_arena configuration ---------------------------------------------------------


def test_shipped_w3_json_is_a_valid_config() -> None:
    raw = json.loads((PACKS_DIR / "pet_arena" / "w3.json").read_text(encoding="utf-8"))
    cfg = W3Config.model_validate(raw)
    rec = cfg.branches["recommend"].pool
    lineup_ids = [c.lineup_id for c in rec if c.guidance_type == "lineup"]
    assert lineup_ids == [f"T{i}" for i in range(1, 17)]
    for c in rec:
        if c.lineup_id is not None:
            assert c.id == f"rec_{c.lineup_id}"
            assert 2 <= c.cooldown <= 4 and 0.6 <= c.p <= 0.9 and 0.5 <= c.w <= 2.0
    assert any(c.lineup_id is None for c in rec)
    assert len(cfg.branches["teaching"].pool) >= 10
    assert all(c.guidance_type == "tip" and c.text for c in cfg.branches["teaching"].pool)
    assert all(c.guidance_type == "followup" and c.text for c in cfg.branches["knowledge-qa"].pool)
    ids = [c.id for b in cfg.branches.values() for c in b.pool]
    assert len(ids) == len(set(ids))  # cooldowns are keyed by id across branches


def test_shipped_pack_loads_with_w3() -> None:
    pack = load_pack()
    assert set(pack.w3.branches) == {"recommend", "teaching", "knowledge-qa"}
    state = LiveState(
        fs=FactSlots(
            inventory=Inventory(
                owned=[OwnedCreature(creature_id=c) for c in pack.catalog.entities["creature"]]
            )
        )
    )
    control, m = interact(
        state, pack, "recommend", 0, session_seed("smoke"), violates=recommend_violations(pack, state, set())
    )
    assert m.candidate_pool_hash == candidate_pool_hash(pack.w3.branches["recommend"].pool)


def test_a_candidate_whose_required_fields_are_absent_is_held_back() -> None:
    """'Want to know how to unlock its next skill?' needs a creature the player named."""
    about_it = cand("fu_it", p=1.0).model_copy(update={"requires": ["ic.focus_creature"]})
    pool = [about_it, cand("fu_any", p=1.0, w=1e-9)]
    control, _ = interact(LiveState(), mini_pack(), "knowledge-qa", 0, 3, candidates=pool)
    assert control.guidance is not None and control.guidance.candidate_id == "fu_any"
    named = LiveState().model_copy(update={"ic": LiveState().ic.model_copy(update={"focus_creature": "c1"})})
    control, _ = interact(named, mini_pack(), "knowledge-qa", 0, 3, candidates=pool)
    assert control.guidance is not None and control.guidance.candidate_id == "fu_it"


def test_an_offer_about_a_unit_the_player_does_not_own_is_held_back() -> None:
    """'I can build a lineup around that' right after 'you don't own c1' offers what cannot be done."""
    around = cand("fu_around", p=1.0).model_copy(update={"owned": ["ic.focus_creature"]})
    pool = [around, cand("fu_any", p=1.0, w=1e-9)]
    ic = LiveState().ic.model_copy(update={"focus_creature": "c1"})
    for owned, want in (([], "fu_any"), (["c1"], "fu_around")):
        inventory = Inventory(owned=[OwnedCreature(creature_id=c) for c in owned])
        state = LiveState(ic=ic, fs=FactSlots(inventory=inventory))
        control, _ = interact(state, mini_pack(), "knowledge-qa", 0, 3, candidates=pool)
        assert control.guidance is not None and control.guidance.candidate_id == want, owned


def test_an_offer_about_a_unit_on_the_wrong_side_is_held_back() -> None:
    """'Want me to check how that matches up against your opponent?' of one the opponent fields,
    'which of your heroes counter them?' of one the player fields: offers that make no sense."""
    vs_them = cand("fu_vs_them", p=1.0).model_copy(update={"not_theirs": ["ic.focus_creature"]})
    counter_it = cand("fu_counter_it", p=1.0).model_copy(update={"not_mine": ["ic.focus_creature"]})
    for offer, side in ((vs_them, "opponent_lineup"), (counter_it, "player_lineup")):
        pool = [offer, cand("fu_any", p=1.0, w=1e-9)]
        for fielded, want in ((["c1"], "fu_any"), (["c2"], offer.id)):
            match = MatchState(round=1, **{side: fielded})
            ic = LiveState().ic.model_copy(update={"focus_creature": "c1", "match": match})
            state = LiveState(
                ic=ic, fs=FactSlots(inventory=Inventory(owned=[OwnedCreature(creature_id="c1")]))
            )
            control, _ = interact(state, mini_pack(), "knowledge-qa", 0, 3, candidates=pool)
            assert control.guidance is not None and control.guidance.candidate_id == want, (offer.id, fielded)


def test_an_offer_to_build_around_a_unit_far_behind_on_levels_is_held_back() -> None:
    """'I can suggest a lineup built around that' right after 'level 5 holds it back' contradicts
    the answer: not offered of a unit under half the level of the player's others."""
    around = cand("fu_around", p=1.0).model_copy(update={"ready": ["ic.focus_creature"]})
    pool = [around, cand("fu_any", p=1.0, w=1e-9)]
    ic = LiveState().ic.model_copy(update={"focus_creature": "c1"})
    for level, want in ((2, "fu_any"), (18, "fu_around")):
        owned = [
            OwnedCreature(creature_id="c1", level=level),
            *(OwnedCreature(creature_id=c, level=20) for c in ("c2", "c3")),
        ]
        state = LiveState(ic=ic, fs=FactSlots(inventory=Inventory(owned=owned)))
        control, _ = interact(state, mini_pack(), "knowledge-qa", 0, 3, candidates=pool)
        assert control.guidance is not None and control.guidance.candidate_id == want, level


def test_a_follow_up_the_turns_answer_covers_is_held_back() -> None:
    """'Want me to check how that matches up?' is not offered right after a matchup answer."""
    matchup = cand("fu_matchup", p=1.0).model_copy(update={"unsaid_after": ["element/matchup"]})
    pool = [matchup, cand("fu_other", p=1.0, w=1e-9)]
    control, _ = interact(
        LiveState(), mini_pack(), "knowledge-qa", 0, 3, candidates=pool, pair="element/matchup"
    )
    assert control.guidance is not None and control.guidance.candidate_id == "fu_other"
    control, _ = interact(
        LiveState(), mini_pack(), "knowledge-qa", 0, 3, candidates=pool, pair="skill/explain"
    )
    assert control.guidance is not None and control.guidance.candidate_id == "fu_matchup"


def test_a_tip_is_said_only_after_a_question_on_its_topics() -> None:
    """A training-points tip after "who beats Voltail?" is filler: it waits for a skill question."""
    tip = cand("rec_level_skills", p=1.0).model_copy(update={"said_after": ["skill", "inventory/strongest"]})
    pool = [tip, cand("fu_other", p=1.0, w=1e-9)]
    for pair, chosen in (
        ("creature/counters", "fu_other"),  # off its topics
        ("skill/best", "rec_level_skills"),  # an intent it lists: any of its sub-intents
        ("inventory/strongest", "rec_level_skills"),  # a pair it lists
        ("inventory/list", "fu_other"),  # another pair of that intent
    ):
        control, _ = interact(LiveState(), mini_pack(), "knowledge-qa", 0, 3, candidates=pool, pair=pair)
        assert control.guidance is not None and control.guidance.candidate_id == chosen, pair


def _collection(*ids: str) -> LiveState:
    return LiveState(fs=FactSlots(collection=Collection(units=[OwnedEntity(id=i) for i in ids])))


def test_recommend_violations_reads_a_schema_packs_groups_and_collection(toy: Pack) -> None:
    """The toy hero shooter: comps are the groups, heroes the units, fs.collection what is owned;
    the reasons name the pack's kinds."""
    dive = W3Candidate(id="rec_dive", guidance_type="comp", lineup_id="dive", cooldown=1, p=1.0, w=1.0)
    tip = W3Candidate(id="tip", guidance_type="tip", cooldown=1, p=1.0, w=1.0)
    ghost = dive.model_copy(update={"id": "rec_ghost", "lineup_id": "ghost"})
    assert recommend_violations(toy, _collection("vanta", "bulwark"), set())(dive) is None
    missing = recommend_violations(toy, _collection("vanta"), set())(dive)
    assert missing == "comp dive needs unowned hero 'bulwark'"
    by_callsign = recommend_violations(toy, _collection("vanta", "bulwark"), {"Wall"})  # no name: kept
    assert by_callsign(dive) is None
    by_name = recommend_violations(toy, _collection("vanta", "bulwark"), {"bulwark", "Vanta"})
    assert by_name(dive) == "comp dive fields excluded hero 'vanta'"
    unknown = recommend_violations(toy, LiveState(), set())
    assert unknown(dive) == "collection unknown" and unknown(tip) is None
    assert unknown(ghost) == "unknown comp 'ghost'"
    # pet's inventory says nothing about a hero shooter's units
    pet_inventory = LiveState(fs=FactSlots(inventory=Inventory(owned=[OwnedCreature(creature_id="vanta")])))
    assert recommend_violations(toy, pet_inventory, set())(dive) == "collection unknown"


def test_recommend_violations_pet_reasons_word_for_word(pack: Pack, state: LiveState) -> None:
    # conftest: T1 Wildfire Rush needs a creature the player does not own; main is owned.
    t1 = W3Candidate(id="rec_t1", guidance_type="lineup", lineup_id="T1", cooldown=1, p=1.0, w=1.0)
    members = pack.catalog.entities["lineup"]["T1"].value("creatures")
    missing = next(c for c in members if state.fs.inventory and not state.fs.inventory.owns(c))
    assert recommend_violations(pack, state, set())(t1) == f"lineup T1 needs unowned creature {missing!r}"
    first = pack.catalog.entities["creature"][members[0]]
    excluded = recommend_violations(pack, state, {first.name.upper()})(t1)
    assert excluded == f"lineup T1 fields excluded creature {first.id!r}"
    assert recommend_violations(pack, LiveState(), set())(t1) == "inventory unknown"
    ghost = t1.model_copy(update={"lineup_id": "T99"})
    assert recommend_violations(pack, state, set())(ghost) == "unknown lineup 'T99'"
