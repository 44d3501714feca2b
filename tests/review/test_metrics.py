"""Agreement and similarity measures on small cases worked out by hand."""

from __future__ import annotations

import pytest

from review import metrics


def test_weighted_kappa_by_hand():
    # staff 4,3,2,1 vs judge 4,2,3,1 on 4 levels, quadratic weights (i-j)^2/9:
    # observed (1/9 + 1/9)/4 = 1/18; expected sum (i-j)^2 / 9 / 16 = 40/144 = 5/18; kappa = 1 - (1/18)/(5/18)
    assert metrics.weighted_kappa([4, 3, 2, 1], [4, 2, 3, 1]) == pytest.approx(0.8)
    # linear weights |i-j|/3: observed (1/3+1/3)/4 = 1/6; expected sum|i-j| = 20 -> 20/3/16 = 5/12; kappa = 1 - 2/5
    assert metrics.weighted_kappa([4, 3, 2, 1], [4, 2, 3, 1], weights="linear") == pytest.approx(0.6)
    assert metrics.weighted_kappa([4, 3], [4, 3]) == pytest.approx(1.0)


def test_kappa_and_spearman_undefined_are_none_not_nan():
    assert metrics.weighted_kappa([4], [4]) is None
    assert metrics.weighted_kappa([4, 4, 4], [4, 4, 4]) is None  # no variation: 0/0
    assert metrics.spearman([1, 2], [1, 2]) is None
    assert metrics.spearman([3, 3, 3], [1, 2, 3]) is None
    with pytest.raises(ValueError):
        metrics.weighted_kappa([1, 2], [1])


def test_spearman_by_hand():
    # ranks 4,2,3,1 vs 4,3,2,1: sum d^2 = 2, rho = 1 - 6*2/(4*(16-1))
    assert metrics.spearman([5, 3, 4, 2], [4, 3, 2, 1]) == pytest.approx(0.8)
    assert metrics.spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)


def test_confusion_matrix():
    judge = [True, True, False, False, True]
    staff = [True, False, False, True, True]
    assert metrics.confusion(judge, staff) == {"both_acceptable": 2, "staff_only": 1, "judge_only": 1, "both_unacceptable": 1}
    assert metrics.confusion([], []) == {"both_acceptable": 0, "judge_only": 0, "staff_only": 0, "both_unacceptable": 0}


def test_text_measures():
    assert metrics.edit_distance("abcd", "abcd") == 0.0
    assert metrics.edit_distance("abcd", "abce") == 0.25
    assert metrics.edit_distance("abc", "xyz") == 1.0
    # 5 of 6 tokens shared each way
    assert metrics.token_f1("Inscripciones hasta el 10 de marzo.", "inscripciones hasta el 12 de MARZO") == pytest.approx(5 / 6)
    assert metrics.token_f1("", "") == 1.0 and metrics.token_f1("a", "") == 0.0
    assert metrics.token_f1("Información", "informacion") == 1.0  # accents and case folded
    assert metrics.token_precision("cierra el lunes", "la inscripción cierra el viernes") == pytest.approx(2 / 3)


def test_staff_and_judge_scales():
    assert metrics.staff_level("approve", None, draft_text="x", final_text=None) == metrics.UNCHANGED
    assert metrics.staff_level("edit", None, draft_text="abcdefghij", final_text="abcdefghiX") == metrics.SMALL_EDIT
    assert metrics.staff_level("edit", None, draft_text="abc", final_text="xyz") == metrics.LARGE_EDIT
    assert metrics.staff_level("edit", None, draft_text="abc", final_text="abc") == metrics.UNCHANGED
    assert metrics.staff_level("reject", "incorrect", draft_text="x", final_text=None) == metrics.REJECTED_INCORRECT
    assert metrics.staff_level("reject", "spam", draft_text="x", final_text=None) is None
    assert [metrics.judge_level(s) for s in (1, 2, 3, 4, 5)] == [1, 1, 2, 3, 4]
    assert [metrics.acceptable(s) for s in (2, 3)] == [False, True]
    assert metrics.percentile([10, 20, 30, 60, 90, 120], 90) == 105.0 and metrics.percentile([], 50) is None
