"""A client of `aicc serve`'s HTTP API: one object per server, episodes by id.

Only the standard library speaks HTTP here (urllib), so the package needs no HTTP dependency. Every
answer is JSON; a refusal becomes a :class:`ServeError` with the server's code, never a bare
traceback from the wire.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, cast

from .errors import ServeError, ServeUnreachable

JsonObject = dict[str, Any]


class ServeClient:
    """Talks to one `aicc serve` at `url` (e.g. ``http://127.0.0.1:8000``); `key` when it has one."""

    def __init__(self, url: str, key: str | None = None, timeout_s: float = 30.0) -> None:
        self.url = url.rstrip("/")
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

    def close(self, episode_id: str) -> bool:
        return bool(self._request("POST", "/close", {"episode_id": episode_id})["closed"])

    def _request(self, method: str, path: str, body: JsonObject | None = None) -> JsonObject:
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=self._headers)
        try:
            with urllib.request.urlopen(request, timeout=self._timeout_s) as response:
                return cast(JsonObject, json.loads(response.read()))
        except urllib.error.HTTPError as error:
            raise _refusal(error) from None
        except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
            raise ServeUnreachable(
                f"no aicc serve answered at {self.url} ({_reason(error)}); start one with `npx aicc serve WORLD`"
            ) from None


def _refusal(error: urllib.error.HTTPError) -> ServeError:
    try:
        detail = json.loads(error.read())["error"]
        return ServeError(str(detail["code"]), str(detail["message"]), error.code)
    except (ValueError, KeyError, TypeError):
        return ServeError("server_error", f"HTTP {error.code} without an error body", error.code)


def _reason(error: BaseException) -> str:
    reason = getattr(error, "reason", None)
    return str(reason if reason is not None else error)
