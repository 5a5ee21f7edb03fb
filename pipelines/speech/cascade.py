"""The stock Pipecat cascade on our engines: the baseline the coach's S2FA is compared against.

    transport.in → Silero VAD → STT → LLMUserAggregator (our turn-stop strategy)
        → OpenAILLMService (function calling over voicecoach.tools.registry) → TTS → transport.out
        → LLMAssistantAggregator

Everything in it is stock Pipecat 1.14 wired the documented way (`LLMContext` + the universal
aggregator pair, the system prompt in `system_instruction`, tools as `FunctionSchema`s with a
handler registered per tool), on the very engines the coach uses: the same VAD parameters,
STT service and turn-stop strategy (`pipelines/speech/voice.py`), the same LLM endpoint (the
embedded llama.cpp server's base_url, or `--llm-url`), the same TTS service without our phrase
cutting (the TTS aggregates whole sentences itself, as stock), and every tool of the pack
(`voicecoach.tools.registry.pack_tools`) run by the same `ToolRunner` with the same artificial latency
against the session's live state.

What the embedded server (llama.cpp's llama-server) does with function calling on SmolLM2:
its GGUF chat template has no tool section, so the tools never reach the prompt (the rendered
prompt is the plain chatml one) and the model answers in text, with Pipecat's default (no
`tool_choice` sent) and with `tool_choice="auto"` alike: no tool fires. The latency table's
cascade rows were measured on llama-cpp-python's server, where the same held for the GGUF's
template (docs/BENCHMARKS.md, "Latency (S2FA)"). A model whose template renders tools, or a
remote endpoint (`--llm-url`), gets real function calls. So `tool_choice` is a knob here
("unset", Pipecat's default, or "auto"), and the chat template is the server's
(`bench_latency --chat-template`).

Fitting the replay harness (`pipelines/replay.py`), so S2FA is measured exactly as for the
coach: `CascadeReplay` is a `SessionReplay` with this pipeline. Two small processors give the
harness the turn boundaries the coach's actors give it: `CascadeTurns` (after the user
aggregator) opens a session turn when the aggregated user turn is handed to the LLM, and
`CascadeTurnEnd` (after the output transport) completes it at the end of the LLM response that
called no function, i.e. once that response's audio has reached the transport.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from loguru import logger
from pipecat.adapters.llm.schemas.function_schema import FunctionSchema
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema
from pipecat.frames.frames import (
    Frame,
    FunctionCallResultFrame,
    FunctionCallsStartedFrame,
    InterruptionFrame,
    LLMContextFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    MetricsFrame,
)
from pipecat.metrics.metrics import TTFBMetricsData
from pipecat.observers.base_observer import FramePushed
from pipecat.pipeline.pipeline import Pipeline
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.processors.audio.vad_processor import VADProcessor
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.llm_service import FunctionCallParams, LLMService
from pipecat.services.openai.llm import OpenAILLMService
from pipecat.services.tts_service import TTSService

from voicecoach.actors.frames import TurnCompletedFrame, TurnFrame
from voicecoach.actors.tools import run_call
from voicecoach.coach.engines import Engines
from voicecoach.coach.session import CoachConfig, Session
from voicecoach.coach.speech_config import SpeechConfig
from voicecoach.core.latency import Event, Milestone
from voicecoach.domain.pack import Pack
from voicecoach.llm.client import LLMConfig, LLMError
from voicecoach.perception.plan import ToolCall
from voicecoach.pipelines.replay import ReplayProbe, SessionReplay
from voicecoach.pipelines.speech.voice import (
    stt_service,
    tts_service,
    turn_strategies,
    vad_analyzer,
)
from voicecoach.tools.registry import ToolRunner, pack_tools

CASCADE = "cascade"  # the configuration's name in benchmarks
ToolChoice = Literal["unset", "auto"]


def cascade_system_instruction(pack: Pack) -> str:
    """A stock voice-bot prompt: persona, game rules, speak briefly, look things up with the tools."""
    rules = "\n".join(f"- {rule}" for rule in pack.domain_rules)
    return (
        f"{pack.persona}\nGame rules:\n{rules}\n"
        "You speak to a player mid-match: reply in one to three short spoken sentences, no lists, "
        "no markdown. Use the tools to look up the player's creatures, skills and match before you "
        "answer; never guess what they own."
    )


def llm_base_url(engines: Engines, llm: LLMConfig) -> str:
    """The endpoint the coach's LLM client talks to: the embedded server's, else the configured one."""
    server = engines.lead_server or engines.server  # the turn's first call: the lead, when split
    if server is not None:
        return server.base_url
    if llm.base_url:
        return llm.base_url
    raise ValueError("no LLM endpoint: start the embedded server or configure llm.base_url")


def tool_schemas(pack: Pack) -> ToolsSchema:
    """Every tool of the pack (`pack_tools`, as served) as a Pipecat FunctionSchema (same names,
    descriptions, schemas)."""
    return ToolsSchema(
        standard_tools=[
            FunctionSchema(
                name=spec.name,
                description=spec.description,
                properties=spec.parameters["properties"],
                required=list(spec.parameters["required"]),
            )
            for spec in pack_tools(pack).values()
        ]
    )


def register_tools(llm: LLMService[Any], session: Session, runner: ToolRunner) -> None:
    """One Pipecat function per tool, run through the coach's ToolRunner against the live state."""

    async def handler(params: FunctionCallParams) -> None:
        turn = session.turn(session.next_turn - 1)
        state = turn.snapshot if turn is not None else session.state  # refreshed by mid-turn pushes
        outcome = await run_call(runner, state, ToolCall(params.function_name, dict(params.arguments)))
        await params.result_callback(outcome.result if outcome.ok else {"error": outcome.error})

    for name in pack_tools(session.pack):
        llm.register_function(name, handler)


