"""The game-backend tools the coach may call, over a pack and a LiveState.

Three libraries, one interface. A pack's tool `name` is served (`tool_spec`), in this order:

- by its game over HTTP, when tools.json declares it so (`Pack.http_tools`; docs/PACKS.md): the
  same validation, then a POST to the game's endpoint;
- by its game's MCP server, when tools.json declares it so (`Pack.mcp_tools`): the same
  validation, then a tools/call (`voicecoach.tools.mcp`);
- by a builtin tool kind the pack instantiates in tools.json (`"builtin": "rank_matchup"`;
  `voicecoach.tools.builtin`), computed over the pack's catalog and the live state by role.

The in-process tools are pure and synchronous: `run_tool(pack, state, name, args)` validates the
arguments against the tool's JSON schema, resolves display names to catalog ids of the kind each
argument names, and returns a deterministic, JSON-serialisable dict. `ToolRunner` runs them all:
the in-process ones with the artificial latency of a remote game server (so the pipeline can
measure what the early tool path saves), the HTTP and MCP ones for real, each within its timeout. A tool
with side effects runs only when its caller says the turn is committed. Nothing here imports
Pipecat.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from voicecoach.core.state import LiveState, get_field
from voicecoach.domain.pack import HttpTool, McpTool, Pack
from voicecoach.tools.base import ToolError, ToolResult, ToolSpec
from voicecoach.tools.builtin import builtin_spec
from voicecoach.tools.mcp import McpConnection

if TYPE_CHECKING:
    from mcp.types import CallToolResult

__all__ = [
    "ToolError", "ToolResult", "ToolRunner", "ToolSpec", "pack_tools", "run_tool", "tool_spec",
    "validate_args",
]  # fmt: skip


def game_spec(tool: HttpTool | McpTool) -> ToolSpec:
    """The ToolSpec of a tool the game serves (tools.json, over HTTP or MCP): validated like the
    in-process ones."""
    return ToolSpec(
        tool.name,
        tool.description,
        tool.parameters.model_dump(exclude_none=True),
        None,
        dict(tool.entities),
        http=tool if isinstance(tool, HttpTool) else None,
        mcp=tool if isinstance(tool, McpTool) else None,
        side_effect=tool.side_effect,
    )


def tool_spec(pack: Pack, name: str) -> ToolSpec | None:
    """Tool `name` as `pack` has it served: its game's declaration (tools.json) when it has one,
    else the builtin kind tools.json instantiates under that name (None: the pack has no such tool)."""
    served = pack.game_tool(name)
    if served is not None:
        return game_spec(served)
    builtin = pack.builtin_tools.get(name)
    return builtin_spec(pack, builtin) if builtin is not None else None


def pack_tools(pack: Pack) -> dict[str, ToolSpec]:
    """The tools `pack` declares (manifest.json), in its order, as they are served; the prompts
    and grammars that list tools read this, so a game-served tool is one W1's PLAN can write."""
    specs = {name: tool_spec(pack, name) for name in pack.tools}
    return {name: spec for name, spec in specs.items() if spec is not None}


# --- validation and dispatch ------------------------------------------------------------


def _resolve(pack: Pack, kind: str, ref: str) -> str:
    """Catalog id of `kind` for an id, display name or alias (case-insensitive; pet's creatures:
    their stage names). An argument of a type kind may name a unit instead (an element argument:
    "Emberfox" for its element), which the tool reads as that unit's type."""
    catalog = pack.catalog
    spec, unit = catalog.schema.kinds.get(kind), catalog.schema.kind("unit")
    kinds = [kind, unit] if spec is not None and spec.role == "type" and unit is not None else [kind]
    key = ref.strip().lower()
    for k in kinds:
        found = catalog.by_name(k, key)
        if found is None and k in catalog.schema.kinds:
            aliases = catalog.schema.kinds[k].aliases
            found = next(
                (
                    e
                    for e in catalog.entities.get(k, {}).values()
                    if any(key in (a.lower() for a in e.value(field) or []) for field in aliases)
                ),
                None,
            )
        if found is not None:
            return found.id
    raise ToolError(f"unknown {' or '.join(kinds)} {ref!r}")


