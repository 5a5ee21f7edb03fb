"""The coach's turn pipeline: W1 → tools → W2 → W3 → Talker → recorder, shared by every mode.

Text mode puts a transcript source before it and a printer after it; the speech modes put
VAD + STT before it and TTS + an audio transport after it. The engines it needs (an LLM
endpoint, the tool runner) are built here from `CoachConfig`, so that every assembly runs
the same actors on the same configuration.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipecat.processors.frame_processor import FrameProcessor

from actors.grounding import GroundingActor
from actors.interaction import InteractionActor
from actors.perception import PerceptionActor
from actors.recorder import SessionRecorder
from actors.talker import TalkerActor
from actors.tools import ToolActor
from voicecoach.llm import EmbeddedLlamaServer, LLMClient
from voicecoach.session import CoachConfig, Session
from voicecoach.tools import ToolRunner


@dataclass
class Engines:
    """The LLM the coach talks to, and the embedded server behind it if we started one."""

    llm: LLMClient
    server: EmbeddedLlamaServer | None = None

    @classmethod
    def start(cls, config: CoachConfig) -> Engines:
        if config.llm.base_url:
            return cls(LLMClient(config.llm))
        server = EmbeddedLlamaServer(config.llm.model_path, n_ctx=config.llm.n_ctx)
        return cls(LLMClient(config.llm, server.start()), server)

    async def close(self) -> None:
        await self.llm.close()
        if self.server is not None:
            self.server.stop()


def coach_processors(session: Session, engines: Engines, config: CoachConfig) -> list[FrameProcessor]:
    """The SGC actors in pipeline order."""
    runner = ToolRunner(session.pack, latency_ms=config.tool_latency_ms, timeout_s=config.tool_timeout_s)
    return [
        PerceptionActor(session, engines.llm, config),
        ToolActor(session, runner),
        GroundingActor(session, engines.llm, config),
        InteractionActor(session),
        TalkerActor(session, engines.llm, config),
        SessionRecorder(session),
    ]
