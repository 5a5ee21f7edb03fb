"""W1 Perception: tag-stream parser, PLAN parsing, Φ freeze decision, prompt and grammar."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voicecoach.core.state import (
    FactSlots,
    IntentContext,
    Inventory,
    LiveState,
    MatchState,
    OwnedCreature,
    load_state,
)
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import Pack, PhiEntry, ToolUse, example_state_path, load_pack
from voicecoach.perception.kernel import Dispatch, W1Counters, W1Decision, W1Turn
from voicecoach.perception.narration import FALLBACK_NARRATION, narration_for, narration_problem
from voicecoach.perception.phi import (
    PhiTable,
    bind_args,
    decision_fields,
    registered_labels,
    state_paths,
    tool_validator,
)
from voicecoach.perception.plan import ToolCall, parse_plan
from voicecoach.perception.prompt import (
    NARRATION_MAX_WORDS,
    PrefillEcho,
    W1Grammars,
    w1_call,
    w1_continuation_gbnf,
    w1_gbnf,
    w1_messages,
    w1_prefill,
    w1_prefix,
    w1_system_prompt,
)
from voicecoach.perception.tags import (
    MAX_LABEL_CHARS,
    SECTIONS,
    FormatError,
    IntentClosed,
    NarrationClosed,
    NarrationDelta,
    PlanClosed,
    SubIntentClosed,
    TagStreamParser,
    W1Event,
    merge_deltas,
    normalise_label,
    parse_stream,
)

WELL_FORMED = (
    "<INTENT>lineup</INTENT><SUB_INTENT>counter</SUB_INTENT>"
    "<NARRATION>Let me check what beats their team.</NARRATION>"
    "<PLAN>find_counters(opponent=[briarcat, voltail])</PLAN>"
)


def errors(events: list[W1Event]) -> list[str]:
    return [e.reason for e in events if isinstance(e, FormatError)]


def narration(events: list[W1Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, NarrationDelta))


def chunked(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(c, len(text)) for c in cuts})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


# --- parser: the well-formed stream ------------------------------------------------------------


def test_well_formed_stream_yields_the_four_sections_in_order() -> None:
    assert parse_stream([WELL_FORMED]) == [
        IntentClosed("lineup"),
        SubIntentClosed("counter"),
        NarrationDelta("Let me check what beats their team."),
        NarrationClosed(),
        PlanClosed("find_counters(opponent=[briarcat, voltail])"),
    ]


def test_narration_is_emitted_before_the_stream_ends() -> None:
    parser = TagStreamParser()
    middle = WELL_FORMED.index("beats")
    events = parser.feed(WELL_FORMED[:middle])
    assert events[:2] == [IntentClosed("lineup"), SubIntentClosed("counter")]
    assert narration(events) == "Let me check what "
    assert NarrationClosed() not in events
    rest = parser.feed(WELL_FORMED[middle:]) + parser.finish()
    assert narration(rest) == "beats their team."


def test_sub_intent_closes_before_narration_arrives_token_by_token() -> None:
    parser = TagStreamParser()
    seen: list[W1Event] = []
    for i, ch in enumerate(WELL_FORMED):
        seen += parser.feed(ch)
        if SubIntentClosed("counter") in seen:
            assert WELL_FORMED[: i + 1].endswith("</SUB_INTENT>")
            break
    else:
        pytest.fail("SUB_INTENT never closed")


def test_only_a_possible_tag_prefix_is_held_back() -> None:
    parser = TagStreamParser()
    parser.feed("<INTENT>a</INTENT><SUB_INTENT>b</SUB_INTENT><NARRATION>")
    assert parser.feed("Hold on <") == [NarrationDelta("Hold on ")]
    assert parser.feed("/NARR") == []
    assert parser.feed("ATION>") == [NarrationClosed()]


def test_lt_that_is_not_a_tag_passes_through_as_narration() -> None:
    events = parse_stream(
        [
            "<INTENT>a</INTENT><SUB_INTENT>b</SUB_INTENT><NARRATION>HP < 50 and x<3, a <= b</NARRATION>",
            "<PLAN>none</PLAN>",
        ]
    )
    assert narration(events) == "HP < 50 and x<3, a <= b"
    assert errors(events) == []


def test_narration_lt_at_end_of_stream_is_text() -> None:
    events = parse_stream(["<INTENT>a</INTENT><SUB_INTENT>b</SUB_INTENT><NARRATION>so <"])
    assert narration(events) == "so <"
    assert NarrationClosed() in events


def test_leading_whitespace_of_narration_is_dropped() -> None:
    events = parse_stream(["<INTENT>a</INTENT><SUB_INTENT>b</SUB_INTENT><NARRATION>", "  ", "\n Hi there"])
    assert narration(events) == "Hi there"


def test_tag_names_are_case_insensitive_and_whitespace_tolerant() -> None:
    text = (
        "< intent >Lineup</Intent >\n< Sub_Intent>  Fill  Slot </SUB_INTENT>"
        "<narration >Sure.</ NARRATION>\n<PLAN\n>get_inventory()</plan>"
    )
    assert parse_stream([text]) == [
        IntentClosed("lineup"),
        SubIntentClosed("fill_slot"),
        NarrationDelta("Sure."),
        NarrationClosed(),
        PlanClosed("get_inventory()"),
    ]


def test_labels_are_normalised() -> None:
    assert normalise_label("  Opponent Analysis\t") == "opponent_analysis"
    assert normalise_label("tier-list") == "tier_list"


# --- parser: malformed streams -----------------------------------------------------------------


def test_text_outside_tags_is_ignored_with_one_error() -> None:
    events = parse_stream(["Sure! " + WELL_FORMED.replace("</SUB_INTENT>", "</SUB_INTENT> ok ") + " bye"])
    assert errors(events) == ["text outside tags ignored"]
    assert (
        IntentClosed("lineup") in events
        and PlanClosed("find_counters(opponent=[briarcat, voltail])") in events
    )


def test_missing_sub_intent_is_reported_and_parsing_continues() -> None:
    events = parse_stream(["<INTENT>lineup</INTENT><NARRATION>Okay.</NARRATION><PLAN>get_inventory()</PLAN>"])
    assert errors(events) == ["missing <SUB_INTENT> before <NARRATION>"]
    assert not any(isinstance(e, SubIntentClosed) for e in events)
    assert narration(events) == "Okay." and PlanClosed("get_inventory()") in events


def test_duplicate_tag_first_value_wins() -> None:
    events = parse_stream(
        ["<INTENT>lineup</INTENT><INTENT>match</INTENT>" + WELL_FORMED[len("<INTENT>lineup</INTENT>") :]]
    )
    assert [e for e in events if isinstance(e, IntentClosed)] == [IntentClosed("lineup")]
    assert errors(events) == ["duplicate <INTENT> ignored (first value wins)"]


def test_out_of_order_tag_is_ignored_but_later_sections_still_parse() -> None:
    text = (
        "<SUB_INTENT>counter</SUB_INTENT><NARRATION>Hm.</NARRATION><INTENT>lineup</INTENT>"
        "<PLAN>get_inventory()</PLAN>"
    )
    events = parse_stream([text])
    assert not any(isinstance(e, IntentClosed) for e in events)
    assert errors(events) == [
        "missing <INTENT> before <SUB_INTENT>",
        "<INTENT> after <NARRATION> ignored (out of order)",
    ]
    assert SubIntentClosed("counter") in events and PlanClosed("get_inventory()") in events


def test_unknown_tag_is_ignored_with_its_content() -> None:
    text = WELL_FORMED.replace("<NARRATION>", "<THINK>secret <b>plan</b></THINK><NARRATION>")
    events = parse_stream([text])
    assert "secret" not in narration(events) and "plan" not in narration(events)
    assert errors(events) == ["unknown tag <THINK> ignored with its content"]
    assert narration(events) == "Let me check what beats their team."


def test_unclosed_unknown_tag_does_not_swallow_the_plan() -> None:
    text = (
        "<INTENT>a</INTENT><SUB_INTENT>b</SUB_INTENT><NARRATION>x</NARRATION>"
        "<FOO>junk<PLAN>list_lineups()</PLAN>"
    )
    events = parse_stream([text])
    assert PlanClosed("list_lineups()") in events
    assert errors(events) == ["unknown tag <FOO> ignored with its content", "<FOO> not closed before <PLAN>"]


def test_unknown_tag_inside_narration_is_dropped_but_text_kept() -> None:
    events = parse_stream(
        ["<INTENT>a</INTENT><SUB_INTENT>b</SUB_INTENT><NARRATION>go <em>now</em></NARRATION>"]
    )
    assert narration(events) == "go now"
    assert len(errors(events)) == 3  # <EM>, </EM>, missing PLAN


def test_section_not_closed_before_next_section_is_closed_implicitly() -> None:
    events = parse_stream(["<INTENT>a</INTENT><SUB_INTENT>b<NARRATION>hi</NARRATION><PLAN>none</PLAN>"])
    assert SubIntentClosed("b") in events and narration(events) == "hi"
    assert errors(events) == ["<SUB_INTENT> not closed before <NARRATION>"]


def test_unclosed_narration_at_finish_emits_held_text_then_close_then_error() -> None:
    parser = TagStreamParser()
    parser.feed("<INTENT>a</INTENT><SUB_INTENT>b</SUB_INTENT><NARRATION>Almost <")
    tail = parser.finish()
    assert tail[:3] == [
        NarrationDelta("<"),
        NarrationClosed(),
        FormatError("<NARRATION> not closed at end of stream"),
    ]
    assert tail[3:] == [FormatError("missing <PLAN>")]


def test_unclosed_plan_at_finish_is_parsed_with_an_error() -> None:
    events = parse_stream([WELL_FORMED[: WELL_FORMED.index("</PLAN>")]])
    assert events[-2:] == [
        PlanClosed("find_counters(opponent=[briarcat, voltail])"),
        FormatError("<PLAN> not closed at end of stream"),
    ]


def test_long_label_is_truncated_with_an_error() -> None:
    events = parse_stream([f"<INTENT>{'x' * 500}</INTENT>"])
    closed = [e for e in events if isinstance(e, IntentClosed)]
    assert closed == [IntentClosed("x" * MAX_LABEL_CHARS)]
    assert any("longer than" in r for r in errors(events))


def test_empty_stream_reports_every_section_missing() -> None:
    assert parse_stream([]) == [FormatError(f"missing <{s}>") for s in SECTIONS]


def test_feed_after_finish_is_an_error_not_an_exception() -> None:
    parser = TagStreamParser()
    parser.feed(WELL_FORMED)
    parser.finish()
    assert parser.feed("<PLAN>x()</PLAN>") == [FormatError("text after end of stream ignored")]
    assert parser.finish() == []


# --- parser: properties ------------------------------------------------------------------------

LABEL = st.sampled_from(["lineup", "Match", "fill slot", " creature ", "x" * 70, ""])
TEXT = st.text(alphabet=st.sampled_from(list("ab <>/=,;.!? 5\n")), max_size=30)


@st.composite
def well_formed(draw: st.DrawFn) -> str:
    def tag(name: str) -> str:
        return draw(st.sampled_from([f"<{name}>", f"< {name.lower()} >", f"<{name.title()}\n>"]))

    def close(name: str) -> str:
        return draw(st.sampled_from([f"</{name}>", f"</ {name.lower()}>", f"< /{name} >"]))

    sections = [
        (name, draw(LABEL if name in ("INTENT", "SUB_INTENT") else TEXT.map(lambda t: t.replace("<", "< 5"))))
        for name in SECTIONS
    ]
    return draw(st.sampled_from(["", "\n"])).join(tag(n) + body + close(n) for n, body in sections)


FRAGMENTS = st.sampled_from(
    [
        *(f"<{s}>" for s in SECTIONS),
        *(f"</{s}>" for s in SECTIONS),
        "<intent >",
        "</ Narration>",
        "<FOO>",
        "</FOO>",
        "<",
        "</",
        "< 5",
        "<b>",
        "HP < 50",
        "text",
        " ",
        "\n",
        "lineup",
        "get_inventory()",
        "x" * 80,
    ]
)
MALFORMED = st.lists(FRAGMENTS, max_size=25).map("".join)
CUTS = st.lists(st.integers(min_value=0, max_value=400), max_size=30)


@settings(max_examples=300)
@given(text=st.one_of(well_formed(), MALFORMED), cuts=CUTS)
def test_any_chunking_gives_the_same_events(text: str, cuts: list[int]) -> None:
    whole = merge_deltas(parse_stream([text]))
    assert merge_deltas(parse_stream(chunked(text, cuts))) == whole
    assert merge_deltas(parse_stream(list(text))) == whole


@settings(max_examples=300)
@given(text=st.one_of(well_formed(), MALFORMED, st.text(max_size=200)), cuts=CUTS)
def test_arbitrary_text_never_raises_and_events_are_well_shaped(text: str, cuts: list[int]) -> None:
    events = parse_stream(chunked(text, cuts))
    assert all(not (isinstance(e, NarrationDelta) and e.text == "") for e in events)
    # each section is closed at most once, and narration text only appears before its close
    for kind in (IntentClosed, SubIntentClosed, NarrationClosed, PlanClosed):
        assert sum(isinstance(e, kind) for e in events) <= 1
    if NarrationClosed() in events:
        close_at = events.index(NarrationClosed())
        assert not any(isinstance(e, NarrationDelta) for e in events[close_at:])
    for e in events:
        if isinstance(e, IntentClosed | SubIntentClosed):
            assert len(e.label) <= MAX_LABEL_CHARS


@given(text=well_formed())
def test_well_formed_streams_have_no_errors_except_bad_labels(text: str) -> None:
    events = parse_stream([text])
    for reason in errors(events):
        assert "label" in reason  # only the empty / overlong labels drawn on purpose
    assert sum(isinstance(e, PlanClosed) for e in events) == 1


# --- PLAN parsing ---------------------------------------------------------------------------------


def test_parse_plan_lines_semicolons_values() -> None:
    plan = parse_plan(
        "get_inventory()\n"
        "suggest_lineup(opponent=[briarcat, 'shell bastion'], style=\"aggressive\", size=3); list_lineups()\n"
        "- score_lineup(creatures=[a, b], opponent=[])\n"
        "x(n=-2, f=0.5, yes=true, word=fire type)"
    )
    assert plan.errors == []
    assert plan.calls == [
        ToolCall("get_inventory", {}),
        ToolCall(
            "suggest_lineup", {"opponent": ["briarcat", "shell bastion"], "style": "aggressive", "size": 3}
        ),
        ToolCall("list_lineups", {}),
        ToolCall("score_lineup", {"creatures": ["a", "b"], "opponent": []}),
        ToolCall("x", {"n": -2, "f": 0.5, "yes": True, "word": "fire type"}),
    ]


def test_parse_plan_quoted_separators_do_not_split() -> None:
    plan = parse_plan('explain_skill(skill="a; b\'s, c")')
    assert plan.calls == [ToolCall("explain_skill", {"skill": "a; b's, c"})]


def test_parse_plan_json_forms() -> None:
    one = parse_plan('{"tool": "get_creature", "args": {"creature": "emberfox"}}')
    assert one.calls == [ToolCall("get_creature", {"creature": "emberfox"})]
    many = parse_plan('[{"tool": "get_inventory"}, {"name": "get_creature", "arguments": {"creature": "x"}}]')
    assert many.calls == [ToolCall("get_inventory", {}), ToolCall("get_creature", {"creature": "x"})]
    multiline = parse_plan('{"tool": "get_creature",\n "args": {"creature": "x"}}\nlist_lineups()')
    assert [c.tool for c in multiline.calls] == ["get_creature", "list_lineups"]


@pytest.mark.parametrize("text", ["", "none", " None ", "n/a", "[]", "-"])
def test_parse_plan_empty_plans(text: str) -> None:
    assert parse_plan(text).calls == [] and parse_plan(text).errors == []


def test_parse_plan_invalid_lines_become_errors() -> None:
    plan = parse_plan(
        "get_inventory()\nI'll check your team\nget_creature(emberfox)\nexplain_skill(skill=\"open\n"
        'x(a=[1, 2)\n{not json}\n{"args": {}}\nlist_lineups()'
    )
    assert [c.tool for c in plan.calls] == ["get_inventory", "list_lineups"]
    assert len(plan.errors) == 6


@given(
    st.one_of(
        st.text(max_size=120), st.lists(st.sampled_from(list("f(a=[]{}\"';, \n")), max_size=60).map("".join)
    )
)
def test_parse_plan_never_raises(text: str) -> None:
    plan = parse_plan(text)
    assert all(isinstance(c.args, dict) for c in plan.calls)


@pytest.mark.parametrize(
    "text", ["f(a=" + "[" * 5000, "[" * 5000, "{" * 5000, '{"tool": "f", "args": ' + "[" * 5000]
)
def test_parse_plan_deep_nesting_is_an_error_not_a_crash(text: str) -> None:
    plan = parse_plan(text)
    assert plan.calls == [] and plan.errors


def test_parse_plan_openai_style_string_arguments() -> None:
    plan = parse_plan('{"name": "get_creature", "arguments": "{\\"creature\\": \\"emberfox\\"}"}')
    assert plan.calls == [ToolCall("get_creature", {"creature": "emberfox"})]


# --- Φ decision --------------------------------------------------------------------------------------

TABLE = PhiTable(
    [
        PhiEntry(
            intent="lineup",
            sub_intent="counter",
            tools=[
                ToolUse(tool="find_counters", args={"opponent": "$ic.match.opponent_lineup"}),
                ToolUse(tool="get_inventory"),
            ],
            requires=["ic.match.opponent_lineup", "fs.inventory.owned"],
            branch="recommend",
        ),
        PhiEntry(
            intent="creature",
            sub_intent="counters",
            tools=[ToolUse(tool="find_counters", args={"opponent": ["$ic.focus_creature"]})],
        ),
        PhiEntry(intent="smalltalk", sub_intent="thanks", tools=[]),
    ]
)
KNOWN_TOOLS = {"find_counters": {"opponent"}, "get_inventory": set(), "get_creature": {"creature"}}


def fake_validate(name: str, args: dict[str, Any]) -> dict[str, Any]:
    if name not in KNOWN_TOOLS:
        raise ValueError(f"unknown tool {name!r}")
    if set(args) - KNOWN_TOOLS[name]:
        raise ValueError(f"{name}: bad args {sorted(args)}")
    return {k: [str(x).lower() for x in v] if isinstance(v, list) else v for k, v in args.items()}


def live(
    turn_index: int = 4, opponent: list[str] | None = None, owned: bool = True, focus: str | None = None
) -> LiveState:
    return LiveState(
        version=3,
        turn_index=turn_index,
        ic=IntentContext(
            match=MatchState(round=2, player_lineup=["emberfox"], opponent_lineup=opponent or []),
            focus_creature=focus,
        ),
        fs=FactSlots(inventory=Inventory(owned=[OwnedCreature(creature_id="emberfox")] if owned else [])),
    )


def decision(counters: W1Counters | None = None, **kw: Any) -> W1Decision:
    return W1Decision(TABLE, counters, validate=fake_validate, **kw)


def test_hit_with_fresh_state_freezes_with_bound_args() -> None:
    counters = W1Counters()
    d = decision(counters)
    got = d.on_sub_intent("lineup", "counter", live(opponent=["Briarcat", "voltail"]), turn_index=4)
    assert got == Dispatch(
        [ToolCall("find_counters", {"opponent": ["briarcat", "voltail"]}), ToolCall("get_inventory", {})],
        source="phi",
        frozen=True,
    )
    assert d.outcome == "frozen" and d.frozen and counters.frozen == 1 and counters.fall_through == 0


def test_state_path_inside_a_list_is_bound_and_required() -> None:
    d = decision()
    got = d.on_sub_intent("creature", "counters", live(focus="emberfox"), 4)
    assert got is not None and got.calls == [ToolCall("find_counters", {"opponent": ["emberfox"]})]
    # the path is not in `requires`, but an argument binds it: absent -> no early path
    assert decision_fields(TABLE.lookup("creature", "counters")) == ["ic.focus_creature"]  # type: ignore[arg-type]
    d2 = decision()
    assert d2.on_sub_intent("creature", "counters", live(focus=None), 4) is None
    assert d2.outcome == "degraded" and "ic.focus_creature missing" in d2.reason


def test_hit_with_missing_field_degrades_and_waits_for_plan() -> None:
    counters = W1Counters()
    d = decision(counters)
    assert d.on_sub_intent("lineup", "counter", live(opponent=[], owned=False), 4) is None
    assert d.outcome == "degraded"
    assert "ic.match.opponent_lineup missing" in d.reason and "fs.inventory.owned missing" in d.reason
    assert counters.degraded == 1 and counters.fall_through == 0
    got = d.on_plan("get_inventory()")
    assert got == Dispatch([ToolCall("get_inventory", {})], source="plan")
    assert d.outcome == "degraded"


def test_hit_with_stale_snapshot_degrades() -> None:
    d = decision()
    assert (
        d.on_sub_intent("lineup", "counter", live(turn_index=2, opponent=["briarcat"]), turn_index=4) is None
    )
    assert d.outcome == "degraded" and "stale" in d.reason
    lenient = decision(max_age=2)
    assert (
        lenient.on_sub_intent("lineup", "counter", live(turn_index=2, opponent=["briarcat"]), 4) is not None
    )


def test_miss_counts_a_fall_through_and_dispatches_the_plan() -> None:
    counters = W1Counters()
    d = decision(counters)
    assert d.on_sub_intent("element", "chart", live(), 4) is None
    assert d.outcome == "miss" and counters.fall_through == 1 and counters.degraded == 0
    got = d.on_plan("get_creature(creature=emberfox)")
    assert got == Dispatch([ToolCall("get_creature", {"creature": "emberfox"})], source="plan")
    assert d.finish() is None
    assert counters.fall_through_rate == 1.0


def test_plan_after_freeze_is_ignored() -> None:
    counters = W1Counters()
    d = decision(counters)
    frozen = d.on_sub_intent("smalltalk", "thanks", live(), 4)
    assert frozen == Dispatch([], source="phi", frozen=True)
    assert d.on_plan("get_inventory()") is None
    assert d.plan_ignored and counters.plan_ignored == 1
    assert d.dispatch is frozen and d.finish() is None


def test_plan_with_unknown_tool_or_bad_args_drops_those_calls() -> None:
    d = decision()
    d.on_sub_intent("other", "other", live(), 4)
    got = d.on_plan("get_inventory()\nsummon_dragon(size=3)\nget_creature(creature=x, level=3)\nnot a call")
    assert got is not None and got.source == "plan"
    assert got.calls == [ToolCall("get_inventory", {})]
    assert len(got.errors) == 3
    assert any("summon_dragon" in e for e in got.errors) and any("get_creature" in e for e in got.errors)


def test_phi_call_rejected_by_the_validator_degrades() -> None:
    table = PhiTable([PhiEntry(intent="a", sub_intent="b", tools=[ToolUse(tool="nope")])])
    d = W1Decision(table, validate=fake_validate)
    assert d.on_sub_intent("a", "b", live(), 4) is None
    assert d.outcome == "degraded" and "nope" in d.reason


def test_missing_sub_intent_is_a_format_error_outcome_and_plan_still_dispatches() -> None:
    counters = W1Counters()
    d = decision(counters)
    d.on_format_error("missing <SUB_INTENT> before <NARRATION>")
    d.on_format_error("another")
    assert d.on_plan("get_inventory()") is not None
    assert d.outcome == "format_error" and counters.format_errors == 1 and counters.fall_through == 0


def test_finish_without_any_dispatch_sends_the_empty_set_once() -> None:
    d = decision()
    d.on_sub_intent("element", "chart", live(), 4)
    assert d.finish() == Dispatch([], source="none")
    assert d.finish() is None and d.outcome == "miss"


def test_counters_accumulate_over_turns() -> None:
    counters = W1Counters()
    for intent, sub in [("smalltalk", "thanks"), ("x", "y"), ("x", "z"), ("lineup", "counter")]:
        d = decision(counters)
        d.on_sub_intent(intent, sub, live(opponent=["briarcat"]), 4)
        d.finish()
    assert (counters.turns, counters.frozen, counters.fall_through) == (4, 2, 2)
    assert counters.fall_through_rate == 0.5


def test_turn_dispatches_at_sub_intent_close_before_narration() -> None:
    turn = W1Turn(TABLE, live(opponent=["briarcat"]), 4, validate=fake_validate)
    steps = [turn.feed(ch) for ch in WELL_FORMED] + [turn.finish()]
    dispatch_at = next(i for i, s in enumerate(steps) if s.dispatch is not None)
    first_narration = next(
        i for i, s in enumerate(steps) if any(isinstance(e, NarrationDelta) for e in s.events)
    )
    assert WELL_FORMED[: dispatch_at + 1].endswith("</SUB_INTENT>")
    assert dispatch_at < first_narration
    assert sum(s.dispatch is not None for s in steps) == 1  # the later PLAN does not override
    assert turn.decision.plan_ignored and turn.decision.outcome == "frozen"


def test_turn_reads_the_latest_state_when_sub_intent_closes() -> None:
    snapshots = [live(opponent=[])]
    turn = W1Turn(TABLE, lambda: snapshots[-1], 4, validate=fake_validate)
    turn.feed("<INTENT>lineup</INTENT><SUB_INTENT>coun")
    snapshots.append(live(opponent=["briarcat"]))  # the game pushed the opponent meanwhile
    step = turn.feed("ter</SUB_INTENT>")
    assert step.dispatch is not None and step.dispatch.frozen


def test_turn_on_a_miss_dispatches_the_plan_and_counts_format_errors() -> None:
    counters = W1Counters()
    turn = W1Turn(TABLE, live(), 4, counters, validate=fake_validate)
    text = (
        "oops <INTENT>element</INTENT><SUB_INTENT>chart</SUB_INTENT>"
        "<NARRATION>One sec.</NARRATION><PLAN>get_inventory()"
    )
    first = turn.feed(text)
    assert first.dispatch is None
    last = turn.finish()
    assert last.dispatch == Dispatch([ToolCall("get_inventory", {})], source="plan")
    assert counters.fall_through == 1 and counters.format_errors == 1


def test_state_paths() -> None:
    assert state_paths("$ic.focus_creature") == ["ic.focus_creature"]
    assert state_paths(["$a.b", "lit"]) == ["a.b"]
    assert state_paths("aggressive") == [] and state_paths(3) == []
    assert state_paths("$?ic.match.opponent_lineup") == []  # optional: not a decision field


def test_an_optional_binding_is_left_out_when_the_state_lacks_it() -> None:
    """A team built in the lobby has no opponent to build against; in a match it has."""
    args = {"opponent": "$?ic.match.opponent_lineup", "size": 3}
    lobby = LiveState()
    assert bind_args(args, lobby) == {"size": 3}
    match = load_state(json.loads(example_state_path("pet_arena").read_text()))
    assert bind_args(args, match) == {"opponent": ["briarcat", "shellbastion", "voltail"], "size": 3}


# --- the real pack's Φ table, prompt and grammar ------------------------------------------------------


@pytest.fixture(scope="module")
def real_pack() -> Pack:
    return load_pack()


def test_phi_table_size_and_labels(real_pack: Pack) -> None:
    labels = registered_labels(real_pack)
    pairs = [(e.intent, e.sub_intent) for e in real_pack.phi]
    assert 45 <= len(pairs) <= 55 and len(set(pairs)) == len(pairs)
    assert 8 <= len(labels) <= 10
    # the parser normalises labels, so only normalised labels can ever hit
    assert all(normalise_label(x) == x for pair in pairs for x in pair)
    assert "other" not in labels
    smalltalk = [e for e in real_pack.phi if e.intent == "smalltalk"]
    assert smalltalk and all(e.tools == [] for e in smalltalk)


def full_state(pack: Pack) -> LiveState:
    ids = sorted(pack.catalog.entities["creature"])
    owned = [OwnedCreature(creature_id=c, stage=2, level=10) for c in ids[:8]]
    return LiveState(
        turn_index=7,
        ic=IntentContext(
            match=MatchState(round=2, player_lineup=ids[:3], opponent_lineup=ids[-3:]),
            entity_links=ids[3:6],
            mentioned_creatures=ids[3:6],
            focus_creature=ids[0],
            focus_skill=sorted(pack.catalog.entities["skill"])[0],
        ),
        fs=FactSlots(inventory=Inventory(owned=owned), player_level=12),
    )


def test_every_phi_row_freezes_on_a_complete_state_and_its_calls_run(real_pack: Pack) -> None:
    from voicecoach.tools.registry import run_tool

    state = full_state(real_pack)
    for entry in real_pack.phi:
        d = W1Decision(PhiTable(real_pack.phi), validate=tool_validator(real_pack))
        got = d.on_sub_intent(entry.intent, entry.sub_intent, state, turn_index=7)
        assert got is not None and got.frozen, (entry.intent, entry.sub_intent, d.reason)
        for call in got.calls:
            run_tool(real_pack, state, call.tool, call.args)  # raises ToolError if the row is wrong


def test_every_phi_row_with_requirements_degrades_on_an_empty_state(real_pack: Pack) -> None:
    for entry in real_pack.phi:
        d = W1Decision(PhiTable(real_pack.phi), validate=tool_validator(real_pack))
        got = d.on_sub_intent(entry.intent, entry.sub_intent, LiveState(turn_index=7), turn_index=7)
        needs_live_state = any(not p.startswith("fs.player_level") for p in decision_fields(entry))
        assert (got is None) == needs_live_state, (entry.intent, entry.sub_intent)


def test_system_prompt_is_static_and_complete(real_pack: Pack) -> None:
    from voicecoach.tools.registry import pack_tools

    prompt = w1_system_prompt(real_pack)
    assert prompt == w1_system_prompt(real_pack)
    order = [prompt.index(f"<{s}>") for s in SECTIONS]
    assert order == sorted(order)
    for entry in real_pack.phi:
        assert f'- {entry.intent} {entry.sub_intent}: "{entry.example}"' in prompt
    for spec in pack_tools(real_pack).values():
        line = next(x for x in prompt.splitlines() if x.startswith(f"- {spec.name}("))
        for arg in spec.parameters["properties"]:
            assert arg in line
    assert f"at most {NARRATION_MAX_WORDS} words" in prompt


def gbnf_rules(grammar: str) -> tuple[dict[str, str], set[str]]:
    """(rule name -> body, names referenced in bodies), skipping literals, classes, repetitions."""
    rules: dict[str, str] = {}
    for line in grammar.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, sep, body = line.partition("::=")
            assert sep, f"not a rule: {line!r}"
            assert re.fullmatch(r"[a-zA-Z0-9-]+", name.strip()), name
            assert name.strip() not in rules, f"rule {name} defined twice"
            rules[name.strip()] = body
    refs: set[str] = set()
    for body in rules.values():
        stripped = re.sub(r'"(?:\\.|[^"\\])*"|\[(?:\\.|[^\]\\])*\]|\{\d*,?\d*\}', " ", body)
        assert '"' not in stripped and "[" not in stripped and "{" not in stripped, body
        assert stripped.count("(") == stripped.count(")"), body
        refs |= set(re.findall(r"[a-zA-Z0-9-]+", stripped))
    return rules, refs


def test_gbnf_is_well_formed(real_pack: Pack) -> None:
    grammar = w1_gbnf(real_pack)
    rules, refs = gbnf_rules(grammar)
    assert "root" in rules
    assert refs <= set(rules), refs - set(rules)
    for intent, subs in registered_labels(real_pack).items():
        assert f'"<INTENT>{intent}</INTENT><SUB_INTENT>"' in grammar
        assert all(f'"{s}"' in grammar for s in subs)
    assert '"<INTENT>other</INTENT><SUB_INTENT>"' in grammar


def test_gbnf_reference_checker_catches_undefined_rules() -> None:
    rules, refs = gbnf_rules('root ::= head "x" [^<]{1,5}\nhead ::= tail')
    assert refs - set(rules) == {"tail"}


async def test_gbnf_parses_in_llama_cpp(real_pack: Pack) -> None:
    """llama-server parses a request's grammar and refuses one that does not parse."""
    from voicecoach.llm.client import EmbeddedLlamaServer, LLMClient, LLMConfig, LLMError

    server = EmbeddedLlamaServer(threads=1, slots=1, ram_cache=False)
    client = LLMClient(LLMConfig(temperature=0.0), await asyncio.to_thread(server.start))
    try:
        messages = [{"role": "user", "content": "which creature should I bring?"}]
        with pytest.raises(LLMError):  # the check can fail
            await client.complete(messages, max_tokens=4, grammar="root ::= undefined-rule")
        text = await client.complete(messages, max_tokens=8, grammar=w1_gbnf(real_pack))
        assert text.startswith("<INTENT>")
    finally:
        await client.close()
        server.stop()


