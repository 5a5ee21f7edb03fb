"""PerceptionActor (W1): streams the W1 call, narration to TTS, tools dispatched early.

On a final transcription it starts the turn's W1 stream in its own task (never inside
process_frame, so frames keep flowing) and turns parser events into frames the moment they
happen: the tool dispatch when SUB_INTENT closes on a Φ hit (or when PLAN closes on a miss), c1
for W2 and W3, the narration once its one sentence closes. A barge-in cancels the stream.

With the intent prior on, a confident prior's labels (or its session rule's: "anything else?"
keeps the previous turn's pair) open the stream: the parser reads them first
(SUB_INTENT closes and Φ dispatches before the LLM's first token) and the LLM continues from
<NARRATION>. The narration is held until it closes and spoken only if it passes
`narration_problem` (one short sentence, no name the player did not say, no loop); otherwise the
pack's phrase for the pair is spoken. With `narration_source == "pack"` (the embedded default) a
prefilled turn makes no W1 call: the pack's phrase completes the tag stream at once.
"""

from __future__ import annotations

import time

from loguru import logger
from pipecat.frames.frames import Frame, TranscriptionFrame, UserStartedSpeakingFrame
from pipecat.processors.frame_processor import FrameDirection

from voicecoach.actors.frames import (
    IntentControlFrame,
    NarrationDraftFrame,
    NarrationEndFrame,
    NarrationTextFrame,
    SecondQuestionFrame,
    ToolDispatchFrame,
    TypedTranscriptionFrame,
)
from voicecoach.actors.talker import FALLBACK_REPLY
from voicecoach.actors.turn_task import TurnTaskActor
from voicecoach.coach.session import CoachConfig, Session, Turn
from voicecoach.core.state import LiveState
from voicecoach.domain.pack import Pack
from voicecoach.domain.view import StateView
from voicecoach.llm.client import LLMClient, LLMError
from voicecoach.perception.dialogue import labelled_as_named
from voicecoach.perception.kernel import W1Counters, W1Step, W1Turn
from voicecoach.perception.narration import narration_for, narration_problem
from voicecoach.perception.phi import tool_validator
from voicecoach.perception.prior import IntentPrior, PriorError
from voicecoach.perception.prompt import OTHER, W1Grammars, w1_call, w1_prefill, w1_prefix
from voicecoach.perception.tags import FormatError, NarrationClosed, NarrationDelta, SubIntentClosed

CLARIFY = "clarify"  # c1's sub_intent on a turn that asks the player which one they mean


