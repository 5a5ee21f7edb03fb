"""Each actor alone, in Pipecat's own test pipeline (`pipecat.tests.utils.run_test`).

One actor between run_test's source and sink: the frames it is sent, and what it pushes
downstream (and upstream). The LLM-using actors talk over real HTTP to the scripted
OpenAI-compatible server (`voicecoach/testing/scripted_llm.py`). The end-to-end chain is `test_turn.py`.

`SleepFrame` gives an actor's turn task the time to finish before run_test's EndFrame stops
the pipeline (and cancels what is still running); the scripted server answers at once, so the
sleeps are margins, not measurements.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import pytest
import pytest_asyncio
from pipecat.frames.frames import (
    ErrorFrame,
    Frame,
    InputTransportMessageFrame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    TranscriptionFrame,
    TTSTextFrame,
    UserStartedSpeakingFrame,
)
from pipecat.tests.utils import SleepFrame, run_test

from voicecoach.actors.baselines import PlanExecuteActor, PromptingActor
from voicecoach.actors.frames import (
    GroundingControlFrame,
    IntentControlFrame,
    InteractionControlFrame,
    NarrationDraftFrame,
    NarrationEndFrame,
    NarrationTextFrame,
    PlaybackFrame,
    ReplyTextFrame,
    StateUpdateFrame,
    ToolDispatchFrame,
    ToolResultFrame,
    TurnCompletedFrame,
    TurnFailedFrame,
    TurnFrame,
)
from voicecoach.actors.grounding import GroundingActor
from voicecoach.actors.interaction import InteractionActor
from voicecoach.actors.perception import PerceptionActor
from voicecoach.actors.recorder import PlaybackMonitor, SessionRecorder
from voicecoach.actors.state import StateUpdater
from voicecoach.actors.talker import FALLBACK_REPLY, TalkerActor
from voicecoach.actors.tools import ToolActor, run_call
from voicecoach.coach.session import CoachConfig, Session, turn_record
from voicecoach.core.state import LiveState
from voicecoach.domain.pack import Pack
from voicecoach.grounding.kernel import ground
from voicecoach.grounding.slots import QuerySlots
from voicecoach.interaction.kernel import interact, recommend_violations
from voicecoach.llm.client import LLMClient, LLMConfig
from voicecoach.perception.narration import acknowledgement_for
from voicecoach.perception.plan import ToolCall
from voicecoach.testing.scripted_llm import Script, ScriptedLLMServer
from voicecoach.tools.registry import ToolRunner

UTTERANCE = "what counters their team?"
# lineup/counter is in Φ (find_counters + suggest_lineup on the opponent lineup): a hit.
W1_HIT = Script(
    chunks=["<INTENT>lineup</INTENT>", "<SUB_INTENT>counter</SUB_INTENT>", "<NARRATION>", "Let me",
            " check.", "</NARRATION>", "<PLAN>find_counters(opponent=[briarcat])</PLAN>"],
)  # fmt: skip
REPLY = "Lead with Sparkwing against Shellbastion."
SETTLE = SleepFrame(sleep=1.5)  # margin for a turn task against the scripted server


class Scripted(ScriptedLLMServer):
    """The scripted server, and the clients the test opened on it (closed with it)."""

    clients: list[LLMClient]

    def client(self) -> LLMClient:
        client = LLMClient(config(self).llm)
        self.clients.append(client)
        return client


@pytest_asyncio.fixture
async def llm_server() -> AsyncIterator[Scripted]:
    async with Scripted() as server:
        server.clients = []
        yield server
        for client in server.clients:
            await client.close()


def config(server: ScriptedLLMServer | None = None) -> CoachConfig:
    url = server.base_url if server is not None else "http://127.0.0.1:9/v1"
    llm = LLMConfig(base_url=url, first_token_timeout_s=2.0, inter_token_timeout_s=1.0)
    return CoachConfig(llm=llm, slot_timeout_s=2.0, talker_deadline_s=2.0)


def open_session(pack: Pack, state: LiveState, name: str = "actor-test") -> Session:
    return Session.open(name, state=state, pack=pack)


def said(text: str = UTTERANCE) -> TranscriptionFrame:
    return TranscriptionFrame(text=text, user_id="player", timestamp="")


def of(frames: Sequence[Frame], kind: type) -> list:
    return [f for f in frames if isinstance(f, kind)]


def c1_frame(session: Session, turn_index: int = 0) -> IntentControlFrame:
    turn = session.turn(turn_index) or session.begin_turn(UTTERANCE)
    return IntentControlFrame(
        turn_index=turn.index, utterance=turn.utterance, intent="lineup", sub_intent="counter",
        branch="recommend", outcome="frozen", snapshot=turn.snapshot,
    )  # fmt: skip


# --- state, recorder ------------------------------------------------------------------------


async def test_state_updater_applies_a_patch_and_refuses_a_bad_one_keeping_the_state(
    pack: Pack, state: LiveState
) -> None:
    session = open_session(pack, state)
    version = session.state.version
    down, up = await run_test(
        StateUpdater(session),
        frames_to_send=[
            StateUpdateFrame(patch={"ic": {"match": {"round": 3}}}),
            StateUpdateFrame(patch={"fs": {"player_level": "high"}}),
        ],
        expected_down_frames=[StateUpdateFrame, StateUpdateFrame],
    )
    assert session.state.ic.match is not None and session.state.ic.match.round == 3
    assert session.state.version == version + 1  # the refused push changed nothing
    errors = of(up, ErrorFrame)
    assert len(errors) == 1 and "player_level" in errors[0].error


async def test_session_recorder_commits_a_completed_turn(pack: Pack, state: LiveState) -> None:
    session = open_session(pack, state)
    turn = session.begin_turn(UTTERANCE)
    control, meta = interact(
        turn.snapshot,
        pack,
        "recommend",
        turn.index,
        session.seed,
        recommend_violations(pack, turn.snapshot, set()),
    )
    record = turn_record(session.session_id, turn.index, UTTERANCE, REPLY, [], {}, c3=control, meta=meta)
    await run_test(
        SessionRecorder(session),
        frames_to_send=[TurnCompletedFrame(turn_index=turn.index, record=record, meta=meta)],
        expected_down_frames=[TurnCompletedFrame],
    )
    [saved] = session.store.load_turns(session.session_id)
    assert saved.reply == REPLY and saved.turn_index == turn.index
    assert session.state.sh.metas == [meta]  # answer.meta reached s_sh


TYPED = {"label": "rtvi-ai", "type": "send-text", "id": "t1", "data": {"content": "and now?"}}


@pytest.mark.parametrize(
    ("before", "failed"),
    [
        ([UserStartedSpeakingFrame()], "interrupted"),  # the player spoke over the reply
        ([InputTransportMessageFrame(message=TYPED)], "interrupted"),  # a typed question, run at once
        ([], "playback"),  # an interruption that was not the player's
    ],
)
async def test_a_reply_cut_by_the_players_own_input_is_interrupted_not_failed(
    pack: Pack, state: LiveState, before: list[Frame], failed: str
) -> None:
    session = open_session(pack, state)
    turn = session.begin_turn(UTTERANCE)
    control, meta = interact(
        turn.snapshot, pack, "recommend", turn.index, session.seed,
        recommend_violations(pack, turn.snapshot, set()),
    )  # fmt: skip
    record = turn_record(session.session_id, turn.index, UTTERANCE, REPLY, [], {}, c3=control, meta=meta)
    down, _ = await run_test(
        SessionRecorder(session, playback=True),
        frames_to_send=[
            TurnCompletedFrame(turn_index=turn.index, record=record, meta=meta),  # the reply plays ...
            SleepFrame(0.2),  # (system frames overtake data frames waiting in a processor's queue)
            *before,
            InterruptionFrame(),  # ... and is stopped
            PlaybackFrame(turn_index=turn.index, heard="Lead with", to_end=False),
            SleepFrame(0.5),
        ],
    )
    [event] = of(down, TurnFailedFrame)
    assert event.failed == failed and event.heard == "Lead with"
    assert event.reason.startswith(f"{failed}: "), event.reason
    # Interrupted or failed, the reply was not heard: not completed, its guidance not cooling.
    [saved] = session.store.load_turns(session.session_id)
    assert not saved.completed and saved.heard == "Lead with"
    assert session.state.sh.metas == []


async def test_the_playback_monitor_reports_a_reply_sent_to_its_end_though_interrupted_at_once() -> None:
    # The output transport sent the reply's last audio (its TurnCompletedFrame came out), then the
    # player spoke: the reply was heard to its end, whatever the monitor had still to handle.
    _, up = await run_test(
        PlaybackMonitor(),
        frames_to_send=[
            TurnFrame(turn_index=4),  # the turn's frames come out of the transport before its audio's text
            TTSTextFrame(text="Lead with Emberfox.", text_type="sentence"),
            TurnCompletedFrame(turn_index=4),
            InterruptionFrame(),
        ],
        expected_up_frames=[PlaybackFrame, PlaybackFrame],
    )
    heard, stopped = up
    assert isinstance(heard, PlaybackFrame) and isinstance(stopped, PlaybackFrame)
    assert (heard.turn_index, heard.to_end, heard.heard) == (4, True, "Lead with Emberfox.")
    assert (stopped.turn_index, stopped.to_end) == (-1, False)  # nothing else was playing


# --- W1, tools, W2, W3 ----------------------------------------------------------------------


async def test_perception_streams_narration_and_dispatches_on_a_phi_hit(
    pack: Pack, state: LiveState, llm_server: Scripted
) -> None:
    llm_server.enqueue(W1_HIT)
    session = open_session(pack, state)
    down, _ = await run_test(
        PerceptionActor(session, llm_server.client(), config(llm_server)),
        frames_to_send=[said(), SETTLE],
    )
    assert isinstance(down[0], TranscriptionFrame)
    assert "".join(f.text for f in of(down, NarrationTextFrame)) == "Let me check."
    [dispatch] = of(down, ToolDispatchFrame)
    assert dispatch.source == "phi" and {c.tool for c in dispatch.calls} == {
        "find_counters",
        "suggest_lineup",
    }
    [c1] = of(down, IntentControlFrame)
    assert (c1.intent, c1.sub_intent, c1.outcome) == ("lineup", "counter", "frozen")
    assert len(of(down, NarrationEndFrame)) == 1
    # the dispatch left before the narration closed: tools first
    assert down.index(dispatch) < down.index(of(down, NarrationEndFrame)[0])
    assert llm_server.requests[0].body["messages"][-1]["content"] == UTTERANCE


async def test_perception_hands_the_talker_a_draft_when_the_answer_comes_first(
    pack: Pack, state: LiveState, llm_server: Scripted
) -> None:
    """Nothing downstream (TTS, the client's text events, the timelines) reads W1's phrase as said."""
    llm_server.enqueue(W1_HIT)
    session = open_session(pack, state)
    answer_first = config(llm_server).model_copy(update={"talker": "template"})
    down, _ = await run_test(
        PerceptionActor(session, llm_server.client(), answer_first), frames_to_send=[said(), SETTLE]
    )
    [draft] = of(down, NarrationDraftFrame)
    assert draft.text == "Let me check." and not of(down, NarrationTextFrame | NarrationEndFrame)
    assert of(down, IntentControlFrame) and of(down, ToolDispatchFrame)


async def test_tool_actor_runs_the_dispatch_and_reports_every_outcome(pack: Pack, state: LiveState) -> None:
    session = open_session(pack, state)
    turn = session.begin_turn(UTTERANCE)
    calls = [ToolCall("get_inventory", {}), ToolCall("get_creature", {"creature": "nobody"})]
    down, _ = await run_test(
        ToolActor(session, ToolRunner(pack, timeout_s=1.0)),
        frames_to_send=[ToolDispatchFrame(turn_index=turn.index, calls=calls, source="phi"), SETTLE],
        expected_down_frames=[ToolDispatchFrame, ToolResultFrame],
    )
    [results] = of(down, ToolResultFrame)
    assert [(o.tool, o.ok) for o in results.outcomes] == [("get_inventory", True), ("get_creature", False)]
    assert results.outcomes[1].error  # the failure says why


async def test_grounding_grounds_the_extracted_slots_and_falls_back_to_empty_ones(
    pack: Pack, state: LiveState, llm_server: Scripted
) -> None:
    session = open_session(pack, state)
    llm_server.enqueue(
        Script('{"wanted_entities": ["Pyrowl"], "excluded_entities": []}'), Script(fail="http_error")
    )
    actor = GroundingActor(session, llm_server.client(), config(llm_server))
    c1 = c1_frame(session)
    down, _ = await run_test(actor, frames_to_send=[c1, SETTLE])
    [c2] = of(down, GroundingControlFrame)
    assert c2.control is not None and not c2.slot_errors
    # the player never said Pyrowl: the slot call invented it, so it is dropped, never judged
    assert c2.control.dropped == ("Pyrowl",)
    assert not any(c.entity == "pyrowl" for c in c2.control.conflicts)

    down, _ = await run_test(
        GroundingActor(session, llm_server.client(), config(llm_server)),
        frames_to_send=[c1, SETTLE],
    )
    [c2] = of(down, GroundingControlFrame)
    assert c2.slot_errors and c2.slot_errors[0].startswith("slot call failed")
    assert c2.control is not None and c2.control.slots == QuerySlots()


async def test_interaction_decides_c3_with_its_answer_meta_from_c1(pack: Pack, state: LiveState) -> None:
    session = open_session(pack, state)
    c1 = c1_frame(session)
    down, _ = await run_test(
        InteractionActor(session),
        frames_to_send=[c1],
        expected_down_frames=[IntentControlFrame, InteractionControlFrame],
    )
    [c3] = of(down, InteractionControlFrame)
    violates = recommend_violations(pack, c1.snapshot, excluded=set())
    assert (c3.control, c3.meta) == interact(
        c1.snapshot, pack, "recommend", c1.turn_index, session.seed, violates, pair="lineup/counter"
    )
    assert session.state.sh.metas == []  # written back only when the turn completes


# --- the Talker and the baselines ------------------------------------------------------------


def talker_inputs(session: Session, pack: Pack) -> list[Frame]:
    c1 = c1_frame(session)
    index, snapshot = c1.turn_index, c1.snapshot
    control, meta = interact(
        snapshot, pack, "recommend", index, session.seed, recommend_violations(pack, snapshot, set())
    )
    return [
        NarrationTextFrame(text="Let me check.", turn_index=index),
        c1,
        ToolResultFrame(turn_index=index, outcomes=[]),
        GroundingControlFrame(
            turn_index=index, control=ground(QuerySlots(), snapshot, pack, "lineup", "counter")
        ),
        InteractionControlFrame(turn_index=index, control=control, meta=meta),
        NarrationEndFrame(turn_index=index),
    ]


async def test_talker_replies_once_its_inputs_are_in_and_completes_the_turn_with_its_record(
    pack: Pack, state: LiveState, llm_server: Scripted
) -> None:
    llm_server.enqueue(Script(REPLY))
    session = open_session(pack, state)
    inputs = talker_inputs(session, pack)
    down, _ = await run_test(
        TalkerActor(session, llm_server.client(), config(llm_server)),
        frames_to_send=[*inputs, SETTLE],
    )
    assert down[: len(inputs)] == inputs  # everything passes on, narration unheld
    assert "".join(f.text for f in of(down, ReplyTextFrame)) == REPLY
    [done] = of(down, TurnCompletedFrame)
    record = done.record
    assert record is not None and record.reply == REPLY and record.narration == "Let me check."
    assert (record.intent, record.sub_intent) == ("lineup", "counter")
    assert record.meta == done.meta == inputs[4].meta
    assert {"c1", "reply_first_token", "turn_completed"} <= set(record.latency)
    # the reply prompt is conditioned on the turn: the player's words reached the Talker's call
    assert UTTERANCE in llm_server.requests[0].body["messages"][-1]["content"]


async def test_a_barge_in_cancels_the_talker_and_nothing_of_the_turn_completes(
    pack: Pack, state: LiveState, llm_server: Scripted
) -> None:
    llm_server.enqueue(Script(REPLY))
    session = open_session(pack, state)
    talker = TalkerActor(session, llm_server.client(), config(llm_server))
    inputs = talker_inputs(session, pack)
    # c1 only: the Talker waits for the rest; the barge-in comes while it waits
    # (an InterruptionFrame is a system frame: it would overtake c1 if sent right behind it)
    frames = [inputs[1], SleepFrame(sleep=0.3), InterruptionFrame(), SETTLE, SETTLE]
    down, _ = await run_test(talker, frames_to_send=frames)
    assert not of(down, ReplyTextFrame) and not of(down, TurnCompletedFrame)
    assert not llm_server.requests and not talker.running


async def test_the_talker_says_the_fallback_when_the_reply_stream_fails(
    pack: Pack, state: LiveState, llm_server: Scripted
) -> None:
    llm_server.enqueue(Script(fail="http_error"))
    session = open_session(pack, state)
    unguarded = config(llm_server).model_copy(update={"talker": "llm"})
    down, _ = await run_test(
        TalkerActor(session, llm_server.client(), unguarded),
        frames_to_send=[*talker_inputs(session, pack), SETTLE],
    )
    assert [f.text for f in of(down, ReplyTextFrame)] == [FALLBACK_REPLY]
    [done] = of(down, TurnCompletedFrame)
    assert done.record is not None and done.record.reply == FALLBACK_REPLY


async def test_the_guarded_talker_speaks_the_realization_when_nothing_of_the_reply_passes(
    pack: Pack, state: LiveState, llm_server: Scripted
) -> None:
    # A broken stream, then one that reads its notes aloud: neither may be spoken.
    llm_server.enqueue(Script(fail="http_error"), Script("You must: Explain that the player owns nothing."))
    for _ in range(2):
        session = open_session(pack, state)
        down, _ = await run_test(
            TalkerActor(session, llm_server.client(), config(llm_server)),
            frames_to_send=[*talker_inputs(session, pack), SETTLE],
        )
        [done] = of(down, TurnCompletedFrame)
        assert done.record is not None and done.record.reply_source == "realization"
        spoken = "".join(f.text for f in of(down, ReplyTextFrame))
        assert (
            spoken == done.record.reply
            and spoken
            and "You must" not in spoken
            and FALLBACK_REPLY not in spoken
        )


async def test_the_guarded_talker_speaks_what_passes(
    pack: Pack, state: LiveState, llm_server: Scripted
) -> None:
    llm_server.enqueue(
        Script(chunks=["You must: Explain that. ", "Bring Sparkwing", ", it hits water hard."])
    )
    session = open_session(pack, state)
    down, _ = await run_test(
        TalkerActor(session, llm_server.client(), config(llm_server)),
        frames_to_send=[*talker_inputs(session, pack), SETTLE],
    )
    [done] = of(down, TurnCompletedFrame)
    assert done.record is not None and done.record.reply_source == "guarded llm"
    assert done.record.reply == "Bring Sparkwing, it hits water hard."
    assert done.record.guard_drops == {"prompt_echo": 1}


# --- the answer first (template talker): the narration is spoken only when the answer is late ---


def template_config() -> CoachConfig:
    return CoachConfig(talker="template", talker_deadline_s=2.0, narration_hold_s=0.3)


def drafted(frames: list[Frame]) -> list[Frame]:
    """talker_inputs as W1 sends them when the answer comes first: the narration as a draft."""
    out: list[Frame] = []
    for f in frames:
        if isinstance(f, NarrationTextFrame):
            out.append(NarrationDraftFrame(turn_index=f.turn_index, text=f.text))
        elif not isinstance(f, NarrationEndFrame):
            out.append(f)
    return out


def dispatched(session: Session, *, tools: bool) -> ToolDispatchFrame:
    calls = [ToolCall("find_counters", {"opponent": ["briarcat"]})] if tools else []
    return ToolDispatchFrame(turn_index=0, calls=calls, source="phi" if tools else "none")


def spoken_before_the_reply(down: Sequence[Frame]) -> list[str]:
    first_reply = next(i for i, f in enumerate(down) if isinstance(f, ReplyTextFrame))
    return [f.text for f in down[:first_reply] if isinstance(f, NarrationTextFrame)]


async def test_an_answer_ready_at_once_is_the_first_thing_said(pack: Pack, state: LiveState) -> None:
    # Local tools answer in milliseconds: no acknowledgement before an answer that is ready.
    session = open_session(pack, state)
    frames = [dispatched(session, tools=True), *drafted(talker_inputs(session, pack)), SETTLE]
    down, _ = await run_test(
        TalkerActor(session, LLMClient(config().llm), template_config()), frames_to_send=frames
    )
    assert spoken_before_the_reply(down) == []
    [done] = of(down, TurnCompletedFrame)
    assert (
        done.record is not None and done.record.narration == "" and done.record.reply_source == "realization"
    )


async def test_a_slow_tool_gets_the_acknowledgement_and_an_answer_in_the_hold_no_narration(
    pack: Pack, state: LiveState
) -> None:
    session = open_session(pack, state)
    draft, c1, results, c2, c3 = drafted(talker_inputs(session, pack))
    # the tools answer 0.3 s in: past `ack_after_s` (0.15 s), within the 0.3 s hold after it
    frames = [dispatched(session, tools=True), c1, draft, c2, c3, SleepFrame(sleep=0.3), results, SETTLE]
    down, _ = await run_test(
        TalkerActor(session, LLMClient(config().llm), template_config()), frames_to_send=frames
    )
    [ack] = spoken_before_the_reply(down)
    assert ack in pack.templates.acknowledgements  # not "Let me check."
    [done] = of(down, TurnCompletedFrame)
    assert done.record is not None and done.record.narration == ack
    assert len(of(down, NarrationEndFrame)) == 1


async def test_a_late_answer_gets_the_narration_after_the_acknowledgement(
    pack: Pack, state: LiveState
) -> None:
    session = open_session(pack, state)
    draft, c1, results, c2, c3 = drafted(talker_inputs(session, pack))
    # the tools answer 0.6 s after the narration: past `ack_after_s` and the 0.3 s hold after it
    frames = [
        dispatched(session, tools=True),
        c1,
        draft,
        c2,
        c3,
        SleepFrame(sleep=0.8),
        results,
        SETTLE,
    ]
    down, _ = await run_test(
        TalkerActor(session, LLMClient(config().llm), template_config()), frames_to_send=frames
    )
    ack, phrase = spoken_before_the_reply(down)
    assert ack in pack.templates.acknowledgements and phrase == "Let me check."
    [done] = of(down, TurnCompletedFrame)
    assert done.record is not None and done.record.narration == f"{ack} Let me check."


async def test_a_turn_that_continues_the_last_utterance_is_not_acknowledged_again(
    pack: Pack, state: LiveState
) -> None:
    session = open_session(pack, state)
    frames = [dispatched(session, tools=True), *drafted(talker_inputs(session, pack)), SETTLE]
    turn = session.turn(0)
    assert turn is not None
    turn.continues = True  # what Session.begin_turn sets for speech resumed right after a transcript
    down, _ = await run_test(
        TalkerActor(session, LLMClient(config().llm), template_config()), frames_to_send=frames
    )
    assert not of(down, NarrationTextFrame) and of(down, ReplyTextFrame)


async def test_a_turn_without_tools_speaks_its_answer_alone(pack: Pack, state: LiveState) -> None:
    session = open_session(pack, state)
    frames = [dispatched(session, tools=False), *drafted(talker_inputs(session, pack)), SETTLE]
    down, _ = await run_test(
        TalkerActor(session, LLMClient(config().llm), template_config()), frames_to_send=frames
    )
    assert not of(down, NarrationTextFrame) and of(down, ReplyTextFrame)
    [done] = of(down, TurnCompletedFrame)
    assert done.record is not None and done.record.narration == ""


async def test_answer_first_off_speaks_the_narration_first_unheld(pack: Pack, state: LiveState) -> None:
    session = open_session(pack, state)
    frames = [dispatched(session, tools=True), *talker_inputs(session, pack), SETTLE]
    narrating_first = template_config().model_copy(update={"answer_first": "off"})
    down, _ = await run_test(
        TalkerActor(session, LLMClient(config().llm), narrating_first), frames_to_send=frames
    )
    assert spoken_before_the_reply(down) == ["Let me check."]


def test_the_acknowledgement_never_repeats_the_word_the_narration_opens_with(pack: Pack) -> None:
    for index in range(6):
        ack = acknowledgement_for(pack, index, "Sure, building a team.")
        assert ack in pack.templates.acknowledgements and ack != "Sure."


async def test_prompting_answers_a_transcript_in_one_call(
    pack: Pack, state: LiveState, llm_server: Scripted
) -> None:
    llm_server.enqueue(Script(REPLY))
    session = open_session(pack, state)
    down, _ = await run_test(
        PromptingActor(session, llm_server.client(), config(llm_server)),
        frames_to_send=[said(), SETTLE],
    )
    assert "".join(f.text for f in of(down, ReplyTextFrame)) == REPLY
    assert len(of(down, LLMFullResponseEndFrame)) == 1
    [done] = of(down, TurnCompletedFrame)
    assert done.record is not None and (done.record.utterance, done.record.reply) == (UTTERANCE, REPLY)
    assert done.record.c2 == {} and done.record.c3 == {}  # no SGC decisions to record
    assert len(llm_server.requests) == 1


async def test_plan_execute_plans_runs_the_tools_in_order_then_replies(
    pack: Pack, state: LiveState, llm_server: Scripted
) -> None:
    llm_server.enqueue(Script("get_inventory()"), Script(REPLY))
    session = open_session(pack, state)
    actor = PlanExecuteActor(
        session, llm_server.client(), config(llm_server), ToolRunner(pack, timeout_s=1.0)
    )
    down, _ = await run_test(actor, frames_to_send=[said(), SETTLE])
    [dispatch] = of(down, ToolDispatchFrame)
    assert dispatch.source == "plan" and [c.tool for c in dispatch.calls] == ["get_inventory"]
    [results] = of(down, ToolResultFrame)
    assert [o.ok for o in results.outcomes] == [True]
    [done] = of(down, TurnCompletedFrame)
    assert done.record is not None and done.record.reply == REPLY
    assert [t["tool"] for t in done.record.tools] == ["get_inventory"]


async def test_run_call_turns_a_refused_call_into_a_failed_outcome(pack: Pack, state: LiveState) -> None:
    outcome = await run_call(ToolRunner(pack), state, ToolCall("no_such_tool", {}))
    assert not outcome.ok and outcome.error
