"""Settings: env prefix, nested sections, .env files, secrets and validation."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from pipeline.settings import Settings, load_settings


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    import os

    for key in list(os.environ):
        if key.startswith(("ORIENTA_", "ANTHROPIC_")):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


def test_defaults_put_everything_under_the_data_dir(tmp_path):
    s = Settings()
    assert s.paths.data_dir == Path(".orienta")
    assert s.database_url.endswith(".orienta/orienta.db")
    assert s.paths.qdrant_dir == Path(".orienta/qdrant")
    assert s.paths.gate_dir == Path(".orienta/gate")
    assert s.paths.reports_dir == Path(".orienta/reports")


def test_env_prefix_and_nested_delimiter(monkeypatch):
    monkeypatch.setenv("ORIENTA_DATA_DIR", "/tmp/o1")
    monkeypatch.setenv("ORIENTA_IMAP__HOST", "imap.example.edu")
    monkeypatch.setenv("ORIENTA_IMAP__PORT", "1143")
    monkeypatch.setenv("ORIENTA_IMAP__SECURITY", "starttls")
    monkeypatch.setenv("ORIENTA_SLACK__CHANNELS", '["C1", "C2"]')
    s = Settings()
    assert s.paths.data_dir == Path("/tmp/o1")
    assert (s.imap.host, s.imap.port, s.imap.security) == ("imap.example.edu", 1143, "starttls")
    assert s.slack.channels == ["C1", "C2"]


def test_dotenv_file_is_read(tmp_path):
    (tmp_path / ".env").write_text("ORIENTA_QDRANT__URL=http://qdrant:6333\nORIENTA_DATABASE__URL=postgresql+psycopg://u@h/db\n")
    s = Settings()
    assert s.qdrant.url == "http://qdrant:6333"
    assert s.database_url == "postgresql+psycopg://u@h/db"


def test_secrets_are_hidden_and_placeholders_rejected(monkeypatch):
    monkeypatch.setenv("ORIENTA_IMAP__PASSWORD", "s3cr3t-value")
    s = Settings()
    assert "s3cr3t-value" not in repr(s) and "s3cr3t-value" not in str(s.model_dump())
    assert s.imap.password.get_secret_value() == "s3cr3t-value"
    monkeypatch.setenv("ORIENTA_IMAP__PASSWORD", "changeme")
    with pytest.raises(ValidationError, match="placeholder"):
        Settings()


def test_invalid_values_fail_with_the_field_named(monkeypatch):
    monkeypatch.setenv("ORIENTA_IMAP__SECURITY", "tls-please")
    with pytest.raises(ValidationError) as exc:
        Settings()
    assert exc.value.errors()[0]["loc"][:2] == ("imap", "security")
    monkeypatch.delenv("ORIENTA_IMAP__SECURITY")
    monkeypatch.setenv("ORIENTA_DIGEST__TIMEZONE", "Mars/Olympus")
    with pytest.raises(ValidationError, match="unknown timezone"):
        Settings()


def test_slack_token_without_signing_secret_is_rejected(monkeypatch):
    monkeypatch.setenv("ORIENTA_SLACK__BOT_TOKEN", "xoxb-123")
    with pytest.raises(ValidationError, match="SIGNING_SECRET"):
        Settings()


def test_anthropic_variables_are_folded_in(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9999")
    s = load_settings()
    assert s.llm.api_key.get_secret_value() == "sk-ant-test"
    assert s.llm.base_url == "http://127.0.0.1:9999"


def test_llm_roles_effort_and_deprecation_warning_at_start(monkeypatch, tmp_path, caplog):
    import logging

    from pipeline.settings import load_settings

    monkeypatch.chdir(tmp_path)
    for key in [k for k in __import__("os").environ if k.startswith(("ORIENTA_", "ANTHROPIC_"))]:
        monkeypatch.delenv(key)
    s = load_settings()
    assert (s.llm.model, s.llm.judge_model, s.llm.effort, s.llm.temperature, s.digest.judge_temperature) == ("claude-sonnet-5-5", None, "medium", None, None)
    monkeypatch.setenv("ORIENTA_LLM__JUDGE_MODEL", "claude-haiku-4-5")
    monkeypatch.setenv("ORIENTA_LLM__SYNTHETIC_EFFORT", "high")
    monkeypatch.setenv("ORIENTA_LLM__BATCH_MIN_ITEMS", "0")
    s = load_settings()
    assert (s.llm.judge_model, s.llm.synthetic_effort, s.llm.batch_min_items) == ("claude-haiku-4-5", "high", 0)
    monkeypatch.setenv("ORIENTA_LLM__EFFORT", "extreme")
    with pytest.raises(ValidationError):
        load_settings()
    monkeypatch.delenv("ORIENTA_LLM__EFFORT")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ORIENTA_LLM__MODEL", "claude-sonnet-4-5")
    from pipeline.llm import models

    models._warned.discard("claude-sonnet-4-5")
    with caplog.at_level(logging.WARNING):
        load_settings()
    assert any("claude-sonnet-4-5" in r.getMessage() and "2026-11-30" in r.getMessage() for r in caplog.records)


def test_anthropic_variables_in_dotenv_are_honoured(tmp_path, monkeypatch):
    for key in [k for k in __import__("os").environ if k.startswith(("ORIENTA_", "ANTHROPIC_"))]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("ANTHROPIC_API_KEY=sk-ant-from-dotenv\nANTHROPIC_BASE_URL=http://127.0.0.1:9\nORIENTA_OPS__HTTP_PORT=9200\n")
    s = load_settings()
    assert s.llm.api_key.get_secret_value() == "sk-ant-from-dotenv" and s.llm.base_url == "http://127.0.0.1:9"
    assert s.ops.http_port == 9200 and s.ops.http_host == "127.0.0.1"
    monkeypatch.setenv("ORIENTA_LLM__API_KEY", "sk-ant-explicit")  # the ORIENTA_ setting wins over Anthropic's name
    assert load_settings().llm.api_key.get_secret_value() == "sk-ant-explicit"
    (tmp_path / ".env").write_text("ANTHROPIC_API_KEY=changeme\n")
    monkeypatch.delenv("ORIENTA_LLM__API_KEY")
    with pytest.raises(Exception, match="placeholder"):
        load_settings()


def test_offices_need_no_configuration_and_the_default_office_is_unchanged():
    s = Settings()
    assert s.offices.default == "principal" and s.offices.declared == [] and s.offices.shared_documents == []
    assert s.for_office("principal") is s  # a single office: the settings themselves


def test_an_office_gets_its_own_index_gate_and_reports_plus_the_campus_documents(monkeypatch):
    monkeypatch.setenv("ORIENTA_DATA_DIR", "/tmp/campus")
    monkeypatch.setenv("ORIENTA_OFFICES__SHARED_DOCUMENTS", "/docs/calendario,/docs/reglamento")
    monkeypatch.setenv("ORIENTA_OFFICES__DECLARED", '[{"name": "Becas y Bienestar", "documents": "/docs/becas", "review_channel": "C0BECAS"}]')
    s = Settings()
    (becas,) = s.offices.declared
    assert becas.name == "Becas y Bienestar" and becas.documents == [Path("/docs/becas")]
    scoped = s.for_office(becas.name, documents=becas.documents, review_channel=becas.review_channel, reply_from="Becas <becas@example.edu>")
    assert scoped.paths.documents == [Path("/docs/becas"), Path("/docs/calendario"), Path("/docs/reglamento")]
    assert scoped.paths.qdrant_dir == Path("/tmp/campus/offices/becas-y-bienestar/qdrant")
    assert scoped.paths.gate_dir == Path("/tmp/campus/offices/becas-y-bienestar/gate")
    assert scoped.paths.reports_dir == Path("/tmp/campus/offices/becas-y-bienestar/reports")
    assert scoped.qdrant.collection == "orienta_chunks__becas-y-bienestar" and scoped.slack.review_channel == "C0BECAS"
    assert scoped.smtp.from_ == "Becas <becas@example.edu>"
    assert scoped.database_url == s.database_url and scoped.paths.cache_dir == s.paths.cache_dir  # one database, one embedding cache
    # the campus settings themselves are untouched
    assert s.paths.qdrant_dir == Path("/tmp/campus/qdrant") and s.qdrant.collection == "orienta_chunks" and s.paths.router_dir == Path("/tmp/campus/router")
