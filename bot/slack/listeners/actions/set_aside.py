"""«Necesita respuesta»: a message set aside without a draft (closing, skipped, quarantined) goes back to drafting."""

from __future__ import annotations

import logging
import re
from typing import Any

from bot.slack import blocks, reviewing
from bot.slack.listeners.actions.review import _ack, _lazy
from pipeline.texts import t
from review import queue
from review.db import session_scope
from review.errors import ReviewError
from review.models import InboundMessage

log = logging.getLogger(__name__)


def needs_reply(services, body: dict[str, Any], client) -> None:
    """The button's value is the message id; the one state machine moves it back to `received` (audited), the worker drafts it."""
    action = body["actions"][0]
    user_id = body["user"]["id"]
    container = body.get("container") or {}
    channel = container.get("channel_id") or (body.get("channel") or {}).get("id")
    lang = reviewing.lang_of(services)
    try:
        message_id = int(action.get("value") or "")
    except ValueError:
        log.warning("needs-reply click with a malformed value: %r", action.get("value"))
        return
    if not reviewing.authorised(services, client, user_id=user_id, channel=channel, message_id=message_id):
        with session_scope(services.engine) as session:
            queue.audit(session=session, actor=reviewing.actor_for(user_id), event="unauthorised", message_id=message_id if session.get(InboundMessage, message_id) else None, details={"action": queue.NEEDS_REPLY})
        reviewing.tell(client, user_id=user_id, channel=channel, text=t("review_not_authorised", lang))
        return
    try:
        with session_scope(services.engine) as session:
            queue.needs_reply(session=session, message_id=message_id, actor=reviewing.actor_for(user_id))
    except ReviewError as exc:
        reviewing.tell(client, user_id=user_id, channel=channel, text=t("set_aside_error", lang).format(error=exc))
        return
    reviewing.tell(client, user_id=user_id, channel=channel, text=f"msg {message_id}: " + t("set_aside_done", lang).format(who=blocks.who(reviewing.actor_for(user_id))))
    if container.get("type") == "view":  # clicked in the App Home: show the list without it
        reviewing.publish_home(services, client, user_id=user_id)


def register(app, services, send=None) -> None:
    app.action(re.compile(rf"^{blocks.NEEDS_REPLY}_\d+$"))(ack=_ack, lazy=[_lazy(services, needs_reply)])
