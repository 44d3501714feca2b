"""Gate features: parsing, similarity to the corpus, lexical coverage, persistence."""

from __future__ import annotations

import numpy as np
import pytest

from classifiers.errors import GateError
from classifiers.features import FeatureSpace, parse_kinds, similarity_features


def test_parse_kinds_is_canonical_and_strict():
    assert parse_kinds("lexical+similarity") == ("similarity", "lexical")
    with pytest.raises(GateError):
        parse_kinds("embedding+magic")


def test_similarity_features_by_hand():
    corpus = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    q = np.array([[1.0, 0.0]])
    top1, topk_mean, margin = similarity_features(q, corpus, k=2)[0]
    assert top1 == pytest.approx(1.0) and topk_mean == pytest.approx(0.8) and margin == pytest.approx(1.0 - 1.6 / 3)


def test_lexical_coverage_is_higher_for_corpus_words(chunks, chunk_vectors):
    space = FeatureSpace.fit("lexical", chunk_texts=[c.embed_text for c in chunks], chunk_vectors=chunk_vectors)
    inside, outside = space.lexical(["beca de transporte para estudiantes", "receta de pizza napolitana"])
    assert inside[0] > outside[0]
    dense, sparse = space.transform(["beca"])
    assert dense.shape == (1, 3) and sparse is None


def test_save_load_round_trip(tmp_path, chunks, chunk_vectors, fake_embedder):
    space = FeatureSpace.fit("embedding+similarity+tfidf+lexical", chunk_texts=[c.embed_text for c in chunks], chunk_vectors=chunk_vectors)
    space.save(tmp_path)
    again = FeatureSpace.load(tmp_path)
    texts = ["beca de alojamiento", "un poema"]
    (d1, s1), (d2, s2) = space.transform(texts, embedder=fake_embedder), again.transform(texts, embedder=fake_embedder)
    assert np.allclose(d1, d2) and np.allclose(s1.toarray(), s2.toarray())


def test_embedding_features_need_an_embedder(chunks, chunk_vectors):
    space = FeatureSpace.fit("similarity", chunk_texts=[c.embed_text for c in chunks], chunk_vectors=chunk_vectors)
    with pytest.raises(GateError):
        space.transform(["hola"])
