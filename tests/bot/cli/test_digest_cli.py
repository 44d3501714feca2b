"""`orienta digest --week ... [--send] --json` on a synthetic week."""

from __future__ import annotations

import json
import mailbox
import os

import pytest
from sqlmodel import Session
from typer.testing import CliRunner

from bot.cli import app
from bot.wiring.services import Services
from pipeline.settings import load_settings
from review.db import session_scope
from review.models import DigestRun
from tests.review.digest_week import WEEK, build_week


@pytest.fixture
def cli(cli_env, monkeypatch):
    services = Services(load_settings())
    with session_scope(services.engine) as session:
        build_week(session)
    services.close()
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args))


def test_digest_json_has_the_contract_keys(cli):
    result = cli("digest", "--week", WEEK, "--json")
    assert result.exit_code == 0, result.output
    f = json.loads(result.stdout)
    assert {k: f[k] for k in ("received", "skipped", "quarantined", "out_of_domain", "drafted", "approved", "edited", "rejected", "sent")} == {
        "received": 10, "skipped": 1, "quarantined": 1, "out_of_domain": 1, "drafted": 8, "approved": 1, "edited": 2, "rejected": 3, "sent": 3,
    }
    assert f["kappa"] == 0.8 and f["spearman"] == 0.8 and f["acceptable_rate"] == 0.75
    assert f["time_to_review"]["p50"] == 45.0 and f["time_to_review"]["p90"] == 105.0
    assert f["content_gaps"][0]["size"] == 2 and len(f["content_gaps"][0]["examples"]) == 2
    assert f["cost_usd"] == pytest.approx(0.035) and f["delivery"] is None
    assert f["cache_hit_rate"] == 0.45 and f["cost_per_answer_usd"] == pytest.approx(0.03 / 7, abs=1e-6)
    assert f["html"].endswith(f"digest-{WEEK}.html") and os.path.exists(f["html"])


def test_digest_send_marks_the_week_delivered(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("ORIENTA_DIGEST__RECIPIENTS", '["jefa@ingenieria.example.edu.uy"]')
    result = cli("digest", "--week", WEEK, "--send", "--json")
    assert result.exit_code == 0, result.output
    f = json.loads(result.stdout)
    assert f["delivery"]["emailed"] == ["jefa@ingenieria.example.edu.uy"]
    assert len(list(mailbox.Maildir(tmp_path / "data" / "outbox", create=False))) == 1
    services = Services(load_settings())
    with Session(services.engine) as session:
        assert session.get(DigestRun, WEEK).sent_at is not None  # the scheduler will not send this week again


def test_digest_text_prints_the_counts_with_reused(cli):
    result = cli("digest", "--week", WEEK)
    assert result.exit_code == 0, result.output
    line = " ".join(result.stdout.split())  # rich wraps long lines
    assert "10 recibidos," in line and "3 enviados," in line
    assert "0 desde respuestas aprobadas," in line and "0 cierres sin borrador," in line and "0 seguimientos" in line


def test_bad_week_is_one_clear_error(cli):
    result = cli("digest", "--week", "2026-47")
    assert result.exit_code == 1 and "2026-W47" in result.output


def test_digest_send_with_nothing_configured_fails_in_spanish(cli):
    result = cli("digest", "--week", WEEK, "--send")
    assert result.exit_code == 1
    assert "no se envió el resumen" in result.output and "no hay destinatarios configurados" in result.output


def test_missing_figures_print_as_a_dash(cli_env):
    runner = CliRunner()
    result = runner.invoke(app, ["--init", "digest", "--week", "2020-W01"])
    assert result.exit_code == 0, result.output
    line = " ".join(result.stdout.split())
    assert "p50 — ," in line.replace("p50 —,", "p50 — ,") and "kappa —" in line and "None" not in line
