"""The staff memory decides close repeats of labelled messages, explains itself, and is stored with the gate."""

from __future__ import annotations

import numpy as np

from classifiers.gate import remembered_reason
from classifiers.memory import StaffMemory, StaffModel, choose_radius, reach_curve


def _unit(*v):
    a = np.asarray(v, dtype=np.float32)
    return a / np.linalg.norm(a)


def test_recall_takes_the_label_of_close_messages_and_nothing_beyond_the_radius():
    mem = StaffMemory.build(np.stack([_unit(1, 0, 0), _unit(0, 1, 0)]), [0, 1], dates=["2026-11-12", "2026-11-13"], message_ids=[7, 8], radius=0.9)
    near_first, far = _unit(1, 0.1, 0), _unit(0.5, 0.5, 0.7)
    got = mem.recall(np.stack([near_first, far]))
    assert got[0] is not None and got[0].label == 0 and got[0].message_id == 7 and got[0].similarity > 0.9
    assert got[1] is None


def test_a_tie_within_the_radius_decides_nothing():
    mem = StaffMemory.build(np.stack([_unit(1, 0.05, 0), _unit(1, -0.05, 0)]), [0, 1], radius=0.9)
    assert mem.recall(np.stack([_unit(1, 0, 0)])) == [None]


def test_the_reason_names_the_verdict_and_the_date():
    mem = StaffMemory.build(np.stack([_unit(1, 0, 0)]), [0], dates=["2026-11-12"], message_ids=[42], radius=0.9)
    reason = remembered_reason(mem.recall(np.stack([_unit(1, 0, 0)]))[0])
    assert "marcó fuera de dominio el 12/11" in reason and "#42" in reason


def test_reach_curve_counts_fixes_and_overreach_and_the_radius_stops_before_it():
    mem_vecs = np.stack([_unit(1, 0, 0)])
    queries = np.stack([_unit(1, 0.1, 0), _unit(1, 0.6, 0)])  # similarity ~0.995 and ~0.86
    rows = reach_curve(mem_vecs, [0], queries, [0, 1], [1, 1], [0.8, 0.9])
    wide, narrow = rows
    assert (wide["fixed"], wide["broken"]) == (1, 1) and (narrow["fixed"], narrow["broken"]) == (1, 0)
    assert choose_radius(rows) == 0.9


def test_beyond_the_radius_a_label_decides_only_where_the_classifier_is_unsure():
    mem = StaffMemory.build(np.stack([_unit(1, 0, 0)]), [0], radius=0.95)
    mem.reach, mem.band = 0.85, 0.15
    q = np.stack([_unit(1, 0.5, 0), _unit(1, 0.5, 0)])  # similarity ~0.89: within reach, beyond the radius
    got = mem.recall(q, scores=np.array([0.40, 0.90]), threshold=0.35)
    assert got[0] is not None and got[0].label == 0  # unsure (0.40 vs 0.35): the staff label decides
    assert got[1] is None  # confident: the classifier decides
    assert mem.recall(q) == [None, None]  # without scores only the radius counts


def _family(rng, centre, n, spread=0.35):
    """`n` unit vectors scattered around a family's direction (far apart from each other: cosines well under the radius)."""
    return np.stack([_unit(*(np.asarray(centre) + spread * rng.standard_normal(len(centre)))) for _ in range(n)])


def test_the_staff_model_carries_a_correction_to_unseen_members_of_its_family_and_leaves_the_rest_alone():
    rng = np.random.default_rng(0)
    dim = 12
    in_dir, other_uni = np.eye(dim)[0], np.eye(dim)[0] * 0.6 + np.eye(dim)[1] * 0.8  # another university: close to in-domain
    seen = np.vstack([_family(rng, in_dir, 30), _family(rng, other_uni, 15)])
    labels = [1] * 30 + [0] * 15
    scores = np.full(45, 0.6)  # the classifier lets them all in (threshold 0.3)
    model = StaffModel.fit(seen, scores, labels, pivot=0.3, C=100.0, scale=0.1)
    mem = StaffMemory.build(seen, labels, message_ids=list(range(45)), radius=0.999, model=model)
    unseen_other, unseen_in = _family(rng, other_uni, 10), _family(rng, in_dir, 10)
    got = mem.recall(np.vstack([unseen_other, unseen_in]), scores=np.full(20, 0.6), threshold=0.3)
    assert sum(r is not None and r.label == 0 and r.by_model for r in got[:10]) >= 8  # the family was learnt, not one message
    assert sum(r is not None for r in got[10:]) <= 1  # in-domain messages stay with the classifier
    reason = remembered_reason(next(r for r in got[:10] if r is not None))
    assert reason.startswith("las decisiones del equipo lo ven fuera de dominio")


def test_the_staff_model_is_stored_with_the_memory_and_needs_enough_decisions():
    rng = np.random.default_rng(1)
    v = np.vstack([_family(rng, np.eye(6)[0], 15), _family(rng, np.eye(6)[1], 15)])
    model = StaffModel.fit(v, np.full(30, 0.5), [1] * 15 + [0] * 15, pivot=0.3)
    mem = StaffMemory.build(v, [1] * 15 + [0] * 15, radius=0.99, model=model)
    back = StaffMemory.from_stored(mem.as_arrays(), mem.as_meta())
    q = _family(rng, np.eye(6)[1], 5)
    assert np.allclose(back.model.margin(q, np.full(5, 0.5)), model.margin(q, np.full(5, 0.5)))
    assert StaffModel.fit(v[:10], np.full(10, 0.5), [1] * 5 + [0] * 5, pivot=0.3) is None  # too few to teach a family
