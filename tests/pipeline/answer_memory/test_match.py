"""Question matching for the approved-answer memory: lexical agreement, conflicts, the combined decision."""

from __future__ import annotations

import numpy as np

from pipeline.answer_memory.match import MatchThresholds, asks, best_match, conflicts, lexical_agreement


def test_what_a_question_asks_for():
    assert asks("¿Hasta cuándo me inscribo?") == {"when"}
    assert asks("¿La maestría tiene costo?") == {"cost"}
    assert asks("¿Cuánto dura la maestría?") == {"duration"}


def test_conflicts_on_kind_of_fact_and_specifics():
    assert conflicts("¿La maestría tiene costo?", "¿Cuánto dura la maestría?")
    assert conflicts("¿Hasta cuándo me inscribo a los exámenes de febrero?", "¿Hasta cuándo me inscribo a los exámenes de julio?")
    assert not conflicts("¿Hasta cuándo me inscribo a los exámenes de febrero?", "¿cuál es el plazo para anotarse a los exámenes de febrero?")


def test_lexical_agreement_folds_accents_and_inflection():
    assert lexical_agreement("¿Cómo recupero la contraseña del SIGE?", "recuperar contrasena sige") == 1.0
    assert lexical_agreement("¿Hay wifi?", "¿Cuánto cuesta la reválida?") == 0.0


def test_best_match_needs_similarity_words_and_no_conflict():
    th = MatchThresholds(similarity=0.9, lexical=0.4, strong_similarity=0.99)
    cands = ["¿Hasta cuándo me inscribo a los exámenes de febrero?", "¿Cómo recupero la contraseña del SIGE?"]
    vecs = np.eye(2, dtype=np.float32)
    close = np.array([0.95, 0.1], dtype=np.float32)
    m = best_match("¿hasta cuándo puedo inscribirme a los exámenes de febrero?", close, cands, vecs, th)
    assert m is not None and m.index == 0 and m.similarity > 0.9
    assert best_match("¿hasta cuándo puedo inscribirme a los exámenes de julio?", close, cands, vecs, th) is None  # conflict
    assert best_match("¿qué becas hay?", close, cands, vecs, th) is None  # no words in common
    assert best_match("¿hasta cuándo puedo inscribirme a los exámenes de febrero?", np.array([0.5, 0.1], dtype=np.float32), cands, vecs, th) is None
    assert best_match("x", close, [], np.zeros((0, 2), dtype=np.float32), th) is None
