"""The bundled out-of-domain bank and the templated out-of-domain questions."""

from __future__ import annotations

from collections import Counter

from classifiers.bank import load_ood_bank
from classifiers.ood import nearby_places, offline_ood, templated_ood


def test_bank_is_large_varied_and_bilingual():
    bank = load_ood_bank()
    assert len(bank) >= 400
    topics = Counter(r["topic"] for r in bank)
    assert len(topics) >= 20 and max(topics.values()) < len(bank) * 0.1
    assert {r["lang"] for r in bank} >= {"es", "en"}
    assert sum(r["near_miss"] for r in bank) >= 50


def test_templated_questions_are_labelled_out_and_spread_over_kinds():
    rows = templated_ood(n=200, seed=3)
    assert len(rows) == 200 and all(r.label == 0 for r in rows)
    assert len({r.topic.split(":")[0] for r in rows}) >= 6
    assert len(offline_ood(n_templated=50)) == len(load_ood_bank()) + 50 + len(nearby_places(n=160))


def test_places_near_the_institution_are_out_of_domain_near_misses():
    rows = nearby_places(n=30)
    assert len(rows) == 30 and all(r.label == 0 and r.source == "ood-nearby" for r in rows)
    assert all(("facu" in r.text.lower() or "universidad" in r.text.lower() or len(r.text.split()) <= 6) for r in rows)
