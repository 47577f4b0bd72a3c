"""docs/PYTHON.md's ``python run`` blocks, run as written: each in a Python process of its own with
this checkout's `aicc serve` (AICC_COMMAND), its output held to the ``text output`` block after it
(a line ``…`` stands for any lines)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT, command

DOC = ROOT / "docs" / "PYTHON.md"
FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```\n", re.M | re.S)


def blocks() -> list[tuple[int, str, str | None]]:
    """Each ``python run`` block: its line, its code and the output block after it."""
    text = DOC.read_text(encoding="utf-8")
    found = list(FENCE.finditer(text))
    runs = []
    for i, match in enumerate(found):
        if match.group(1) == "python" and match.group(2).split() == ["run"]:
            after = found[i + 1] if i + 1 < len(found) else None
            output = (
                after.group(3)
                if after is not None and after.group(1) == "text" and after.group(2).split() == ["output"]
                else None
            )
            runs.append((text.count("\n", 0, match.start()) + 1, match.group(3), output))
    return runs


def matches(printed: list[str], expected: list[str]) -> bool:
    if not expected:
        return not printed
    if expected[0] == "…":
        return any(matches(printed[i:], expected[1:]) for i in range(len(printed) + 1))
    return bool(printed) and printed[0] == expected[0] and matches(printed[1:], expected[1:])


def test_the_doc_has_its_examples() -> None:
    assert len(blocks()) >= 4


@pytest.mark.parametrize(
    ("line", "code", "output"), blocks(), ids=lambda value: f"line {value}" if isinstance(value, int) else ""
)
def test_a_block_runs_as_written_and_prints_what_the_doc_says(line: int, code: str, output: str | None) -> None:
    assert output is not None, f"docs/PYTHON.md:{line}: a python run block needs a text output block after it"
    source = str(ROOT / "python" / "src")
    env = {
        **os.environ,
        "AICC_COMMAND": " ".join(command()),
        "PYTHONPATH": os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")])),
    }
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=240, check=False
    )
    assert run.returncode == 0, f"docs/PYTHON.md:{line} failed:\n{run.stderr[-2000:]}"
    assert matches(run.stdout.splitlines(), output.splitlines()), (
        f"docs/PYTHON.md:{line} printed:\n{run.stdout}\nthe doc says:\n{output}"
    )
