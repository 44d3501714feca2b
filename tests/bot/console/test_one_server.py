"""One ASGI app: the console, Slack's /slack/events (Bolt's ASGI adapter, signature checked), /healthz, /readyz, /metrics."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from bot.console.app import create_app
from bot.slack.app import build_app
from tests.bot.slack.conftest import SIGNING_SECRET, services  # noqa: F401  (the Slack-configured services fixture)
from tests.servers.slack_signing import url_verification_request


def test_slack_events_probes_and_console_share_one_app(services):
    app = create_app(services, bolt=build_app(services))
    client = TestClient(app)
    body, headers = url_verification_request(SIGNING_SECRET, "reto-123")
    response = client.post("/slack/events", content=body, headers=headers)
    assert response.status_code == 200 and "reto-123" in response.text
    headers["X-Slack-Signature"] = "v0=" + "0" * 64
    assert client.post("/slack/events", content=body, headers=headers).status_code == 401  # a forged request is refused by Bolt
    assert client.get("/healthz").text == "ok\n"
    ready = client.get("/readyz")
    assert ready.status_code in (200, 503) and "checks" in json.loads(ready.text)
    assert "orienta_queue_depth" in client.get("/metrics").text
    assert client.get("/", follow_redirects=False).headers["location"].startswith("/login")
    app.console.state.jobs.close()
