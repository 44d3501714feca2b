"""`orienta staff`, `orienta answers edit`, `orienta docs replace|delete`, and ingest's gate notice and exit code."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from bot.cli import app
from bot.wiring.services import Services
from pipeline.settings import load_settings
from review import staff
from review.answer_models import CuratedAnswer
from review.db import session_scope
from review.models import AuditEvent

DOC = "# Becas\n\nLa beca de transporte se pide en marzo en Bienestar Universitario.\n"


@pytest.fixture
def cli(cli_env):
    runner = CliRunner()
    return lambda *args, input=None: runner.invoke(app, ["--init", *args], input=input)


def test_staff_add_reads_the_password_from_stdin_and_hashes_it(cli):
    result = cli("staff", "add", "lucia", "--role", "lead", input="una clave larga 123\n")
    assert result.exit_code == 0, result.output
    services = Services(load_settings())
    with Session(services.engine) as session:
        account = staff.get_staff(session=session, name="lucia")
        assert account.role == "lead" and account.password_hash.startswith("$argon2id$") and "una clave" not in account.password_hash
        assert staff.authenticate(session=session, name="lucia", password="una clave larga 123", ip=None) is not None
    services.close()
    listed = json.loads(cli("staff", "list", "--json").stdout)
    assert [(r["name"], r["role"], r["active"]) for r in listed] == [("lucia", "lead", True)]
    assert cli("staff", "disable", "lucia").exit_code == 0
    assert json.loads(cli("staff", "list", "--json").stdout)[0]["active"] is False


def test_staff_add_refuses_a_short_password_and_an_unknown_role(cli):
    assert "al menos 10 caracteres" in cli("staff", "add", "ana", "--role", "lead", input="corta\n").output
    result = cli("staff", "add", "ana", "--role", "jefa", input="una clave larga 123\n")
    assert result.exit_code == 1 and "rol desconocido" in result.output


def test_answers_edit_makes_a_new_version(cli):
    services = Services(load_settings())
    with session_scope(services.engine) as session:
        row = CuratedAnswer(question="¿Horario?", text="De 9 a 13.", approved_by="cli:ana")
        session.add(row)
        session.flush()
        answer_id = row.id
    services.close()
    result = cli("answers", "edit", str(answer_id), "--text", "De 9 a 15.", "--as", "cli:lucia")
    assert result.exit_code == 0 and "versión 2" in result.output
    services = Services(load_settings())
    with Session(services.engine) as session:
        assert session.get(CuratedAnswer, answer_id).text == "De 9 a 15."
        event = session.exec(select(AuditEvent).where(AuditEvent.event == "curated_answer_edited")).one()
        assert event.actor == "cli:lucia" and event.details["previous_text"] == "De 9 a 13."
    services.close()


def test_docs_replace_keeps_the_id_and_ingest_says_the_gate_is_stale(cli, tmp_path):
    import shutil

    from bot.wiring.services import EMBEDDED_DOCUMENTS

    docs = tmp_path / "docs"
    shutil.copytree(EMBEDDED_DOCUMENTS, docs)  # enough documents for the gate to train on
    (docs / "becas.md").write_text(DOC, encoding="utf-8")
    assert cli("ingest", str(docs)).exit_code == 0
    assert cli("gate", "train").exit_code == 0
    new = tmp_path / "becas-nuevo.md"
    new.write_text(DOC.replace("marzo", "abril"), encoding="utf-8")
    result = cli("docs", "replace", "becas", str(new))
    assert result.exit_code == 0, result.output
    assert "gate quedó desactualizado" in result.output and "orienta gate train" in result.output
    assert "abril" in (docs / "becas.md").read_text(encoding="utf-8")  # replaced in place
    listed = json.loads(cli("docs", "list", "--json").stdout)
    assert "becas" in listed and not any(k.startswith("becas-") for k in listed)
    (docs / "otro.md").write_text("# Otro\n\nHorario de bedelía: de 9 a 13.\n", encoding="utf-8")
    result = cli("ingest", str(docs))
    assert "gate quedó desactualizado" in result.output
    assert cli("docs", "delete", "otro").exit_code == 0 and not (docs / "otro.md").exists()


def test_ingest_fails_when_no_file_could_be_indexed_and_says_why_in_spanish(cli, tmp_path):
    docs = tmp_path / "malos"
    docs.mkdir()
    (docs / "programa.exe").write_bytes(b"MZ")
    (docs / "vacio.md").write_text("", encoding="utf-8")
    result = cli("ingest", str(docs))
    assert result.exit_code == 1
    assert "tipo de archivo no admitido .exe" in result.output and "el archivo está vacío" in result.output and "no se pudo indexar ningún documento" in result.output


def test_review_show_after_a_decision_shows_who_decided_and_the_sent_text(cli):
    from review import queue
    from tests.review.factories import make_drafted

    services = Services(load_settings())
    with session_scope(services.engine) as session:
        draft, _ = make_drafted(session)
        queue.edit(session=session, draft_id=draft.id, actor="cli:ana", text="Hola: cierra el 12 de febrero.")
    services.close()
    result = cli("review", "show", str(draft.id))
    assert result.exit_code == 0
    out = " ".join(result.output.split())
    assert "editado" in out and "Editado y aprobado por cli:ana" in out and "Texto enviado" in out and "cierra el 12 de febrero" in out
    assert "[bold]" not in result.output and "[/]" not in result.output
    data = json.loads(cli("review", "show", str(draft.id), "--json").stdout)
    assert data["decision"]["action"] == "edit" and data["sent_text"] == "Hola: cierra el 12 de febrero."


def test_the_first_account_can_be_added_to_a_fresh_data_dir(cli_env):
    result = CliRunner().invoke(app, ["staff", "add", "lucia", "--role", "lead"], input="una clave larga 123\n")
    assert result.exit_code == 0, result.output
    assert (cli_env / "orienta.db").exists()


def test_staff_accounts_belong_to_offices_in_campus_mode(cli, tmp_path):
    (tmp_path / "becas").mkdir()
    (tmp_path / "becas" / "becas.md").write_text(DOC, encoding="utf-8")
    assert cli("offices", "add", "becas", "--documents", str(tmp_path / "becas")).exit_code == 0
    result = cli("staff", "add", "bea", "--role", "reviewer", "--office", "Becas", "--json", input="una clave larga 123\n")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["offices"] == ["becas"]
    refused = cli("staff", "add", "ivo", "--role", "reviewer", "--office", "comedor", input="una clave larga 123\n")
    assert refused.exit_code == 1 and "no existe la oficina 'comedor'" in refused.output
    assert cli("staff", "add", "lucia", "--role", "lead", input="una clave larga 123\n").exit_code == 0
    assert json.loads(cli("staff", "offices", "lucia", "--office", "becas", "--json").stdout)["offices"] == ["becas"]
    assert json.loads(cli("staff", "offices", "lucia", "--json").stdout)["offices"] == []  # the campus lead again
    listed = {r["name"]: r["offices"] for r in json.loads(cli("staff", "list", "--json").stdout)}
    assert listed == {"bea": ["becas"], "lucia": []}
