"""W2 Grounding: drift B (slot) and drift D (coherence) must be impossible in the paragraph plan.

Catalog facts these tests lean on (pet_arena pack):
- Emberfox (fire striker): Ember Fang and Flame Burst from the start, Blaze Charge at stage 2.
- Pyrowl (fire striker): Flame Burst, Scorch Mark, Inferno Roar (stage 3). Tidefang is water.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voicecoach.core.state import FactSlots, Inventory, LiveState, OwnedCreature
from voicecoach.domain.pack import Pack, load_pack
from voicecoach.grounding.diff import Conflict, diff, validate_against_catalog
from voicecoach.grounding.kernel import ground
from voicecoach.grounding.plan import AGGREGATE_DETAIL, Eligibility, Paragraph, phi_entry, psi, schedule
from voicecoach.grounding.prompt import slot_prompt
from voicecoach.grounding.repair import repair_attr_level_excludes, repair_entities_misclassified_as_skills
from voicecoach.grounding.slots import (
    AttributePref,
    GlobalConstraint,
    PickGroup,
    QuerySlots,
    parse_query_slots,
    query_slots_json_schema,
)

PACK: Pack = load_pack()
_CREATURES = PACK.catalog.entities["creature"]


def owned(cid: str, stage: int = 1, level: int = 1, unlocked: list[str] | None = None) -> OwnedCreature:
    return OwnedCreature(creature_id=cid, stage=stage, level=level, unlocked_skills=unlocked or [])


def state_with(*creatures: OwnedCreature) -> LiveState:
    return LiveState(fs=FactSlots(inventory=Inventory(owned=list(creatures))))


def conflict(conflicts: tuple[Conflict, ...], constraint: str) -> Conflict:
    found = [c for c in conflicts if c.constraint == constraint]
    assert len(found) == 1, f"{constraint} not judged exactly once in {[c.constraint for c in conflicts]}"
    return found[0]


def about(plan: tuple[Paragraph, ...] | list[Paragraph], constraint: str, kind: str) -> list[Paragraph]:
    return [p for p in plan if p.type == kind and constraint in p.constraints]


def has_clash(plan: tuple[Paragraph, ...] | list[Paragraph]) -> bool:
    return any(p.clashes(q) for i, p in enumerate(plan) for q in plan[i + 1 :])


EMBERFOX_STAGE1 = owned("emberfox", unlocked=["ember_fang", "flame_burst"])
SKILL = "attribute_prefs"


# --- the paper's drift examples, table-driven -----------------------------------------------------

DRIFT_CASES: list[tuple[str, dict[str, Any], list[OwnedCreature], str, dict[str, Any]]] = [
    (
        "B: skill not unlocked is never praised as available",
        {SKILL: [{"attribute": "skill", "value": "Blaze Charge"}]},
        [EMBERFOX_STAGE1],
        "skill:blaze_charge",
        {"tier": "hard", "satisfied": False, "required_account": True, "praised": False},
    ),
    (
        "B: skill not unlocked on the named creature",
        {
            "wanted_entities": ["Emberfox"],
            SKILL: [{"entity": "Emberfox", "attribute": "skill", "value": "blaze charge"}],
        },
        [EMBERFOX_STAGE1],
        "skill:blaze_charge@emberfox",
        {"tier": "hard", "satisfied": False, "required_account": True, "praised": False},
    ),
    (
        "B: unlocked skill is satisfied, never apologised for",
        {SKILL: [{"entity": "Emberfox", "attribute": "skill", "value": "Flame Burst"}]},
        [EMBERFOX_STAGE1],
        "skill:flame_burst@emberfox",
        {"tier": "hard", "satisfied": True, "required_account": False, "apologised": False},
    ),
    (
        "B: a start skill missing from the snapshot's list is still usable",
        {SKILL: [{"attribute": "skill", "value": "Ember Fang"}]},
        [owned("emberfox")],
        "skill:ember_fang",
        {"tier": "hard", "satisfied": True, "apologised": False},
    ),
    (
        "B: owned creature is never apologised for",
        {"wanted_entities": ["Emberfox", "Pyrowl"]},
        [EMBERFOX_STAGE1],
        "has:emberfox",
        {"tier": "hard", "satisfied": True, "required_account": False, "apologised": False},
    ),
    (
        "B: wanted creature not owned is a required account",
        {"wanted_entities": ["Emberfox", "Pyrowl"]},
        [EMBERFOX_STAGE1],
        "has:pyrowl",
        {"tier": "hard", "satisfied": False, "required_account": True, "praised": False},
    ),
    (
        "pick group: owning fewer than k of the pool is hard",
        {"n_pick_k_swap_group": [{"pool": ["Emberfox", "Pyrowl", "Tidefang"], "pick": 2}]},
        [EMBERFOX_STAGE1],
        "pick:2of[emberfox,pyrowl,tidefang]",
        {"tier": "hard", "satisfied": False, "required_account": True, "praised": False},
    ),
    (
        "pick group: owning k of the pool is satisfied",
        {"n_pick_k_swap_group": [{"pool": ["Emberfox", "Pyrowl", "Tidefang"], "pick": 2}]},
        [EMBERFOX_STAGE1, owned("tidefang")],
        "pick:2of[emberfox,pyrowl,tidefang]",
        {"tier": "hard", "satisfied": True, "apologised": False},
    ),
    (
        "soft: an element the roster cannot meet is accounted for, not required",
        {SKILL: [{"attribute": "element", "value": "Water"}]},
        [EMBERFOX_STAGE1],
        "attr:element=water",
        {"tier": "soft", "satisfied": False, "required_account": False, "praised": False},
    ),
]


@pytest.mark.parametrize(
    ("slots", "inventory", "constraint", "expect"),
    [c[1:] for c in DRIFT_CASES],
    ids=[c[0] for c in DRIFT_CASES],
)
def test_drift_cases(
    slots: dict[str, Any], inventory: list[OwnedCreature], constraint: str, expect: dict[str, Any]
) -> None:
    c2 = ground(QuerySlots.model_validate(slots), state_with(*inventory), PACK, "lineup", "build")
    judged = conflict(c2.conflicts, constraint)
    assert (judged.tier, judged.satisfied) == (expect["tier"], expect["satisfied"])
    result = diff(QuerySlots.model_validate(slots), state_with(*inventory).fs, PACK)
    eligibility = psi(result, "lineup", "build", "recommend")
    required_accounts = about(eligibility.required, constraint, "constraint_account")
    if "required_account" in expect:
        assert bool(required_accounts) == expect["required_account"]
        if expect["required_account"]:
            assert about(c2.plan, constraint, "constraint_account")
    if expect["tier"] == "soft" and not expect["satisfied"]:
        assert about(eligibility.candidates, constraint, "constraint_account")
    if expect.get("praised") is False:
        assert not about(eligibility.candidates, constraint, "praise")
        assert not about(c2.plan, constraint, "praise")
    if expect.get("apologised") is False:
        assert not about(eligibility.candidates, constraint, "apology")
        assert not about(eligibility.candidates, constraint, "constraint_account")


def test_drift_d_all_available_never_shares_a_plan_with_a_missing_one() -> None:
    slots = QuerySlots(wanted_entities=["Emberfox", "Pyrowl"])
    missing_one = ground(slots, state_with(EMBERFOX_STAGE1), PACK, "lineup", "build", max_paragraphs=10)
    assert about(missing_one.plan, "has:pyrowl", "constraint_account")
    assert not [p for p in missing_one.plan if p.detail == AGGREGATE_DETAIL]

    both = ground(slots, state_with(EMBERFOX_STAGE1, owned("pyrowl")), PACK, "lineup", "build")
    aggregate = [p for p in both.plan if p.detail == AGGREGATE_DETAIL]
    assert aggregate and aggregate[0].constraints == {"has:emberfox", "has:pyrowl"}
    assert not [p for p in both.plan if p.polarity == -1]


def test_scheduler_resolves_a_clash_even_if_psi_offered_both() -> None:
    # A Ψ bug that offers "all required available" next to "Pet A is missing" must not reach P.
    aggregate = Paragraph(type="praise", constraints=frozenset({"has:a", "has:b"}), polarity=1)
    missing = Paragraph(type="constraint_account", constraints=frozenset({"has:a"}), polarity=-1)
    sorry = Paragraph(type="apology", constraints=frozenset({"has:a"}), polarity=-1)
    praise_b = Paragraph(type="praise", constraints=frozenset({"has:b"}), polarity=1)
    plan = schedule(Eligibility(candidates=(aggregate, sorry, praise_b, missing), required=(missing,)))
    assert missing in plan and sorry in plan and praise_b in plan  # praise of another constraint may stay
    assert aggregate not in plan


def test_required_paragraphs_stay_past_max_paragraphs() -> None:
    slots = QuerySlots(wanted_entities=["Pyrowl", "Tidefang", "Voltail", "Rockram", "Galehawk"])
    c2 = ground(slots, state_with(EMBERFOX_STAGE1), PACK, "lineup", "build", max_paragraphs=2)
    accounts = [p for p in c2.plan if p.type == "constraint_account"]
    assert len(accounts) == 5 and len(c2.plan) == 6  # five accounts + required guidance


@pytest.mark.parametrize(
    ("intent", "sub_intent", "guidance", "flavour"),
    [
        ("lineup", "build", "required", False),  # Φ branch "recommend"
        ("match", "round_strategy", "required", True),
        ("match", "score_check", "eligible", False),  # Φ branch "knowledge-qa"; its answer is the score
        ("creature", "info", "eligible", False),
        ("smalltalk", "greeting", "absent", False),
        ("recommend", "unregistered", "required", False),  # no Φ entry: keywords decide
    ],
)
def test_guidance_and_scene_flavour_follow_the_intent(
    intent: str, sub_intent: str, guidance: str, flavour: bool
) -> None:
    c2 = ground(
        QuerySlots(wanted_entities=["Emberfox"]), state_with(EMBERFOX_STAGE1), PACK, intent, sub_intent
    )
    in_plan = any(p.type == "guidance" for p in c2.plan)
    result = diff(QuerySlots(wanted_entities=["Emberfox"]), state_with(EMBERFOX_STAGE1).fs, PACK)
    entry = phi_entry(PACK, intent, sub_intent)
    flags = (entry.branch, entry.coaching, entry.scene) if entry is not None else (None, None, None)
    eligibility = psi(result, intent, sub_intent, *flags)
    required = any(p.type == "guidance" for p in eligibility.required)
    eligible = any(p.type == "guidance" for p in eligibility.candidates)
    assert (required, eligible) == {
        "required": (True, True),
        "eligible": (False, True),
        "absent": (False, False),
    }[guidance]
    assert in_plan == eligible  # one praise + guidance fit in four paragraphs
    assert any(p.type == "scene_flavor" for p in eligibility.candidates) == flavour


def test_hints_annotate_without_paragraphs() -> None:
    c2 = ground(QuerySlots(style_prefs=["defensive"]), state_with(EMBERFOX_STAGE1), PACK, "skill", "explain")
    hint = conflict(c2.conflicts, "style:defensive")
    assert hint.tier == "hint"
    assert not [p for p in c2.plan if "style:defensive" in p.constraints]


# --- state: missing and empty inventories ---------------------------------------------------------


def test_missing_inventory_is_one_hard_state_conflict() -> None:
    slots = QuerySlots(
        wanted_entities=["Emberfox"], attribute_prefs=[AttributePref(attribute="skill", value="Kindle")]
    )
    c2 = ground(slots, LiveState(), PACK, "lineup", "build")
    assert [c.constraint for c in c2.conflicts] == ["state:inventory"]
    assert (c2.conflicts[0].tier, c2.conflicts[0].satisfied) == ("hard", False)
    assert about(c2.plan, "state:inventory", "constraint_account")
    assert not any(p.type == "praise" for p in c2.plan)


def test_empty_inventory_requires_apology_and_forbids_guidance() -> None:
    result = diff(QuerySlots(wanted_entities=["Emberfox"]), state_with().fs, PACK)
    assert result.inventory_empty
    eligibility = psi(result, "lineup", "build", "recommend")
    assert about(eligibility.required, "state:inventory", "apology")
    assert not any(p.type == "guidance" for p in eligibility.candidates)
    c2 = ground(QuerySlots(), state_with(), PACK, "lineup", "build")
    assert c2.inventory_empty and about(c2.plan, "state:inventory", "apology")


# --- repairs ----------------------------------------------------------------------------------------


def test_repair_exclude_of_creature_whose_skill_is_changed() -> None:
    slots = QuerySlots(
        excluded_entities=["Emberfox", "Pyrowl"],
        attribute_prefs=[AttributePref(entity="emberfox", attribute="skill", value="Flame Burst")],
    )
    repaired, notes = repair_attr_level_excludes(slots, PACK)
    assert repaired.excluded_entities == ["Pyrowl"]  # Pyrowl has no skill pref: a real exclude
    assert repaired.attribute_prefs == slots.attribute_prefs
    assert len(notes) == 1 and "Emberfox" in notes[0]


@pytest.mark.parametrize(
    ("phrase", "value"),
    [
        ("Emberfox's skill", "*"),
        ("emberfox skill", "*"),
        ("Emberfox’s moves", "*"),
        ("Emberfox Ember Fang", "Ember Fang"),
    ],
)
def test_repair_swap_out_x_skill_becomes_attribute_avoid(phrase: str, value: str) -> None:
    repaired, notes = repair_attr_level_excludes(QuerySlots(excluded_entities=[phrase]), PACK)
    assert repaired.excluded_entities == []
    assert repaired.attribute_prefs == [
        AttributePref(entity=phrase.split()[0].rstrip("'s’"), attribute="skill", value=value, op="avoid")
    ]
    assert notes
    c2 = ground(QuerySlots(excluded_entities=[phrase]), state_with(EMBERFOX_STAGE1), PACK, "lineup", "build")
    assert not [c for c in c2.conflicts if c.kind in ("excludes", "unknown_entity")]


def test_repair_keeps_an_exclusion_an_earlier_turn_made() -> None:
    """'And no Emberfox either', later 'when should Emberfox use Flame Burst?': the skill wish is
    about the creature, but keeping it out was decided earlier, not misparsed now."""
    slots = QuerySlots(
        excluded_entities=["Emberfox"],
        attribute_prefs=[AttributePref(entity="emberfox", attribute="skill", value="Flame Burst")],
    )
    repaired, notes = repair_attr_level_excludes(slots, PACK, carried=["Emberfox"])
    assert repaired.excluded_entities == ["Emberfox"] and notes == []
    earlier = QuerySlots(excluded_entities=["Emberfox"])
    c2 = ground(slots, state_with(EMBERFOX_STAGE1), PACK, "skill", "when_to_use",
                utterance="when should emberfox use flame burst", earlier=earlier)  # fmt: skip
    assert c2.slots.excluded_entities == ["Emberfox"]


def test_a_swap_question_keeps_nothing_out_of_later_teams() -> None:
    """'Should I swap Emberfox out?' judges this turn's swap; the next team may field Emberfox,
    and an exclusion the player made before the swap question still carries."""
    state = state_with(owned("emberfox"), owned("tidefang"), owned("pyrowl"))
    earlier = QuerySlots(excluded_entities=["Pyrowl"])
    asked = QuerySlots(excluded_entities=["Pyrowl", "Emberfox"])
    c2 = ground(asked, state, PACK, "lineup", "swap", utterance="should i swap emberfox out", earlier=earlier)
    assert c2.slots.excluded_entities == ["Pyrowl", "Emberfox"]  # this turn is judged with both
    assert c2.carried.excluded_entities == ["Pyrowl"]
    build = ground(
        asked, state, PACK, "lineup", "build", utterance="a team without emberfox", earlier=earlier
    )
    assert build.carried == build.slots
    told = ground(asked, state, PACK, "lineup", "swap", utterance="also keep emberfox out", earlier=earlier)
    assert told.carried.excluded_entities == ["Pyrowl", "Emberfox"]  # a request, even labelled swap


def test_repair_attr_level_excludes_leaves_plain_excludes_alone() -> None:
    # Pyrowl cannot learn Ember Fang, so this is not "Pyrowl's skill": no repair, an unknown name.
    slots = QuerySlots(excluded_entities=["Tidefang", "Pyrowl Ember Fang"])
    repaired, notes = repair_attr_level_excludes(slots, PACK)
    assert repaired == slots and notes == []
    assert (
        conflict(diff(repaired, state_with().fs, PACK).conflicts, "unknown_entity:pyrowl ember fang").tier
        == "hint"
    )


@pytest.mark.parametrize(("op", "slot"), [("want", "wanted_entities"), ("avoid", "excluded_entities")])
def test_repair_creature_parsed_as_skill_moves_back(op: str, slot: str) -> None:
    slots = QuerySlots(
        attribute_prefs=[
            AttributePref(attribute="skill", value="Pyrowl", op=op),  # type: ignore[arg-type]
            AttributePref(attribute="skill", value="Flame Burst"),
        ]
    )
    repaired, notes = repair_entities_misclassified_as_skills(slots, PACK)
    assert getattr(repaired, slot) == ["Pyrowl"]
    assert repaired.attribute_prefs == [AttributePref(attribute="skill", value="Flame Burst")]
    assert len(notes) == 1


def test_repair_misclassified_is_a_no_op_on_real_skills() -> None:
    slots = QuerySlots(attribute_prefs=[AttributePref(attribute="skill", value="Scorch Mark")])
    assert repair_entities_misclassified_as_skills(slots, PACK) == (slots, [])


# --- catalog validation -----------------------------------------------------------------------------


def test_unknown_names_become_hints_naming_the_name() -> None:
    slots = QuerySlots(
        wanted_entities=["Glorbo", "EMBERFOX"],
        opponent_entities=["Mystery Pet"],
        attribute_prefs=[
            AttributePref(attribute="skill", value="Mega Punch"),
            AttributePref(attribute="element", value="plasma"),
        ],
        n_pick_k_swap_group=[PickGroup(pool=["Nobody"], pick=1)],
        global_constraints=[GlobalConstraint(kind="max_size", value="lots")],
    )
    resolved, unknown = validate_against_catalog(slots, PACK)
    assert resolved.wanted_entities == ["emberfox"]  # case-insensitive, mapped to the id
    assert {c.entity for c in unknown} == {"Glorbo", "Mystery Pet", "Mega Punch", "plasma", "Nobody", "lots"}
    assert all(c.tier == "hint" and not c.satisfied for c in unknown)
    c2 = ground(slots, state_with(EMBERFOX_STAGE1), PACK, "lineup", "build")
    glorbo = conflict(c2.conflicts, "unknown_entity:glorbo")
    assert glorbo.kind == "unknown_entity" and "Glorbo" in glorbo.detail
    assert not [p for p in c2.plan if any(c.startswith("unknown") for c in p.constraints)]


# --- parsing the slot LLM's output --------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw", ["", "sure!", "{wanted_entities: [", '{"wanted_entities": ["Emberfox"', "[1, 2]", "null"]
)
def test_parse_malformed_returns_errors_not_exceptions(raw: str) -> None:
    slots, errors = parse_query_slots(raw, PACK)
    assert slots == QuerySlots() and errors


def test_parse_tolerates_fences_leading_text_and_bad_items() -> None:
    raw = (
        'Here you go:\n```json\n{"wanted_entities": "Emberfox", "mood": "happy", '
        '"attribute_prefs": [{"attribute": "skill", "value": "Kindle"},'
        ' {"attribute": "colour", "value": "red"}],'
        ' "n_pick_k_swap_group": null}\n```'
    )
    slots, errors = parse_query_slots(raw, PACK)
    assert slots.wanted_entities == ["Emberfox"]
    assert slots.attribute_prefs == [AttributePref(attribute="skill", value="Kindle")]
    assert any("mood" in e for e in errors) and any("attribute_prefs[1]" in e for e in errors)
    assert parse_query_slots({"excluded_entities": ["Pyrowl"]}, PACK) == (
        QuerySlots(excluded_entities=["Pyrowl"]),
        [],
    )


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.text(),
        st.dictionaries(
            st.text(max_size=20),
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                lambda inner: (
                    st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
                ),
                max_leaves=8,
            ),
            max_size=5,
        ),
    )
)
def test_parse_never_raises(raw: str | dict[str, Any]) -> None:
    slots, errors = parse_query_slots(raw if isinstance(raw, str) else json.dumps(raw), PACK)
    assert isinstance(slots, QuerySlots) and isinstance(errors, list)


def test_schema_and_prompt() -> None:
    schema = query_slots_json_schema(PACK)
    assert set(schema["properties"]) == set(QuerySlots.model_fields) and len(schema["properties"]) == 8
    prompt = slot_prompt(PACK)
    assert prompt == slot_prompt(load_pack())  # byte-identical across turns
    assert all(key in prompt for key in QuerySlots.model_fields)
    example, errors = parse_query_slots(prompt.rsplit("->", 1)[1], PACK)
    assert errors == [] and example.wanted_entities

    # Every list is bounded for decoding (a small model copies the catalog into an open list),
    # but the bound is not a validation rule: a longer list from an unconstrained backend is kept.
    arrays = [p for p in schema["properties"].values() if p.get("type") == "array"]
    arrays.append(schema["$defs"]["PickGroup"]["properties"]["pool"])
    assert len(arrays) == 9 and all(1 <= a["maxItems"] <= 5 for a in arrays)
    names = [_CREATURES[c].name for c in sorted(_CREATURES)[:8]]
    slots, errors = parse_query_slots({"wanted_entities": names}, PACK)
    assert slots.wanted_entities == names and errors == []


# --- properties: R ⊆ P ⊆ A, no opposite judgements, determinism ---------------------------------------

CREATURE_IDS = sorted(_CREATURES)
NAMES = (
    [c.name for c in _CREATURES.values()]
    + [s.name for s in PACK.catalog.entities["skill"].values()]
    + ["Glorbo", "pet a"]
)
names = st.lists(st.sampled_from(NAMES).map(lambda n: n if len(n) % 2 else n.lower()), max_size=4)
attribute_prefs = st.builds(
    AttributePref,
    entity=st.none() | st.sampled_from(NAMES),
    attribute=st.sampled_from(["skill", "element", "role", "rarity"]),
    value=st.sampled_from(NAMES + ["fire", "water", "tank", "epic", "*"]),
    op=st.sampled_from(["want", "avoid"]),
)
query_slots = st.builds(
    QuerySlots,
    wanted_entities=names,
    excluded_entities=st.lists(
        st.sampled_from(NAMES + ["Emberfox's skill", "Pyrowl Scorch Mark"]), max_size=3
    ),
    opponent_entities=names,
    nature_prefs=st.lists(st.sampled_from(["aggressive", "calm"]), max_size=2),
    attribute_prefs=st.lists(attribute_prefs, max_size=4),
    style_prefs=st.lists(st.sampled_from(["defensive", "tempo", "weird"]), max_size=2),
    n_pick_k_swap_group=st.lists(
        st.builds(PickGroup, pool=names.filter(bool), pick=st.integers(1, 4)), max_size=2
    ),
    global_constraints=st.lists(
        st.builds(
            GlobalConstraint,
            kind=st.sampled_from(["max_size", "min_size", "max_rarity", "element_only"]),
            value=st.sampled_from([1, 3, 5, "rare", "fire", "x"]),
        ),
        max_size=2,
    ),
)


@st.composite
def owned_creatures(draw: st.DrawFn) -> OwnedCreature:
    cid = draw(st.sampled_from(CREATURE_IDS))
    skills = draw(st.lists(st.sampled_from(_CREATURES[cid].value("skills")), unique=True))
    return owned(cid, stage=draw(st.integers(1, 3)), level=draw(st.integers(1, 30)), unlocked=skills)


inventories = st.none() | st.builds(
    Inventory, owned=st.lists(owned_creatures(), max_size=6, unique_by=lambda o: o.creature_id)
)
# Every registered Φ pair, plus labels Φ does not know (keywords decide for those).
intents = st.sampled_from(
    sorted({(e.intent, e.sub_intent) for e in PACK.phi}) + [("recommend", "x"), ("", "")]
)


@settings(max_examples=300, deadline=None)
@given(query_slots, inventories, intents, st.integers(0, 6), st.randoms(use_true_random=False))
def test_plan_contains_r_within_a_without_opposite_judgements(
    slots: QuerySlots, inventory: Inventory | None, labels: tuple[str, str], max_paragraphs: int, rng: Any
) -> None:
    intent, sub_intent = labels
    state = LiveState(fs=FactSlots(inventory=inventory))
    c2 = ground(slots, state, PACK, intent, sub_intent, max_paragraphs=max_paragraphs)
    repaired = repair_entities_misclassified_as_skills(repair_attr_level_excludes(slots, PACK)[0], PACK)[0]
    result = diff(repaired, state.fs, PACK)
    entry = phi_entry(PACK, intent, sub_intent)
    flags = (entry.branch, entry.coaching, entry.scene) if entry is not None else (None, None, None)
    eligibility = psi(result, intent, sub_intent, *flags)
    plan = schedule(eligibility, max_paragraphs)

    assert tuple(plan) == c2.plan and result.conflicts == c2.conflicts
    assert set(eligibility.required) <= set(plan) <= set(eligibility.candidates)
    assert not has_clash(plan)
    # Deterministic: same input, and A / R listed in another order, give the same plan.
    shuffled = Eligibility(
        candidates=tuple(rng.sample(eligibility.candidates, len(eligibility.candidates))),
        required=tuple(rng.sample(eligibility.required, len(eligibility.required))),
    )
    assert schedule(shuffled, max_paragraphs) == plan == schedule(eligibility, max_paragraphs)
    # Drift B: never praise a violated hard constraint, never deny a satisfied one.
    by_id = {c.constraint: c for c in result.conflicts}
    for p in eligibility.candidates:
        for cid in p.constraints & by_id.keys():
            if p.polarity == 1:
                assert by_id[cid].satisfied
            if p.polarity == -1:
                assert not by_id[cid].satisfied
    if result.inventory_empty:
        assert not any(p.type == "guidance" for p in eligibility.candidates)


# --- slots grounded in the utterance ------------------------------------------------------------

from voicecoach.grounding.repair import carry_over, ground_slots  # noqa: E402
from voicecoach.talker.conditioning import conditioning  # noqa: E402


def in_match(state: LiveState, opponent: list[str]) -> LiveState:
    from voicecoach.core.state import MatchState

    match = MatchState(round=1, opponent_lineup=opponent)
    return state.model_copy(update={"ic": state.ic.model_copy(update={"match": match})})


def test_an_invented_name_is_dropped_and_never_reaches_the_talker() -> None:
    # What the small slot model really produced: names nobody said.
    slots = QuerySlots(wanted_entities=["Cyclo-Aerathos", "Aegis"], excluded_entities=["Glorbo"])
    state = state_with(owned("emberfox"))
    kept, dropped = ground_slots(slots, PACK, "who should i bring", state)
    assert kept.wanted_entities == [] and kept.excluded_entities == []
    assert dropped == ["Cyclo-Aerathos", "Aegis", "Glorbo"]
    c2 = ground(slots, state, PACK, "lineup", "build", utterance="who should i bring")
    assert c2.dropped == ("Cyclo-Aerathos", "Aegis", "Glorbo")
    assert not [c for c in c2.conflicts if c.kind.startswith("unknown")]
    cond = conditioning(PACK, c2, None, [])
    text = " ".join(cond.must_say + cond.may_say + cond.must_not_say)
    assert "Cyclo" not in text and "Aegis" not in text and "Glorbo" not in text


def test_a_linked_name_is_kept_and_a_catalog_name_not_said_is_dropped() -> None:
    slots = QuerySlots(wanted_entities=["Emberfox", "Pyrowl"])
    kept, dropped = ground_slots(slots, PACK, "do i own emberfox", state_with(owned("emberfox")))
    assert kept.wanted_entities == ["Emberfox"]
    assert dropped == ["Pyrowl"]  # a real creature, but the player never named it


def test_an_opponent_lineup_name_is_kept_without_being_said() -> None:
    slots = QuerySlots(opponent_entities=["Voltail", "Briarcat"])
    state = in_match(state_with(owned("emberfox")), ["voltail"])
    kept, dropped = ground_slots(slots, PACK, "who beats them", state)
    assert kept.opponent_entities == ["Voltail"] and dropped == ["Briarcat"]


def test_skills_and_pick_pools_are_grounded_too() -> None:
    slots = QuerySlots(
        attribute_prefs=[
            AttributePref(entity="Tidefang", attribute="skill", value="Riptide"),
            AttributePref(entity="Tidefang", attribute="skill", value="Inferno Roar"),
            AttributePref(attribute="element", value="fire", op="avoid"),
        ],
        n_pick_k_swap_group=[PickGroup(pool=["Emberfox", "Pyrowl", "Hexmoth"], pick=2)],
    )
    kept, dropped = ground_slots(
        slots, PACK, "two of emberfox and pyrowl, can tidefang use riptide", state_with()
    )
    assert [p.value for p in kept.attribute_prefs] == ["Riptide", "fire"]
    assert kept.n_pick_k_swap_group[0].pool == ["Emberfox", "Pyrowl"]
    assert set(dropped) == {"Inferno Roar", "Hexmoth"}


def test_earlier_constraints_are_grounded_and_carry_over_until_asked_back() -> None:
    earlier = QuerySlots(excluded_entities=["Tidefang"])
    state = state_with(owned("emberfox"), owned("tidefang"))
    # The LLM repeats the earlier exclude: grounded by the session, so kept.
    kept, dropped = ground_slots(QuerySlots(excluded_entities=["Tidefang"]), PACK, "and now", state, earlier)
    assert kept.excluded_entities == ["Tidefang"] and dropped == []
    c2 = ground(QuerySlots(), state, PACK, "lineup", "build", utterance="build me a team", earlier=earlier)
    assert c2.slots.excluded_entities == ["Tidefang"]
    assert conflict(c2.conflicts, "excludes:tidefang").satisfied
    back = carry_over(QuerySlots(wanted_entities=["tidefang"]), earlier, PACK)
    assert back.excluded_entities == [] and back.wanted_entities == ["tidefang"]
