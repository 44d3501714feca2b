"""What the Slack review listeners do: authorise, decide through review.queue, update the card, send the reply."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlmodel import select

from bot.slack import blocks
from bot.slack.poster import PostFailed, poster_for
from pipeline.texts import t
from review import queue
from review.db import session_scope
from review.errors import ConcurrentUpdate, NotFound, ReviewError
from review.models import AuditEvent, Decision, utcnow

if TYPE_CHECKING:
    from slack_sdk import WebClient

    from bot.wiring.services import Services

log = logging.getLogger(__name__)
NOTIFIED = "slack_card_updated"
SET_ASIDE_DAYS = 7  # the App Home lists the messages set aside without a draft over the last week
_notify_lock = threading.Lock()
_registry_lock = threading.Lock()


def actor_for(user_id: str) -> str:
    """How a Slack reviewer is recorded in decisions and audit events."""
    return f"slack:{user_id}"


def lang_of(services: "Services") -> str:
    return services.settings.llm.language


# ---------------------------------------------------------------- who may act
class Reviewers:
    """Authorised reviewers: the configured user ids, or else the review channel's members (cached)."""

    def __init__(self, services: "Services") -> None:
        self.services = services
        self._members: dict[str, tuple[frozenset[str], float]] = {}  # channel -> (members, fetched at)
        self._lock = threading.Lock()

    def allowed(self, user_id: str, client: "WebClient", *, reviewers: tuple[str, ...] | list[str] | None = None, review_channel: str | None = None) -> bool:
        """Whether `user_id` reviews for the deployment (or, given them, for one office: its reviewers or its channel's members)."""
        s = self.services.settings.slack
        if reviewers is None and review_channel is None:
            reviewers, review_channel = s.reviewers, s.review_channel
        if reviewers:
            return user_id in reviewers
        if not review_channel:
            return False
        return user_id in self._channel_members(client, review_channel)

    def _channel_members(self, client: "WebClient", channel: str) -> frozenset[str]:
        with self._lock:
            members_at = self._members.get(channel)
            if members_at is None or time.monotonic() - members_at[1] > self.services.settings.slack.members_cache_seconds:
                members: set[str] = set()
                cursor = None
                while True:
                    response = client.conversations_members(channel=channel, cursor=cursor, limit=200)
                    members.update(response.get("members", []))
                    cursor = (response.get("response_metadata") or {}).get("next_cursor")
                    if not cursor:
                        break
                members_at = self._members[channel] = (frozenset(members), time.monotonic())
            return members_at[0]


def reviewers_for(services: "Services") -> Reviewers:
    """The process-wide reviewer check of these services (its member cache is shared)."""
    with _registry_lock:
        found = services.__dict__.get("_slack_reviewers")
        if found is None:
            found = services.__dict__["_slack_reviewers"] = Reviewers(services)
        return found


def authorised(services: "Services", client: "WebClient", *, user_id: str, channel: str | None, draft_id: int | None = None, message_id: int | None = None, answer_id: int | None = None) -> bool:
    """May `user_id` act on this draft's (or message's) card, clicked in `channel`?

    One office: a reviewer of the deployment. Campus mode: a campus lead (`offices.leads`) anywhere; otherwise a
    reviewer of the message's office (its reviewers, else its review channel's members; the default office: the
    deployment's), acting from that office's review channel or outside any channel (App Home, a modal). A message of an
    office that does not exist (any more) is the campus lead's only."""
    from bot.wiring.campus import campus_of
    from review.errors import UnknownOffice

    campus = campus_of(services)
    check = reviewers_for(services)
    if not campus.is_campus():
        return check.allowed(user_id, client)
    if user_id in services.settings.offices.leads:
        return True
    office_name = _office_of(services, draft_id=draft_id, message_id=message_id, answer_id=answer_id)
    try:
        office = campus.info(office_name) if office_name else next(o for o in campus.offices() if o.default)
    except UnknownOffice:
        return False
    if office.default:
        reviewers, review_channel = services.settings.slack.reviewers, services.settings.slack.review_channel
    else:
        reviewers, review_channel = list(office.reviewers), office.review_channel or services.settings.slack.review_channel
    if channel and channel.startswith(("C", "G")) and review_channel and channel != review_channel:
        return False  # a card of this office clicked in another office's channel
    return check.allowed(user_id, client, reviewers=reviewers, review_channel=review_channel)


