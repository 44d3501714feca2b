"""Calibrating what drafts claim against what staff did: the offline readiness label and the reuse of approved answers.

A draft labelled «listo» (or made from an approved answer) claims it can be sent as it is; staff approving it unchanged
confirms the claim, an edit or a rejection refutes it. For each claim this measures its precision with a bootstrap
interval and tries one stricter rule: a minimum on one of the measures the draft recorded (the readiness flag's
`evidence`, the reuse flag's similarity and lexical agreement). The rule is learnt on part of the decisions and judged on
the others (k-fold cross-validation) with `classifiers.adoption.decide`; it is proposed only when it makes fewer
mistakes on the held-out decisions, surely (the bootstrap interval of the change lies below zero), and never lets more
unsendable drafts through. Otherwise the label stays as it is and the report says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from sqlmodel import Session, select

from classifiers.adoption import decide
from review.claims import REUSE_FEATURES, Case, cases as claim_cases, precision
from review.models import Decision, Draft

READINESS_FEATURES = ("confidence", "object_share", "top_object_share", "own_object_share")
MIN_CASES = 30  # fewer decisions on drafts claiming to be ready: too thin to learn a rule from
FOLDS = 5

__all__ = ["Case", "Rule", "calibrate", "calibration_report", "fit_rule"]


@dataclass(slots=True)
class Rule:
    """A draft keeps its claim only when `feature` is at least `minimum` (a draft that did not record it keeps its claim)."""

    feature: str
    minimum: float

    def keeps(self, case: Case) -> bool:
        value = case.features.get(self.feature)
        return case.claimed and (value is None or value >= self.minimum)

    def as_dict(self) -> dict:
        return {"feature": self.feature, "minimum": self.minimum}


def decided_drafts(session: Session) -> list[tuple[Draft, Decision]]:
    """Every decision with the draft it was made on."""
    return list(session.exec(select(Draft, Decision).join(Decision, Decision.draft_id == Draft.id).order_by(Decision.id)).all())


def _errors(cases: Sequence[Case], keep) -> int:
    return sum(keep(c) != c.sent for c in cases)


def fit_rule(cases: Sequence[Case], features: Iterable[str]) -> Rule | None:
    """The minimum on one feature that makes the fewest mistakes on `cases` (a claim kept must be sent unchanged); None
    when no minimum does better than the claim as it is. Ties go to the least strict rule."""
    best: tuple[int, Rule] | None = None
    base = _errors(cases, lambda c: c.claimed)
    for feature in features:
        values = sorted({c.features[feature] for c in cases if c.claimed and feature in c.features})
        for minimum in values[1:]:  # the lowest value would keep every claim
            rule = Rule(feature, minimum)
            errors = _errors(cases, rule.keeps)
            if errors < base and (best is None or errors < best[0]):
                best = (errors, rule)
    return best[1] if best else None


def calibrate(cases: Sequence[Case], features: Sequence[str], *, folds: int = FOLDS, min_cases: int = MIN_CASES, seed: int = 0) -> dict:
    """Precision of the claim (with its 95% interval) and the stricter rule, proposed only on held-out evidence."""
    claimed = [c for c in cases if c.claimed]
    out: dict = precision(cases, seed=seed) | {"rule": None, "adopted": False}
    if len(claimed) < min_cases:
        out["reason"] = f"too few decisions on drafts claiming to be ready ({len(claimed)} < {min_cases}): the label stays as it is"
        return out
    order = np.random.default_rng(seed).permutation(len(cases))
    held_out = np.empty(len(cases), dtype=bool)
    for k in range(folds):  # each decision judged by a rule learnt without it
        test = order[k::folds]
        train_idx = np.setdiff1d(order, test)
        rule = fit_rule([cases[i] for i in train_idx], features)
        for i in test:
            held_out[i] = rule.keeps(cases[i]) if rule else cases[i].claimed
    y = [int(c.sent) for c in cases]
    current = [int(c.claimed) for c in cases]
    verdict = decide({"staff_decisions_cv": (y, current, held_out.astype(int).tolist())}, protected_label=0, seed=seed)
    cmp = verdict.sets["staff_decisions_cv"]
    out["held_out"] = {"errors_before": cmp.errors_before, "errors_after": cmp.errors_after, "n": cmp.n, "change": round(cmp.error_rate_change, 4), "interval": [round(v, 4) for v in cmp.interval], "let_through_before": cmp.protected_before, "let_through_after": cmp.protected_after}
    proposed = fit_rule(cases, features)
    if proposed is None or not verdict.adopted or cmp.errors_after >= cmp.errors_before or cmp.interval[1] >= 0:
        out["reason"] = f"no stricter rule is surely better on held-out decisions ({cmp.errors_before} -> {cmp.errors_after} errors of {cmp.n}, change 95% [{cmp.interval[0]:+.3f}, {cmp.interval[1]:+.3f}]): the label stays as it is"
        return out
    kept = [c for c in claimed if proposed.keeps(c)]
    out |= {
        "rule": proposed.as_dict(), "adopted": True,
        "reason": f"a minimum {proposed.feature} >= {proposed.minimum:g} is better on held-out decisions ({cmp.errors_before} -> {cmp.errors_after} errors of {cmp.n}, change 95% [{cmp.interval[0]:+.3f}, {cmp.interval[1]:+.3f}])",
        "precision_after": round(sum(c.sent for c in kept) / len(kept), 4) if kept else None, "claimed_after": len(kept),
    }
    return out


def calibration_report(session: Session, *, folds: int = FOLDS, min_cases: int = MIN_CASES, seed: int = 0) -> dict:
    """Both claims measured on every staff decision: {"readiness": ..., "reuse": ...} (see `calibrate`)."""
    found = claim_cases(decided_drafts(session))
    return {
        "readiness": calibrate(found["readiness"], READINESS_FEATURES, folds=folds, min_cases=min_cases, seed=seed),
        "reuse": calibrate(found["reuse"], REUSE_FEATURES, folds=folds, min_cases=min_cases, seed=seed),
    }
