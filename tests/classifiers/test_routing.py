"""The campus router: office classifier, persistence, and the routing report."""

from __future__ import annotations

import numpy as np
import pytest

from classifiers.errors import GateError
from classifiers.routing import FEATURES, FORMAT_VERSION, N_FEATURES, Lexicon, Router, RouterNotTrained, Wording, fit_offices, office_features, office_similarities, routing_report, wording_out_of_fold

OFFICES = {
    "Biblioteca": ["préstamo de libros de la biblioteca", "multa por devolver tarde un libro", "sala de lectura de la biblioteca", "renovar el préstamo del libro"],
    "Deportes": ["horario del gimnasio universitario", "inscribir el equipo en el torneo de fútbol", "clases de natación en la piscina", "certificado médico para el gimnasio"],
    "Becas": ["requisitos de la beca de transporte", "fecha de pago de la beca de alimentación", "renovación anual de la beca", "monto de la beca de residencia"],
}


def _router(fake_embedder, offices=tuple(OFFICES)):
    offices = list(offices)
    office_vectors = [fake_embedder.embed_passages(OFFICES[o]) for o in offices]
    lexicon = Lexicon.fit([OFFICES[o] for o in offices])
    questions = [f"¿{t}?" for o in offices for t in OFFICES[o]] + [f"quería saber sobre {t}" for o in offices for t in OFFICES[o]]
    labels = [o for o in offices for _ in OFFICES[o]] * 2
    feats = office_features(fake_embedder.embed_queries(questions), questions, office_vectors, lexicon)
    mean, scale, weights, bias = fit_offices(feats, labels, offices=offices)
    return Router(offices=offices, office_vectors=office_vectors, lexicon=lexicon, gate=None, mean=mean, scale=scale, weights=weights, bias=bias, meta={"note": "test"})


def test_routes_each_question_to_the_office_whose_documents_it_is_about(fake_embedder):
    router = _router(fake_embedder)
    cases = {"¿Cuánto es la multa si devuelvo tarde el libro?": "Biblioteca", "¿Hay clases de natación en la piscina?": "Deportes", "¿Cuándo pagan la beca de alimentación?": "Becas"}
    for question, office in cases.items():
        decision = router.route(question, fake_embedder)
        assert decision.office == office, (question, decision.probabilities)
        assert abs(sum(decision.probabilities.values()) - 1) < 1e-5
        assert decision.margin_over(office) == 0 and decision.margin_over("Deportes" if office != "Deportes" else "Becas") > 0


def test_save_and_load_give_the_same_decisions(fake_embedder, tmp_path):
    router = _router(fake_embedder)
    router.save(tmp_path / "router")
    loaded = Router.load(tmp_path / "router")
    assert loaded.offices == router.offices and loaded.meta["note"] == "test" and loaded.gate is None
    q = ["¿Dónde renuevo el préstamo?", "torneo de vóleibol"]
    np.testing.assert_allclose(loaded.office_probabilities(fake_embedder.embed_queries(q), q), router.office_probabilities(fake_embedder.embed_queries(q), q), rtol=1e-5)
    assert not list((tmp_path / "router").glob("*.pkl"))
    with pytest.raises(RouterNotTrained):
        Router.load(tmp_path / "nothing")


def test_two_offices_and_bad_labels(fake_embedder):
    router = _router(fake_embedder, offices=("Biblioteca", "Deportes"))
    assert router.weights.shape == (N_FEATURES,) and router.bias.shape == (2,)  # one weight per feature, shared by the offices
    assert router.route("multa del libro de la biblioteca", fake_embedder).office == "Biblioteca"
    feats = office_features(fake_embedder.embed_queries(["a", "b"]), ["a", "b"], router.office_vectors, router.lexicon)
    assert feats.shape == (2, 2, N_FEATURES)
    with pytest.raises(GateError):
        fit_offices(feats, ["Biblioteca", "Biblioteca"], offices=["Biblioteca", "Deportes"])
    with pytest.raises(GateError):
        fit_offices(feats, ["Biblioteca", "Tesorería"], offices=["Biblioteca", "Deportes"])


