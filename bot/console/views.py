"""What a page shows, built from the same records and helpers the Slack card and `review show` use."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, select

from bot.slack.blocks import based_on_text, curated_flag, foreign_links_of, suggestion_text
from pipeline.generation import outcome_of
from pipeline.texts import t as pt
from review import queue
from pipeline.derivation import tree_rows
from pipeline.generation.readiness import readiness_of
from review.answer_memory import suggestions_of
from review.models import Draft, InboundMessage, OutgoingReply

ACTIONS = {"approve": "Aprobado", "edit": "Editado y aprobado", "reject": "Rechazado"}
STATE_LABELS = {
    "drafted": "pendiente", "approved": "aprobado", "edited": "editado", "rejected": "rechazado", "sent": "enviado",
    "send_failed": "envío fallido", "skipped": "omitido", "quarantined": "en cuarentena", "acknowledged": "agradecimiento",
    "received": "recibido", "classified": "clasificado",
}


def who(actor: str | None) -> str:
    """A decision's author as staff read it (console:ana → ana; cli:ana → ana (terminal))."""
    if not actor:
        return "—"
    if actor.startswith("cli:"):
        return actor.removeprefix("cli:") + " (terminal)"
    if actor.startswith("slack:"):
        return actor.removeprefix("slack:") + " (Slack)"
    return actor.removeprefix("console:")


def _kind(draft: Draft) -> str:
    if draft.out_of_domain:
        return "fuera de dominio"
    outcome = outcome_of(draft.flags)
    if outcome != "ok":
        return {"refusal": "el modelo se negó", "truncated": "truncada", "paused": "incompleta"}.get(outcome, outcome)
    if draft.no_info:
        return "sin información"
    return {"derivation": "derivación", "rag": "RAG", "extractive": "extractivo", "long-context": "contexto largo", "curated": "respuesta aprobada"}.get(draft.method, draft.method)


def readiness(draft: Draft) -> str | None:
    """The readiness label drafting recorded (e.g. «listo», «revisar»), when there is one."""
    flag = next((f for f in draft.flags or [] if f.get("kind") == "readiness"), None)
    return str(flag.get("label") or flag.get("flag")) if flag else None


def queue_row(draft: Draft, message: InboundMessage) -> dict[str, Any]:
    return {
        "draft_id": draft.id,
        "sender": message.sender or "—",
        "channel": message.channel,
        "subject": message.subject or "",
        "question": " ".join((message.cleaned_text or "").split())[:160],
        "kind": _kind(draft),
        "readiness": readiness(draft),
        "links": bool(foreign_links_of(draft.flags or [])),
        "created_at": message.created_at,
    }


def _gate(draft: Draft, message: InboundMessage) -> str:
    in_domain = draft.gate_in_domain if draft.gate_in_domain is not None else message.gate_in_domain
    score = draft.gate_score if draft.gate_score is not None else message.gate_score
    if in_domain is None:
        return pt("review_gate_none")
    label = pt("review_gate_no_info") if in_domain and draft.gate_outcome == "no_info" else pt("review_gate_in") if in_domain else pt("review_gate_out")
    return f"{label} ({score:.2f})" if score is not None else label


def derivation_rows(draft: Draft) -> list[dict[str, Any]]:
    """The derivation tree, root first, as indented rows (the same walk as the Slack modal)."""
    return tree_rows(draft.derivation or [], [c.get("doc_title") or c.get("doc_id", "") for c in draft.chunks or []])


def draft_card(session: Session, draft: Draft, message: InboundMessage) -> dict[str, Any]:
    """Everything the Slack card shows, and after a decision who decided what and the text that was sent."""
    decision = queue.decision_for(session=session, message_id=message.id)  # type: ignore[arg-type]
    reply = session.exec(select(OutgoingReply).where(OutgoingReply.message_id == message.id)).first()
    context = draft.context or {}
    curated = curated_flag(draft)
    outcome = outcome_of(draft.flags)
    return {
        "draft_id": draft.id,
        "message_id": message.id,
        "state": message.state,
        "state_label": STATE_LABELS.get(message.state, message.state),
        "pending": message.state == "drafted",
        "version": message.version,
        "channel": {"email": "Correo", "slack": "Slack"}.get(message.channel, message.channel),
        "sender": message.sender or "—",
        "subject": message.subject or "—",
        "received": message.created_at,
        "question": message.cleaned_text or "",
        "turns": [{"who": pt("review_turn_office" if x.get("role") == "office" else "review_turn_student"), "text": " ".join(str(x.get("text") or "").split())} for x in context.get("turns") or []],
        "query": context.get("query"),
        "parts": context.get("parts") or [],
        "gate": _gate(draft, message),
        "gate_reasons": draft.gate_reasons or [],
        "method": f"{draft.method} · {draft.model}",
        "text": draft.text,
        "references": draft.references or [],
        "foreign_links": foreign_links_of(draft.flags or []),
        "step_flags": [f for f in draft.flags or [] if not f.get("kind")],
        "outcome": pt(f"review_outcome_{outcome}") if outcome != "ok" else None,
        "readiness": readiness(draft),
        "readiness_flag": readiness_of(draft.flags),
        "based_on": based_on_text(curated) if curated else None,
        "suggestions": [{"answer_id": f["answer_id"], "text": suggestion_text(f)} for f in suggestions_of(draft)],
        "notes": ([pt("review_no_info")] if draft.no_info else []) + ([pt("review_fallback")] if draft.fallback else []),
        "warning": message.reason if (message.reason or "").startswith("reused_message_id") else None,
        "derivation": derivation_rows(draft),
        "decision": None if decision is None else {
            "action": ACTIONS.get(decision.action, decision.action), "who": who(decision.actor), "at": decision.created_at,
            "reason": queue.REJECT_REASONS.get(decision.reason or "", decision.reason), "comment": decision.comment,
        },
        "sent_text": reply.body if reply is not None else None,
        "reply_state": {"pending": "en cola de envío", "sending": "enviándose", "sent": "enviada", "failed": "envío fallido"}.get(reply.state, reply.state) if reply is not None else None,
        "sent_at": reply.sent_at if reply is not None else None,
    }


def message_row(message: InboundMessage) -> dict[str, Any]:
    return {
        "id": message.id,
        "channel": message.channel,
        "sender": message.sender or "—",
        "subject": message.subject or "",
        "text": " ".join((message.cleaned_text or message.body_text or "").split())[:300],
        "reason": message.reason or "—",
        "state": STATE_LABELS.get(message.state, message.state),
        "received": message.created_at,
    }

