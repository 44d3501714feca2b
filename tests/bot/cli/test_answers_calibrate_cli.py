"""`orienta answers calibrate [--json]`: the readiness label and answer reuse measured against staff decisions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.wiring.services import Services
from pipeline.settings import load_settings
from review.db import session_scope
from tests.bot.learning.test_readiness_calibration import _office


@pytest.fixture
def cli(cli_env):
    runner = CliRunner()
    assert runner.invoke(app, ["--init", "answers", "list"]).exit_code == 0  # a migrated database
    return lambda *args: runner.invoke(app, list(args))


def _decide(**sizes) -> None:
    services = Services(load_settings())
    with session_scope(services.engine) as session:
        _office(session, **sizes)
    services.close()


def test_calibrate_json_proposes_the_stricter_rule_the_held_out_decisions_support(cli):
    _decide(ready_high=48, ready_low=24)
    result = cli("answers", "calibrate", "--json", "--dry-run")
    assert result.exit_code == 0, result.output
    r = json.loads(result.stdout)
    assert r["readiness"]["claimed"] == 72 and r["readiness"]["adopted"] is True and r["readiness"]["rule"]["feature"] == "confidence"
    assert r["readiness"]["stored"] is False and r["readiness"]["rule_in_use"] is None and not Path(r["path"]).exists()  # --dry-run measures only
    assert r["reuse"]["claimed"] == 0 and r["reuse"]["adopted"] is False
    text = cli("answers", "calibrate").output
    assert "«listo»: 47 de 72 enviados sin cambios (IC 95%" in text and "confidence ≥" in text and "mejor en decisiones no vistas" in text
    assert "regla adoptada y guardada" in text and Path(r["path"]).exists()
    again = cli("answers", "calibrate").output  # the same decisions: the stored rule stays in use
    assert "regla en uso: confidence ≥" in again and "regla adoptada" not in again


def test_calibrate_keeps_the_label_on_thin_evidence(cli):
    _decide(ready_high=8, ready_low=4)
    text = cli("answers", "calibrate").output
    assert "«listo»: 7 de 12 enviados sin cambios" in text and "pocas decisiones (12; hacen falta 30)" in text
    assert "ninguna decidida todavía" in text
