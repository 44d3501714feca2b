"""The staff memory decides close repeats of labelled messages, explains itself, and is stored with the gate."""

from __future__ import annotations

import numpy as np

from classifiers.gate import remembered_reason
from classifiers.memory import StaffMemory, choose_radius, reach_curve


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
