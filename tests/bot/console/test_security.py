"""The console refuses what it must: no session, wrong role, no CSRF token, hostile names and text, oversized files, disabled accounts."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from review import staff
from review.db import session_scope
from tests.bot.console.conftest import csrf, sign_in
from tests.review.factories import make_drafted

PAGES = ["/", "/messages", "/drafts/1", "/answers", "/answers/1", "/gaps", "/ask", "/digests", "/digests/2026-W47", "/documents", "/documents/x", "/health", "/staff", "/jobs/1", "/ingest/jobs"]
ACTIONS = [
    "/drafts/1/approve", "/drafts/1/edit", "/drafts/1/reject", "/answers/1/edit", "/answers/1/standard", "/answers/1/retire", "/gaps/faq", "/ask",
    "/documents/upload", "/documents/x/replace", "/documents/x/activate", "/documents/x/deactivate", "/documents/x/delete", "/gate/retrain", "/staff/rafa/disable",
    "/documents/reindex",
]
LEAD_ONLY_PAGES = ["/documents", "/documents/x", "/health", "/staff", "/jobs/1", "/ingest/jobs"]
LEAD_ONLY_ACTIONS = ["/documents/reindex", "/documents/upload", "/documents/x/replace", "/documents/x/activate", "/documents/x/deactivate", "/documents/x/delete", "/gate/retrain", "/staff/lucia/disable", "/gaps/faq"]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_without_a_session_redirects_to_the_login(app, path):
    response = TestClient(app).get(path, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login")


@pytest.mark.parametrize("path", ACTIONS)
def test_every_action_without_a_session_is_refused(app, path):
    client = TestClient(app)
    token = csrf(client)  # a valid CSRF cookie and token: the refusal comes from the missing session
    response = client.post(path, data={"csrftoken": token, "text": "x", "reason": "spam", "question": "q", "answer": "a"}, follow_redirects=False)
    assert response.status_code == 401


def test_contract_pages_never_show_content_without_a_session(app, svc):
    with session_scope(svc.engine) as session:
        make_drafted(session, question="¿Cuándo cierra la inscripción secreta?")
    for path in ("/", "/documents", "/answers"):
        response = TestClient(app).get(path)  # following the redirect lands on the login form
        assert "inscripción secreta" not in response.text and "Consola de la oficina" in response.text


@pytest.mark.parametrize("path", LEAD_ONLY_PAGES)
def test_a_reviewer_cannot_see_documents_accounts_or_health(reviewer, path):
    assert reviewer.get(path).status_code == 403


@pytest.mark.parametrize("path", LEAD_ONLY_ACTIONS)
def test_a_reviewer_cannot_change_documents_or_accounts(reviewer, svc, path):
    response = reviewer.post(path, data={"csrftoken": csrf(reviewer, "/"), "question": "q", "answer": "a"}, files={"file": ("a.md", b"# a\n\ntexto")} if "upload" in path or "replace" in path else None)
    assert response.status_code == 403
    with session_scope(svc.engine) as session:
        assert staff.get_staff(session=session, name="lucia").active


def test_a_form_without_its_csrf_token_is_refused(lead, svc):
    with session_scope(svc.engine) as session:
        draft, _ = make_drafted(session)
    response = lead.post(f"/drafts/{draft.id}/approve", data={})
    assert response.status_code == 403 and "CSRF" in response.text
    response = lead.post(f"/drafts/{draft.id}/approve", data={"csrftoken": "forged"})
    assert response.status_code == 403
    assert lead.get(f"/drafts/{draft.id}").text.count("Aprobar y enviar") == 1  # still pending


def test_login_itself_needs_the_csrf_token(app):
    client = TestClient(app)
    client.get("/login")
    assert client.post("/login", data={"name": "lucia", "password": "una clave larga 123"}).status_code == 403


def test_session_cookie_is_httponly_samesite_and_secure_behind_tls(app):
    client = TestClient(app)
    cookie = sign_in(client, "lucia").headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
    tls = TestClient(app, base_url="https://testserver")
    assert "Secure" in sign_in(tls, "lucia").headers["set-cookie"]


def test_script_in_a_students_message_is_rendered_inert(lead, svc):
    with session_scope(svc.engine) as session:
        draft, _ = make_drafted(session, subject="<script>alert('asunto')</script>", question="<script>alert(1)</script><img src=x onerror=alert(2)>", text="Hola <b>x</b>")
    for page in (lead.get("/").text, lead.get(f"/drafts/{draft.id}").text):
        assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in lead.get(f"/drafts/{draft.id}").text


def test_a_path_traversal_file_name_is_refused(lead, svc):
    for name in ("../../etc/passwd.md", "..\\evil.md", ".hidden.md", "sub/dir.md"):
        response = lead.post("/documents/upload", data={"csrftoken": csrf(lead, "/documents")}, files={"file": (name, b"# x\n\ntexto")})
        assert response.status_code == 400 and "nombre de archivo no permitido" in response.text
    assert not (svc.settings.paths.data_dir.parent / "evil.md").exists()
    uploads = svc.settings.paths.uploads_dir
    assert not uploads.exists() or not any(uploads.iterdir())


def test_an_unsupported_type_is_refused_in_spanish(lead):
    response = lead.post("/documents/upload", data={"csrftoken": csrf(lead, "/documents")}, files={"file": ("programa.exe", b"MZ...")})
    assert response.status_code == 400 and "tipo de archivo no admitido .exe" in response.text


def test_an_oversized_upload_gets_a_clear_message(lead, svc):
    big = b"# grande\n\n" + b"a" * 60_000  # the fixture's limit is 0.05 MB
    response = lead.post("/documents/upload", data={"csrftoken": csrf(lead, "/documents")}, files={"file": ("grande.md", big)})
    assert response.status_code == 413 and "el máximo es 0.05 MB" in response.text
    assert not (svc.settings.paths.uploads_dir / "grande.md").exists()


def test_a_document_title_and_file_name_with_html_are_rendered_inert(lead, app):
    response = lead.post("/documents/upload", data={"csrftoken": csrf(lead, "/documents")}, files={"file": ("guia (1).md", b"# <script>alert('titulo')</script> Guia\n\nTexto de la guia de tramites.")}, follow_redirects=False)
    assert response.status_code == 303
    app.console.state.jobs.wait()
    page = lead.get("/documents").text
    assert "guia (1)" in page and "<script>alert('titulo')" not in page and "&lt;script&gt;" in page


def test_a_disabled_account_loses_its_session(app, svc, reviewer):
    assert reviewer.get("/").status_code == 200
    with session_scope(svc.engine) as session:
        staff.disable_staff(session=session, name="rafa", actor="test")
    response = reviewer.get("/", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login")
    assert sign_in(TestClient(app), "rafa").status_code == 401  # and cannot sign in again


def test_a_lead_disabling_an_account_from_the_page_ends_its_session(lead, reviewer):
    assert lead.post("/staff/rafa/disable", data={"csrftoken": csrf(lead, "/staff")}).status_code == 200
    assert reviewer.get("/", follow_redirects=False).status_code == 303


def test_login_attempts_are_rate_limited(app, svc):
    client = TestClient(app)
    for _ in range(svc.settings.console.login_max_failures):
        assert sign_in(client, "lucia", "wrong password").status_code == 401
    response = sign_in(client, "lucia")  # even the right password waits now
    assert response.status_code == 429 and "demasiados intentos" in response.text


def test_next_after_login_stays_on_this_site(app):
    client = TestClient(app)
    response = client.post("/login", data={"csrftoken": csrf(client), "name": "lucia", "password": "una clave larga 123", "next": "//evil.example/x"}, follow_redirects=False)
    assert response.headers["location"] == "/"


def test_an_upload_without_its_csrf_token_is_refused(lead, svc):
    for data in ({}, {"csrftoken": "forged"}):
        response = lead.post("/documents/upload", data=data, files={"file": ("becas.md", b"# Becas\n\ntexto")})
        assert response.status_code == 403
    assert not (svc.settings.paths.uploads_dir / "becas.md").exists()


def test_a_file_name_with_html_is_refused_and_shown_inert(lead):
    response = lead.post("/documents/upload", data={"csrftoken": csrf(lead, "/documents")}, files={"file": ("<script>alert(1)</script>.md", b"# x\n\ntexto")})
    assert response.status_code == 400
    assert "<script>alert(1)</script>" not in response.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in response.text
