"""W1 Perception kernel (paper §4, A.1, A.5, C): tag-stream parser, Φ lookup, freeze decision.

One streaming LLM call per turn emits, in this order::

    <INTENT>label</INTENT><SUB_INTENT>label</SUB_INTENT><NARRATION>text</NARRATION><PLAN>calls</PLAN>

`TagStreamParser` turns that token stream into events as it arrives: NARRATION text goes out
as deltas (to TTS) the moment it cannot be part of a tag. `W1Decision` consumes the events of
one turn: when SUB_INTENT closes it looks up Φ(intent, sub_intent); on a hit whose decision
fields are fresh in the live state it *freezes* the tool set and dispatches at once, otherwise
it waits for PLAN (a Φ miss is a *fall-through*; missing/stale state is *degraded*). A later PLAN
never overrides a frozen set. `W1Turn` wires the two together for an actor.

Pure Python: nothing here imports Pipecat, so every rule is unit-testable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel

from voicecoach.core.state import LiveState, field_status, get_field
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import OUT_OF_DOMAIN, Pack, PhiEntry
from voicecoach.tools.registry import ToolError, ToolSpec, pack_tools, validate_args

# --- events ------------------------------------------------------------------------------------


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


# --- PLAN parsing ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCall:
    tool: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass
class PlanParse:
    calls: list[ToolCall] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


# Plans that say "no tools": not an error.
_EMPTY_PLANS = {"", "none", "no tools", "nothing", "n/a", "-", "[]"}
_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)\s*(?:\((.*)\))?", re.DOTALL)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*[=:]\s*")
_BARE_VALUE = re.compile(r"[^,\[\]\n]+")  # a bare value never spans lines


class _PlanSyntaxError(ValueError):
    pass


def _split_calls(text: str) -> list[str]:
    """Split at top-level ';' and newlines; brackets, braces, parens and quotes protect."""
    parts: list[str] = []
    cur: list[str] = []
    depth, quote = 0, ""
    for ch in text:
        if quote:
            # A quote never spans lines: a stray apostrophe cannot swallow the rest of the plan.
            quote = "" if ch in (quote, "\n") else quote
            if ch == "\n" and depth == 0:
                parts.append("".join(cur))
                cur = []
                continue
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(depth - 1, 0)
        elif ch in ";\n" and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip() and p.strip().lower() not in _EMPTY_PLANS]


class _ArgReader:
    """Recursive-descent reader for ``key=value, key2=[a, "b c", 3]``."""

    MAX_DEPTH = 8  # list nesting; deeper is an error, never a RecursionError

    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def args(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        self._ws()
        while self.pos < len(self.text):
            m = _KEY.match(self.text, self.pos)
            if not m:
                raise _PlanSyntaxError(f"expected key=value at {self.text[self.pos :]!r}")
            self.pos = m.end()
            out[m.group(1)] = self._value(0)
            self._ws()
            if self.pos < len(self.text):
                self._expect(",")
                self._ws()
        return out

    def _value(self, depth: int) -> Any:
        self._ws()
        if self.pos >= len(self.text):
            raise _PlanSyntaxError("missing value")
        ch = self.text[self.pos]
        if ch == "[":
            if depth >= self.MAX_DEPTH:
                raise _PlanSyntaxError("lists nested too deep")
            self.pos += 1
            items: list[Any] = []
            self._ws()
            while not self._peek("]"):
                items.append(self._value(depth + 1))
                self._ws()
                if not self._peek("]"):
                    self._expect(",")
                    self._ws()
            self.pos += 1
            return items
        if ch in "\"'":
            end = self.text.find(ch, self.pos + 1)
            if end < 0:
                raise _PlanSyntaxError("unterminated string")
            value = self.text[self.pos + 1 : end]
            self.pos = end + 1
            return value
        m = _BARE_VALUE.match(self.text, self.pos)
        if not m:
            raise _PlanSyntaxError(f"bad value at {self.text[self.pos :]!r}")
        self.pos = m.end()
        return _bare(m.group(0).strip())

    def _ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def _peek(self, ch: str) -> bool:
        if self.pos >= len(self.text):
            raise _PlanSyntaxError(f"expected {ch!r} before end")
        return self.text[self.pos] == ch

    def _expect(self, ch: str) -> None:
        if not self._peek(ch):
            raise _PlanSyntaxError(f"expected {ch!r} at {self.text[self.pos :]!r}")
        self.pos += 1


def _bare(word: str) -> Any:
    """A bare value: number, true/false, or the word itself as a string."""
    if re.fullmatch(r"[+-]?\d+", word):
        return int(word)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+)", word):
        return float(word)
    return {"true": True, "false": False}.get(word.lower(), word)


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):  # deep nesting must not escape as an exception
        return None


def _parse_call(text: str) -> ToolCall:
    text = _BULLET.sub("", text).strip()
    if text.startswith("{"):
        obj = _json_or_none(text)
        if obj is None:
            raise _PlanSyntaxError("not valid JSON")
        tool = obj.get("tool", obj.get("name")) if isinstance(obj, dict) else None
        args = obj.get("args", obj.get("arguments", {})) if isinstance(obj, dict) else None
        if isinstance(args, str):  # OpenAI style: "arguments" is itself a JSON string
            args = _json_or_none(args)
        if not isinstance(tool, str) or not isinstance(args, dict):
            raise _PlanSyntaxError('JSON call needs {"tool": str, "args": {...}}')
        return ToolCall(tool, args)
    m = _CALL.fullmatch(text)
    if not m:
        raise _PlanSyntaxError("expected tool_name(key=value, ...)")
    return ToolCall(m.group(1), _ArgReader(m.group(2) or "").args())


def parse_plan(text: str) -> PlanParse:
    """Parse a PLAN body into tool calls; a bad call becomes an error, never an exception.

    One call per line or separated by ';': ``tool_name(key=value, key2=[a, "b c"], n=3)``, or
    a JSON object ``{"tool": ..., "args": {...}}``, or a JSON list of such objects.
    """
    out = PlanParse()
    body = text.strip()
    if body.lower() in _EMPTY_PLANS:
        return out
    pieces: list[str] = _split_calls(body)
    items = _json_or_none(body) if body.startswith("[") else None
    if isinstance(items, list):  # a JSON list of calls, as chat models like to emit
        pieces = [json.dumps(item) for item in items]
    for piece in pieces:
        try:
            out.calls.append(_parse_call(piece))
        except _PlanSyntaxError as err:
            lines = [line.strip() for line in piece.splitlines() if line.strip()]
            if len(lines) == 1:
                out.errors.append(f"{piece[:80]!r}: {err}")
                continue
            # An unbalanced bracket joined several lines: read them one by one instead.
            for line in lines:
                try:
                    out.calls.append(_parse_call(line))
                except _PlanSyntaxError as line_err:
                    out.errors.append(f"{line[:80]!r}: {line_err}")
    return out


# --- Φ and the freeze decision -------------------------------------------------------------------


class PhiTable:
    """Φ: a partial function from registered (intent, sub_intent) pairs to tool uses (paper C)."""

    def __init__(self, entries: Iterable[PhiEntry]) -> None:
        self._entries: dict[tuple[str, str], PhiEntry] = {}
        for e in entries:
            self._entries.setdefault((e.intent, e.sub_intent), e)  # the pack loader rejects dups

    def lookup(self, intent: str, sub_intent: str) -> PhiEntry | None:
        return self._entries.get((intent, sub_intent))

    def __len__(self) -> int:
        return len(self._entries)

    def labels(self) -> dict[str, list[str]]:
        """intent -> its sub-intents, in table order."""
        out: dict[str, list[str]] = {}
        for intent, sub in self._entries:
            out.setdefault(intent, []).append(sub)
        return out


def registered_labels(pack: Pack) -> dict[str, list[str]]:
    """intent -> its sub-intents, in Φ-table order (for prompts and grammars)."""
    return PhiTable(pack.phi).labels()


Outcome = Literal["frozen", "miss", "degraded", "format_error"]


@dataclass
class W1Counters:
    """Session-level W1 counts; `fall_through_rate` is the paper's maintained metric (C, L4)."""

    turns: int = 0
    frozen: int = 0
    fall_through: int = 0  # Φ undefined for the pair: dispatch waited for PLAN
    degraded: int = 0  # Φ hit but decision state missing or stale: no early path
    plan_ignored: int = 0  # a PLAN that arrived after the tool set was frozen
    format_errors: int = 0  # turns whose stream had at least one FormatError

    @property
    def fall_through_rate(self) -> float:
        return self.fall_through / self.turns if self.turns else 0.0


