"""General knowledge: the model that tells a question about the world from an office's question, and the campus gate's
higher bar for it."""

from __future__ import annotations

import numpy as np

from classifiers.general_knowledge import UNKNOWN, GeneralKnowledge, general_questions, masked
from classifiers.routing import Lexicon, Router, general_knowledge_bar
from pipeline.text import fold

OFFICE_TEXTS = [
    "Préstamo de libros de la biblioteca: el estudiante puede llevar tres libros por quince días y renovar el préstamo una vez.",
    "La multa por devolver tarde un libro es de cinco quetzales por día; se paga en la ventanilla de la biblioteca.",
    "Beca de alimentación: requisitos, fecha de pago y renovación anual; la solicitud se entrega en la oficina de becas.",
    "El gimnasio universitario abre de lunes a viernes; para inscribirse se necesita el carné y un certificado médico.",
]
OFFICE_QUESTIONS = [
    "¿Cuántos libros puedo llevar en préstamo?", "cuanto es la multa si devuelvo tarde un libro", "¿Dónde pago la multa de la biblioteca?",
    "¿Cuáles son los requisitos de la beca de alimentación?", "hola, cuando es la fecha de pago de la beca?", "¿Puedo renovar el préstamo?",
    "¿Qué necesito para inscribirme al gimnasio?", "el gimnasio abre los sábados?", "¿Dónde entrego la solicitud de beca?",
    "¿Cuántos días dura el préstamo de un libro?", "necesito certificado médico para el gimnasio?", "¿La renovación de la beca es anual?",
] * 10


def _known() -> list[str]:
    lexicon = Lexicon.fit([OFFICE_TEXTS])
    return [t for t in lexicon.vocabulary if " " not in t]


def test_words_the_documents_never_use_are_masked_and_numbers_kept_by_length():
    known = frozenset(["en", "que", "año", "el", "de", "libro", "la", "multa"])
    assert masked(["¿En qué año cayó el muro de Berlín?"], known) == [f"¿ en que año {UNKNOWN} el {UNKNOWN} de {UNKNOWN} ?"]
    assert masked(["la multa de 1976 o de 25 pesos"], known) == [f"la multa de num4 o de num2 {UNKNOWN}"]  # one letter: kept (the lexicon has none)
    assert fold("Año") == "año"  # ñ is kept, as in the lexicon the known words come from


def test_a_question_about_someone_it_never_heard_of_is_general_knowledge_and_an_office_question_is_not(tmp_path):
    general = [e.text for e in general_questions(n=600)]
    model = GeneralKnowledge.fit(OFFICE_QUESTIONS, general, _known())
    unseen = ["¿En qué año nació Zacarías Pocotón?", "¿Cuál es la capital de Transilvania del Norte?", "quien fundo la ciudad de Xelajú Antigua"]
    office = ["¿Hasta cuándo puedo devolver el libro sin multa?", "me pueden decir los requisitos de la beca"]
    p = model.probabilities(unseen + office)
    assert (p[:3] >= 0.5).all(), p
    assert (p[3:] < 0.5).all(), p
    assert model.probabilities([]).shape == (0,)


def test_the_bar_sends_out_a_general_question_just_above_the_threshold_and_keeps_the_rest():
    threshold = 0.4  # the bar is 0.7
    score = np.array([0.45, 0.45, 0.8, 0.3, 0.69])
    general = np.array([0.9, 0.1, 0.9, 0.9, 0.6])
    out, barred = general_knowledge_bar(score, general, threshold)
    assert out[0] < threshold and barred[0]  # general knowledge, only the threshold cleared: out
    assert out[1] == 0.45 and not barred[1]  # not general knowledge: the threshold decides
    assert out[2] == 0.8 and not barred[2]  # general knowledge with strong in-domain evidence: in
    assert out[3] < 0.3 and not barred[3]  # out anyway: the bar did not decide
    assert out[4] < threshold and barred[4]
    assert out[3] < out[0] < out[4]  # order kept


def test_the_router_stores_its_general_knowledge_model(fake_embedder, tmp_path):
    lexicon = Lexicon.fit([OFFICE_TEXTS[:2], OFFICE_TEXTS[2:]])
    general = GeneralKnowledge.fit(OFFICE_QUESTIONS, [e.text for e in general_questions(n=300)], [t for t in lexicon.vocabulary if " " not in t])
    router = Router(
        offices=["Biblioteca", "Bienestar"], office_vectors=[fake_embedder.embed_passages(OFFICE_TEXTS[:2]), fake_embedder.embed_passages(OFFICE_TEXTS[2:])],
        lexicon=lexicon, gate=None, mean=np.zeros(9, dtype=np.float32), scale=np.ones(9, dtype=np.float32), weights=np.ones(9, dtype=np.float32),
        bias=np.zeros(2, dtype=np.float32), general=general,
    )
    router.save(tmp_path / "router")
    loaded = Router.load(tmp_path / "router")
    texts = ["¿Quién pintó la Capilla Sixtina?", "¿Cuánto es la multa del libro?"]
    np.testing.assert_allclose(loaded.general.probabilities(texts), general.probabilities(texts), rtol=1e-5)
    assert loaded.general.known == general.known
    decision = loaded.route(texts[0], fake_embedder)
    assert decision.office is not None and not decision.barred  # without a campus gate there is no bar: every message is someone's


