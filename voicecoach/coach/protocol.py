"""The live coach's wire protocol: every JSON message a game and the coach server exchange.

The server (`pipelines/server.py`) speaks Pipecat's conventions so that the official Pipecat
clients connect as they are: one websocket, binary messages that are Pipecat protobuf frames
(`ProtobufFrameSerializer`: `audio` frames carry 16-bit PCM both ways, `message` frames carry
JSON), and the JSON is RTVI (`{"label": "rtvi-ai", "type": ..., "id": ..., "data": ...}`).
The coach's own messages ride on RTVI's extension points:

- game → coach: RTVI `client-message` with `data = {"t": <request type>, "d": <payload>}`,
  answered by a `server-response` (same id, `{"t", "d"}`) or an `error-response` (same id);
- coach → game: RTVI `server-message` whose `data` is one `ServerEvent` (discriminated by
  `type`), next to Pipecat's standard RTVI events (`user-transcription`, `bot-llm-text`,
  `bot-started-speaking`, ...).

Errors that answer no request (a frame that does not parse, a message too large) are RTVI
`error` messages. Every error text starts with an `ErrorCode` and a colon, so a program can
tell the cases apart and a person can read the rest.

This module is pure pydantic (no Pipecat import): the server, `voicecoach.app.client` and the
tests share it, and `python -m voicecoach.coach.protocol_doc --write` renders its models as the message
reference of docs/PROTOCOL.md.

Why one module of ~600 lines: the wire protocol is one pydantic model tree (the RTVI envelopes carry
the coach's requests and the `ServerEvent` union) that the server, the client and the tests import
together and `protocol_doc` renders as one reference; the rest is the small parsing guard around
it. It would split at the RTVI envelopes, apart from the coach's own requests and events.
"""

from __future__ import annotations

import json
import re
from enum import IntEnum
from typing import Annotated, Any, ClassVar, Final, Literal

import numpy as np
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidationError,
    model_serializer,
    model_validator,
)

from voicecoach.core.state import FactSlots, IntentContext

RTVI_LABEL: Final = "rtvi-ai"
# The RTVI version our clients declare in client-ready (the server also serves 1.x clients).
RTVI_VERSION = "2.2.0"
# The coach protocol on top of RTVI; bumped when a message below changes incompatibly.
PROTOCOL_VERSION = "1.0"

# Audio on the wire, both ways: 16-bit little-endian PCM, mono, in protobuf `audio` frames.
INPUT_SAMPLE_RATE = 16000  # what the coach listens at (Silero VAD and Whisper run at 16 kHz)
# What the coach speaks at: the rate Pipecat's JS media managers play (their player is fixed
# at 24 kHz), so the stock JS transport plays it as it is; the server resamples TTS to it.
OUTPUT_SAMPLE_RATE = 24000
OUTPUT_FRAME_MS = 100  # the coach's voice arrives in frames this long, paced in real time


class CloseCode(IntEnum):
    """Websocket close codes the server uses (4000-4999 are the application's range)."""

    NORMAL = 1000
    GOING_AWAY = 1001  # the server shuts down
    POLICY = 1008  # too many invalid messages in a row
    TOO_BIG = 1009  # a message over the hard size cap (the connection cannot continue)
    # The server is starting, or full (its session cap), or a session's older connection did
    # not close in time for a takeover: retry later.
    TRY_AGAIN_LATER = 1013
    BAD_REQUEST = 4400  # a malformed session id
    UNAUTHORIZED = 4401  # no token, or a wrong one
    FORBIDDEN_ORIGIN = 4403  # a browser page from an origin that is not allowed
    HANDSHAKE_TIMEOUT = 4408  # no RTVI client-ready within the handshake timeout
    TAKEN_OVER = 4409  # a newer connection took this session over
    IDLE = 4410  # no message from the client within the idle timeout


