"""The HTTP client's errors: typed, with the server's code, never a bare traceback from the wire."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, command

from aicc import AiccGymEnv, AiccServer, ServeClient, ServeError, ServeUnreachable


def test_refusals_are_serve_errors_with_the_servers_code(swarm: AiccServer) -> None:
    client = swarm.client
    with pytest.raises(ServeError) as unknown:
        client.step("no-such-episode", {})
    assert unknown.value.code == "no_episode" and unknown.value.status == 404
    episode = client.reset(seed=1, face="vectors", agents=["forager-000"])["episode_id"]
    try:
        with pytest.raises(ServeError) as bad:
            client.step(episode, {"forager-000": 9})
        assert bad.value.code == "invalid_request"
        with pytest.raises(ServeError) as other:
            client.step(episode, {"forager-005": 0})
        assert other.value.code == "unknown_agent"
        assert client.step(episode, {"forager-000": 0})["tick"] == 1
    finally:
        client.close(episode)


def test_no_server_is_said_plainly() -> None:
    with pytest.raises(ServeUnreachable, match=re.escape("no aicc serve answered at http://127.0.0.1:9")):
        ServeClient("http://127.0.0.1:9", timeout_s=2).health()


def test_serves_a_world_module_of_ones_own(tmp_path: Path) -> None:
    dist = ROOT / "dist"
    module = tmp_path / "tiny.mjs"
    module.write_text(
        f"import {{ defineWorld }} from {json.dumps((dist / 'research.js').as_uri())};\n"
        f"import {{ swarmWorld }} from {json.dumps((dist / 'worlds.js').as_uri())};\n"
        "export default defineWorld({\n"
        "  ...swarmWorld, name: 'tiny', params: { ...swarmWorld.params, foragers: 2, size: 6 },\n"
        "});\n",
        encoding="utf-8",
    )
    with AiccServer.start(str(module), command=command()) as server:
        assert server.client.metadata()["name"] == "tiny"
        env = AiccGymEnv(server, max_ticks=3)
        try:
            assert server.client.schema()["agents"] == ["forager-000", "forager-001"]
            env.reset(seed=1)
            env.step(0)
            assert len(env.state_hash()) == 32
        finally:
            env.close()
