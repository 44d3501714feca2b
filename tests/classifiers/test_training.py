"""Training every model on a small synthetic dataset, persistence without pickle, staleness."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from classifiers.errors import GateError, GateNotTrained, GateStale
from classifiers.features import FeatureSpace
from classifiers.gate import Gate
from classifiers.synthetic import Example
from classifiers.training import balance, heldout_split, offline_dataset, train_gate

IN = ["¿hasta cuándo me inscribo a exámenes?", "revisión de examen plazo", "beca de transporte requisitos", "créditos de Física Básica",
      "¿cuántos créditos tiene la carrera?", "inscripción a exámenes portal", "beca de alojamiento residencia", "examen por suficiencia"]
OUT = ["receta de torta de chocolate", "¿quién ganó el mundial?", "escribime un poema de amor", "clima de mañana en la playa",
       "mi perro no come", "capital de Australia", "cómo arreglo la bicicleta", "chiste de gallegos", "precio del dólar hoy", "letra de una canción"]


def small_dataset() -> list[Example]:
    ins = [Example(text=t, label=1, style="direct", source="test", chunk_ids=(f"doc{i % 4}#0",)) for i, t in enumerate(IN)]
    outs = [Example(text=t, label=0, style="direct", source="test", topic=f"t{i}") for i, t in enumerate(OUT)]
    return ins + outs


@pytest.fixture
def space(chunks, chunk_vectors):
    return FeatureSpace.fit("similarity+tfidf+lexical", chunk_texts=[c.embed_text for c in chunks], chunk_vectors=chunk_vectors)


@pytest.mark.parametrize("model", ["svm", "logreg", "knn"])
def test_each_model_learns_the_offline_dataset(model, chunks, chunk_vectors, fake_embedder):
    space = FeatureSpace.fit("similarity+lexical+intent", chunk_texts=[c.embed_text for c in chunks], chunk_vectors=chunk_vectors)  # near misses need intent
    data = offline_dataset(chunks)
    gate = train_gate(data, space=space, embedder=fake_embedder, model=model)
    p = gate.probabilities(["¿Cuántos créditos tiene Física Básica?", "¿Quién ganó el mundial de 1986?"], fake_embedder)
    assert p[0] > p[1]
    assert 0.0 <= p.min() and p.max() <= 1.0
    scores = gate.probabilities([e.text for e in data], fake_embedder)
    labels = np.array([e.label for e in data])
    assert scores[labels == 1].mean() > scores[labels == 0].mean() + 0.3
    assert set(gate.meta["heldout"]) >= {"f1_in", "f1_out", "accuracy"}


def test_balanced_training_uses_equal_classes(space, fake_embedder):
    gate = train_gate(small_dataset(), space=space, embedder=fake_embedder, balanced=True)
    assert gate.meta["n_in"] == gate.meta["n_out"] == len(IN)
    full = train_gate(small_dataset(), space=space, embedder=fake_embedder, balanced=False)
    assert (full.meta["n_in"], full.meta["n_out"]) == (len(IN), len(OUT))


def test_balance_and_heldout_split_keep_groups_whole():
    y = np.array([1] * 6 + [0] * 10)
    keep = balance(y, seed=0)
    assert (y[keep] == 1).sum() == (y[keep] == 0).sum() == 6
    groups = ["a", "a", "b", "b", "c", "c"] + [f"o{i}" for i in range(10)]
    tr, ho = heldout_split(groups, y, seed=0)
    assert set(tr).isdisjoint(ho) and len(tr) + len(ho) == 16
    assert {groups[i] for i in tr}.isdisjoint({groups[i] for i in ho})
    assert set(y[ho]) == {0, 1}


def test_one_class_is_refused(space, fake_embedder):
    with pytest.raises(GateError):
        train_gate([e for e in small_dataset() if e.label == 1], space=space, embedder=fake_embedder)


@pytest.mark.parametrize("model", ["svm", "logreg", "knn"])
def test_save_load_round_trip_without_pickle(model, tmp_path, chunks, chunk_vectors, fake_embedder):
    space = FeatureSpace.fit("embedding+similarity+tfidf+lexical" if model != "knn" else "embedding+similarity+lexical", chunk_texts=[c.embed_text for c in chunks], chunk_vectors=chunk_vectors)
    gate = train_gate(small_dataset(), space=space, embedder=fake_embedder, model=model)
    gate.meta["corpus_hash"] = "abc"
    gate.save(tmp_path)
    loaded = Gate.load(tmp_path)
    texts = ["beca de transporte", "receta de pizza", "¿cuándo es el examen?"]
    assert np.allclose(loaded.probabilities(texts, fake_embedder), gate.probabilities(texts, fake_embedder), atol=1e-5)
    assert (loaded.threshold, loaded.model, loaded.features, loaded.meta["corpus_hash"]) == (gate.threshold, model, gate.features, "abc")
    for npz in tmp_path.glob("*.npz"):  # plain arrays only: nothing that needs pickle to load
        with zipfile.ZipFile(npz) as zf:
            for name in zf.namelist():
                np.load(zf.open(name), allow_pickle=False)
    meta = json.loads((tmp_path / "gate.json").read_text())
    assert {"dataset_hash", "threshold", "model", "features", "trained_at", "heldout"} <= set(meta)
    d = loaded.decide("beca de transporte", fake_embedder)
    assert d.in_domain == (d.score >= d.threshold) and d.latency_ms >= 0


def test_staleness_and_missing_gate(tmp_path, space, fake_embedder):
    with pytest.raises(GateNotTrained):
        Gate.load(tmp_path / "nothing")
    gate = train_gate(small_dataset(), space=space, embedder=fake_embedder)
    gate.meta["corpus_hash"] = "h1"
    assert not gate.is_stale("h1") and gate.is_stale("h2")
    with pytest.raises(GateStale):
        gate.check_fresh("h2")
