"""Retrieval modes over a small office, re-ranking, and the settings factory."""

from __future__ import annotations

from collections import Counter

import pytest

from pipeline.chunking import Chunk, chunk_document
from pipeline.documents import Document
from pipeline.embeddings import HashingEmbedder
from pipeline.errors import ConfigurationError
from pipeline.index import Hit
from pipeline.retrieval import QdrantRetriever, by_document, load_reranker, retriever_from_settings, score_fusion
from pipeline.settings import RetrievalSettings
from pipeline.sparse import BM25Encoder
from tests.pipeline.index_fixtures import index  # noqa: F401  (fixture)

EMB = HashingEmbedder(dim=128)
OFFICE = {
    "revalidas": ("Reválidas", "Para revalidar materias aprobadas en otra universidad se presenta el programa del curso en Bedelía. El trámite cuesta 500 pesos."),
    "becas": ("Becas", "El Fondo de Solidaridad otorga becas de transporte y alojamiento a estudiantes del interior del país."),
    "examenes": ("Exámenes", "La inscripción a los exámenes de febrero cierra el 5 de febrero. Los exámenes se rinden en el período indicado en el calendario."),
    "lockers": ("Lockers", "La Facultad no tiene lockers; el centro de estudiantes alquila casilleros."),
}


@pytest.fixture
def office(index):  # noqa: F811
    index.ensure(EMB.dim)
    sparse = BM25Encoder()
    for doc_id, (title, text) in OFFICE.items():
        doc = Document(id=doc_id, title=title, text=text, source=f"/{doc_id}.md")
        chunks = chunk_document(doc, "sentence", size=120, overlap=0)
        texts = [c.embed_text for c in chunks]
        index.replace_document(chunks, EMB.embed_passages(texts), sparse.encode_passages(texts), doc_meta=doc.metadata())
    return index


QUESTIONS = {
    "¿Cuánto sale revalidar una materia de otra universidad?": "revalidas",
    "¿Hay becas para estudiantes del interior?": "becas",
    "¿Hasta cuándo me inscribo a los exámenes de febrero?": "examenes",
}


@pytest.mark.parametrize("mode", ["dense", "sparse", "hybrid"])
def test_each_mode_finds_the_right_document(office, mode):
    r = QdrantRetriever(office, EMB, mode=mode)
    for question, doc_id in QUESTIONS.items():
        hits = r.retrieve(question, 2)
        assert hits and hits[0].chunk.doc_id == doc_id, (mode, question, [h.chunk.doc_id for h in hits])
        assert len(hits) <= 2


def test_sparse_mode_matches_words_despite_accents_and_case(office):
    hits = QdrantRetriever(office, None, mode="sparse").retrieve("REVALIDA BEDELIA", 3)
    assert hits[0].chunk.doc_id == "revalidas"


def test_hybrid_fuses_both_rankings(office):
    r = QdrantRetriever(office, EMB, mode="hybrid")
    hits = r.retrieve("casilleros en la Facultad", 4)
    assert hits[0].chunk.doc_id == "lockers"
    assert hits == sorted(hits, key=lambda h: -h.score)


class ReverseReranker:
    """A fake cross-encoder that prefers the hits retrieval ranked last."""

    def rerank(self, question, hits):
        return [Hit(h.chunk, float(i)) for i, h in enumerate(hits)][::-1]


def test_a_reranker_reorders_the_candidates(office):
    plain = QdrantRetriever(office, EMB, mode="hybrid").retrieve("becas de transporte", 4)
    reranked = QdrantRetriever(office, EMB, mode="hybrid", reranker=ReverseReranker(), rerank_candidates=4).retrieve("becas de transporte", 4)
    assert [h.chunk.id for h in reranked] == [h.chunk.id for h in plain][::-1]


def test_an_unavailable_cross_encoder_turns_reranking_off(tmp_path, caplog):
    assert load_reranker(str(tmp_path / "no-such-cross-encoder")) is None
    assert "re-ranking disabled" in caplog.text
    assert load_reranker(None) is None


def test_factory_follows_the_settings(office):
    r = retriever_from_settings(RetrievalSettings(mode="sparse", prefetch=7), index=office, embedder=None)
    assert (r.mode, r.prefetch) == ("sparse", 7)
    assert r.retrieve("becas", 1)[0].chunk.doc_id == "becas"
    with pytest.raises(ConfigurationError):
        QdrantRetriever(office, None, mode="dense")


@pytest.mark.parametrize("mode", ["dense", "sparse", "hybrid"])
def test_a_cap_of_one_chunk_per_document_ranks_documents_by_their_best_chunk(office, mode):
    question = "exámenes de febrero en el calendario"
    raw = QdrantRetriever(office, EMB, mode=mode).retrieve(question, 10)
    assert len({h.chunk.doc_id for h in raw}) < len(raw), "the office should give several chunks of one document"
    capped = QdrantRetriever(office, EMB, mode=mode, max_chunks_per_document=1).retrieve(question, 3)
    first_seen = list(dict.fromkeys(h.chunk.doc_id for h in raw))
    assert [h.chunk.doc_id for h in capped] == first_seen[:3]
    assert [h.chunk.id for h in capped] == [next(h.chunk.id for h in raw if h.chunk.doc_id == d) for d in first_seen[:3]]


