"""Learning the gate from staff decisions: corrections reach similar messages, a worse retrain is never adopted, a
careless reviewer is set aside."""

from __future__ import annotations

import pytest

from classifiers.features import FeatureSpace
from classifiers.gate import Gate
import numpy as np

from classifiers.retraining import LearningOptions, StaffLabel, _staff_model_guard, learn, learn_from_staff, reviewer_disagreement
from classifiers.training import offline_dataset, train_gate

GOOD_IN = [
    "hola, hasta cuando me inscribo a examenes por el portal?", "porfa, como pido la revision de mi examen?", "cuantos creditos tiene la carrera en total",
    "la beca de transporte que requisitos pide?", "puedo rendir examen por suficiencia de fisica basica?", "me urge saber el plazo de revision de examenes",
    "buenas, la beca de alojamiento como la solicito", "cuantos creditos CLAR por semestre son", "inscripcion a examenes hasta que dia es",
    "que constancia piden para la beca de alojamiento",
]
GOOD_OUT = [
    "en la universidad rafael landivar como me inscribo a examenes?", "la universidad del valle da beca de transporte?", "en la universidad galileo cuantos creditos tiene la carrera",
    "resolveme este ejercicio de fisica basica: un bloque de 3 kg cae", "ayudame con la tarea de matematica basica, derivada de x^2", "escribime un ensayo sobre las becas",
    "redactame la carta para la beca de alojamiento de mi prima en otro pais", "hazme en python un programa de creditos", "cuanto gana un ingeniero en sistemas",
    "que opinas de la carrera de sistemas",
]

PLAIN_OUT = [  # out of domain with the office's words and no request, institution or coursework cue
    "antes de inscribirme a examenes: cual es la capital de australia", "la beca de transporte sirve para el bus de otra ciudad de mexico",
    "cuantos creditos de tarjeta me da el banco por ser estudiante", "que clinica dental queda cerca de la facultad",
]


@pytest.fixture
def staff_model_fits(monkeypatch) -> list[np.ndarray]:
    """The scores every StaffModel.fit is called with, in order (the real fit still runs)."""
    import classifiers.retraining as retraining

    fitted: list[np.ndarray] = []
    real = retraining.StaffModel.fit

    def spy(vecs, scores, labels, **kw):
        fitted.append(np.asarray(scores, dtype=float))
        return real(vecs, scores, labels, **kw)

    monkeypatch.setattr(retraining.StaffModel, "fit", spy)
    return fitted


@pytest.fixture
def setup(chunks, chunk_vectors, fake_embedder):
    space = FeatureSpace.fit("similarity+tfidf+lexical+intent", chunk_texts=[c.embed_text for c in chunks], chunk_vectors=chunk_vectors)
    synthetic = offline_dataset(chunks)
    gate = train_gate(synthetic, space=space, embedder=fake_embedder)
    return space, synthetic, gate


def _staff(gate, embedder, texts_labels, reviewer="ana"):
    out = []
    for i, (t, label) in enumerate(texts_labels):
        d = gate.decide(t, embedder)
        out.append(StaffLabel(text=t, label=label, message_id=i + 1, reviewer=reviewer, date="2026-11-12", correction=d.in_domain != bool(label)))
    return out


@pytest.mark.parametrize("staff_model", [False, True])
def test_a_retrain_made_worse_on_purpose_is_not_adopted(setup, fake_embedder, staff_model):
    space, synthetic, gate = setup
    texts = [(t, 0) for t in GOOD_IN] + [(t, 1) for t in GOOD_OUT]  # every label wrong
    if staff_model:  # enough decisions that every fold fits a staff model (and the final gate would carry one)
        texts += [(f"{t} gracias", y) for t, y in texts] + [(f"porfa {t}", y) for t, y in texts]
    flipped = _staff(gate, fake_embedder, texts)
    result = learn(synthetic, flipped, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=LearningOptions(radius=0.8, staff_model=staff_model, min_decisions=0), current=gate)
    assert not result.verdict.adopted and "worse on" in result.verdict.reason, result.verdict.reason
    assert any(c.errors_after > c.errors_before for c in result.verdict.sets.values()) and result.verdict.sets["staff_decisions"].n == len(flipped)
    # the memory alone, which its own evidence cannot judge (flipped close repeats get each other "right"), is not offered
    assert not result.memory_only["adopted"] and result.memory_only["staff_disagreeing_with_gate"] > len(flipped) / 2, result.memory_only
    if staff_model:
        assert result.classifier_candidate.memory.model is not None  # the candidate refused carried a staff model
    few = learn(synthetic, flipped, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=LearningOptions(radius=0.8, staff_model=staff_model), current=gate)
    assert not few.verdict.adopted, few.verdict.reason  # below the minimum, too: only the memory is offered, and it is refused


