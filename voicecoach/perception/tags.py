"""W1's tag stream (paper §4, A.1): the events of one turn and the parser that produces them.

One streaming LLM call per turn emits, in this order::

    <INTENT>label</INTENT><SUB_INTENT>label</SUB_INTENT><NARRATION>text</NARRATION><PLAN>calls</PLAN>

`TagStreamParser` turns that token stream into events as it arrives: NARRATION text goes out
as deltas (to TTS) the moment it cannot be part of a tag; a malformed stream yields `FormatError`
events, never an exception. The events are what `voicecoach.perception.kernel.W1Decision`
consumes. Its own module because the parser is a self-contained state machine with its own
chunking-invariance tests; pure Python, nothing here imports Pipecat.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True)
class IntentClosed:
    label: str


@dataclass(frozen=True)
class SubIntentClosed:
    label: str


@dataclass(frozen=True)
class NarrationDelta:
    text: str


@dataclass(frozen=True)
class NarrationClosed:
    pass


@dataclass(frozen=True)
class PlanClosed:
    text: str


@dataclass(frozen=True)
class FormatError:
    reason: str


W1Event = IntentClosed | SubIntentClosed | NarrationDelta | NarrationClosed | PlanClosed | FormatError


def merge_deltas(events: Iterable[W1Event]) -> list[W1Event]:
    """Merge runs of consecutive NarrationDeltas into one.

    The parser's only chunking-dependent freedom is where narration text is cut into deltas;
    after this merge the event list of a stream is the same however the stream was chunked.
    """
    out: list[W1Event] = []
    for ev in events:
        if isinstance(ev, NarrationDelta) and out and isinstance(out[-1], NarrationDelta):
            out[-1] = NarrationDelta(out[-1].text + ev.text)
        else:
            out.append(ev)
    return out


# --- tag-stream parser -------------------------------------------------------------------------

SECTIONS = ("INTENT", "SUB_INTENT", "NARRATION", "PLAN")  # the required order
MAX_LABEL_CHARS = 64
MAX_PLAN_CHARS = 4000
MAX_TAG_CHARS = 40  # a '<' not closed as a tag within this many chars is plain text
_NAME_ALIASES = {"SUBINTENT": "SUB_INTENT"}

# A tag is '<', optional '/', a name, '>', with whitespace allowed around each part.
_TAG = re.compile(r"<\s*(/)?\s*([A-Za-z_][A-Za-z0-9_-]*)\s*>")
# ...and this matches any text that could still grow into a tag (checked only at buffer end).
_TAG_PREFIX = re.compile(r"<\s*(?:/\s*)?(?:[A-Za-z_][A-Za-z0-9_-]*\s*)?\Z")


@dataclass(frozen=True)
class _Tag:
    name: str  # upper-cased, aliases resolved
    closing: bool
    end: int  # index just past '>' in the buffer

    @property
    def known(self) -> bool:
        return self.name in SECTIONS

    def __str__(self) -> str:
        return f"<{'/' if self.closing else ''}{self.name}>"


class _NeedMore:
    """Marker: the text at '<' may still become a tag; wait for the next chunk."""


_NEED_MORE = _NeedMore()


def _match_tag(buf: str, final: bool) -> _Tag | _NeedMore | None:
    """Classify the text at buf[0] == '<': a tag, _NEED_MORE, or None (plain text).

    The answer depends only on the first MAX_TAG_CHARS characters, so it is the same however
    the stream was chunked; at end of stream (`final`) an unfinished prefix is plain text.
    """
    m = _TAG.match(buf)
    if m and m.end() <= MAX_TAG_CHARS:
        name = m.group(2).upper().replace("-", "_")
        return _Tag(_NAME_ALIASES.get(name, name), bool(m.group(1)), m.end())
    if not final and len(buf) < MAX_TAG_CHARS and _TAG_PREFIX.match(buf):
        return _NEED_MORE
    return None


def normalise_label(raw: str) -> str:
    """' Fill Slot ' -> 'fill_slot': stripped, lowercased, whitespace and '-' runs -> '_'."""
    return re.sub(r"[\s-]+", "_", raw.strip().lower())


class ParserState(Enum):
    BETWEEN = "between"  # outside any tag: only whitespace is expected here
    INTENT = "intent"
    SUB_INTENT = "sub_intent"
    NARRATION = "narration"
    PLAN = "plan"
    SKIPPING = "skipping"  # inside an unknown, duplicate or out-of-order tag: content dropped


class TagStreamParser:
    """Incremental parser for one W1 response. Never raises; deviations become FormatErrors.

    Rules (each deviation yields one FormatError and parsing goes on):
    - tag names are case-insensitive and may contain whitespace: ``< intent >``, ``</Intent >``;
    - sections are accepted in the order INTENT, SUB_INTENT, NARRATION, PLAN; a skipped one is
      reported missing when the next one opens; a section that comes after a later one (out of
      order) or a second time (duplicate: the first value wins) is skipped with its content;
    - an unknown tag ``<FOO>`` between sections is skipped with its content; inside a section
      the unknown tag itself is dropped; a ``<`` that does not form a tag ("HP < 50") is text;
    - a known tag inside a section that is not its closing tag closes the section first;
    - non-whitespace text between sections is reported once per stream and dropped;
    - labels longer than MAX_LABEL_CHARS and plans longer than MAX_PLAN_CHARS are truncated.
    """

    def __init__(self) -> None:
        self.state = ParserState.BETWEEN
        self._buf = ""  # unconsumed input: at most a possible tag prefix between feeds
        self._events: list[W1Event] = []
        self._delta = ""  # narration text not yet emitted as a NarrationDelta
        self._narration_started = False  # leading whitespace of NARRATION is dropped
        self._section_text = ""  # raw text of the current label or PLAN section (bounded)
        self._section_overflow = False
        self._skipping: str = ""  # name of the tag being skipped in SKIPPING
        self._seen: set[str] = set()  # sections opened (accepted) so far
        self._reported_missing: set[str] = set()
        self._furthest = -1  # index in SECTIONS of the latest section opened
        self._stray_reported = False
        self._finished = False

    # -- public API --

    def feed(self, chunk: str) -> list[W1Event]:
        """Consume a chunk; return the events it completes (possibly none)."""
        if self._finished:
            return [FormatError("text after end of stream ignored")] if chunk else []
        self._buf += chunk
        self._run(final=False)
        return self._take()

    def finish(self) -> list[W1Event]:
        """End of stream: flush held text, close an open section, report missing sections."""
        if self._finished:
            return []
        self._run(final=True)
        if self.state is ParserState.SKIPPING:
            self._emit(FormatError(f"<{self._skipping}> not closed at end of stream"))
        elif self.state is not ParserState.BETWEEN:
            open_section = self.state.name
            self._close_section()
            self._emit(FormatError(f"<{open_section}> not closed at end of stream"))
        for name in SECTIONS:
            if name not in self._seen and name not in self._reported_missing:
                self._emit(FormatError(f"missing <{name}>"))
        self.state = ParserState.BETWEEN
        self._finished = True
        return self._take()

    # -- the state machine --

    def _run(self, final: bool) -> None:
        while self._buf:
            lt = self._buf.find("<")
            if lt != 0:
                text = self._buf if lt < 0 else self._buf[:lt]
                self._buf = "" if lt < 0 else self._buf[lt:]
                self._on_text(text)
                continue
            tag = _match_tag(self._buf, final)
            if isinstance(tag, _NeedMore):
                break  # hold back only this possible tag prefix
            if tag is None:
                self._buf = self._buf[1:]
                self._on_text("<")
                continue
            self._buf = self._buf[tag.end :]
            self._on_tag(tag)
        self._flush_delta()

    def _on_text(self, text: str) -> None:
        st = self.state
        if st is ParserState.BETWEEN:
            if text.strip() and not self._stray_reported:
                self._stray_reported = True
                self._emit(FormatError("text outside tags ignored"))
        elif st is ParserState.NARRATION:
            if not self._narration_started:
                text = text.lstrip()
                self._narration_started = bool(text)
            self._delta += text
        elif st in (ParserState.INTENT, ParserState.SUB_INTENT, ParserState.PLAN):
            # Keep a little more than the limit so the overflow is still detected after strip().
            limit = MAX_PLAN_CHARS if st is ParserState.PLAN else 4 * MAX_LABEL_CHARS
            room = limit - len(self._section_text)
            if len(text) > room:
                self._section_overflow = True
            self._section_text += text[: max(room, 0)]
        # SKIPPING: content is dropped

    def _on_tag(self, tag: _Tag) -> None:
        st = self.state
        if st is ParserState.BETWEEN:
            if tag.known and not tag.closing:
                self._open_section(tag.name)
            elif tag.known:
                self._emit(FormatError(f"unexpected {tag} ignored"))
            elif not tag.closing:
                self._emit(FormatError(f"unknown tag {tag} ignored with its content"))
                self._skip(tag.name)
            else:
                self._emit(FormatError(f"unknown tag {tag} ignored"))
        elif st is ParserState.SKIPPING:
            if tag.closing and tag.name == self._skipping:
                self.state = ParserState.BETWEEN
            elif tag.known:
                # A section tag ends the skip, so an unclosed <FOO> cannot swallow the PLAN.
                self._emit(FormatError(f"<{self._skipping}> not closed before {tag}"))
                self.state = ParserState.BETWEEN
                self._on_tag(tag)
        else:  # inside a section
            if tag.closing and tag.name == st.name:
                self._close_section()
            elif tag.known:
                self._emit(FormatError(f"<{st.name}> not closed before {tag}"))
                self._close_section()
                self._on_tag(tag)
            else:
                self._emit(FormatError(f"unknown tag {tag} inside <{st.name}> dropped"))

    def _open_section(self, name: str) -> None:
        index = SECTIONS.index(name)
        if name in self._seen:
            self._emit(FormatError(f"duplicate <{name}> ignored (first value wins)"))
            self._skip(name)
            return
        if index < self._furthest:
            self._emit(FormatError(f"<{name}> after <{SECTIONS[self._furthest]}> ignored (out of order)"))
            self._skip(name)
            return
        for missing in SECTIONS[self._furthest + 1 : index]:
            if missing not in self._seen:
                self._reported_missing.add(missing)
                self._emit(FormatError(f"missing <{missing}> before <{name}>"))
        self._furthest = index
        self._seen.add(name)
        self._section_text = ""
        self._section_overflow = False
        self.state = ParserState[name]

    def _close_section(self) -> None:
        st = self.state
        if st is ParserState.NARRATION:
            self._emit(NarrationClosed())
        elif st is ParserState.PLAN:
            if self._section_overflow:
                self._emit(FormatError(f"PLAN longer than {MAX_PLAN_CHARS} chars truncated"))
            self._emit(PlanClosed(self._section_text.strip()))
        elif st in (ParserState.INTENT, ParserState.SUB_INTENT):
            label = normalise_label(self._section_text)
            if self._section_overflow or len(label) > MAX_LABEL_CHARS:
                self._emit(FormatError(f"{st.name} label longer than {MAX_LABEL_CHARS} chars truncated"))
                label = label[:MAX_LABEL_CHARS]
            if not label:
                self._emit(FormatError(f"empty {st.name} label"))
            self._emit(IntentClosed(label) if st is ParserState.INTENT else SubIntentClosed(label))
        self.state = ParserState.BETWEEN

    def _skip(self, name: str) -> None:
        self._skipping = name
        self.state = ParserState.SKIPPING

    # -- event plumbing: narration text always goes out before whatever follows it --

    def _emit(self, event: W1Event) -> None:
        self._flush_delta()
        self._events.append(event)

    def _flush_delta(self) -> None:
        if self._delta:
            self._events.append(NarrationDelta(self._delta))
            self._delta = ""

    def _take(self) -> list[W1Event]:
        events, self._events = self._events, []
        return events


def parse_stream(chunks: Iterable[str]) -> list[W1Event]:
    """Feed all chunks and finish; convenience for tests and offline replay."""
    parser = TagStreamParser()
    events: list[W1Event] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    return events + parser.finish()