def test_a_cap_of_two_keeps_a_second_chunk_of_a_document(office):
    hits = QdrantRetriever(office, EMB, mode="sparse", max_chunks_per_document=2).retrieve("exámenes de febrero", 10)
    per_doc = Counter(h.chunk.doc_id for h in hits)
    assert per_doc["examenes"] == 2 and max(per_doc.values()) == 2


def test_the_settings_cap_documents_at_one_chunk_by_default(office):
    assert RetrievalSettings().max_chunks_per_document == 1
    r = retriever_from_settings(RetrievalSettings(mode="sparse"), index=office, embedder=None)
    hits = r.retrieve("exámenes de febrero", 4)
    assert len({h.chunk.doc_id for h in hits}) == len(hits)
    assert retriever_from_settings(RetrievalSettings(mode="sparse", max_chunks_per_document=0), index=office, embedder=None).max_chunks_per_document == 0


def test_support_chunks_add_depth_from_the_documents_found_without_changing_the_top_k(office):
    r = QdrantRetriever(office, EMB, mode="sparse", max_chunks_per_document=1)
    top = r.retrieve("exámenes de febrero", 2)
    with_support = r.retrieve("exámenes de febrero", 2, support=5)
    assert top and with_support[: len(top)] == top
    extra = with_support[len(top) :]
    assert extra and all(h.chunk.doc_id in {t.chunk.doc_id for t in top} for h in extra)
    assert len({h.chunk.id for h in with_support}) == len(with_support)
    assert r.retrieve("exámenes de febrero", 2, support=0) == top
    uncapped = QdrantRetriever(office, EMB, mode="sparse").retrieve("exámenes de febrero", 1, support=1)
    assert len(uncapped) == 2 and uncapped[1].chunk.doc_id == uncapped[0].chunk.doc_id  # without a cap, support still reaches past k


RULES = {
    "preguntas": ("Preguntas frecuentes", "¿Cuál es la zona mínima del curso para el examen final? Consulte el reglamento."),
    "reglamento": ("Reglamento", "La zona mínima del curso es de 36 puntos. Sin la zona mínima no hay derecho a examen final."),
}


@pytest.fixture
def rules_office(index):  # noqa: F811
    index.ensure(EMB.dim)
    sparse = BM25Encoder()
    for doc_id, (title, text) in RULES.items():
        doc = Document(id=doc_id, title=title, text=text, source=f"/{doc_id}.md")
        chunks = chunk_document(doc, "sentence", size=60, overlap=0)
        texts = [c.embed_text for c in chunks]
        index.replace_document(chunks, EMB.embed_passages(texts), sparse.encode_passages(texts), doc_meta=doc.metadata())
    return index


def test_a_document_that_answers_in_two_chunks_outranks_one_whose_single_chunk_scores_best(rules_office):
    question = "¿Cuál es la zona mínima del curso para el examen final?"
    raw = QdrantRetriever(rules_office, EMB, mode="sparse").retrieve(question, 10)
    assert raw[0].chunk.doc_id == "preguntas" and Counter(h.chunk.doc_id for h in raw)["reglamento"] == 2
    best_chunk = QdrantRetriever(rules_office, EMB, mode="sparse", max_chunks_per_document=1).retrieve(question, 2)
    assert [h.chunk.doc_id for h in best_chunk] == ["preguntas", "reglamento"]
    two = QdrantRetriever(rules_office, EMB, mode="sparse", max_chunks_per_document=1, second_chunk_weight=1.0).retrieve(question, 2, support=1)
    assert [h.chunk.doc_id for h in two[:2]] == ["reglamento", "preguntas"]
    assert two[0].chunk.id == next(h.chunk.id for h in raw if h.chunk.doc_id == "reglamento")  # the document's best chunk leads it
    assert two[2].chunk.doc_id == "reglamento" and two[2].chunk.id != two[0].chunk.id
    assert RetrievalSettings().second_chunk_weight == 0.0  # the default ranks by score fusion, where the best chunk alone did best
    assert retriever_from_settings(RetrievalSettings(mode="sparse", second_chunk_weight=1.0), index=rules_office, embedder=None).retrieve(question, 1)[0].chunk.doc_id == "reglamento"