def test_w1_messages_put_the_worked_turns_before_the_utterance(real_pack: Pack) -> None:
    messages = w1_messages(real_pack, "who beats their tank")
    assert messages[0] == {"role": "system", "content": w1_system_prompt(real_pack)}
    assert messages[-1] == {"role": "user", "content": "who beats their tank"}
    shots = messages[1:-1]
    assert [m["role"] for m in shots] == ["user", "assistant"] * len(real_pack.w1_examples)
    # Static prefix: the same for every utterance, so the server's KV cache keeps it.
    assert w1_messages(real_pack, "hello")[:-1] == messages[:-1]


def test_w1_worked_turns_are_what_w1_itself_accepts(real_pack: Pack) -> None:
    """Each example answer parses into the four tags, a registered pair, a short narration and a
    plan the tool validator takes: a bad example would teach the model a broken format."""
    validate = tool_validator(real_pack)
    registered = {(e.intent, e.sub_intent) for e in real_pack.phi}
    for ex, answer in zip(real_pack.w1_examples, w1_messages(real_pack, "x")[2:-1:2], strict=True):
        events = parse_stream([answer["content"]])
        assert not errors(events), (ex.utterance, errors(events))
        assert (ex.intent, ex.sub_intent) in registered
        assert len(narration(events).split()) <= NARRATION_MAX_WORDS
        # Narration is spoken before any grounding: a name in it ("Let me check your Rockram")
        # was copied into replies about creatures the player does not own.
        assert link_entities(real_pack, narration(events)) == [], ex.narration
        plan = parse_plan(ex.plan)
        assert plan.calls and not plan.errors, ex.plan
        for call in plan.calls:
            validate(call.tool, call.args)  # raises on an unknown tool, argument or entity


