"""W1's PLAN section read into tool calls (paper §4, A.5): `parse_plan` and `ToolCall`.

PLAN is the fallback path: when Φ misses (or the decision state is stale) the turn dispatches
the calls W1 wrote, as `tool_name(key=value, key2=[a, b])` lines. `parse_plan` is lenient and never
raises: a call it cannot read is dropped with the reason in `PlanParse.errors`. The grammar that
keeps a small model's PLAN readable is `voicecoach.perception.prompt.plan_gbnf_rules`; the
pe_agent planner parses its plans here too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any


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