def test_a_second_chunk_weight_of_a_quarter_breaks_near_ties_but_not_a_clear_lead():
    def hit(doc: str, position: int, score: float) -> Hit:
        return Hit(Chunk(doc_id=doc, doc_title=doc, text=f"{doc} {position}", position=position), score)

    weight = 0.25
    hits = [hit("faq", 0, 1.0), hit("reglamento", 4, 0.9), hit("guia", 0, 0.6), hit("reglamento", 9, 0.5), hit("guia", 1, 0.6)]
    ranked = by_document(hits, weight)
    assert [h.chunk.id for h in ranked] == ["reglamento#4", "reglamento#9", "faq#0", "guia#0", "guia#1"]  # 0.9 + 0.5/4 > 1.0 > 0.6 + 0.6/4
    assert by_document(hits, 0.0) == hits
    assert [h.chunk.id for h in by_document([hit("faq", 0, 1.0), hit("reglamento", 4, 0.7), hit("reglamento", 9, 0.6)], weight)][0] == "faq#0"  # a clear lead stands


def _hit(doc: str, position: int, score: float) -> Hit:
    return Hit(Chunk(doc_id=doc, doc_title=doc, text=f"{doc} {position}", position=position), score)


def test_documents_can_be_ranked_by_scores_of_their_own_while_chunks_keep_their_order():
    hits = [_hit("faq", 0, 1.0), _hit("reglamento", 4, 0.9), _hit("guia", 0, 0.6), _hit("reglamento", 9, 0.5), _hit("otro", 2, 0.4)]
    ranked = by_document(hits, 0.25, {"reglamento": 0.8, "guia": 0.7, "faq": 0.5})
    assert [h.chunk.id for h in ranked] == ["reglamento#4", "reglamento#9", "guia#0", "faq#0", "otro#2"]  # a document the scores lack goes last
    assert by_document(hits, 0.0, {"faq": 1.0, "guia": 0.9, "reglamento": 0.1})[:2] == [hits[0], hits[2]]


def test_score_fusion_keeps_how_far_ahead_a_chunk_is_not_only_its_rank():
    dense = [_hit("faq", 0, 0.90), _hit("reglamento", 4, 0.89), _hit("guia", 0, 0.70)]
    sparse = [_hit("reglamento", 4, 12.0), _hit("faq", 0, 6.0), _hit("guia", 0, 2.0)]
    fused = score_fusion([dense, sparse])
    assert [h.chunk.id for h in fused] == ["reglamento#4", "faq#0", "guia#0"]  # 0.95 + 1 against 1 + 0.4
    assert fused[0].score == pytest.approx(0.95 + 1.0) and fused[-1].score == pytest.approx(0.0)
    assert [h.chunk.id for h in score_fusion([[], sparse])] == ["reglamento#4", "faq#0", "guia#0"]  # an empty branch (no query words) adds nothing
    assert score_fusion([[_hit("faq", 0, 0.5)]])[0].score == 0.0  # a single hit, no spread: scaled to 0, still listed


class _Branches:
    """An index whose hybrid (RRF) search puts the FAQ's one chunk first, while the regulation leads the dense and sparse scores."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def search_hybrid(self, dense, sparse, k, *, prefetch, rrf_k=None, weights=None):
        self.calls.append("hybrid")
        return [_hit("faq", 0, 1.0), _hit("reglamento", 9, 0.6), _hit("reglamento", 4, 0.5), _hit("guia", 0, 0.4)][:k]

    def search_dense(self, vector, k):
        self.calls.append("dense")
        return [_hit("faq", 0, 0.90), _hit("reglamento", 9, 0.89), _hit("reglamento", 4, 0.88), _hit("guia", 0, 0.6)][:k]

    def search_sparse(self, vector, k):
        self.calls.append("sparse")
        return [_hit("reglamento", 4, 9.0), _hit("reglamento", 9, 8.0), _hit("faq", 0, 7.5), _hit("guia", 0, 1.0)][:k]


def test_documents_ranked_by_their_scores_in_both_branches_keep_the_chunks_rrf_order():
    index = _Branches()
    by_rank = QdrantRetriever(index, EMB, mode="hybrid", max_chunks_per_document=1, second_chunk_weight=0.25)
    assert [h.chunk.id for h in by_rank.retrieve("zona mínima", 2, support=1)] == ["faq#0", "reglamento#9", "reglamento#4"]
    assert index.calls == ["hybrid"]  # ranking by rank needs no other search
    index.calls.clear()
    by_scores = QdrantRetriever(index, EMB, mode="hybrid", max_chunks_per_document=1, second_chunk_weight=0.25, document_fusion="scores")
    top = by_scores.retrieve("zona mínima", 2, support=1)
    assert [h.chunk.doc_id for h in top[:2]] == ["reglamento", "faq"]
    assert top[0].chunk.id == "reglamento#9" and top[2].chunk.id == "reglamento#4"  # within the document, the RRF order stands
    assert sorted(index.calls) == ["dense", "hybrid", "sparse"]
    index.calls.clear()
    QdrantRetriever(index, EMB, mode="hybrid", max_chunks_per_document=0, document_fusion="scores").retrieve("zona mínima", 2)
    assert index.calls == ["hybrid"]  # without a per-document cap there is no document order to set
    assert RetrievalSettings().document_fusion == "scores"
    assert retriever_from_settings(RetrievalSettings(), index=index, embedder=EMB).document_fusion == "scores"
