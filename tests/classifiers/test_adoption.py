"""Adoption compares current and candidate on unseen cases: never adopts a worse model, states its uncertainty."""

from __future__ import annotations

import numpy as np

from classifiers import adoption


def test_a_candidate_with_more_errors_is_not_adopted():
    y = [1] * 50 + [0] * 50
    before = list(y)
    before[0] = 0  # one mistake
    after = list(y)
    after[0], after[1], after[60] = 0, 0, 1  # three
    v = adoption.decide({"staff": (y, before, after)})
    assert not v.adopted and "worse on staff" in v.reason
    c = v.sets["staff"]
    assert (c.errors_before, c.errors_after) == (1, 3) and c.broken == [1, 60] and c.fixed == []
    lo, hi = c.interval
    assert lo <= c.error_rate_change <= hi


def test_a_candidate_that_fixes_mistakes_is_adopted_with_its_flips():
    y = [1, 1, 0, 0, 1, 0]
    v = adoption.decide({"staff": (y, [0, 1, 1, 0, 1, 0], [1, 1, 0, 0, 1, 0]), "synthetic": (y, y, y)})
    assert v.adopted and v.sets["staff"].fixed == [0, 2] and v.sets["synthetic"].errors_after == 0


def test_turning_more_students_away_is_refused_even_at_equal_errors():
    y = [1] * 10 + [0] * 10
    before = [1] * 10 + [0] * 9 + [1]  # one let through
    after = [1] * 9 + [0] + [0] * 10  # one turned away instead
    v = adoption.decide({"staff": (y, before, after)})
    assert not v.adopted and "turns more cases away" in v.reason
    assert adoption.decide({"staff": (y, before, after)}, max_protected_rise=0.1).adopted


def test_a_small_rise_within_tolerance_is_accepted_but_a_sure_one_is_not():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 1000)
    before = y.copy()
    after = y.copy()
    after[np.flatnonzero(y == 0)[:3]] = 1  # three more let through in 1000: 0.3 points
    assert adoption.decide({"syn": (y, before, after)}, tolerance=0.005).adopted
    after[np.flatnonzero(y == 0)[:40]] = 1  # forty: sure and beyond tolerance
    assert not adoption.decide({"syn": (y, before, after)}, tolerance=0.005).adopted


def test_nothing_to_compare_never_adopts():
    assert not adoption.decide({"staff": ([], [], [])}).adopted
