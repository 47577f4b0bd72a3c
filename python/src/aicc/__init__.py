"""Worlds built on aicc-capsule as Gymnasium, PettingZoo and OpenEnv environments, over `aicc serve`."""

from .client import ServeClient
from .errors import AiccError, ServeError, ServeUnreachable
from .gym_env import AiccGymEnv
from .parallel_env import AiccParallelEnv
from .server import AiccServer

__all__ = ["AiccError", "AiccGymEnv", "AiccParallelEnv", "AiccServer", "ServeClient", "ServeError", "ServeUnreachable"]