def test_a_retrain_that_shows_no_gain_on_staff_decisions_is_not_adopted(setup, fake_embedder):
    """The kind of retrain that passed 'no worse' by count and then made more mistakes on unseen mail: staff decisions
    the gate already has right (nothing to fix), so out of fold the candidate at best trades mistakes; with the gate's
    defaults it is refused, and the evidence says why."""
    space, synthetic, gate = setup
    texts = [(t, 1) for t in GOOD_IN] + [(t, 0) for t in GOOD_OUT]
    right = [(t, y) for t, y in texts if gate.decide(t, fake_embedder).in_domain == bool(y)]
    assert len(right) >= 8
    staff = _staff(gate, fake_embedder, right)
    assert not any(s.correction for s in staff)
    result = learn(synthetic, staff, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=LearningOptions(radius=0.8, min_decisions=0))
    c = result.verdict.sets["staff_decisions"]
    assert not result.verdict.adopted and len(c.fixed) <= len(c.broken), result.verdict.reason
    assert not result.memory_only["adopted"] and "no gain" in result.memory_only["reason"]  # the memory alone must show a gain too
    lenient = LearningOptions(radius=0.8, min_decisions=0, require_gain=(), protected_surely=(), tolerance={"staff_decisions": 1.0, "synthetic_heldout": 1.0}, margin={},
                              max_protected_rise={"staff_decisions": 1.0, "synthetic_heldout": 1.0})
    loose = learn(synthetic, staff, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=lenient)
    assert loose.verdict.adopted, loose.verdict.reason  # the same evidence under a rule without the gain check adopts it


def test_the_staff_model_is_kept_only_when_every_fold_judged_one(setup, fake_embedder):
    space, synthetic, gate = setup
    staff = _staff(gate, fake_embedder, [(t, 1) for t in GOOD_IN] + [(t, 0) for t in GOOD_OUT])  # 20 decisions: about 13 per fold, too few
    result = learn(synthetic, staff, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=LearningOptions(radius=0.8))
    assert result.gate.memory.model is None and result.figures["staff_model_decided_out_of_fold"] == 0


def test_a_memory_that_overreaches_is_not_adopted(setup, fake_embedder):
    space, synthetic, gate = setup
    staff = _staff(gate, fake_embedder, [(t, 1) for t in GOOD_IN] + [(t, 0) for t in GOOD_OUT[:4]])
    result = learn(synthetic, staff, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=LearningOptions(radius=-1.0))  # every message "close"
    assert not result.verdict.adopted and "worse" in result.verdict.reason
    assert any(c.errors_after > c.errors_before for c in result.verdict.sets.values())


def test_honest_corrections_are_adopted_and_the_memory_explains_a_close_repeat(setup, fake_embedder, tmp_path):
    space, synthetic, gate = setup
    staff = _staff(gate, fake_embedder, [(t, 1) for t in GOOD_IN] + [(t, 0) for t in GOOD_OUT])
    # the toy corpus's synthetic held-out is noisy (a third of it wrong): allow it 1.5 points. The served gate already
    # turns the three other universities away (the higher bar for another institution), so out of fold there is no error
    # left for these decisions to fix and the gain rule (checked in test_a_retrain_that_shows_no_gain...) would refuse:
    # this test checks the rest of adoption and the memory, without the gain requirement.
    options = LearningOptions(radius=0.8, require_gain=(), tolerance={"staff_decisions": 0.0, "synthetic_heldout": 0.015}, margin={"synthetic_heldout": 0.015}, max_protected_rise={"staff_decisions": 0.0, "synthetic_heldout": 0.02})
    result = learn(synthetic, staff, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=options)
    assert result.verdict.adopted, result.verdict.reason
    assert result.threshold["moved"] is False or result.threshold["errors_at_proposed"] < result.threshold["errors_at_before"]
    cand = result.gate
    cand.save(tmp_path)
    loaded = Gate.load(tmp_path)
    assert len(loaded.memory) == len(staff) and loaded.memory.radius == 0.8
    d = loaded.decide("en la universidad rafael landivar como me inscribo a los examenes?", fake_embedder)  # a close repeat, unseen
    assert not d.in_domain and d.remembered and d.remembered["label"] == 0
    assert any("marcó fuera de dominio el 12/11" in r for r in d.reasons)


