"""From content gaps to documents: questions staff answered by hand, offered as suggested FAQ entries."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from pipeline.anonymization import anonymize
from review.gaps import cluster_questions
from review.models import Decision, Draft


def hand_answered(drafts: Mapping[int, Draft], decisions: Mapping[int, Decision], questions: Mapping[int, str], sender_of: Callable[[int], str | None] | None = None) -> list[dict]:
    """Messages whose draft said NoInfo (in domain) and that staff answered by writing or editing the reply.

    The question and the staff's answer are anonymized (pipeline.anonymization, with the student's name from
    `sender_of(message_id)`): they are offered as a document for everyone."""
    out = []
    for mid, draft in drafts.items():
        dec = decisions.get(mid)
        if not draft.no_info or draft.out_of_domain or dec is None or dec.action != "edit" or not (dec.final_text or "").strip():
            continue
        names = [sender_of(mid) or ""] if sender_of else []
        question = anonymize(questions.get(mid) or "", names=names, question=True).text
        answer = anonymize(dec.final_text or "", names=names, keep=draft.text).text  # offered as a document for everyone: nothing of the student
        if question and answer:
            out.append({"message_id": mid, "question": question, "answer": answer, "answered_by": dec.actor, "answered_at": dec.created_at})
    return out


def faq_suggestions(items: list[dict], *, max_entries: int = 10) -> list[dict]:
    """One suggested FAQ entry per cluster of hand-answered gap questions: the representative question and the latest staff answer."""
    if not items:
        return []
    by_question: dict[str, list[dict]] = {}
    for item in items:
        by_question.setdefault(item["question"], []).append(item)
    out = []
    for cluster in cluster_questions([i["question"] for i in items], examples=len(items), max_clusters=max_entries):
        members = [m for q in cluster["examples"] for m in by_question.get(q, [])]
        if not members:
            continue
        latest = max(members, key=lambda m: _at(m["answered_at"]))
        out.append(
            {
                "question": cluster["examples"][0],
                "answer": latest["answer"],
                "asked": cluster["size"],
                "examples": cluster["examples"][:3],
                "terms": cluster["terms"],
                "message_ids": sorted({m["message_id"] for m in members}),
                "answered_by": latest["answered_by"],
            }
        )
    return out


def _at(value: datetime | str) -> str:
    return value if isinstance(value, str) else value.isoformat()


def render_faq_markdown(suggestions: list[dict], *, week: str) -> str:
    """A Markdown FAQ document (numbered ¿questions? with their answers) the office can review, fix and ingest."""
    lines = [
        f"# Preguntas frecuentes sugeridas ({week})",
        "",
        "Borrador generado por orienta a partir de consultas que la documentación no cubría y que el equipo respondió a mano.",
        "Revisalo antes de agregarlo a los documentos de la oficina (`orienta ingest`).",
        "",
    ]
    for n, s in enumerate(suggestions, 1):
        question = s["question"].strip().replace("\n", " ")
        if not question.startswith("¿"):
            question = f"¿{question.rstrip('?')}?"
        lines += [f"{n}. {question}", "", s["answer"].strip(), ""]
    if not suggestions:
        lines += ["_No hubo consultas sin información respondidas a mano esta semana._", ""]
    return "\n".join(lines)
