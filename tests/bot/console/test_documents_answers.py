"""Documents and approved answers on the console: upload, replace in place (answers citing it go stale), edit an answer's text, FAQ from a gap."""

from __future__ import annotations

from sqlmodel import Session, select

from review import answer_memory as answers
from review.answer_models import CuratedAnswer
from review.db import session_scope
from tests.bot.console.conftest import SAMPLE, csrf


def _upload(client, app, name: str, data: bytes, path: str = "/documents/upload"):
    response = client.post(path, data={"csrftoken": csrf(client, "/documents")}, files={"file": (name, data)}, follow_redirects=False)
    assert response.status_code == 303, response.text
    app.console.state.jobs.wait()
    return response


def _answer_citing(svc, doc_id: str) -> int:
    content_hash = svc.index.documents()[doc_id]["content_hash"]
    with session_scope(svc.engine) as session:
        row = CuratedAnswer(question="¿Cuándo se pide la beca de transporte?", text="En marzo.", approved_by="console:lucia", references=[{"doc_id": doc_id, "title": "Becas", "content_hash": content_hash}])
        session.add(row)
        session.flush()
        return row.id  # type: ignore[return-value]


def test_upload_indexes_in_the_background_and_replace_keeps_the_id_and_marks_answers_stale(lead, app, svc):
    _upload(lead, app, "becas_transporte.md", SAMPLE.encode())
    docs = svc.index.documents()
    assert docs["becas_transporte"]["chunks"] >= 1 and docs["becas_transporte"]["active"]
    page = lead.get("/documents").text
    assert "Becas de transporte" in page and "terminado" in page
    detail = lead.get("/documents/becas_transporte").text
    assert "Unidades de respuesta" in detail and "Bienestar Universitario" in detail
    answer_id = _answer_citing(svc, "becas_transporte")
    old_hash = docs["becas_transporte"]["content_hash"]
    _upload(lead, app, "becas-2027.md", SAMPLE.replace("31 de marzo", "15 de abril").encode(), "/documents/becas_transporte/replace")
    after = svc.index.documents()
    assert set(after) == {"becas_transporte"} and after["becas_transporte"]["content_hash"] != old_hash
    with Session(svc.engine) as session:
        assert session.get(CuratedAnswer, answer_id).state == "stale"
    assert "15 de abril" in lead.get("/documents/becas_transporte").text
    assert f"#{answer_id}" in lead.get("/answers?state=stale").text


def test_a_broken_replacement_keeps_the_previous_version(lead, app, svc):
    _upload(lead, app, "becas.md", SAMPLE.encode())
    before = svc.index.documents()["becas"]["content_hash"]
    _upload(lead, app, "becas.pdf", b"%PDF-1.4 not really a pdf", "/documents/becas/replace")
    assert svc.index.documents()["becas"]["content_hash"] == before
    assert (svc.settings.paths.uploads_dir / "becas.md").exists()
    assert "falló" in lead.get("/documents").text


def test_deactivate_activate_delete_and_the_gate_notice(lead, app, svc):
    _upload(lead, app, "becas.md", SAMPLE.encode())
    assert "No hay un gate entrenado" in lead.get("/documents").text
    token = csrf(lead, "/documents")
    lead.post("/documents/becas/deactivate", data={"csrftoken": token})
    assert svc.index.documents()["becas"]["active"] is False
    lead.post("/documents/becas/activate", data={"csrftoken": token})
    assert svc.index.documents()["becas"]["active"] is True
    lead.post("/documents/becas/delete", data={"csrftoken": token})
    assert "becas" not in svc.index.documents() and not (svc.settings.paths.uploads_dir / "becas.md").exists()