# --- narration bounded by the grammar -------------------------------------------------------------


def test_narration_grammar_bounds_words_and_sentence_end(real_pack: Pack) -> None:
    for grammar in (w1_gbnf(real_pack), w1_continuation_gbnf(real_pack)):
        rules, refs = gbnf_rules(grammar)
        assert refs <= set(rules), refs - set(rules)
        body = rules["narration-body"]
        assert f"{{0,{NARRATION_MAX_WORDS - 1}}}" in body  # at most NARRATION_MAX_WORDS words
        assert "[.!?]?" in body  # sentence-ending punctuation only once, at the end
        assert "\\n" in rules["narration-word"] and "<" in rules["narration-word"]


def test_continuation_grammar_starts_at_the_narration_body(real_pack: Pack) -> None:
    rules, _ = gbnf_rules(w1_continuation_gbnf(real_pack))
    assert rules["root"].split() == ["narration-body", "plan"]
    assert "<INTENT>" not in w1_continuation_gbnf(real_pack)


# --- prefill ----------------------------------------------------------------------------------------

PREFILL = w1_prefill("lineup", "counter")
CONTINUATION = "Let me see who beats them.</NARRATION><PLAN>none</PLAN>"


@given(st.lists(st.integers(min_value=0, max_value=len(PREFILL) + len(CONTINUATION)), max_size=8))
def test_echoed_prefill_is_stripped_however_it_is_chunked(cuts: list[int]) -> None:
    echo = PrefillEcho(PREFILL)
    out = "".join(echo.feed(c) for c in chunked(PREFILL + CONTINUATION, cuts)) + echo.finish()
    assert out == CONTINUATION
    assert echo.echoed


