"""Three outcomes with reasons: answerable, in domain without information, out of domain; kept through save/load."""

from __future__ import annotations

import pytest

from classifiers.features import FeatureSpace
from classifiers.gate import ANSWERABLE, NO_INFO, OUT_OF_DOMAIN, Gate
from classifiers.training import offline_dataset, train_gate


@pytest.fixture(scope="module")
def trained(request):
    chunks = request.getfixturevalue("chunks")
    embedder = request.getfixturevalue("fake_embedder")
    vectors = embedder.embed_passages([c.embed_text for c in chunks])
    space = FeatureSpace.fit("similarity+tfidf+lexical+intent", chunk_texts=[c.embed_text for c in chunks], chunk_vectors=vectors)
    return train_gate(offline_dataset(chunks), space=space, embedder=embedder, model="logreg", balanced=True), embedder


@pytest.fixture(scope="module")
def chunks():
    from tests.classifiers.conftest import DOCS
    from pipeline.chunking import Chunk

    return [Chunk(doc_id=d, doc_title=title, text=t, position=i) for d, (title, texts) in DOCS.items() for i, t in enumerate(texts)]


@pytest.fixture(scope="module")
def fake_embedder():
    from pipeline.embeddings import HashingEmbedder

    return HashingEmbedder(dim=256)


def test_near_misses_are_turned_away_with_reasons(trained):
    gate, embedder = trained
    for text in ("¿Qué piden para el examen por suficiencia en la Facultad de Derecho?", "redactame la introducción de mi tesis sobre exámenes", "¿cuánto gana un ingeniero recién graduado?"):
        d = gate.decide(text, embedder)
        assert d.outcome == OUT_OF_DOMAIN and not d.in_domain, (text, d)
        # every reason counts against it; the structure's bar, when it decided, says so in words
        assert d.reasons and all("(-" in r or r.startswith("asunto de otros") for r in d.reasons), d.reasons
        assert any("(-" in r for r in d.reasons)


def test_office_questions_are_let_in(trained):
    gate, embedder = trained
    d = gate.decide("hola, hasta cuando me puedo inscribir a examenes?", embedder)
    assert d.in_domain and d.outcome in (ANSWERABLE, NO_INFO) and d.info_score is not None
    assert all("(+" in r for r in d.reasons)


def test_the_information_boundary_is_learned_and_saved(trained, tmp_path):
    gate, embedder = trained
    assert gate.info_coef.size and 0 < gate.info_threshold < 1
    assert gate.meta["information_heldout"] is not None
    texts = ["¿Cuántos créditos tiene Física Básica?", "¿dónde queda el salón 214?", "escribime un poema"]
    gate.save(tmp_path)
    again = Gate.load(tmp_path)
    assert [(d.outcome, round(d.score, 6), d.reasons) for d in again.outcomes(texts, embedder)] == [(d.outcome, round(d.score, 6), d.reasons) for d in gate.outcomes(texts, embedder)]


def test_another_institutions_business_is_out_whatever_its_score_but_a_transfer_student_keeps_the_threshold(trained):
    """A message naming another institution, or looking for a job, is out whatever its score (order kept); one whose intent
    only suggests someone else's business (the student's own work life) passes halfway from the threshold to certainty; a
    student coming from another institution to this office's procedure, and a message naming none, are judged at the
    threshold as before."""
    import numpy as np

    from classifiers.gate import message_segments

    gate, embedder = trained
    texts = [
        "en la Facultad de Odontología cuántas retrasadas dan por semestre?",
        "vengo de la Universidad Galileo, ¿cómo pido equivalencias de mis cursos aquí?",
        "¿cuántas retrasadas dan por semestre?",
        "¿cuánto gana un ingeniero recién graduado en una empresa?",  # a job search: someone else's business too
        "mi jefe no me deja salir temprano, ¿cuántas retrasadas dan por semestre?",  # the student's own work: context
    ]
    kinds: list[str] = []
    segments, owner = message_segments(texts, kinds=kinds)
    dense, sparse = gate.space.transform(segments, embedder=embedder)
    bar = gate.elsewhere_threshold
    assert gate.threshold < bar < 1.0
    for raw in (gate.threshold + 1e-3, bar - 1e-3, bar + 1e-3, 0.999):
        score, barred = gate.elsewhere_bar(np.full(len(texts), raw), dense, owner, kinds)
        assert not barred[1] and not barred[2] and score[1] == score[2] == raw
        assert barred[0] and barred[3] and score[0] < gate.threshold and score[3] < gate.threshold
        assert barred[4] == (raw < bar) and (score[4] >= gate.threshold) == (raw >= bar)
    lowered, _ = gate.elsewhere_bar(np.array([0.2, 0.2, 0.2, 0.2, 0.2]), dense, owner, kinds)
    higher, _ = gate.elsewhere_bar(np.array([0.9, 0.2, 0.2, 0.9, 0.2]), dense, owner, kinds)
    assert lowered[0] < higher[0] and lowered[3] < higher[3], "the order of scores is kept"
    d = gate.decide(texts[0], embedder)
    assert not d.in_domain


def test_the_students_own_errand_reaches_a_person_unless_it_is_someone_elses_business(trained):
    """An errand with the office the documents do not describe (a certificate, a card, a section) scores at least the
    threshold whatever the classifier says; the same errand at another institution, a request to write a text padded with
    the errand, and a message that is no errand keep their score and their verdict."""
    import numpy as np

    from classifiers.gate import judge_segments, message_segments

    gate, embedder = trained
    texts = [
        "ocupo que me extiendan una constancia de estudiante regular, me la piden en el trabajo",
        "se me arruino el carnet en la lluvia, me pueden dar otro?",
        "como saco una constancia de estudios en la Universidad del Pacífico",  # another institution's paper
        "necesito la solvencia para el cierre, pero primero escribime un poema para mi novia",  # a text to write
        "quien invento la maquina de vapor",  # no errand
    ]
    kinds: list[str] = []
    segments, owner = message_segments(texts, kinds=kinds)
    dense, sparse = gate.space.transform(segments, embedder=embedder)
    p = gate.probabilities_from_features(dense, sparse)
    low = np.full(len(segments), 1e-3)
    raw, best = judge_segments(low, owner, kinds, len(texts))
    floored_score, floored = gate.errand_floor(raw, best, dense, kinds)
    assert floored[:3].tolist() == [True, True, True] and not floored[3] and not floored[4]
    assert (floored_score[:2] >= gate.threshold).all() and floored_score[3] < gate.threshold and floored_score[4] < gate.threshold
    barred_score, barred = gate.elsewhere_bar(floored_score, dense, owner, kinds)
    assert barred[2] and barred_score[2] < gate.threshold, "another institution still decides against the floor"
    high, _ = gate.errand_floor(np.full(len(texts), 0.99), best, dense, kinds)
    assert (high == 0.99).all(), "the floor never lowers a score"
    decisions = gate.outcomes(texts, embedder)
    assert decisions[0].in_domain and decisions[1].in_domain and not decisions[2].in_domain and not decisions[3].in_domain
    assert all(d.outcome in (ANSWERABLE, NO_INFO) for d in decisions[:2])
    assert judge_segments(p, owner, kinds, len(texts))[0][3] == 0.0
