"""Agreement and text-similarity measures for the judge, the digest and the answer evaluation."""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

# Staff decisions on an ordinal scale (higher = better draft).
REJECTED_INCORRECT, LARGE_EDIT, SMALL_EDIT, UNCHANGED = 1, 2, 3, 4
STAFF_LEVELS = (REJECTED_INCORRECT, LARGE_EDIT, SMALL_EDIT, UNCHANGED)
STAFF_LABELS = {UNCHANGED: "enviado sin cambios", SMALL_EDIT: "edición pequeña", LARGE_EDIT: "edición grande", REJECTED_INCORRECT: "rechazado: incorrecto"}
SMALL_EDIT_MAX = 0.2  # normalised edit distance up to which an edit counts as small
ACCEPTABLE_MIN = 3  # judge correctness 3-5 is acceptable, 1-2 unacceptable

_TOKEN = re.compile(r"\w+", re.UNICODE)
_COMBINING = re.compile(r"[\u0300-\u036f]")


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens without accents."""
    return _TOKEN.findall(_COMBINING.sub("", unicodedata.normalize("NFKD", text.lower())))


def token_f1(prediction: str, reference: str) -> float:
    """SQuAD-style token-level F1 between two texts (1.0 when both are empty)."""
    p, r = tokens(prediction), tokens(reference)
    if not p and not r:
        return 1.0
    common = sum((Counter(p) & Counter(r)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(r)
    return 2 * precision * recall / (precision + recall)


def token_precision(text: str, support: str) -> float:
    """Share of `text`'s tokens found in `support` (a reference-free grounding proxy)."""
    t = tokens(text)
    if not t:
        return 1.0
    have = Counter(tokens(support))
    return sum((Counter(t) & have).values()) / len(t)


def edit_distance(a: str, b: str) -> float:
    """Normalised Levenshtein distance in [0, 1] (0 = identical)."""
    from rapidfuzz.distance import Levenshtein

    return float(Levenshtein.normalized_distance(a.strip(), b.strip()))


def staff_level(action: str, reason: str | None, *, draft_text: str, final_text: str | None) -> int | None:
    """A staff decision on the ordinal scale; None for decisions that say nothing about correctness."""
    if action == "approve":
        return UNCHANGED
    if action == "edit":
        if final_text is None or edit_distance(draft_text, final_text) == 0:
            return UNCHANGED
        return SMALL_EDIT if edit_distance(draft_text, final_text) <= SMALL_EDIT_MAX else LARGE_EDIT
    if action == "reject" and reason == "incorrect":
        return REJECTED_INCORRECT
    return None


def judge_level(score: float) -> int:
    """A 1-5 judge correctness score on the staff scale: 1-2 rejected, 3 large edit, 4 small edit, 5 unchanged."""
    s = int(round(score))
    return {1: REJECTED_INCORRECT, 2: REJECTED_INCORRECT, 3: LARGE_EDIT, 4: SMALL_EDIT, 5: UNCHANGED}[max(1, min(5, s))]


def acceptable(score: float) -> bool:
    return score >= ACCEPTABLE_MIN


def weighted_kappa(a: Sequence[int], b: Sequence[int], *, labels: Sequence[int] = STAFF_LEVELS, weights: str = "quadratic") -> float | None:
    """Weighted Cohen's kappa; None when undefined (fewer than 2 pairs or no variation at all)."""
    if len(a) != len(b):
        raise ValueError("both raters must rate the same items")
    if len(a) < 2:
        return None
    import warnings

    from sklearn.metrics import cohen_kappa_score

    with warnings.catch_warnings():  # undefined kappa (no variation) is reported as None below
        warnings.simplefilter("ignore")
        value = float(cohen_kappa_score(list(a), list(b), labels=list(labels), weights=weights))
    return None if math.isnan(value) else value


def spearman(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Spearman's rank correlation; None when undefined (fewer than 3 pairs or a constant side)."""
    if len(a) != len(b):
        raise ValueError("both sides must have the same length")
    if len(a) < 3 or len(set(a)) < 2 or len(set(b)) < 2:
        return None
    from scipy.stats import spearmanr

    value = float(spearmanr(a, b).statistic)
    return None if math.isnan(value) else value


def confusion(judge_ok: Sequence[bool], staff_ok: Sequence[bool]) -> dict[str, int]:
    """Acceptable/unacceptable confusion matrix, judge against staff."""
    from sklearn.metrics import confusion_matrix

    if not judge_ok:
        return {"both_acceptable": 0, "judge_only": 0, "staff_only": 0, "both_unacceptable": 0}
    m = confusion_matrix(list(staff_ok), list(judge_ok), labels=[True, False])
    return {"both_acceptable": int(m[0][0]), "staff_only": int(m[0][1]), "judge_only": int(m[1][0]), "both_unacceptable": int(m[1][1])}


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (linear interpolation), None for no values."""
    if not values:
        return None
    import numpy as np

    return float(np.percentile(list(values), q))


def rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None
