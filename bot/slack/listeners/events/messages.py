"""Message and app_mention events: acknowledged at once, then stored exactly once (retries and double deliveries collapse)."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from bot.slack.intake import intake_slack_event
from review.db import session_scope

if TYPE_CHECKING:
    from slack_bolt import App

    from bot.wiring.services import Services

log = logging.getLogger(__name__)

IGNORED_SUBTYPES = frozenset({
    "bot_message", "message_changed", "message_deleted", "message_replied", "channel_join", "channel_leave",
    "channel_topic", "channel_purpose", "channel_name", "group_join", "group_leave", "pinned_item", "unpinned_item", "ekm_access_denied",
})


class RecentEventIds:
    """A bounded, thread-safe memory of event ids already accepted (Slack retries carry the same id)."""

    def __init__(self, size: int = 10_000) -> None:
        self.size = size
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, event_id: str | None) -> bool:
        """Remember the id; False when it was already there."""
        if not event_id:
            return True
        with self._lock:
            if event_id in self._ids:
                return False
            self._ids[event_id] = None
            while len(self._ids) > self.size:
                self._ids.popitem(last=False)
            return True


def is_student_message(event: dict[str, Any], *, channels: frozenset[str], bot_user_id: str | None) -> bool:
    """Whether an event is a person's message orienta must answer: DM, mention, or a message in a configured channel."""
    if event.get("bot_id") or event.get("subtype") in IGNORED_SUBTYPES or (event.get("subtype") and event.get("subtype") != "file_share"):
        return False
    if not event.get("user") or event.get("user") == bot_user_id:
        return False
    if event.get("type") == "app_mention":
        return True
    return event.get("channel_type") == "im" or event.get("channel") in channels


def store_event(services: "Services", body: dict[str, Any]) -> None:
    """Store one event's message (exactly once, keyed by channel and ts)."""
    event = body.get("event") or {}
    with session_scope(services.engine) as session:
        message, created = intake_slack_event(session, event, event_id=body.get("event_id"), question_max_chars=services.settings.drafting.question_max_chars)
    log.info("slack event %s -> message %s (%s)", body.get("event_id"), message.id, "stored" if created else "duplicate")


def register(app: "App", services: "Services", send=None) -> None:
    channels = frozenset(services.settings.slack.channels)
    recent = RecentEventIds()

    def ack_now(ack, body) -> None:
        ack()

    def process(body, context) -> None:
        event = body.get("event") or {}
        if not is_student_message(event, channels=channels, bot_user_id=context.get("bot_user_id")):
            return
        if not recent.add(body.get("event_id")):
            log.info("slack retry of event %s ignored", body.get("event_id"))
            return
        store_event(services, body)

    app.event("message")(ack=ack_now, lazy=[process])
    app.event("app_mention")(ack=ack_now, lazy=[process])
