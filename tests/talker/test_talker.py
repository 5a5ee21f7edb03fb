"""Talker conditioning: the reply prompt carries c2/c3 decisions as must / may / must-not."""

from voicecoach.core.state import LiveState
from voicecoach.domain.pack import Pack
from voicecoach.grounding.diff import Conflict
from voicecoach.grounding.kernel import GroundingControl, ground
from voicecoach.grounding.slots import QuerySlots
from voicecoach.interaction.kernel import InteractionControl, interact
from voicecoach.talker.conditioning import (
    ToolOutcome,
    conditioning,
    render_reply_prompt,
    talker_system_prompt,
)


def _c2_locked_skill(pack: Pack, state: LiveState):
    # conftest: Emberfox is owned at stage 2; Inferno Roar unlocks at stage 3.
    slots = QuerySlots.model_validate(
        {
            "attribute_prefs": [
                {"entity": "Emberfox", "attribute": "skill", "value": "Inferno Roar", "op": "want"}
            ]
        }
    )
    return ground(slots, state, pack, "skill", "explain")


def test_locked_skill_is_a_must_not_and_its_account_a_must(pack: Pack, state: LiveState) -> None:
    cond = conditioning(pack, _c2_locked_skill(pack, state), None, [])
    assert any("Inferno Roar on Emberfox" in line for line in cond.must_not_say)
    assert any(line.startswith("Explain that") and "Inferno Roar" in line for line in cond.must_say)
    assert not any(line.startswith("Confirm that") and "Inferno Roar" in line for line in cond.must_say)


def test_owned_creature_is_never_apologised_for(pack: Pack, state: LiveState) -> None:
    c2 = ground(QuerySlots(wanted_entities=["Emberfox"]), state, pack, "lineup", "build")
    cond = conditioning(pack, c2, None, [])
    assert any("Do not apologise for or call missing Emberfox" in line for line in cond.must_not_say)


def test_guidance_and_cooling_lineups(pack: Pack, state: LiveState) -> None:
    c3, _ = interact(state, pack, "teaching", 0, seed=7)
    cond = conditioning(pack, None, c3, [])
    if c3.guidance is not None:
        assert any(c3.guidance.text in line for line in cond.must_say)
    else:
        assert any("Do not give a new recommendation" in line for line in cond.must_not_say)


def test_failed_tool_is_reported_missing_not_guessed(pack: Pack) -> None:
    tools = [
        ToolOutcome(tool="get_inventory", ok=True, result={"owned": ["emberfox"]}),
        ToolOutcome(tool="find_counters", ok=False, error="timed out after 0.1s"),
    ]
    messages, cond = render_reply_prompt(pack, "who counters them?", "Checking.", None, None, tools)
    assert cond.missing == ["tool find_counters failed (timed out after 0.1s)"]
    user = messages[1]["content"]
    assert "live game data is unavailable" in user
    assert 'get_inventory: {"owned":["emberfox"]}' in user
    assert "find_counters" not in user.split("Facts from the game:")[1].split("\n")[0]


def test_system_prefix_is_static(pack: Pack, state: LiveState) -> None:
    a, _ = render_reply_prompt(pack, "one", "x", _c2_locked_skill(pack, state), None, [])
    b, _ = render_reply_prompt(pack, "two", "y", None, None, [])
    assert a[0] == b[0] == {"role": "system", "content": talker_system_prompt(pack)}
    assert a[1] != b[1]


# --- the conditioning in the pack's own kinds -----------------------------------------------------


def _c2(*conflicts: Conflict) -> GroundingControl:
    return GroundingControl(slots=QuerySlots(), conflicts=conflicts, plan=(), inventory_empty=False)


def _cooling(*groups: str) -> InteractionControl:
    return InteractionControl(
        branch="recommend", turn_index=3, guidance=None, cooling=[], cooling_lineups=list(groups)
    )


def test_pet_must_not_lines_word_for_word(pack: Pack) -> None:
    c2 = _c2(
        Conflict(constraint="state:inventory", kind="state", tier="hard", satisfied=False, detail="x"),
        Conflict(constraint="skill:inferno_roar@emberfox", kind="skill", tier="hard", satisfied=False,
                 entity="inferno_roar", detail="x"),
        Conflict(constraint="has:briarcat", kind="has", tier="hard", satisfied=False, entity="briarcat",
                 detail="x"),
        Conflict(constraint="has:oakhorn", kind="has", tier="hard", satisfied=True, entity="oakhorn",
                 detail="x"),
    )  # fmt: skip
    cond = conditioning(pack, c2, _cooling("T1", "nope"), [])
    assert cond.must_not_say == [
        "Do not claim what the player owns: their inventory is unknown right now.",
        "Do not say or imply the player can use Inferno Roar on Emberfox now.",
        "Do not say or imply the player has or can use Briarcat now.",
        "Do not apologise for or call missing Oakhorn: the player owns it.",
        "Do not give a new recommendation this turn; answer the question only.",
        "Do not recommend the Wildfire Rush lineup again yet.",
    ]


def test_toy_pack_conditioning_speaks_its_own_nouns(toy: Pack) -> None:
    """A hero shooter's prompt names heroes, items and comps by their display names and calls a
    comp a comp: no pet word, no raw id."""
    c2 = _c2(
        Conflict(constraint="state:inventory", kind="state", tier="hard", satisfied=False, detail="x"),
        Conflict(constraint="item:longshot@vanta", kind="item", tier="hard", satisfied=False,
                 entity="longshot", detail="x"),
        Conflict(constraint="has:bulwark", kind="has", tier="hard", satisfied=True, entity="bulwark",
                 detail="x"),
    )  # fmt: skip
    tools = [ToolOutcome(tool="get_collection", ok=True, result={"units": ["vanta"]})]
    messages, cond = render_reply_prompt(toy, "can I run longshot?", "Checking.", c2, _cooling("dive"), tools)
    assert cond.must_not_say == [
        "Do not claim what the player owns: their collection is unknown right now.",
        "Do not say or imply the player can use Longshot on Vanta now.",
        "Do not apologise for or call missing Bulwark: the player owns it.",
        "Do not give a new recommendation this turn; answer the question only.",
        "Do not recommend the Dive comp again yet.",
    ]
    user = messages[1]["content"].lower()
    for pet_word in ("inventory", "lineup", "creature", "skill", " pet"):
        assert pet_word not in user, pet_word
