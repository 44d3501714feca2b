"""`orienta ask` offline (extractive) and with each method against a local Messages API server."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from bot.cli import app
from pipeline.generation.derivation import DERIVATION_TOOL
from tests.servers.api_fixtures import anthropic_server  # noqa: F401  (fixture)

QUESTION = "¿Hasta cuándo me puedo inscribir a los exámenes de febrero?"


@pytest.fixture
def cli(cli_env, monkeypatch):
    monkeypatch.setenv("ORIENTA_GATE__ENABLED", "false")
    runner = CliRunner()

    def run(*args: str):
        result = runner.invoke(app, list(args), catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result

    run("ingest", "--json")
    return run


def test_offline_every_method_is_the_extractive_derivation(cli):
    for method in ("rag", "derivation", "long-context"):
        data = json.loads(cli("ask", QUESTION, "--method", method, "--json").stdout)
        assert data["method"] == "extractive" and data["derivation"] and "flags" in data and data["usage"]["calls"] == 0
    text = cli("ask", QUESTION).stdout
    assert "Derivación" in text and "Refine" in text and "extractive" in text


def test_each_method_against_the_messages_api(cli, anthropic_server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_server.url)
    steps = {"steps": [
        {"id": "s1", "rule": "Extract", "premises": ["1"], "conclusion": "Inscripción hasta el viernes 22 de enero de 2027.", "is_final": False},
        {"id": "s2", "rule": "Refine", "premises": ["s1"], "conclusion": "Te podés inscribir hasta el viernes 29 de enero de 2027.", "is_final": True},
    ]}
    anthropic_server.enqueue_tool_use(DERIVATION_TOOL["name"], steps)
    data = json.loads(cli("ask", QUESTION, "--method", "derivation", "--json").stdout)
    assert data["method"] == "derivation" and data["usage"]["calls"] == 1 and data["cost_usd"] > 0
    assert any(f["step"] == "s2" and "«29»" in f["flag"] for f in data["flags"])  # the date the premises never say
    anthropic_server.enqueue_tool_use(DERIVATION_TOOL["name"], steps)
    text = cli("ask", QUESTION, "--method", "derivation").stdout
    assert "⚠" in text and "Verificador:" in text and "US$" in text
    anthropic_server.enqueue_text("Podés inscribirte hasta el 22 de enero.")
    assert json.loads(cli("ask", QUESTION, "--method", "rag", "--json").stdout)["method"] == "rag"
    anthropic_server.enqueue_text("Podés inscribirte hasta el 22 de enero.")
    assert json.loads(cli("ask", QUESTION, "--method", "long-context", "--json").stdout)["method"] == "long-context"
    assert "<documento" in anthropic_server.requests[-1].json["system"][0]["text"]