def test_coverage_says_how_much_of_the_wording_a_passage_and_an_office_hold():
    """A rare term found only in one office's documents (a course code) weighs more than words every office uses."""
    lexicon = Lexicon.fit([["El curso Lógica 0010 pide haber aprobado Matemática", "El curso Física 0150 pide Matemática"], ["Para la práctica se pide haber aprobado el curso"]])
    passages, whole = lexicon.coverage(["¿Qué pide Lógica 0010?"])
    assert passages.shape == (1, 3) and whole.shape == (1, 2)
    assert passages[0, 0] > passages[0, 1] and passages[0, 0] > passages[0, 2]
    assert whole[0, 0] > whole[0, 1] and whole[0, 0] == pytest.approx(passages[0, 0])
    feats = office_features(np.ones((1, 2), dtype=np.float32), ["¿Qué pide Lógica 0010?"], [np.ones((2, 2), dtype=np.float32), np.ones((1, 2), dtype=np.float32)], lexicon)
    behind = feats[0, :, FEATURES.index("lexical_behind")]
    assert behind[0] == 0.0 and behind[1] < 0.0  # the best office is not behind; the other is


def test_coverage_behind_is_how_far_an_office_is_behind_the_best_on_the_rare_wording():
    """The office whose documents alone hold the message's rare terms (a course code) is the best covered (0); an office
    that holds only the common words every office uses is behind, whatever its size; the absolute shares are not features."""
    lexicon = Lexicon.fit([
        ["El curso Lógica 0010 tiene 4 créditos"],
        ["Para aprobar el curso se pide la zona mínima", "El curso se aprueba con 61 puntos", "Para el curso se pide asistencia"],
    ])
    text = ["¿Qué pide el curso Lógica 0010 para aprobar?"]
    _, whole = lexicon.coverage(text)
    feats = office_features(np.ones((1, 2), dtype=np.float32), text, [np.ones((1, 2), dtype=np.float32), np.ones((3, 2), dtype=np.float32)], lexicon)
    assert "coverage_behind" in FEATURES and "office_coverage" not in FEATURES and "passage_coverage" not in FEATURES
    behind = feats[0, :, FEATURES.index("coverage_behind")]
    assert behind[0] == 0.0 and behind[1] < 0.0
    np.testing.assert_allclose(behind, whole[0] - whole[0].max(), rtol=1e-6)


def test_a_router_saved_with_the_previous_features_is_retrained_not_loaded(fake_embedder, tmp_path):
    import json

    router = _router(fake_embedder)
    path = router.save(tmp_path / "router")
    meta = json.loads(path.read_text(encoding="utf-8"))
    assert meta["format"] == FORMAT_VERSION == 8 and len(router.weights) == len(FEATURES) == 9
    meta["format"] = 7  # a router stored before its general-knowledge model kept the offices' common words
    path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(RouterNotTrained, match="old format"):
        Router.load(tmp_path / "router")


def test_office_similarities_are_best_and_top_mean():
    q = np.array([[1.0, 0.0]], dtype=np.float32)
    office = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], dtype=np.float32)
    sims = office_similarities(q, [office, np.zeros((0, 2), dtype=np.float32)], k=2)
    np.testing.assert_allclose(sims, [[1.0, 0.8, 0.0, 0.0]], atol=1e-6)


