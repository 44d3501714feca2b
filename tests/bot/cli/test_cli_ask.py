"""`orienta ask` offline (extractive) and with each method against a local Messages API server."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from bot.cli import app
from tests.pipeline.claude_rules import assert_valid
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
    anthropic_server.enqueue_text(json.dumps(steps, ensure_ascii=False))
    data = json.loads(cli("ask", QUESTION, "--method", "derivation", "--json").stdout)
    assert data["method"] == "derivation" and data["usage"]["calls"] == 1 and data["cost_usd"] > 0
    assert any(f["step"] == "s2" and "«29»" in f["flag"] for f in data["flags"])  # the date the premises never say
    anthropic_server.enqueue_text(json.dumps(steps, ensure_ascii=False))
    text = cli("ask", QUESTION, "--method", "derivation").stdout
    assert "⚠" in text and "Verificador:" in text and "US$" in text
    anthropic_server.enqueue_text("Podés inscribirte hasta el 22 de enero.")
    assert json.loads(cli("ask", QUESTION, "--method", "rag", "--json").stdout)["method"] == "rag"
    anthropic_server.enqueue_text("Podés inscribirte hasta el 22 de enero.")
    assert json.loads(cli("ask", QUESTION, "--method", "long-context", "--json").stdout)["method"] == "long-context"
    assert "<documento" in anthropic_server.requests[-1].json["system"][0]["text"]
    bodies = [r.json for r in anthropic_server.message_requests]
    assert {b["model"] for b in bodies} == {"claude-sonnet-5-5"}  # ORIENTA_LLM__MODEL unset: the current Sonnet
    assert all(b["output_config"]["effort"] == "medium" and not {"temperature", "tool_choice", "tools"} & set(b) for b in bodies)
    assert "format" in bodies[0]["output_config"] and "format" not in bodies[-1]["output_config"]  # derivation structured, long-context text
    assert_valid(anthropic_server)


def test_a_refusal_is_shown_as_such(cli, anthropic_server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_server.url)
    anthropic_server.enqueue_text("", stop_reason="refusal")
    data = json.loads(cli("ask", QUESTION, "--method", "rag", "--json").stdout)
    assert data["outcome"] == "refusal" and data["answer"] == "" and data["flags"][0]["flag"] == "refusal"
    anthropic_server.enqueue_text("Podés inscribirte hasta", stop_reason="max_tokens")
    assert "Respuesta truncada" in cli("ask", QUESTION, "--method", "rag").stdout


def test_a_retired_model_is_refused_with_its_replacement(cli, anthropic_server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_server.url)
    monkeypatch.setenv("ORIENTA_LLM__MODEL", "claude-sonnet-4-20250514")
    result = CliRunner().invoke(app, ["ask", QUESTION, "--method", "rag", "--json"])
    assert result.exit_code != 0 and "claude-sonnet-5-5" in (result.output + str(result.exception)) and anthropic_server.message_requests == []
