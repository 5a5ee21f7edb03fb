"""SessionRecorder: commits a turn once the player heard its reply to the end, else stores it as cut.

A turn is *completed* (its answer.meta goes into s_sh and on W3's cooldowns) only when its reply
was delivered: in text mode when the reply text went out, in speech mode when the output
transport sent the reply's last audio. Everything else is stored as not completed, with what
was heard and why, and the client is told (TurnFailedFrame, the protocol's `turn-failed`):

- the reply path says its reply failed (ReplyFailedFrame: the LLM down, its stream cut or
  stalled) before the turn's TurnCompletedFrame;
- an interruption (barge-in) stops the reply's audio before its end: `PlaybackMonitor`, last in
  the speech pipeline, reports how far the playback got (PlaybackFrame, upstream);
- an interruption cancels a turn the reply path had not completed yet: its record is built
  here from the turn's frames that passed (c1, tool results, c2, c3, the text so far).

A cut reply is `interrupted` when the player's own input stopped it (they started speaking, or
typed a question to be run at once): the player chose to, nothing failed. Any other interruption
is a `playback` failure. Either way the turn is not completed and its guidance not cooled down.

Every stored turn is announced upstream with a TurnCommittedFrame (`completed` or not): the tool
actor's commit gate lets a turn's side-effect calls through on a completed one only.

The output transport sends every frame queued behind audio only once that audio is sent, so
a TurnCompletedFrame that comes out of it marks the end of the turn's reply audio; an
interruption drops it there, and the monitor reports the cut instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Literal

from loguru import logger
from pipecat.frames.frames import (
    Frame,
    InputTransportMessageFrame,
    InterruptionFrame,
    TTSTextFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from voicecoach.actors.frames import (
    NarrationTextFrame,
    PlaybackFrame,
    ReplyFailedFrame,
    ReplyTextFrame,
    TurnCommittedFrame,
    TurnCompletedFrame,
    TurnFailedFrame,
    TurnFrame,
    TurnFrames,
)
from voicecoach.coach.session import Session, turn_record
from voicecoach.coach.store import StoreError, TurnRecord

Failed = Literal["reply", "playback", "interrupted"]
INTERRUPTED = "interrupted: the player spoke over the reply"
STOPPED = "playback: an interruption stopped the reply (not the player's speech or typing)"


class SessionRecorder(FrameProcessor):
    """Stores each turn: completed once delivered, or not completed with what was heard.

    `playback`: a speech pipeline, where delivery is the PlaybackMonitor's report; without
    it (text mode) the reply is delivered when its TurnCompletedFrame passes here.
    """

    def __init__(self, session: Session, playback: bool = False):
        super().__init__()
        self._session = session
        self._playback = playback
        self._failed: dict[int, str] = {}  # turn -> why its reply failed
        self._playing: dict[int, TurnRecord] = {}  # replies whose audio is on its way to the player
        # replies an interruption stopped, awaiting what was heard; with what stopped them
        self._cut: dict[int, tuple[TurnRecord, Failed]] = {}
        self._current: TurnFrames | None = None  # the turn in flight, before its TurnCompletedFrame
        self._seen: set[int] = set()  # the recent turns any frame of which passed here
        # The player's input began (speech, or a typed question run at once): the interruption
        # that follows is theirs. Both come before the interruption they cause (Pipecat's user
        # turn broadcasts UserStartedSpeakingFrame first; the transport sends the typed message
        # downstream before the RTVI processor, upstream, interrupts for it).
        self._player_input = False

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, PlaybackFrame):
            await self._on_playback(frame)
            return  # the report ends here: nothing upstream of the coach needs it
        index = getattr(frame, "turn_index", None)
        if isinstance(frame, TurnFrame | NarrationTextFrame | ReplyTextFrame) and index is not None:
            if self._current is None or self._current.turn_index != index:
                await self._superseded(index)
                self._current = TurnFrames(index)
            self._current.add(frame)
        if isinstance(frame, ReplyFailedFrame):
            self._failed[frame.turn_index] = frame.reason
        elif isinstance(frame, TurnCompletedFrame) and frame.record is not None:
            self._current = None
            await self._on_reply_done(frame.record)
        elif isinstance(frame, UserStartedSpeakingFrame) or _runs_typed_question(frame):
            self._player_input = True
        elif isinstance(frame, UserStoppedSpeakingFrame):
            self._player_input = False
        elif isinstance(frame, InterruptionFrame):
            cause: Failed = "interrupted" if self._player_input else "playback"
            self._player_input = False
            await self._on_interruption(cause)
        # Passed on after the turn is stored: whoever waits for a turn's completion (the text
        # coach, the next turn's W3 reading s_sh) finds it committed.
        await self.push_frame(frame, direction)

    async def _superseded(self, index: int) -> None:
        """Turns begun before `index` whose frames never reached here (a typed question sent right
        after another cancelled them first) are stored as cut: the player heard none of them."""
        for begun, record in sorted(self._session.pending.items()):
            if begun < index and begun not in self._seen:
                await self._store_cut(record, "interrupted", INTERRUPTED, "")
        self._seen = {i for i in self._seen if i >= index - 8} | {index}

    async def _on_interruption(self, cause: Failed) -> None:
        """A barge-in: replies still playing, and a turn the reply path was still working on
        (cancelled: it will never complete), are cut."""
        cut, self._current = self._current, None
        if cut is not None:
            record = self._partial_record(cut)
            if not self._playback:  # text mode: what passed here was delivered
                await self._store_cut(record, cause, _why(cause), _spoken(record))
            else:
                self._playing[record.turn_index] = record
        # stopped: the monitor will say how far they got
        self._cut.update({i: (record, cause) for i, record in self._playing.items()})
        self._playing = {}

    def _partial_record(self, turn: TurnFrames) -> TurnRecord:
        """The record of a turn cut before the reply path completed it, from its frames so far."""
        clock = self._session.turn(turn.turn_index)
        c1, c2, c3 = turn.c1, turn.c2, turn.c3
        utterance = c1.utterance if c1 else (clock.utterance if clock else "")
        outcomes = turn.results.outcomes if turn.results else []
        return turn_record(
            self._session.session_id, turn.turn_index, utterance, turn.reply, outcomes,
            {m: turn.t_ms(m) for m in turn.frames}, narration=turn.narration,
            intent=c1.intent if c1 else "", sub_intent=c1.sub_intent if c1 else None,
            c2=c2.control if c2 else None, c3=c3.control if c3 else None, meta=c3.meta if c3 else None,
        )  # fmt: skip

    async def _on_reply_done(self, record: TurnRecord) -> None:
        reason = self._failed.pop(record.turn_index, None)
        if reason is not None:  # the player hears whatever the reply path made of the failure
            await self._store_cut(record, "reply", f"reply: {reason}", _spoken(record))
        elif self._playback:
            self._playing[record.turn_index] = record
            self._session.note_reply(record)
        else:
            await self._commit(record)

    async def _on_playback(self, frame: PlaybackFrame) -> None:
        playing = self._playing.pop(frame.turn_index, None)
        found: tuple[TurnRecord, Failed] | None = (
            (playing, "playback") if playing is not None else self._cut.pop(frame.turn_index, None)
        )
        if found is not None and frame.to_end:
            await self._commit(found[0])
        elif found is not None:
            await self._store_cut(found[0], found[1], _why(found[1]), frame.heard)
        if not frame.to_end:  # replies stopped before any of their audio reached the monitor
            for other, cause in self._cut.values():
                await self._store_cut(other, cause, _why(cause), "")
            self._cut = {}

    async def _store_cut(self, record: TurnRecord, failed: Failed, reason: str, heard: str) -> None:
        logger.warning(f"turn {record.turn_index} not completed ({reason}); heard {heard!r}")
        await self._commit(record.model_copy(update={"completed": False, "failure": reason, "heard": heard}))
        turn = self._session.turn(record.turn_index)
        await self.push_frame(
            TurnFailedFrame(
                turn_index=record.turn_index,
                t_ms=turn.ms() if turn else 0.0,
                failed=failed,
                reason=reason,
                heard=heard,
            )  # fmt: skip
        )

    async def _commit(self, record: TurnRecord) -> None:
        self._seen.add(record.turn_index)  # stored here: not a turn that never reached the recorder
        try:
            # The stores are sync (SQLite, Redis): off the event loop, so other sessions' frames
            # keep moving while the record is written.
            await asyncio.to_thread(self._session.commit_turn, record)
        except StoreError as err:  # the turn was spoken; losing its record must not end the session
            logger.error(f"turn {record.turn_index} not persisted: {err}")
            await self.push_error(str(err))
        # Delivered or not, whatever the store did: the tool actor's commit gate reads this.
        await self.push_frame(
            TurnCommittedFrame(turn_index=record.turn_index, completed=record.completed),
            FrameDirection.UPSTREAM,
        )


def _why(cause: Failed) -> str:
    return INTERRUPTED if cause == "interrupted" else STOPPED


def _runs_typed_question(frame: Frame) -> bool:
    """A typed question (RTVI send-text) that Pipecat's RTVI processor runs at once, interrupting."""
    if not isinstance(frame, InputTransportMessageFrame) or not isinstance(frame.message, dict):
        return False
    if frame.message.get("type") != "send-text":
        return False
    data = frame.message.get("data")
    options = data.get("options") if isinstance(data, dict) else None
    return not isinstance(options, dict) or options.get("run_immediately", True) is not False