@given(st.lists(st.integers(min_value=0, max_value=len(CONTINUATION)), max_size=6))
def test_continuation_without_echo_passes_unchanged(cuts: list[int]) -> None:
    echo = PrefillEcho(PREFILL)
    out = "".join(echo.feed(c) for c in chunked(CONTINUATION, cuts)) + echo.finish()
    assert out == CONTINUATION
    assert not echo.echoed


def test_a_partial_echo_at_end_of_stream_is_kept_as_text() -> None:
    echo = PrefillEcho(PREFILL)
    assert echo.feed("<INTENT>line") == ""
    assert echo.finish() == "<INTENT>line"


def test_without_a_prefill_the_stream_is_untouched() -> None:
    echo = PrefillEcho("")
    assert echo.feed("<INTENT>") == "<INTENT>" and echo.finish() == ""


def test_w1_call_without_a_pair_is_todays_call(real_pack: Pack) -> None:
    prefix, grammars = w1_prefix(real_pack), W1Grammars.of(real_pack)
    call = w1_call(prefix, grammars, "who beats them", None)
    assert call.messages == w1_messages(real_pack, "who beats them")
    assert call.grammar == w1_gbnf(real_pack) and call.prefill == ""


def test_w1_call_with_a_pair_ends_in_the_assistant_prefill(real_pack: Pack) -> None:
    prefix, grammars = w1_prefix(real_pack), W1Grammars.of(real_pack)
    call = w1_call(prefix, grammars, "who beats them", ("lineup", "counter"))
    assert call.messages[:-1] == w1_messages(real_pack, "who beats them")
    assert call.messages[-1] == {"role": "assistant", "content": PREFILL}
    assert call.grammar == w1_continuation_gbnf(real_pack) and call.prefill == PREFILL


