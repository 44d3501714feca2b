"""From gaps to documents: NoInfo drafts that staff answered by hand become suggested FAQ entries in the digest."""

from __future__ import annotations

from sqlmodel import Session

from pipeline.units import extract_units
from review import queue
from review.digest import build_digest
from review.faq import render_faq_markdown
from review.weeks import iso_week
from tests.review.factories import make_drafted

NO_INFO = "No encontramos información sobre este tema."


def _gap(s, question: str, *, answer: str | None, reject: bool = False, sender: str = "ana@example.com"):
    draft, message = make_drafted(s, question=question, text=NO_INFO, sender=sender)
    draft.no_info, draft.references = True, []
    s.add(draft)
    if reject:
        queue.reject(session=s, draft_id=draft.id, actor="cli:ana", reason="missing_info")
    elif answer is None:
        queue.approve(session=s, draft_id=draft.id, actor="cli:ana")
    else:
        queue.edit(session=s, draft_id=draft.id, actor="cli:ana", text=answer)
    return draft


def test_hand_answered_gaps_are_offered_as_faq_entries_and_export_as_ingestible_markdown(engine):
    with Session(engine, expire_on_commit=False) as s:
        d = _gap(s, "¿Dónde está el estacionamiento para bicicletas de la facultad?", answer="Hola Ana López: hay un bicicletero techado junto a la puerta de Av. Costanera.", sender="Ana López <ana@example.com>")
        _gap(s, "¿hay estacionamiento de bicicletas en la facultad?", answer="Sí: el bicicletero techado está junto a la puerta de Av. Costanera.")
        _gap(s, "¿La cantina abre los sábados?", answer=None)  # approved as NoInfo: nothing to suggest
        _gap(s, "¿Cuánto sale el café en la cantina?", answer=None, reject=True)
        answered, _ = make_drafted(s, question="¿Hasta cuándo me inscribo a febrero?")
        queue.edit(session=s, draft_id=answered.id, actor="cli:ana", text="Hasta el 22 de enero.")  # not a gap
        s.commit()
        digest = build_digest(session=s, week=iso_week(d.created_at)).as_dict()
    (entry,) = digest["faq_suggestions"]
    assert entry["asked"] == 2 and "bicicletas" in entry["question"] and "bicicletero techado" in entry["answer"]
    assert len(entry["message_ids"]) == 2 and entry["answered_by"] == "cli:ana"
    md_all = render_faq_markdown(digest["faq_suggestions"], week=digest["week"])
    assert "López" not in md_all  # the staff's answer greeted one student by name: the document for everyone does not
    md = render_faq_markdown(digest["faq_suggestions"], week=digest["week"])
    faq = [u for u in extract_units(md) if u.kind == "faq"]
    assert faq and "bicicletero techado" in " ".join(u.text for u in faq)


def test_an_empty_week_exports_an_explicit_empty_faq():
    md = render_faq_markdown([], week="2026-W47")
    assert "2026-W47" in md and "No hubo consultas" in md


def test_a_faq_suggestion_keeps_nothing_of_the_student_it_was_written_for():
    from review.faq import hand_answered
    from review.models import Decision, Draft

    draft = Draft(id=1, message_id=5, text="No encontré información.", method="extractive", model="x", no_info=True)
    decision = Decision(message_id=5, draft_id=1, action="edit", actor="cli:staff", final_text="Hola Yolanda: como tenés migrañas crónicas, podés pedir el examen en otra aula. Las solicitudes de aula especial se hacen en Bienestar Estudiantil. Tu carné 2020 31415 ya figura.")
    (item,) = hand_answered({5: draft}, {5: decision}, {5: "Soy Yolanda Cutzal, carné 2020 31415, ¿dónde pido aula especial?"}, lambda mid: "Yolanda Cutzal <ycutzal@correo.example>")
    for personal in ("Yolanda", "Cutzal", "31415", "migraña", "["):
        assert personal not in item["answer"] and personal not in item["question"], item
    assert "Las solicitudes de aula especial se hacen en Bienestar Estudiantil." in item["answer"] and item["question"].endswith("¿dónde pido aula especial?")
