"""Every use of a Pipecat private member, in one place (pipecat-ai 1.14).

Pipecat's underscored attributes and methods are not its API: a minor release may rename or
drop them without notice. The voice pipeline still needs a few (each helper below says why),
so they are all reached from here, and nowhere else: `SEAMS` lists them, and
tests/actors/test_pipecat_compat.py checks each one against the installed Pipecat (the attribute
is still set, the method still has its parameters), so an upgrade that moves one fails there,
by name, instead of somewhere in a live session. That test also fails if another file of ours
names one of these members.

Kinds of seam:

- "attribute": an instance attribute a Pipecat method (`set_in`) sets, which we read or write
  (`holds`: its type).
- "method": a private method we call.
- "override": a private method one of our subclasses (`by`) overrides: the base must still
  call it, with the same parameters.
- "init": a constructor we bypass or replay (`names`: every attribute it sets, so a new one
  fails the test instead of being missing from our copy).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

from pipecat.audio.vad.silero import SileroOnnxModel, SileroVADAnalyzer
from pipecat.audio.vad.vad_analyzer import VADAnalyzer, VADParams, VADState
from pipecat.frames.frames import Frame
from pipecat.services.stt_service import SegmentedSTTService, STTService
from pipecat.services.tts_service import TTSService

SeamKind = Literal["attribute", "method", "override", "init"]


@dataclass(frozen=True)
class Seam:
    """One Pipecat member we depend on that is not Pipecat's public API."""

    owner: type  # the Pipecat class that defines it
    name: str
    kind: SeamKind
    # "attribute": the owner's method that sets it. "method" / "override" / "init": its
    # parameter names, self included, as `inspect.signature` lists them.
    set_in: str = ""
    holds: type | None = None  # "attribute": what it holds (an instance of)
    params: tuple[str, ...] = ()
    names: tuple[str, ...] = ()  # "init": the attributes the constructor sets, all of them
    by: str = ""  # "override": our subclass that overrides it, as module:qualname
    why: str = ""


SEAMS: list[Seam] = [
    # --- Silero VAD --------------------------------------------------------------------------
    Seam(VADAnalyzer, "_vad_state", "attribute", set_in="set_params", holds=VADState,
         why="vad_state: the raw VAD state (STOPPING included) after the last audio frame"),
    Seam(VADAnalyzer, "_run_analyzer", "method", params=("self", "buffer"),
         why="run_vad_inline: the analysis analyze_audio hands to a thread, run on the loop"),
    Seam(VADAnalyzer, "_executor", "attribute", set_in="__init__", holds=ThreadPoolExecutor,
         why="vad_executor: the analyzer's own thread, which the shared analyzer never starts"),
    Seam(SileroOnnxModel, "__init__", "init", params=("self", "path", "force_onnx_cpu"),
         names=("session", "sample_rates"),
         why="silero_model_around: a model around a loaded session, without loading one"),
    Seam(SileroVADAnalyzer, "__init__", "init", params=("self", "sample_rate", "params"),
         names=("_model", "_windows_since_reset", "_low_confidence_windows"),
         why="init_shared_silero_analyzer: SileroVADAnalyzer's __init__ without its model load"),
    # --- segmented STT -----------------------------------------------------------------------
    Seam(SegmentedSTTService, "_user_speaking", "attribute", set_in="__init__", holds=bool,
         why="stt_user_speaking / stt_close_segment: whether a segment is being recorded"),
    Seam(SegmentedSTTService, "_audio_buffer", "attribute", set_in="__init__", holds=bytearray,
         why="stt_segment_so_far / stt_close_segment: the segment's audio so far"),
    Seam(SegmentedSTTService, "_trailing_silence", "method", params=("self",),
         why="stt_segment_so_far: the silence the base pads every segment with"),
    Seam(STTService, "_record_stt_audio_usage", "method", params=("self", "audio"),
         why="stt_close_segment: usage metrics for a segment we queue ourselves"),
    Seam(SegmentedSTTService, "_segment_queue", "attribute", set_in="__init__", holds=asyncio.Queue,
         why="stt_queue_segment: the queue the base's transcription task reads segments from"),
    Seam(STTService, "_user_id", "attribute", set_in="__init__", holds=str,
         why="stt_user_id: the user a transcript belongs to, as Pipecat's services fill it in"),
    Seam(SegmentedSTTService, "_handle_user_stopped_speaking", "override", params=("self", "frame"),
         by="voicecoach.pipelines.speech.voice:EmbeddedWhisperSTTService",
         why="a segment whose transcription began at the silence onset is queued as it was then"),
    # --- TTS ---------------------------------------------------------------------------------
    Seam(TTSService, "_stop_frame_timeout_s", "attribute", set_in="__init__", holds=float,
         why="tts_context_timeout_s: how long an audio context may go without audio"),
    Seam(TTSService, "_refresh_audio_context", "method", params=("self", "context_id"),
         why="tts_keep_context_alive: a phrase queued for the shared piper thread is not silence"),
    Seam(TTSService, "_stream_audio_frames_from_iterator", "method",
         params=("self", "iterator", "strip_wav_header", "in_sample_rate", "context_id"),
         why="tts_stream_audio: PCM chunks as TTSAudioRawFrames, resampled to the output rate"),
]  # fmt: skip


