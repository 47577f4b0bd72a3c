"""A linear Q-learner, numpy only, learns the small swarm through the Gymnasium env in a few thousand
steps and then eats more than the random policy on the same seeds — a real learner on a real
server: the assertion is only that it does better than chance, never what it learned."""

from __future__ import annotations

import numpy as np
from conftest import SMALL_SWARM
from numpy.typing import NDArray

from aicc import AiccGymEnv, AiccServer

TRAIN_STEPS = 4000
EPISODE_TICKS = 100
EVAL_SEEDS = range(100, 106)


def features(observation: NDArray[np.float32]) -> NDArray[np.float64]:
    """Food here and there, walls here and there, and a bias: 51 numbers a linear Q reads."""
    cells = observation.reshape(-1)
    return np.concatenate([(cells == 1).astype(np.float64), (cells == -1).astype(np.float64), [1.0]])


def greedy(weights: NDArray[np.float64], observation: NDArray[np.float32]) -> int:
    return int(np.argmax(weights @ features(observation)))


def train(env: AiccGymEnv, rng: np.random.Generator) -> NDArray[np.float64]:
    moves = int(env.action_space.n)
    weights = np.zeros((moves, 51))
    alpha, gamma = 0.05, 0.9
    observation, _ = env.reset(seed=0)
    for step in range(TRAIN_STEPS):
        epsilon = max(0.05, 1.0 - step / (TRAIN_STEPS * 0.6))
        action = int(rng.integers(moves)) if rng.random() < epsilon else greedy(weights, observation)
        following, reward, terminated, truncated, _ = env.step(action)
        phi = features(observation)
        target = float(reward) + (0.0 if terminated else gamma * float(np.max(weights @ features(following))))
        weights[action] += alpha * (target - float(weights[action] @ phi)) * phi
        observation = following
        if terminated or truncated:
            observation, _ = env.reset(seed=step)
    return weights


def eaten(env: AiccGymEnv, choose: object) -> float:
    total = 0.0
    for seed in EVAL_SEEDS:
        observation, _ = env.reset(seed=seed)
        done = False
        while not done:
            observation, reward, terminated, truncated, _ = env.step(choose(observation))  # type: ignore[operator]
            total += float(reward)
            done = terminated or truncated
    return total


def test_a_linear_learner_beats_the_random_policy(swarm: AiccServer) -> None:
    env = AiccGymEnv(swarm, agent="forager-000", params=SMALL_SWARM, max_ticks=EPISODE_TICKS)
    rng = np.random.default_rng(7)
    try:
        weights = train(env, rng)
        learned = eaten(env, lambda observation: greedy(weights, observation))
        chance = eaten(env, lambda _observation: int(rng.integers(env.action_space.n)))
    finally:
        env.close()
    print(f"eaten over {len(EVAL_SEEDS)} episodes: learned {learned:.0f}, random {chance:.0f}")
    assert learned > chance