def test_editing_an_answer_makes_a_new_version_and_keeps_the_old_text_in_the_audit(reviewer, svc):
    with session_scope(svc.engine) as session:
        row = CuratedAnswer(question="¿Horario de bedelía?", text="De 9 a 13.", approved_by="cli:ana")
        session.add(row)
        session.flush()
        answer_id = row.id
    token = csrf(reviewer, f"/answers/{answer_id}")
    page = reviewer.post(f"/answers/{answer_id}/edit", data={"csrftoken": token, "text": "De 9 a 15, de lunes a viernes."}).text
    assert "Versión 2" in page and "De 9 a 13." in page  # the earlier text, in the history
    reviewer.post(f"/answers/{answer_id}/standard", data={"csrftoken": token})
    reviewer.post(f"/answers/{answer_id}/retire", data={"csrftoken": token, "reason": "cambió el horario"})
    with Session(svc.engine) as session:
        row = answers.get_answer(session=session, answer_id=answer_id)
        history = [e.event for e in answers.answer_history(session=session, answer_id=answer_id)]
    assert (row.text, row.version, row.standard, row.state) == ("De 9 a 15, de lunes a viernes.", 2, True, "retired")
    assert history == ["curated_answer_edited", "curated_answer_standard", "curated_answer_retired"]
    assert "De 9 a 15" in reviewer.get("/answers?q=lunes").text and "De 9 a 15" not in reviewer.get("/answers?q=sabado").text


def test_a_faq_entry_from_a_gap_becomes_an_indexed_document(lead, app, svc):
    response = lead.post("/gaps/faq", data={"csrftoken": csrf(lead, "/gaps"), "question": "¿Hay estacionamiento para estudiantes?", "answer": "Sí, en el subsuelo del edificio central, con el carné."}, follow_redirects=False)
    assert response.status_code == 303
    app.console.state.jobs.wait()
    docs = svc.index.documents()
    faq = next(d for d in docs if d.startswith("faq-"))
    hits = svc.retriever.retrieve("estacionamiento estudiantes subsuelo", 3)
    assert hits and hits[0].chunk.doc_id == faq


def test_what_would_orienta_answer_shows_the_draft_references_and_search(reviewer, lead, app, svc):
    _upload(lead, app, "becas_transporte.md", SAMPLE.encode())
    page = reviewer.post("/ask", data={"csrftoken": csrf(reviewer, "/ask"), "question": "¿Dónde se solicita la beca de transporte?"}).text
    assert 'id="ask-answer"' in page and "Bienestar Universitario" in page and "becas_transporte" in page
    from review.models import Draft

    with Session(svc.engine) as session:
        assert session.exec(select(Draft)).first() is None  # nothing stored


def test_health_and_digest_pages(lead, svc):
    page = lead.get("/health").text
    for check in ("config", "database", "qdrant", "gate", "disk"):
        assert check in page
    assert "hay problemas" in page  # no index and no gate yet
    digest = lead.get("/digests/2020-W01").text
    assert "Resumen 2020-W01" in digest and "kappa" in digest and "None" not in digest and "—" in digest
    assert lead.get("/digests/not-a-week").status_code == 404


def test_reindex_runs_a_recorded_ingestion_job_whose_progress_the_page_and_the_json_endpoint_show(lead, app, svc):
    response = lead.post("/documents/reindex", data={"csrftoken": csrf(lead, "/documents")}, follow_redirects=False)
    assert response.status_code == 303
    app.console.state.jobs.wait(timeout=300)
    jobs = lead.get("/ingest/jobs").json()
    assert len(jobs) == 1
    job = jobs[0]
    assert job["state"] == "done" and job["actor"] == "console:lucia" and job["percent"] == 100
    assert job["docs_total"] >= 1 and job["docs_done"] == job["docs_total"]
    assert job["chunks_total"] > 0 and job["chunks_done"] == job["chunks_total"]
    assert sorted(job["report"]["added"]) == sorted(svc.index.documents())
    page = lead.get("/documents").text
    assert f'data-ingest-job="{job["id"]}" data-state="done"' in page and f"{job['chunks_done']}/{job['chunks_total']}" in page
