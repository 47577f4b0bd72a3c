"""The asyncio aicc/0.1 client against `aicc serve`'s live character (/aicc): a session, calls,
events in order, refusals as outcomes, and a resume across a dropped socket with nothing lost and
nothing handled twice."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from aicc import AgentClient, AiccServer, NotConnected, SessionClosed


async def test_plays_a_live_forager_and_resumes_across_a_dropped_socket(swarm: AiccServer) -> None:
    live = swarm.client.live(seed=2, params={"foragers": 3}, agent="forager-001")
    sequences: list[int] = []

    def trace(message: dict[str, Any]) -> None:
        if message["message_id"].startswith(prefix[0]):
            sequences.append(int(message["message_id"][24:], 16))

    prefix = [""]
    client = await AgentClient.connect(
        swarm.client.aicc_url(live["episode_id"], "forager-001"), on_message=lambda m: trace(m)
    )
    prefix[0] = client._prefix
    sequences.append(1)  # the session_init, traced before its prefix was known
    assert [tool["id"] for tool in client.tools] == ["sense", "move", "eat"]
    assert client.manifest["world"]["name"]

    sensed = await client.call("sense", {"radius": 3})
    assert sensed.ok and sensed.output is not None and "at" in sensed.output
    refused = await client.call("sense", {"radius": 0})
    assert not refused.ok and refused.error is not None and refused.error["code"] == "invalid_input"

    ticks: list[int] = []

    async def take(count: int) -> None:
        for _ in range(count):
            event = await client.next_event(timeout_s=5)
            if event["topic"] == "tick":
                ticks.append(int(event["payload"]["tick"]))

    await take(3)
    # The socket drops while a call waits; the world goes on; the resume brings what was missed.
    pending = asyncio.create_task(client.call("move", {"dx": 1, "dy": 0}))
    await asyncio.sleep(0)
    await client.drop()
    assert client.state == "disconnected"
    await asyncio.sleep(0.3)
    await client.resume(swarm.client.aicc_url(live["episode_id"]))
    moved = await pending
    assert moved.ok and moved.output is not None
    await take(5)
    # Nothing lost: the bridge's messages, both sockets together, number 1, 2, 3 … with no hole (a replay
    # may bring one twice); nothing twice: each tick handed on once, in order.
    numbered = sorted(set(sequences))
    assert numbered == list(range(1, len(numbered) + 1))
    assert len(set(ticks)) == len(ticks) and ticks == sorted(ticks)
    assert not client.errors
    await client.close("done")
    assert client.state == "closed"
    with pytest.raises(SessionClosed):
        await client.next_event(timeout_s=1)


async def test_says_plainly_what_it_cannot_reach(swarm: AiccServer) -> None:
    with pytest.raises(NotConnected):
        await AgentClient.connect("ws://127.0.0.1:9/aicc", timeout_s=2)
    live = swarm.client.live(seed=1)
    client = await AgentClient.connect(swarm.client.aicc_url(live["episode_id"], live["agent"]))
    # A second session for the same character is refused: the socket closes before any session_init.
    with pytest.raises(NotConnected):
        await AgentClient.connect(swarm.client.aicc_url(live["episode_id"], live["agent"]), timeout_s=3)
    await client.close()


async def test_asks_for_its_manifest_and_declares_what_it_wants(swarm: AiccServer) -> None:
    live = swarm.client.live(seed=3)
    client = await AgentClient.connect(swarm.client.aicc_url(live["episode_id"], live["agent"]))
    asked = await client.request_manifest()
    assert [tool["id"] for tool in asked["tools"]] == [tool["id"] for tool in client.tools]
    assert "session_id" not in asked and "type" not in asked

    # The bridge answers a declaration with the manifest as it now stands: what was declared is in it.
    declared = await client.declare(subscriptions=["collision"], agent_model={"class": "edge_small"})
    assert declared["event_subscriptions"] == ["collision"]
    assert declared["agent_model"]["class"] == "edge_small"
    assert client.manifest == declared
    # Declaring only the model keeps the subscriptions.
    again = await client.declare(agent_model={"class": "cloud_large"})
    assert again["event_subscriptions"] == ["collision"] and again["agent_model"]["class"] == "cloud_large"
    assert not client.errors

    await client.drop()
    with pytest.raises(NotConnected):
        await client.request_manifest()
    await client.close()
