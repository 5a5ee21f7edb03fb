"""The coach's turn pipeline: W1 → tools → W2 → W3 → Talker → recorder, shared by every mode.

Text mode puts a transcript source before it and a printer after it; the speech modes put
VAD + STT before it and TTS + an audio transport after it. The engines it needs (an LLM
endpoint, the tool runner) are built here from `CoachConfig`, so that every assembly runs
the same actors on the same configuration.
"""

from __future__ import annotations

from pipecat.processors.frame_processor import FrameProcessor

from voicecoach.actors.baselines import PlanExecuteActor, PromptingActor
from voicecoach.actors.grounding import GroundingActor
from voicecoach.actors.interaction import InteractionActor
from voicecoach.actors.perception import PerceptionActor
from voicecoach.actors.recorder import SessionRecorder
from voicecoach.actors.state import StateUpdater
from voicecoach.actors.talker import TalkerActor
from voicecoach.actors.tools import ToolActor
from voicecoach.coach.engines import Engines
from voicecoach.coach.session import CoachConfig, Session
from voicecoach.core.latency import Milestone
from voicecoach.tools.registry import ToolRunner


def coach_processors(
    session: Session, engines: Engines, config: CoachConfig, playback: bool = False
) -> list[FrameProcessor]:
    """The actors of `config.mode` in pipeline order.

    `playback`: the reply is spoken, and a turn completes when its audio was played to the end
    (the speech pipeline ends with a PlaybackMonitor); else when its text went out.

    sgc_w1 / sgc_w1_w2 / sgc_full are the paper's cumulative ablation: the same chain with
    W2 and W3 added in turn (the Talker waits only for what the chain has). The baselines
    replace the chain with one turn-owning actor.
    """
    mode, llm, first = config.mode, engines.llm, engines.first
    recorder = SessionRecorder(session, playback=playback)
    runner = ToolRunner(
        session.pack,
        latency_ms=config.tool_latency_ms,
        timeout_s=config.tool_timeout_s,
        endpoint=config.tool_endpoint,
        session_id=session.session_id,
    )
    if mode == "prompting":
        return [StateUpdater(session), PromptingActor(session, first, config), recorder]
    if mode == "pe_agent":
        planner = PlanExecuteActor(session, llm, config, runner, planner_llm=first)
        return [StateUpdater(session), planner, recorder]
    chain: list[FrameProcessor] = [
        StateUpdater(session),
        PerceptionActor(session, first, config),
        ToolActor(session, runner),
    ]
    expects = {Milestone.C1, Milestone.TOOL_RESULTS}
    if mode in ("sgc_w1_w2", "sgc_full"):
        chain.append(GroundingActor(session, llm, config))
        expects.add(Milestone.C2)
    if mode == "sgc_full":
        chain.append(InteractionActor(session))
        expects.add(Milestone.C3)
    return [*chain, TalkerActor(session, llm, config, frozenset(expects)), recorder]