@dataclass(frozen=True)
class Dispatch:
    """The tool set of one turn. A turn driven to `finish()` produces exactly one Dispatch."""

    calls: list[ToolCall]
    source: Literal["phi", "plan", "none"]  # none: the turn ended with nothing to dispatch
    frozen: bool = False
    errors: list[str] = field(default_factory=list)  # PLAN calls dropped, and why


# Returns the args normalised (e.g. names resolved to ids); raises ValueError to reject.
Validator = Callable[[str, dict[str, Any]], dict[str, Any]]


def tool_validator(pack: Pack) -> Validator:
    """`voicecoach.tools.registry.validate_args` against `pack`, for the tools `pack` declares (`pack_tools`:
    the ones W1's prompt and grammar list); a tool the pack does not declare is unknown, even one
    of the classic registry."""
    known = list(pack_tools(pack))

    def validate(name: str, args: dict[str, Any]) -> dict[str, Any]:
        if name not in known:
            raise ToolError(f"unknown tool {name!r}; known tools: {', '.join(known)}")
        return validate_args(name, args, pack)

    return validate


def _plain(value: Any) -> Any:
    """State values as plain JSON-like data, so tool args never carry live model objects."""
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def state_paths(value: Any) -> list[str]:
    """State paths an argument binds: '$a.b' -> ['a.b']; also '$...' items of a list."""
    if isinstance(value, str) and value.startswith("$"):
        return [value[1:]]
    if isinstance(value, list):
        return [v[1:] for v in value if isinstance(v, str) and v.startswith("$")]
    return []


