"""The client of a game's MCP server (tools.json `mcp`): one connection per ToolRunner.

The official MCP SDK (PyPI `mcp`, imported when the first connection opens, so a pack without
MCP tools never loads it) speaks to the server over streamable HTTP (`url`) or stdio (`command`).
Its `Client` is an anyio context manager that has to be exited by the task that entered it, while
the coach's tool calls each run in a task of their own. So one task owns the connection: it opens
it on the first call (or `open`), keeps it (a keep-alive HTTP client, or the stdio child process)
and closes it on `aclose`. Callers only send requests through it.

What comes back is the SDK's `CallToolResult`, unread: `voicecoach.tools.registry` turns it into the tool's
result by the same rules as an HTTP answer. Refusals become ToolErrors that say which server and
why. Nothing here imports Pipecat.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from voicecoach.domain.pack import McpSource
from voicecoach.tools.base import ToolError

if TYPE_CHECKING:
    from mcp import Client
    from mcp.types import CallToolResult, RequestParamsMeta

CLOSE_TIMEOUT_S = 2.0  # aclose waits this long for the server to hear the session end, then cancels


def _why(err: BaseException) -> str:
    """The first real error of an anyio task group's ExceptionGroup (the transport's), as text."""
    while isinstance(err, BaseExceptionGroup) and err.exceptions:
        err = err.exceptions[0]
    return f"{type(err).__name__}: {err}"


@dataclass
class _Link:
    """One opening of the connection: the task that holds the open Client, and how to end it."""

    owner: asyncio.Task[None]
    ready: asyncio.Future[Client]  # the Client, once connected
    closing: asyncio.Event  # set: the owner closes the connection and ends


class McpConnection:
    """The coach's client session with one MCP server, opened on the first call, reopened on the
    next call after the server dropped it."""

    def __init__(self, source: McpSource) -> None:
        self.source = source
        self._link: _Link | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._retiring: set[asyncio.Task[None]] = set()  # dropped owners still closing

    async def call(self, name: str, args: dict[str, Any], meta: dict[str, Any]) -> CallToolResult:
        """tools/call `name` on the server. Raises ToolError when the server cannot be reached or
        refuses the request; an error the tool itself reports comes back in the result."""
        link = self._current()
        client = await self._connected(link, name)
        from mcp import MCPError  # imported by now: the connection's owner imported the SDK
        from mcp.types import CONNECTION_CLOSED

        where = self.source.where()
        try:
            return await client.call_tool(name, args, meta=cast("RequestParamsMeta", meta))
        except MCPError as err:
            if err.code == CONNECTION_CLOSED:  # the server went away: the next call reconnects
                self._drop(link)
                raise ToolError(f"{name}: the MCP server {where} closed the connection") from None
            raise ToolError(f"{name}: the MCP server refused the call ({err.message})") from None
        except Exception as err:  # the transport failed under the call: start afresh next time
            self._drop(link)
            raise ToolError(f"{name}: the MCP server {where} failed ({_why(err)})") from None

    def open(self) -> None:
        """Start connecting now, without waiting (a session's first call then finds it open)."""
        self._current()

    def _current(self) -> _Link:
        """The open (or opening) connection of this event loop; a new one after a failure."""
        loop = asyncio.get_running_loop()
        link = self._link
        if link is None or link.owner.done() or self._loop is not loop:
            ready: asyncio.Future[Client] = loop.create_future()
            # Every caller may have timed out before a failure lands: retrieve it, asyncio stays quiet.
            ready.add_done_callback(lambda f: f.cancelled() or f.exception())
            closing = asyncio.Event()
            owner = loop.create_task(self._own(ready, closing), name="mcp-connection")
            link = self._link = _Link(owner, ready, closing)
            self._loop = loop
        return link

    async def _connected(self, link: _Link, name: str) -> Client:
        where = self.source.where()
        try:
            # shielded: a caller timing out must not cancel the connection the others wait for
            return await asyncio.shield(link.ready)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if link.ready.cancelled() and task is not None and not task.cancelling():
                raise ToolError(f"{name}: the connection to the MCP server {where} was closed") from None
            raise
        except Exception as err:  # the next call tries again (its link's owner is done)
            raise ToolError(f"{name}: the MCP server {where} is unreachable ({_why(err)})") from None

    async def _own(self, ready: asyncio.Future[Client], closing: asyncio.Event) -> None:
        try:
            # The SDK's first import takes about a second of CPU: in a thread, not on the event loop
            # the session's audio and the other sessions run on.
            await asyncio.to_thread(importlib.import_module, "mcp")
            from mcp import Client, StdioServerParameters

            source = self.source
            target: str | StdioServerParameters = source.url or ""
            if source.command is not None:  # McpSource has one or the other
                target = StdioServerParameters(command=source.command[0], args=source.command[1:])
            async with Client(target) as client:
                ready.set_result(client)
                await closing.wait()
        except Exception as err:  # a failed connect reaches the callers; a failed close is moot
            if not ready.done():
                ready.set_exception(err)
        finally:
            if not ready.done():
                ready.cancel()

    def _drop(self, link: _Link) -> None:
        """Let go of `link` (it closes in the background), unless a newer one replaced it."""
        link.closing.set()
        if self._link is link:
            self._link = None
        if not link.owner.done():
            self._retiring.add(link.owner)
            link.owner.add_done_callback(self._retiring.discard)

    async def aclose(self) -> None:
        """Close the connection (the stdio server process ends with it)."""
        if self._link is not None:
            self._drop(self._link)
        owners = [t for t in self._retiring if not t.done()]
        if not owners or self._loop is not asyncio.get_running_loop():
            return  # nothing open, or another loop's connection: it ended with that loop
        _, late = await asyncio.wait(owners, timeout=CLOSE_TIMEOUT_S)
        for task in late:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
