"""The checker kernel (voicecoach/talker/checker.py, rules.py, claims.py, speakable.py): speakable rules,
the live context, check_sentence.

The state is the shared test state (tests/conftest.py): the player owns Emberfox, Galehawk,
Granitusk, Hexmoth, Lumifawn, Oakhorn, Sparkwing and Tidefang, and faces Briarcat, Shellbastion and
Voltail.
"""

from __future__ import annotations

import pytest

from tests.conftest import STATE
from voicecoach.core.state import LiveState, load_state
from voicecoach.domain.pack import Pack
from voicecoach.perception.tags import SECTIONS
from voicecoach.talker.checker import check_reply, check_sentence
from voicecoach.talker.conditioning import ToolOutcome, render_reply_prompt
from voicecoach.talker.rules import MAX_WORDS, RULES, CheckContext
from voicecoach.talker.speakable import speakable_patterns, split_sentences


@pytest.fixture
def ctx(pack: Pack) -> CheckContext:
    return CheckContext.live(pack, load_state(STATE), "what should i field against them")


def rules(pack: Pack, text: object, ctx: CheckContext) -> set[str]:
    return {f.rule for f in check_reply(pack, text, ctx)}


# --- replies that must fail: a loop, an echoed prompt, a tool result read out as JSON --------------

LOOP = "Let me check. " + ", ".join(["No"] * 40) + "."
ECHO = (
    "Great, let me check. You must: Explain that the player does not own Aegis, and what the player can "
    "do instead. You must: Mention that 'Cyclo-Aerathos' is not a known creature."
)
JSON_ECHO = (
    "You're right, I'm sorry, I'm sorry. Facts from the game: get_creature: "
    '{"base_power":52,"element":"water","id":"tidefang"}'
)


def test_a_loop_and_echoed_prompts_fail(pack: Pack, ctx: CheckContext) -> None:
    assert "loop" in rules(pack, LOOP, ctx)
    echo = check_reply(pack, ECHO, ctx)
    assert {"prompt_echo", "unknown_name"} <= {f.rule for f in echo}
    assert {f.entity for f in echo if f.rule == "unknown_name"} >= {"Aegis", "Cyclo-Aerathos"}
    assert {"prompt_echo", "markup", "loop"} <= rules(pack, JSON_ECHO, ctx)
    assert all(f.drift is None for f in check_reply(pack, JSON_ECHO, ctx))


# --- speakable rules, one by one ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        "Sparkwing counters Shellbastion, so lead with it.",
        "Let me check your team. Use Emberfox against Briarcat, fire beats grass.",
        "Hi! I'm Coach Rook, ask me anything about your team.",
        "Okay, Tidefang is a water striker; it evolves at stage 2.",
        "Great, you won round 1, so keep Oakhorn in front.",
    ],
)
def test_speakable_replies_pass(pack: Pack, ctx: CheckContext, reply: str) -> None:
    assert check_reply(pack, reply, ctx) == []


@pytest.mark.parametrize(
    ("reply", "rule"),
    [
        ("Player: what now? Coach: use Emberfox.", "prompt_echo"),
        ("You must not: recommend Pyrowl.", "prompt_echo"),
        ("Confirm that Emberfox is ready.", "prompt_echo"),
        ("Use Emberfox, and tie the advice to the current match in one short phrase.", "prompt_echo"),
        ("<NARRATION>Let me check.</NARRATION>", "prompt_echo"),
        ("The PLAN is to call the tool.", "prompt_echo"),
        ("Call find_counters first.", "prompt_echo"),
        ('Emberfox {"stage": 2}', "markup"),
        ("**Use Emberfox** now.", "markup"),
        ("- Emberfox\n- Hexmoth", "markup"),
        ("Use [Emberfox] now.", "markup"),
        ("Use Emberfox. Use Emberfox.", "loop"),
        ("Use Emberfox, use Emberfox, use Emberfox and win.", "loop"),
        ("I'm sorry, I'm sorry.", "loop"),
        ("Bring Glorbax into this round.", "unknown_name"),
        ("Try Hexmoth with Zyphorax.", "unknown_name"),
        ("Use Emberfox. Bring Hexmoth. Keep Oakhorn. Swap Galehawk. Save Tidefang.", "too_long"),
    ],
)
def test_each_speakable_rule_fails(pack: Pack, ctx: CheckContext, reply: str, rule: str) -> None:
    found = check_reply(pack, reply, ctx)
    assert rule in {f.rule for f in found}, found
    assert all(f.drift is None for f in found if f.rule == rule)