def _bind(value: Any, state: LiveState) -> Any:
    if isinstance(value, str) and value.startswith("$"):
        return _plain(get_field(state, value[1:]))
    if isinstance(value, list):
        return [_bind(v, state) for v in value]
    return value


def decision_fields(entry: PhiEntry) -> list[str]:
    """The fields that must be fresh to freeze `entry`: its `requires` plus every bound argument
    (a bound argument is a decision field even if the table forgot to list it)."""
    bound = [p for use in entry.tools for v in use.args.values() for p in state_paths(v)]
    return list(dict.fromkeys(entry.requires + bound))


class W1Decision:
    """Φ lookup and freeze decision for one turn (paper §4, A.1, A.5).

    Feed it the parser's events: `on_sub_intent` when SUB_INTENT closes, `on_plan` when PLAN
    closes, `on_format_error` for each FormatError, `finish` at end of stream. The first call
    that has a tool set to dispatch returns it; every other call returns None.

        Φ hit, decision fields fresh   -> freeze: Dispatch(source="phi", frozen=True) at once
        Φ hit, a field missing / stale -> degraded: no early path, wait for PLAN
        Φ miss (unregistered pair)     -> fall-through: wait for PLAN
        PLAN after a freeze            -> ignored (a later PLAN never overrides a frozen set)

    `validate` checks and normalises each call: `tool_validator(pack)` for the turn's pack (there is
    no default pack: the kernel is told which game it serves). A Φ call it rejects disables the
    early path (degraded); a PLAN call it rejects is dropped with the reason in `Dispatch.errors`.
    """

    def __init__(
        self,
        phi: PhiTable,
        counters: W1Counters | None = None,
        *,
        max_age: int = 0,
        validate: Validator,
    ) -> None:
        self.phi = phi
        self.counters = counters if counters is not None else W1Counters()
        self.max_age = max_age  # turns a snapshot may lag the turn and still count as fresh
        self.validate = validate
        self.outcome: Outcome | None = None  # set by on_sub_intent, or by on_plan/finish if never called
        self.reason = ""  # why the early path was not taken
        self.entry: PhiEntry | None = None  # the Φ hit, if any
        self.dispatch: Dispatch | None = None
        self.plan_ignored = False
        self.errors: list[str] = []  # format errors and dropped calls, for the turn's log
        self._looked_up = False
        self._format_error_seen = False
        self._finished = False
        self.counters.turns += 1

    @property
    def frozen(self) -> bool:
        return self.dispatch is not None and self.dispatch.frozen

    def on_sub_intent(
        self, intent: str, sub_intent: str, state: LiveState, turn_index: int
    ) -> Dispatch | None:
        """T̂ = Φ(intent, sub_intent, s_ic); freeze and dispatch on a hit with fresh decision fields."""
        if self._looked_up or self.dispatch is not None:
            return None
        self._looked_up = True
        if not intent or not sub_intent:
            self.outcome = "format_error"  # a label is missing: Φ cannot be consulted
            self.reason = "intent or sub_intent label missing"
            return None
        entry = self.phi.lookup(intent, sub_intent)
        if entry is None:
            self.outcome = "miss"
            self.reason = f"Φ undefined for {intent}/{sub_intent}"
            self.counters.fall_through += 1
            return None
        self.entry = entry
        statuses = {
            path: field_status(state, path, turn_index, self.max_age) for path in decision_fields(entry)
        }
        unusable = [f"{path} {status}" for path, status in statuses.items() if status != "fresh"]
        if unusable:
            self._degrade("decision state " + ", ".join(unusable))
            return None
        calls: list[ToolCall] = []
        for use in entry.tools:
            args = {k: _bind(v, state) for k, v in use.args.items()}
            try:
                calls.append(ToolCall(use.tool, self.validate(use.tool, args)))
            except ValueError as err:  # e.g. a bound id the catalog no longer knows
                self._degrade(f"Φ call {use.tool} rejected: {err}")
                return None
        self.outcome = "frozen"
        self.counters.frozen += 1
        self.dispatch = Dispatch(calls, source="phi", frozen=True)
        return self.dispatch

    def on_plan(self, plan_text: str) -> Dispatch | None:
        """Fallback path: dispatch the PLAN's valid calls, unless the tool set is already frozen."""
        if self.frozen:
            self.plan_ignored = True
            self.counters.plan_ignored += 1
            return None
        if self.dispatch is not None:
            return None
        if self.outcome is None:
            self.outcome = "format_error"  # PLAN without SUB_INTENT: Φ was never consulted
        parsed = parse_plan(plan_text)
        errors = list(parsed.errors)
        calls: list[ToolCall] = []
        for call in parsed.calls:
            try:
                calls.append(ToolCall(call.tool, self.validate(call.tool, call.args)))
            except ValueError as err:  # unknown tool or bad args: drop this call only
                errors.append(f"{call.tool}: {err}")
        self.errors += errors
        self.dispatch = Dispatch(calls, source="plan", errors=errors)
        return self.dispatch

    def on_format_error(self, reason: str) -> None:
        if not self._format_error_seen:  # counted once per turn
            self._format_error_seen = True
            self.counters.format_errors += 1
        self.errors.append(f"format: {reason}")

    def finish(self) -> Dispatch | None:
        """End of turn. If nothing was dispatched (no PLAN after a miss, or a lost stream),
        dispatch the empty set so downstream never waits for tool results that will not come."""
        if self._finished:
            return None
        self._finished = True
        if self.outcome is None:
            self.outcome = "format_error"
        if self.dispatch is None:
            self.dispatch = Dispatch([], source="none")
            return self.dispatch
        return None

    def _degrade(self, reason: str) -> None:
        self.outcome = "degraded"
        self.reason = reason
        self.counters.degraded += 1