# --- Silero VAD ----------------------------------------------------------------------------


def vad_state(analyzer: VADAnalyzer) -> VADState:
    """The state the analyzer's last `analyze_audio` returned, STARTING and STOPPING included.

    Why: VADProcessor keeps that return value to itself (its VADController reports SPEAKING
    and QUIET only), and the silence onset is SPEAKING -> STOPPING. In pipecat 1.14
    `VADAnalyzer._vad_state` is set by `set_params` (QUIET) and updated by `_run_analyzer`,
    whose return value it is."""
    return analyzer._vad_state


def run_vad_inline(analyzer: VADAnalyzer, buffer: bytes) -> VADState:
    """The VAD's verdict on `buffer`, computed on the calling thread.

    Why: `VADAnalyzer.analyze_audio` (pipecat 1.14) hands every frame to the analyzer's own
    one-thread executor, running `_run_analyzer(buffer)` there: it buffers the audio, scores
    each whole window with `voice_confidence` and steps the state machine. For Silero that
    hand-off costs more than the work, so `SharedSileroVADAnalyzer` calls it directly."""
    return analyzer._run_analyzer(buffer)


def vad_executor(analyzer: VADAnalyzer) -> ThreadPoolExecutor:
    """The analyzer's one-thread executor, where pipecat 1.14's `analyze_audio` runs the model.

    Why: a test checks that the shared analyzer never hands a frame to it (its thread is
    created on the first job). `VADAnalyzer.__init__` sets `_executor`; `cleanup` shuts it."""
    return analyzer._executor


def silero_model_around(session: Any) -> SileroOnnxModel:
    """A `SileroOnnxModel` on an already loaded onnxruntime session, its recurrent state fresh.

    Why: the session is stateless and may be shared by every stream; the model's recurrent
    state may not. `SileroOnnxModel.__init__(path, force_onnx_cpu)` always loads the file, so
    this builds it without `__init__`, setting what that sets in pipecat 1.14: `session`,
    `sample_rates`, and the state `reset_states` makes."""
    model = SileroOnnxModel.__new__(SileroOnnxModel)
    model.session = session
    model.sample_rates = [8000, 16000]
    model.reset_states()
    return model


def init_shared_silero_analyzer(
    analyzer: SileroVADAnalyzer, session: Any, *, sample_rate: int | None, params: VADParams | None
) -> None:
    """Initialise `analyzer` as `SileroVADAnalyzer.__init__` would, around a shared session.

    Why: that `__init__` loads the Silero model from the package for every stream (2 s of CPU
    and MBs that a server with many sessions pays for each). In pipecat 1.14 it calls
    `VADAnalyzer.__init__`, then sets `_model` (the `SileroOnnxModel`) and the two counters of
    its model-reset policy, `_windows_since_reset` and `_low_confidence_windows`."""
    VADAnalyzer.__init__(analyzer, sample_rate=sample_rate, params=params)
    analyzer._model = silero_model_around(session)
    analyzer._windows_since_reset = 0
    analyzer._low_confidence_windows = 0


