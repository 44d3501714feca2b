"""Adoption compares current and candidate on unseen cases: never adopts a worse model, states its uncertainty."""

from __future__ import annotations

import numpy as np
import pytest

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


def test_one_message_worse_on_the_cross_validated_staff_decisions_is_refused_with_the_gate_defaults():
    """The gate's settings (classifiers.retraining.LearningOptions): one more error than the current gate among 100
    held-out staff decisions (one fixed, two broken) refuses, while the synthetic held-out is unchanged."""
    from classifiers.retraining import LearningOptions

    o = LearningOptions()
    y = np.array([1] * 50 + [0] * 50)
    before = y.copy()
    before[[0, 1]] = 0  # two mistakes
    after = y.copy()
    after[0] = 0  # one of them stays, the other is fixed ...
    after[[60, 61]] = 1  # ... and two right verdicts break: one message worse
    syn = np.array([1, 0] * 3000)
    v = adoption.decide({"staff_decisions": (y, before, after), "synthetic_heldout": (syn, syn, syn)}, tolerance=o.tolerance, margin=o.margin, max_protected_rise=o.max_protected_rise)
    assert not v.adopted and "worse on staff_decisions: 2 -> 3" in v.reason
    assert adoption.decide({"staff_decisions": (y, before, before), "synthetic_heldout": (syn, syn, syn)}, tolerance=o.tolerance, margin=o.margin).adopted


def test_a_margin_refuses_when_the_set_cannot_tell_and_accepts_when_it_can():
    y = np.array([1, 0] * 10)
    before, after = y.copy(), y.copy()
    before[:2] = 1 - before[:2]
    after[:1] = 1 - after[:1]
    after[5] = 1 - after[5]  # one fixed, one broken on 20: equal errors, but the interval reaches well above 1 point
    assert adoption.decide({"s": (y, before, after)}).adopted
    v = adoption.decide({"s": (y, before, after)}, margin=0.01)
    assert not v.adopted and "not surely no worse" in v.reason
    big = np.array([1, 0] * 3000)
    b2, a2 = big.copy(), big.copy()
    a2[:3] = 1 - a2[:3]  # three more errors in 6000: surely under half a point
    assert adoption.decide({"s": (big, b2, a2)}, tolerance=0.005, margin=0.005, protected_label=None).adopted


def test_scores_surely_worse_refuse_even_at_equal_errors():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 400)
    pred = y.copy()
    p_before = np.where(y == 1, 0.9, 0.1)
    p_after = np.where(y == 1, 0.6, 0.4)  # same side everywhere, drifting towards the threshold
    v = adoption.decide({"staff": (y, pred, pred)}, scores={"staff": (p_before, p_after)})
    c = v.sets["staff"]
    assert not v.adopted and "scores surely worse" in v.reason and c.brier_after > c.brier_before and c.brier_interval[0] > 0
    assert adoption.decide({"staff": (y, pred, pred)}, scores={"staff": (p_after, p_before)}).adopted  # better scores: adopted
    assert "brier_interval" in v.as_dict()["sets"]["staff"]


def test_the_middle_ground_lets_one_more_error_through_only_when_the_scores_are_surely_better():
    y = np.array([1] * 50 + [0] * 50)
    before = y.copy()
    after = y.copy()
    after[60] = 1  # one message worse (an out-of-domain one let through: no student turned away)
    better = (np.where(y == 1, 0.6, 0.4), np.where(y == 1, 0.9, 0.1))
    better[1][60] = 0.55
    worse_scores = (better[1], better[0])
    sets = {"staff_decisions": (y, before, after)}
    assert not adoption.decide(sets, scores={"staff_decisions": better}).adopted  # no allowance: refused
    v = adoption.decide(sets, scores={"staff_decisions": better}, brier_allowance={"staff_decisions": 1})
    assert v.adopted and v.sets["staff_decisions"].brier_interval[1] < 0, v.reason
    assert not adoption.decide(sets, scores={"staff_decisions": worse_scores}, brier_allowance={"staff_decisions": 1}).adopted  # scores not better
    after2 = after.copy()
    after2[61] = 1  # two more errors: beyond the allowance
    assert not adoption.decide({"staff_decisions": (y, before, after2)}, scores={"staff_decisions": better}, brier_allowance={"staff_decisions": 1}).adopted
    after3 = y.copy()
    after3[0] = 0  # one more error that turns a student away: the protected check still refuses
    v3 = adoption.decide({"staff_decisions": (y, before, after3)}, scores={"staff_decisions": better}, brier_allowance={"staff_decisions": 1})
    assert not v3.adopted and "turns more cases away" in v3.reason
    assert adoption.judge(v.sets, brier_allowance={"staff_decisions": 1}).adopted  # the same rule read from evidence already made