def _check_type(tool: str, key: str, value: Any, schema: dict[str, Any]) -> None:
    where = f"{tool}: argument {key!r}"
    kind = schema["type"]
    if kind == "string":
        if not isinstance(value, str):
            raise ToolError(f"{where} must be a string, got {type(value).__name__}")
        if "enum" in schema and value not in schema["enum"]:
            raise ToolError(f"{where} must be one of {schema['enum']}, got {value!r}")
    elif kind in ("integer", "number"):
        ok = isinstance(value, int) or (kind == "number" and isinstance(value, float))
        if not ok or isinstance(value, bool):
            raise ToolError(f"{where} must be {'an integer' if kind == 'integer' else 'a number'}, "
                            f"got {type(value).__name__}")  # fmt: skip
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            raise ToolError(f"{where} must be between {low} and {high}, got {value}")
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise ToolError(f"{where} must be true or false, got {type(value).__name__}")
    elif kind == "array":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ToolError(f"{where} must be a list of strings")
        if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)):
            raise ToolError(
                f"{where} must have {schema.get('minItems', 0)}-{schema.get('maxItems', 'any')} items"
            )


def validate_args(name: str, args: dict[str, Any], pack: Pack) -> dict[str, Any]:
    """Check `args` against tool `name`'s schema and return them with names resolved to ids.

    `pack` is the catalog names are resolved against.
    Raises ToolError naming the tool and the offending argument or entity.
    """
    spec = tool_spec(pack, name)
    if spec is None:
        known = dict.fromkeys([*pack.builtin_tools, *pack.http_tools, *pack.mcp_tools])
        raise ToolError(f"unknown tool {name!r}; known tools: {', '.join(known)}")
    if not isinstance(args, dict):
        raise ToolError(f"{name}: arguments must be an object, got {type(args).__name__}")
    props: dict[str, Any] = spec.parameters["properties"]
    unknown = sorted(set(args) - set(props))
    if unknown:
        raise ToolError(f"{name}: unknown argument(s) {unknown}")
    missing = [k for k in spec.parameters["required"] if k not in args]
    if missing:
        raise ToolError(f"{name}: missing required argument(s) {missing}")
    out: dict[str, Any] = {}
    for key, value in args.items():
        _check_type(name, key, value, props[key])
        if key in spec.choices:
            allowed = sorted(spec.choices[key](pack))
            if value not in allowed:
                raise ToolError(f"{name}: argument {key!r} must be one of {allowed}, got {value!r}")
        kind = spec.entities.get(key)
        if kind is None:
            out[key] = value
        elif isinstance(value, list):
            ids = [_resolve(pack, kind, v) for v in value]
            if len(set(ids)) != len(ids):
                raise ToolError(f"{name}: argument {key!r} names the same {kind} twice")
            out[key] = ids
        else:
            out[key] = _resolve(pack, kind, value)
    return out


def run_tool(pack: Pack, state: LiveState, name: str, args: dict[str, Any]) -> ToolResult:
    """Validate and run one in-process tool synchronously. Raises ToolError on any refusal
    (a tool the game serves over HTTP or MCP included: only `ToolRunner` calls the game)."""
    resolved = validate_args(name, args, pack)  # first: it also rejects unknown tool names
    spec = tool_spec(pack, name)
    fn = spec.fn if spec is not None else None
    if fn is None:
        how = "from its MCP server" if spec is not None and spec.mcp is not None else "over HTTP"
        raise ToolError(f"{name} is served by the game {how}: run it with a ToolRunner")
    return fn(pack, state, **resolved)


# --- tools served by the game over HTTP -------------------------------------------------------

MAX_RESPONSE_BYTES = 1 << 20  # a tool answer is a few KB; a bigger one is refused, not buffered


