"""GroundingActor (W2): QuerySlots, then the deterministic grounding kernel.

Starts when c1 arrives, in its own task. QuerySlots come from the deterministic extractor (entity
links + cue words, `--slots rules`, the embedded default) or from a separate, small-context LLM
call (JSON, schema-constrained where the backend allows; `--slots llm`). Either way only names
the player grounded are kept (`ground_slots`), the session's earlier constraints carry over, and
`ground` turns the slots into c2 — conflicts and the paragraph plan. If the slot call fails or
times out, W2 grounds on the earlier constraints alone: the plan then judges nothing it could get
wrong.
"""

from __future__ import annotations

import asyncio

from loguru import logger
from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection

from voicecoach.actors.frames import GroundingControlFrame, IntentControlFrame
from voicecoach.actors.turn_task import TurnTaskActor
from voicecoach.coach.session import CoachConfig, Session
from voicecoach.grounding.kernel import ground
from voicecoach.grounding.prompt import slot_prompt
from voicecoach.grounding.slot_rules import extract_slots
from voicecoach.grounding.slots import QuerySlots, parse_query_slots, query_slots_json_schema
from voicecoach.llm.client import LLMClient, LLMError


class GroundingActor(TurnTaskActor):
    task_name = "w2"

    def __init__(self, session: Session, llm: LLMClient, config: CoachConfig):
        super().__init__()
        self._session = session
        self._llm = llm
        self._config = config
        self._system = slot_prompt(session.pack)
        self._schema = query_slots_json_schema(session.pack)

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)  # a barge-in cancels the slot call here
        if isinstance(frame, IntentControlFrame):
            await self.start_turn(frame.turn_index, self._ground(frame))
        await self.push_frame(frame, direction)

    async def _ground(self, c1: IntentControlFrame) -> None:
        pack, earlier = self._session.pack, self._session.constraints
        errors: list[str]  # what went wrong filling the slots (the rules never fail)
        if self._config.slot_source == "rules":
            slots, errors = extract_slots(pack, c1.utterance, c1.snapshot, earlier), []
        else:
            slots, errors = await self._slot_call(c1)
        # With the utterance, only names the player grounded survive, whichever path filled the
        # slots (an invented name never reaches the Talker), and earlier constraints carry over.
        control = ground(
            slots, c1.snapshot, pack, c1.intent, c1.sub_intent, utterance=c1.utterance, earlier=earlier
        )
        if control.dropped:
            logger.info(
                f"turn {c1.turn_index}: W2 dropped names the player did not say: {list(control.dropped)}"
            )
        self._session.constraints = control.carried
        turn = self._session.turn(c1.turn_index)
        await self.push_frame(
            GroundingControlFrame(
                turn_index=c1.turn_index, t_ms=turn.ms() if turn else 0.0, control=control, slot_errors=errors
            )
        )

    async def _slot_call(self, c1: IntentControlFrame) -> tuple[QuerySlots, list[str]]:
        messages = [
            {"role": "system", "content": self._system},
            {"role": "user", "content": f"intent: {c1.intent}/{c1.sub_intent}\nplayer: {c1.utterance}"},
        ]
        errors: list[str] = []
        try:
            raw = await asyncio.wait_for(
                self._llm.complete(messages, max_tokens=120, json_schema=self._schema, role="w2"),
                timeout=self._config.slot_timeout_s,
            )
            return parse_query_slots(raw, self._session.pack)
        except (LLMError, TimeoutError) as err:
            errors = [f"slot call failed: {str(err) or 'timed out'}"]
            logger.warning(f"turn {c1.turn_index}: W2 {errors[0]}")
            return QuerySlots(), errors
