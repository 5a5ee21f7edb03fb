"""Typed frames that carry one turn's control decisions between the actors.

Every decision travels as a frame (never as hidden shared state), stamped with the turn it
belongs to and the milliseconds since the end of the player's input, so that any actor,
observer or UI can rebuild the turn's timeline. Frames of a turn that was interrupted are
recognised by their `turn_index` and dropped by the actors downstream.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipecat.frames.frames import DataFrame, LLMTextFrame

from voicecoach.state import AnswerMeta, LiveState
from voicecoach.talker import ToolOutcome
from voicecoach.w1 import ToolCall
from voicecoach.w2 import GroundingControl
from voicecoach.w3 import InteractionControl


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


@dataclass
class ToolDispatchFrame(TurnFrame):
    """The turn's tool set: frozen by Φ, or the PLAN's fallback calls."""

    calls: list[ToolCall] = field(default_factory=list)
    source: str = "none"  # phi | plan | none
    errors: list[str] = field(default_factory=list)


@dataclass
class ToolResultFrame(TurnFrame):
    """All results of the turn's dispatch (successes and failures alike)."""

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
class ReplyTextFrame(LLMTextFrame):
    """A piece of the Talker's reply."""

    turn_index: int = 0


@dataclass
class TurnCompletedFrame(TurnFrame):
    """The turn finished without interruption: what the session store persists."""

    record: dict[str, Any] = field(default_factory=dict)
    meta: AnswerMeta | None = None


@dataclass
class StateUpdateFrame(DataFrame):
    """The game pushed a new snapshot (`snapshot`) or a JSON merge patch (`patch`)."""

    snapshot: dict[str, Any] | None = None
    patch: dict[str, Any] | None = None
