"""The vector face's spaces as Gymnasium spaces, and observations as arrays of them."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.spaces import Box
from numpy.typing import NDArray


def observation_space(spec: dict[str, Any]) -> Box:
    """The ``Box`` a world's vector face declares: its shape and bounds, float32."""
    return Box(
        low=float(spec["low"]), high=float(spec["high"]), shape=tuple(int(n) for n in spec["shape"]), dtype=np.float32
    )


def to_observation(numbers: list[float], space: Box) -> NDArray[np.float32]:
    """The server's flat row of numbers in the space's shape."""
    return np.asarray(numbers, dtype=np.float32).reshape(space.shape)