@dataclass(frozen=True)
class W1Step:
    events: list[W1Event]
    dispatch: Dispatch | None = None


class W1Turn:
    """Parser + decision for one turn: what a W1 actor drives with the LLM's token stream.

    `state` is a snapshot or a callable returning the latest one; it is read when SUB_INTENT
    closes, the moment Φ needs the decision fields to be fresh.
    """

    def __init__(
        self,
        phi: PhiTable,
        state: LiveState | Callable[[], LiveState],
        turn_index: int,
        counters: W1Counters | None = None,
        *,
        max_age: int = 0,
        validate: Validator,
    ) -> None:
        self.parser = TagStreamParser()
        self.decision = W1Decision(phi, counters, max_age=max_age, validate=validate)
        self._state = state
        self.turn_index = turn_index
        self.intent = ""

    def feed(self, chunk: str) -> W1Step:
        return self._route(self.parser.feed(chunk), final=False)

    def finish(self) -> W1Step:
        return self._route(self.parser.finish(), final=True)

    def _route(self, events: list[W1Event], final: bool) -> W1Step:
        dispatch: Dispatch | None = None
        for ev in events:
            got: Dispatch | None = None
            if isinstance(ev, IntentClosed):
                self.intent = ev.label
            elif isinstance(ev, SubIntentClosed):
                state = self._state if isinstance(self._state, LiveState) else self._state()
                got = self.decision.on_sub_intent(self.intent, ev.label, state, self.turn_index)
            elif isinstance(ev, PlanClosed):
                got = self.decision.on_plan(ev.text)
            elif isinstance(ev, FormatError):
                self.decision.on_format_error(ev.reason)
            dispatch = dispatch or got
        if final:
            dispatch = dispatch or self.decision.finish()
        return W1Step(events, dispatch)