def test_prefill_closes_sub_intent_and_dispatches_before_any_llm_token(real_pack: Pack) -> None:
    turn = W1Turn(PhiTable(real_pack.phi), full_state(real_pack), 7, validate=tool_validator(real_pack))
    step = turn.feed(PREFILL)
    assert [type(e) for e in step.events] == [IntentClosed, SubIntentClosed]
    assert step.dispatch is not None and step.dispatch.frozen and step.dispatch.source == "phi"
    echo = PrefillEcho(PREFILL)
    events = list(step.events)
    for chunk in (PREFILL[:9], PREFILL[9:] + "Let me", " check.</NARRATION><PLAN>none</PLAN>"):
        events += turn.feed(echo.feed(chunk)).events
    events += turn.feed(echo.finish()).events + turn.finish().events
    assert not errors(events), errors(events)  # the echo was fed once: no duplicate tags
    assert narration(events) == "Let me check."
    assert turn.decision.plan_ignored  # the frozen set stands


async def test_real_llama_server_continues_a_prefilled_w1_turn(real_pack: Pack) -> None:
    """One real W1 call with a prefill on the embedded llama-server: the parser sees the labels
    once, Φ dispatched before the first token, and the model's continuation parses."""
    from voicecoach.llm.client import EmbeddedLlamaServer, LLMClient, LLMConfig

    server = EmbeddedLlamaServer(threads=1, slots=1, ram_cache=False)
    client = LLMClient(LLMConfig(temperature=0.0), await asyncio.to_thread(server.start))
    try:
        call = w1_call(
            w1_prefix(real_pack), W1Grammars.of(real_pack), "their team is too strong", ("lineup", "counter")
        )
        turn = W1Turn(PhiTable(real_pack.phi), full_state(real_pack), 7, validate=tool_validator(real_pack))
        first = turn.feed(call.prefill)
        assert first.dispatch is not None and first.dispatch.frozen
        events = list(first.events)
        echo = call.echo()
        async for delta in client.stream(
            call.messages, max_tokens=60, grammar=call.grammar, first_token_timeout_s=120.0
        ):  # a cold prompt: the whole W1 prefix is evaluated first
            events += turn.feed(echo.feed(delta)).events
        events += turn.feed(echo.finish()).events + turn.finish().events
        assert [e.label for e in events if isinstance(e, IntentClosed | SubIntentClosed)] == [
            "lineup",
            "counter",
        ]
        assert not errors(events), errors(events)
        said = narration(events)
        assert said and len(said.split()) <= NARRATION_MAX_WORDS, said
        assert any(isinstance(e, PlanClosed) for e in events)
    finally:
        await client.close()
        server.stop()