def test_a_reviewer_the_gate_keeps_disagreeing_with_is_named_and_set_aside(setup, fake_embedder):
    space, synthetic, gate = setup
    honest = _staff(gate, fake_embedder, [(t, 1) for t in GOOD_IN[:5]] + [(t, 0) for t in GOOD_OUT])
    poison = _staff(gate, fake_embedder, [(t, 0) for t in GOOD_IN[5:]] + [(f"{t} gracias", 0) for t in GOOD_IN] + [(f"{t} porfa", 0) for t in GOOD_IN[:5]], reviewer="mallory")
    result, reviewers, kept = learn_from_staff(synthetic, honest + poison, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=LearningOptions(radius=0.8))
    assert reviewers["mallory"]["flagged"] and not reviewers["ana"]["flagged"]
    assert all(s.reviewer == "ana" for s in kept) and len(result.gate.memory) == len(honest)


def test_when_every_decision_comes_from_a_set_aside_reviewer_nothing_is_learnt_or_adopted(setup, fake_embedder):
    space, synthetic, gate = setup
    poison = _staff(gate, fake_embedder, [(t, 0) for t in GOOD_IN] + [(f"{t} gracias", 0) for t in GOOD_IN] + [(f"{t} porfa", 0) for t in GOOD_IN[:5]], reviewer="mallory")
    result, reviewers, kept = learn_from_staff(synthetic, poison, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=LearningOptions(radius=0.8))
    assert reviewers["mallory"]["flagged"] and kept == []
    assert not result.verdict.adopted and "mallory" in result.verdict.reason, result.verdict.reason
    assert len(result.gate.memory) == 0 and result.gate.memory.model is None  # the candidate carries none of their labels
    probe = GOOD_IN[0]  # a message mallory rejected: the candidate judges it as the gate learnt from the documents does
    assert result.gate.decide(probe, fake_embedder).in_domain == gate.decide(probe, fake_embedder).in_domain


def test_disagreement_needs_many_and_well_above_the_others():
    staff = [StaffLabel(text=str(i), label=0, reviewer="bea") for i in range(6)] + [StaffLabel(text=f"x{i}", label=1, reviewer="ana") for i in range(20)]
    got = reviewer_disagreement(staff, [1] * 26)  # bea contradicts the gate 6 of 6 times: too few to name
    assert not got["bea"]["flagged"] and got["bea"]["disagreements"] == 6


def test_the_staff_model_guard_counts_in_domain_cases_the_model_itself_turned_away():
    y = np.array([1] * 50 + [0] * 10 + [1] * 400)
    memory = np.full(len(y), -1)
    by_model = np.zeros(len(y), dtype=bool)
    memory[[0, 1]], by_model[[0, 1]] = 0, True  # the staff model turned two in-domain staff decisions away ...
    memory[2] = 0  # ... a close staff message turned one more away (the memory, not the model: not counted)
    memory[[3, 4]], by_model[[3, 4]] = 1, True  # ... and let two in (rescues do not offset the count)
    sets = {"staff_decisions": np.arange(60), "synthetic_heldout": np.arange(60, 460)}
    g = _staff_model_guard(LearningOptions(), y, memory, by_model, sets)
    assert g["staff_decisions"]["turned_away_by_staff_model"] == 2 and g["staff_decisions"]["in_domain"] == 50
    assert g["staff_decisions"]["above"] and g["refused"]  # 4 points > 2
    by_model[1] = False
    memory[1] = -1
    g = _staff_model_guard(LearningOptions(), y, memory, by_model, sets)
    assert not g["refused"] and g["staff_decisions"]["share"] == 0.02