# --- prompt and grammar ---------------------------------------------------------------------------

OTHER = OUT_OF_DOMAIN[0]  # the fallback label ("other"): always allowed, never in Φ, so it is a miss
# One short spoken sentence: the grammar admits at most NARRATION_MAX_WORDS words of at most
# GBNF_WORD_CHARS characters, and sentence-ending punctuation only at the end, so a small model
# that rambles or loops is cut off after ~12 words instead of talking over the answer.
NARRATION_MAX_WORDS = 12
GBNF_WORD_CHARS = 16
GBNF_NARRATION_CHARS = NARRATION_MAX_WORDS * (GBNF_WORD_CHARS + 1) + 1  # the bound this implies
GBNF_PLAN_CHARS = 600


def _tools(pack: Pack) -> dict[str, ToolSpec]:
    """The tools a prompt or grammar lists: the pack's as served (its game's tools.json included;
    for pet_arena the in-process registry, in the same order)."""
    return pack_tools(pack)


def _name_line(pack: Pack) -> str:
    """PLAN's argument hint: what a call names, by the unit and option kinds' nouns (pet: "use
    creature and skill names or ids"; a pack without an option kind: its unit's alone). A kind's
    noun is its name when the kind lists it among its nouns (pet's "creature", "skill"), else its
    first noun (a kind id "hero_unit" with nouns ["hero"]: "hero"), else the kind's name."""
    schema = pack.catalog.schema

    def noun(kind: str) -> str:
        nouns = schema.kinds[kind].nouns
        return kind if kind in nouns or not nouns else nouns[0]

    kinds = [k for k in (schema.kind("unit"), schema.kind("option")) if k is not None]
    return f"use {' and '.join(noun(k) for k in kinds)} names or ids"


def _tool_lines(pack: Pack) -> list[str]:
    lines = []
    for spec in _tools(pack).values():
        props = spec.parameters.get("properties", {})
        required = set(spec.parameters.get("required", []))
        args = ", ".join(name if name in required else f"{name}?" for name in props)
        lines.append(f"- {spec.name}({args}): {spec.description}")
    return lines


