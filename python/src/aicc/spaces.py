"""A world's vector face for the Python environments: the server's client, the face the world
declares, its spaces as Gymnasium spaces, and observations as arrays of them."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.spaces import Box
from numpy.typing import NDArray

from .client import JsonObject, ServeClient
from .server import AiccServer


def client_of(server: AiccServer | ServeClient | str) -> ServeClient:
    """The client of an AiccServer, a ServeClient as it is, or one for a URL."""
    if isinstance(server, AiccServer):
        return server.client
    return server if isinstance(server, ServeClient) else ServeClient(server)


def vector_face(client: ServeClient) -> tuple[JsonObject, JsonObject]:
    """The world's schema and its vector face; a world without one is refused, saying what to use instead."""
    schema = client.schema()
    vectors = schema.get("vectors")
    if vectors is None:
        raise ValueError(f"world {schema['world']!r} declares no vector face; drive its tools with ServeClient instead")
    return schema, vectors


def observation_space(spec: dict[str, Any]) -> Box:
    """The ``Box`` a world's vector face declares: its shape and bounds, float32."""
    return Box(
        low=float(spec["low"]), high=float(spec["high"]), shape=tuple(int(n) for n in spec["shape"]), dtype=np.float32
    )


def to_observation(numbers: list[float], space: Box) -> NDArray[np.float32]:
    """The server's flat row of numbers in the space's shape."""
    return np.asarray(numbers, dtype=np.float32).reshape(space.shape)