def test_a_candidate_that_only_trades_mistakes_is_refused_where_a_gain_is_required():
    """Equal error counts can hide a worse model: 3 staff decisions fixed, 3 others broken, and 2 more synthetic errors
    (the shape of a retrain that later made 3 more mistakes on unseen mail). Requiring a gain on the staff decisions
    refuses it, and the flips each way and the McNemar p-value are reported."""
    y = np.array([1] * 50 + [0] * 50)
    before = y.copy()
    before[[0, 1, 2, 60, 61]] = 1 - before[[0, 1, 2, 60, 61]]
    after = y.copy()
    after[[60, 61]] = 1 - after[[60, 61]]  # 0, 1, 2 fixed ...
    after[[70, 71, 72]] = 1  # ... three out-of-domain ones broken: 5 -> 5 errors
    syn = np.array([1, 0] * 3000)
    s_after = syn.copy()
    s_after[[1, 3]] = 1  # two more let through in 6000
    sets = {"staff_decisions": (y, before, after), "synthetic_heldout": (syn, syn, s_after)}
    assert adoption.decide(sets, tolerance={"synthetic_heldout": 0.005}).adopted  # no worse by count: the old rule adopts
    v = adoption.decide(sets, tolerance={"synthetic_heldout": 0.005}, require_gain=("staff_decisions",))
    assert not v.adopted and "no gain on staff_decisions: 3 fixed, 3 broken" in v.reason, v.reason
    d = v.as_dict()["sets"]["staff_decisions"]
    assert (d["n_fixed"], d["n_broken"]) == (3, 3) and d["mcnemar_p"] == 1.0
    after[72] = 0  # one broken fewer: a net gain of one
    assert adoption.decide(sets | {"staff_decisions": (y, before, after)}, tolerance={"synthetic_heldout": 0.005}, require_gain=("staff_decisions",)).adopted
    assert not adoption.decide(sets | {"staff_decisions": (y, before, after)}, require_gain=("staff_decisions",)).adopted  # two more synthetic errors: worse there


def test_mcnemar_p_of_the_flips():
    assert adoption.mcnemar_p(0, 0) == 1.0
    assert adoption.mcnemar_p(8, 0) < 0.01 < adoption.mcnemar_p(5, 2)


def test_a_sure_rise_of_in_domain_cases_turned_away_is_refused_where_asked_however_small():
    """30 more in-domain questions turned away among 3000 (fewer errors overall: more out-of-domain ones caught) stays
    under a 1-point allowance, but is a sure rise: refused on the sets named in `protected_surely`."""
    y = np.array([1] * 3000 + [0] * 3000)
    before = y.copy()
    before[3000:3100] = 1  # 100 let through
    after = y.copy()
    after[:30] = 0  # 30 turned away ...
    after[3000:3050] = 1  # ... 50 let through: 100 -> 80 errors
    sets = {"synthetic_heldout": (y, before, after)}
    assert adoption.decide(sets, max_protected_rise=0.01).adopted
    v = adoption.decide(sets, max_protected_rise=0.01, protected_surely=("synthetic_heldout",))
    assert not v.adopted and "surely turns more cases away on synthetic_heldout: 0 -> 30 of 3000" in v.reason, v.reason
    assert v.sets["synthetic_heldout"].protected_interval[0] > 0
    after[:30] = 1
    after[:2] = 0  # two turned away: not sure
    assert adoption.decide(sets | {"synthetic_heldout": (y, before, after)}, max_protected_rise=0.01, protected_surely=("synthetic_heldout",)).adopted


def test_a_gain_chance_alone_gives_is_refused_and_a_sure_one_is_adopted():
    """The retrain that fixed 4 staff decisions out of fold and broke 1, then made more mistakes on the unseen half than
    the gate it replaced: 'more fixed than broken' adopts it; a sure gain (one-sided sign test at 0.1) does not. Four fixed
    and none broken, or seven against two, is a gain chance alone rarely gives, and is adopted."""
    y = np.array([1] * 50 + [0] * 50)

    def sets(fixed: int, broken: int):
        before, after = y.copy(), y.copy()
        before[:fixed] = 1 - before[:fixed]  # wrong before, right after
        after[50:50 + broken] = 1  # right before, out of domain let through after
        return {"staff_decisions": (y, before, after)}

    assert adoption.gain_p(4, 1) == pytest.approx(6 / 32) and adoption.gain_p(4, 0) == pytest.approx(1 / 16) and adoption.gain_p(0, 0) == 1.0
    assert adoption.decide(sets(4, 1), require_gain=("staff_decisions",)).adopted  # the plain gain rule
    v = adoption.decide(sets(4, 1), require_gain=("staff_decisions",), gain_alpha=0.1)
    assert not v.adopted and "no sure gain on staff_decisions: 4 fixed, 1 broken" in v.reason and "p 0.188" in v.reason, v.reason
    assert adoption.decide(sets(4, 0), require_gain=("staff_decisions",), gain_alpha=0.1).adopted
    assert adoption.decide(sets(7, 2), require_gain=("staff_decisions",), gain_alpha=0.1).adopted
    assert not adoption.decide(sets(5, 1), require_gain=("staff_decisions",), gain_alpha=0.1).adopted  # p 0.11
    assert adoption.decide(sets(4, 1), gain_alpha=0.1).adopted  # only on the sets where a gain is required
    assert not adoption.judge(v.sets, require_gain=("staff_decisions",), gain_alpha=0.1).adopted  # the same rule read from evidence already made
