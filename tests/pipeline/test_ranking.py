"""The learned unit ranker: pairs built from the documents' own units, a model fitted, stored and loaded, measured by precision@1."""

from __future__ import annotations

import json

import numpy as np

from pipeline.generation.extractive import ExtractiveGenerator
from pipeline.generation.ranker_data import Labelled, build_pairs, labels_for, split, synthetic_questions
from pipeline.generation.ranking import FEATURES, Pair, UnitRanker, fit, precision_at_1
from tests.pipeline.generation_helpers import hit
from tests.pipeline.test_readiness import DATES, GUIDE, RULES, URL

HITS = [
    hit("guia", "Guía de graduación", GUIDE, URL, "Examen privado"),
    hit("normativo", "Normativo de evaluación", RULES, URL, "Evaluación", pos=1),
    hit("calendario", "Calendario", DATES, URL, "Calendario", pos=2),
]


def test_synthetic_questions_come_with_the_unit_that_answers_them_and_become_labelled_pairs():
    items = synthetic_questions([h.chunk for h in HITS], per_document=10)
    assert items and all(x.source == "synthetic" and x.question.startswith("¿") and x.unit_text for x in items)
    gen = ExtractiveGenerator()
    pairs = build_pairs(gen, lambda _q: HITS, items)
    assert pairs and all(p.x.shape == (len(p.y), len(FEATURES)) and p.y.sum() >= 1 for p in pairs)


def test_a_reference_answer_labels_the_units_that_hold_most_of_it():
    gen = ExtractiveGenerator()
    q = "¿Qué pasa si me descubren copiando en un examen?"
    weights, _ = gen.coverage(q, HITS)
    from pipeline.generation.asking import ask

    cands = gen.rank(q, HITS, weights, ask(q))
    y = labels_for(Labelled(q, "dev", reference="Te sancionan con la anulación del examen y tu caso pasa a Junta Directiva."), cands)
    assert y is not None and [c.text for c, v in zip(cands, y) if v] == [next(c.text for c in cands if "sancionado" in c.text)]
    assert labels_for(Labelled(q, "dev", reference="Nada que ver: el gimnasio abre a las ocho."), cands) is None  # no unit answers: not counted


def test_a_fitted_ranker_is_stored_as_json_and_scores_the_same_after_loading(tmp_path):
    rng = np.random.default_rng(1)
    pairs = []
    for i in range(240):  # the answering unit has the higher 'object' feature; the hand score is noise
        x = rng.random((8, len(FEATURES))).astype(np.float32)
        y = np.zeros(8, dtype=np.int8)
        best = int(np.argmax(x[:, FEATURES.index("object")]))
        y[best] = 1
        pairs.append(Pair(x, y, "synthetic" if i % 2 else "dev"))
    model = fit(pairs[:200])
    p_learned, n = precision_at_1(model, pairs[200:])
    p_hand, _ = precision_at_1(None, pairs[200:])
    assert n == 40 and p_learned >= 0.8 and p_learned > p_hand + 0.3
    path = model.save(tmp_path / "ranker.json")
    again = UnitRanker.load(path)
    assert again is not None and np.allclose(again.scores(pairs[201].x), model.scores(pairs[201].x), atol=1e-5)
    stale = json.loads(path.read_text())
    stale["features"] = stale["features"][:-1]
    path.write_text(json.dumps(stale))
    assert UnitRanker.load(path) is None  # built for other features: not used
    assert UnitRanker.load(tmp_path / "missing.json") is None


def test_the_split_is_fixed_and_keeps_every_row_once():
    rows = [{"question": f"¿Pregunta número {i}?"} for i in range(200)]
    train, held = split(rows)
    assert len(train) + len(held) == 200 and 60 < len(held) < 140
    assert split(rows) == (train, held)
