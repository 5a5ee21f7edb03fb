"""The runtime guard between the Talker and TTS: only sentences the checker passes are spoken.

A small model's reply streams in as deltas; the guard cuts it into sentences and judges each one
with the same kernel CoachBench scores replies with (`voicecoach.talker.checker.check_sentence`: speakable
and grounded in the live state), before any of it reaches TTS. A failing sentence is dropped and
its rule kept for the turn record; a loop or an exhausted word budget ends the reply, because
whatever a looping model says next is more of the same. When nothing of the reply passed, the
caller speaks the grounded realization of the paragraph plan instead (`voicecoach.talker.realizer`).

The narration is part of what the player hears, so it seeds `spoken`: the reply may not repeat it,
and the turn's word budget counts it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from voicecoach.domain.pack import Pack
from voicecoach.talker.checker import check_sentence
from voicecoach.talker.rules import CheckContext, Failure

# A sentence ends at . ! ? (or a newline) followed by white space; the last one at the stream's end.
_BOUNDARY = re.compile(r"(?<=[.!?])\s+|\n+")
# Rules after which nothing more of this reply is worth hearing.
ENDS_REPLY = frozenset({"loop", "too_long"})


@dataclass
class SentenceGuard:
    """One reply's guard: feed it the streamed deltas, speak what it returns."""

    pack: Pack
    context: CheckContext
    spoken: list[str] = field(default_factory=list)  # everything the player has heard this turn
    passed: list[str] = field(default_factory=list)  # the reply's sentences that were let through
    dropped: list[Failure] = field(default_factory=list)
    stopped: bool = False
    _pending: str = ""

    @classmethod
    def after_narration(cls, pack: Pack, context: CheckContext, narration: str) -> SentenceGuard:
        return cls(pack, context, spoken=[narration.strip()] if narration.strip() else [])

    def feed(self, delta: str) -> list[str]:
        """The complete sentences of `delta` (with what came before) that may be spoken now."""
        if self.stopped:
            return []
        self._pending += delta
        *complete, self._pending = _BOUNDARY.split(self._pending)
        return [s for s in (self._judge(c) for c in complete) if s is not None]

    def finish(self) -> list[str]:
        """The end of the stream: the last, unterminated sentence, if it passes."""
        rest, self._pending = self._pending, ""
        if self.stopped or not rest.strip():
            return []
        judged = self._judge(rest)
        return [judged] if judged is not None else []

    def _judge(self, sentence: str) -> str | None:
        sentence = " ".join(sentence.split())
        if not sentence or self.stopped:
            return None
        failures = check_sentence(self.pack, sentence, self.context, self.spoken)
        if failures:
            self.dropped.extend(failures)
            self.stopped = any(f.rule in ENDS_REPLY for f in failures)
            return None
        self.spoken.append(sentence)
        self.passed.append(sentence)
        return sentence

    def drops_by_rule(self) -> dict[str, int]:
        return dict(sorted(Counter(f.rule for f in self.dropped).items()))
