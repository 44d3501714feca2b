"""The demo's simulated reviewer: what it approves, rewrites and rejects, and how a week's work is counted."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from bot.demo.reviewer import REVIEWER, SampleReviewer, count_week
from review import queue
from review.answer_models import CuratedAnswer
from review.answer_memory import CURATED_FLAG
from tests.review.databases import temp_engine
from tests.review.factories import make_drafted

EXAMENES = [{"doc_id": "examenes", "title": "Exámenes", "url": "https://x.example/examenes"}]
EXPECTED = {
    "feb": {"outcome": "answerable", "doc": "examenes", "must_say": ["22 de enero"], "past_period": ["febrero de 2026"], "staff_answer": "Hola:\n\nHasta el 22 de enero, por el SIGE."},
    "faltas": {"outcome": "answerable", "doc": "examenes", "must_say": [["80 %", "20 %"], "certificado médico"]},
    "sin-hechos": {"outcome": "answerable", "doc": "examenes"},
    "hasta-cuando": {"outcome": "answerable", "doc": "examenes", "must_say": ["22 de enero"]},
    "feb-again": {"outcome": "answerable", "doc": "examenes", "repeat_of": "feb"},
    "julio": {"outcome": "answerable", "doc": "examenes", "close_to": "feb"},
    "horario": {"outcome": "answerable", "doc": "contacto_horarios"},
    "gimnasio": {"outcome": "no_info", "doc": None},
    "poema": {"outcome": "out_of_domain", "doc": None},
}
DOCS = {"contacto_horarios": {"title": "Contacto y horarios", "url": "https://x.example/contacto"}}


@pytest.fixture
def engine(tmp_path):
    with temp_engine("sqlite", tmp_path) as eng:
        yield eng


class Desk:
    """Sample drafts keyed like the demo's messages, and the reviewer's verdict on them."""

    def __init__(self, session: Session):
        self.session, self.keys = session, {}
        self.reviewer = SampleReviewer(lambda m: self.keys[m.id], DOCS, EXPECTED)

    def draft(self, key: str, text: str, references=EXAMENES, **kw):
        draft, message = make_drafted(self.session, question=f"pregunta {key}", text=text, **kw)
        draft.references = references
        self.session.add(draft)
        self.session.flush()
        self.keys[message.id] = key
        return draft, message

    def verdict(self, key: str, text: str, **kw):
        draft, message = self.draft(key, text, **kw)
        return self.reviewer.verdict(self.session, draft, message)


def test_a_draft_that_cites_the_document_and_says_what_it_must_is_approved_unchanged(engine):
    with Session(engine) as s:
        assert Desk(s).verdict("feb", "Hola:\n\nLa inscripción cierra el 22 de enero de 2027.").action == "approve"


def test_a_draft_that_misses_the_fact_is_rewritten_with_the_staff_answer(engine):
    with Session(engine) as s:
        v = Desk(s).verdict("feb", "Hola:\n\nLos exámenes son del 8 al 27 de febrero.")
    assert (v.action, v.text) == ("edit", EXPECTED["feb"]["staff_answer"])


def test_a_draft_that_also_gives_a_past_periods_date_is_not_sent_unchanged(engine):
    with Session(engine) as s:
        v = Desk(s).verdict("feb", "Hola:\n\nLa inscripción cierra el 22 de enero de 2027. El período de febrero de 2026 fue del 2 al 21.")
    assert (v.action, v.text) == ("edit", EXPECTED["feb"]["staff_answer"])


def test_every_must_say_fact_is_needed_in_any_accepted_wording_accents_and_spacing_aside(engine):
    with Session(engine) as s:
        desk = Desk(s)
        both = desk.verdict("faltas", "Hola:\n\nPodés faltar hasta un 20% de las clases; las faltas con certificado medico no cuentan.")
        one = desk.verdict("faltas", "Hola:\n\nSe exige una asistencia mínima del 80 % de las clases.")
    assert both.action == "approve"
    assert one.action == "edit"


def test_a_draft_that_adds_a_passage_from_another_document_is_not_sent_unchanged(engine):
    calendar = {"doc_id": "calendario_2026", "title": "Calendario", "url": "https://x.example/calendario"}
    with Session(engine) as s:
        v = Desk(s).verdict("feb", "Hola:\n\nLa inscripción cierra el 22 de enero de 2027.\n- Feriado: 1 de mayo.", references=EXAMENES + [calendar])
    assert v.action == "edit"


def test_facts_are_matched_as_whole_words():
    from bot.demo.reviewer import says

    assert says("Podés pedir la ICE.", "ICE") and not says("Mirá el índice del reglamento.", "ICE")
    assert says("Cuesta $ 1.200 por solicitud.", "1.200") and not says("Cuesta $ 11.200.", "1.200")


def test_an_expectation_without_facts_to_check_is_never_approved(engine):
    with Session(engine) as s:
        assert Desk(s).verdict("sin-hechos", "Hola:\n\nLos exámenes son en febrero.").action == "edit"


def test_a_draft_citing_another_document_is_rewritten_to_point_to_the_right_one(engine):
    with Session(engine) as s:
        v = Desk(s).verdict("horario", "Hola:\n\nLos exámenes son en febrero.")
    assert v.action == "edit" and "«Contacto y horarios» (https://x.example/contacto)" in v.text


def test_out_of_domain_and_undocumented_questions_are_rejected_with_their_reason(engine):
    with Session(engine) as s:
        desk = Desk(s)
        poem = desk.verdict("poema", "Hola:\n\nNo es un tema de la oficina.", references=[], in_domain=False)
        gym = desk.verdict("gimnasio", "Hola:\n\nNo encontré información.", references=[])
    assert (poem.action, poem.reason) == ("reject", "out_of_domain")
    assert (gym.action, gym.reason) == ("reject", "missing_info")


def _reused(desk: Desk, key: str, answer_id: int):
    flags = [{"kind": CURATED_FLAG, "answer_id": answer_id}]
    return desk.verdict(key, "Hola:\n\nHasta el 22 de enero, por el SIGE.", flags=flags)


def test_an_approved_answer_reused_for_the_same_question_is_approved_and_for_a_close_other_question_rewritten(engine):
    with Session(engine) as s:
        desk = Desk(s)
        draft, _ = desk.draft("feb", "Hola:\n\nLa inscripción cierra el 22 de enero de 2027.")
        queue.approve(session=s, draft_id=draft.id, actor=REVIEWER)
        answer_id = s.exec(select(CuratedAnswer.id)).one()
        same, other = _reused(desk, "feb-again", answer_id), _reused(desk, "julio", answer_id)
    assert same.action == "approve"
    assert other.action == "edit" and "«examenes»" in other.text  # no staff answer for July: the reviewer points to the document


def test_an_approved_answer_reused_for_another_question_that_says_what_this_one_needs_is_sent(engine):
    with Session(engine) as s:
        desk = Desk(s)
        draft, _ = desk.draft("feb", "Hola:\n\nLa inscripción cierra el 22 de enero de 2027.")
        queue.approve(session=s, draft_id=draft.id, actor=REVIEWER)
        answer_id = s.exec(select(CuratedAnswer.id)).one()
        v = desk.verdict("hasta-cuando", "Hola:\n\nLa inscripción cierra el 22 de enero de 2027.", flags=[{"kind": CURATED_FLAG, "answer_id": answer_id}])
    assert v.action == "approve"


def test_an_approved_answer_reused_for_the_same_question_still_has_to_state_the_facts(engine):
    with Session(engine) as s:
        desk = Desk(s)
        draft, _ = desk.draft("feb", "Hola:\n\nMirá la página de exámenes.")
        queue.approve(session=s, draft_id=draft.id, actor=REVIEWER)  # a person sent a pointer once
        answer_id = s.exec(select(CuratedAnswer.id)).one()
        again = desk.verdict("feb-again", "Hola:\n\nMirá la página de exámenes.", flags=[{"kind": CURATED_FLAG, "answer_id": answer_id}])
    assert again.action == "edit"


def test_a_week_counts_drafts_reuse_and_each_decision(engine):
    with Session(engine) as s:
        desk = Desk(s)
        first, _ = desk.draft("feb", "Hola:\n\nLa inscripción cierra el 22 de enero de 2027.")
        queue.approve(session=s, draft_id=first.id, actor=REVIEWER)
        answer_id = s.exec(select(CuratedAnswer.id)).one()
        reused, _ = desk.draft("feb-again", "Hola:\n\nHasta el 22 de enero.", flags=[{"kind": CURATED_FLAG, "answer_id": answer_id}])
        queue.approve(session=s, draft_id=reused.id, actor=REVIEWER)
        edited, _ = desk.draft("horario", "Hola:\n\nLos exámenes son en febrero.")
        queue.edit(session=s, draft_id=edited.id, actor=REVIEWER, text="Hola:\n\nDe 9:30 a 13:00.")
        rejected, _ = desk.draft("gimnasio", "Hola:\n\nNo encontré información.", references=[])
        queue.reject(session=s, draft_id=rejected.id, actor=REVIEWER, reason="missing_info")
        desk.draft("poema", "Hola:\n\nNo es un tema de la oficina.", references=[])
        s.commit()
        work = count_week(s, week=1, first_id=1, last_id=10**6)
        later = count_week(s, week=2, first_id=first.message_id + 1, last_id=10**6)
    assert (work.messages, work.drafts, work.reused, work.approved, work.reused_approved, work.edited, work.rejected, work.pending) == (5, 5, 1, 2, 1, 1, 1, 1)
    assert work.edits_per_draft == pytest.approx(0.2)
    assert (later.messages, later.approved) == (4, 1)


def test_a_reply_to_several_questions_is_judged_on_every_answer_not_only_the_first(engine):
    with Session(engine) as session:
        desk = Desk(session)
        two = "Hola:\n\n1. ¿Hasta cuándo?\nPodés inscribirte.\n\nReferencias:\n- Exámenes: https://x.example/examenes\n\n2. ¿Y el plazo?\nHasta el 22 de enero.\n\nReferencias:\n- Exámenes: https://x.example/examenes\n\nSaludos"
        assert desk.verdict("hasta-cuando", two).action == "approve"
        titled = "Hola:\n\nPodés inscribirte.\n\nReferencias:\n- 22 de enero: https://x.example/examenes\n\nSaludos"
        assert desk.verdict("hasta-cuando", titled).action != "approve"  # a fact in a reference title is not said
