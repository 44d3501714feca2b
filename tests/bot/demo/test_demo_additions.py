"""`orienta demo` asks before wiping a demo data dir that holds what someone added after the demo ran."""

from __future__ import annotations

from typer.testing import CliRunner

from bot.cli import app
from bot.demo.run import MARKER, _mark_finished, user_additions
from review import staff
from review.db import init_db, make_engine, session_scope


def test_a_demo_dir_left_as_it_was_has_no_additions(tmp_path):
    _mark_finished(tmp_path)
    assert user_additions(tmp_path) == []


def test_uploads_accounts_and_later_changes_are_additions(tmp_path):
    _mark_finished(tmp_path)
    engine = make_engine(f"sqlite:///{tmp_path / 'orienta.db'}")
    init_db(engine)
    with session_scope(engine) as session:
        staff.add_staff(session=session, name="lucia", role="lead", password="una clave larga 123", actor="cli:x")
    engine.dispose()
    (tmp_path / "documents").mkdir()
    (tmp_path / "documents" / "becas.md").write_text("# Becas\n", encoding="utf-8")
    found = " ".join(user_additions(tmp_path))
    assert "documentos agregados" in found and "cuentas de la consola" in found and "cambios registrados después de la demo" in found


def test_demo_refuses_without_yes_when_not_on_a_terminal(cli_env):
    demo = cli_env / "demo"
    demo.mkdir(parents=True)
    (demo / MARKER).write_text("created by orienta demo\n2026-01-01 00:00:00\n", encoding="utf-8")
    (demo / "documents").mkdir()
    (demo / "documents" / "mio.md").write_text("# Mío\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["demo"])
    assert result.exit_code == 1 and "--yes" in result.output
    assert (demo / "documents" / "mio.md").exists()
