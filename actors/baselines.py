"""The baseline configurations as actors: `prompting` and `pe_agent` (paper §7.1).

Each replaces the whole W1 → tools → W2 → W3 → Talker chain with one actor that owns the
turn: it starts on a final transcription, runs in its own task (cancelled by a barge-in)
and pushes the same reply / tool / completion frames the SGC chain does, so one collector,
one TTS and one benchmark measure every configuration alike.
"""

from __future__ import annotations

from abc import abstractmethod

from loguru import logger
from pipecat.frames.frames import Frame, LLMFullResponseEndFrame, TranscriptionFrame
from pipecat.processors.frame_processor import FrameDirection

from voicecoach.actors.frames import ToolDispatchFrame, ToolResultFrame, TurnCompletedFrame
from voicecoach.actors.talker import Reply, stream_reply
from voicecoach.actors.tools import run_call
from voicecoach.actors.turn_task import TurnTaskActor
from voicecoach.coach.session import CoachConfig, Session, Turn, turn_record
from voicecoach.core.latency import Milestone
from voicecoach.llm.client import LLMClient, LLMError
from voicecoach.perception.phi import tool_validator
from voicecoach.perception.plan import parse_plan
from voicecoach.talker.baselines import pe_reply_messages, planner_gbnf, planner_messages, prompting_messages
from voicecoach.talker.conditioning import ToolOutcome
from voicecoach.tools.registry import ToolRunner


class _TurnOwner(TurnTaskActor):
    """Starts `_answer` per final transcription; a barge-in or a new turn cancels it."""

    def __init__(self, session: Session, llm: LLMClient, config: CoachConfig):
        super().__init__()
        self._session = session
        self._llm = llm
        self._config = config
        self.task_name = type(self).__name__

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)  # a barge-in cancels the turn here
        await self.push_frame(frame, direction)
        if isinstance(frame, TranscriptionFrame) and frame.text.strip():
            turn = self._session.begin_turn(frame.text.strip())
            await self.start_turn(turn.index, self._run(turn))

    async def _run(self, turn: Turn) -> None:
        tools, (reply, first) = await self._answer(turn)
        await self.push_frame(LLMFullResponseEndFrame())
        latency: dict[str, float | None] = {
            Milestone.REPLY_FIRST_TOKEN: turn.ms(first) if first is not None else None,
            Milestone.TURN_COMPLETED: turn.ms(),
        }
        record = turn_record(self._session.session_id, turn.index, turn.utterance, reply, tools, latency)
        await self.push_frame(TurnCompletedFrame(turn_index=turn.index, t_ms=turn.ms(), record=record))

    @abstractmethod
    async def _answer(self, turn: Turn) -> tuple[list[ToolOutcome], Reply]:
        """Produce the turn's reply (pushing its frames); return the tools run and the reply."""

    async def _stream_reply(self, turn: Turn, messages: list[dict[str, str]]) -> Reply:
        return await stream_reply(self, self._llm, messages, turn.index, self._config.reply_max_tokens)


class PromptingActor(_TurnOwner):
    """One LLM call with the state in the prompt; no tools, no wrappers."""

    async def _answer(self, turn: Turn) -> tuple[list[ToolOutcome], Reply]:
        messages = prompting_messages(self._session.pack, turn.snapshot, turn.utterance)
        return [], await self._stream_reply(turn, messages)


class PlanExecuteActor(_TurnOwner):
    """Planner call → tools (in plan order, one after another) → reply call."""

    def __init__(
        self,
        session: Session,
        llm: LLMClient,
        config: CoachConfig,
        runner: ToolRunner,
        planner_llm: LLMClient | None = None,
    ):
        super().__init__(session, llm, config)
        self._planner_llm = planner_llm or llm  # the turn's first call (Engines.first)
        self._runner = runner
        self._validate = tool_validator(session.pack)
        self._grammar = planner_gbnf(session.pack)

    async def _answer(self, turn: Turn) -> tuple[list[ToolOutcome], Reply]:
        pack, state = self._session.pack, turn.snapshot
        try:
            messages = planner_messages(pack, state, turn.utterance)
            plan_text = await self._planner_llm.complete(
                messages, max_tokens=80, grammar=self._grammar, role="planner"
            )
        except LLMError as err:
            logger.warning(f"turn {turn.index}: planner failed: {err}")
            plan_text = ""
        parsed = parse_plan(plan_text)
        calls, errors = [], list(parsed.errors)
        for call in parsed.calls:
            try:
                calls.append(type(call)(call.tool, self._validate(call.tool, call.args)))
            except ValueError as err:
                errors.append(f"{call.tool}: {err}")
        await self.push_frame(
            ToolDispatchFrame(
                turn_index=turn.index, t_ms=turn.ms(), calls=calls, source="plan", errors=errors
            )
        )
        # Serial executor; a side-effect tool is refused (a failed outcome): this baseline has no commit gate.
        outcomes = [await run_call(self._runner, state, call) for call in calls]
        await self.push_frame(ToolResultFrame(turn_index=turn.index, t_ms=turn.ms(), outcomes=outcomes))
        reply = await self._stream_reply(turn, pe_reply_messages(pack, state, turn.utterance, outcomes))
        return outcomes, reply

    async def cleanup(self) -> None:
        await super().cleanup()
        await self._runner.aclose()  # the HTTP session of game-served tools, if one was opened
