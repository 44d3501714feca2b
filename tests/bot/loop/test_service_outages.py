"""Outages of the services themselves, not only the model (issue 22): the retrieval index held by another process or its
server unreachable, and PostgreSQL refusing connections, during `orienta run --once`. Real components: the local Qdrant
index locked by a real qdrant-client in another process, a Qdrant URL where nothing listens, and the real PostgreSQL
server behind a TCP switch the test cuts (connection refused) and restores. Messages wait (not quarantined, not lost);
once the service is back, the next pass puts every one of them in the review queue."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import Session, select
from typer.testing import CliRunner

from bot.cli import app, main
from bot.demo import sample
from bot.email.maildir import copy_to_maildir
from review import queue, states
from review.db import make_engine
from review.models import InboundMessage
from tests.review.databases import PG_URL, postgres_available
from tests.servers.tcp_switch import TcpSwitch

MAILS = ["01_inscripcion_examenes_febrero.eml", "02_creditos_para_recibirme.eml", "04_que_becas_hay.eml", "05_inscripcion_cursos_primer_semestre.eml"]
HOLD = "import sys\nfrom qdrant_client import QdrantClient\nclient = QdrantClient(path=sys.argv[1])\nprint('held', flush=True)\nsys.stdin.read()\n"


class IndexHolder:
    """Another process (a second worker, an ingestion) holding the local index's file lock, until released."""

    def __init__(self, path: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "held"

    def release(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(30)


def _run(runner: CliRunner) -> dict:
    result = runner.invoke(app, ["run", "--once", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout[result.stdout.index("{"):])


def _review(runner: CliRunner, state: str | None = None) -> list[dict]:
    result = runner.invoke(app, ["review", "list", "--json", *(["--state", state] if state else [])], catch_exceptions=False)
    return json.loads(result.stdout[result.stdout.index("["):])


def _setup(cli_env: Path, tmp_path: Path, monkeypatch) -> tuple[CliRunner, Path]:
    inbox = copy_to_maildir([sample.emails_dir() / n for n in MAILS], tmp_path / "inbox")
    monkeypatch.setenv("ORIENTA_PATHS__MAILDIR", str(inbox))
    monkeypatch.setenv("ORIENTA_GATE__ENABLED", "false")
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", "--json"], catch_exceptions=False).exit_code == 0
    return runner, inbox


@pytest.fixture
def pg_schema(monkeypatch):
    """A private schema on the real PostgreSQL, reached through a TCP switch the test can cut."""
    if not postgres_available():
        pytest.skip(f"PostgreSQL not reachable at {PG_URL}")
    schema = f"t_{secrets.token_hex(6)}"
    admin = make_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    host, port = PG_URL.rsplit("@", 1)[1].split("/", 1)[0].split(":")
    switch = TcpSwitch((host, int(port))).up()
    base = PG_URL.replace(f"{host}:{port}", f"127.0.0.1:{switch.port}")
    yield switch, f"{base}?options=-csearch_path%3D{schema}&connect_timeout=3"
    switch.down()
    with admin.begin() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


@pytest.mark.parametrize("database", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_a_locked_index_leaves_messages_waiting_and_all_reach_review_when_it_is_free(database, cli_env, tmp_path, monkeypatch, request):
    if database == "postgresql":
        _switch, url = request.getfixturevalue("pg_schema")
        monkeypatch.setenv("ORIENTA_DATABASE__URL", url)
    runner, _inbox = _setup(cli_env, tmp_path, monkeypatch)
    holder = IndexHolder(cli_env / "qdrant")
    try:
        first = _run(runner)
        assert (first["stored"], first["drafted"], first["quarantined"], first["waiting"]) == (len(MAILS), 0, 0, len(MAILS)), first
        assert _review(runner, "quarantined") == [] and _review(runner) == []
        again = _run(runner)  # still held: still waiting, never quarantined
        assert (again["drafted"], again["quarantined"], again["waiting"]) == (0, 0, len(MAILS)), again
    finally:
        holder.release()
    back = _run(runner)
    assert (back["drafted"], back["quarantined"], back["waiting"]) == (len(MAILS), 0, 0), back
    assert len(_review(runner)) == len(MAILS) and _review(runner, "quarantined") == []


def test_an_unreachable_qdrant_server_leaves_messages_waiting_not_quarantined(cli_env, tmp_path, monkeypatch):
    runner, _inbox = _setup(cli_env, tmp_path, monkeypatch)
    monkeypatch.setenv("ORIENTA_QDRANT__URL", "http://127.0.0.1:9")  # nothing listens there: connection refused
    down = _run(runner)
    assert (down["stored"], down["drafted"], down["quarantined"], down["waiting"]) == (len(MAILS), 0, 0, len(MAILS)), down
    assert any("Qdrant" in e for e in down["errors"])
    monkeypatch.delenv("ORIENTA_QDRANT__URL")  # the index answers again
    back = _run(runner)
    assert (back["drafted"], back["quarantined"], back["waiting"]) == (len(MAILS), 0, 0), back
    assert len(_review(runner)) == len(MAILS)


@pytest.mark.postgres
def test_postgresql_down_during_run_once_loses_nothing_and_the_messages_reach_review_when_it_is_back(pg_schema, cli_env, tmp_path, monkeypatch, capsys):
    switch, url = pg_schema
    monkeypatch.setenv("ORIENTA_DATABASE__URL", url)
    runner, inbox = _setup(cli_env, tmp_path, monkeypatch)

    # 1. The database refuses connections when `run --once` starts: one clear line, exit 1, every mail still in the Maildir.
    switch.down()
    monkeypatch.setattr(sys, "argv", ["orienta", "run", "--once", "--json"])
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert len(list((inbox / "new").iterdir())) == len(MAILS)

    # 2. Back, but the index is held by another process: stored, all waiting.
    switch.up()
    holder = IndexHolder(cli_env / "qdrant")
    try:
        stored = _run(runner)
        assert (stored["stored"], stored["quarantined"], stored["waiting"], stored["drafted"]) == (len(MAILS), 0, len(MAILS), 0), stored
    finally:
        holder.release()

    # 3. The database goes away under a running worker: the pass records it and raises nothing; no state changed.
    from bot.loop.worker import run_once
    from bot.wiring.services import Services
    from pipeline.settings import load_settings

    svc = Services(load_settings())
    try:
        switch.down()
        report = run_once(svc)
        assert (report.drafted, report.quarantined, report.stored) == (0, 0, 0)
        assert report.errors and all("OperationalError" in e for e in report.errors), report.errors
        switch.up()
        with Session(svc.engine) as s:
            waiting = s.exec(select(InboundMessage)).all()
            assert len(waiting) == len(MAILS) and all(m.state != states.QUARANTINED and m.reason.startswith("waiting:") for m in waiting)

        # 4. Both back: every message in the review queue, none quarantined.
        back = run_once(svc)
        assert (back.drafted, back.quarantined, back.waiting) == (len(MAILS), 0, 0), back.as_dict()
        with Session(svc.engine) as s:
            assert queue.count_pending(session=s) == len(MAILS)
            assert {m.state for m in s.exec(select(InboundMessage)).all()} == {states.DRAFTED}
    finally:
        svc.close()
