"""A world's character as an OpenEnv environment: an ``EnvClient`` of OpenEnv's own (the ``openenv``
package, ``pip install "aicc-capsule[openenv]"``) for `aicc serve`'s /ws.

Actions are :class:`ToolCall` (the tools face) or :class:`Move` (the vectors face); observations
the served JSON (``tick``, ``events``, ``results``, and ``tools`` at reset; or ``vector``); the state
the episode's seed, params, tick, metrics and ``state_hash``. OpenEnv's sync wrapper works as usual::

    with AiccEnv(base_url=server.url).sync() as env:
        first = env.reset(seed=3, agent="cleo")
        looked = env.step(ToolCall("look"))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient


@dataclass(frozen=True)
class ToolCall:
    """A tools-face action: one tool call."""

    tool: str
    input: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Move:
    """A vectors-face action: a move's number (the world's ``actions``, e.g. the swarm's eat/north/…)."""

    move: int


class AiccEnv(EnvClient[ToolCall | Move, dict[str, Any], dict[str, Any]]):  # type: ignore[misc]  # openenv ships no type marker
    """OpenEnv's client for one character of a world on `aicc serve` (its /ws)."""

    def _step_payload(self, action: ToolCall | Move) -> dict[str, Any]:
        if isinstance(action, Move):
            return {"move": action.move}
        return {"tool": action.tool, "input": action.input}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[dict[str, Any]]:
        return StepResult(
            observation=payload.get("observation", {}),
            reward=payload.get("reward"),
            done=bool(payload.get("done", False)),
            metadata=payload.get("metadata"),
        )

    def _parse_state(self, payload: dict[str, Any]) -> dict[str, Any]:
        return payload
