"""The swarm's vector face as a Gymnasium env, checked by Gymnasium's own env checker."""

from __future__ import annotations

import numpy as np
from conftest import SMALL_SWARM
from gymnasium.utils.env_checker import check_env

from aicc import AiccGymEnv, AiccServer


def test_passes_gymnasiums_env_checker(swarm: AiccServer) -> None:
    env = AiccGymEnv(swarm, params=SMALL_SWARM, max_ticks=50)
    try:
        check_env(env, skip_render_check=True)
    finally:
        env.close()


def test_spaces_seeds_and_steps_as_the_world_declares(swarm: AiccServer) -> None:
    env = AiccGymEnv(swarm, agent="forager-001", params=SMALL_SWARM, max_ticks=5)
    try:
        assert env.observation_space.shape == (5, 5)
        assert env.observation_space.dtype == np.float32
        assert env.action_names == ["eat", "north", "south", "west", "east"]
        first, info = env.reset(seed=7)
        again, _ = env.reset(seed=7)
        assert np.array_equal(first, again)
        assert info["seed"] == 7 and info["tick"] == 0
        done = False
        steps = 0
        while not done:
            observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
            assert observation in env.observation_space
            assert isinstance(reward, float)
            assert info["call"]["tool"] in ("eat", "move")
            done = terminated or truncated
            steps += 1
        assert steps == 5 and truncated and not terminated
    finally:
        env.close()
