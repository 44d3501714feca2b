"""Calibrating what drafts claim against what staff did: the offline readiness label and the reuse of approved answers.

A draft labelled «listo» (or made from an approved answer) claims it can be sent as it is; staff approving it unchanged
confirms the claim, an edit or a rejection refutes it. For each claim this measures its precision with a bootstrap
interval and tries one stricter rule: a minimum on one of the measures the draft recorded (the readiness flag's
`evidence`, the reuse flag's similarity and lexical agreement). The rule is learnt on part of the decisions and judged on
the others (k-fold cross-validation) with `classifiers.adoption.decide`; it is proposed only when it makes fewer
mistakes on the held-out decisions than the rule in use (or the label as drafting gave it), surely (the bootstrap interval
of the change lies below zero), and never lets more unsendable drafts through. Otherwise the label stays as it is and the
report says why.

An adopted rule is stored (`adopt_calibration`, the `orienta answers calibrate` command) and applied: to new offline
drafts' readiness labels (`pipeline.generation.readiness.apply_rule`, in the drafting step) and as a minimum on the reuse
of approved answers (`bot.learning.answer_memory`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from sqlmodel import Session, select

from classifiers.adoption import decide
from review.claims import REUSE_FEATURES, Case, cases as claim_cases, precision
from review.models import Decision, Draft

if TYPE_CHECKING:
    from bot.wiring.services import Services

log = logging.getLogger(__name__)
KINDS = ("readiness", "reuse")

READINESS_FEATURES = ("confidence", "object_share", "top_object_share", "own_object_share")
MIN_CASES = 30  # fewer decisions on drafts claiming to be ready: too thin to learn a rule from
FOLDS = 5

__all__ = ["Case", "Rule", "adopt_calibration", "calibrate", "calibration_report", "fit_rule", "rule_in_use"]


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

    @classmethod
    def from_dict(cls, d: dict | None) -> "Rule | None":
        try:
            return cls(str(d["feature"]), float(d["minimum"])) if d else None
        except (KeyError, TypeError, ValueError):
            return None


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


def calibrate(cases: Sequence[Case], features: Sequence[str], *, current: Rule | None = None, folds: int = FOLDS, min_cases: int = MIN_CASES, seed: int = 0) -> dict:
    """Precision of the claim (with its 95% interval) and the stricter rule, adopted only when better on held-out
    decisions than `current` (the rule in use; None: the label as drafting gives it)."""
    claimed = [c for c in cases if c.claimed]
    out: dict = precision(cases, seed=seed) | {"rule": None, "adopted": False, "current_rule": current.as_dict() if current else None}
    if len(claimed) < min_cases:
        out["reason"] = f"too few decisions on drafts claiming to be ready ({len(claimed)} < {min_cases}): " + ("the rule in use stays" if current else "the label stays as it is")
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
    in_use = [int(current.keeps(c) if current else c.claimed) for c in cases]
    verdict = decide({"staff_decisions_cv": (y, in_use, held_out.astype(int).tolist())}, protected_label=0, seed=seed)
    cmp = verdict.sets["staff_decisions_cv"]
    out["held_out"] = {"errors_before": cmp.errors_before, "errors_after": cmp.errors_after, "n": cmp.n, "change": round(cmp.error_rate_change, 4), "interval": [round(v, 4) for v in cmp.interval], "let_through_before": cmp.protected_before, "let_through_after": cmp.protected_after}
    proposed = fit_rule(cases, features)
    if proposed is None or proposed == current or not verdict.adopted or cmp.errors_after >= cmp.errors_before or cmp.interval[1] >= 0:
        kept = "the rule in use stays" if current else "the label stays as it is"
        out["reason"] = f"no {'other' if current else 'stricter'} rule is surely better on held-out decisions ({cmp.errors_before} -> {cmp.errors_after} errors of {cmp.n}, change 95% [{cmp.interval[0]:+.3f}, {cmp.interval[1]:+.3f}]): {kept}"
        return out
    kept = [c for c in claimed if proposed.keeps(c)]
    out |= {
        "rule": proposed.as_dict(), "adopted": True,
        "reason": f"a minimum {proposed.feature} >= {proposed.minimum:g} is better on held-out decisions ({cmp.errors_before} -> {cmp.errors_after} errors of {cmp.n}, change 95% [{cmp.interval[0]:+.3f}, {cmp.interval[1]:+.3f}])",
        "precision_after": round(sum(c.sent for c in kept) / len(kept), 4) if kept else None, "claimed_after": len(kept),
    }
    return out


def calibration_report(session: Session, *, current: dict[str, Rule | None] | None = None, folds: int = FOLDS, min_cases: int = MIN_CASES, seed: int = 0) -> dict:
    """Both claims measured on every staff decision: {"readiness": ..., "reuse": ...} (see `calibrate`), each against
    the rule in use (`current`)."""
    found = claim_cases(decided_drafts(session))
    current = current or {}
    return {
        "readiness": calibrate(found["readiness"], READINESS_FEATURES, current=current.get("readiness"), folds=folds, min_cases=min_cases, seed=seed),
        "reuse": calibrate(found["reuse"], REUSE_FEATURES, current=current.get("reuse"), folds=folds, min_cases=min_cases, seed=seed),
    }


def calibration_path(services: "Services") -> Path:
    """Where the adopted rules are kept (per office: its drafts, its staff)."""
    return services.settings.paths.office_dir / "models" / "claims_calibration.json"


def stored_rules(path: Path) -> dict[str, Rule | None]:
    """The adopted rules ({"readiness": Rule | None, "reuse": ...}); none when the file is missing or unreadable."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {kind: Rule.from_dict((data.get(kind) or {}).get("rule")) for kind in KINDS if isinstance(data, dict)}


def rule_in_use(services: "Services", kind: str) -> Rule | None:
    """The adopted rule for `kind` ("readiness" or "reuse"), or None: what drafting applies."""
    return stored_rules(calibration_path(services)).get(kind)


def adopt_calibration(services: "Services", *, min_cases: int = MIN_CASES, store: bool = True) -> dict:
    """Calibrate both claims against the rules in use and store the ones adopted (the others stay as they are); the
    report says, per claim, the rule in use after this run (`rule_in_use`) and whether it was stored."""
    from review.db import session_scope

    path = calibration_path(services)
    current = stored_rules(path)
    with session_scope(services.engine) as session:
        report = calibration_report(session, current=current, min_cases=min_cases)
    changed = False
    try:
        kept = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, ValueError):
        kept = {}
    for kind in KINDS:
        r = report[kind]
        r["stored"] = False
        if r["adopted"] and store:
            kept[kind] = {"rule": r["rule"], "reason": r["reason"], "held_out": r.get("held_out")}
            r["stored"] = changed = True
        in_use = Rule.from_dict(r["rule"]) if r["stored"] else current.get(kind)
        r["rule_in_use"] = in_use.as_dict() if in_use else None
    if changed:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".json.new")
        tmp.write_text(json.dumps(kept, indent=2, ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)
        log.info("calibrated rules stored in %s: %s", path, {k: v["rule"] for k, v in kept.items()})
    report["path"] = str(path)
    return report
