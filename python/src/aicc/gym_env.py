"""One character of a world as a Gymnasium environment, on the world's vector face.

The observation is the world's numbers (a ``Box``, float32), the action a move's number (a
``Discrete``); every move is a tool call through the capsule's full checks on the server. The other
characters are played by the world's own policy. ``info`` carries the episode id, the tick and the
tool call the move became.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from numpy.typing import NDArray

from .client import JsonObject, ServeClient
from .server import AiccServer
from .spaces import client_of, observation_space, to_observation, vector_face

Observation = NDArray[np.float32]


class AiccGymEnv(gym.Env[Observation, np.int64]):
    """A character of a world served by `aicc serve`, for Gymnasium's API.

    ``server`` is an :class:`AiccServer`, a :class:`ServeClient` or a URL. ``agent`` is the character
    played (default: the world's first); ``params`` the world's parameters for every episode.
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 - Gymnasium reads it from the class

    def __init__(
        self,
        server: AiccServer | ServeClient | str,
        agent: str | None = None,
        params: dict[str, int | float | str | bool] | None = None,
        max_ticks: int | None = None,
    ) -> None:
        self.client = client_of(server)
        schema, vectors = vector_face(self.client)
        self.agent = agent if agent is not None else str(schema["agents"][0])
        self.params = params
        self.max_ticks = max_ticks
        self.box = observation_space(vectors["observation"])
        self.observation_space = self.box  # type: ignore[assignment] # a Box of float32 rows is the Space this env declares
        self.action_space = gym.spaces.Discrete(len(vectors["actions"]))
        self.action_names: list[str] = list(vectors["actions"])
        self.episode_id: str | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        # No seed: one drawn from the env's own generator, so a seeded env's later resets are seeded too.
        episode_seed = seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        answer = self.client.reset(
            seed=episode_seed,
            params=self.params,
            face="vectors",
            agents=[self.agent],
            max_ticks=self.max_ticks,
            episode_id=self.episode_id,
        )
        self.episode_id = str(answer["episode_id"])
        return self._observation(answer), self._info(answer, episode_seed)

    def step(self, action: np.int64 | int) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        if self.episode_id is None:
            raise RuntimeError("AiccGymEnv.step: call reset() first")
        answer = self.client.step(self.episode_id, {self.agent: int(action)})
        reward = float(answer["rewards"].get(self.agent, 0.0))
        return (
            self._observation(answer),
            reward,
            bool(answer["terminated"]),
            bool(answer["truncated"]),
            self._info(answer),
        )

    def state_hash(self) -> str:
        """The hash of the world's declared state now: equal runs give equal hashes."""
        if self.episode_id is None:
            raise RuntimeError("AiccGymEnv.state_hash: call reset() first")
        return str(self.client.state(self.episode_id)["state_hash"])

    def close(self) -> None:
        if self.episode_id is not None:
            self.client.close(self.episode_id)
            self.episode_id = None

    def _observation(self, answer: JsonObject) -> Observation:
        return to_observation(answer["observations"][self.agent], self.box)

    def _info(self, answer: JsonObject, seed: int | None = None) -> dict[str, Any]:
        info: dict[str, Any] = {"episode_id": self.episode_id, "tick": answer["tick"]}
        if seed is not None:
            info["seed"] = seed
        call = answer.get("infos", {}).get(self.agent, {}).get("call")
        if call is not None:
            info["call"] = call
        return info
