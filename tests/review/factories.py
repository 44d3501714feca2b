"""Build stored messages and drafts through the real queue functions."""

from __future__ import annotations

import itertools

from sqlmodel import Session

from review import queue
from review.models import Draft, DraftCreate, InboundMessage, InboundMessageCreate

_seq = itertools.count(1)


def make_drafted(
    session: Session,
    *,
    channel: str = "email",
    sender: str = "ana@example.com",
    subject: str = "Inscripción a exámenes",
    question: str = "¿Hasta cuándo me puedo inscribir a los exámenes de febrero?",
    text: str = "Hola:\nLa inscripción cierra el 10 de febrero.\nSaludos",
    in_domain: bool | None = True,
    score: float | None = 0.91,
    thread_ref: str | None = None,
    derivation: list[dict] | None = None,
    flags: list[dict] | None = None,
    context: dict | None = None,
    method: str = "derivation",
) -> tuple[Draft, InboundMessage]:
    """A message stored, classified and drafted: it waits in the review queue."""
    n = next(_seq)
    message, _ = queue.store_inbound(
        session=session,
        data=InboundMessageCreate(
            channel=channel,
            source_key=f"test:{channel}:{n}:{id(session)}",
            external_id=f"<m{n}@example.com>" if channel == "email" else f"{1700000000 + n}.000100",
            sender=sender,
            subject=subject,
            cleaned_text=question,
            redacted_text=question,
            thread_ref=thread_ref or (f"C0STUDENT:{1700000000 + n}.000100" if channel == "slack" else None),
        ),
    )
    queue.record_classification(session=session, message=message, in_domain=in_domain, score=score)
    draft = queue.create_draft(
        session=session,
        message=message,
        data=DraftCreate(
            message_id=message.id,  # type: ignore[arg-type]
            text=text,
            method=method,
            model="claude-sonnet-4-5",
            references=[{"doc_id": "examenes", "title": "Exámenes", "url": "https://www.fing.edu.uy/examenes"}],
            derivation=derivation or [],
            flags=flags or [],
            gate_score=score,
            gate_in_domain=in_domain,
            context=context or {},
        ),
    )
    return draft, message