# --- segmented STT -------------------------------------------------------------------------


def stt_user_speaking(stt: SegmentedSTTService) -> bool:
    """Whether the STT is recording a segment (between the VAD's start and stop).

    Why: a silence onset outside a segment has nothing to transcribe. In pipecat 1.14
    `SegmentedSTTService._user_speaking` is set by `_handle_user_started_speaking` and cleared
    by `_handle_user_stopped_speaking`."""
    return stt._user_speaking


def stt_segment_so_far(stt: SegmentedSTTService) -> bytes:
    """The current segment as the STT would queue it if the VAD stopped now: the audio so far
    (16-bit PCM) padded with the trailing silence.

    Why: transcription begins at the silence onset, before the VAD stops. In pipecat 1.14
    `_handle_user_stopped_speaking` queues `bytes(self._audio_buffer) + self._trailing_silence()`."""
    return bytes(stt._audio_buffer) + stt._trailing_silence()


async def stt_close_segment(stt: SegmentedSTTService, pcm: bytes) -> None:
    """End the current segment as pipecat 1.14's `_handle_user_stopped_speaking` does, with
    `pcm` as its audio: not speaking, the buffer emptied, `pcm` counted in the usage metrics.

    Why: the segment whose transcription began at the silence onset is that onset's audio (what
    came since is silence), so our override queues it instead of the base's."""
    stt._user_speaking = False
    stt._audio_buffer.clear()
    stt._record_stt_audio_usage(pcm)
    await stt.emit_stt_usage_metrics()


async def stt_queue_segment(stt: SegmentedSTTService, pcm: bytes) -> None:
    """Queue `pcm` for transcription: the service's task hands it to `run_stt`, in order.

    Why: as `stt_close_segment`. In pipecat 1.14 `SegmentedSTTService._segment_queue` is read by
    `_segment_task_handler`, which calls `run_stt` on each segment (None ends it)."""
    await stt._segment_queue.put(pcm)


def stt_user_id(stt: STTService) -> str:
    """The id of the user whose audio the STT last received ("" for a websocket's).

    Why: a TranscriptionFrame names its user, and Pipecat's services take it from here.
    pipecat 1.14's `STTService._user_id` is set by `process_audio_frame`."""
    return stt._user_id


# --- TTS -----------------------------------------------------------------------------------


def tts_context_timeout_s(tts: TTSService) -> float:
    """How long an audio context may get no audio before the TTS ends it.

    Why: a phrase waiting for the shared piper thread must refresh its context well inside this.
    pipecat 1.14's `TTSService.__init__` stores its `stop_frame_timeout_s` (3.0) here."""
    return tts._stop_frame_timeout_s


def tts_keep_context_alive(tts: TTSService, context_id: str) -> None:
    """Restart the audio context's idle timeout.

    Why: with nothing for `tts_context_timeout_s`, Pipecat ends the context ("completed with no
    audio", the bot stopped speaking mid-turn) though the phrase is only queued. In pipecat 1.14
    `TTSService._refresh_audio_context` calls the context manager's `keepalive`."""
    tts._refresh_audio_context(context_id)


def tts_stream_audio(
    tts: TTSService, iterator: AsyncIterator[bytes], *, in_sample_rate: int, context_id: str
) -> AsyncGenerator[Frame, None]:
    """PCM chunks from `iterator` as the TTS's audio frames, resampled to its output rate and
    cut at whole samples.

    Why: it is what Pipecat's own TTS services use to turn a stream of bytes into
    TTSAudioRawFrames of the context; in pipecat 1.14 it is the protected
    `TTSService._stream_audio_frames_from_iterator`."""
    return tts._stream_audio_frames_from_iterator(
        iterator, in_sample_rate=in_sample_rate, context_id=context_id
    )
