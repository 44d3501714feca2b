"""Retention: raw messages and personal data are deleted after a configurable number of days; decisions and metrics stay."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, col, select

from review import states
from review.models import AuditEvent, InboundMessage, OutgoingReply, utcnow

# Only finished messages are purged: pending ones still need their text to be reviewed and answered.
FINISHED = frozenset({states.SKIPPED, states.QUARANTINED, states.REJECTED, states.SENT})
PURGED_SENDER = "(eliminado)"


@dataclass
class RetentionReport:
    """What one retention pass removed."""

    cutoff: datetime
    messages: int = 0
    replies: int = 0

    def as_dict(self) -> dict:
        return {"cutoff": self.cutoff.isoformat(), "messages": self.messages, "replies": self.replies}


def purge_personal_data(*, session: Session, days: int, now: datetime | None = None, actor: str = "orienta-retention", batch: int = 500) -> RetentionReport:
    """Blank raw mail, texts, sender and subject of finished messages older than `days`; keep states, drafts, decisions and audit."""
    cutoff = (now or utcnow()) - timedelta(days=days)
    report = RetentionReport(cutoff=cutoff)
    while True:
        ids = list(
            session.exec(
                select(InboundMessage.id)
                .where(col(InboundMessage.state).in_(FINISHED), InboundMessage.created_at < cutoff, col(InboundMessage.redacted_at).is_(None))
                .order_by(col(InboundMessage.id))
                .limit(batch)
            ).all()
        )
        if not ids:
            break
        at = utcnow()
        session.execute(
            update(InboundMessage)
            .where(col(InboundMessage.id).in_(ids))
            .values(raw=None, body_text=None, cleaned_text=None, sender=PURGED_SENDER, subject=None, thread_ref=None, attachments=[], redacted_at=at)
            .execution_options(synchronize_session=False)
        )
        result = session.execute(
            update(OutgoingReply)
            .where(col(OutgoingReply.message_id).in_(ids))
            .values(recipient=None, subject=None, body="", in_reply_to=None, references_header=None)
            .execution_options(synchronize_session=False)
        )
        session.add_all(AuditEvent(message_id=i, actor=actor, event="personal_data_deleted", details={"retention_days": days}) for i in ids)
        session.flush()
        report.messages += len(ids)
        report.replies += result.rowcount or 0
    return report
