"""Drive the Bolt review app with signed interaction payloads and wait for its background work."""

from __future__ import annotations

from functools import partial

from slack_sdk import WebClient

from bot.loop.sending import send_now
from bot.slack.app import build_app
from tests.bot.slack.conftest import REVIEW_CHANNEL, SIGNING_SECRET
from tests.servers.slack_signing import block_actions_payload, event_request, interaction_request, to_bolt_request, view_submission_payload


def make_app(services, slack_server):
    return build_app(services, client=WebClient(token="xoxb-test", base_url=slack_server.api_url), send=partial(send_now, services))


def drain(app) -> None:
    """Wait until every listener and lazy listener the app started has finished."""
    app._listener_runner.listener_executor.shutdown(wait=True)


def click(app, action_id: str, draft_id, *, user: str = "U0ANA", channel: str = REVIEW_CHANNEL, ts: str = "1700000000.000100"):
    payload = block_actions_payload(action_id, str(draft_id), user_id=user, channel_id=channel, message={"type": "message", "ts": ts, "text": ""})
    return app.dispatch(to_bolt_request(*interaction_request(SIGNING_SECRET, payload)))


def submit(app, callback_id: str, values: dict, *, private_metadata: str, user: str = "U0ANA"):
    payload = view_submission_payload(callback_id, values, private_metadata=private_metadata, user_id=user)
    return app.dispatch(to_bolt_request(*interaction_request(SIGNING_SECRET, payload)))


def home_opened(app, *, user: str = "U0ANA"):
    body, headers = event_request(SIGNING_SECRET, {"type": "app_home_opened", "user": user, "channel": "D0HOME", "tab": "home", "event_ts": "1700000000.000200"})
    return app.dispatch(to_bolt_request(body, headers))