def w1_system_prompt(pack: Pack) -> str:
    """The W1 system prompt. A pure function of the pack and the tool registry, so it is
    byte-identical across turns and the LLM server can reuse its KV cache for it."""
    # One line per pair with what a player might say: on 120 CoachBench utterances SmolLM2-135M's
    # pair accuracy went 0.8 -> 10.8 % with these lines and the worked turns of `w1_messages`
    # (docs/BENCHMARKS.md, "W1 prompt").
    label_lines = [
        f"- {e.intent} {e.sub_intent}" + (f': "{e.example}"' if e.example else "") for e in pack.phi
    ]
    return "\n".join(
        [
            f"You are the listening stage of a voice coach for {pack.title}. {pack.persona}",
            "For each player utterance, output exactly these four tags, in this order, and nothing else:",
            "<INTENT>intent</INTENT><SUB_INTENT>sub_intent</SUB_INTENT>"
            "<NARRATION>short sentence</NARRATION><PLAN>tool calls</PLAN>",
            "",
            "INTENT and SUB_INTENT: one registered pair from the list below, written exactly as listed.",
            f'If the sub-intent is not listed, write "{OTHER}"; if no intent fits, write "{OTHER}" for both.',
            f"NARRATION: one short spoken sentence, at most {NARRATION_MAX_WORDS} words, that acknowledges "
            "the request (for example: Let me check your team against theirs.). Do not answer yet.",
            "PLAN: the tool calls needed to answer, one per line, as tool_name(key=value, key2=[a, b]); "
            f'{_name_line(pack)}; write "none" if no tool is needed.',
            "",
            "Registered intent and sub-intent pairs, each with what a player might say:",
            *label_lines,
            "",
            "Tools (? marks an optional argument):",
            *_tool_lines(pack),
        ]
    )


def w1_answer(intent: str, sub_intent: str, narration: str, plan: str) -> str:
    """W1's output for one turn, in the tag format its grammar allows."""
    return (
        f"<INTENT>{intent}</INTENT><SUB_INTENT>{sub_intent}</SUB_INTENT>"
        f"<NARRATION>{narration}</NARRATION><PLAN>{plan}</PLAN>"
    )


def w1_prefix(pack: Pack) -> list[dict[str, str]]:
    """The static part of every W1 call: the system prompt, then the pack's worked turns.

    The same for every utterance, so it stays in the server's KV cache (and is built once per actor).
    """
    messages = [{"role": "system", "content": w1_system_prompt(pack)}]
    for ex in pack.w1_examples:
        messages.append({"role": "user", "content": ex.utterance})
        messages.append(
            {"role": "assistant", "content": w1_answer(ex.intent, ex.sub_intent, ex.narration, ex.plan)}
        )
    return messages


def w1_messages(pack: Pack, utterance: str) -> list[dict[str, str]]:
    """The W1 call: `w1_prefix`, then the player's utterance."""
    return [*w1_prefix(pack), {"role": "user", "content": utterance}]


def _gbnf_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def w1_gbnf(pack: Pack) -> str:
    """llama.cpp GBNF constraining W1's output to the four tags, with (INTENT, SUB_INTENT)
    restricted to registered pairs plus the fallback "other" (a Φ miss, so PLAN decides)."""
    labels = {intent: list(subs) for intent, subs in registered_labels(pack).items()}
    labels.setdefault(OTHER, [])
    rules = ["root ::= head narration plan"]
    heads: list[str] = []
    pair_rules: list[str] = []
    for k, (intent, subs) in enumerate(labels.items()):
        name = f"pair-{k}"  # GBNF rule names allow only [a-zA-Z0-9-]; labels may hold '_'
        heads.append(name)
        alts = " | ".join(_gbnf_literal(s) for s in dict.fromkeys([*subs, OTHER]))
        pair_rules.append(
            f'{name} ::= {_gbnf_literal(f"<INTENT>{intent}</INTENT><SUB_INTENT>")} ( {alts} ) "</SUB_INTENT>"'
        )
    rules.append("head ::= " + " | ".join(heads))
    rules += pair_rules
    rules += ['narration ::= "<NARRATION>" narration-body', *_narration_and_plan_rules(pack)]
    return "\n".join(rules) + "\n"


def _narration_and_plan_rules(pack: Pack) -> list[str]:
    # Bounded repetitions: a small model that rambles is cut off instead of stalling the turn.
    # No '<' (the closing tag), no newline (one spoken line), '.!?' only at the sentence's end.
    return [
        f'narration-body ::= narration-word ( " " narration-word ){{0,{NARRATION_MAX_WORDS - 1}}} '
        '[.!?]? "</NARRATION>"',
        f"narration-word ::= [^<\\n .!?]{{1,{GBNF_WORD_CHARS}}}",
        'plan ::= "<PLAN>" plan-calls "</PLAN>"',
        *plan_gbnf_rules(pack),
    ]