ErrorCode = Literal[
    "bad-json",  # a message frame whose payload is not JSON
    "bad-message",  # JSON that is not a valid message of this protocol
    "unknown-type",  # a client-message type the coach does not handle
    "bad-state",  # a state update that does not validate (the previous state is kept)
    "bad-audio",  # an audio frame the coach cannot listen to (rate, channels, length)
    "bad-frame",  # bytes that are not a Pipecat protobuf frame, or a frame kind clients may not send
    "too-large",  # a message over the size limit (dropped; the connection goes on)
    "store-unavailable",  # the session store did not take a write: nothing changed, retry later
    "closed",  # an RTVI error just before the server closes the websocket: "closed: <code> <reason>"
]


def error_text(code: ErrorCode, message: str) -> str:
    return f"{code}: {message}"


_CODE = re.compile(r"^([a-z][a-z-]*): ")


def error_code(text: str) -> str | None:
    """The ErrorCode an error text starts with, if any (RTVI's own errors have none)."""
    match = _CODE.match(text)
    return match.group(1) if match else None


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- the game's state, as the game sends it ------------------------------------------------------


class GameSnapshot(_Model):
    """A full snapshot of what the game knows (the `snapshot` of a state update).

    The game owns `ic` (the match) and `fs` (inventory, level); the session history and the
    static slice belong to the coach and are ignored if sent. `stale: true` marks a snapshot
    the game knows to be old: the coach then takes no early tool path on it.
    """

    ic: IntentContext = Field(default_factory=IntentContext)
    fs: FactSlots = Field(default_factory=FactSlots)
    stale: bool = False


class StateInfo(_Model):
    """The coach's view of the game state after an update (what the next turn will read)."""

    version: int = Field(description="bumped by every accepted update")
    ic: IntentContext
    fs: FactSlots
    stale: bool = False


# --- game → coach: the `d` of RTVI client-message, by its `t` ------------------------------------


class StateUpdate(_Model):
    """`t: "state-update"`: a full snapshot, or a JSON merge patch (RFC 7386) over the current state.

    Exactly one of the two. A bad update is refused with `bad-state` naming the field, and
    the previous state is kept. Answer: the new `StateInfo`.
    """

    snapshot: dict[str, Any] | None = Field(default=None, description="a GameSnapshot")
    patch: dict[str, Any] | None = Field(default=None, description="a JSON merge patch of a GameSnapshot")

    @model_validator(mode="after")
    def _one_of(self) -> StateUpdate:
        if (self.snapshot is None) == (self.patch is None):
            raise ValueError("give exactly one of 'snapshot' and 'patch'")
        return self


class GetState(_Model):
    """`t: "get-state"` (no payload). Answer: the current `StateInfo`."""


class PushToTalk(_Model):
    """`t: "ptt"`: push-to-talk. `talking: false` says the player let go of the talk key: the
    coach treats it as the end of speech at once instead of waiting for the VAD's silence.
    Answer: `{"ok": true}`."""

    talking: bool


ClientRequest = StateUpdate | GetState | PushToTalk
REQUEST_TYPES: dict[str, type[StateUpdate] | type[GetState] | type[PushToTalk]] = {
    "state-update": StateUpdate,
    "get-state": GetState,
    "ptt": PushToTalk,
}


class ProtocolError(ValueError):
    """A message that breaks the protocol; `text` is what the client is told."""

    def __init__(self, code: ErrorCode, message: str, request_id: str | None = None):
        super().__init__(error_text(code, message))
        self.code = code
        self.message = message
        self.text = error_text(code, message)
        self.request_id = request_id  # the id of the request it answers, if it had one


def describe(err: ValidationError) -> str:
    """A validation error as `field.path: what is wrong; ...` (what a client is told)."""
    parts = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "<root>"
        parts.append(f"{loc}: {e['msg']}")
    return "; ".join(parts)


# How deep a client's JSON may nest. The deepest real message (a state update's snapshot:
# data.d.snapshot.fs.inventory.owned[i]...) is ~10; json.loads recurses once per level and
# raises RecursionError near 1000, which must never be reached.
MAX_JSON_DEPTH = 64
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')  # a string literal, unrolled (linear)
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{}')
_STEP = np.zeros(256, dtype=np.int32)  # per byte: +1 opens a level, -1 closes one
_STEP[[ord("["), ord("{")]] = 1
_STEP[[ord("]"), ord("}")]] = -1


