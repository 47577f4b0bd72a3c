"""A world's characters as a PettingZoo ``ParallelEnv``, on the world's vector face.

Every character acts at once each step (the characters left out of ``actions`` do nothing that
tick); when the episode ends, terminated or cut short at its tick limit, every agent leaves.
"""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym
import numpy as np
from numpy.typing import NDArray
from pettingzoo import ParallelEnv

from .client import JsonObject, ServeClient
from .server import AiccServer
from .spaces import client_of, observation_space, to_observation, vector_face

Observation = NDArray[np.float32]


class AiccParallelEnv(ParallelEnv[str, Observation, int]):  # type: ignore[misc]  # untyped base
    """The characters of a world served by `aicc serve`, for PettingZoo's parallel API.

    ``agents`` are the characters played (default: every one of the world with ``params``); the
    world's own policy plays the others.
    """

    metadata: dict[str, Any] = {"name": "aicc_parallel_v0", "render_modes": []}  # noqa: RUF012 - PettingZoo reads it from the class

    def __init__(
        self,
        server: AiccServer | ServeClient | str,
        agents: list[str] | None = None,
        params: dict[str, int | float | str | bool] | None = None,
        max_ticks: int | None = None,
    ) -> None:
        self.client = client_of(server)
        _schema, vectors = vector_face(self.client)
        self.params = params
        self.max_ticks = max_ticks
        self._observation_space = observation_space(vectors["observation"])
        self._action_space = gym.spaces.Discrete(len(vectors["actions"]))
        # Which characters there are depends on the params (the swarm's `foragers`): one episode tells.
        first = self.client.reset(seed=0, params=params, face="vectors", agents=agents, max_ticks=max_ticks)
        self.episode_id: str | None = str(first["episode_id"])
        self.possible_agents: list[str] = list(first["observations"].keys())
        self.agents: list[str] = []
        self._seeds = np.random.default_rng()

    @functools.cache  # noqa: B019 - one space per agent, the same object every call
    def observation_space(self, agent: str) -> gym.spaces.Box:
        return self._observation_space

    @functools.cache  # noqa: B019 - one space per agent, the same object every call
    def action_space(self, agent: str) -> gym.spaces.Discrete:
        return self._action_space

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        episode_seed = seed if seed is not None else int(self._seeds.integers(0, 2**31 - 1))
        answer = self.client.reset(
            seed=episode_seed,
            params=self.params,
            face="vectors",
            agents=self.possible_agents,
            max_ticks=self.max_ticks,
            episode_id=self.episode_id,
        )
        self.episode_id = str(answer["episode_id"])
        self.agents = list(self.possible_agents)
        return self._observations(answer), {
            agent: {"episode_id": self.episode_id, "seed": episode_seed} for agent in self.agents
        }

    def step(
        self, actions: dict[str, int]
    ) -> tuple[dict[str, Observation], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        if self.episode_id is None or not self.agents:
            raise RuntimeError("AiccParallelEnv.step: call reset() first")
        answer = self.client.step(self.episode_id, {agent: int(action) for agent, action in actions.items()})
        observations = self._observations(answer)
        rewards = {agent: float(answer["rewards"].get(agent, 0.0)) for agent in self.agents}
        terminated, truncated = bool(answer["terminated"]), bool(answer["truncated"])
        terminations = dict.fromkeys(self.agents, terminated)
        truncations = dict.fromkeys(self.agents, truncated)
        infos = {
            agent: ({"call": answer["infos"][agent]["call"]} if agent in answer.get("infos", {}) else {})
            for agent in self.agents
        }
        if terminated or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def state_hash(self) -> str:
        """The hash of the world's declared state now: equal runs give equal hashes."""
        if self.episode_id is None:
            raise RuntimeError("AiccParallelEnv.state_hash: call reset() first")
        return str(self.client.state(self.episode_id)["state_hash"])

    def close(self) -> None:
        if self.episode_id is not None:
            self.client.close(self.episode_id)
            self.episode_id = None

    def _observations(self, answer: JsonObject) -> dict[str, Observation]:
        return {
            agent: to_observation(numbers, self._observation_space) for agent, numbers in answer["observations"].items()
        }
