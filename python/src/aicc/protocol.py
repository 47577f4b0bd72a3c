"""aicc/0.1 messages as this package checks them: the same verdicts as the TypeScript side
(``checkMessage``), held to the shared test vectors both suites read (test/vectors/aicc-messages.json).

The gate first — a JSON object, ``protocol`` exactly ``aicc/0.1`` (else ``protocol_mismatch``), a
``type`` of aicc/0.1 sent the right way (else ``wrong_direction``) — then the message's own schema from
the protocol's JSON Schema (bundled: schema/aicc.schema.json, the file of the protocol's repository).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from jsonschema import Draft202012Validator, FormatChecker

PROTOCOL = "aicc/0.1"
Sender = Literal["agent", "bridge"]

#: Each message type the sender may send, and its definition in the schema.
_SHAPES: dict[str, dict[str, str]] = {
    "agent": {
        "tool_call": "toolCall",
        "heartbeat": "heartbeat",
        "session_resume": "sessionResume",
        "manifest_request": "manifestRequest",
        "session_close": "sessionClose",
    },
    "bridge": {
        "event": "event",
        "tool_result": "toolResult",
        "heartbeat": "heartbeat",
        "error": "errorMessage",
        "session_close": "sessionClose",
        "session_init": "sessionInit",
    },
}
_TYPES = {
    "session_init",
    "session_resume",
    "session_close",
    "manifest_request",
    "tool_call",
    "tool_result",
    "event",
    "error",
    "heartbeat",
}
_UUID = re.compile(r"^(?:urn:uuid:)?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


@dataclass(frozen=True)
class Verdict:
    """``ok``, or why not: ``kind`` is protocol_mismatch, wrong_direction or schema_violation."""

    ok: bool
    kind: str | None = None
    message: str = ""


def _schema() -> dict[str, Any]:
    text = resources.files("aicc").joinpath("schema/aicc.schema.json").read_text(encoding="utf-8")
    return dict(json.loads(text))


_SCHEMA = _schema()
_FORMATS = FormatChecker(formats=())


def _is_uuid(value: object) -> bool:
    # As the TypeScript side (and ajv-formats) reads "uuid": 8-4-4-4-12 hex digits, either case, urn:uuid: allowed.
    return not isinstance(value, str) or _UUID.match(value) is not None


_FORMATS.checks("uuid")(_is_uuid)


_VALIDATORS: dict[str, Draft202012Validator] = {}


def _validator(definition: str) -> Draft202012Validator:
    found = _VALIDATORS.get(definition)
    if found is None:
        root = {"$schema": _SCHEMA.get("$schema"), "$defs": _SCHEMA["$defs"], "$ref": f"#/$defs/{definition}"}
        found = Draft202012Validator(root, format_checker=_FORMATS)
        _VALIDATORS[definition] = found
    return found


def _first_error(definition: str, value: object) -> str | None:
    error = next(iter(_validator(definition).iter_errors(value)), None)
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path)
    return f"{'/' + where if where else 'message'}: {error.message}"


def check_message(value: object, sender: Sender) -> Verdict:
    """The verdict on one decoded message from `sender`."""
    if not isinstance(value, dict):
        return Verdict(False, "schema_violation", "message must be a JSON object")
    if value.get("protocol") != PROTOCOL:
        return Verdict(
            False, "protocol_mismatch", f'protocol must be "{PROTOCOL}", got {json.dumps(value.get("protocol"))[:40]}'
        )
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in _TYPES:
        return Verdict(False, "schema_violation", f"type {json.dumps(kind)[:40]} is not an aicc/0.1 message type")
    definition = _SHAPES[sender].get(kind)
    if definition is None:
        other = "bridge" if sender == "agent" else "agent"
        return Verdict(False, "wrong_direction", f"{kind} is sent by the {other}, not the {sender}")
    problem = _first_error(definition, value)
    if problem is None and kind == "heartbeat" and "manifest_update" in value:
        problem = _manifest_update(value, sender)
    return Verdict(True) if problem is None else Verdict(False, "schema_violation", problem)


def _manifest_update(heartbeat: dict[str, Any], sender: Sender) -> str | None:
    update = heartbeat["manifest_update"]
    if sender == "bridge":
        # session_init without its two ids: checked as one, with the heartbeat's.
        if "session_id" in update or "message_id" in update:
            return "heartbeat.manifest_update must not carry session_id or message_id"
        return _first_error(
            "sessionInit", {**update, "session_id": heartbeat["session_id"], "message_id": heartbeat["message_id"]}
        )
    # From an agent, a bridge reads only agent_model and event_subscriptions.
    model = update.get("agent_model")
    if model is None:
        return "heartbeat.manifest_update.agent_model is required"
    problem = _first_error("modelDecl", model)
    if problem is not None:
        return problem
    topics = update.get("event_subscriptions")
    if topics is not None and not (isinstance(topics, list) and all(isinstance(topic, str) for topic in topics)):
        return "heartbeat.manifest_update.event_subscriptions must be an array of strings"
    return None