def test_too_long_counts_words(pack: Pack, ctx: CheckContext) -> None:
    words = ["Emberfox", "is", "ready"] * (MAX_WORDS // 3)
    fits = " ".join(words[:MAX_WORDS]) + "."
    assert "too_long" not in rules(pack, fits, ctx)
    assert "too_long" in rules(pack, fits[:-1] + " now.", ctx)


@pytest.mark.parametrize("reply", [None, b"use emberfox", 42, "", "   "])
def test_no_reply_for_anything_not_text(pack: Pack, ctx: CheckContext, reply: object) -> None:
    assert rules(pack, reply, ctx) == {"no_reply"}


def test_every_prompt_heading_is_an_echo(pack: Pack, ctx: CheckContext) -> None:
    """The echo patterns come from the renderers: every 'Heading:' line the Talker writes is caught."""
    tools = [ToolOutcome(tool="get_creature", ok=True, result={"id": "tidefang"})]
    messages, _ = render_reply_prompt(pack, "who do i bring", "Let me check.", None, None, tools, ["x"])
    user = messages[1]["content"]
    headings = [line.split(":")[0] for line in user.splitlines() if ":" in line]
    assert "Facts from the game" in headings and "You must" in headings
    for heading in headings:
        assert "prompt_echo" in rules(pack, f"Okay. {heading}: something.", ctx), heading
    for tag in SECTIONS:
        assert "prompt_echo" in rules(pack, f"<{tag}>", ctx)


def test_patterns_are_derived_from_the_pack(pack: Pack) -> None:
    p = speakable_patterns(pack)
    assert all(tool in p.tags.pattern for tool in pack.tools)
    assert p.headings.search("coach: hi") and not p.headings.search("the coach said hi")
    assert speakable_patterns(pack) is p  # built once per pack


# --- grounding on the live context ------------------------------------------------------------------


def test_grounding_rules_on_a_live_context(pack: Pack, ctx: CheckContext) -> None:
    assert rules(pack, "Use Pyrowl against them.", ctx) == {"unavailable_entity"}
    assert rules(pack, "You don't have Emberfox.", ctx) == {"false_missing"}
    excluded = CheckContext.live(pack, load_state(STATE), "no emberfox", excluded=["emberfox"])
    assert rules(pack, "Bring Emberfox and Hexmoth.", excluded) == {"excluded_entity"}
    again = CheckContext.live(
        pack, load_state(STATE), "and another", previous_reply="Use Hexmoth and Galehawk."
    )
    assert rules(pack, "Go with Galehawk and Hexmoth.", again) == {"repeated_guidance"}


# --- check_sentence: the runtime guard's way in ------------------------------------------------------


def test_check_sentence_catches_a_repeat_a_loop_and_the_budget(pack: Pack, ctx: CheckContext) -> None:
    first = "Use Emberfox against Briarcat."
    assert check_sentence(pack, first, ctx, []) == []
    assert {f.rule for f in check_sentence(pack, first, ctx, [first])} == {"loop"}
    assert "loop" in {f.rule for f in check_sentence(pack, "No, no, no, no.", ctx, [])}
    long_spoken = ["Emberfox is ready to go now and hits very hard."] * 4
    assert "too_long" in {f.rule for f in check_sentence(pack, "Bring Hexmoth too.", ctx, long_spoken)}
    assert {f.rule for f in check_sentence(pack, "Use Pyrowl.", ctx, [])} == {"unavailable_entity"}
    assert {f.rule for f in check_sentence(pack, None, ctx, [])} == {"no_reply"}


def test_split_sentences() -> None:
    assert split_sentences("Hi there. Use Emberfox! Ready?\nGo") == [
        "Hi there.",
        "Use Emberfox!",
        "Ready?",
        "Go",
    ]


def test_rule_ids_are_closed() -> None:
    assert {"prompt_echo", "markup", "loop", "too_long", "unknown_name", "no_reply", "unresponsive"} <= RULES


@pytest.mark.parametrize("reply", ["Hmm, tricky one.", "GG, well played.", "Heh, nice.", "Hmmm, okay."])
def test_interjections_are_no_names(pack: Pack, ctx: CheckContext, reply: str) -> None:
    assert "unknown_name" not in rules(pack, reply, ctx)


def test_a_phrase_picked_up_across_a_sentence_boundary_is_no_loop(pack: Pack, state: LiveState) -> None:
    ctx = CheckContext.live(pack, state, "whos my strongest creature")
    text = "Let me find your strongest pet. Your strongest pet is Hexmoth, at stage 3."
    assert [f.rule for f in check_reply(pack, text, ctx)] == []
    assert "loop" in [f.rule for f in check_reply(pack, "I'm sorry. I'm sorry.", ctx)]


def test_saying_a_kept_out_creature_is_owned_is_no_recommendation(pack: Pack, state: LiveState) -> None:
    ctx = CheckContext.live(pack, state, "do i have hexmoth", excluded=["hexmoth"])
    assert check_reply(pack, "Yes, Hexmoth is in your roster, at stage 3.", ctx) == []
    assert "excluded_entity" in [f.rule for f in check_reply(pack, "Use your Hexmoth.", ctx)]
