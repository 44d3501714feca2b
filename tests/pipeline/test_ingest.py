"""Ingestion: incremental re-indexing, the embedding cache, and bad input next to good input."""

from __future__ import annotations

import pytest

from pipeline.embed_cache import CachedEmbedder, EmbeddingCache
from pipeline.embeddings import HashingEmbedder
from pipeline.errors import PipelineError
from pipeline.index import ChunkIndex
from pipeline.ingest import ingest
from tests.pipeline.docs_factory import write_pdf


class CountingEmbedder(HashingEmbedder):
    def __init__(self, fail_on: str | None = None) -> None:
        super().__init__(dim=64)
        self.embedded, self.fail_on = 0, fail_on

    def embed_passages(self, texts):
        if self.fail_on and any(self.fail_on in t for t in texts):
            raise PipelineError("embedding backend crashed")
        self.embedded += len(texts)
        return super().embed_passages(texts)


@pytest.fixture
def docs(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    (d / "becas.md").write_text("# Becas\n\nHay becas de transporte para estudiantes del interior.", encoding="utf-8")
    (d / "examenes.md").write_text("# Exámenes\n\nLa inscripción a exámenes cierra el 5 de febrero.", encoding="utf-8")
    (d / "lockers.txt").write_text("Lockers\nNo hay lockers en la Facultad.", encoding="utf-8")
    return d


@pytest.fixture
def index(tmp_path):
    idx = ChunkIndex(path=tmp_path / "qdrant")
    yield idx
    idx.close()


def test_reingest_embeds_only_new_or_changed_documents_and_removes_deleted_ones(docs, index):
    emb = CountingEmbedder()
    first = ingest([docs], index=index, embedder=emb)
    # each document is one chunk holding one answer unit; the two Markdown units repeat their chunk's text and take its
    # vector, the .txt one (its chunk keeps the title line) is embedded itself: 3 chunk texts + 1 unit text
    assert sorted(first.added) == ["becas", "examenes", "lockers"] and first.chunks == 3 and emb.embedded == 4
    again = ingest([docs], index=index, embedder=emb)
    assert sorted(again.unchanged) == ["becas", "examenes", "lockers"] and emb.embedded == 4 and again.chunks == 0
    (docs / "becas.md").write_text("# Becas\n\nLas becas de alojamiento se piden en marzo.", encoding="utf-8")
    (docs / "lockers.txt").unlink()
    (docs / "revalidas.md").write_text("# Reválidas\n\nSe tramitan en Bedelía.", encoding="utf-8")
    third = ingest([docs], index=index, embedder=emb)
    assert (third.updated, third.removed, third.added) == (["becas"], ["lockers"], ["revalidas"])
    assert emb.embedded == 6
    texts = {c.doc_id: c.text for c, _ in index.all_chunks()}
    assert set(texts) == {"becas", "examenes", "revalidas"} and "alojamiento" in texts["becas"]


def test_answer_units_are_stored_with_their_vectors_and_a_new_units_version_reindexes(docs, index, monkeypatch):
    emb = CountingEmbedder()
    ingest([docs], index=index, embedder=emb)
    chunks = {c.doc_id: c for c, _ in index.all_chunks()}
    unit = next(u for u in chunks["examenes"].units if u.kind == "sentence")
    assert unit.text == "La inscripción a exámenes cierra el 5 de febrero." and unit.vec() is not None and unit.vec().shape == (64,)
    import pipeline.ingest as ingest_module

    monkeypatch.setattr(ingest_module, "UNITS_VERSION", ingest_module.UNITS_VERSION + 1)
    assert sorted(ingest([docs], index=index, embedder=emb).updated) == ["becas", "examenes", "lockers"]


def test_a_new_title_for_the_same_text_reindexes_the_document(docs, index, tmp_path):
    emb = CountingEmbedder()
    pdf = write_pdf(docs / "normativo.pdf", ["Artículo 1. La inscripción es anual."], metadata={"Title": "Microsoft Word - norm.doc"})
    assert "normativo" in ingest([docs], index=index, embedder=emb).added
    assert index.documents()["normativo"]["title"] == "Normativo"
    write_pdf(pdf, ["Artículo 1. La inscripción es anual."], metadata={"Title": "Reglamento de inscripción"})
    report = ingest([docs], index=index, embedder=emb)
    assert report.updated == ["normativo"] and index.documents()["normativo"]["title"] == "Reglamento de inscripción"


def test_a_new_chunking_strategy_rechunks_and_reset_rebuilds(docs, index):
    emb = CountingEmbedder()
    ingest([docs], index=index, embedder=emb, strategy="structure")
    assert sorted(ingest([docs], index=index, embedder=emb, strategy="fixed").updated) == ["becas", "examenes", "lockers"]
    rebuilt = ingest([docs], index=index, embedder=emb, strategy="fixed", reset=True)
    assert sorted(rebuilt.added) == ["becas", "examenes", "lockers"]


def test_ingesting_one_file_does_not_remove_the_others(docs, index):
    emb = CountingEmbedder()
    ingest([docs], index=index, embedder=emb)
    report = ingest([docs / "becas.md"], index=index, embedder=emb)
    assert report.removed == [] and set(index.documents()) == {"becas", "examenes", "lockers"}


def test_reset_with_the_cache_costs_no_embedding(docs, index, tmp_path):
    inner = CountingEmbedder()
    emb = CachedEmbedder(inner, EmbeddingCache(tmp_path / "cache"))
    ingest([docs], index=index, embedder=emb)
    report = ingest([docs], index=index, embedder=emb, reset=True)
    assert report.chunks == 3 and inner.embedded == 4


def test_an_inactive_document_stays_inactive_when_it_changes(docs, index):
    emb = CountingEmbedder()
    ingest([docs], index=index, embedder=emb)
    index.set_active("becas", False)
    (docs / "becas.md").write_text("# Becas\n\nTexto nuevo sobre becas.", encoding="utf-8")
    ingest([docs], index=index, embedder=emb)
    assert index.documents()["becas"]["active"] is False


def test_bad_files_get_a_message_each_and_the_rest_is_ingested(docs, index, tmp_path):
    (docs / "corrupto.pdf").write_bytes(b"%PDF-1.7\nthis is not a pdf body")
    (docs / "vacio.md").write_bytes(b"")
    (docs / "imagen.txt").write_bytes(bytes(range(256)) * 20)
    (docs / "planilla.xlsx").write_bytes(b"PK\x03\x04")
    (docs / "latin1.txt").write_bytes("Constancia\nSe pide en Bedelía, año lectivo.".encode("cp1252"))
    with (docs / "enorme.md").open("wb") as fh:
        fh.truncate(50 * 1024 * 1024)
    write_pdf(docs / "reglamento.pdf", ["Artículo 1. Los cursos se aprueban con 60 puntos."])
    report = ingest([docs], index=index, embedder=CountingEmbedder())
    failed = {p.rsplit("/", 1)[-1]: msg for p, msg in report.failed.items()}
    assert set(failed) == {"corrupto.pdf", "vacio.md", "imagen.txt", "planilla.xlsx", "enorme.md"}
    assert "empty" in failed["vacio.md"] and "binary" in failed["imagen.txt"] and "too large" in failed["enorme.md"]
    assert "unsupported" in failed["planilla.xlsx"] and "PDF" in failed["corrupto.pdf"]
    assert sorted(report.added) == ["becas", "examenes", "latin1", "lockers", "reglamento"]
    assert any("windows-1252" in w for w in sum(report.warnings.values(), []))
    assert set(index.documents()) == {"becas", "examenes", "latin1", "lockers", "reglamento"}


def test_a_document_whose_embedding_fails_is_not_half_written(docs, index):
    (docs / "roto.md").write_text("# Roto\n\nPrimer párrafo.\n\n" + "BOOM " * 400, encoding="utf-8")
    report = ingest([docs], index=index, embedder=CountingEmbedder(fail_on="BOOM"), chunk_size=200, overlap=0)
    assert "roto" not in index.documents() and report.failed
    assert sorted(report.added) == ["becas", "examenes", "lockers"]
