"""The swarm's vector face as a PettingZoo ParallelEnv, checked by PettingZoo's own API test."""

from __future__ import annotations

from conftest import SMALL_SWARM
from pettingzoo.test import parallel_api_test

from aicc import AiccParallelEnv, AiccServer


def test_passes_pettingzoos_parallel_api_test(swarm: AiccServer) -> None:
    env = AiccParallelEnv(swarm, params=SMALL_SWARM, max_ticks=40)
    try:
        parallel_api_test(env, num_cycles=100)
    finally:
        env.close()


def test_same_seed_and_moves_same_episode_by_the_state_hash(swarm: AiccServer) -> None:
    def run() -> str:
        env = AiccParallelEnv(swarm, params={"foragers": 3, "size": 10}, max_ticks=30)
        try:
            env.reset(seed=21)
            assert env.agents == ["forager-000", "forager-001", "forager-002"]
            for tick in range(20):
                env.step({agent: (tick + i) % 5 for i, agent in enumerate(env.agents)})
            return env.state_hash()
        finally:
            env.close()

    assert run() == run()


def test_plays_some_seats_and_the_world_plays_the_rest(swarm: AiccServer) -> None:
    env = AiccParallelEnv(swarm, agents=["forager-002"], params={"foragers": 4})
    try:
        observations, _ = env.reset(seed=3)
        assert list(observations) == ["forager-002"] == env.possible_agents
    finally:
        env.close()