def llm_service(
    base_url: str, config: CoachConfig, pack: Pack, max_tokens: int | None = None
) -> OpenAILLMService:
    return OpenAILLMService(
        api_key=config.llm.api_key,
        base_url=base_url,
        settings=OpenAILLMService.Settings(
            model=config.llm.model,
            system_instruction=cascade_system_instruction(pack),
            temperature=config.llm.temperature,
            max_tokens=max_tokens or config.reply_max_tokens,
        ),
    )


# --- turn boundaries for the harness ---------------------------------------------------------


@dataclass
class CascadeTurnFrame(TurnFrame):
    """The aggregated user turn was handed to the LLM: the cascade's turn starts."""

    utterance: str = ""


def _last_user_text(context: LLMContext) -> str:
    for message in reversed(context.get_messages()):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):  # content parts
                return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


class CascadeTurns(FrameProcessor):
    """Between the user aggregator and the LLM: each inference the user's turn triggers opens a
    session turn (so tools read that turn's snapshot) and is announced with a CascadeTurnFrame."""

    def __init__(self, session: Session):
        super().__init__()
        self._session = session

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, LLMContextFrame) and direction == FrameDirection.DOWNSTREAM:
            text = _last_user_text(frame.context)
            turn = self._session.begin_turn(text)
            await self.push_frame(CascadeTurnFrame(turn_index=turn.index, utterance=text))
        await self.push_frame(frame, direction)


class CascadeTurnEnd(FrameProcessor):
    """After the output transport: the turn is complete at the end of the first LLM response that
    called no function (a response that called one is followed by another, with the results).

    LLMFullResponseEndFrame is queued behind its response's audio by the TTS service and by the
    output transport, so here it means "all of this response's audio went to the transport".
    FunctionCallsStartedFrame is a system frame and may overtake the end of an earlier response,
    hence a count, not a flag.
    """

    def __init__(self) -> None:
        super().__init__()
        self._turn: int | None = None
        self._calling = 0  # responses that called functions and whose end has not passed yet

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        if direction != FrameDirection.DOWNSTREAM:
            return
        if isinstance(frame, CascadeTurnFrame):
            self._turn, self._calling = frame.turn_index, 0
        elif isinstance(frame, FunctionCallsStartedFrame):
            self._calling += 1
        elif isinstance(frame, LLMFullResponseEndFrame) and self._turn is not None:
            if self._calling:
                self._calling -= 1
                return
            await self.push_frame(TurnCompletedFrame(turn_index=self._turn))
            self._turn = None
        elif isinstance(frame, InterruptionFrame):
            self._calling = 0


# --- assembly ----------------------------------------------------------------------------------


def cascade_pipeline(
    transport_in: FrameProcessor,
    transport_out: FrameProcessor,
    session: Session,
    base_url: str,
    config: CoachConfig,
    speech: SpeechConfig,
    *,
    tool_choice: ToolChoice = "unset",
    llm: LLMService[Any] | None = None,
) -> Pipeline:
    """The stock cascade between two transports (run it with `pipeline_params(speech)`).

    The VAD runs in a VADProcessor ahead of the STT, as in the coach's pipeline, rather than
    inside the user aggregator: the same frames reach the same STT at the same time, so the
    two pipelines differ only after the transcript.
    """
    pack = session.pack
    runner = ToolRunner(pack, latency_ms=config.tool_latency_ms, timeout_s=config.tool_timeout_s)
    llm = llm or llm_service(base_url, config, pack)
    register_tools(llm, session, runner)
    tools = tool_schemas(pack)
    context = (
        LLMContext(tools=tools, tool_choice="auto") if tool_choice == "auto" else LLMContext(tools=tools)
    )
    aggregators = LLMContextAggregatorPair(
        context,
        user_params=LLMUserAggregatorParams(
            user_turn_strategies=turn_strategies(speech), user_turn_stop_timeout=speech.turn_stop_timeout_s
        ),
    )
    return Pipeline(
        [
            transport_in,
            VADProcessor(vad_analyzer=vad_analyzer(speech)),
            stt_service(speech, pack),
            aggregators.user(),
            CascadeTurns(session),
            llm,
            tts_service(speech),
            transport_out,
            CascadeTurnEnd(),
            aggregators.assistant(),
        ]
    )


# --- the replay harness ------------------------------------------------------------------------