def test_routing_report_counts_out_of_domain_as_a_class():
    truth = ["A", "A", "B", None, None]
    pred = ["A", "B", "B", None, "A"]
    report = routing_report(truth, pred, offices=["A", "B"])
    assert report["accuracy"] == pytest.approx(3 / 5)
    assert report["confusion"]["A"] == {"A": 1, "B": 1, "(fuera de dominio)": 0}
    assert report["confusion"]["(fuera de dominio)"]["A"] == 1
    # per class F1: A: p=1/2 r=1/2 -> .5 ; B: p=1/2 r=1 -> 2/3 ; none: p=1 r=1/2 -> 2/3
    assert report["macro_f1"] == pytest.approx((0.5 + 2 / 3 + 2 / 3) / 3)


def test_wording_learns_which_words_belong_to_which_office_and_survives_save_and_load(fake_embedder, tmp_path):
    offices = list(OFFICES)
    texts = [f"{frame} {t}" for o in offices for t in OFFICES[o] for frame in ("¿", "consulta:", "quería saber")]
    labels = [o for o in offices for t in OFFICES[o] for _ in range(3)]
    words = Wording.fit(texts, labels, offices)
    lp = words.log_probabilities(["¿cuánto cuesta la multa del libro?", "natación en la piscina"])
    assert lp.shape == (2, 3) and np.allclose(np.exp(lp).sum(axis=1), 1, atol=1e-5)
    assert offices[int(lp[0].argmax())] == "Biblioteca" and offices[int(lp[1].argmax())] == "Deportes"
    oof = wording_out_of_fold(texts, labels, offices, groups=[t.split()[-1] for t in texts])
    assert oof.shape == (len(texts), 3) and not np.allclose(oof, words.log_probabilities(texts))  # a question's own words left out
    router = _router(fake_embedder)
    router.wording = words
    router.save(tmp_path / "router")
    loaded = Router.load(tmp_path / "router")
    q = ["multa del libro", "beca de transporte"]
    np.testing.assert_allclose(loaded.wording.log_probabilities(q), words.log_probabilities(q), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(loaded.office_probabilities(fake_embedder.embed_queries(q), q), router.office_probabilities(fake_embedder.embed_queries(q), q), rtol=1e-5)


def test_wording_reads_the_pieces_of_a_word_spelt_otherwise_than_in_the_questions_it_learnt_from(fake_embedder, tmp_path):
    offices = ["Cursos", "Practicas"]
    texts = ["¿cuáles son los prerequisitos de física?", "prerequisitos de química general", "¿qué prerequisitos pide dibujo?", "los prerequisitos del curso de estática",
             "¿cuánto dura la práctica laboral?", "duración de la práctica final", "¿cuántas horas tiene la práctica?", "la práctica inicial dura un semestre"]
    labels = ["Cursos"] * 4 + ["Practicas"] * 4
    q = ["prerrequisito para termodinámica"]  # doubled r, singular: a word neither office's questions use
    chars = Wording.fit(texts, labels, offices)
    words_only = Wording.fit(texts, labels, offices, chars=False)
    assert chars.char_vocabulary and words_only.char_vocabulary is None
    p_chars, p_words = np.exp(chars.log_probabilities(q)[0, 0]), np.exp(words_only.log_probabilities(q)[0, 0])
    assert p_words == pytest.approx(0.5, abs=0.05)  # whole words: nothing known, no office
    assert p_chars > 0.6  # the pieces it shares with "prerequisitos" point to the courses
    router = _router(fake_embedder)
    router.wording = chars
    router.save(tmp_path / "router")
    np.testing.assert_allclose(Router.load(tmp_path / "router").wording.log_probabilities(q), chars.log_probabilities(q), rtol=1e-5, atol=1e-5)


def test_wording_with_two_offices_is_a_softmax_over_both():
    words = Wording.fit(["multa del libro", "préstamo del libro", "torneo de fútbol", "gimnasio abierto"], ["Biblioteca", "Biblioteca", "Deportes", "Deportes"], ["Biblioteca", "Deportes"])
    lp = words.log_probabilities(["libro", "fútbol"])
    assert lp.shape == (2, 2) and lp[0, 0] > lp[0, 1] and lp[1, 1] > lp[1, 0]
