"""Build correctly signed Slack -> app HTTP requests (Events API, interactivity,
slash commands, url_verification) for feeding a Bolt app.

Signing follows Slack's v0 scheme: ``X-Slack-Signature: v0=<hex HMAC-SHA256
(signing_secret, "v0:{timestamp}:{raw body}")>`` with the same timestamp in
``X-Slack-Request-Timestamp``.  Bolt rejects (401) bad signatures and
timestamps more than 5 minutes from now.

Every ``*_request`` function returns ``(body_bytes, headers)``; pass them to
Bolt as ``BoltRequest(body=body.decode(), headers=headers)`` (see
``to_bolt_request``) or POST them to a running adapter.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from typing import Any, Dict, Optional, Tuple, Union
from urllib.parse import urlencode

__all__ = [
    "sign",
    "signed_headers",
    "event_envelope",
    "event_request",
    "interaction_request",
    "url_verification_request",
    "slash_command_request",
    "block_actions_payload",
    "view_submission_payload",
    "to_bolt_request",
    "DEFAULT_TEAM_ID",
    "DEFAULT_APP_ID",
    "DEFAULT_BOT_USER_ID",
]

DEFAULT_TEAM_ID = "T0TEST001"  # matches FakeSlackServer defaults
DEFAULT_APP_ID = "A0APP0001"
DEFAULT_BOT_USER_ID = "U0BOT0001"
DEFAULT_DOMAIN = "orienta-test"

Body = Union[bytes, str]


def _b(body: Body) -> bytes:
    return body.encode("utf-8") if isinstance(body, str) else body


def sign(secret: str, timestamp: Union[int, str], body: Body) -> str:
    """``"v0=" + hex(HMAC-SHA256(secret, f"v0:{timestamp}:{body}"))``."""
    base = b"v0:" + str(timestamp).encode() + b":" + _b(body)
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def signed_headers(
    secret: str,
    body: Body,
    *,
    ts: Optional[Union[int, str]] = None,
    content_type: str = "application/json",
    retry_num: Optional[int] = None,
    retry_reason: str = "http_timeout",
) -> Dict[str, str]:
    """Headers Slack sends with ``body``: Content-Type, X-Slack-Request-Timestamp,
    X-Slack-Signature (+ X-Slack-Retry-Num / X-Slack-Retry-Reason on retries)."""
    ts = int(time.time()) if ts is None else ts
    headers = {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": str(ts),
        "X-Slack-Signature": sign(secret, ts, body),
    }
    if retry_num is not None:
        headers["X-Slack-Retry-Num"] = str(retry_num)
        headers["X-Slack-Retry-Reason"] = retry_reason
    return headers


def event_envelope(
    event: Dict[str, Any],
    event_id: Optional[str] = None,
    *,
    team_id: str = DEFAULT_TEAM_ID,
    api_app_id: str = DEFAULT_APP_ID,
    bot_user_id: str = DEFAULT_BOT_USER_ID,
    event_time: Optional[int] = None,
    verification_token: str = "legacy-verification-token",
) -> Dict[str, Any]:
    """The Events API ``event_callback`` envelope around ``event``."""
    event = dict(event)
    now = time.time()
    if "event_ts" not in event:
        event["event_ts"] = event.get("ts") or f"{now:.6f}"
    return {
        "token": verification_token,
        "team_id": team_id,
        "context_team_id": team_id,
        "context_enterprise_id": None,
        "api_app_id": api_app_id,
        "event": event,
        "type": "event_callback",
        "event_id": event_id or "Ev" + secrets.token_hex(5).upper(),
        "event_time": int(now) if event_time is None else event_time,
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": team_id,
                "user_id": bot_user_id,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": "4-" + secrets.token_urlsafe(24),
    }


def event_request(
    secret: str,
    event: Dict[str, Any],
    event_id: Optional[str] = None,
    retry_num: Optional[int] = None,
    ts: Optional[Union[int, str]] = None,
    *,
    retry_reason: str = "http_timeout",
    **envelope_kw: Any,
) -> Tuple[bytes, Dict[str, str]]:
    """Signed Events API delivery of ``event``.  ``retry_num`` adds
    X-Slack-Retry-Num / X-Slack-Retry-Reason like Slack's redeliveries (same
    event_id).  ``ts`` overrides the signing timestamp (e.g. stale ones)."""
    body = json.dumps(event_envelope(event, event_id, **envelope_kw)).encode()
    return body, signed_headers(secret, body, ts=ts, retry_num=retry_num, retry_reason=retry_reason)


def url_verification_request(
    secret: str, challenge: Optional[str] = None, *, ts: Optional[Union[int, str]] = None
) -> Tuple[bytes, Dict[str, str]]:
    """The ``url_verification`` handshake; the app must echo ``challenge``."""
    body = json.dumps(
        {
            "token": "legacy-verification-token",
            "challenge": challenge or secrets.token_urlsafe(32),
            "type": "url_verification",
        }
    ).encode()
    return body, signed_headers(secret, body, ts=ts)


def interaction_request(
    secret: str, payload: Dict[str, Any], *, ts: Optional[Union[int, str]] = None
) -> Tuple[bytes, Dict[str, str]]:
    """Interactivity delivery: ``payload=<json>`` form-encoded."""
    body = urlencode({"payload": json.dumps(payload)}).encode()
    return body, signed_headers(secret, body, ts=ts, content_type="application/x-www-form-urlencoded")


def slash_command_request(
    secret: str,
    command: str,
    text: str = "",
    *,
    user_id: str = "U0USER001",
    user_name: str = "user",
    channel_id: str = "C0CHAN001",
    channel_name: str = "general",
    team_id: str = DEFAULT_TEAM_ID,
    api_app_id: str = DEFAULT_APP_ID,
    trigger_id: Optional[str] = None,
    ts: Optional[Union[int, str]] = None,
) -> Tuple[bytes, Dict[str, str]]:
    """Slash command delivery (form-encoded fields, as Slack sends them)."""
    fields = {
        "token": "legacy-verification-token",
        "team_id": team_id,
        "team_domain": DEFAULT_DOMAIN,
        "channel_id": channel_id,
        "channel_name": channel_name,
        "user_id": user_id,
        "user_name": user_name,
        "command": command,
        "text": text,
        "api_app_id": api_app_id,
        "is_enterprise_install": "false",
        "response_url": f"https://hooks.slack.com/commands/{team_id}/{secrets.randbelow(10**12)}/{secrets.token_hex(12)}",
        "trigger_id": trigger_id or _trigger_id(),
    }
    body = urlencode(fields).encode()
    return body, signed_headers(secret, body, ts=ts, content_type="application/x-www-form-urlencoded")


def _trigger_id() -> str:
    return f"{secrets.randbelow(10**11)}.{secrets.randbelow(10**10)}.{secrets.token_hex(16)}"


def _user(user_id: str, team_id: str) -> Dict[str, Any]:
    return {"id": user_id, "username": user_id.lower(), "name": user_id.lower(), "team_id": team_id}


def block_actions_payload(
    action_id: str,
    value: Optional[str] = None,
    *,
    block_id: str = "block",
    action_type: str = "button",
    user_id: str = "U0USER001",
    channel_id: Optional[str] = "C0CHAN001",
    message: Optional[Dict[str, Any]] = None,
    view: Optional[Dict[str, Any]] = None,
    trigger_id: Optional[str] = None,
    team_id: str = DEFAULT_TEAM_ID,
    api_app_id: str = DEFAULT_APP_ID,
    extra_action: Optional[Dict[str, Any]] = None,
) -> Dict[str, Any]:
    """A ``block_actions`` payload for a click on ``action_id`` in a message
    (default) or, with ``view=``, inside a modal / App Home."""
    action: Dict[str, Any] = {
        "action_id": action_id,
        "block_id": block_id,
        "type": action_type,
        "action_ts": f"{time.time():.6f}",
    }
    if value is not None:
        action["value"] = value
    action.update(extra_action or {})
    payload: Dict[str, Any] = {
        "type": "block_actions",
        "user": _user(user_id, team_id),
        "api_app_id": api_app_id,
        "token": "legacy-verification-token",
        "trigger_id": trigger_id or _trigger_id(),
        "team": {"id": team_id, "domain": DEFAULT_DOMAIN},
        "enterprise": None,
        "is_enterprise_install": False,
        "actions": [action],
    }
    if view is not None:
        payload["container"] = {"type": "view", "view_id": view.get("id", "V0VIEW001")}
        payload["view"] = view
    else:
        msg = message or {"type": "message", "ts": "1700000000.000100", "text": "", "user": DEFAULT_BOT_USER_ID}
        payload["container"] = {
            "type": "message",
            "message_ts": msg.get("ts"),
            "channel_id": channel_id,
            "is_ephemeral": False,
        }
        payload["channel"] = {"id": channel_id, "name": "general"}
        payload["message"] = msg
        payload["state"] = {"values": {}}
        payload["response_url"] = f"https://hooks.slack.com/actions/{team_id}/{secrets.randbelow(10**12)}/{secrets.token_hex(12)}"
    return payload


def view_submission_payload(
    callback_id: str,
    values: Optional[Dict[str, Dict[str, Dict[str, Any]]]] = None,
    *,
    private_metadata: str = "",
    view_id: str = "V0VIEW001",
    user_id: str = "U0USER001",
    team_id: str = DEFAULT_TEAM_ID,
    api_app_id: str = DEFAULT_APP_ID,
    blocks: Optional[list] = None,
    trigger_id: Optional[str] = None,
) -> Dict[str, Any]:
    """A ``view_submission`` payload.  ``values`` is the
    ``view.state.values`` mapping: ``{block_id: {action_id: {"type": ..., "value": ...}}}``."""
    return {
        "type": "view_submission",
        "team": {"id": team_id, "domain": DEFAULT_DOMAIN},
        "user": _user(user_id, team_id),
        "api_app_id": api_app_id,
        "token": "legacy-verification-token",
        "trigger_id": trigger_id or _trigger_id(),
        "view": {
            "id": view_id,
            "team_id": team_id,
            "type": "modal",
            "blocks": blocks or [],
            "private_metadata": private_metadata,
            "callback_id": callback_id,
            "state": {"values": values or {}},
            "hash": f"{int(time.time())}.{secrets.token_hex(4)}",
            "title": {"type": "plain_text", "text": "Form"},
            "clear_on_close": False,
            "notify_on_close": False,
            "close": None,
            "submit": {"type": "plain_text", "text": "Submit"},
            "previous_view_id": None,
            "root_view_id": view_id,
            "app_id": api_app_id,
            "external_id": "",
            "app_installed_team_id": team_id,
            "bot_id": "B0BOT0001",
        },
        "response_urls": [],
        "is_enterprise_install": False,
        "enterprise": None,
    }


def to_bolt_request(body: Body, headers: Dict[str, str]):
    """``slack_bolt.request.BoltRequest`` for ``app.dispatch(...)``."""
    from slack_bolt.request import BoltRequest

    return BoltRequest(body=_b(body).decode("utf-8"), headers=dict(headers))
