"""The approved-answer memory's records: what an approval keeps, retiring, saving as standard, staleness."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from review import answer_memory as answers, queue
from review.answer_models import ACTIVE, RETIRED, STALE, CuratedAnswer
from review.errors import NotFound, ReviewError
from review.models import AuditEvent, Draft
from tests.review.factories import make_drafted

REFS = [{"doc_id": "examenes", "title": "Exámenes", "url": "https://x.example/examenes", "content_hash": "h1"}]


def _drafted(session, references=REFS, **kw):
    draft, message = make_drafted(session, **kw)
    draft.references = references
    session.add(draft)
    session.flush()
    return draft, message


def _all(engine) -> list[CuratedAnswer]:
    with Session(engine, expire_on_commit=False) as s:
        return list(s.exec(select(CuratedAnswer).order_by(CuratedAnswer.id)).all())


def test_an_approval_keeps_question_text_documents_versions_and_approver(engine):
    with Session(engine, expire_on_commit=False) as s:
        draft, message = _drafted(s)
        queue.approve(session=s, draft_id=draft.id, actor="cli:ana")
        s.commit()
    (a,) = _all(engine)
    assert (a.question, a.text, a.approved_by, a.state, a.standard) == (message.redacted_text, draft.text, "cli:ana", ACTIVE, False)
    assert a.references == REFS and a.message_id == message.id and a.draft_id == draft.id and a.approved_at is not None


def test_an_edit_keeps_the_text_that_was_sent(engine):
    with Session(engine, expire_on_commit=False) as s:
        draft, _ = _drafted(s)
        queue.edit(session=s, draft_id=draft.id, actor="cli:ana", text="La inscripción cierra el 22 de enero.")
        s.commit()
    (a,) = _all(engine)
    assert a.text == "La inscripción cierra el 22 de enero."


def test_the_kept_text_carries_no_personal_data_of_the_student_it_was_sent_to(engine):
    """A reply greets its student by name and may repeat their ID: the memory keeps it for others, so it keeps it redacted."""
    with Session(engine, expire_on_commit=False) as s:
        draft, _ = _drafted(s, sender="Ana López <ana.lopez@correo.example>")
        queue.edit(session=s, draft_id=draft.id, actor="cli:ana", text="Hola Ana López (DPI 1983 44414 2215, ana.lopez@correo.example): cierra el 22 de enero.")
        s.commit()
    (a,) = _all(engine)
    assert "cierra el 22 de enero" in a.text
    for personal in ("Ana", "López", "1983 44414 2215", "ana.lopez@correo.example"):
        assert personal not in a.text, a.text



def test_only_the_addresses_the_office_wrote_from_its_documents_stay_in_the_kept_text(engine):
    """An address the office's own draft gave (examenes@…, from the documents) stays; any other goes with its clause,
    the student's address on the office's own domain too (issue 22), and no placeholder is left behind."""
    with Session(engine, expire_on_commit=False) as s:
        draft, _ = _drafted(s, sender="Ana López <ana@x.example>", text="Hola:\nEscribí a examenes@x.example para pedir la revisión.\nSaludos")
        queue.edit(session=s, draft_id=draft.id, actor="cli:ana", text="Escribí a examenes@x.example para pedir la revisión. Tu copia va a ana@x.example. La de Juan va a juan@gmail.example.")
        s.commit()
    (a,) = _all(engine)
    assert "examenes@x.example" in a.text and "para pedir la revisión" in a.text
    assert "ana@x.example" not in a.text and "juan@gmail.example" not in a.text and "[" not in a.text


def test_a_follow_up_is_kept_for_its_standalone_question_not_its_fragment(engine):
    with Session(engine, expire_on_commit=False) as s:
        _, first = _drafted(s)
        draft, follow_up = _drafted(s)
        follow_up.follows_id, follow_up.redacted_text = first.id, "¿y para julio?"
        draft.context = {"query": "¿Hasta cuándo me inscribo a los exámenes de febrero?\n¿y para julio?"}
        s.add_all([follow_up, draft])
        queue.approve(session=s, draft_id=draft.id, actor="cli:ana")
        s.commit()
    (a,) = _all(engine)
    assert a.question == "¿Hasta cuándo me inscribo a los exámenes de febrero?\n¿y para julio?"

def test_rejections_canned_replies_and_unchanged_noinfo_are_not_kept(engine):
    with Session(engine, expire_on_commit=False) as s:
        d1, _ = _drafted(s)
        queue.reject(session=s, draft_id=d1.id, actor="cli:ana", reason="incorrect")
        d2, _ = _drafted(s)
        d2.out_of_domain = True
        queue.approve(session=s, draft_id=d2.id, actor="cli:ana")
        d3, _ = _drafted(s, references=[])
        d3.no_info = True
        queue.approve(session=s, draft_id=d3.id, actor="cli:ana")
        d4, _ = _drafted(s, references=[])
        d4.no_info = True
        queue.edit(session=s, draft_id=d4.id, actor="cli:ana", text="Lo resuelve Bedelía: escribí a bedelia@x.example.")
        s.commit()
    (a,) = _all(engine)  # only the NoInfo draft that staff answered by hand
    assert a.draft_id == d4.id and a.references == []


def test_a_reused_answer_approved_unchanged_confirms_its_source_and_an_edit_makes_a_new_one(engine):
    with Session(engine, expire_on_commit=False) as s:
        d1, _ = _drafted(s)
        queue.approve(session=s, draft_id=d1.id, actor="cli:ana")
        (source,) = s.exec(select(CuratedAnswer)).all()
        flag = [{"kind": answers.CURATED_FLAG, "answer_id": source.id, "approved_at": "2026-11-20T10:00:00+00:00"}]
        d2, m2 = _drafted(s, flags=flag, question="¿hasta qué día hay inscripción a febrero?")
        d2.method = answers.CURATED_METHOD
        queue.approve(session=s, draft_id=d2.id, actor="cli:beto")
        d3, _ = _drafted(s, flags=flag)
        queue.edit(session=s, draft_id=d3.id, actor="cli:beto", text="Texto corregido.")
        s.commit()
        confirmed = s.exec(select(AuditEvent).where(AuditEvent.event == "curated_answer_confirmed")).all()
    kept = _all(engine)
    assert [a.draft_id for a in kept] == [d1.id, d3.id] and kept[1].text == "Texto corregido."
    assert kept[0].aliases == ["¿hasta qué día hay inscripción a febrero?"]  # the confirmed wording is matched from now on
    assert [e.message_id for e in confirmed] == [m2.id]


def test_retire_and_list_by_state(engine):
    with Session(engine, expire_on_commit=False) as s:
        draft, _ = _drafted(s)
        queue.approve(session=s, draft_id=draft.id, actor="cli:ana")
        (a,) = answers.active_answers(session=s)
        answers.retire(session=s, answer_id=a.id, actor="cli:beto", reason="cambió el reglamento")
        s.commit()
        assert answers.active_answers(session=s) == []
        (r,) = answers.list_answers(session=s, state=RETIRED)
        assert (r.state_changed_by, r.state_reason) == ("cli:beto", "cambió el reglamento")
        with pytest.raises(NotFound):
            answers.retire(session=s, answer_id=999, actor="x")
        with pytest.raises(ReviewError):
            answers.list_answers(session=s, state="bogus")


def test_changed_documents_and_stale(engine):
    with Session(engine, expire_on_commit=False) as s:
        draft, _ = _drafted(s)
        queue.approve(session=s, draft_id=draft.id, actor="cli:ana")
        (a,) = answers.active_answers(session=s)
        assert answers.changed_documents(a, {"examenes": "h1"}) == []
        assert answers.changed_documents(a, {"examenes": "h2"}) == ["examenes"]
        assert answers.changed_documents(a, {}) == ["examenes"]  # removed or deactivated
        answers.mark_stale(session=s, answer=a, changed=["examenes"])
        s.commit()
        assert a.state == STALE and "examenes" in a.state_reason


def test_save_standard_reactivates_and_ties_to_todays_documents(engine):
    with Session(engine, expire_on_commit=False) as s:
        draft, _ = _drafted(s)
        queue.approve(session=s, draft_id=draft.id, actor="cli:ana")
        (a,) = answers.active_answers(session=s)
        answers.mark_stale(session=s, answer=a, changed=["examenes"])
        saved = answers.save_standard(session=s, draft_id=draft.id, actor="slack:U0ANA", current={"examenes": "h2"})
        assert (saved.id, saved.state, saved.standard, saved.references[0]["content_hash"]) == (a.id, ACTIVE, True, "h2")
        pending, _ = _drafted(s)
        with pytest.raises(ReviewError, match="not approved"):
            answers.save_standard(session=s, draft_id=pending.id, actor="x")
        assert s.get(Draft, pending.id) is not None


def test_a_slack_students_profile_names_never_reach_the_kept_text(engine):
    """Staff greet a Slack student by their display or real name (from the event's user_profile): both go, in any case."""
    import json as _json

    with Session(engine, expire_on_commit=False) as s:
        draft, message = _drafted(s, channel="slack", sender="U0YESENIA1")
        message.raw = _json.dumps({"event_id": "Ev1", "event": {"user": "U0YESENIA1", "user_profile": {"real_name": "Yesenia Batz", "display_name": "yese.batz"}}}).encode()
        s.add(message)
        queue.edit(session=s, draft_id=draft.id, actor="slack:U0STAFF", text="¡Hola Yese! YESENIA, la inscripción cierra el 22 de enero. Cualquier cosa, Batz, escribinos.")
        s.commit()
    (a,) = _all(engine)
    assert a.text == "¡Hola {nombre}! La inscripción cierra el 22 de enero. Cualquier cosa, escribinos."  # the greeting keeps a slot for the next student
    for personal in ("Yese", "YESENIA", "Batz", "yese"):
        assert personal not in a.text, a.text
    assert answers.student_names(message)[:2] == ["Yesenia Batz", "yese.batz"]


def test_an_approval_is_kept_for_its_office_and_reused_only_there(engine):
    """Campus mode: the answer belongs to the office whose staff approved it; the other offices neither reuse nor list it."""
    with Session(engine, expire_on_commit=False) as s:
        draft, message = _drafted(s)
        message.office = "becas"
        s.add(message)
        queue.approve(session=s, draft_id=draft.id, actor="cli:ana")
        other, _ = _drafted(s, question="¿Cuándo abre la inscripción a exámenes de julio?")
        queue.approve(session=s, draft_id=other.id, actor="cli:ana")  # the default office's
        s.commit()
    becas, default = _all(engine)
    assert (becas.office, default.office) == ("becas", None)
    with Session(engine) as s:
        assert [a.id for a in answers.active_answers(session=s, offices=["becas"])] == [becas.id]
        assert [a.id for a in answers.active_answers(session=s, offices=[None])] == [default.id]
        assert [a.id for a in answers.search_answers(session=s, query="inscrip", offices=["eps"])] == []
        assert len(answers.active_answers(session=s)) == 2  # the campus lead's view: every office
        assert answers.questions_for_gate(session=s, offices=["becas"]) == [becas.question]