# --- narration checks and the pack's phrases ------------------------------------------------------------


@pytest.mark.parametrize(
    ("utterance", "text", "problem"),
    [
        ("who beats them", "", "empty"),
        ("who beats them", "  ...  ", "empty"),
        ("who beats them", "No, no, no, no.", "loop"),
        ("who beats them", "Let me check, let me check.", "loop"),
        ("who beats them", "Let me check your Rockram.", "Rockram"),
        (
            "who beats them",
            "one two three four five six seven eight nine ten eleven twelve thirteen",
            "words",
        ),
    ],
)
def test_unusable_narration_is_named(real_pack: Pack, utterance: str, text: str, problem: str) -> None:
    reason = narration_problem(real_pack, utterance, text)
    assert reason is not None and problem in reason


def test_a_name_the_player_said_may_be_narrated(real_pack: Pack) -> None:
    assert narration_problem(real_pack, "is rockram good", "Let me check Rockram for you.") is None
    assert narration_problem(real_pack, "who beats them", "Let me see who beats them.") is None


def test_every_pair_has_short_entity_free_pack_narrations(real_pack: Pack) -> None:
    pairs = {(n.intent, n.sub_intent) for n in real_pack.narrations}
    assert pairs == {(e.intent, e.sub_intent) for e in real_pack.phi}
    for entry in real_pack.narrations:
        for phrase in entry.phrases:
            assert narration_problem(real_pack, "", phrase) is None, phrase


