"""TalkerActor: waits for the turn's decisions (up to a deadline), then words the reply.

Narration frames pass straight through towards TTS; the reply follows them. The actor
collects c1, c2, c3 and the tool results of the current turn; once all are in, or the
deadline (counted from the end of the player's input) passes, it words the reply in its own
task, one of three ways (`CoachConfig.talker_mode`):

- `template`: the grounded realization of the paragraph plan (`voicecoach.talker.realizer`), correct
  by construction; the embedded default, since a 135M model's replies rarely survive the guard;
- `guarded`: the conditioned prompt streamed from the LLM, each sentence passing the runtime
  guard (`voicecoach.talker.guard`, the checker kernel CoachBench scores with) before TTS; when none
  has passed by the end of the stream or its deadline, the realization is spoken instead;
- `llm`: the LLM's reply as it streams, unguarded (the ablation row).

With the template talker the answer comes first (`CoachConfig.answers_first`): W1's narration
comes as a draft (NarrationDraftFrame) and is not said at once, because the realization exists
~150 ms after the transcript while a narration phrase is 0.7-1.8 s of audio the answer would
wait behind. A turn still waiting for a tool `ack_after_s` after its inputs (a game server's
HTTP / MCP tool; local tools answer in milliseconds) opens with the pack's acknowledgement
("Sure."), and the narration is spoken only if the answer is still not ready `narration_hold_s`
later; every other turn speaks its answer first and alone.

A completed reply ends the turn with a TurnCompletedFrame; a barge-in cancels it, so
nothing of an interrupted turn reaches answer.meta.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from loguru import logger
from pipecat.frames.frames import Frame, LLMFullResponseEndFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from voicecoach.actors.frames import (
    NarrationEndFrame,
    NarrationTextFrame,
    ReplyFailedFrame,
    ReplyTextFrame,
    SecondQuestionFrame,
    TurnCompletedFrame,
    TurnFrame,
    TurnFrames,
)
from voicecoach.actors.turn_task import TurnTaskActor
from voicecoach.coach.session import CoachConfig, Session, turn_record
from voicecoach.core.latency import Milestone
from voicecoach.core.state import LiveState
from voicecoach.llm.client import LLMClient, LLMError
from voicecoach.perception.narration import acknowledgement_for
from voicecoach.talker.conditioning import render_reply_prompt
from voicecoach.talker.guard import SentenceGuard
from voicecoach.talker.realizer import realize
from voicecoach.talker.rules import MAX_SENTENCES, MAX_WORDS, CheckContext
from voicecoach.talker.speakable import split_sentences, unsaid, without_asking_back, words

# What the Talker waits for, and how the prompt names one that is missing at the deadline.
INPUTS = {
    Milestone.C1: "intent (c1)",
    Milestone.TOOL_RESULTS: "tool results",
    Milestone.C2: "grounding (c2)",
    Milestone.C3: "interaction (c3)",
}
ALL_INPUTS = frozenset(INPUTS)

# The milestones of the chain's frames that the turn record keeps (ms since end of input).
_RECORDED = (Milestone.C1, Milestone.TOOL_DISPATCH, Milestone.TOOL_RESULTS, Milestone.C2, Milestone.C3,
             Milestone.NARRATION_END)  # fmt: skip

FALLBACK_REPLY = "Sorry, I lost the thread there. Could you ask me that again?"


Reply = tuple[str, float | None]  # the reply's text, and when its first token came (or None)


async def stream_reply(
    actor: FrameProcessor,
    llm: LLMClient,
    messages: list[dict[str, str]],
    turn_index: int,
    max_tokens: int,
    guard: SentenceGuard | None = None,
) -> Reply:
    """Stream a reply call as ReplyTextFrames pushed by `actor`: the Talker's, and the baselines'.

    Unguarded, deltas go out as they come; a stream that breaks keeps what it said, and one that
    said nothing says FALLBACK_REPLY, so the player is never left in silence. With a `guard`,
    only the sentences it passes go out, and the caller decides what to say when none did.
    Returns what was pushed and when the LLM's first token came (time.monotonic; None if none).
    """
    reply: list[str] = []
    first_token: float | None = None

    async def say(text: str) -> None:
        reply.append(text)
        await actor.push_frame(ReplyTextFrame(text=text, turn_index=turn_index))

    try:
        async for delta in llm.stream(messages, max_tokens=max_tokens, role="talker"):
            if first_token is None:
                first_token = time.monotonic()
            for text in guard.feed(delta) if guard is not None else [delta]:
                await say(f" {text}" if guard is not None and reply else text)
            if guard is not None and guard.stopped:
                break  # a loop or the word budget: nothing more of this reply is worth hearing
    except LLMError as err:
        logger.warning(f"turn {turn_index}: reply stream failed: {err}")
        if guard is None:  # the player gets a cut or fallback reply: the turn is not delivered
            await actor.push_frame(ReplyFailedFrame(turn_index=turn_index, reason=str(err)))
            if not reply:
                await say(FALLBACK_REPLY)
    for text in guard.finish() if guard is not None else []:
        await say(f" {text}" if reply else text)
    return "".join(reply), first_token


@dataclass
class _TurnInputs(TurnFrames):
    """Everything of one turn the reply is conditioned on, as it arrives."""

    changed: asyncio.Event = field(default_factory=asyncio.Event)
    second_expected: bool = False  # the player asked two things: the second is answered too

    def missing(self, expects: frozenset[Milestone]) -> list[str]:
        missing = [name for m, name in INPUTS.items() if m in expects and m not in self.frames]
        return missing + (["second question"] if self.second_expected and self.second is None else [])


class TalkerActor(TurnTaskActor):
    task_name = "talker"

    def __init__(
        self,
        session: Session,
        llm: LLMClient,
        config: CoachConfig,
        expects: frozenset[Milestone] = ALL_INPUTS,
    ):
        super().__init__()
        self._expects = expects  # the inputs this configuration has (sgc_w1 has no W2 / W3)
        self._session = session
        self._llm = llm
        self._config = config
        self._turn: _TurnInputs | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)  # a barge-in cancels the reply here
        await self.push_frame(frame, direction)  # narration first, unheld
        index = getattr(frame, "turn_index", None)
        if not isinstance(frame, TurnFrame | NarrationTextFrame) or index is None:
            return
        if self._turn is None or index > self._turn.turn_index:
            clock = self._session.turn(index)
            self._turn = _TurnInputs(turn_index=index, second_expected=bool(clock and clock.second))
            await self.start_turn(index, self._reply(self._turn))
        if index == self._turn.turn_index:
            self._turn.add(frame)
            self._turn.changed.set()

    def _context(self, utterance: str, snapshot: LiveState) -> CheckContext:
        """What the guard judges the reply against: this turn's state and the session so far."""
        pack, earlier = self._session.pack, self._session.constraints
        unit = pack.catalog.schema.kind("unit") or ""  # W2's excluded entities: units (pet: creatures)
        names = earlier.excluded_entities if earlier else []
        excluded = [c.id for n in names if (c := pack.catalog.by_name(unit, n))]
        return CheckContext.live(pack, snapshot, utterance, excluded, self._session.last_reply)

    async def _wait(self, turn: _TurnInputs, ready, deadline: float) -> bool:
        while not ready():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            turn.changed.clear()
            try:
                await asyncio.wait_for(turn.changed.wait(), timeout=remaining)
            except TimeoutError:
                return ready()
        return True

    async def _answer_first(self, turn: _TurnInputs, deadline: float) -> str:
        """Say what goes before the answer; returns it (what the player heard before the reply)."""
        phrase = " ".join((turn.draft or "").split())
        clock = self._session.turn(turn.turn_index)
        # A turn that continues the previous utterance was acknowledged a moment ago: not again.
        waits_for_tools = turn.dispatch is not None and bool(turn.dispatch.calls)
        fresh = clock is None or not clock.continues
        # Local tools answer within milliseconds: only a turn still waiting `ack_after_s` later (a
        # game server's HTTP / MCP tool) is acknowledged; otherwise the answer is the first word.
        ready = lambda: not turn.missing(self._expects)  # noqa: E731
        early = min(deadline, time.monotonic() + self._config.ack_after_s)
        # A turn without tools still waits (briefly) for W2's and W3's controls: they come a few
        # milliseconds after W1's, and the answer reads them.
        if await self._wait(turn, ready, early) or not waits_for_tools:
            return ""
        ack = acknowledgement_for(self._session.pack, turn.turn_index, phrase) if fresh else ""
        await self._narrate(turn, ack)
        hold = min(deadline, time.monotonic() + self._config.narration_hold_s)
        if await self._wait(turn, ready, hold):
            return ack
        logger.info(f"turn {turn.turn_index}: answer not ready after the hold: narration {phrase!r}")
        await self._narrate(turn, phrase)
        await self._wait(turn, lambda: not turn.missing(self._expects), deadline)
        return f"{ack} {phrase}".strip()

    async def _narrate(self, turn: _TurnInputs, text: str) -> None:
        if text:
            clock = self._session.turn(turn.turn_index)
            await self.push_frame(NarrationTextFrame(text=text, turn_index=turn.turn_index))
            await self.push_frame(
                NarrationEndFrame(turn_index=turn.turn_index, t_ms=clock.ms() if clock else 0.0)
            )

    async def _reply(self, turn: _TurnInputs) -> None:
        clock = self._session.turn(turn.turn_index)
        started = clock.started if clock else time.monotonic()
        deadline = started + self._config.talker_deadline_s
        await self._wait(turn, lambda: turn.narration_end is not None or turn.draft is not None, deadline)
        if self._config.answers_first:
            narration = await self._answer_first(turn, deadline)
        else:
            await self._wait(turn, lambda: not turn.missing(self._expects), deadline)
            narration = turn.narration
        missing = turn.missing(self._expects)
        if missing:
            logger.warning(f"turn {turn.turn_index}: reply deadline passed without {', '.join(missing)}")

        utterance = turn.c1.utterance if turn.c1 else (clock.utterance if clock else "")
        c2 = turn.c2.control if turn.c2 else None
        c3 = turn.c3.control if turn.c3 else None
        outcomes = turn.results.outcomes if turn.results else []
        messages, cond = render_reply_prompt(
            self._session.pack, utterance, narration, c2, c3, outcomes, missing
        )

        snapshot = turn.c1.snapshot if turn.c1 else self._session.state
        intent, sub_intent = (turn.c1.intent, turn.c1.sub_intent) if turn.c1 else ("", "")

        def realization() -> str:
            if clock is not None and clock.ask:
                return clock.ask
            # The turn's length budget (the checker's) is shared with the narration already said,
            # and with the second question's answer when there is one.
            said = len(split_sentences(narration)) if narration.strip() else 0
            pack, second = self._session.pack, turn.second
            budget = MAX_SENTENCES - said - (second is not None)
            # Two questions get two answers and nothing between them: W2's judgements of the first
            # ("Galehawk can use Gale Dive now") would say the second's answer early, W3's advice
            # and the match line would split them.
            lean = second is not None
            try:
                first = realize(
                    pack, snapshot, None if lean else c2, None if lean else c3, outcomes, utterance,
                    turn.turn_index, intent, sub_intent,
                    max_words=MAX_WORDS - len(words(narration)), max_sentences=budget,
                    previous_reply=self._session.last_reply, recent_replies=self._session.recent_replies,
                    scene=not lean, asked_before=self._session.last_question,
                )  # fmt: skip
            except Exception:  # a defect in a recipe must not leave the player in silence
                logger.exception(f"turn {turn.turn_index}: the realization failed; saying the fallback")
                return FALLBACK_REPLY
            if clock is not None and clock.lead:
                first = f"{clock.lead} {first}"
            if second is None or not second.intent:
                return first
            return f"{first} {answer_second(second, first)}".strip()

        def answer_second(second: SecondQuestionFrame, first: str) -> str:
            """The second question's answer: its own pair, tools and snapshot; no W2 / W3 lines
            (the first answer carried the turn's judgements and advice)."""
            question, snapshot = second.utterance, second.snapshot
            if second.refers_back:
                question, snapshot = self._session.refer_back(turn.turn_index, question, utterance, first)
            try:
                answer = realize(
                    self._session.pack, snapshot, None, None, second.outcomes or [], question,
                    turn.turn_index, second.intent, second.sub_intent, max_sentences=1,
                    previous_reply=first, recent_replies=self._session.recent_replies,
                )  # fmt: skip
            except Exception:  # the first answer stands on its own
                logger.exception(f"turn {turn.turn_index}: the second answer's realization failed")
                return ""
            return unsaid(without_asking_back(self._session.pack, answer), first)

        # A turn that asks back says only its question, whatever the talker.
        mode, guard = ("template" if clock and clock.ask else self._config.talker_mode), None
        first_token: float | None  # None: the LLM said nothing (or passed the deadline first)
        if mode == "template":
            reply, first_token, source = realization(), time.monotonic(), "realization"
            await self.push_frame(ReplyTextFrame(text=reply, turn_index=turn.turn_index))
        else:
            if mode == "guarded":
                guard = SentenceGuard.after_narration(
                    self._session.pack, self._context(utterance, snapshot), narration
                )
            try:
                reply, first_token = await asyncio.wait_for(
                    stream_reply(
                        self, self._llm, messages, turn.turn_index, self._config.reply_max_tokens, guard
                    ),
                    timeout=self._config.reply_deadline_s if guard is not None else None,
                )
            except TimeoutError:
                logger.warning(f"turn {turn.turn_index}: guarded reply passed its deadline")
                reply, first_token = " ".join(guard.passed) if guard else "", None
            source = "llm" if guard is None else "guarded llm"
            if guard is not None and not guard.passed:  # nothing of the LLM's reply may be spoken
                reply, first_token, source = realization(), time.monotonic(), "realization"
                await self.push_frame(ReplyTextFrame(text=reply, turn_index=turn.turn_index))
        if source != "realization" and turn.second is not None and turn.second.intent:
            # The LLM answered the first question; the second's answer is grounded, as it comes.
            extra = answer_second(turn.second, reply)
            await self.push_frame(ReplyTextFrame(text=f" {extra}", turn_index=turn.turn_index))
            reply = f"{reply} {extra}"
        await self.push_frame(LLMFullResponseEndFrame())

        latency: dict[str, float | None] = {m: turn.t_ms(m) for m in _RECORDED}
        if first_token is not None:
            latency[Milestone.REPLY_FIRST_TOKEN] = clock.ms(first_token) if clock else 0.0
        latency[Milestone.TURN_COMPLETED] = clock.ms() if clock else None
        meta = turn.c3.meta if turn.c3 else None
        asked = clock.said if clock else utterance  # both questions, when there were two
        record = turn_record(
            self._session.session_id, turn.turn_index, asked, reply, outcomes, latency,
            intent=turn.c1.intent if turn.c1 else "", sub_intent=turn.c1.sub_intent if turn.c1 else None,
            narration=narration, c2=c2, conditioning=cond, c3=c3, meta=meta,
            labelled_by=turn.c1.labelled_by if turn.c1 else "", reply_source=source,
            guard_drops=guard.drops_by_rule() if guard is not None else None,
            repaired=clock.repaired if clock else (),
        )  # fmt: skip
        await self.push_frame(
            TurnCompletedFrame(
                turn_index=turn.turn_index, t_ms=clock.ms() if clock else 0.0, record=record, meta=meta
            )
        )
