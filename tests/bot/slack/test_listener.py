"""How Slack reaches orienta: Socket Mode through Bolt's SocketModeHandler against a local Socket Mode stand-in,
and HTTP mode behind waitress."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request

import pytest
from pydantic import SecretStr
from sqlmodel import Session, select

from bot.errors import ChannelError
from bot.wiring.services import Services
from bot.slack.listener import SlackListener
from pipeline.errors import ConfigurationError
from review.models import InboundMessage
from tests.servers.slack_signing import event_envelope, event_request

pytest.importorskip("websockets", reason="websockets (test extra) runs the Socket Mode stand-in")
from tests.servers.slack_socket import FakeSocketMode  # noqa: E402

SECRET = "listener-signing-secret"
APP_TOKEN = "xapp-1-A0APP0001-test"


def _dm(ts: str) -> dict:
    return {"type": "message", "channel": "D0DM00001", "user": "U0STUDENT1", "text": "¿cuándo abre Bedelía?", "ts": ts, "channel_type": "im"}


def _rows(services) -> list[InboundMessage]:
    with Session(services.engine) as s:
        return list(s.exec(select(InboundMessage)).all())


def _wait(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def socket_mode(slack_server):
    sm = FakeSocketMode(app_tokens=(APP_TOKEN,))
    slack_server.attach_socket_mode(sm)
    yield sm
    sm.stop()


@pytest.fixture
def services(settings, slack_server):
    settings.slack.bot_token, settings.slack.base_url = SecretStr("xoxb-test"), slack_server.api_url
    settings.slack.signing_secret = SecretStr(SECRET)
    settings.slack.host, settings.slack.port = "127.0.0.1", 0
    svc = Services(settings)
    yield svc
    svc.close()


@pytest.fixture
def socket_services(services):
    services.settings.slack.socket_mode, services.settings.slack.app_token = True, SecretStr(APP_TOKEN)
    services.settings.slack.signing_secret = None  # Socket Mode needs no signing secret
    return services


# ---------------------------------------------------------------- Socket Mode
def test_socket_mode_receives_events_and_acks_in_time(socket_services, socket_mode, slack_server):
    listener = SlackListener(socket_services).start()
    try:
        socket_mode.wait_connected()
        [opened] = slack_server.calls_to("apps.connections.open")
        assert opened.ok and opened.token == APP_TOKEN and opened.headers["authorization"] == f"Bearer {APP_TOKEN}"
        env = socket_mode.deliver(event_envelope(_dm("1794920580.000100"), "EvSOCK1"))
        assert socket_mode.wait_acked(env, timeout=3.0)  # Slack's limit
        assert env.attempts == 1  # acknowledged in time: no redelivery
        assert _wait(lambda: len(_rows(socket_services)) == 1)
        assert _rows(socket_services)[0].source_key == "slack:D0DM00001:1794920580.000100"
        home = socket_mode.deliver(event_envelope({"type": "app_home_opened", "user": "U0ANA", "channel": "D0HOME", "tab": "home"}))
        assert socket_mode.wait_acked(home)
        assert _wait(lambda: slack_server.successful_calls("views.publish"))
    finally:
        listener.stop()
    assert socket_mode.stray_acks == []


def test_socket_mode_interactions_are_acked_and_handled(socket_services, socket_mode, slack_server):
    """A button click over Socket Mode: acknowledged in time, then handled (an outsider is refused privately)."""
    from bot.slack import blocks
    from tests.servers.slack_signing import block_actions_payload

    socket_services.settings.slack.review_channel, socket_services.settings.slack.reviewers = "CREVIEW01", ["U0ANA"]
    listener = SlackListener(socket_services).start()
    try:
        socket_mode.wait_connected()
        payload = block_actions_payload(blocks.APPROVE, "1", user_id="U0INTRUSO", channel_id="CREVIEW01",
                                        message={"type": "message", "ts": "1700000000.000100", "text": ""})
        env = socket_mode.deliver(payload, type="interactive")
        assert socket_mode.wait_acked(env, timeout=3.0)
        assert _wait(lambda: slack_server.successful_calls("chat.postEphemeral"))
        [refusal] = slack_server.successful_calls("chat.postEphemeral")
        assert refusal.args["user"] == "U0INTRUSO"
    finally:
        listener.stop()


def test_socket_mode_reconnects_when_slack_asks(socket_services, socket_mode, slack_server):
    listener = SlackListener(socket_services).start()
    try:
        socket_mode.wait_connected()
        socket_mode.request_refresh()
        socket_mode.wait_connected(count=2)
        assert len(slack_server.successful_calls("apps.connections.open")) == 2  # a fresh URL for every connection
        env = socket_mode.deliver(event_envelope(_dm("1794920581.000100"), "EvSOCK2"))
        assert socket_mode.wait_acked(env)
        assert _wait(lambda: len(_rows(socket_services)) == 1)
    finally:
        listener.stop()


@pytest.mark.parametrize("token,error", [("xoxb-test", "not_allowed_token_type"), ("xapp-1-A0APP0001-revoked", "invalid_auth")])
def test_socket_mode_with_a_wrong_token_is_a_clear_error(socket_services, socket_mode, token, error):
    socket_services.settings.slack.app_token = SecretStr(token)
    with pytest.raises(ChannelError, match=error):
        SlackListener(socket_services).start()
    assert socket_mode.connects == 0


def test_socket_mode_without_an_app_token_is_refused(socket_services):
    socket_services.settings.slack.app_token = None
    with pytest.raises(ConfigurationError, match="ORIENTA_SLACK__APP_TOKEN"):
        SlackListener(socket_services)


# ---------------------------------------------------------------- what the stand-in refuses, as Slack does
def test_stand_in_redelivers_an_unacknowledged_event_and_refuses_a_used_ticket(socket_mode, slack_server):
    from slack_sdk import WebClient
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    socket_mode.ack_timeout_s = 0.3
    url = WebClient(token=APP_TOKEN, base_url=slack_server.api_url).apps_connections_open(app_token=APP_TOKEN)["url"]
    with connect(url) as ws:
        assert json.loads(ws.recv())["type"] == "hello"
        env = socket_mode.deliver(event_envelope(_dm("1.1"), "EvNOACK"))
        first, second = json.loads(ws.recv(timeout=5)), json.loads(ws.recv(timeout=5))
        assert (first["retry_attempt"], second["retry_attempt"], second["retry_reason"]) == (0, 1, "timeout")
        assert first["envelope_id"] == second["envelope_id"] == env.envelope_id
        ws.send(json.dumps({"envelope_id": env.envelope_id}))
        assert socket_mode.wait_acked(env)
        with pytest.raises(InvalidStatus):  # one ticket, one connection
            connect(url)
    with pytest.raises(Exception, match="not_allowed_token_type"):
        WebClient(token="xoxb-test", base_url=slack_server.api_url).apps_connections_open(app_token="xoxb-test")
    with pytest.raises(Exception, match="not_allowed_token_type"):  # and an app-level token opens nothing else
        WebClient(token=APP_TOKEN, base_url=slack_server.api_url).auth_test()


# ---------------------------------------------------------------- HTTP mode
def test_http_mode_is_served_by_waitress_and_stops_cleanly(services):
    listener = SlackListener(services).start()
    port = listener.port
    body, headers = event_request(SECRET, _dm("1794920582.000100"), event_id="EvHTTP1")
    request = urllib.request.Request(f"http://127.0.0.1:{port}/slack/events", data=body, headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as resp:
        assert resp.status == 200 and resp.headers["Server"] == "orienta"
    assert _wait(lambda: len(_rows(services)) == 1)
    forged = urllib.request.Request(f"http://127.0.0.1:{port}/slack/events", data=body, headers=dict(headers, **{"X-Slack-Signature": "v0=00"}), method="POST")
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(forged, timeout=10)
    assert err.value.code == 401
    listener.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_orienta_run_receives_slack_over_socket_mode(socket_services, socket_mode):
    """The long-running app (`orienta run`) with ORIENTA_SLACK__SOCKET_MODE=true: no HTTP port, events over the socket."""
    from bot.loop.app import Job, OrientaApp

    app = OrientaApp(socket_services, jobs=[Job("noop", 60.0, lambda _services: None)], imap=False).start()
    try:
        assert app.slack_listener is not None and app.slack_listener.port is None
        socket_mode.wait_connected()
        env = socket_mode.deliver(event_envelope(_dm("1794920583.000100"), "EvRUN1"))
        assert socket_mode.wait_acked(env, timeout=3.0)
        assert _wait(lambda: len(_rows(socket_services)) == 1)
    finally:
        app.stop()
    assert _wait(lambda: not socket_mode.open_connections())  # stop() closed the socket
