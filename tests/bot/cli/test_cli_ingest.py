"""`orienta ingest`, `orienta search`, `orienta docs` and `orienta eval retrieval` end to end on a small folder."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from bot.cli import app


@pytest.fixture
def cli(settings, monkeypatch):
    monkeypatch.setenv("ORIENTA_EMBEDDING__BACKEND", "hashing")

    def run(*args: str):
        return CliRunner().invoke(app, ["--data-dir", str(settings.paths.data_dir), *args], catch_exceptions=False)

    return run


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    (d / "becas.md").write_text("# Becas\n\nEl Fondo de Solidaridad da becas de transporte a estudiantes del interior.", encoding="utf-8")
    (d / "revalidas.md").write_text("# Reválidas\n\nLas reválidas de materias de otra universidad se piden en Bedelía y cuestan 500 pesos.", encoding="utf-8")
    (d / "roto.pdf").write_bytes(b"%PDF-1.4 nothing else")
    return d


def test_ingest_search_docs_and_eval(cli, folder, tmp_path):
    report = json.loads(cli("ingest", str(folder), "--strategy", "sentence", "--json").stdout)
    assert sorted(report["added"]) == ["becas", "revalidas"] and list(report["failed"]) == [str(folder / "roto.pdf")]
    assert json.loads(cli("ingest", str(folder), "--strategy", "sentence", "--json").stdout)["unchanged"] == ["becas", "revalidas"]

    for mode in ("dense", "sparse", "hybrid"):
        hits = json.loads(cli("search", "¿Cuánto cuesta una reválida?", "-k", "1", "--mode", mode, "--json").stdout)
        assert [h["doc_id"] for h in hits] == ["revalidas"], mode
    table = cli("search", "becas de transporte", "--mode", "sparse")
    assert "becas" in table.stdout and "score" in table.stdout

    assert "inactivo" in cli("docs", "deactivate", "becas").stdout
    hits = json.loads(cli("search", "becas de transporte", "--mode", "hybrid", "--json").stdout)
    assert "becas" not in {h["doc_id"] for h in hits}
    listed = json.loads(cli("docs", "list", "--json").stdout)
    assert listed["becas"]["active"] is False and listed["revalidas"]["active"] is True
    assert cli("docs", "activate", "nada").exit_code == 1
    cli("docs", "activate", "becas")

    qa = tmp_path / "qa.jsonl"
    qa.write_text('{"question": "becas de transporte", "doc": "becas"}\n{"question": "reválida en Bedelía", "doc": ["revalidas", "otro"]}\n', encoding="utf-8")
    metrics = json.loads(cli("eval", "retrieval", "--qa", str(qa), "--k", "1,3,5,10", "--mode", "sparse", "--json").stdout)
    assert set(metrics) == {"recall@1", "recall@3", "recall@5", "recall@10", "mrr", "latency_ms_p50", "latency_ms_p95", "n"}
    assert metrics["recall@1"] == 1.0 and metrics["n"] == 2


def test_bad_options_fail_with_a_clear_message(cli, folder):
    assert "--strategy desconocida" in cli("ingest", str(folder), "--strategy", "magic").stderr
    assert "--mode desconocido" in cli("search", "hola", "--mode", "fuzzy").stderr
    assert "no existe el archivo" in cli("ingest", str(folder / "nope")).stderr