class PerceptionActor(TurnTaskActor):
    task_name = "w1"

    def __init__(self, session: Session, llm: LLMClient, config: CoachConfig):
        super().__init__()
        self._session = session
        self._llm = llm
        self._config = config
        self._prefix = w1_prefix(session.pack)  # static: built once, KV-cached by the server
        self._grammars = W1Grammars.of(session.pack)
        self._validate = tool_validator(session.pack)
        self._prior = IntentPrior.shared(session.pack, config.prior_threshold) if config.uses_prior else None
        self._speech_started: float | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)  # a barge-in cancels the W1 stream here
        await self.push_frame(frame, direction)
        if isinstance(frame, UserStartedSpeakingFrame):
            self._speech_started = time.monotonic()  # a turn this close to the last one continues it
        elif isinstance(frame, TranscriptionFrame) and frame.text.strip():
            typed = isinstance(frame, TypedTranscriptionFrame)  # sent whole: it continues nothing
            turn = self._session.begin_turn(
                frame.text.strip(), speech_started=self._speech_started, typed=typed
            )
            self._speech_started = None
            await self.start_turn(turn.index, self._run_turn(turn))

    async def _run_turn(self, turn: Turn) -> None:
        try:
            await self._read_and_label(turn)
        except Exception:  # a defect in W1 must not leave the player in silence: they are asked again
            logger.exception(f"turn {turn.index}: W1 failed; asking the player to say it again")
            turn.ask, turn.second = FALLBACK_REPLY, None
            await self.push_frame(ToolDispatchFrame(turn_index=turn.index, t_ms=turn.ms(), source="none"))
            await self._push_c1(turn, _TurnProgress(), OTHER, CLARIFY, "miss", "W1 failed")

    async def _read_and_label(self, turn: Turn) -> None:
        if turn.ask is not None:
            # Asking back is the turn: no tools, and c1 says so; the Talker speaks `turn.ask`.
            await self.push_frame(ToolDispatchFrame(turn_index=turn.index, t_ms=turn.ms(), source="none"))
            await self._push_c1(turn, _TurnProgress(), OTHER, CLARIFY, "miss", "asked which one")
            return
        await self._first_question(turn)
        if turn.second is not None and turn.second_snapshot is not None:
            await self._second_question(turn, turn.second, turn.second_snapshot)

    async def _second_question(self, turn: Turn, text: str, snapshot: LiveState) -> None:
        """Label the second question, let Φ choose its tools on its own snapshot, and send both
        on: the tool actor runs them and the Talker answers it after the first."""
        # Labelled by the prior whichever labels the first: one W1 stream answers one question,
        # and the prior's labels cost no LLM call.
        try:
            prior = self._prior or IntentPrior.shared(self._session.pack, 0.0)
        except PriorError as err:  # a pack without a trained prior: the first question only
            logger.warning(f"turn {turn.index}: second question not answered: {err}")
            logger.debug(f"turn {turn.index}: second question {text!r}")
            prior = None
        if prior is None:
            intent, sub_intent = "", ""  # unlabelled: the Talker answers the first question alone
        else:
            refers = turn.second_refers
            asked = labelled_as_named(self._session.pack, text, turn.utterance) if refers else text
            theirs, benched, fielded = _sides(self._session.pack, snapshot)
            intent, sub_intent = prior.prefill(asked, theirs=theirs, benched=benched, fielded=fielded) or (
                OTHER,
                OTHER,
            )
            if (intent, sub_intent) == (OTHER, OTHER):
                # "..., and how close am I": a half the coach places nowhere, said in one breath
                # with a question it can answer, follows that one; "that's outside what I can help
                # with" after the answer would be wrong. The first is answered alone.
                intent, sub_intent = "", ""
        w1 = W1Turn(self._session.phi, lambda: snapshot, turn.index, W1Counters(),
                    max_age=self._config.max_age, validate=self._validate)  # fmt: skip
        steps = [w1.feed(f"{w1_prefill(intent, sub_intent)}.</NARRATION><PLAN>none</PLAN>"), w1.finish()]
        dispatch = next((s.dispatch for s in steps if s.dispatch is not None), None)
        calls = dispatch.calls if dispatch is not None else []
        logger.debug(f"turn {turn.index}: second question {text!r} as {intent}/{sub_intent}")
        await self.push_frame(
            SecondQuestionFrame(
                turn_index=turn.index,
                t_ms=turn.ms(),
                utterance=text,
                intent=intent,
                sub_intent=sub_intent,
                snapshot=snapshot,
                calls=calls,
                refers_back=turn.second_refers,
            )  # fmt: skip
        )

    async def _first_question(self, turn: Turn) -> None:
        # A callable: Φ reads the decision fields when SUB_INTENT closes, so a state push that
        # lands mid-stream counts (paper A.5: the lookup needs the *current* snapshot).
        w1 = W1Turn(self._session.phi, lambda: turn.snapshot, turn.index, self._session.counters,
                    max_age=self._config.max_age, validate=self._validate)  # fmt: skip
        progress = _TurnProgress()
        theirs, benched, fielded = _sides(self._session.pack, turn.snapshot)
        pair = (
            self._prior.prefill(
                turn.utterance,
                previous=self._session.last_pair,
                theirs=theirs,
                benched=benched,
                fielded=fielded,
            )
            if self._prior is not None
            else None
        )
        call = w1_call(self._prefix, self._grammars, turn.utterance, pair)
        progress.labelled_by = "prior" if call.prefill else "llm"
        if pair is not None and self._config.narration_source == "pack":
            # The whole tag stream is known: the prior's labels, the pack's phrase, no PLAN needed
            # (Φ dispatched). The same parser reads it; no LLM call competes for the cores.
            phrase = narration_for(self._session.pack, *pair, turn.index)
            await self._emit(
                turn, w1, w1.feed(f"{call.prefill}{phrase}</NARRATION><PLAN>none</PLAN>"), progress
            )
            await self._emit(turn, w1, w1.finish(), progress)
            return
        await self._emit(turn, w1, w1.feed(call.prefill), progress)
        echo = call.echo()
        error = ""
        try:
            async for delta in self._llm.stream(
                call.messages, max_tokens=self._config.w1_max_tokens, grammar=call.grammar, role="w1"
            ):
                await self._emit(turn, w1, w1.feed(echo.feed(delta)), progress)
        except LLMError as err:
            error = str(err)
            logger.warning(f"turn {turn.index}: W1 stream failed: {error}")
        await self._emit(turn, w1, w1.feed(echo.finish()), progress)
        await self._emit(turn, w1, w1.finish(), progress)

        if not progress.c1_sent:  # the stream never closed SUB_INTENT: c1 from what we have
            outcome = "llm_error" if error else (w1.decision.outcome or "format_error")
            await self._push_c1(
                turn, progress, w1.intent or OTHER, OTHER, outcome, error or w1.decision.reason
            )
        if not progress.narration_closed:  # no NARRATION closed: the pack's phrase, never silence
            await self._narrate(turn, w1, progress)

    async def _emit(self, turn: Turn, w1: W1Turn, step: W1Step, progress: _TurnProgress) -> None:
        # Tools first: every millisecond they start earlier is one the reply gains.
        if step.dispatch is not None:
            d = step.dispatch
            await self.push_frame(
                ToolDispatchFrame(
                    turn_index=turn.index, t_ms=turn.ms(), calls=d.calls, source=d.source, errors=d.errors
                )  # fmt: skip
            )
        # c1 goes out after the step's narration: W2 and W3 start on c1 in the actors the narration
        # passes through, and the first words should not wait behind their set-up.
        closed = next((ev for ev in step.events if isinstance(ev, SubIntentClosed)), None)
        if closed is not None and not progress.c1_sent:
            progress.sub_intent = closed.label  # the pack's phrase for a failed narration needs it
        for ev in step.events:
            if isinstance(ev, NarrationDelta):
                progress.narration += ev.text
                if not progress.narration_closed and progress.narration.rstrip().endswith((".", "!", "?")):
                    # One sentence (W1's grammar ends it there): speak it now, not at </NARRATION>.
                    await self._narrate(turn, w1, progress)
            elif isinstance(ev, NarrationClosed) and not progress.narration_closed:
                await self._narrate(turn, w1, progress)
            elif isinstance(ev, FormatError):
                logger.info(f"turn {turn.index}: W1 format error: {ev.reason}")
        if closed is not None and not progress.c1_sent:
            decision = w1.decision
            await self._push_c1(
                turn, progress, w1.intent or OTHER, closed.label, decision.outcome or "miss", decision.reason
            )

    async def _narrate(self, turn: Turn, w1: W1Turn, progress: _TurnProgress) -> None:
        """Speak W1's narration if it passes, else the pack's phrase for the turn's pair."""
        text = " ".join(progress.narration.split())
        problem = narration_problem(self._session.pack, turn.utterance, text)
        if problem is not None:
            if text:
                logger.info(f"turn {turn.index}: W1 narration {text!r} not spoken: {problem}")
            pack, intent = self._session.pack, w1.intent or OTHER
            text = narration_for(pack, intent, progress.sub_intent or OTHER, turn.index)
        progress.narration_closed = True
        if self._config.answers_first:  # the Talker says it only if the answer is late
            await self.push_frame(NarrationDraftFrame(turn_index=turn.index, t_ms=turn.ms(), text=text))
            return
        await self.push_frame(NarrationTextFrame(text=text, turn_index=turn.index))
        await self.push_frame(NarrationEndFrame(turn_index=turn.index, t_ms=turn.ms()))

    async def _push_c1(
        self, turn: Turn, progress: _TurnProgress, intent: str, sub_intent: str, outcome: str, reason: str
    ) -> None:
        entry = self._session.phi.lookup(intent, sub_intent)
        c1 = IntentControlFrame(
            turn_index=turn.index,
            t_ms=turn.ms(),
            utterance=turn.utterance,
            intent=intent,
            sub_intent=sub_intent,
            branch=entry.branch if entry is not None else "knowledge-qa",
            outcome=outcome,
            reason=reason,
            snapshot=turn.snapshot,
            labelled_by=progress.labelled_by,
            transcript=turn.transcript,
            repaired=turn.repaired,
        )
        progress.c1_sent = True
        await self.push_frame(c1)


class _TurnProgress:
    """What of the turn has reached the pipeline so far."""

    def __init__(self) -> None:
        self.c1_sent = False
        self.labelled_by = "llm"  # or "prior": whose labels opened the tag stream
        self.sub_intent = ""
        self.narration = ""  # held until NARRATION closes, then checked
        self.narration_closed = False


def _sides(pack: Pack, snapshot: LiveState) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The units only the opponent fields, the player's own not fielded now, and the player's
    fielded (the prior's state rules read them)."""
    view = StateView(pack, snapshot)
    theirs = frozenset(u for u in view.opponent_side() if not view.owns(u))
    benched = frozenset(o.id for o in view.owned() if o.id not in view.player_side())
    return theirs, benched, frozenset(view.player_side())
