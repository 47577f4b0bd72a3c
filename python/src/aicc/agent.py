"""An aicc/0.1 agent client on asyncio: the same session, call, event and resume semantics as the
TypeScript ``AgentClient``, over a WebSocket (the ``websockets`` package).

``await AgentClient.connect(url)`` waits for the bridge's ``session_init`` (``manifest``: the world,
the tools, the tick); ``await client.call(tool, input)`` resolves with the call's outcome, never
raising for a refusal; ``await client.next_event()`` takes the events in order;
``await client.request_manifest()`` and ``await client.declare(subscriptions=..., agent_model=...)``
resolve with the manifest the bridge sends back. When the socket
drops, the session waits on the bridge for a while: ``await client.resume(url)`` opens a new socket
and asks for everything after the last message this client processed, so nothing is lost; a message
that comes twice (the replay may bring one it had) is dropped by its sequence number, so nothing is
handled twice; calls still waiting are sent again under their own ``call_id``, which the bridge
answers from its cache rather than run twice. Every bridge message is checked (``protocol.py``): one
that is not aicc/0.1 is dropped and kept in ``errors``, never raised from the wire.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from .errors import AiccError
from .protocol import PROTOCOL, check_message

#: Most events kept for the agent to take; the oldest go first (one that never reads them).
MAX_EVENTS = 1024
#: Most refusals kept in ``errors``.
MAX_ERRORS = 64
#: A sequence number this far past the last is not believed (as the TypeScript client).
MAX_SEQUENCE_JUMP = 1024


class SessionClosed(AiccError):
    """The session is over: closed by either side, or expired before a resume."""


class NotConnected(AiccError):
    """No session_init (or resume) came in time, or the socket could not be opened."""


@dataclass(frozen=True)
class CallOutcome:
    """A call's outcome, as data: ``output`` when ``ok``, else ``error`` (``code``, ``message``, ``retryable``)."""

    ok: bool
    call_id: str
    output: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class AgentClient:
    """One agent's aicc/0.1 session with a bridge."""

    def __init__(self, on_message: Callable[[dict[str, Any]], None] | None = None, heartbeat_s: float = 5.0) -> None:
        self.session_id = ""
        self.manifest: dict[str, Any] = {}
        self.state = "connecting"
        self.errors: deque[str] = deque(maxlen=MAX_ERRORS)
        self._on_message = on_message
        self._heartbeat_s = heartbeat_s
        self._socket: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._beats: asyncio.Task[None] | None = None
        self._events: deque[dict[str, Any]] = deque(maxlen=MAX_EVENTS)
        self._event_ready = asyncio.Event()
        self._pending: dict[str, tuple[asyncio.Future[CallOutcome], dict[str, Any]]] = {}
        self._manifest_waiters: list[asyncio.Future[dict[str, Any]]] = []
        self._ready: asyncio.Future[None] | None = None
        self._prefix = ""
        self._last_id = ""
        self._last_sequence = -1
        self._own_prefix = secrets.token_hex(10)
        self._sent = 0
        self._calls = 0
        self._close_reason = ""

    @property
    def tools(self) -> list[dict[str, Any]]:
        return list(self.manifest.get("tools", []))

    @classmethod
    async def connect(
        cls, url: str, *, headers: dict[str, str] | None = None, timeout_s: float = 10.0, **options: Any
    ) -> AgentClient:
        """Opens a socket to a bridge and waits for its ``session_init``."""
        client = cls(**options)
        await client._open(url, headers, timeout_s, resume=False)
        return client

    async def call(
        self, tool: str, input: dict[str, Any] | None = None, *, call_id: str | None = None, timeout_s: float = 30.0
    ) -> CallOutcome:
        """Calls a tool; resolves with its outcome. A refusal is an outcome, not an exception."""
        if self.state == "closed":
            return CallOutcome(
                False,
                call_id or "",
                error={"code": "session_expired", "message": "the session is closed", "retryable": False},
            )
        if call_id is None:
            self._calls += 1
            call_id = f"c{self._calls}"
        if call_id in self._pending:
            return CallOutcome(
                False,
                call_id,
                error={
                    "code": "invalid_input",
                    "message": f"call {call_id} is already waiting for its result",
                    "retryable": False,
                },
            )
        future: asyncio.Future[CallOutcome] = asyncio.get_running_loop().create_future()
        message = {"type": "tool_call", "call_id": call_id, "tool": tool, "input": input if input is not None else {}}
        self._pending[call_id] = (future, message)
        # While disconnected the call waits; resume() sends it again.
        if self.state == "open":
            await self._send(message)
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout_s)
        except TimeoutError:
            return CallOutcome(
                False,
                call_id,
                error={"code": "timeout", "message": f"{tool}: no result within {timeout_s} s", "retryable": True},
            )
        finally:
            self._pending.pop(call_id, None)

    async def request_manifest(self, *, timeout_s: float = 10.0) -> dict[str, Any]:
        """Asks the bridge for the current manifest; resolves with it (also kept in ``manifest``)."""
        return await self._manifest_after({"type": "manifest_request"}, timeout_s)

    async def declare(
        self,
        *,
        subscriptions: list[str] | None = None,
        agent_model: dict[str, Any] | None = None,
        timeout_s: float = 10.0,
    ) -> dict[str, Any]:
        """Changes what this agent declares (its event subscriptions and/or its model, a ``modelDecl``);
        resolves with the manifest the bridge sends back."""
        update: dict[str, Any] = {"protocol": PROTOCOL, "type": "session_init", **self.manifest}
        if agent_model is not None:
            update["agent_model"] = agent_model
        if subscriptions is not None:
            update["event_subscriptions"] = list(subscriptions)
        return await self._manifest_after({"type": "heartbeat", "manifest_update": update}, timeout_s)

    async def _manifest_after(self, message: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        if self.state != "open":
            raise NotConnected(f"{message['type']}: the session is {self.state}; resume it first")
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._manifest_waiters.append(future)
        try:
            await self._send(message)
            return await asyncio.wait_for(asyncio.shield(future), timeout_s)
        except TimeoutError:
            raise NotConnected(f"{message['type']}: no manifest from the bridge within {timeout_s} s") from None
        finally:
            if future in self._manifest_waiters:
                self._manifest_waiters.remove(future)

    async def next_event(self, timeout_s: float | None = None) -> dict[str, Any]:
        """The oldest event not yet taken (the whole message: ``topic``, ``payload``, ``meta``)."""
        while not self._events:
            if self.state == "closed":
                raise SessionClosed(f"the session is closed ({self._close_reason})")
            self._event_ready.clear()
            await asyncio.wait_for(self._event_ready.wait(), timeout_s)
        return self._events.popleft()

    def events_waiting(self) -> int:
        return len(self._events)

    async def resume(self, url: str, *, headers: dict[str, str] | None = None, timeout_s: float = 10.0) -> None:
        """Resumes the session on a new socket: the bridge replays what came after the last message processed."""
        if self.state == "closed":
            raise SessionClosed("the session is closed")
        await self._drop_socket()
        await self._open(url, headers, timeout_s, resume=True)
        # Calls that waited while away go again, under their own call_id:
        # answered once, from the bridge's cache if it ran.
        for _future, message in list(self._pending.values()):
            await self._send(message)

    async def close(self, reason: str = "done") -> None:
        """Closes the session: the bridge answers with its own session_close, then the socket closes."""
        if self.state == "closed":
            return
        if self.state == "open":
            with contextlib.suppress(ConnectionClosed):
                await self._send({"type": "session_close", "reason": reason})
        self._shutdown(reason)
        await self._drop_socket()

    async def drop(self) -> None:
        """Drops the socket without closing the session, as a network failure would (tests, reconnect logic)."""
        await self._drop_socket()
        if self.state == "open":
            self.state = "disconnected"

    # -- the wire ---------------------------------------------------------------------------------

    async def _open(self, url: str, headers: dict[str, str] | None, timeout_s: float, *, resume: bool) -> None:
        try:
            self._socket = await asyncio.wait_for(
                connect(url, additional_headers=headers, max_size=8 * 2**20), timeout_s
            )
        except (OSError, TimeoutError, ConnectionClosed) as error:
            raise NotConnected(f"could not open {url}: {error}") from None
        except Exception as error:  # the handshake refused (a status, a bad URL): said, not raised raw
            raise NotConnected(f"could not open {url}: {error}") from None
        self.state = "connecting"
        self._ready = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(self._read(self._socket))
        if resume:
            await self._send({"type": "session_resume"}, message_id=self._last_id or self._next_id())
        try:
            await asyncio.wait_for(asyncio.shield(self._ready), timeout_s)
        except TimeoutError:
            await self._drop_socket()
            raise NotConnected(
                f"no {'resume confirmation' if resume else 'session_init'} from {url} within {timeout_s} s"
            ) from None
        self.state = "open"
        self._beats = asyncio.create_task(self._heartbeat())

    async def _send(self, fields: dict[str, Any], message_id: str | None = None) -> None:
        if self._socket is None:
            return
        message = {
            "protocol": PROTOCOL,
            **fields,
            "session_id": self.session_id,
            "message_id": message_id or self._next_id(),
        }
        with contextlib.suppress(ConnectionClosed):
            await self._socket.send(json.dumps(message))

    def _next_id(self) -> str:
        self._sent += 1
        p = self._own_prefix
        return f"{p[0:8]}-{p[8:12]}-8{p[13:16]}-{p[16:20]}-{self._sent:012x}"

    async def _heartbeat(self) -> None:
        while self.state == "open":
            await asyncio.sleep(self._heartbeat_s)
            if self.state == "open":
                await self._send({"type": "heartbeat"})

    async def _read(self, socket: ClientConnection) -> None:
        try:
            async for raw in socket:
                self._take(raw)
        except ConnectionClosed:
            pass
        finally:
            if socket is self._socket and self.state != "closed":
                self.state = "disconnected"
                self._fail_ready(NotConnected("the socket closed before the session was ready"))

    def _take(self, raw: str | bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            self.errors.append("a frame that is not JSON was dropped")
            return
        verdict = check_message(message, "bridge")
        if not verdict.ok:
            self.errors.append(f"{verdict.kind}: {verdict.message}")
            return
        if self._on_message is not None:
            self._on_message(message)
        if not self._fresh(message):
            return
        kind = message["type"]
        if kind == "session_init":
            self.session_id = message["session_id"]
            self.manifest = {
                key: value
                for key, value in message.items()
                if key not in ("protocol", "type", "session_id", "message_id")
            }
            self._resolve_ready()
        elif kind == "tool_result":
            waiting = self._pending.get(message["call_id"])
            # A result for a call no longer waiting (answered, or given up on) is a repeat: dropped.
            if waiting is not None and not waiting[0].done():
                waiting[0].set_result(
                    CallOutcome(
                        message["ok"],
                        message["call_id"],
                        message.get("output"),
                        message.get("error"),
                        message.get("meta", {}),
                    )
                )
        elif kind == "event":
            self._events.append(message)
            self._event_ready.set()
        elif kind == "heartbeat":
            if self.state == "connecting":
                self._resolve_ready()
            update = message.get("manifest_update")
            if update is not None:
                self.manifest = {key: value for key, value in update.items() if key not in ("protocol", "type")}
                waiters, self._manifest_waiters = self._manifest_waiters, []
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_result(dict(self.manifest))
        elif kind == "error":
            error = message["error"]
            self.errors.append(f"{error['code']}: {error['message']}")
            if error["code"] == "session_expired" and self.state == "connecting":
                self._shutdown(error["message"])
                self._fail_ready(SessionClosed(error["message"]))
        elif kind == "session_close":
            self._shutdown(message.get("reason", "closed by the bridge"))
            self._fail_ready(SessionClosed(self._close_reason))

    def _fresh(self, message: dict[str, Any]) -> bool:
        """Whether a message is new: its sequence number above the last held.

        The number is the last 12 hex digits of a message_id under the session's prefix.
        """
        message_id: str = message["message_id"]
        if message["type"] == "session_init":
            self._prefix = message_id[:24]
        if self._prefix == "" or not message_id.startswith(self._prefix) or len(message_id) != 36:
            return True  # not sequenced (an error on a failed resume): taken as it comes
        sequence = int(message_id[24:], 16)
        if sequence <= self._last_sequence:
            return False
        if self._last_sequence >= 0 and sequence > self._last_sequence + MAX_SEQUENCE_JUMP:
            self.errors.append(f"invalid_input: message {sequence} jumps past {self._last_sequence}; dropped")
            return False
        self._last_sequence = sequence
        self._last_id = message_id
        return True

    def _resolve_ready(self) -> None:
        if self._ready is not None and not self._ready.done():
            self._ready.set_result(None)

    def _fail_ready(self, error: Exception) -> None:
        if self._ready is not None and not self._ready.done():
            self._ready.set_exception(error)

    def _shutdown(self, reason: str) -> None:
        self.state = "closed"
        self._close_reason = reason
        self._event_ready.set()
        for waiter in self._manifest_waiters:
            if not waiter.done():
                waiter.set_exception(SessionClosed(f"the session closed: {reason}"))
        for future, _message in self._pending.values():
            if not future.done():
                future.set_result(
                    CallOutcome(
                        False,
                        "",
                        error={
                            "code": "session_expired",
                            "message": f"the session closed: {reason}",
                            "retryable": False,
                        },
                    )
                )

    async def _drop_socket(self) -> None:
        socket, self._socket = self._socket, None
        for task in (self._beats, self._reader):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._beats = self._reader = None
        if socket is not None:
            with contextlib.suppress(Exception):
                await socket.close()
