"""The coach's turn pipeline: W1 → tools → W2 → W3 → Talker → recorder, shared by every mode.

Text mode puts a transcript source before it and a printer after it; the speech modes put
VAD + STT before it and TTS + an audio transport after it. The engines it needs (an LLM
endpoint, the tool runner) are built here from `CoachConfig`, so that every assembly runs
the same actors on the same configuration.
"""

from __future__ import annotations

from dataclasses import dataclass

from loguru import logger
from pipecat.processors.frame_processor import FrameProcessor

from actors.baselines import PlanExecuteActor, PromptingActor
from actors.grounding import GroundingActor
from actors.interaction import InteractionActor
from actors.perception import PerceptionActor
from actors.recorder import SessionRecorder
from actors.state import StateUpdater
from actors.talker import TalkerActor
from actors.tools import ToolActor
from voicecoach.baselines import planner_system_prompt
from voicecoach.llm import EmbeddedLlamaServer, LLMClient, LLMError
from voicecoach.session import CoachConfig, Session
from voicecoach.talker import talker_system_prompt
from voicecoach.tools import ToolRunner
from voicecoach.w1 import w1_system_prompt
from voicecoach.w2 import slot_prompt


@dataclass
class Engines:
    """The LLM the coach talks to, and the embedded server behind it if we started one."""

    llm: LLMClient
    server: EmbeddedLlamaServer | None = None

    @classmethod
    def start(cls, config: CoachConfig) -> Engines:
        if config.llm.base_url:
            return cls(LLMClient(config.llm))
        server = EmbeddedLlamaServer(
            config.llm.model_path,
            n_ctx=config.llm.n_ctx,
            ram_cache=config.llm.embedded_ram_cache,
            threads=config.llm.embedded_threads,
            chat_format=config.llm.embedded_chat_format,
        )
        return cls(LLMClient(config.llm, server.start()), server)

    async def close(self) -> None:
        await self.llm.close()
        if self.server is not None:
            self.server.stop()


async def prewarm(engines: Engines, session: Session, config: CoachConfig) -> None:
    """Session-open prewarm (paper A.5): put each LLM role's static prefix in the KV cache,
    so the player's first turn does not pay the cold prompt (~0.8k tokens for W1)."""
    pack = session.pack
    if config.mode == "prompting":
        prompts = [talker_system_prompt(pack)]
    elif config.mode == "pe_agent":
        prompts = [planner_system_prompt(pack), talker_system_prompt(pack)]
    else:
        prompts = [w1_system_prompt(pack), slot_prompt(pack), talker_system_prompt(pack)]
    for system in prompts:
        try:
            messages = [{"role": "system", "content": system}, {"role": "user", "content": "hi"}]
            await engines.llm.complete(messages, max_tokens=1)
        except LLMError as err:  # a cold first turn is slower, not broken
            logger.warning(f"prewarm failed: {err}")


def coach_processors(session: Session, engines: Engines, config: CoachConfig) -> list[FrameProcessor]:
    """The actors of `config.mode` in pipeline order.

    sgc_w1 / sgc_w1_w2 / sgc_full are the paper's cumulative ablation: the same chain with
    W2 and W3 added in turn (the Talker waits only for what the chain has). The baselines
    replace the chain with one turn-owning actor.
    """
    llm, mode = engines.llm, config.mode
    runner = ToolRunner(session.pack, latency_ms=config.tool_latency_ms, timeout_s=config.tool_timeout_s)
    if mode == "prompting":
        return [StateUpdater(session), PromptingActor(session, llm, config), SessionRecorder(session)]
    if mode == "pe_agent":
        return [
            StateUpdater(session),
            PlanExecuteActor(session, llm, config, runner),
            SessionRecorder(session),
        ]
    chain: list[FrameProcessor] = [
        StateUpdater(session),
        PerceptionActor(session, llm, config),
        ToolActor(session, runner),
    ]
    expects = {"intent", "tool"}
    if mode in ("sgc_w1_w2", "sgc_full"):
        chain.append(GroundingActor(session, llm, config))
        expects.add("grounding")
    if mode == "sgc_full":
        chain.append(InteractionActor(session))
        expects.add("interaction")
    return [*chain, TalkerActor(session, llm, config, frozenset(expects)), SessionRecorder(session)]