def test_a_staff_model_that_fails_its_in_domain_guard_is_not_adopted(setup, fake_embedder):
    space, synthetic, gate = setup
    staff = _staff(gate, fake_embedder, [(t, 1) for t in GOOD_IN] + [(t, 0) for t in GOOD_OUT])
    staff = staff + _staff(gate, fake_embedder, [(f"{s.text} gracias", s.label) for s in staff] + [(f"porfa {s.text}", s.label) for s in staff])
    lenient = LearningOptions(radius=0.8, staff_model_in_guard={"staff_decisions": 1.0, "synthetic_heldout": 1.0})
    kept = learn(synthetic, staff, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=lenient)
    assert kept.classifier_candidate.memory.model is not None and not kept.figures["staff_model_in_domain_guard"]["refused"]
    assert "staff model turns away" not in kept.verdict.reason
    strict = learn(synthetic, staff, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=LearningOptions(radius=0.8, staff_model_in_guard={"staff_decisions": -1.0, "synthetic_heldout": -1.0}, offer_memory_alone=False))
    g = strict.figures["staff_model_in_domain_guard"]
    assert g["refused"] and not strict.verdict.adopted
    reason = strict.verdict.reason
    # the verdict names the first refusal: a gate that already judges every staff decision right has nothing to gain first
    nothing_to_fix = strict.verdict.sets["staff_decisions"].errors_before == 0
    assert "staff model turns away" in reason or "worse" in reason or "turns more cases away" in reason or (nothing_to_fix and "no gain" in reason), reason


def test_repeated_texts_get_the_features_each_would_get_on_its_own(setup, fake_embedder):
    from classifiers.gate import message_segments
    from classifiers.retraining import _Features

    space, _, _ = setup
    texts = ["hola, hasta cuando me inscribo a examenes? gracias", GOOD_OUT[0], "hola, hasta cuando me inscribo a examenes? gracias", GOOD_IN[2], GOOD_OUT[0], GOOD_OUT[3]]
    calls: list[list[str]] = []

    class Counting:
        name, dim = fake_embedder.name, fake_embedder.dim

        def embed_queries(self, batch):
            calls.append(list(batch))
            return fake_embedder.embed_queries(batch)

    f = _Features(texts, space, Counting())
    kinds: list[str] = []
    segments, owner = message_segments(texts, kinds=kinds)
    vecs = fake_embedder.embed_queries(segments)
    dense, sparse = space.transform(segments, query_vecs=vecs)
    assert f.segments == segments and f.owner.tolist() == owner and f.kinds == kinds
    assert np.array_equal(f.vecs, vecs) and np.array_equal(f.dense, dense) and (f.sparse != sparse).nnz == 0
    assert len(calls) == 1 and len(calls[0]) == len(set(segments)) < len(segments)  # each distinct segment embedded once


def test_below_the_minimum_of_decisions_the_classifier_stays_and_the_memory_alone_is_adopted(setup, fake_embedder, tmp_path):
    """Twenty decisions cannot show out of fold that a retrained classifier is better: the gate in use is kept as it is,
    with the staff memory consulted first, so a correction still takes effect on close repeats; the report says why."""
    space, synthetic, gate = setup
    # the gate's own intents turn most of GOOD_OUT away already; these carry no such cue, so some reach the gate's classifier alone
    out = GOOD_OUT + PLAIN_OUT
    staff = _staff(gate, fake_embedder, [(t, 1) for t in GOOD_IN] + [(t, 0) for t in out])
    result = learn(synthetic, staff, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=LearningOptions(radius=0.8), current=gate)
    assert result.verdict.adopted and result.kind == "memory", result.verdict.reason
    assert "fewer than 30 decisions" in result.verdict.reason and not result.memory_only["gain_required"]
    assert np.array_equal(result.gate.coef, gate.coef) and result.gate.threshold == gate.threshold and len(result.gate.memory) == len(staff)
    result.gate.save(tmp_path)
    probes = [f"{t} gracias" for t in out if gate.decide(f"{t} gracias", fake_embedder).in_domain]  # close repeats, unseen, the gate alone lets in
    assert probes
    d = Gate.load(tmp_path).decide(probes[0], fake_embedder)
    assert not d.in_domain and d.remembered and d.remembered["label"] == 0
    curve = result.figures["reach_out_of_fold"]
    assert [r["radius"] for r in curve] == sorted(r["radius"] for r in curve)
    assert all(a["staff_decided"] >= b["staff_decided"] for a, b in zip(curve, curve[1:]))  # a wider radius decides more


def test_the_staff_model_learns_from_the_scores_the_gate_serves(setup, fake_embedder, staff_model_fits):
    """At serving time the staff memory and model see scores after another's business is barred (gate.elsewhere_bar):
    they must be fitted on those, not on the classifier's raw scores (which rate another university's procedure as the
    office's own)."""
    space, synthetic, gate = setup
    texts = [(t, 1) for t in GOOD_IN] + [(t, 0) for t in GOOD_OUT]
    texts += [(f"{t} gracias", y) for t, y in texts] + [(f"porfa {t}", y) for t, y in texts]
    staff = _staff(gate, fake_embedder, texts)
    fitted = staff_model_fits
    result = learn(synthetic, staff, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=LearningOptions(radius=0.8, staff_model=True, min_decisions=0), current=gate)
    final = result.classifier_candidate
    assert final.memory.model is not None and len(fitted) >= 2
    served = final.probabilities([s.text for s in staff], fake_embedder, memory=False)
    _, barred = final.elsewhere_bar(*_raw_whole(final, [s.text for s in staff], fake_embedder))
    assert barred.any()  # some staff message names another institution and the bar decided it
    assert np.allclose(fitted[-1], served)


