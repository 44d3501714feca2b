"""`orienta demo`: the whole loop on the bundled sample office, in a fresh data dir."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sqlmodel import Session, func, select

from bot.demo import sample
from bot.demo.reviewer import SampleReviewer, WeekWork, count_week
from bot.email.maildir import copy_to_maildir
from bot.learning.gate_training import train_gate_offline
from bot.ops.documents import ingest_documents
from bot.wiring.services import Services
from bot.slack.intake import intake_slack_event
from bot.loop.worker import RunReport, run_once
from pipeline.settings import Settings
from review import queue, states
from review.answer_models import CuratedAnswer
from review.answer_memory import source_answer_id
from review.db import session_scope
from review.digest import build_digest, record_run, write_report
from review.models import Draft, InboundMessage
from review.weeks import iso_week

MARKER = ".orienta-demo"
Progress = Callable[[str], None]


@dataclass
class DemoRow:
    """What happened to one sample message."""

    source: str
    state: str
    reason: str | None
    gate: str
    references: list[str]
    expected: dict
    draft_id: int | None = None
    decision: str | None = None
    reused_from: int | None = None  # the curated answer the draft was made from
    reused_source: str | None = None  # the sample message that curated answer was approved for
    follows: str | None = None  # the sample message this one follows up in its conversation
    week: int = 1  # the demo week it arrived in

    @property
    def outcome(self) -> str:
        if self.state in (states.SKIPPED, states.QUARANTINED, states.ACKNOWLEDGED):
            return self.state
        if self.gate == "out":
            return "out_of_domain"
        return "no_info" if not self.references else "answerable"

    @property
    def matches(self) -> bool:
        want = self.expected.get("outcome")
        linked = "follows" not in self.expected or self.expected["follows"] == self.follows  # a follow-up must be in its thread
        if want == "answerable":
            return linked and self.outcome == "answerable" and self.expected.get("doc") in self.references
        return linked and self.outcome == want


@dataclass
class DemoResult:
    data_dir: Path
    rows: list[DemoRow] = field(default_factory=list)
    first_run: RunReport | None = None
    second_run: RunReport | None = None
    send_run: RunReport | None = None
    repeat_run: RunReport | None = None
    followup_run: RunReport | None = None
    week2_run: RunReport | None = None
    weeks: list[WeekWork] = field(default_factory=list)  # the reviewer's work, week 1 then week 2
    outbox: Path | None = None
    report_html: Path | None = None
    report_md: Path | None = None
    digest: dict = field(default_factory=dict)


def fresh_data_dir(path: Path) -> Path:
    """Empty `path` for the demo; refuse to wipe a folder the demo did not create."""
    if path.exists() and any(path.iterdir()):
        if not (path / MARKER).exists():
            raise RuntimeError(f"{path} exists and was not created by `orienta demo`; choose another --data-dir")
        shutil.rmtree(path)
    path.mkdir(parents=True, exist_ok=True)
    (path / MARKER).write_text("created by orienta demo\n", encoding="utf-8")
    return path


def user_additions(path: Path) -> list[str]:
    """What someone added to a demo data dir after the demo ran: console uploads, staff accounts, decisions and changes
    recorded after it finished (empty for a dir the demo left as it was, or that is not a demo dir)."""
    import sqlite3

    found = []
    uploads = path / "documents"
    if uploads.is_dir() and any(uploads.iterdir()):
        found.append(f"documentos agregados en {uploads}")
    finished = (path / MARKER).read_text(encoding="utf-8").splitlines()[1:2] if (path / MARKER).exists() else []
    db = path / "orienta.db"
    if db.exists():
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
                if "staff_account" in tables and conn.execute("SELECT count(*) FROM staff_account").fetchone()[0]:
                    found.append("cuentas de la consola")
                if finished and "audit_event" in tables:
                    later = conn.execute("SELECT count(*) FROM audit_event WHERE at > ?", (finished[0],)).fetchone()[0]
                    if later:
                        found.append(f"{later} cambios registrados después de la demo (decisiones, mensajes, respuestas)")
        except sqlite3.Error:
            found.append("una base de datos que la demo no puede leer")
    return found


def _mark_finished(path: Path) -> None:
    """Remember when the demo finished: anything recorded later was added by someone."""
    from datetime import datetime, timezone

    stamp = datetime.now(timezone.utc).replace(tzinfo=None).isoformat(sep=" ")
    (path / MARKER).write_text(f"created by orienta demo\n{stamp}\n", encoding="utf-8")


def run_demo(settings: Settings, *, progress: Progress = lambda msg: None) -> DemoResult:
    """Ingest, train the gate, then two weeks of sample traffic, each reviewed whole by a simulated reviewer; send, digest."""
    data_dir = fresh_data_dir(settings.paths.data_dir)
    settings.paths.maildir = copy_to_maildir(list(sample.emails_dir().glob("*.eml")), data_dir / "inbox")
    services = Services(settings)
    result = DemoResult(data_dir=data_dir)
    try:
        progress("Indexando los documentos de la oficina de ejemplo…")
        ingest_documents(services, [sample.docs_dir()])
        progress("Entrenando el gate de dominio…")
        train_gate_offline(services)
        reviewer = SampleReviewer(_sample_key, {doc_id: {"title": d.get("title"), "url": d.get("url")} for doc_id, d in services.index.documents().items()})
        _week_one(services, result, reviewer, progress)
        week1_last = _last_message_id(services)
        _week_two(services, result, reviewer, progress)
        with session_scope(services.engine) as session:
            result.weeks = [
                count_week(session, week=1, first_id=1, last_id=week1_last),
                count_week(session, week=2, first_id=week1_last + 1, last_id=_last_message_id(services)),
            ]
        with session_scope(services.engine) as session:
            digest = build_digest(session=session, week=iso_week(_now()))  # both demo weeks are stored in the current ISO week
            md, html = write_report(digest, settings.paths.reports_dir)
            record_run(session=session, digest=digest, md=md, html=html)
        result.report_md, result.report_html, result.digest = md, html, digest.as_dict()
        result.outbox = settings.paths.outbox_dir
        result.rows = _rows(services, week1_last)
    finally:
        services.close()
    _mark_finished(data_dir)
    return result


def _week_one(services: Services, result: DemoResult, reviewer: SampleReviewer, progress: Progress) -> None:
    """The sample office's first week: messages, review, replies, repeated questions, follow-ups in threads, review."""
    progress("Semana 1 — recibiendo mensajes de Slack de ejemplo…")
    _intake_slack(services, sample.slack_messages(), "EvDemo")
    progress("Procesando el buzón (almacenar → limpiar → gate → recuperar → redactar)…")
    result.first_run = run_once(services)
    result.second_run = run_once(services)  # idempotent: nothing new
    progress("Revisión: la revisora aprueba los borradores correctos, reescribe los que no y rechaza el resto…")
    reviewer.review_pending(services)
    progress("Enviando las respuestas aprobadas…")
    result.send_run = run_once(services)
    progress("Llegan preguntas repetidas: se redactan desde las respuestas aprobadas…")
    _intake_slack(services, sample.slack_repeats(), "EvDemoRepeat")
    result.repeat_run = run_once(services)
    progress("Llegan respuestas de los estudiantes en sus hilos (seguimientos y cierres)…")
    copy_to_maildir(list(sample.followup_emails_dir().glob("*.eml")), services.settings.paths.maildir)
    _intake_slack(services, sample.slack_followups(), "EvDemoThread")
    result.followup_run = run_once(services)
    progress("Revisión del resto de la semana y envío…")
    reviewer.review_pending(services)
    run_once(services)


