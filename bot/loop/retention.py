"""Retention at the edges: the database purge, then the outbox copies, the old digest reports and the Slack review cards."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from sqlmodel import col, select

from bot.email.maildir import OutboxMaildir
from bot.learning.forgetting import Forgotten, forget_learnt, forget_vectors_of
from bot.wiring.services import Services
from bot.slack.outbox import SlackOutboxFile
from review import queue
from review.db import session_scope
from review.models import AuditEvent, Draft, InboundMessage, OutgoingReply, utcnow
from review.retention import TOMBSTONE, RetentionReport, purge_personal_data
from review.weeks import iso_week

log = logging.getLogger(__name__)
CARD_BLANKED = "slack_card_purged"
_DIGEST_FILE = re.compile(r"^digest-(\d{4}-W\d{2})\.(?:md|html)$")


@dataclass
class RetentionPass:
    """One pass of retention: the database report plus what was cleaned outside the database."""

    database: RetentionReport
    outbox_files: int = 0
    slack_outbox_lines: int = 0
    report_files: int = 0
    cards_blanked: int = 0
    learnt: Forgotten = field(default_factory=Forgotten)  # cached vectors, staff memories, retraining reports
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return self.database.as_dict() | {
            "outbox_files": self.outbox_files, "slack_outbox_lines": self.slack_outbox_lines, "report_files": self.report_files,
            "cards_blanked": self.cards_blanked, "learnt": self.learnt.as_dict(), "errors": self.errors,
        }


def apply_retention(services: Services) -> RetentionPass:
    """Forget everything older than database.retention_days: database texts, outbox files, digest reports, Slack cards."""
    s = services.settings
    own = _own_retention(services)
    vectors = 0

    def forget_vectors(messages) -> None:  # while their texts are still there: the cached vectors derived from them go first
        nonlocal vectors
        vectors += forget_vectors_of(services, messages)

    with session_scope(services.engine) as session:
        report = purge_personal_data(session=session, days=s.database.retention_days, except_offices=list(own), before_wipe=forget_vectors)
        for office, days in own.items():  # campus mode: an office with a retention of its own
            _merge(report, purge_personal_data(session=session, days=days, offices=[office], before_wipe=forget_vectors))
    if report.messages and services.engine.dialect.name == "sqlite":  # old page versions must not survive in the WAL file
        with services.engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    done = RetentionPass(database=report)
    # one embedding cache for the campus: its message vectors go at the shortest retention of any office
    shortest = min([s.database.retention_days, *own.values()])
    done.learnt = forget_learnt(services, [services, *_office_services(services)], utcnow() - timedelta(days=shortest), already=vectors)
    with session_scope(services.engine) as session:  # also replies purged by an earlier pass that stopped half-way
        purged = list(session.exec(select(OutgoingReply.channel, OutgoingReply.our_message_id).join(InboundMessage, InboundMessage.id == OutgoingReply.message_id).where(col(InboundMessage.redacted_at).is_not(None), col(OutgoingReply.our_message_id).is_not(None))).all())
    outbox = s.paths.outbox_dir
    done.outbox_files = OutboxMaildir(outbox).remove({m for c, m in purged if c == "email"}, older_than=report.cutoff.timestamp())
    done.slack_outbox_lines = SlackOutboxFile(outbox / "slack.jsonl").remove({m for c, m in purged if c == "slack"})
    done.report_files += _remove_reports(s.paths.reports_dir, iso_week(utcnow() - timedelta(days=s.database.retention_days)))
    for office, reports in _office_reports(services):  # each office's own digests, at its own retention
        done.report_files += _remove_reports(reports, iso_week(utcnow() - timedelta(days=own.get(office, s.database.retention_days))))
    done.cards_blanked = blank_cards(services, done)
    if report.messages or done.outbox_files or done.report_files or done.cards_blanked or any(done.learnt.as_dict().values()):
        log.info("retention: %s", done.as_dict())
    return done


def _own_retention(services: Services) -> dict[str, int]:
    """Campus mode: the offices whose retention is their own (office name -> days); {} for one office."""
    from bot.wiring.campus import campus_of

    campus = campus_of(services)
    if not campus.is_campus():
        return {}
    return {o.name: o.retention_days for o in campus.offices() if not o.default and o.retention_days}


def _office_services(services: Services) -> list[Services]:
    """Campus mode: the services of every office but the default one ([] for one office)."""
    from bot.wiring.campus import campus_of

    campus = campus_of(services)
    if not campus.is_campus():
        return []
    return [campus.office_services(o.name) for o in campus.offices() if not o.default]


def _office_reports(services: Services) -> list[tuple[str, Path]]:
    from bot.wiring.campus import campus_of

    campus = campus_of(services)
    if not campus.is_campus():
        return []
    return [(o.name, campus.office_services(o.name).settings.paths.reports_dir) for o in campus.offices() if not o.default]


def _merge(into: RetentionReport, other: RetentionReport) -> None:
    """One report for several passes: counts added, what the edges must clean joined, the earliest cutoff kept (files
    older than it are past every office's retention)."""
    for name in ("messages", "replies", "drafts", "decisions", "expired_replies", "curated_cleaned", "curated_deleted"):
        setattr(into, name, getattr(into, name) + getattr(other, name))
    for name in ("outbox_message_ids", "slack_reply_keys", "cards", "digest_weeks"):
        getattr(into, name).extend(x for x in getattr(other, name) if x not in getattr(into, name))
    into.cutoff = min(into.cutoff, other.cutoff)


def _remove_reports(reports: Path, last_week: str) -> int:
    """Delete the digest reports of weeks before `last_week`; how many files went."""
    removed = 0
    if reports.is_dir():
        for path in reports.iterdir():
            m = _DIGEST_FILE.match(path.name)
            if m and m.group(1) < last_week:
                path.unlink()
                removed += 1
    return removed


def blank_cards(services: Services, done: RetentionPass | None = None) -> int:
    """Replace the review cards of purged messages with a placeholder (no-op without a Slack bot token)."""
    if services.settings.slack.bot_token is None:
        return 0
    from slack_sdk.errors import SlackClientError

    from bot.slack.app import web_client

    with session_scope(services.engine) as session:
        blanked = select(AuditEvent.message_id).where(AuditEvent.event == CARD_BLANKED)
        cards = list(
            session.exec(
                select(Draft.message_id, Draft.slack_channel, Draft.slack_ts)
                .join(InboundMessage, InboundMessage.id == Draft.message_id)
                .where(col(InboundMessage.redacted_at).is_not(None), col(Draft.slack_ts).is_not(None), col(Draft.message_id).not_in(blanked))
            ).all()
        )
    if not cards:
        return 0
    client = web_client(services)
    count = 0
    for message_id, channel, ts in cards:
        try:
            client.chat_update(channel=channel, ts=ts, text=TOMBSTONE, blocks=[{"type": "section", "text": {"type": "mrkdwn", "text": f"_{TOMBSTONE}_"}}])
        except SlackClientError as exc:  # the next pass tries again
            log.warning("could not blank the review card %s/%s: %s", channel, ts, exc)
            if done is not None:
                done.errors.append(f"card {channel}/{ts}: {exc}")
            continue
        with session_scope(services.engine) as session:
            queue.audit(session=session, actor="orienta-retention", event=CARD_BLANKED, message_id=message_id)
        count += 1
    return count