class CascadeProbe(ReplayProbe):
    """ReplayProbe plus the cascade's milestones, under the names the coach's turns use.

    - `turn_stop`: the user turn handed to the LLM (CascadeTurnFrame);
    - `llm_request` / `llm_first_token` (label "cascade"): each LLM response's start and first
      text; `reply_first_token`: the turn's first text, as for the coach's reply;
    - `tool_dispatch` / `tool_results`: Pipecat's function-call frames;
    - `tts_ttfb`: the TTS service's TTFB metric, and from it a derived `phrase` (first sentence
      handed to TTS = its first audio − TTFB): the stock TTS waits for a whole sentence, and
      that wait is part of the breakdown.
    """

    def __init__(self, clock: Any):
        super().__init__(clock)
        self._turn: int | None = None
        self._response_spoke = False
        self._first_audio_t: float | None = None
        self._ttfb_s: float | None = None
        self._phrase_marked = False

    async def on_push_frame(self, data: FramePushed):
        await super().on_push_frame(data)
        frame, source = data.frame, data.source
        if data.direction != FrameDirection.DOWNSTREAM:
            return
        t = self.clock(data)
        if isinstance(frame, CascadeTurnFrame) and isinstance(source, CascadeTurns):
            self._turn = frame.turn_index
            self._first_audio_t, self._ttfb_s, self._phrase_marked = None, None, False
            self.mark(Milestone.TURN_STOP, t, text=frame.utterance)
        elif isinstance(source, LLMService) and isinstance(frame, LLMFullResponseStartFrame):
            self._response_spoke = False
            self.mark("llm_request", t, label=CASCADE)
        elif isinstance(source, LLMService) and type(frame) is LLMTextFrame and self._turn is not None:
            if not self._response_spoke:
                self._response_spoke = True
                self.mark("llm_first_token", t, label=CASCADE)
            if self._turn not in self.reply:
                self.mark(Milestone.REPLY_FIRST_TOKEN, t, self._turn)
            self.reply[self._turn] = self.reply.get(self._turn, "") + frame.text
        elif isinstance(frame, FunctionCallsStartedFrame) and isinstance(source, LLMService):
            tools = [c.function_name for c in frame.function_calls]
            self.mark("tool_dispatch", t, self._turn, source="llm", tools=tools)
        elif isinstance(frame, FunctionCallResultFrame) and isinstance(source, LLMService):
            ok = not (isinstance(frame.result, dict) and "error" in frame.result)
            self.mark("tool_results", t, self._turn, tool=frame.function_name, ok=[ok])
        elif isinstance(frame, MetricsFrame) and isinstance(source, TTSService):
            for item in frame.data:
                if isinstance(item, TTFBMetricsData) and item.value > 0 and self._ttfb_s is None:
                    self._ttfb_s = item.value
                    self.mark("tts_ttfb", t, value_ms=round(item.value * 1000.0, 1))

    def mark(self, kind: str, t: float | None = None, turn: int | None = None, **detail: Any) -> None:
        super().mark(kind, t, turn, **detail)
        if kind == "tts_audio" and self._turn is not None and self._first_audio_t is None:
            self._first_audio_t = self.events[-1].t
        if kind in ("tts_audio", "tts_ttfb"):
            self._maybe_mark_phrase()

    def _maybe_mark_phrase(self) -> None:
        if self._phrase_marked or self._first_audio_t is None or self._ttfb_s is None:
            return
        self._phrase_marked = True
        t = self._first_audio_t - self._ttfb_s
        self.events.append(Event(t=t, kind="phrase", detail={"derived": "TTS first audio - TTS TTFB"}))


class CascadeReplay(SessionReplay):
    """A fixture session through the stock cascade, measured by the same harness as the coach."""

    tool_choice: ClassVar[ToolChoice] = "unset"

    @property
    def speaking_config(self) -> str:
        return CASCADE

    def make_probe(self) -> ReplayProbe:
        return CascadeProbe(self.clock)

    def first_reply_audio(
        self, events: list[Event], released: float, first_audio: float | None, audio_out: Event | None
    ) -> float | None:
        """The cascade speaks nothing before its answer: its first audio is its first reply audio
        (also on a split turn, whose second part has no derived phrase mark)."""
        return first_audio

    def build_pipeline(self) -> Pipeline:
        base_url = llm_base_url(self.engines, self.config.llm)
        return cascade_pipeline(
            self.input,
            self.output,
            self.session,
            base_url,
            self.config,
            self.speech,
            tool_choice=self.tool_choice,
        )

    async def prewarm(self) -> None:
        """The same session-open prewarm the coach gets: the system prefix into the KV cache."""
        system = cascade_system_instruction(self.session.pack)
        try:
            messages = [{"role": "system", "content": system}, {"role": "user", "content": "hi"}]
            await self.engines.first.complete(messages, max_tokens=1)
        except LLMError as err:
            logger.warning(f"cascade prewarm failed: {err}")


class CascadeAutoReplay(CascadeReplay):
    """The cascade with tool_choice="auto" (the OpenAI default Pipecat does not send)."""

    tool_choice: ClassVar[ToolChoice] = "auto"
