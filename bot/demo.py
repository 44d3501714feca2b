"""`orienta demo`: the whole loop on the bundled sample office, in a fresh data dir."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from sqlmodel import select

from bot import sample
from bot.email.maildir import copy_to_maildir
from bot.gating import train_gate_offline
from bot.operations import ingest_documents
from bot.services import Services
from bot.slack.intake import intake_slack_event
from bot.worker import RunReport, run_once
from pipeline.settings import Settings
from review import queue, states
from review.answers import source_answer_id
from review.db import session_scope
from review.digest import build_digest, record_run, write_report
from review.models import Draft, InboundMessage
from review.weeks import iso_week

MARKER = ".orienta-demo"


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
    follows: str | None = None  # the sample message this one follows up in its conversation

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


def run_demo(settings: Settings, *, approve: int = 5, progress=lambda msg: None) -> DemoResult:
    """Ingest, train the gate, take every sample message through the loop, review a few, send, digest."""
    data_dir = fresh_data_dir(settings.paths.data_dir)
    settings.paths.maildir = copy_to_maildir(list(sample.emails_dir().glob("*.eml")), data_dir / "inbox")
    services = Services(settings)
    result = DemoResult(data_dir=data_dir)
    try:
        progress("Indexando los documentos de la oficina de ejemplo…")
        ingest_documents(services, [sample.docs_dir()])
        progress("Entrenando el gate de dominio…")
        train_gate_offline(services)
        progress("Recibiendo mensajes de Slack de ejemplo…")
        with session_scope(services.engine) as session:
            for i, event in enumerate(sample.slack_messages()):
                intake_slack_event(session, event, event_id=f"EvDemo{i:03d}")
        progress("Procesando el buzón (almacenar → limpiar → gate → recuperar → redactar)…")
        result.first_run = run_once(services)
        result.second_run = run_once(services)  # idempotent: nothing new
        progress("Revisión: aprobando, editando y rechazando algunos borradores…")
        _review_some(services, approve)
        progress("Enviando las respuestas aprobadas…")
        result.send_run = run_once(services)
        progress("Llegan preguntas repetidas: se redactan desde las respuestas aprobadas…")
        with session_scope(services.engine) as session:
            for i, event in enumerate(sample.slack_repeats()):
                intake_slack_event(session, event, event_id=f"EvDemoRepeat{i:03d}")
        result.repeat_run = run_once(services)
        progress("Llegan respuestas de los estudiantes en sus hilos (seguimientos y cierres)…")
        copy_to_maildir(list(sample.followup_emails_dir().glob("*.eml")), data_dir / "inbox")
        with session_scope(services.engine) as session:
            for i, event in enumerate(sample.slack_followups()):
                intake_slack_event(session, event, event_id=f"EvDemoThread{i:03d}")
        result.followup_run = run_once(services)
        week = iso_week(_now())
        with session_scope(services.engine) as session:
            digest = build_digest(session=session, week=week)
            md, html = write_report(digest, settings.paths.reports_dir)
            record_run(session=session, digest=digest, md=md, html=html)
        result.report_md, result.report_html, result.digest = md, html, digest.as_dict()
        result.outbox = settings.paths.outbox_dir
        result.rows = _rows(services)
    finally:
        services.close()
    return result


def _now():
    from datetime import datetime, timezone

    return datetime.now(timezone.utc)


def _review_some(services: Services, approve: int) -> None:
    with session_scope(services.engine) as session:
        pending = queue.list_drafts(session=session, limit=1000)
    answered = [(d, m) for d, m in pending if d.references and not d.out_of_domain]
    no_info = [(d, m) for d, m in pending if d.no_info and not d.out_of_domain]
    for d, _ in answered[:approve]:
        with session_scope(services.engine) as session:
            queue.approve(session=session, draft_id=d.id, actor="demo:ana")  # type: ignore[arg-type]
    if len(answered) > approve:
        d = answered[approve][0]
        with session_scope(services.engine) as session:
            queue.edit(session=session, draft_id=d.id, actor="demo:bruno", text=d.text.replace("Hola:", "Hola, ¿cómo estás?", 1))  # type: ignore[arg-type]
    if no_info:
        with session_scope(services.engine) as session:
            queue.reject(session=session, draft_id=no_info[0][0].id, actor="demo:ana", reason="missing_info", comment="Falta este tema en los documentos.")  # type: ignore[arg-type]


def _rows(services: Services) -> list[DemoRow]:
    exp = sample.expected()
    threads = exp.get("followups", {})
    exp_emails = exp["emails"] | {f"followups/{k}": v for k, v in threads.get("emails", {}).items()}
    exp_slack = {e.get("ts"): e for e in exp.get("slack", []) + threads.get("slack", [])}
    rows = []
    with session_scope(services.engine) as session:
        all_messages = session.exec(select(InboundMessage).order_by(InboundMessage.id)).all()
        source_of = {m.id: _source(m, exp_emails) for m in all_messages}
        for m in all_messages:
            draft = session.exec(select(Draft).where(Draft.message_id == m.id)).first()
            decision = queue.decision_for(session=session, message_id=m.id)  # type: ignore[arg-type]
            src = source_of[m.id]
            expected = exp_emails.get(src, {}) if m.channel == "email" else dict(exp_slack.get((m.external_id or "").split(":")[-1], {}))
            if "follows_ts" in expected:  # Slack follow-ups name their earlier message by ts
                expected["follows"] = f"slack {m.external_id.split(':')[0]}:{expected['follows_ts']}" if m.external_id else None
            gate = "-" if m.gate_in_domain is None else ("in" if m.gate_in_domain else "out")
            rows.append(
                DemoRow(
                    source=src,
                    state=m.state,
                    reason=m.reason,
                    gate=gate,
                    references=[r["doc_id"] for r in (draft.references if draft else [])],
                    expected=expected,
                    draft_id=draft.id if draft else None,
                    decision=decision.action if decision else None,
                    reused_from=source_answer_id(draft) if draft else None,
                    follows=source_of.get(m.follows_id),
                )
            )
    return rows


def _source(m: InboundMessage, expected_emails: dict) -> str:
    """The sample a stored message came from: e-mail file name (follow-ups as followups/NAME) or `slack channel:ts`."""
    if m.channel == "email":
        return _eml_name(m.raw or b"", expected_emails) or m.source_key.rsplit(":", 1)[-1]
    return f"slack {m.external_id}"


_EML_INDEX: dict[bytes, str] = {}


def _eml_name(raw: bytes, names: dict) -> str | None:
    """Which sample file a stored raw message came from (the Maildir renames files)."""
    if not _EML_INDEX:
        for f in sample.emails_dir().glob("*.eml"):
            _EML_INDEX[f.read_bytes()] = f.name
        for f in sample.followup_emails_dir().glob("*.eml"):
            _EML_INDEX[f.read_bytes()] = f"followups/{f.name}"
    return _EML_INDEX.get(raw)