def json_depth(text: str | bytes) -> int:
    """How deep the brackets of `text` nest, outside string literals, without parsing it.

    Linear and in C (bytes.translate and numpy; a regex when the text has escapes): it runs on
    every message before json.loads does, ~7 ms for a 0.6 MB state update. Strings are
    delimited as the parser delimits them, so the count is the parser's depth."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if b"\\" in raw:  # escaped quotes: each string literal becomes "" first
        raw = _JSON_STRING.sub(b'""', raw)
    # Only quotes and brackets matter: drop the rest (in C), then every quote opens or closes
    # a string, and a bracket outside one is a level.
    codes = np.frombuffer(raw.translate(None, _NOT_STRUCTURE), dtype=np.uint8)
    in_string = (np.cumsum(codes == ord('"'), dtype=np.int32) & 1).astype(bool)
    steps = np.where(in_string, 0, _STEP[codes])
    return int(np.cumsum(steps).max(initial=0))


def load_message(text: str | bytes) -> dict[str, Any]:
    """One JSON message from a client: its depth bounded before it is parsed, an object after.

    Raises ProtocolError: `bad-json` (not JSON, or nested over MAX_JSON_DEPTH) or `bad-message`
    (JSON that is not an object)."""
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise ProtocolError("bad-json", f"the JSON nests {depth} deep (at most {MAX_JSON_DEPTH})")
    try:
        message = json.loads(text)
    except json.JSONDecodeError as err:
        raise ProtocolError("bad-json", f"the message is not JSON ({err.msg} at {err.pos})") from None
    except (ValueError, RecursionError) as err:  # bytes that are not UTF-8; nesting past the bound
        raise ProtocolError("bad-json", f"the message is not JSON ({type(err).__name__}: {err})") from None
    if not isinstance(message, dict):
        kind = type(message).__name__
        raise ProtocolError("bad-message", f"a message must be a JSON object (an RTVI message), not {kind}")
    return message


# A JSON escape of a UTF-16 surrogate: only then can parsed JSON hold a string that is not valid
# Unicode (a lone surrogate, which no store or encoder takes). Searched before walking the message.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def lone_surrogate(message: dict[str, Any], text: str | bytes) -> str | None:
    """The dotted path of the first key or string of `message` (parsed from `text`) that is not
    valid UTF-8 (a lone surrogate such as "\\ud800"), or None. Linear in `text`, in C, for the
    messages without such an escape (all real ones but emoji)."""
    raw = text.decode("utf-8", "surrogatepass") if isinstance(text, bytes) else text
    if not _SURROGATE_ESCAPE.search(raw):
        return None

    def bad(s: str) -> bool:
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False

    stack: list[tuple[str, Any]] = [("", message)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str):
            if bad(node):
                return path or "<root>"
        elif isinstance(node, dict):
            for key, value in node.items():
                child = f"{path}.{key}" if path else str(key)
                if bad(str(key)):
                    return child.encode("utf-8", "backslashreplace").decode("ascii")
                stack.append((child, value))
        elif isinstance(node, list):
            stack.extend((f"{path}[{i}]", v) for i, v in enumerate(node))
    return None


_ID = re.compile(r'"id"\s*:\s*"([^"\\]{1,128})"')


def envelope_id(text: str | bytes, limit: int = 4096) -> str | None:
    """The `id` of an RTVI message that will not be parsed (too large), from its envelope: the
    text before its first nested object or list, or after its last one (RTVI clients write label,
    type and id around `data`). None when it is not found there: an `"id"` inside `data` (a unit's)
    is never taken for it."""
    raw = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    begin = raw.find("{")  # a protobuf frame's header comes before its JSON
    if begin < 0:
        return None
    head = raw[begin + 1 : begin + limit]
    cut = min((i for i in (head.find("{"), head.find("[")) if i >= 0), default=len(head))
    tail = raw[-limit:-1]
    start = max(tail.rfind("}"), tail.rfind("]")) + 1
    for part in (head[:cut], tail[start:] if start > 0 else ""):
        match = _ID.search(part)
        if match:
            return match.group(1)
    return None


def parse_request(t: str, d: Any) -> ClientRequest:
    """The request a client-message carries; ProtocolError (unknown-type / bad-message) if none."""
    model = REQUEST_TYPES.get(t)
    if model is None:
        known = ", ".join(sorted(REQUEST_TYPES))
        raise ProtocolError("unknown-type", f"client-message type {t!r} is not one of: {known}")
    try:
        return model.model_validate(d if d is not None else {})
    except ValidationError as err:
        raise ProtocolError("bad-message", f"{t}: {describe(err)}") from None


# --- coach → game: the `data` of RTVI server-message -------------------------------------------


class CreatureInfo(_Model):
    id: str
    name: str
    element: str
    role: str


class UnitInfo(_Model):
    id: str
    name: str
    attributes: dict[str, str] = Field(
        default_factory=dict, description="the unit kind's categorical attributes (a hero's role, style)"
    )


class KindInfo(_Model):
    plural: str = Field(description="how several are said (a UI's heading: heroes)")
    names: dict[str, str] = Field(description="entity id -> display name")


class PackInfo(_Model):
    """The pack's units, for pickers in a UI. A classic pack (pet_arena) lists its creatures; a
    pack with a schema.json lists its unit kind's entities in `units`, and `creatures` is empty."""

    # Left out of the JSON while unset, so a classic pack's message is what it was before them.
    OMIT_UNSET: ClassVar[frozenset[str]] = frozenset({"unit_kind", "units", "kinds"})

    id: str
    version: str
    creatures: list[CreatureInfo] = Field(description="the catalog, for pickers in a UI")
    unit_kind: str | None = Field(default=None, description="the pack's unit kind (strike_team: hero)")
    units: list[UnitInfo] | None = Field(default=None, description="that kind's catalog, by name")
    kinds: dict[str, KindInfo] | None = Field(
        default=None, description="every kind's plural and names: a UI shows the state's ids (a map) by name"
    )

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        for name in self.OMIT_UNSET:
            if data.get(name) is None:
                data.pop(name, None)
        return data


class AudioInfo(_Model):
    encoding: Literal["pcm_s16le"] = "pcm_s16le"
    channels: Literal[1] = 1
    input_sample_rate: int = Field(default=INPUT_SAMPLE_RATE, description="what the coach listens at")
    output_sample_rate: int = Field(default=OUTPUT_SAMPLE_RATE, description="what the coach speaks at")


class SessionEvent(_Model):
    """Sent once the client is ready (after `bot-ready`): the session this connection serves."""

    type: Literal["session"] = "session"
    protocol: str = PROTOCOL_VERSION
    session_id: str
    resumed: bool = Field(description="the store had this session: its state and history are back")
    turns: int = Field(description="turns completed in this session so far")
    took_over: bool = Field(default=False, description="an older connection to the session was closed")
    fence: int | None = Field(
        default=None,
        description="this connection's ownership of the session: it grows with every connection that"
        " opens the session, on any worker; an older connection's writes are refused",
    )
    state: StateInfo
    pack: PackInfo
    audio: AudioInfo = Field(default_factory=AudioInfo)
    max_message_bytes: int


class StateEvent(_Model):
    """The state changed (an accepted update); the next turn reads this."""

    type: Literal["state"] = "state"
    state: StateInfo


class _TurnEvent(_Model):
    turn_index: int
    t_ms: float = Field(description="ms since the end of the player's input (the turn's clock)")


class IntentEvent(_TurnEvent):
    """c1: W1's labels and what Φ made of them (`frozen`: tools dispatched at SUB_INTENT close)."""

    type: Literal["intent"] = "intent"
    utterance: str = Field(description="the question as the coach reads it: misheard names repaired")
    transcript: str = Field(default="", description="what speech-to-text wrote, before the repair")
    repaired: list[tuple[str, str]] = Field(
        default_factory=list, description="[misheard span, name] for each name the repair put back"
    )
    intent: str
    sub_intent: str
    branch: str
    outcome: str = Field(description="frozen | miss | degraded | format_error | llm_error")
    reason: str = ""


class ToolCallInfo(_Model):
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class ToolDispatchEvent(_TurnEvent):
    type: Literal["tool-dispatch"] = "tool-dispatch"
    source: str = Field(description="phi (early, at SUB_INTENT) | plan (fallback) | none")
    calls: list[ToolCallInfo]
    errors: list[str] = Field(default_factory=list)


class ToolOutcomeInfo(_Model):
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    ok: bool
    ms: float
    result: dict[str, Any] | None = None
    error: str | None = None


class ToolResultsEvent(_TurnEvent):
    type: Literal["tool-results"] = "tool-results"
    outcomes: list[ToolOutcomeInfo]


class ConflictInfo(_Model):
    constraint: str
    kind: str
    tier: str = Field(description="hard | soft | hint")
    satisfied: bool
    entity: str | None = None
    detail: str


class ParagraphInfo(_Model):
    type: str = Field(description="praise | apology | constraint_account | guidance | scene_flavor")
    constraints: list[str]
    polarity: int
    detail: str = ""


class GroundingEvent(_TurnEvent):
    """c2: the request's constraints judged against the inventory, and the reply's paragraph plan."""

    type: Literal["grounding"] = "grounding"
    conflicts: list[ConflictInfo]
    plan: list[ParagraphInfo]
    inventory_empty: bool = False
    slot_errors: list[str] = Field(default_factory=list)


class GuidanceInfo(_Model):
    guidance_type: str
    candidate_id: str
    text: str
    lineup_id: str | None = None


class InteractionEvent(_TurnEvent):
    """c3: which guidance this turn carries (or none), and what is still cooling down."""

    type: Literal["interaction"] = "interaction"
    branch: str
    guidance: GuidanceInfo | None
    cooling: list[str]
    abstain_reason: str | None = None


class TextEvent(_Model):
    """A piece of what the coach says, as it streams (the narration first, then the reply)."""

    type: Literal["text"] = "text"
    turn_index: int
    kind: Literal["narration", "reply"]
    text: str


class TurnCompletedEvent(_TurnEvent):
    """The turn finished (it was not interrupted) and is stored in the session's history."""

    type: Literal["turn-completed"] = "turn-completed"
    utterance: str
    intent: str
    sub_intent: str | None
    narration: str
    reply: str
    tools: list[str]
    guidance: str | None = Field(description="the W3 candidate the reply carried")
    latency: dict[str, float] = Field(description="milestone -> ms since the end of the player's input")


class TurnFailedEvent(_TurnEvent):
    """The turn's reply was not heard to the end; it is stored as not completed and its
    guidance goes on no cooldown. Sent after the turn's `turn-completed` (which says the reply
    was made, not that it was heard). `failed` names what stopped it: `reply` (the LLM was down,
    or its stream was cut or stalled: the player heard a fallback or a partial reply),
    `interrupted` (the player's own input cut it: they spoke over the reply, a barge-in, or typed
    a question run at once; nothing failed), `playback` (any other interruption stopped the
    reply's audio) or `closed` (the connection is ending before the turn did: a takeover, a
    shutdown, the session lost to another worker; sent just before the close); `heard` is what
    the player heard."""

    type: Literal["turn-failed"] = "turn-failed"
    failed: Literal["reply", "playback", "interrupted", "closed"]
    reason: str
    heard: str


class Stage(_Model):
    label: str
    ms: float


class LatencyEvent(_Model):
    """One turn's speech-to-first-audio and where it went, measured by the server.

    `origin` is when the player stopped speaking: the VAD's stop minus its silence window
    (`speech`), or when a typed question arrived (`text`). Milestones are ms since it;
    `stages` cut S2FA into consecutive parts that add up to it.
    """

    type: Literal["latency"] = "latency"
    turn_index: int
    origin: Literal["speech", "text"]
    s2fa_ms: float | None = Field(description="origin -> the first audible sample the server sent")
    milestones: dict[str, float]
    stages: list[Stage]


ServerEvent = Annotated[
    SessionEvent
    | StateEvent
    | IntentEvent
    | ToolDispatchEvent
    | ToolResultsEvent
    | GroundingEvent
    | InteractionEvent
    | TextEvent
    | TurnCompletedEvent
    | TurnFailedEvent
    | LatencyEvent,
    Field(discriminator="type"),
]
SERVER_EVENT: TypeAdapter[ServerEvent] = TypeAdapter(ServerEvent)


def parse_event(data: Any) -> ServerEvent:
    return SERVER_EVENT.validate_python(data)


# --- the RTVI envelopes ---------------------------------------------------------------------------


class _Envelope(BaseModel):
    # RTVI messages may grow fields; a client must not break on them.
    model_config = ConfigDict(extra="allow")

    label: Literal["rtvi-ai"] = RTVI_LABEL


class ClientReadyData(BaseModel):
    version: str = RTVI_VERSION
    about: dict[str, Any] = Field(default_factory=dict)


class ClientReady(_Envelope):
    """First message of a client: the server answers with `bot-ready` (same id), then `session`."""

    type: Literal["client-ready"] = "client-ready"
    id: str
    data: ClientReadyData = Field(default_factory=ClientReadyData)


class StateUpdateRequest(_Model):
    t: Literal["state-update"] = "state-update"
    d: StateUpdate


class GetStateRequest(_Model):
    t: Literal["get-state"] = "get-state"
    d: GetState | None = None


class PushToTalkRequest(_Model):
    t: Literal["ptt"] = "ptt"
    d: PushToTalk


class ClientMessage(_Envelope):
    """A coach request. Answered by `server-response` or `error-response` with the same id."""

    type: Literal["client-message"] = "client-message"
    id: str
    data: Annotated[StateUpdateRequest | GetStateRequest | PushToTalkRequest, Field(discriminator="t")]


class SendTextOptions(BaseModel):
    run_immediately: bool = True
    audio_response: bool = True


class SendTextData(BaseModel):
    content: str
    options: SendTextOptions | None = None


class SendText(_Envelope):
    """RTVI's typed input: the coach takes `content` as the player's utterance (a turn without audio)."""

    type: Literal["send-text"] = "send-text"
    id: str
    data: SendTextData


class DisconnectBot(_Envelope):
    """Ends the session's pipeline; the server then closes the websocket."""

    type: Literal["disconnect-bot"] = "disconnect-bot"
    id: str


class ServerMessage(_Envelope):
    type: Literal["server-message"] = "server-message"
    data: ServerEvent


class ResponseData(BaseModel):
    t: str = Field(description="the request type answered")
    d: Any = Field(description="StateInfo for state-update / get-state; {'ok': true} for ptt")


class ServerResponse(_Envelope):
    type: Literal["server-response"] = "server-response"
    id: str
    data: ResponseData


class ErrorResponseData(BaseModel):
    error: str = Field(description="'<ErrorCode>: <what went wrong>'")


class ErrorResponse(_Envelope):
    type: Literal["error-response"] = "error-response"
    id: str
    data: ErrorResponseData


class ErrorData(BaseModel):
    error: str = Field(description="'<ErrorCode>: <what went wrong>' (Pipecat's own errors have no code)")
    fatal: bool = False


class ErrorMessage(_Envelope):
    type: Literal["error"] = "error"
    data: ErrorData


class RTVIMessage(_Envelope):
    """Any RTVI message (Pipecat's standard events: `bot-ready`, `user-transcription`, ...)."""

    type: str
    id: str | None = None
    data: Any = None


def client_ready(msg_id: str = "client-ready", library: str = "voicecoach") -> dict[str, Any]:
    return ClientReady(id=msg_id, data=ClientReadyData(about={"library": library})).model_dump()


def client_message(msg_id: str, t: str, d: Any = None) -> dict[str, Any]:
    """A client-message envelope as a dict (not validated, so tests can send bad ones too)."""
    return {"label": RTVI_LABEL, "type": "client-message", "id": msg_id, "data": {"t": t, "d": d}}


def send_text(msg_id: str, content: str) -> dict[str, Any]:
    return SendText(id=msg_id, data=SendTextData(content=content)).model_dump(exclude_none=True)
