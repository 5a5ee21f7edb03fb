"""Typed frames that carry one turn's control decisions between the actors.

Every decision travels as a frame (never as hidden shared state), stamped with the turn it
belongs to and the milliseconds since the end of the player's input, so that any actor,
observer or UI can rebuild the turn's timeline. Frames of a turn that was interrupted are
recognised by their `turn_index` and dropped by the actors downstream.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from pipecat.frames.frames import DataFrame, Frame, LLMTextFrame, SystemFrame, TranscriptionFrame

from voicecoach.coach.store import TurnRecord
from voicecoach.core.latency import Milestone
from voicecoach.core.state import AnswerMeta, LiveState
from voicecoach.grounding.kernel import GroundingControl
from voicecoach.interaction.kernel import InteractionControl
from voicecoach.perception.plan import ToolCall
from voicecoach.talker.conditioning import ToolOutcome


@dataclass
class TurnFrame(DataFrame):
    """Base of every per-turn frame."""

    turn_index: int = 0
    t_ms: float = 0.0  # milliseconds since the end of the player's input


@dataclass
class IntentControlFrame(TurnFrame):
    """c1 = W1(x, s_ic): the labels, the Φ outcome and the snapshot they were taken on.

    Pushed the moment SUB_INTENT closes (or when the W1 stream ends without it), so W2 and
    W3 start while narration is still streaming.
    """

    utterance: str = ""
    intent: str = ""
    sub_intent: str = ""
    branch: str = "knowledge-qa"
    outcome: str = ""  # frozen | miss | degraded | format_error | llm_error
    reason: str = ""
    snapshot: LiveState = field(default_factory=LiveState)
    labelled_by: str = "llm"  # "prior": the intent prior's labels opened W1's tag stream
    transcript: str = ""  # what STT wrote, before the lexicon repair
    repaired: tuple[tuple[str, str], ...] = ()  # (misheard span, name)


@dataclass
class ToolDispatchFrame(TurnFrame):
    """The turn's tool set: frozen by Φ, or the PLAN's fallback calls."""

    calls: list[ToolCall] = field(default_factory=list)
    source: str = "none"  # phi | plan | none
    errors: list[str] = field(default_factory=list)


@dataclass
class SecondQuestionFrame(TurnFrame):
    """The turn's second question (two in one breath): its labels and snapshot from W1, its
    read-only tool calls, and their outcomes once the tool actor ran them (None until then)."""

    utterance: str = ""
    intent: str = ""
    sub_intent: str = ""
    snapshot: LiveState = field(default_factory=LiveState)
    calls: list[ToolCall] = field(default_factory=list)
    outcomes: list[ToolOutcome] | None = None
    refers_back: bool = False  # "..., and who counters it?": read once the first answer is known


@dataclass
class ToolResultFrame(TurnFrame):
    """All results of the turn's dispatch (successes and failures alike)."""

    outcomes: list[ToolOutcome] = field(default_factory=list)


@dataclass
class SideEffectResultFrame(TurnFrame):
    """The results of a turn's side-effect calls, which ran only after the turn was committed
    (its ToolResultFrame said they were scheduled); for logs and UIs, after the turn's end."""

    outcomes: list[ToolOutcome] = field(default_factory=list)


@dataclass
class GroundingControlFrame(TurnFrame):
    """c2 = W2(x, s_fs, c1): conflicts and the paragraph plan."""

    control: GroundingControl | None = None
    slot_errors: list[str] = field(default_factory=list)


@dataclass
class InteractionControlFrame(TurnFrame):
    """c3 = W3(x, s_sh, c1) and the answer.meta to write back if the turn completes."""

    control: InteractionControl | None = None
    meta: AnswerMeta | None = None


@dataclass
class NarrationTextFrame(LLMTextFrame):
    """A piece of W1's NARRATION, on its way to TTS as soon as it streams."""

    turn_index: int = 0


@dataclass
class NarrationEndFrame(TurnFrame):
    """NARRATION closed (or the stream ended): the reply may follow it."""


@dataclass
class NarrationDraftFrame(TurnFrame):
    """W1's narration, whole, when the Talker decides whether it is said (the answer first): not
    speech yet, so nothing that follows what the coach says (TTS, events, timelines) reads it."""

    text: str = ""


@dataclass
class ReplyTextFrame(LLMTextFrame):
    """A piece of the Talker's reply."""

    turn_index: int = 0


@dataclass
class TurnCompletedFrame(TurnFrame):
    """The turn finished without interruption: its record, which the session store persists
    (None only from the stock cascade of the benchmarks, which keeps no session)."""

    record: TurnRecord | None = None
    meta: AnswerMeta | None = None


@dataclass
class ReplyFailedFrame(TurnFrame):
    """The reply path could not finish the turn's reply (the LLM down, its stream cut or stalled).

    Pushed before the turn's TurnCompletedFrame: the recorder then stores the turn as not
    completed, whatever the reply path made of the failure (a fallback line, a partial reply).
    """

    reason: str = ""


