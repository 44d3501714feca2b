"""The learned unit ranker: pairs built from the documents' own units, a model fitted, stored and loaded, measured by precision@1."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.generation.extractive import ExtractiveGenerator
from pipeline.generation.ranker_data import Labelled, build_pairs, labels_for, split, synthetic_questions
from pipeline.generation.ranking import ALL_FEATURES, FEATURES, Pair, UnitRanker, bootstrap_ci, fit, paired_gain_ci, precision_at_1
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
    assert pairs and all(p.x.shape == (len(p.y), len(ALL_FEATURES)) and p.y.sum() >= 1 for p in pairs)


def test_a_reference_answer_labels_the_units_that_hold_most_of_it():
    gen = ExtractiveGenerator()
    q = "¿Qué pasa si me descubren copiando en un examen?"
    weights, _ = gen.coverage(q, HITS)
    from pipeline.generation.asking import ask

    cands = gen.rank(q, HITS, weights, ask(q))
    y = labels_for(Labelled(q, "dev", reference="Te sancionan con la anulación del examen y tu caso pasa a Junta Directiva."), cands)
    assert y is not None and [c.text for c, v in zip(cands, y) if v] == [next(c.text for c in cands if "sancionado" in c.text)]
    assert labels_for(Labelled(q, "dev", reference="Nada que ver: el gimnasio abre a las ocho."), cands) is None  # no unit answers: not counted


def _toy_pairs(n: int, seed: int = 1) -> list[Pair]:
    rng = np.random.default_rng(seed)
    pairs = []
    for i in range(n):  # the answering unit has the higher 'object' feature; the hand score is noise
        x = rng.random((8, len(ALL_FEATURES))).astype(np.float32)
        x[:, [FEATURES.index("u_record"), FEATURES.index("u_row")]] = 0.0  # prose units
        y = np.zeros(8, dtype=np.int8)
        best = int(np.argmax(x[:, FEATURES.index("object")]))
        y[best] = 1
        pairs.append(Pair(x, y, "synthetic" if i % 2 else "dev"))
    return pairs


@pytest.mark.parametrize("kind", ["linear", "trees"])
def test_a_fitted_ranker_is_stored_as_json_and_scores_the_same_after_loading(tmp_path, kind):
    pairs = _toy_pairs(240)
    model = fit(pairs[:200], kind=kind)
    p_learned, n = precision_at_1(model, pairs[200:])
    p_hand, _ = precision_at_1(None, pairs[200:])
    assert n == 40 and p_learned >= 0.7 and p_learned > p_hand + 0.3
    path = model.save(tmp_path / "ranker.json")
    again = UnitRanker.load(path)
    assert again is not None and again.kind == kind and np.allclose(again.scores(pairs[201].x), model.scores(pairs[201].x), atol=1e-5)
    stale = json.loads(path.read_text())
    stale["features"] = stale["features"][:-1]
    path.write_text(json.dumps(stale))
    assert UnitRanker.load(path) is None  # built for other features: not used
    assert UnitRanker.load(tmp_path / "missing.json") is None


def test_a_prose_ranker_leaves_a_question_whose_hand_best_is_a_course_record_to_the_hand_score():
    pairs = _toy_pairs(200)
    prose, everywhere = fit(pairs, scope="prose"), fit(pairs, scope="all")
    x = pairs[0].x.copy()
    x[:, FEATURES.index("hand")] = np.arange(8)
    assert prose.applies_to(x) and everywhere.applies_to(x)
    x[7, FEATURES.index("u_record")] = 1.0  # the hand score's best is a course-plan record
    assert not prose.applies_to(x) and everywhere.applies_to(x)
    p = Pair(x, np.eye(8, dtype=np.int8)[7], "dev")
    assert precision_at_1(prose, [p]) == (1.0, 1) == precision_at_1(None, [p])
    assert prose.applies("item") and not prose.applies("record") and not prose.applies("row")


def test_exported_trees_score_as_sklearn_does():
    from sklearn.ensemble import HistGradientBoostingClassifier

    pairs = _toy_pairs(120, seed=3)
    x = np.concatenate([p.x for p in pairs])
    x[::7, 5] = np.nan  # missing values follow the side sklearn learned
    y = np.concatenate([p.y for p in pairs])
    ref = HistGradientBoostingClassifier(max_iter=30, random_state=0).fit(x, y)
    from pipeline.generation.ranking import _export

    model = UnitRanker(np.zeros(x.shape[1]), np.ones(x.shape[1]), np.zeros(x.shape[1]), float(np.ravel(ref._baseline_prediction)[0]), {}, "trees", trees=[_export(p) for it in ref._predictors for p in it])
    assert np.allclose(model.scores(x), ref.predict_proba(x)[:, 1], atol=1e-6)


def test_the_bootstrap_interval_holds_the_share_and_the_paired_gain_its_sign():
    lo, hi = bootstrap_ci([1] * 30 + [0] * 70)
    assert lo < 0.3 < hi and hi - lo < 0.25
    g, glo, ghi = paired_gain_ci([1] * 40 + [0] * 60, [1] * 20 + [0] * 80)
    assert g == pytest.approx(0.2) and 0 < glo < g < ghi
    assert bootstrap_ci([]) == (0.0, 0.0)


def test_the_split_is_fixed_and_keeps_every_row_once():
    rows = [{"question": f"¿Pregunta número {i}?"} for i in range(200)]
    train, held = split(rows)
    assert len(train) + len(held) == 200 and 60 < len(held) < 140
    assert split(rows) == (train, held)


def test_reference_labels_follow_its_key_facts_not_the_words_the_neighbours_share():
    from types import SimpleNamespace

    from pipeline.generation.ranker_data import key_facts, fact_recall

    def cand(text):
        return SimpleNamespace(text=text, unit=SimpleNamespace(kind="sentence", context=""))

    neighbour = cand("La evaluación final del curso se realiza en la fecha fijada por la escuela para la evaluación final del curso.")
    answer = cand("La nota de promoción del curso es de 61 puntos.")
    other = cand("La evaluación del curso la fija la escuela.")
    reference = "La evaluación final del curso se aprueba con 61 puntos de nota de promoción."
    facts = key_facts(reference, [c.text for c in (neighbour, answer, other)])
    assert fact_recall(facts, answer.text) > fact_recall(facts, neighbour.text)  # the figure and the rare words outweigh the shared topic
    y = labels_for(Labelled("¿Con cuánto se aprueba el curso?", "dev", reference=reference), [neighbour, answer, other])
    assert y is not None and list(y) == [0, 1, 0]


def _fake(text: str, score: float, *, context: str = "", kind: str = "sentence", sim: float | None = 0.8, offset: int = 0):
    from types import SimpleNamespace

    unit = SimpleNamespace(text=text, context=context, kind=kind, offset=offset)
    return SimpleNamespace(unit=unit, chunk=SimpleNamespace(section=None), text=text, score=score, hand=score, sim=sim, hit_no=1)


def test_the_rerank_matches_whole_words_so_a_neighbour_sharing_a_prefix_is_not_the_object():
    from pipeline.generation.ranking import rerank_terms

    q = "¿Qué es la solvencia general?"
    right = _fake("La solvencia general es la matrícula consolidada vigente del ciclo.", 1.0)
    prefix = _fake("Para la solvencia de biblioteca hay que generar la boleta de pago.", 1.0)  # 'generar' shares 'gene' with 'general'
    other = _fake("El examen privado se programa con Control Académico.", 1.0)
    t = rerank_terms(q, [right, prefix, other])
    assert t[0, 0] == pytest.approx(1.0) and t[1, 0] < 0.6 and t[2, 0] == 0.0  # 'generar' does not count as 'general'
    assert t[0, 2] == 1.0 and t[1, 2] == 0.0  # 'solvencia general' is said together only in the first


def test_the_rerank_reads_an_object_named_only_in_the_heading_and_reorders_prose():
    from pipeline.generation.ranking import rerank

    q = "¿En qué formato debo subir la fotografía?"
    elsewhere = _fake("Los documentos deben subirse en formato PDF al usuario de graduación.", 1.15)
    photo = _fake("Nombre del archivo en formato JPG: Foto_#carné.", 1.1, context="Fotografía reciente", offset=10)
    cands = [elsewhere, photo]
    rerank(q, cands)
    assert cands[0] is photo and photo.hand == photo.score  # both say 'formato'; only the photo's heading names the photograph
    assert elsewhere.score == 1.15 and photo.score == pytest.approx(1.15 * 1.001)  # only the lead changes: the others keep their hand score


def test_the_rerank_leaves_records_and_scores_without_similarity_alone():
    from pipeline.generation.ranking import rerank

    q = "¿Cuántos créditos tiene Física 1?"
    record = _fake("Física 1, 5 créditos, prerrequisito Matemática Básica 2.", 1.3, kind="record")
    prose = _fake("Los créditos de Física 1 se cuentan en el área básica.", 1.2)
    cands = [record, prose]
    rerank(q, cands)
    assert [c.score for c in cands] == [1.3, 1.2]  # a course record is chosen by its name and code
    plain = [_fake("Los documentos se suben en formato PDF.", 1.0, sim=None), _fake("Foto en JPG.", 0.9, context="Fotografía", sim=None)]
    rerank("¿En qué formato subo la fotografía?", plain)
    assert [c.score for c in plain] == [1.0, 0.9]  # an embedder without meaning: the shared-words score is left as it is


def test_the_rerank_read_on_feature_rows_adds_its_terms_to_prose_and_leaves_records():
    from pipeline.generation.ranking import RERANK, WORDS, with_rerank

    x = np.zeros((3, len(ALL_FEATURES)), dtype=np.float32)
    x[:, FEATURES.index("hand")] = [1.2, 1.1, 0.5]
    x[1, ALL_FEATURES.index("w_object")] = 1.0  # the second unit holds the question's object word for word
    assert len(WORDS) == 3 and int(np.argmax(with_rerank(x))) == 1
    assert with_rerank(x)[1] == pytest.approx(1.1 + RERANK["object_own"])
    assert int(np.argmax(with_rerank(x, dict.fromkeys(RERANK, 0.0)))) == 0  # no weight: the hand score's order
    x[0, FEATURES.index("u_record")] = 1.0  # the hand score's best is a course record: left to the hand score
    assert int(np.argmax(with_rerank(x))) == 0


def test_the_rerank_matches_a_verb_with_its_nouns_of_the_same_family():
    from pipeline.generation.ranking import rerank

    q = "¿Hasta cuándo hay plazo para renovar la beca?"
    new = _fake("Nuevas solicitudes: del 1 al 28 de febrero de 2027.", 1.16, context="Plazos de la convocatoria")
    renewal = _fake("Renovaciones: del 1 al 31 de marzo de 2027.", 1.15, context="Plazos de la convocatoria", offset=10)
    cands = [new, renewal]
    rerank(q, cands)
    assert cands[0] is renewal  # 'renovarla' is the act the 'Renovaciones' line dates


def test_derivation_families_join_a_verb_and_its_nouns_and_keep_look_alikes_apart():
    from pipeline.generation.lexical import family

    for words in (("renovar", "renovarla", "renovacion", "renovaciones", "renuevo"), ("inscribir", "inscripcion", "inscripciones", "anotarme"),
                  ("suspender", "suspension"), ("repetir", "repeticion"), ("examen", "examenes"), ("cerrar", "cierre"), ("graduarse", "graduacion")):
        assert len({family(w) for w in words}) == 1, words
    assert family("general") != family("generar") and family("formato") != family("formulario")


def test_a_common_verb_and_its_plain_noun_are_not_taken_for_the_object():
    from pipeline.generation.ranking import rerank_terms

    q = "¿Cuántos CLAR se cursan?"
    courses = _fake("Cursos del área social humanística: 8 CLAR de 10 disponibles.", 1.0)
    per_term = _fake("Recuerda 30 créditos CLAR por semestre.", 1.0)
    t = rerank_terms(q, [courses, per_term])
    assert t[0, 0] == pytest.approx(t[1, 0])  # 'cursan' and 'Cursos' share a family, but neither is a derivation of the other


def test_the_words_that_only_say_the_kind_of_answer_are_not_the_object_for_keys_nor_for_the_rerank():
    from pipeline.generation.asking import object_keys
    from pipeline.generation.ranking import rerank_terms

    q = "¿Cuál es el plazo de la renovación?"
    assert object_keys(q) == ("renova",)
    deadline = _fake("Los plazos se publican en el calendario.", 1.0)
    renewal = _fake("Las renovaciones se piden en marzo.", 1.0)
    t = rerank_terms(q, [deadline, renewal])
    assert t[0, 0] == 0.0 and t[1, 0] == pytest.approx(1.0)  # 'plazos' says the kind of answer, 'renovaciones' the object