def offices_of(services: "Services", client: "WebClient", *, user_id: str) -> list[str | None] | None:
    """Campus mode: the offices `user_id` reviews (None in it: the default office); None: every office (one office, or a
    campus lead)."""
    from bot.wiring.campus import campus_of

    campus = campus_of(services)
    if not campus.is_campus() or user_id in services.settings.offices.leads:
        return None
    check, s = reviewers_for(services), services.settings.slack
    out: list[str | None] = []
    for office in campus.offices():
        reviewers, channel = (s.reviewers, s.review_channel) if office.default else (list(office.reviewers), office.review_channel or s.review_channel)
        if check.allowed(user_id, client, reviewers=reviewers, review_channel=channel):
            out.append(None if office.default else office.name)
    return out


def _office_of(services: "Services", *, draft_id: int | None, message_id: int | None, answer_id: int | None = None) -> str | None:
    from review.answer_models import CuratedAnswer
    from review.models import InboundMessage

    with session_scope(services.engine) as session:
        if answer_id is not None:
            answer = session.get(CuratedAnswer, answer_id)
            return answer.office if answer is not None else None
        if draft_id is not None:
            try:
                return queue.get_draft(session=session, draft_id=draft_id)[1].office
            except NotFound:
                return None
        message = session.get(InboundMessage, message_id) if message_id is not None else None
        return message.office if message is not None else None


def message_id_of(services: "Services", draft_id: int) -> int | None:
    with session_scope(services.engine) as session:
        try:
            return queue.get_draft(session=session, draft_id=draft_id)[1].id
        except NotFound:
            return None


def refuse(services: "Services", client: "WebClient", *, user_id: str, channel: str | None, action: str, draft_id: int | None) -> None:
    """Record the refused attempt and tell the user privately."""
    mid = message_id_of(services, draft_id) if draft_id is not None else None
    with session_scope(services.engine) as session:
        queue.audit(session=session, actor=actor_for(user_id), event="unauthorised", message_id=mid, details={"action": action, "draft_id": draft_id})
    tell(client, user_id=user_id, channel=channel, text=t("review_not_authorised", lang_of(services)))


def tell(client: "WebClient", *, user_id: str, channel: str | None, text: str) -> None:
    """An ephemeral note in `channel`, or a direct message when that is not possible."""
    from slack_sdk.errors import SlackApiError

    if channel:
        try:
            client.chat_postEphemeral(channel=channel, user=user_id, text=text)
            return
        except SlackApiError as exc:
            log.info("ephemeral to %s in %s failed (%s); sending a DM", user_id, channel, exc.response.get("error"))
    dm = client.conversations_open(users=user_id)["channel"]["id"]
    client.chat_postMessage(channel=dm, text=text)


# ---------------------------------------------------------------- deciding
def decide(
    services: "Services", *, action: str, draft_id: int, user_id: str, text: str | None = None, reason: str | None = None, comment: str | None = None, confirm_links: bool = False
) -> Decision:
    """Record the decision through the shared queue functions (raises ConcurrentUpdate/ReviewError)."""
    actor = actor_for(user_id)
    with session_scope(services.engine) as session:
        if action == "approve":
            return queue.approve(session=session, draft_id=draft_id, actor=actor, confirm_links=confirm_links)
        if action == "edit":
            return queue.edit(session=session, draft_id=draft_id, actor=actor, text=text or "", confirm_links=confirm_links)
        if action == "reject":
            return queue.reject(session=session, draft_id=draft_id, actor=actor, reason=reason or "", comment=comment or None)
    raise ReviewError(f"unknown action {action!r}")


def conflict_text(services: "Services", exc: ConcurrentUpdate) -> str:
    return blocks.already_decided_text(exc.actor, exc.action, lang_of(services))


def is_repeat(exc: ConcurrentUpdate, *, user_id: str, action: str) -> bool:
    """The same reviewer's same decision arriving again (double click, redelivery): not an error."""
    return exc.actor == actor_for(user_id) and exc.action == action


