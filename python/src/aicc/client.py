"""A client of `aicc serve`'s HTTP API: one object per server, episodes by id.

Only the standard library speaks HTTP here (http.client, one kept-alive connection), so the package
needs no HTTP dependency. Every answer is JSON; a refusal becomes a :class:`ServeError` with the
server's code, never a bare traceback from the wire.
"""

from __future__ import annotations

import http.client
import json
import socket
import urllib.parse
from typing import Any, cast

from .errors import ServeError, ServeUnreachable

JsonObject = dict[str, Any]


class ServeClient:
    """Talks to one `aicc serve` at `url` (e.g. ``http://127.0.0.1:8000``); `key` when it has one."""

    def __init__(self, url: str, key: str | None = None, timeout_s: float = 30.0) -> None:
        self.url = url.rstrip("/")
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme not in ("http", "https") or parts.hostname is None:
            raise ValueError(f"ServeClient: expected an http:// URL of aicc serve, got {url!r}")
        self._scheme = parts.scheme
        self._host = parts.hostname
        self._port = parts.port
        self._base = parts.path
        self._connection: http.client.HTTPConnection | None = None
        self._headers = {"content-type": "application/json", "accept": "application/json"}
        if key is not None:
            self._headers["authorization"] = f"Bearer {key}"
        self._timeout_s = timeout_s

    def health(self) -> JsonObject:
        return self._request("GET", "/health")

    def metadata(self) -> JsonObject:
        return self._request("GET", "/metadata")

    def schema(self) -> JsonObject:
        """The world's characters and faces, with the vector spaces when it declares them."""
        return self._request("GET", "/schema")

    def reset(
        self,
        seed: int = 0,
        params: dict[str, int | float | str | bool] | None = None,
        face: str = "tools",
        agents: list[str] | None = None,
        max_ticks: int | None = None,
        episode_id: str | None = None,
    ) -> JsonObject:
        """Starts an episode (or resets `episode_id`'s): its first observations and its ``episode_id``."""
        body: JsonObject = {"seed": seed, "face": face}
        if params is not None:
            body["params"] = params
        if agents is not None:
            body["agents"] = agents
        if max_ticks is not None:
            body["max_ticks"] = max_ticks
        if episode_id is not None:
            body["episode_id"] = episode_id
        return self._request("POST", "/reset", body)

    def step(self, episode_id: str, actions: dict[str, Any]) -> JsonObject:
        """One tick: ``actions`` maps the characters you play to their action this step."""
        return self._request("POST", "/step", {"episode_id": episode_id, "actions": actions})

    def state(self, episode_id: str) -> JsonObject:
        """The episode's seed, params, tick, metrics and ``state_hash``."""
        return self._request("GET", f"/state?episode_id={urllib.parse.quote(episode_id)}")

    def live(
        self, seed: int = 0, params: dict[str, int | float | str | bool] | None = None, agent: str | None = None
    ) -> JsonObject:
        """Sets up a live episode whose character an aicc/0.1 agent plays on ``/aicc`` (see AgentClient):
        its ``episode_id``, ``agent`` and ``tick_rate_hz``; ``aicc_url(...)`` is where to connect."""
        body: JsonObject = {"seed": seed}
        if params is not None:
            body["params"] = params
        if agent is not None:
            body["agent"] = agent
        return self._request("POST", "/live", body)

    def aicc_url(self, episode_id: str, agent: str | None = None) -> str:
        """The WebSocket of a live episode: with ``agent`` its first session, without a resume."""
        query = urllib.parse.urlencode({"episode_id": episode_id, **({"agent": agent} if agent is not None else {})})
        return f"{'wss' if self._scheme == 'https' else 'ws'}://{self.url.split('://', 1)[1]}/aicc?{query}"

    def close(self, episode_id: str) -> bool:
        return bool(self._request("POST", "/close", {"episode_id": episode_id})["closed"])

    def _request(self, method: str, path: str, body: JsonObject | None = None) -> JsonObject:
        data = None if body is None else json.dumps(body).encode("utf-8")
        # A kept-alive connection the server closed while idle fails before the request reaches it:
        # such a failure on a reused connection is tried once more on a fresh one.
        for attempt in (1, 2):
            reused = self._connection is not None
            try:
                connection = self._connect()
                connection.request(method, self._base + path, body=data, headers=self._headers)
                response = connection.getresponse()
                raw = response.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as error:
                self._drop()
                if reused and attempt == 1:
                    continue
                raise ServeUnreachable(
                    f"no aicc serve answered at {self.url} ({error}); start one with `npx aicc serve WORLD`"
                ) from None
            except (OSError, http.client.HTTPException) as error:
                self._drop()
                raise ServeUnreachable(
                    f"no aicc serve answered at {self.url} ({error}); start one with `npx aicc serve WORLD`"
                ) from None
        if response.status >= 400:
            raise _refusal(response.status, raw)
        try:
            return cast(JsonObject, json.loads(raw))
        except ValueError:
            raise ServeError(
                "server_error", f"HTTP {response.status} with a body that is not JSON", response.status
            ) from None

    def _connect(self) -> http.client.HTTPConnection:
        if self._connection is None:
            kind = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
            self._connection = kind(self._host, self._port, timeout=self._timeout_s)
            self._connection.connect()
            # Small requests one after another: no Nagle delay on each.
            self._connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self._connection

    def _drop(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def _refusal(status: int, raw: bytes) -> ServeError:
    try:
        detail = json.loads(raw)["error"]
        return ServeError(str(detail["code"]), str(detail["message"]), status)
    except (ValueError, KeyError, TypeError):
        return ServeError("server_error", f"HTTP {status} without an error body", status)