def plan_gbnf_rules(pack: Pack) -> list[str]:
    """GBNF for PLAN's body: the pack's tools (`pack_tools`), each with only its own
    `key=value` arguments, or "none". Shared by W1's PLAN and the pe_agent planner, so a small
    model can only write calls `parse_plan` reads; values stay free text (validated after parsing).
    """
    tools = _tools(pack)
    rules = [
        'plan-calls ::= "none" | plan-call ( "; " plan-call ){0,3}',
        "plan-call ::= " + " | ".join(f"call-{k}" for k in range(len(tools))),
        'plan-value ::= "[" [^\\]()<;\\n]{0,120} "]" | [^,()<;\\n\\[\\]]{1,40}',
    ]
    for k, spec in enumerate(tools.values()):
        params = list(spec.parameters.get("properties", {}))
        if not params:
            rules.append(f"call-{k} ::= {_gbnf_literal(spec.name + '()')}")
            continue
        keys = " | ".join(_gbnf_literal(p + "=") for p in params)
        rules.append(
            f'call-{k} ::= {_gbnf_literal(spec.name + "(")} ( arg-{k} ( ", " arg-{k} ){{0,3}} )? ")"'
        )
        rules.append(f"arg-{k} ::= ( {keys} ) plan-value")
    return rules


# --- prefill: the intent prior's labels start W1's stream ------------------------------------------


def w1_prefill(intent: str, sub_intent: str) -> str:
    """The start of W1's answer when the intent prior is confident: both labels and the open
    NARRATION tag. Fed to the parser first (SUB_INTENT closes, Φ dispatches before the LLM's first
    token); the LLM continues the narration from there."""
    return f"<INTENT>{intent}</INTENT><SUB_INTENT>{sub_intent}</SUB_INTENT><NARRATION>"


def w1_prefill_messages(prefix: list[dict[str, str]], utterance: str, prefill: str) -> list[dict[str, str]]:
    """`w1_prefix` + the utterance + a final assistant message holding the prefill, which
    llama-server continues (the static prefix stays KV-cached as in `w1_messages`)."""
    return [*prefix, {"role": "user", "content": utterance}, {"role": "assistant", "content": prefill}]


def w1_continuation_gbnf(pack: Pack) -> str:
    """GBNF for the LLM's part after a prefill: narration body, </NARRATION>, then PLAN. The same
    for every pair (the labels are already written), so an actor builds it once."""
    return "\n".join(["root ::= narration-body plan", *_narration_and_plan_rules(pack)]) + "\n"


class PrefillEcho:
    """Strips the prefilled prefix from a continuation's streamed deltas, if the endpoint echoes it.

    llama-server's returned content repeats a prefilled assistant message before the continuation;
    other endpoints return only the continuation. Text is held back only while it is still a
    prefix of the prefill (so the echo may arrive split across any chunks); once it is known
    whether the echo is there, everything after it passes through unchanged.
    """

    def __init__(self, prefill: str) -> None:
        self.prefill = prefill
        self._held = ""
        self._decided = not prefill
        self.echoed = False

    def feed(self, delta: str) -> str:
        if self._decided:
            return delta
        self._held += delta
        if self._held.startswith(self.prefill):
            self._decided = self.echoed = True
            return self._held[len(self.prefill) :]
        if self.prefill.startswith(self._held):
            return ""  # still possibly the echo: wait for more
        self._decided = True  # no echo: the endpoint sent only the continuation
        return self._held

    def finish(self) -> str:
        """End of stream: a partial echo that never completed is continuation text after all."""
        held, self._held = ("" if self._decided else self._held), ""
        self._decided = True
        return held