def test_narration_for_rotates_the_pack_phrases_and_falls_back(real_pack: Pack) -> None:
    entry = next(n for n in real_pack.narrations if (n.intent, n.sub_intent) == ("lineup", "counter"))
    said = [narration_for(real_pack, "lineup", "counter", k) for k in range(len(entry.phrases))]
    assert said == entry.phrases
    assert narration_for(real_pack, "other", "other") == FALLBACK_NARRATION


def test_narration_of_an_unknown_pair_names_file_and_entry(tmp_path: Path) -> None:
    import json
    import shutil

    from voicecoach.domain.pack import PACKS_DIR, PackError, load_pack_from

    folder = tmp_path / "pet_arena"
    shutil.copytree(PACKS_DIR / "pet_arena", folder)
    path = folder / "narrations.json"
    data = json.loads(path.read_text())
    data.append({"intent": "creature", "sub_intent": "dance", "phrases": ["Let me see."]})
    path.write_text(json.dumps(data))
    with pytest.raises(PackError, match=r"narrations\.json: entry 'creature/dance': not a registered"):
        load_pack_from(folder)


# --- a pack with a schema.json: the toy hero shooter's own nouns and tools -----------------------------


@pytest.fixture
def shooter(tmp_path: Path) -> Pack:
    """The toy hero shooter with builtin tools (tests/tools/test_tools_generic.py) and a Φ row on them."""
    from tests.tools.test_tools_generic import BUILTINS, _files
    from tests.toy_pack import write_pack
    from voicecoach.domain.pack import load_pack_from

    return load_pack_from(write_pack(tmp_path / "shooter", _files(BUILTINS)))


