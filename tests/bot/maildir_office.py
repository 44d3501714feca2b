"""An office that reads a Maildir, with the sample documents ingested and the gate off: for `orienta run --once` tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select
from typer.testing import CliRunner

from bot.cli import app
from pipeline.settings import Settings
from review.db import make_engine


@pytest.fixture
def office(cli_env, monkeypatch, tmp_path):
    """`(run, inbox, data_dir)`: `run(*args, code=0)` invokes the CLI and checks its exit code."""
    monkeypatch.setenv("ORIENTA_GATE__ENABLED", "false")
    monkeypatch.setenv("ORIENTA_SMTP__FROM", "Orientación <consultas@ingenieria.example.edu.gt>")
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    monkeypatch.setenv("ORIENTA_PATHS__MAILDIR", str(inbox))
    runner = CliRunner()

    def run(*args: str, code: int = 0):
        result = runner.invoke(app, list(args), catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result

    run("ingest", "--json")
    return run, inbox, cli_env


def office_engine(data_dir: Path) -> Engine:
    return make_engine(Settings(data_dir=data_dir, _env_file=None).database_url)  # type: ignore[call-arg]


def rows(data_dir: Path, model) -> list:
    """Every row of `model` in the office's database, in id order."""
    engine = office_engine(data_dir)
    with Session(engine) as s:
        found = list(s.exec(select(model).order_by(model.id)).all())
    engine.dispose()
    return found
