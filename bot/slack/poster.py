"""Rate-limited posting of review cards: about one message per second per channel, honouring Retry-After."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlmodel import col, select

from bot.errors import ChannelError
from review import queue, states
from review.db import session_scope
from review.models import Draft, InboundMessage

if TYPE_CHECKING:
    from slack_sdk import WebClient

    from bot.wiring.services import Services

log = logging.getLogger(__name__)


class PostFailed(ChannelError):
    """Slack refused a message even after waiting out its rate limits."""


@dataclass
class PosterStats:
    """What the poster did: posts, 429s seen and seconds spent waiting."""

    posted: int = 0
    rate_limited: int = 0
    waited_s: float = 0.0
    errors: list[str] = field(default_factory=list)


class RateLimitedPoster:
    """Calls the Slack Web API through per-channel pacing; a 429 waits `Retry-After` seconds and retries."""

    def __init__(self, client: "WebClient", *, rate_per_channel: float = 1.0, max_attempts: int = 8, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        self.client = client
        self.interval = 1.0 / rate_per_channel
        self.max_attempts = max_attempts
        self.clock, self.sleep = clock, sleep
        self.stats = PosterStats()
        self._next_slot: dict[str, float] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def _lock(self, channel: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(channel, threading.Lock())

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self.stats.waited_s += seconds
            self.sleep(seconds)

    def post_message(self, *, channel: str, **kwargs: Any) -> dict[str, Any]:
        """chat.postMessage, paced per channel (messages to one channel go out one at a time, in order)."""
        with self._lock(channel):
            self._wait(self._next_slot.get(channel, 0.0) - self.clock())
            response = self.call("chat_postMessage", channel=channel, **kwargs)
            self._next_slot[channel] = self.clock() + self.interval
            self.stats.posted += 1
            return response

    def call(self, method: str, **kwargs: Any) -> dict[str, Any]:
        """Any WebClient method (e.g. "chat_update"), retried after `Retry-After` when Slack answers 429."""
        from slack_sdk.errors import SlackApiError

        for attempt in range(1, self.max_attempts + 1):
            try:
                return getattr(self.client, method)(**kwargs).data  # type: ignore[no-any-return]
            except SlackApiError as exc:
                if exc.response.status_code != 429 or attempt == self.max_attempts:
                    raise PostFailed(f"{method} failed: {exc.response.get('error') or exc}") from exc
                self.stats.rate_limited += 1
                retry_after = float(exc.response.headers.get("Retry-After") or exc.response.headers.get("retry-after") or 1)
                log.info("%s rate limited; waiting %.1fs (attempt %d)", method, retry_after, attempt)
                self._wait(retry_after)
        raise PostFailed(f"{method} failed after {self.max_attempts} attempts")  # pragma: no cover - loop always returns or raises


_poster_lock = threading.Lock()


def poster_for(services: "Services", *, client: "WebClient | None" = None) -> RateLimitedPoster:
    """The process-wide poster of these services (pacing state must be shared by every sender)."""
    with _poster_lock:
        poster = services.__dict__.get("_slack_poster")
        if poster is None:  # Bolt hands each request a new WebClient; pacing must outlive them
            from bot.slack.app import web_client

            s = services.settings.slack
            poster = RateLimitedPoster(client or web_client(services), rate_per_channel=s.post_rate_per_channel, max_attempts=s.max_post_attempts)
            services.__dict__["_slack_poster"] = poster
        return poster


_claim_lock = threading.Lock()  # SQLite has no row locks: one poster per process at a time


def _claim_next(session, *, after_id: int) -> tuple[Draft, InboundMessage] | None:
    stmt = (
        select(Draft, InboundMessage)
        .join(InboundMessage, InboundMessage.id == Draft.message_id)
        .where(InboundMessage.state == states.DRAFTED, col(Draft.slack_ts).is_(None), col(Draft.id) > after_id)
        .order_by(col(Draft.id))
        .limit(1)
    )
    if session.get_bind().dialect.name == "postgresql":
        stmt = stmt.with_for_update(skip_locked=True, of=Draft)  # another worker posting this card skips it
    row = session.exec(stmt).first()
    return (row[0], row[1]) if row else None


def review_channel_for(services: "Services", message: InboundMessage) -> str | None:
    """Campus mode: the review channel of the message's office (None: the deployment's, also for an office that is gone)."""
    if message.office is None:
        return None
    from bot.wiring.campus import campus_of
    from review.errors import UnknownOffice

    try:
        return campus_of(services).info(message.office).review_channel
    except UnknownOffice:
        return None


def post_pending_cards(services: "Services", *, client: "WebClient | None" = None, poster: RateLimitedPoster | None = None, limit: int | None = None, lang: str | None = None) -> int:
    """Post a review card for every pending draft that has none yet, oldest first; store its channel and ts."""
    from bot.slack.blocks import review_card

    s = services.settings.slack
    if s.review_channel is None:
        return 0
    if poster is None:
        if s.bot_token is None and client is None:
            return 0
        poster = poster_for(services, client=client)
    lang = lang or services.settings.llm.language
    posted, last_id = 0, 0
    with _claim_lock:
        while limit is None or posted < limit:
            with session_scope(services.engine) as session:
                row = _claim_next(session, after_id=last_id)
                if row is None:
                    break
                draft, message = row
                last_id = draft.id  # type: ignore[assignment]
                try:
                    response = poster.post_message(channel=review_channel_for(services, message) or s.review_channel, unfurl_links=False, unfurl_media=False, **review_card(draft, message, lang=lang))
                except PostFailed as exc:
                    log.warning("review card for draft %s not posted: %s", draft.id, exc)
                    poster.stats.errors.append(f"draft {draft.id}: {exc}")
                    continue
                queue.set_card(session=session, draft_id=draft.id, channel=response["channel"], ts=response["ts"])  # type: ignore[arg-type]
                posted += 1
    return posted
