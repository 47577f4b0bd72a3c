"""The servers the suite drives: the built `aicc` CLI of this checkout (dist/cli.js, which `npm test`
builds first), one `aicc serve` per world for the whole session, each stopped by its PID at the end."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from aicc import AiccServer

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "dist" / "cli.js"


def command() -> tuple[str, ...]:
    """This checkout's `aicc`: the built CLI on the Node `npm test` runs (AICC_NODE)."""
    if not CLI.exists():
        pytest.exit(f"{CLI} is missing: build first (npm run build); npm test does", returncode=1)
    return (os.environ.get("AICC_NODE", "node"), str(CLI))


@pytest.fixture(scope="session")
def swarm() -> Iterator[AiccServer]:
    with AiccServer.start("swarm", command=command(), args=("--max-episodes", "16")) as server:
        yield server


@pytest.fixture(scope="session")
def village() -> Iterator[AiccServer]:
    with AiccServer.start("village", command=command()) as server:
        yield server


# A small swarm: few foragers on a small grid, so episodes are quick and food is near.
SMALL_SWARM: dict[str, int | float | str | bool] = {"foragers": 2, "size": 10, "foodDensity": 0.2}
