"""OpenEnv's own client (the `openenv` package's GenericEnvClient) plays Cleo in the village through
`aicc serve`'s /ws: reset, tool calls as actions, state, and errors as OpenEnv reports them."""

from __future__ import annotations

import pytest
from openenv.core.generic_client import GenericEnvClient

from aicc import AiccServer


def test_openenvs_client_drives_the_village(village: AiccServer) -> None:
    with GenericEnvClient(base_url=village.url).sync() as env:
        first = env.reset(seed=3, agent="cleo")
        tools = [tool["id"] for tool in first.observation["tools"]]
        assert "look" in tools and "go" in tools
        assert first.done is False and first.metadata["agent"] == "cleo"

        looked = env.step({"tool": "look", "input": {}})
        assert looked.observation["results"][0]["ok"] is True
        assert isinstance(looked.observation["results"][0]["output"]["name"], str)
        assert looked.metadata["tick"] == 1

        # A call the world refuses is the agent's news; the episode goes on.
        lost = env.step({"tool": "go", "input": {"direction": "through the wall"}})
        assert lost.observation["results"][0]["ok"] is False
        assert lost.observation["results"][0]["error"]["code"] in ("invalid_input", "execution_failed")

        state = env.state()
        assert state["seed"] == 3 and state["tick"] == 2 and len(state["state_hash"]) > 8

        # What is not an action at all is refused with OpenEnv's code, and the session is still there.
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
            env.step({"tool": 7})
        assert env.step({"tool": "who", "input": {}}).metadata["tick"] == 3


def test_the_packages_openenv_client_plays_a_forager_on_the_vectors_face(swarm: AiccServer) -> None:
    from aicc.openenv_env import AiccEnv, Move, ToolCall

    with AiccEnv(base_url=swarm.url).sync() as env:
        first = env.reset(seed=5, face="vectors", agent="forager-002")
        assert len(first.observation["vector"]) == 25
        moved = env.step(Move(3))
        assert moved.metadata["info"]["call"] == {
            "tool": "move",
            "ok": True,
            "output": moved.metadata["info"]["call"]["output"],
        }
        assert env.state()["face"] == "vectors"
    with AiccEnv(base_url=swarm.url).sync() as env:
        env.reset(seed=5, agent="forager-002")
        sensed = env.step(ToolCall("sense", {"radius": 2}))
        assert sensed.observation["results"][0]["tool"] == "sense"
