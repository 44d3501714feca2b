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


def test_ingest_prints_a_warning_per_page_range_of_a_pdf_it_could_not_read_whole(cli, tmp_path):
    from tests.pipeline.pdf_factory import BOXES, boxes_pdf

    d = tmp_path / "guias"
    d.mkdir()
    # page 1 boxes with step numbers, pages 2-3 scanned, page 4 boxes whose second row of numbers sits far from any box
    far = [(0.06, 0.1, "7"), (0.37, 0.1, "8"), (0.68, 0.1, "9")]
    boxes_pdf(d / "cierre.pdf", [{}, None, None, {"boxes": BOXES[:3], "extra": far}])
    out = cli("ingest", str(d), "--strategy", "sentence").stdout
    assert "1 agregados" in out
    assert "aviso cierre.pdf: pages 2-3 of 4: no text layer" in " ".join(out.split())
    assert "cierre.pdf: page 4 of 4:" in " ".join(out.split())
    hits = json.loads(cli("search", "recibo del pago de cierre", "-k", "1", "--mode", "sparse", "--json").stdout)
    assert hits and "Recibo de pago: Recibo del pago de cierre por Q.75.00" in " ".join(hits[0]["text"].split())