def test_toy_prompt_names_its_kinds_and_lists_only_its_tools(shooter: Pack) -> None:
    prompt = w1_system_prompt(shooter)
    assert "; use hero and item names or ids; write" in prompt
    assert "- hero_counters(opponent" in prompt and "- get_roster()" in prompt
    for pet_word in ("creature", "skill", "lineup", "get_inventory", "find_counters"):
        assert pet_word not in prompt.lower(), pet_word
    grammar = w1_gbnf(shooter)
    assert '"hero_counters("' in grammar and "get_inventory" not in grammar
    assert "get_inventory" not in w1_continuation_gbnf(shooter)


def test_pet_prompt_names_creatures_and_skills(real_pack: Pack) -> None:
    assert '; use creature and skill names or ids; write "none"' in w1_system_prompt(real_pack)


def test_the_validator_knows_only_the_packs_tools(shooter: Pack) -> None:
    validate = tool_validator(shooter)
    assert validate("hero_counters", {"opponent": ["Wall", "vanta"]}) == {"opponent": ["bulwark", "vanta"]}
    # a tool of another pack (pet's) the pack does not declare is unknown, not run on its catalog
    with pytest.raises(ValueError, match="unknown tool 'get_inventory'; known tools: get_roster, get_hero"):
        validate("get_inventory", {})


def test_toy_turn_freezes_its_phi_row_and_drops_undeclared_plan_calls(shooter: Pack) -> None:
    state = LiveState(ic=IntentContext(match=MatchState(round=1, opponent_lineup=["vanta", "bulwark"])))
    turn = W1Turn(PhiTable(shooter.phi), state, 0, validate=tool_validator(shooter))
    step = turn.feed("<INTENT>hero</INTENT><SUB_INTENT>counter</SUB_INTENT>")
    assert step.dispatch is not None and step.dispatch.frozen
    calls = [(c.tool, c.args) for c in step.dispatch.calls]
    assert calls == [("hero_counters", {"opponent": ["vanta", "bulwark"]})]
    miss = W1Turn(PhiTable(shooter.phi), state, 0, validate=tool_validator(shooter))
    miss.feed("<INTENT>other</INTENT><SUB_INTENT>other</SUB_INTENT><NARRATION>Hm.</NARRATION>")
    step = miss.feed("<PLAN>get_inventory(); list_comps()</PLAN>")
    assert step.dispatch is not None and [c.tool for c in step.dispatch.calls] == ["list_comps"]
    assert step.dispatch.errors and step.dispatch.errors[0].startswith("get_inventory: unknown tool")
