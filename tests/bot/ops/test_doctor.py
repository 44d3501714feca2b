"""`orienta doctor` against a working and a broken deployment: real Dovecot over TLS, aiosmtpd with STARTTLS, PostgreSQL,
the Slack and Anthropic stand-ins; one finding per check, green or red, `--json`, exit code 1 on any red."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from bot.cli import app
from bot.ops.doctor import manifest_scopes
from review.db import init_db, make_engine
from tests.bot.email.conftest import oauth_server, pki, secure_account, secure_dovecot  # noqa: F401  (fixtures)
from tests.review.databases import PG_URL, postgres_available
from tests.servers.slack_server import FakeSlackServer
from tests.servers.smtp import SmtpServer

CHECKS = ["config", "database", "qdrant", "mailbox", "smtp", "slack", "llm", "gate", "disk"]


@pytest.fixture
def pg_schema():
    """A private, empty schema on the local PostgreSQL; yields (url, engine) with the schema as search_path."""
    if not postgres_available():
        pytest.skip(f"PostgreSQL not reachable at {PG_URL}")
    schema = f"doctor_{secrets.token_hex(5)}"
    admin = make_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = f"{PG_URL}?options=-csearch_path%3D{schema}"
    engine = make_engine(url)
    try:
        yield url, engine
    finally:
        engine.dispose()
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def _doctor(*extra: str) -> tuple[int, list[dict]]:
    result = CliRunner().invoke(app, ["doctor", "--json", *extra], catch_exceptions=False)
    return result.exit_code, json.loads(result.stdout)


def _env(monkeypatch, values: dict[str, str]) -> None:
    for key, value in values.items():
        monkeypatch.setenv(key, value)


def _deployment(monkeypatch, *, secure_account, pki, smtp, slack, anthropic_server, pg_url, working: bool) -> None:
    server = secure_account.server
    _env(monkeypatch, {
        "ORIENTA_DATABASE__URL": pg_url,
        "ORIENTA_IMAP__HOST": "localhost",
        "ORIENTA_IMAP__PORT": str(server.ssl_port),
        "ORIENTA_IMAP__SECURITY": "ssl",
        "ORIENTA_IMAP__CA_FILE": str(pki.ca_file),
        "ORIENTA_IMAP__USER": secure_account.user,
        "ORIENTA_IMAP__PASSWORD": secure_account.password if working else "not-the-password",
        "ORIENTA_IMAP__TIMEOUT_S": "20",
        "ORIENTA_SMTP__HOST": "localhost",
        "ORIENTA_SMTP__PORT": str(smtp.port),
        "ORIENTA_SMTP__SECURITY": "starttls",
        "ORIENTA_SMTP__CA_FILE": str(pki.ca_file if working else pki.other_ca_file),
        "ORIENTA_SMTP__USER": "office",
        "ORIENTA_SMTP__PASSWORD": "pw-office",
        "ORIENTA_SMTP__TIMEOUT_S": "20",
        "ORIENTA_SLACK__BOT_TOKEN": "xoxb-test",
        "ORIENTA_SLACK__SIGNING_SECRET": "test-signing-secret",
        "ORIENTA_SLACK__BASE_URL": slack.api_url,
        "ORIENTA_SLACK__REVIEW_CHANNEL": "C0REVIEW1",
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": anthropic_server.url,
    })
    if not working:
        _env(monkeypatch, {
            "ORIENTA_PATHS__DOCUMENTS": json.dumps([str(Path(os.getcwd()) / "no-such-folder")]),
            "ORIENTA_LLM__MODEL": "claude-sonnet-4-5",  # deprecated in the models table
            "ORIENTA_OPS__MIN_FREE_DISK_MB": str(10**9),
        })


def test_doctor_working_and_broken_deployments(cli_env, monkeypatch, secure_account, pki, anthropic_server, pg_schema):
    pg_url, engine = pg_schema
    secure_account.create_mailbox("Sent")
    runner = CliRunner()
    scopes = ",".join(sorted(manifest_scopes()))
    with SmtpServer(tls=pki.server_context, credentials=("office", "pw-office"), auth_required=True) as smtp, \
            FakeSlackServer(oauth_scopes=scopes) as slack:
        slack.add_channel("C0REVIEW1", "revision")
        # --- working: migrated database, indexed documents, trained gate, every server reachable and trusted
        init_db(engine)
        _deployment(monkeypatch, secure_account=secure_account, pki=pki, smtp=smtp, slack=slack, anthropic_server=anthropic_server, pg_url=pg_url, working=True)
        assert runner.invoke(app, ["ingest"], catch_exceptions=False).exit_code == 0
        assert runner.invoke(app, ["gate", "train"], catch_exceptions=False).exit_code == 0
        code, good = _doctor("--llm-call")
        assert [f["check"] for f in good] == CHECKS
        assert code == 0 and all(f["ok"] for f in good), good
        by = {f["check"]: f["detail"] for f in good}
        assert "migraciones al día" in by["database"] and "UIDVALIDITY" in by["mailbox"] and "carpeta de enviados 'Sent' presente" in by["mailbox"]
        assert "starttls" in by["smtp"] and "scopes iguales a los del manifiesto" in by["slack"] and "una llamada" in by["llm"]
        assert smtp.messages == [] and len(anthropic_server.message_requests) == 1  # nothing sent; exactly one tiny LLM call
        assert len(slack.calls_to("chat.postMessage")) == 0

        # --- broken: every part misconfigured the way an office would get it wrong
    with SmtpServer(tls=pki.server_context, credentials=("office", "pw-office"), auth_required=True) as smtp, \
            FakeSlackServer(strict=True) as slack:  # default token scopes (not the manifest's), no review channel
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM alembic_version"))
        for path in ("gate", "qdrant"):
            import shutil

            shutil.rmtree(cli_env / path)
        _deployment(monkeypatch, secure_account=secure_account, pki=pki, smtp=smtp, slack=slack, anthropic_server=anthropic_server, pg_url=pg_url, working=False)
        code, bad = _doctor()
        assert code == 1 and [f["check"] for f in bad] == CHECKS
        assert not any(f["ok"] for f in bad), [f for f in bad if f["ok"]]
        by = {f["check"]: f["detail"] for f in bad}
        assert "no-such-folder" in by["config"] and "ninguna revisión" in by["database"] and "todavía no hay índice" in by["qdrant"]
        assert "login" in by["mailbox"] and "not-the-password" not in json.dumps(bad)
        assert "certificate" in by["smtp"] and "le faltan scopes" in by["slack"] and "deprecated" in by["llm"]
        assert "sin entrenar" in by["gate"] and "mínimo" in by["disk"]
        assert smtp.messages == []

    table = [{"check": g["check"], "working": {"ok": g["ok"], "detail": g["detail"]}, "broken": {"ok": b["ok"], "detail": b["detail"]}} for g, b in zip(good, bad)]
    if os.environ.get("DOCTOR_TABLE_OUT"):  # benchmarks/results/doctor.json is written from this run
        Path(os.environ["DOCTOR_TABLE_OUT"]).write_text(json.dumps(table, ensure_ascii=False, indent=2) + "\n")


def test_doctor_text_output_is_one_line_per_check(cli_env):
    result = CliRunner().invoke(app, ["--init", "doctor"], catch_exceptions=False)
    lines = [ln for ln in result.stdout.splitlines() if ln.strip()]
    assert len(lines) == len(CHECKS) and all(ln[0] in "✔✘" for ln in lines)
    assert result.exit_code == 1  # a fresh data dir has no database, index or gate yet