def http_request(tool: HttpTool, args: dict[str, Any], state: LiveState, session_id: str) -> dict[str, Any]:
    """The JSON body of one call: the validated arguments, the session, and only the state fields
    the tool declares (the game owns its state; these are what the coach's snapshot says)."""
    return {"tool": tool.name, "args": args, "session_id": session_id, "state": _slices(tool, state)}


def _slices(tool: HttpTool | McpTool, state: LiveState) -> dict[str, Any]:
    return {path: _plain(get_field(state, path)) for path in tool.state}


# The `_meta` keys of an MCP tools/call that carry what an HTTP call's body does besides `args`.
MCP_META_SESSION, MCP_META_STATE = "voicecoach/session_id", "voicecoach/core/state"


def mcp_meta(tool: McpTool, state: LiveState, session_id: str) -> dict[str, Any]:
    """The `_meta` of one MCP call: the session, and the state fields the tool declares."""
    return {MCP_META_SESSION: session_id, MCP_META_STATE: _slices(tool, state)}


def _plain(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _answer(name: str, status: int, body: bytes) -> ToolResult:
    """The game's answer as a result object, or a ToolError saying what is wrong with it."""
    if len(body) > MAX_RESPONSE_BYTES:
        raise ToolError(f"{name}: the game's answer is larger than {MAX_RESPONSE_BYTES} bytes")
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        data = None
        if status < 400:
            raise ToolError(f"{name}: the game's answer is not valid JSON: {body[:80]!r}") from None
    if status >= 400:  # the game refused the call: its {"error": ...} says why, when it sends one
        why = data.get("error") if isinstance(data, dict) else None
        raise ToolError(f"{name}: the game answered HTTP {status}" + (f": {why}" if why else ""))
    if not isinstance(data, dict):
        raise ToolError(f"{name}: the game's answer is not a JSON object (got {type(data).__name__})")
    return data


def mcp_answer(name: str, result: CallToolResult) -> ToolResult:
    """An MCP CallToolResult as the tool's result: its structured content, else the JSON object of
    its one text block (read like an HTTP answer); an error result, or anything else, a ToolError."""
    from mcp.types import TextContent  # loaded already: the result came from the SDK

    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    if result.is_error:
        why = " ".join(texts).strip()
        raise ToolError(f"{name}: the MCP server answered an error" + (f": {why[:200]}" if why else ""))
    if isinstance(result.structured_content, dict):
        return dict(result.structured_content)
    if len(texts) != 1 or len(result.content) != 1:
        kinds = [block.type for block in result.content]
        raise ToolError(
            f"{name}: the MCP server's answer has no structured content or one JSON text ({kinds})"
        )
    return _answer(name, 200, texts[0].encode())


class ToolRunner:
    """Runs a pack's tools as on a remote game server.

    In-process tools wait `latency_ms` first (one value for every tool or a per-tool dict,
    missing tools: 0). Game-served tools POST to `endpoint` (default: the pack's tools.json
    endpoint) + "/" + the tool's name, over one keep-alive aiohttp session (pipecat's own
    HTTP client, already installed; `aclose` releases it). MCP-served tools are a tools/call on the
    pack's MCP server, over one connection opened on the first call. Arguments are validated before
    anything is sent. A call that takes longer than `timeout_for(name)` raises TimeoutError;
    a game that is down or answers badly raises ToolError saying so.

    The commit gate: a side-effect tool runs only with `committed=True`, which the caller passes
    once the turn's reply was delivered to the end (actors/tools.py); otherwise it is refused.
    """

    def __init__(
        self,
        pack: Pack,
        latency_ms: float | dict[str, float] = 0.0,
        timeout_s: float | None = None,
        endpoint: str | None = None,
        session_id: str = "",
    ):
        unserved = [name for name in pack.tools if tool_spec(pack, name) is None]
        if unserved:
            raise ToolError(f"pack {pack.pack_id!r} declares tools this runner does not serve: {unserved}")
        self.pack = pack
        self.latency_ms = latency_ms
        self.timeout_s = timeout_s
        self.endpoint = (endpoint or pack.tool_endpoint).rstrip("/")
        self.session_id = session_id
        self._http: Any = None  # aiohttp.ClientSession, opened on the first game-served call
        self._http_loop: asyncio.AbstractEventLoop | None = None
        self._mcp = McpConnection(pack.mcp_server) if pack.mcp_server is not None else None

    def prewarm(self) -> None:
        """Start opening the MCP connection now, so the session's first MCP call does not pay for
        the handshake (or, over stdio, the server process starting) out of its own timeout.
        Returns at once; call it from the event loop the calls will run on."""
        if self._mcp is not None:
            self._mcp.open()

    def latency_s(self, name: str) -> float:
        ms = self.latency_ms.get(name, 0.0) if isinstance(self.latency_ms, dict) else self.latency_ms
        return ms / 1000.0

    def side_effect(self, name: str) -> bool:
        spec = tool_spec(self.pack, name)
        return spec is not None and spec.side_effect

    def timeout_for(self, name: str) -> float | None:
        """The tool's own timeout (tools.json), capped by the runner's; the runner's for the rest."""
        served = self.pack.game_tool(name)
        if served is None:
            return self.timeout_s
        return served.timeout_s if self.timeout_s is None else min(served.timeout_s, self.timeout_s)

    async def call(
        self, state: LiveState, name: str, args: dict[str, Any], *, committed: bool = False
    ) -> ToolResult:
        resolved = validate_args(name, args, self.pack)
        spec = tool_spec(self.pack, name)
        assert spec is not None  # validate_args refused unknown tools
        if spec.side_effect and not committed:
            raise ToolError(f"{name} has side effects: it runs only once the turn is committed")
        if spec.http is not None:
            body = http_request(spec.http, resolved, state, self.session_id)
            return await asyncio.wait_for(self._post(name, body), timeout=self.timeout_for(name))
        if spec.mcp is not None:
            meta = mcp_meta(spec.mcp, state, self.session_id)
            return await asyncio.wait_for(
                self._call_mcp(name, resolved, meta), timeout=self.timeout_for(name)
            )
        fn = spec.fn
        assert fn is not None

        async def remote() -> ToolResult:
            await asyncio.sleep(self.latency_s(name))
            # In a worker thread: a builtin's search (strike_team's suggest_comp with a style and a map,
            # 20-55 ms) would otherwise hold every session's event loop.
            return await asyncio.to_thread(fn, self.pack, state, **resolved)

        return await asyncio.wait_for(remote(), timeout=self.timeout_s)

    async def _post(self, name: str, body: dict[str, Any]) -> ToolResult:
        import aiohttp  # here, not at import: the CLI and the kernels' tests never pay for it

        url = f"{self.endpoint}/{name}"
        try:
            async with self._session(aiohttp).post(url, json=body) as resp:
                raw = await resp.content.read(MAX_RESPONSE_BYTES + 1)
                return _answer(name, resp.status, raw)
        except aiohttp.ClientError as err:  # refused, reset, DNS: the game is unreachable
            why = f"{type(err).__name__}: {err}"
            raise ToolError(f"{name}: the game's endpoint {url} is unreachable ({why})") from None

    async def _call_mcp(self, name: str, args: dict[str, Any], meta: dict[str, Any]) -> ToolResult:
        assert self._mcp is not None  # the loader gives every MCP tool its server
        return mcp_answer(name, await self._mcp.call(name, args, meta))

    def _session(self, aiohttp: Any) -> Any:
        loop = asyncio.get_running_loop()
        if self._http is None or self._http.closed or self._http_loop is not loop:
            self._http = aiohttp.ClientSession(headers={"Accept": "application/json"})
            self._http_loop = loop
        return self._http

    async def aclose(self) -> None:
        """Release the HTTP session and the MCP connection (the actor that owns the runner calls it
        at cleanup)."""
        if self._http is not None and not self._http.closed:
            await self._http.close()
        self._http = None
        if self._mcp is not None:
            await self._mcp.aclose()
