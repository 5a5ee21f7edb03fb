"""The turn timeline as an observer: each frame pushed downstream, as what it marks, on one clock.

The coach's frames mark the milestones `actors.frames.turn_milestone` gives them; the speech
pipeline's frames are recognised by who pushed them (the STT's transcript is `stt_final`, the
turn gate's is `turn_stop`; each phrase handed to TTS, each phrase's first audio). The
server's `CoachEvents` and the replay's `ReplayProbe` both build on `TimelineObserver`, so the
live latency report and the benchmarks read the same marks off the same frames.

An observer, not a processor: it sees every frame where it is first pushed without sitting in
the audio path. Observers are told from a queue, a little after the fact; the push time itself
comes with the notification (`FramePushed.timestamp`, on the pipeline clock) and is what counts.
"""

from __future__ import annotations

from pipecat.frames.frames import (
    AggregatedTextFrame,
    BotStartedSpeakingFrame,
    BotStoppedSpeakingFrame,
    ErrorFrame,
    Frame,
    InterruptionFrame,
    OutputAudioRawFrame,
    TranscriptionFrame,
    TTSAudioRawFrame,
    TTSTextFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.observers.base_observer import BaseObserver, FramePushed
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.stt_service import STTService
from pipecat.services.tts_service import TTSService
from pipecat.transports.base_output import BaseOutputTransport

from voicecoach.actors.frames import turn_milestone
from voicecoach.core.latency import Milestone
from voicecoach.pipelines.speech.voice import PhraseChunker, TurnGate

# The speech pipeline's own events, for frames whose meaning does not depend on who pushed them.
# A VAD stop is a milestone; the rest are context on the timeline (who spoke when, barge-ins).
_SPEECH_EVENTS: tuple[tuple[type[Frame], str], ...] = (
    (VADUserStartedSpeakingFrame, "vad_start"),
    (VADUserStoppedSpeakingFrame, Milestone.VAD_STOP),
    (UserStartedSpeakingFrame, "user_started"),
    (UserStoppedSpeakingFrame, "user_stopped"),
    (InterruptionFrame, "interruption"),
    (BotStartedSpeakingFrame, "bot_started"),
    (BotStoppedSpeakingFrame, "bot_stopped"),
    (ErrorFrame, "error"),
)


class TimelineObserver(BaseObserver):
    """Hands each downstream frame that marks something to `on_mark(kind, t, frame)`.

    `kind` is a `Milestone` for the coach's frames (every piece of narration or reply text
    carries its turn's first-token milestone: the subclass keeps the first), the gate's
    transcript (`turn_stop`), the STT's (`stt_final`) and a VAD stop; else one of the speech
    pipeline's events: "phrase" (each phrase handed to TTS), "tts_audio" (the first audio of
    each phrase), "tts_text", "audio_out" (each chunk the output transport sent), and the
    context events of `_SPEECH_EVENTS`.
    """

    def __init__(self) -> None:
        super().__init__(observe_every_push=False)
        self._tts_contexts: set[str] = set()

    def clock(self, data: FramePushed) -> float:
        """The push time in seconds (the pipeline clock; the replay maps it to time.monotonic)."""
        return data.timestamp / 1e9

    async def on_push_frame(self, data: FramePushed) -> None:
        if data.direction != FrameDirection.DOWNSTREAM:
            return
        kind = self.kind(data.frame, data.source)
        if kind is not None:
            await self.on_mark(kind, self.clock(data), data.frame)

    async def on_mark(self, kind: str, t: float, frame: Frame) -> None:
        """Something happened at `t`: a subclass records it."""

    def kind(self, frame: Frame, source: object) -> str | None:
        milestone = turn_milestone(frame)
        if milestone is not None:
            return milestone
        if isinstance(frame, TranscriptionFrame) and isinstance(source, TurnGate):
            return Milestone.TURN_STOP
        if isinstance(frame, TranscriptionFrame) and isinstance(source, STTService):
            return Milestone.STT_FINAL
        if isinstance(frame, TTSTextFrame) and isinstance(source, TTSService):
            return "tts_text"
        if isinstance(frame, AggregatedTextFrame) and isinstance(source, PhraseChunker):
            return "phrase"
        if isinstance(frame, TTSAudioRawFrame) and isinstance(source, TTSService):
            if frame.context_id in self._tts_contexts:
                return None
            self._tts_contexts.add(frame.context_id or "")
            return "tts_audio"
        if isinstance(frame, OutputAudioRawFrame) and isinstance(source, BaseOutputTransport):
            return "audio_out"
        return next((kind for cls, kind in _SPEECH_EVENTS if isinstance(frame, cls)), None)