def _week_two(services: Services, result: DemoResult, reviewer: SampleReviewer, progress: Progress) -> None:
    """A second week of the same kind of questions, mostly asked again in other words; reviewed the same way."""
    progress("Semana 2 — llegan consultas del mismo tipo, muchas ya respondidas con otras palabras…")
    copy_to_maildir(list(sample.week2_emails_dir().glob("*.eml")), services.settings.paths.maildir)
    _intake_slack(services, sample.slack_week2(), "EvDemoWeek2")
    result.week2_run = run_once(services)
    progress("Revisión de la semana 2 y envío…")
    reviewer.review_pending(services)
    run_once(services)


def _intake_slack(services: Services, events: list[dict], prefix: str) -> None:
    with session_scope(services.engine) as session:
        for i, event in enumerate(events):
            intake_slack_event(session, event, event_id=f"{prefix}{i:03d}")


def _last_message_id(services: Services) -> int:
    with session_scope(services.engine) as session:
        return session.exec(select(func.max(InboundMessage.id))).one() or 0


def _now():
    from datetime import datetime, timezone

    return datetime.now(timezone.utc)


def _rows(services: Services, week1_last: int) -> list[DemoRow]:
    by_key = sample.expectations()
    rows = []
    with session_scope(services.engine) as session:
        all_messages = session.exec(select(InboundMessage).order_by(InboundMessage.id)).all()
        source_of = {m.id: _source(m) for m in all_messages}
        for m in all_messages:
            draft = session.exec(select(Draft).where(Draft.message_id == m.id)).first()
            decision = queue.decision_for(session=session, message_id=m.id)  # type: ignore[arg-type]
            expected = dict(by_key.get(_sample_key(m), {}))
            if "follows_ts" in expected:  # Slack follow-ups name their earlier message by ts
                expected["follows"] = f"slack {m.external_id.split(':')[0]}:{expected['follows_ts']}" if m.external_id else None
            gate = "-" if m.gate_in_domain is None else ("in" if m.gate_in_domain else "out")
            reused = source_answer_id(draft) if draft else None
            rows.append(
                DemoRow(
                    source=source_of[m.id],
                    state=m.state,
                    reason=m.reason,
                    gate=gate,
                    references=[r["doc_id"] for r in (draft.references if draft else [])],
                    expected=expected,
                    draft_id=draft.id if draft else None,
                    decision=decision.action if decision else None,
                    reused_from=reused,
                    reused_source=_answered_source(session, reused, source_of),
                    follows=source_of.get(m.follows_id),
                    week=1 if (m.id or 0) <= week1_last else 2,
                )
            )
    return rows


def _answered_source(session: Session, answer_id: int | None, source_of: dict) -> str | None:
    answer = session.get(CuratedAnswer, answer_id) if answer_id is not None else None
    return source_of.get(answer.message_id) if answer else None


def _source(m: InboundMessage) -> str:
    """The sample a stored message came from: e-mail file name (as followups/NAME, week2/NAME) or `slack channel:ts`."""
    if m.channel == "email":
        return _eml_name(m.raw or b"") or m.source_key.rsplit(":", 1)[-1]
    return f"slack {m.external_id}"


def _sample_key(m: InboundMessage) -> str:
    """The message's key in the sample's expectations: e-mail file name or Slack ts."""
    if m.channel == "email":
        return _source(m)
    return (m.external_id or "").split(":")[-1]


_EML_INDEX: dict[bytes, str] = {}


def _eml_name(raw: bytes) -> str | None:
    """Which sample file a stored raw message came from (the Maildir renames files)."""
    if not _EML_INDEX:
        for prefix, folder in (("", sample.emails_dir()), ("followups/", sample.followup_emails_dir()), ("week2/", sample.week2_emails_dir())):
            for f in folder.glob("*.eml"):
                _EML_INDEX[f.read_bytes()] = prefix + f.name
    return _EML_INDEX.get(raw)
