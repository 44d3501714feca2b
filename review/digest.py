"""The weekly digest: what happened to the messages orienta received in one ISO week."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape
from sqlmodel import Session, col, select

from review import states
from review.models import AuditEvent, DigestRun, InboundMessage, utcnow
from review.weeks import parse_week

COUNT_KEYS = ("received", "skipped", "quarantined", "out_of_domain", "drafted", "approved", "edited", "rejected", "sent")


@dataclass
class Digest:
    """The week's figures."""

    week: str
    counts: dict[str, int]
    by_channel: dict[str, int] = field(default_factory=dict)
    skip_reasons: dict[str, int] = field(default_factory=dict)
    quarantine_reasons: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"week": self.week, **self.counts, "by_channel": self.by_channel, "skip_reasons": self.skip_reasons, "quarantine_reasons": self.quarantine_reasons}


def build_digest(*, session: Session, week: str) -> Digest:
    """Counts for messages stored during `week`; a message counts in every state it has reached."""
    start, end = parse_week(week)
    messages = session.exec(select(InboundMessage).where(InboundMessage.created_at >= start, InboundMessage.created_at < end)).all()
    ids = [m.id for m in messages]
    reached: dict[int, set[str]] = {i: set() for i in ids}  # type: ignore[misc]
    if ids:
        for mid, to_state in session.exec(select(AuditEvent.message_id, AuditEvent.to_state).where(col(AuditEvent.message_id).in_(ids))).all():
            if to_state:
                reached[mid].add(to_state)  # type: ignore[index]
    counts = dict.fromkeys(COUNT_KEYS, 0)
    counts["received"] = len(messages)
    for m in messages:
        seen = reached[m.id] | {m.state}  # type: ignore[index]
        for key in ("skipped", "quarantined", "drafted", "approved", "edited", "rejected", "sent"):
            counts[key] += key in seen
        counts["out_of_domain"] += m.gate_in_domain is False
    return Digest(
        week=week,
        counts=counts,
        by_channel=dict(Counter(m.channel for m in messages)),
        skip_reasons=dict(Counter(m.reason or "?" for m in messages if m.state == states.SKIPPED)),
        quarantine_reasons=dict(Counter((m.reason or "?").split(":")[0] for m in messages if m.state == states.QUARANTINED)),
    )


_ENV = Environment(loader=PackageLoader("review", "templates"), autoescape=select_autoescape(["html"]))


def write_report(digest: Digest, reports_dir: Path) -> tuple[Path, Path]:
    """Write the digest as Markdown and HTML; returns both paths."""
    reports_dir.mkdir(parents=True, exist_ok=True)
    ctx = {"d": digest, "labels": LABELS}
    md = reports_dir / f"digest-{digest.week}.md"
    html = reports_dir / f"digest-{digest.week}.html"
    md.write_text(_ENV.get_template("digest.md.j2").render(**ctx), encoding="utf-8")
    html.write_text(_ENV.get_template("digest.html.j2").render(**ctx), encoding="utf-8")
    return md, html


def record_run(*, session: Session, digest: Digest, md: Path, html: Path) -> DigestRun:
    """One row per ISO week; rebuilding updates it."""
    run = session.get(DigestRun, digest.week) or DigestRun(iso_week=digest.week)
    run.figures, run.markdown_path, run.html_path, run.created_at = digest.as_dict(), str(md), str(html), utcnow()
    session.add(run)
    session.flush()
    return run


LABELS = {
    "received": "Recibidos",
    "skipped": "Omitidos (respuestas automáticas, listas)",
    "quarantined": "En cuarentena",
    "out_of_domain": "Fuera de dominio",
    "drafted": "Con borrador",
    "approved": "Aprobados",
    "edited": "Editados",
    "rejected": "Rechazados",
    "sent": "Enviados",
}
