"""tfidf_rows: the same rows as the vectorizer's own transform, without its per-call validation."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer

from classifiers.tfidf import tfidf_rows
from pipeline.text import fold

DOCS = ["El curso de Física 2 pide Física 1", "El EPS dura seis meses", "La toga se alquila para el acto de graduación", "prácticas intermedias y finales"]
QUERIES = ["¿cuántos créditos tiene física 2?", "toga toga toga", "nada que ver", "", "EPS y prácticas finales, ¿cuánto duran?"]


@pytest.mark.parametrize("vectorizer", [
    TfidfVectorizer(preprocessor=fold, sublinear_tf=True, ngram_range=(1, 2), dtype=np.float32),
    TfidfVectorizer(preprocessor=fold, analyzer="char_wb", ngram_range=(3, 4), sublinear_tf=True, dtype=np.float32),
    TfidfVectorizer(lowercase=False, token_pattern=r"\S+", sublinear_tf=True, ngram_range=(1, 2), dtype=np.float32),
    TfidfVectorizer(),
    TfidfVectorizer(norm=None, use_idf=False),
    TfidfVectorizer(norm="l1"),  # not computed here: the vectorizer's own transform
])
def test_the_rows_are_the_vectorizers_own(vectorizer):
    vectorizer.fit(DOCS)
    expected = vectorizer.transform(QUERIES)
    got = tfidf_rows(vectorizer, QUERIES)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(got.toarray(), expected.toarray(), rtol=1e-6, atol=1e-7)


def test_a_vectorizer_rebuilt_from_its_stored_vocabulary_and_idf_gives_the_same_rows():
    fitted = TfidfVectorizer(preprocessor=fold, sublinear_tf=True, dtype=np.float32).fit(DOCS)
    rebuilt = TfidfVectorizer(preprocessor=fold, sublinear_tf=True, dtype=np.float32)
    rebuilt.vocabulary_, rebuilt.idf_ = dict(fitted.vocabulary_), fitted.idf_.astype(np.float64)
    np.testing.assert_allclose(tfidf_rows(rebuilt, QUERIES).toarray(), fitted.transform(QUERIES).toarray(), rtol=1e-6)


def test_one_string_is_refused():
    with pytest.raises(ValueError):
        tfidf_rows(TfidfVectorizer().fit(DOCS), "una sola cadena")