def _spoken(record: TurnRecord) -> str:
    """What the coach said in a turn: its narration, then its reply."""
    return " ".join(t for t in (record.narration, record.reply) if t)


class PlaybackMonitor(FrameProcessor):
    """Last in a speech pipeline, after the output transport: reports each turn's playback.

    What comes out of the output transport has been sent to the player: the phrases' text
    (TTSTextFrame, after their audio), the turn's frames in order. A TurnCompletedFrame coming
    out means the reply was sent to its end; an interruption means the current turn was cut.
    Either is reported upstream to the SessionRecorder as a PlaybackFrame.
    """

    def __init__(self, on_heard: Callable[[int, str], object] | None = None) -> None:
        # Direct mode: each frame is handled as the output transport sends it. Queued, an
        # interruption (a system frame) would overtake the turn's TurnCompletedFrame still waiting
        # here and report a reply the player heard to its end as cut.
        super().__init__(enable_direct_mode=True)
        self._turn: int | None = None
        self._heard: list[str] = []
        self._reported = True
        # Told what the player has heard of the current turn so far: a connection that ends
        # mid-reply stores the turn as cut with it (`Session.finish_turns`).
        self._on_heard = on_heard

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        if direction != FrameDirection.DOWNSTREAM:
            return
        if isinstance(frame, TurnFrame) and frame.turn_index != self._turn:
            self._turn, self._heard, self._reported = frame.turn_index, [], False
        if isinstance(frame, TTSTextFrame) and frame.text.strip():
            self._heard.append(frame.text.strip())
            if self._on_heard is not None and self._turn is not None and not self._reported:
                self._on_heard(self._turn, " ".join(self._heard))
        elif isinstance(frame, TurnCompletedFrame) and frame.turn_index == self._turn:
            await self._report(to_end=True)
        elif isinstance(frame, InterruptionFrame):
            await self._report(to_end=False)

    async def _report(self, to_end: bool) -> None:
        if self._turn is None or self._reported:
            if not to_end:  # nothing of the stopped reply got here: the recorder still needs to know
                await self.push_frame(PlaybackFrame(turn_index=-1, to_end=False), FrameDirection.UPSTREAM)
            return
        self._reported = True
        heard = " ".join(self._heard)
        await self.push_frame(
            PlaybackFrame(turn_index=self._turn, heard=heard, to_end=to_end), FrameDirection.UPSTREAM
        )