def _raw_whole(g, texts, embedder):
    dense, _, p, owner, kinds, _ = g._segment_scores(texts, embedder, None)
    from classifiers.gate import judge_segments

    return judge_segments(p, owner, kinds, len(texts))[0], dense, owner, kinds


def test_the_scores_retraining_judges_floor_the_students_own_errand_as_the_gate_serves(setup, fake_embedder, monkeypatch, staff_model_fits):
    """A student's own errand (a lost card, a certificate) is floored when served (gate.errand_floor): the staff model is
    fitted on the served scores, floor included, not on the classifier's own. The tiny test gate already rates these
    errands in, so the floor is made to lift them to certainty in both places; a retraining that skips it fits on
    other scores than the gate serves."""
    import classifiers.gate as gate_module
    import classifiers.retraining as retraining

    real_floor = gate_module.errand_floor

    def to_certainty(score, best, dense, kinds, *, names, threshold):
        score, floored = real_floor(score, best, dense, kinds, names=names, threshold=1.0)
        return score, floored

    monkeypatch.setattr(gate_module, "errand_floor", to_certainty)
    monkeypatch.setattr(retraining, "errand_floor", to_certainty, raising=False)
    space, synthetic, gate = setup
    errands = ["perdi mi carne y necesito uno nuevo", "necesito una constancia de mi cierre de pensum", "me cambiaron de seccion sin avisar, a quien le escribo"]
    texts = [(t, 1) for t in GOOD_IN + errands] + [(t, 0) for t in GOOD_OUT]
    texts += [(f"{t} gracias", y) for t, y in texts] + [(f"porfa {t}", y) for t, y in texts]
    staff = _staff(gate, fake_embedder, texts)
    fitted = staff_model_fits
    result = learn(synthetic, staff, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=LearningOptions(radius=0.8, staff_model=True, min_decisions=0), current=gate)
    final = result.classifier_candidate
    assert final.memory.model is not None and fitted
    msgs = [s.text for s in staff]
    served = final.probabilities(msgs, fake_embedder, memory=False)
    assert (served == 1.0).sum() >= len(errands)  # the floor decided the errands
    assert np.allclose(fitted[-1], served)


def test_the_gain_adoption_requires_is_a_sure_one_for_the_classifier_and_the_memory_alone(setup, fake_embedder, monkeypatch):
    """Every adoption `learn` asks for (the retrained classifier, then the memory alone) requires the sure gain of its
    options: with the default, an adopted candidate's out-of-fold flips on the staff decisions pass the sign test."""
    import classifiers.retraining as retraining
    from classifiers import adoption

    space, synthetic, gate = setup
    texts = [(t, 1) for t in GOOD_IN] + [(t, 0) for t in GOOD_OUT + PLAIN_OUT]
    texts += [(f"{t} gracias", y) for t, y in texts]
    staff = _staff(gate, fake_embedder, texts)
    calls = []
    real = adoption.decide

    def spy(sets, **kw):
        calls.append(kw)
        return real(sets, **kw)

    monkeypatch.setattr(retraining.adoption, "decide", spy)
    options = LearningOptions(radius=0.8, staff_model=False)
    assert options.gain_alpha == 0.1 and options.require_gain == ("staff_decisions",)
    result = learn(synthetic, staff, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=options, current=gate)
    assert len(staff) >= options.min_decisions and calls  # enough decisions: a gain is required of every candidate
    assert all(kw["gain_alpha"] == 0.1 and kw["require_gain"] == ("staff_decisions",) for kw in calls), calls
    c = result.verdict.sets["staff_decisions"]
    if result.verdict.adopted:
        assert adoption.gain_p(len(c.fixed), len(c.broken)) <= 0.1, result.verdict.reason
    else:
        assert "gain" in result.verdict.reason or "worse" in result.verdict.reason or "turns" in result.verdict.reason, result.verdict.reason