def test_a_student_speaking_of_their_own_case_is_not_asking_about_the_world():
    model = GeneralKnowledge.fit(OFFICE_QUESTIONS, [e.text for e in general_questions(n=600)], _known())
    about_the_world, own_case = "¿Dónde queda la municipalidad de San Zacarías del Monte?", "¿puedo pedir la beca en la municipalidad de mi pueblo?"
    p = model.probabilities([about_the_world, own_case])
    assert p[0] >= 0.5 and p[1] == 0.0, p


def test_the_halfway_bar_is_one_rule_for_the_campus_gate_and_an_office_gate():
    from classifiers.gate import halfway_bar

    threshold = 0.6  # the bar is 0.8
    score = np.array([0.5, 0.65, 0.79, 0.8, 0.95])
    held, decided = halfway_bar(score, threshold)
    np.testing.assert_allclose(held, [0.5 * 0.6 / 0.8, 0.65 * 0.6 / 0.8, 0.79 * 0.6 / 0.8, 0.8, 0.95])
    assert decided.tolist() == [False, True, True, False, False]  # only where the threshold alone would have let it in
    assert (held[:3] < threshold).all() and (np.diff(held) > 0).all()  # under the threshold, order kept
    general = np.array([0.9, 0.9, 0.1, 0.9, 0.9])
    out, barred = general_knowledge_bar(score, general, threshold)
    np.testing.assert_allclose(out, np.where(general >= 0.5, held, score))  # the router's bar is the same rule, where general
    assert barred.tolist() == [False, True, False, False, False]


def test_document_words_the_office_questions_seldom_use_read_as_a_second_placeholder():
    from classifiers.general_knowledge import RARE, common_words

    questions = ["¿Cuántos libros puedo llevar?", "¿Dónde pago la multa?", "la multa de un libro", "¿Qué es la multa?"]
    common = frozenset(common_words(questions, share=0.5))
    assert common == {"la", "multa"}  # in at least two of the four questions
    known = frozenset(["que", "es", "la", "multa", "imprenta", "de", "libro"])
    assert masked(["¿Qué es la imprenta de Gutenberg?"], known, common) == [f"¿ {RARE} {RARE} la {RARE} {RARE} {UNKNOWN} ?"]
    assert masked(["¿Qué es la imprenta?"], known) == ["¿ que es la imprenta ?"]  # without the offices' common words: as before


def test_a_question_about_a_subject_the_documents_only_mention_is_general_knowledge(tmp_path):
    texts = OFFICE_TEXTS + ["La sala de historia guarda libros sobre la revolución industrial, la imprenta, la electricidad y el derecho romano."]
    known = [t for t in Lexicon.fit([texts]).vocabulary if " " not in t]
    model = GeneralKnowledge.fit(OFFICE_QUESTIONS, [e.text for e in general_questions(n=900)], known)
    world = ["¿En qué consiste el derecho romano?", "¿Quién desarrolló la electricidad?"]  # words the documents hold, no office asks about
    office = ["¿Cuántos libros puedo llevar en préstamo?", "¿Dónde pago la multa de la biblioteca?"]
    p = model.probabilities(world + office)
    assert (p[:2] >= 0.5).all() and (p[2:] < 0.5).all(), p
    without = GeneralKnowledge.fit(OFFICE_QUESTIONS, [e.text for e in general_questions(n=900)], known, rare=False)
    assert model.common is not None and without.common is None
    assert (p[:2] > without.probabilities(world)).all()  # the subject's words read as rare in office questions: more clearly the world's
    loaded = GeneralKnowledge.from_stored(model.vocabularies(), model.arrays())
    np.testing.assert_allclose(loaded.probabilities(world + office), p, rtol=1e-5)


def test_a_message_with_no_word_of_the_offices_business_is_held_to_the_bar_unless_the_student_speaks_of_their_case():
    from classifiers.general_knowledge import UNANCHORED, anchor_words

    general = [e.text for e in general_questions(n=600)]
    anchors = set(anchor_words(OFFICE_QUESTIONS, general))
    assert {"multa", "beca", "gimnasio", "libro"} <= anchors  # the offices' business
    assert not anchors & {"que", "cual", "donde", "es", "la", "de"}  # frame words questions about the world use as much
    model = GeneralKnowledge.fit(OFFICE_QUESTIONS, general, _known())
    assert set(model.anchors) == anchors
    free = GeneralKnowledge.fit(OFFICE_QUESTIONS, general, _known(), anchored=False)
    assert free.anchors is None
    from dataclasses import replace

    held = replace(free, anchors=["prestamo", "beca"])  # the same model, with two anchors
    texts = ["¿Cuántos días dura?", "¿Cuántos días dura el préstamo?", "¿puedo llevar mi perro?"]
    p, before = held.probabilities(texts), free.probabilities(texts)
    assert before[0] < UNANCHORED and p[0] == UNANCHORED  # no anchor: at least even odds that it asks about the world
    assert p[1] == before[1] < 0.5  # anchored ("préstamo"): the model's own probability
    assert p[2] == before[2] == 0.0  # the student's own case ("puedo", "mi"): not the world's, anchored or not
    loaded = GeneralKnowledge.from_stored(held.vocabularies(), held.arrays())
    np.testing.assert_allclose(loaded.probabilities(texts), p, rtol=1e-5)