@dataclass(frozen=True)
class W1Call:
    """One W1 request as an actor sends it: messages, grammar, and the prefill the parser is fed first.
    An actor's turn::

        call = w1_call(prefix, grammars, utterance, prior.prefill(utterance, previous=last_pair))
        step = turn.feed(call.prefill)  # labels -> SUB_INTENT closes -> Φ may dispatch now
        echo = call.echo()
        async for delta in llm.stream(call.messages, grammar=call.grammar):
            step = turn.feed(echo.feed(delta))
        step = turn.feed(echo.finish())
        step = turn.finish()
    """

    messages: list[dict[str, str]]
    grammar: str
    prefill: str = ""  # "" when the LLM labels the turn itself

    def echo(self) -> PrefillEcho:
        return PrefillEcho(self.prefill)


@dataclass(frozen=True)
class W1Grammars:
    """Both W1 grammars of a pack, built once per actor."""

    full: str  # labels + narration + plan (the LLM labels the turn)
    continuation: str  # narration + plan (after a prefill)

    @classmethod
    def of(cls, pack: Pack) -> W1Grammars:
        return cls(w1_gbnf(pack), w1_continuation_gbnf(pack))


def w1_call(
    prefix: list[dict[str, str]], grammars: W1Grammars, utterance: str, pair: tuple[str, str] | None
) -> W1Call:
    """The W1 request for `utterance`: prefilled with `pair` (the intent prior's confident labels),
    or without (pair None: the LLM labels as before)."""
    if pair is None:
        return W1Call([*prefix, {"role": "user", "content": utterance}], grammars.full)
    prefill = w1_prefill(*pair)
    return W1Call(w1_prefill_messages(prefix, utterance, prefill), grammars.continuation, prefill)


# --- narration: checked, with a pack phrase as the fallback -------------------------------------

_WORD = re.compile(r"[a-z0-9']+")
MAX_WORD_REPEATS = 2  # the same word three times in a row is a loop ("no, no, no")


def narration_problem(pack: Pack, utterance: str, narration: str) -> str | None:
    """Why `narration` must not be spoken, or None when it is usable.

    Rules: not empty; at most NARRATION_MAX_WORDS words; no catalog name that the utterance did
    not itself link (narration is spoken before any grounding); no loop: the same word more than
    MAX_WORD_REPEATS times in a row, or a repeated run of two or more words.
    """
    words = _WORD.findall(narration.lower())
    if not words:
        return "empty narration"
    if len(words) > NARRATION_MAX_WORDS:
        return f"{len(words)} words, more than {NARRATION_MAX_WORDS}"
    linked = {m.id for m in link_entities(pack, utterance)}
    for m in link_entities(pack, narration):
        if m.id not in linked:
            return f"names {m.surface!r}, which the player did not mention"
    run = 1
    for a, b in zip(words, words[1:], strict=False):
        run = run + 1 if a == b else 1
        if run > MAX_WORD_REPEATS:
            return f"loop: {a!r} repeated"
    for n in range(2, len(words) // 2 + 1):
        for i in range(len(words) - 2 * n + 1):
            if words[i : i + n] == words[i + n : i + 2 * n]:
                return f"loop: {' '.join(words[i : i + n])!r} repeated"
    return None


def narration_for(pack: Pack, intent: str, sub_intent: str, turn_index: int = 0) -> str:
    """The pack's narration phrase for the pair (narrations.json), to speak when W1's own narration
    is missing or fails `narration_problem`; rotates with the turn so repeats vary. A pair without
    phrases (or "other") gets the pack-independent FALLBACK_NARRATION."""
    entry = next((n for n in pack.narrations if (n.intent, n.sub_intent) == (intent, sub_intent)), None)
    if entry is None:
        return FALLBACK_NARRATION
    return entry.phrases[turn_index % len(entry.phrases)]


FALLBACK_NARRATION = "Let me check that for you."


def acknowledgement_for(pack: Pack, turn_index: int, before: str = "") -> str:
    """The pack's acknowledgement for the turn (templates.json; "" if it has none), rotating with
    the turn, and never the word `before` (a narration that may follow) opens with: no "Sure.
    Sure, building a team." """
    acks = pack.templates.acknowledgements
    first = before.split()[0].strip(",.!").lower() if before.split() else ""
    fits = [a for a in acks if a.split()[0].strip(",.!").lower() != first] or acks
    return fits[turn_index % len(fits)] if fits else ""
