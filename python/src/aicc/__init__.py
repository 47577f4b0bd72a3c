"""Worlds built on aicc-capsule as Gymnasium, PettingZoo and OpenEnv environments, over `aicc serve`."""

from .agent import AgentClient, CallOutcome, NotConnected, SessionClosed
from .client import ServeClient
from .errors import AiccError, ServeError, ServeUnreachable
from .gym_env import AiccGymEnv
from .parallel_env import AiccParallelEnv
from .server import AiccServer

__all__ = [
    "AgentClient",
    "AiccError",
    "AiccGymEnv",
    "AiccParallelEnv",
    "AiccServer",
    "CallOutcome",
    "NotConnected",
    "ServeClient",
    "ServeError",
    "ServeUnreachable",
    "SessionClosed",
]