@dataclass
class PlaybackFrame(SystemFrame):
    """Upstream, from the end of a speech pipeline: how far the player heard turn `turn_index`.

    `to_end`: the output transport sent the turn's last reply audio (its TurnCompletedFrame came
    out after it); else an interruption stopped the playback. `heard` is the text of the phrases
    whose audio was sent. A system frame, so that no interruption drops it on its way back.
    """

    turn_index: int = 0
    heard: str = ""
    to_end: bool = True


@dataclass
class TurnCommittedFrame(SystemFrame):
    """Upstream, from the SessionRecorder: turn `turn_index` was stored, `completed` or not.

    `completed`: its reply was delivered to the end (text mode: the reply text went out; speech:
    its last audio was sent) with no barge-in: what the tool actor's commit gate waits for before
    a side-effect call fires. A system frame, so that no interruption drops it on its way back.
    """

    turn_index: int = 0
    completed: bool = True


@dataclass
class TypedTranscriptionFrame(TranscriptionFrame):
    """A typed question (RTVI send-text) as a transcript: sent whole, so it is never joined with
    another question (`TurnGate`, `Session.begin_turn`)."""


@dataclass
class TurnFailedFrame(TurnFrame):
    """The recorder stored the turn as not completed: which part failed, why, what was heard."""

    failed: Literal["reply", "playback", "interrupted"] = "reply"
    reason: str = ""
    heard: str = ""


@dataclass
class StateUpdateFrame(DataFrame):
    """The game pushed a new snapshot (`snapshot`) or a JSON merge patch (`patch`)."""

    snapshot: dict[str, Any] | None = None
    patch: dict[str, Any] | None = None


# The milestone each turn frame marks: the one frame -> timeline mapping that the Talker, text
# mode, the server, the replay and the CLI printer all read. A text frame marks its milestone
# with the first piece of its turn.
MILESTONE_OF: dict[type[Frame], Milestone] = {
    IntentControlFrame: Milestone.C1,
    ToolDispatchFrame: Milestone.TOOL_DISPATCH,
    ToolResultFrame: Milestone.TOOL_RESULTS,
    GroundingControlFrame: Milestone.C2,
    InteractionControlFrame: Milestone.C3,
    NarrationTextFrame: Milestone.FIRST_NARRATION_TOKEN,
    NarrationEndFrame: Milestone.NARRATION_END,
    ReplyTextFrame: Milestone.REPLY_FIRST_TOKEN,
    TurnCompletedFrame: Milestone.TURN_COMPLETED,
}
_F = TypeVar("_F", bound=Frame)


def turn_milestone(frame: Frame) -> Milestone | None:
    """The milestone `frame` marks, or None for a frame that is not one of a turn's."""
    return MILESTONE_OF.get(type(frame))


@dataclass
class TurnFrames:
    """One turn's frames as they arrive, kept by the milestone each marks (the first of each),
    and its narration and reply text: what the Talker conditions on, what text mode reports."""

    turn_index: int
    frames: dict[Milestone, Frame] = field(default_factory=dict)
    narration: str = ""
    reply: str = ""
    draft: str | None = None  # W1's narration held for the Talker (NarrationDraftFrame)
    second: SecondQuestionFrame | None = None  # the second question, its tools run

    def add(self, frame: Frame) -> Milestone | None:
        """Take in one frame of the turn; its milestone if it is the first frame to reach it."""
        if isinstance(frame, NarrationDraftFrame):
            self.draft = frame.text
        elif isinstance(frame, SecondQuestionFrame) and frame.outcomes is not None:
            self.second = frame
        elif isinstance(frame, NarrationTextFrame):
            self.narration += frame.text
        elif isinstance(frame, ReplyTextFrame):
            self.reply += frame.text
        milestone = turn_milestone(frame)
        if milestone is None or milestone in self.frames:
            return None
        self.frames[milestone] = frame
        return milestone

    def _first(self, milestone: Milestone, kind: type[_F]) -> _F | None:
        frame = self.frames.get(milestone)
        return frame if isinstance(frame, kind) else None

    @property
    def c1(self) -> IntentControlFrame | None:
        return self._first(Milestone.C1, IntentControlFrame)

    @property
    def dispatch(self) -> ToolDispatchFrame | None:
        return self._first(Milestone.TOOL_DISPATCH, ToolDispatchFrame)

    @property
    def results(self) -> ToolResultFrame | None:
        return self._first(Milestone.TOOL_RESULTS, ToolResultFrame)

    @property
    def c2(self) -> GroundingControlFrame | None:
        return self._first(Milestone.C2, GroundingControlFrame)

    @property
    def c3(self) -> InteractionControlFrame | None:
        return self._first(Milestone.C3, InteractionControlFrame)

    @property
    def narration_end(self) -> NarrationEndFrame | None:
        return self._first(Milestone.NARRATION_END, NarrationEndFrame)

    @property
    def completion(self) -> TurnCompletedFrame | None:
        return self._first(Milestone.TURN_COMPLETED, TurnCompletedFrame)

    def t_ms(self, milestone: Milestone) -> float | None:
        """When the actor that pushed the milestone's frame stamped it (ms since end of input)."""
        frame = self.frames.get(milestone)
        return frame.t_ms if isinstance(frame, TurnFrame) else None