def sync_card(services: "Services", client: "WebClient", *, draft_id: int) -> Decision | None:
    """Show the recorded decision on the draft's card (update in place + one thread note); returns the decision."""
    lang = lang_of(services)
    with _notify_lock, session_scope(services.engine) as session:
        draft, message = queue.get_draft(session=session, draft_id=draft_id)
        decision = queue.decision_for(session=session, message_id=message.id)  # type: ignore[arg-type]
        if decision is None or not (draft.slack_channel and draft.slack_ts):
            return decision
        done = session.exec(select(AuditEvent).where(AuditEvent.message_id == message.id, AuditEvent.event == NOTIFIED)).first()
        if done is None:
            poster = poster_for(services, client=client)
            try:
                poster.call("chat_update", channel=draft.slack_channel, ts=draft.slack_ts, **blocks.decided_card(draft, message, decision, lang=lang))
                poster.post_message(channel=draft.slack_channel, thread_ts=draft.slack_ts, text=blocks.decision_line(decision, lang))
            except PostFailed as exc:  # the decision stands; the card is refreshed by the next sync
                log.warning("could not update the card of draft %s: %s", draft_id, exc)
            else:
                queue.audit(session=session, actor="orienta", event=NOTIFIED, message_id=message.id, details={"decision_id": decision.id})
        return decision


def after_decision(services: "Services", client: "WebClient", *, draft_id: int, send: "Callable[[], None] | None" = None) -> None:
    """Send an approved reply now (`send`, from whoever runs the loop), update the card, refresh the reviewer's App Home."""
    with session_scope(services.engine) as session:
        _, message = queue.get_draft(session=session, draft_id=draft_id)
        decision = queue.decision_for(session=session, message_id=message.id)  # type: ignore[arg-type]
    if decision is None:
        return
    if send is not None and decision.action in ("approve", "edit"):
        send()  # the student first; Slack's rate limits only delay the card
    sync_card(services, client, draft_id=draft_id)
    if decision.actor.startswith("slack:"):
        publish_home(services, client, user_id=decision.actor.removeprefix("slack:"))


# ---------------------------------------------------------------- App Home
def home_for(services: "Services", *, user_id: str, now: datetime | None = None, offices: list[str | None] | None = None) -> dict[str, Any]:
    """The App Home view for `user_id` (`offices`: campus mode, only these offices' messages; None: all)."""
    now = now or utcnow()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    with session_scope(services.engine) as session:
        pending = queue.count_pending(session=session, offices=offices)
        oldest = queue.oldest_pending_at(session=session, offices=offices)
        mine = queue.decisions_by(session=session, actor=actor_for(user_id), since=midnight)
        upcoming = queue.list_drafts(session=session, limit=10, offices=offices)
        set_aside = queue.not_drafted(session=session, since=now - timedelta(days=SET_ASIDE_DAYS), limit=blocks.SET_ASIDE_LIMIT, offices=offices)
    return blocks.home_view(pending=pending, oldest_at=oldest, mine_today=mine, now=now, upcoming=upcoming, set_aside=set_aside, lang=lang_of(services))


def publish_home(services: "Services", client: "WebClient", *, user_id: str) -> None:
    from slack_sdk.errors import SlackApiError

    try:
        client.views_publish(user_id=user_id, view=home_for(services, user_id=user_id, offices=offices_of(services, client, user_id=user_id)))
    except SlackApiError as exc:
        log.info("App Home for %s not published: %s", user_id, exc.response.get("error"))



def sync_decided_cards(services: "Services", *, client: "WebClient | None" = None, limit: int = 100) -> int:
    """Bring cards of drafts decided elsewhere (terminal) up to date; returns how many were updated."""
    from sqlmodel import col

    from bot.slack.app import web_client
    from review.models import Draft

    with session_scope(services.engine) as session:
        notified = select(AuditEvent.message_id).where(AuditEvent.event == NOTIFIED)
        ids = list(
            session.exec(
                select(Draft.id)
                .join(Decision, Decision.draft_id == Draft.id)
                .where(col(Draft.slack_ts).is_not(None), col(Draft.message_id).not_in(notified))
                .order_by(col(Draft.id))
                .limit(limit)
            ).all()
        )
    if not ids:
        return 0
    client = client or web_client(services)
    for draft_id in ids:
        sync_card(services, client, draft_id=draft_id)  # type: ignore[arg-type]
    return len(ids)


def review_pass(services: "Services") -> dict[str, int]:
    """One loop step: post cards for new drafts and refresh cards decided elsewhere; a no-op without Slack review."""
    from slack_sdk.errors import SlackClientError

    s = services.settings.slack
    if s.bot_token is None or not s.review_channel:
        return {}
    try:
        from bot.slack.poster import post_pending_cards

        return {"cards_posted": post_pending_cards(services), "cards_synced": sync_decided_cards(services)}
    except (SlackClientError, OSError) as exc:  # Slack unreachable: drafts keep waiting; the next pass retries
        log.warning("Slack review pass failed: %s", exc)
        return {"errors": 1}
