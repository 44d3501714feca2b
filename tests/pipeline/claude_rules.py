"""Helpers for tests that drive the product against the Anthropic stand-in.

What the real Messages API refuses per model lives in one place, the stand-in's rules table
(`tests/servers/anthropic_server/rules.py`, with the pages each rule comes from).
"""

from __future__ import annotations

from typing import Any


def assert_valid(server) -> None:
    """Every request the stand-in received would be accepted by the real API for its model."""
    assert not server.refusals, server.refusals


def json_responder(make: Any):
    """A stand-in responder answering structured-output requests with JSON text built by `make(request)` (else echo)."""
    import json

    def respond(req: dict[str, Any]):
        if (req.get("output_config") or {}).get("format"):
            return json.dumps(make(req), ensure_ascii=False)
        return "respuesta de prueba"

    return respond


def refusals(body: dict[str, Any]) -> list[str]:
    """What the real API would refuse in a Messages body, by the stand-in's rules ([] when it would be accepted)."""
    import datetime as dt

    from tests.servers.anthropic_server import citations, rules

    try:
        citations.check_request(body)
        rules.check_request(body, rules.rules_for(body.get("model"), dt.date.today()))
    except rules.RuleError as exc:
        return [exc.message]
    return []
