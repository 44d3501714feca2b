"""Counterfactual variants of staff corrections: the family is kept, the surface changes, the office's own names stay,
and retraining learns from the variants without ever judging them (or judging a decision with its own variants)."""

from __future__ import annotations

import numpy as np
import pytest

from classifiers.counterfactual import Pools, counterfactuals
from classifiers.features import FeatureSpace
from classifiers.retraining import LearningOptions, StaffLabel, learn
from classifiers.synthetic import Example
from classifiers.training import offline_dataset, train_gate
from pipeline.text import fold

POOLS = Pools(universities=["Universidad Rafael Landívar", "Universidad del Valle de Guatemala", "Universidad Mariano Gálvez"],
              courses=["Física Básica", "Matemática Intermedia 1", "Termodinámica 1", "Estadística 1"],
              procedures=["la asignación de cursos", "el examen de retrasada", "la inscripción"], own={"facultad de ingenieria", "universidad de san carlos"})


def test_another_universitys_procedure_gets_other_universities_and_keeps_the_procedure():
    text = "en el centro universitario de oriente como se hace el cierre de pensum"
    out = counterfactuals(text, 0, POOLS, n=6)
    assert len(out) >= 4
    for v in out:
        assert "centro universitario de oriente" not in fold(v) and fold(v).endswith("como se hace el cierre de pensum")


def test_the_offices_own_institution_is_never_swapped_and_in_domain_messages_keep_their_padding():
    own = "hola, en la facultad de ingenieria como se hace el cierre de pensum de fisica basica"
    for v in counterfactuals(own, 1, POOLS, n=6):
        assert "facultad de ingenieria" in fold(v) and fold(v).startswith("hola, en la facultad")  # only the course changes
        assert "fisica basica" not in fold(v)
    assert counterfactuals("donde veo cuantos creditos llevo acumulados", 1, POOLS) == []  # nothing to vary: no variant


def test_a_padded_request_is_learnt_without_its_padding_and_with_other_padding():
    text = "buenas tardes, sobre la asignacion de cursos, me pueden resolver esta integral de x por ln x"
    out = counterfactuals(text, 0, POOLS, n=6)
    core = "me pueden resolver esta integral de x por ln x"
    assert core in out  # the request alone
    assert all(fold(v).endswith(core) for v in out) and any(v != core and "asignacion de cursos" not in fold(v) for v in out)


def test_pools_are_read_from_the_synthetic_examples_and_own_names_from_in_domain_ones():
    synthetic = [
        Example(text="¿la Landívar tiene becas?", label=0, style="direct", source="near-miss", topic="other_institution:Universidad Rafael Landívar"),
        Example(text="tengo tarea de Física Básica", label=0, style="direct", source="near-miss", topic="homework:Física Básica"),
        Example(text="¿Cuándo es la inscripción en la Universidad de San Carlos?", label=1, style="direct", source="offline-template", topic="la inscripción"),
        Example(text="vengo de la Universidad Galileo, ¿cómo pido equivalencias?", label=1, style="direct", source="offline-transfer", topic="transfer:x"),
    ]
    p = Pools.from_synthetic(synthetic)
    assert p.universities == ["Universidad Rafael Landívar"] and p.courses == ["Física Básica"] and p.procedures == ["la inscripción"]
    assert "universidad de san carlos" in p.own and not any("galileo" in o for o in p.own)  # a transfer names another's


@pytest.fixture
def setup(chunks, chunk_vectors, fake_embedder):
    space = FeatureSpace.fit("similarity+tfidf+lexical+intent", chunk_texts=[c.embed_text for c in chunks], chunk_vectors=chunk_vectors)
    synthetic = offline_dataset(chunks)
    gate = train_gate(synthetic, space=space, embedder=fake_embedder)
    return space, synthetic, gate


def test_retraining_learns_from_variants_but_judges_only_the_staff_decisions(setup, fake_embedder, monkeypatch):
    import classifiers.retraining as retraining

    space, synthetic, gate = setup
    texts = ["en la universidad rafael landivar como me inscribo a examenes?", "buenas, sobre la beca de transporte, me resuelven este ejercicio de fisica basica: un bloque de 3 kg cae",
             "hola, en la universidad del valle cuantos creditos tiene la carrera", "porfa, como pido la revision de mi examen?", "cuantos creditos tiene la carrera en total"]
    staff = [StaffLabel(text=t, label=int(i >= 3), message_id=i + 1, reviewer="ana", correction=i < 3) for i, t in enumerate(texts)]
    fitted: list[int] = []
    real = retraining._fit

    def spy(model, f, y, rows, weights, space, seed):
        fitted.append(len(rows))
        return real(model, f, y, rows, weights, space, seed)

    monkeypatch.setattr(retraining, "_fit", spy)
    base = LearningOptions(radius=0.8, staff_model=False, min_decisions=0)
    plain = learn(synthetic, staff, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=base)
    n_plain = list(fitted)
    fitted.clear()
    aug = learn(synthetic, staff, space=space, embedder=fake_embedder, current_threshold=gate.threshold, options=LearningOptions(**{**base.__dict__, "counterfactuals": 4}))
    assert plain.figures["counterfactuals"] == 0 and aug.figures["counterfactuals"] >= 6
    # the evidence is the same decisions and synthetic held-out either way: the variants are not judged
    assert aug.verdict.sets["staff_decisions"].n == len(staff) and len(aug.evidence["staff_decisions"]["y"]) == len(staff)
    assert len(aug.evidence["synthetic_heldout"]["y"]) == len(plain.evidence["synthetic_heldout"]["y"])
    # every candidate fit (per fold and the final one) carries more rows: the variants of the decisions it learns from
    grew = np.array(fitted) - np.array(n_plain)
    assert (grew >= 0).all() and grew.max() == aug.figures["counterfactuals"] and (grew > 0).sum() >= 3
