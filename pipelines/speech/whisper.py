"""The embedded Whisper model, its encoder window fitted to the segment.

Whisper's encoder reads a 30 s window: faster-whisper pads a segment's log-Mel features with zeros
to 3000 frames and encodes them all. For a 3 s command, nine tenths of the encoder's work (about
85 % of a decode's CPU on tiny.en) is padding. CTranslate2's encoder takes a shorter window;
`FittedWindowWhisper` hands it the segment and at least `min_padding_s` of its padding, in steps of
`step_s` (10 s for the commands a player speaks), up to the full 30 s. Everything else (greedy
decoding, the temperature fallback, the no-speech skip, the prompt) is faster-whisper's own code.

A window just longer than the speech makes tiny.en repeat itself ("What do tanks actually do? What
do tanks actually do? ..." with 1 s of padding); with 5 s and more it does not. Measured on the 48
fixture utterances (docs/BENCHMARKS.md, "Load"): mean WER 0.136 with the 30 s window,
0.115 with 10 s; the intent prior's pair and the linked entities on the transcripts as good or better.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
from faster_whisper import WhisperModel

FULL_WINDOW = 3000  # frames: Whisper's 30 s at 100 frames a second


class DecodeAbandoned(Exception):
    """The caller gave the decode up (`abandonable`): its transcript would be thrown away."""


_abandon = threading.local()  # this thread's decode's event, set once nobody wants its words


@contextlib.contextmanager
def abandonable(event: threading.Event | None) -> Iterator[None]:
    """Decodes run in this block (on this thread) stop before their next CTranslate2 `generate`
    once `event` is set, raising DecodeAbandoned. A snippet Whisper is unsure of goes through the
    configured fallback temperatures (`STTConfig.temperatures`), one `generate` each; a
    transcription begun at a pause the player then spoke through is given up between two."""
    _abandon.event = event
    try:
        yield
    finally:
        _abandon.event = None


class _Abandonable:
    """CTranslate2's Whisper as faster-whisper uses it, but `generate` checks `abandonable`'s event."""

    def __init__(self, model: Any):
        self._model = model

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def generate(self, *args: Any, **kwargs: Any) -> Any:
        event = getattr(_abandon, "event", None)
        if event is not None and event.is_set():
            raise DecodeAbandoned
        return self._model.generate(*args, **kwargs)


class FittedWindowWhisper(WhisperModel):
    """faster-whisper's WhisperModel whose encoder reads only the window a segment needs, and
    whose decodes can be given up between two fallback temperatures (`abandonable`).

    faster-whisper calls `encode` once per 30 s window, on features zero-padded to 3000 frames
    (`pad_or_trim`); the zero columns after the last non-zero one are that padding (a log-Mel
    column of real audio, silence included, is never all zeros: faster-whisper normalises the log
    spectrum to (log10 + 4) / 4, floored at 8 below its maximum).
    """

    def __init__(self, *args: Any, step_s: float = 10.0, min_padding_s: float = 5.0, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.step = max(1, round(step_s * 100))
        self.min_padding = max(0, round(min_padding_s * 100))
        self.model: _Abandonable = _Abandonable(self.model)  # faster-whisper's CTranslate2 model

    def encode(self, features: np.ndarray) -> Any:
        if self.step >= FULL_WINDOW or features.shape[-1] != FULL_WINDOW:
            return super().encode(features)
        columns = np.flatnonzero(np.any(features.reshape(-1, FULL_WINDOW) != 0, axis=0))
        content = int(columns[-1]) + 1 if columns.size else 0
        window = fitted_window(content, self.step, self.min_padding)
        return super().encode(np.ascontiguousarray(features[..., :window]))


def fitted_window(content: int, step: int, min_padding: int) -> int:
    """Frames the encoder reads for `content` frames of audio: the content and at least
    `min_padding` frames of padding, rounded up to a `step`, at most the full 30 s window."""
    return min(FULL_WINDOW, math.ceil((content + min_padding) / step) * step)
