"""A console app on a fresh data dir (hashing embedder, local Qdrant), with a lead and a reviewer account."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from bot.console.app import create_app
from bot.wiring.services import Services
from pipeline.settings import Settings
from review import staff
from review.db import session_scope

PASSWORD = "una clave larga 123"
SAMPLE = """# Becas de transporte

La beca de transporte se solicita en Bienestar Universitario entre el 1 y el 31 de marzo.
Requisitos: estar inscripto en la carrera y presentar el formulario firmado.
"""


@pytest.fixture
def svc(tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    settings = Settings(data_dir=tmp_path / "data", embedding={"backend": "hashing"}, llm={"provider": "extractive"}, retrieval={"max_document_mb": 0.05})
    services = Services(settings)
    with session_scope(services.engine) as session:
        staff.add_staff(session=session, name="lucia", role=staff.LEAD, password=PASSWORD, actor="test")
        staff.add_staff(session=session, name="rafa", role=staff.REVIEWER, password=PASSWORD, actor="test")
    yield services
    services.close()


@pytest.fixture
def app(svc):
    application = create_app(svc)
    yield application
    application.console.state.jobs.close()


def csrf(client: TestClient, path: str = "/login") -> str:
    """The CSRF token a page's forms carry."""
    found = re.search(r'name="csrftoken" value="([^"]+)"', client.get(path).text)
    assert found, f"no CSRF token on {path}"
    return found.group(1)


def sign_in(client: TestClient, name: str, password: str = PASSWORD):
    return client.post("/login", data={"csrftoken": csrf(client), "name": name, "password": password, "next": "/"}, follow_redirects=False)


@pytest.fixture
def lead(app):
    client = TestClient(app)
    assert sign_in(client, "lucia").status_code == 303
    return client


@pytest.fixture
def reviewer(app):
    client = TestClient(app)
    assert sign_in(client, "rafa").status_code == 303
    return client
