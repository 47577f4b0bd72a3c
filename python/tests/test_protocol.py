"""The shared aicc/0.1 vectors (test/vectors/aicc-messages.json, which the TypeScript suite reads too):
this package's checker gives every message the verdict written there."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import ROOT

from aicc.protocol import check_message

VECTORS: list[dict[str, Any]] = json.loads(
    (ROOT / "test" / "vectors" / "aicc-messages.json").read_text(encoding="utf-8")
)["cases"]


def test_the_bundled_schema_is_the_protocols() -> None:
    bundled = ROOT / "python" / "src" / "aicc" / "schema" / "aicc.schema.json"
    assert json.loads(bundled.read_text(encoding="utf-8")) == json.loads(
        (ROOT / "schemas" / "aicc.schema.json").read_text(encoding="utf-8")
    )


@pytest.mark.parametrize("case", VECTORS, ids=[f"{case['sender']}: {case['name']}" for case in VECTORS])
def test_each_vector_gets_its_verdict(case: dict[str, Any]) -> None:
    verdict = check_message(case["message"], case["sender"])
    assert ("ok" if verdict.ok else verdict.kind) == case["verdict"], verdict.message
