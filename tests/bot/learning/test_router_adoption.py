"""Retraining the campus router from staff moves goes through the same adoption rule as the gate
(classifiers.adoption.decide): a router that routes held-out staff decisions worse is never adopted."""

from __future__ import annotations

import json

from bot.learning import routing as learning
from bot.learning.routing import router_adoption, train_router
from bot.wiring.campus import campus_of
from classifiers.routing import Router, fit_offices, office_features
from review.db import session_scope
from review.offices import move
from tests.bot.loop.test_routing import _store, campus  # noqa: F401  (the campus fixture)
from tests.classifiers.test_routing import OFFICES, _router

HELD = {  # staff decisions neither router learnt from
    "¿Cuánto pago de multa por entregar tarde el libro?": "Biblioteca", "¿Puedo renovar el préstamo de un libro?": "Biblioteca",
    "¿A qué hora abre el gimnasio universitario?": "Deportes", "¿Dan clases de natación en la piscina?": "Deportes",
    "¿Cuándo pagan la beca de alimentación?": "Becas", "¿Qué piden para renovar la beca?": "Becas",
}


def _rotated(fake_embedder) -> Router:
    """A router trained on purpose with every question labelled as the next office's."""
    offices = list(OFFICES)
    office_vectors = [fake_embedder.embed_passages(OFFICES[o]) for o in offices]
    good = _router(fake_embedder)
    questions = [f"¿{t}?" for o in offices for t in OFFICES[o]]
    labels = [offices[(offices.index(o) + 1) % len(offices)] for o in offices for _ in OFFICES[o]]
    mean, scale, weights, bias = fit_offices(office_features(fake_embedder.embed_queries(questions), questions, office_vectors, good.lexicon), labels, offices=offices)
    return Router(offices=offices, office_vectors=office_vectors, lexicon=good.lexicon, gate=None, mean=mean, scale=scale, weights=weights, bias=bias)


def test_a_router_made_worse_on_purpose_is_refused_and_one_no_worse_is_adopted(fake_embedder):
    current, worse = _router(fake_embedder), _rotated(fake_embedder)
    texts, truth = list(HELD), list(HELD.values())
    vecs = fake_embedder.embed_queries(texts)
    assert sum(a == b for a, b in zip(current.choose(vecs, texts), truth)) > sum(a == b for a, b in zip(worse.choose(vecs, texts), truth))
    refused = router_adoption(current, worse, vecs, texts, truth)
    assert not refused.adopted and "worse on staff_decisions_heldout" in refused.reason
    c = refused.sets["staff_decisions_heldout"]
    assert c.n == len(HELD) and c.errors_after > c.errors_before and c.interval[1] > 0
    kept = router_adoption(current, _router(fake_embedder), vecs, texts, truth)  # the same router again: no worse
    assert kept.adopted
    assert router_adoption(worse, current, vecs, texts, truth).adopted  # the better one replaces the worse


def test_a_router_worse_only_on_the_synthetic_heldout_is_refused(fake_embedder):
    """Held-out staff decisions that do not tell the two apart (none here) cannot let a router through that routes the
    documents' own questions worse: the synthetic held-out is compared too."""
    current, worse = _router(fake_embedder), _rotated(fake_embedder)
    texts, truth = list(HELD), list(HELD.values())
    vecs = fake_embedder.embed_queries(texts)
    empty = fake_embedder.embed_queries(["x"])[:0]
    assert router_adoption(current, worse, empty, [], []).adopted is False  # nothing to compare on: never adopted
    refused = router_adoption(current, worse, empty, [], [], synthetic=(vecs, texts, truth))
    assert not refused.adopted and "worse on synthetic_heldout" in refused.reason
    assert router_adoption(current, _router(fake_embedder), empty, [], [], synthetic=(vecs, texts, truth)).adopted


def test_train_router_keeps_the_stored_router_when_the_retrained_one_is_worse(campus, monkeypatch):  # noqa: F811
    names = campus_of(campus).names()
    questions = ["¿Cuántos días dura el préstamo de un libro?", "¿Cuánto es la multa por devolver tarde un libro?", "¿Puedo renovar el préstamo de un libro?",
                 "¿Hasta qué hora abre la biblioteca?", "¿Dónde devuelvo un libro prestado?", "¿Se puede reservar un libro?"]
    ids = [_store(campus, q) for q in questions]
    with session_scope(campus.engine) as session:
        for mid in ids:
            move(session=session, message_id=mid, to_office="Biblioteca", actor="ana", default="principal", known=names)
    good = train_router(campus)  # learnt from the moves, stored
    stored = (campus.settings.paths.router_dir / "router.json").read_bytes()
    assert good.meta["heldout_staff"]["n"] >= 1
    original = fit_offices

    def rotated(feats, labels, *, offices):  # a retraining gone wrong: every office's questions taught as the next office's
        return original(feats, [offices[(offices.index(o) + 1) % len(offices)] for o in labels], offices=offices)

    monkeypatch.setattr(learning, "fit_offices", rotated)
    campus.__dict__.pop("_router", None)
    kept = train_router(campus)
    adoption = kept.meta["rejected_retraining"]["heldout_staff"]["adoption"]
    assert adoption["adopted"] is False and "worse" in adoption["reason"]
    assert kept.meta["campus_hash"] == good.meta["campus_hash"] and kept.weights.tolist() == good.weights.tolist()
    assert (campus.settings.paths.router_dir / "router.json").read_bytes() == stored  # the stored router is untouched
    json.dumps(kept.meta)  # reportable
