"""Adopting a model learnt from staff: a new one replaces the current one only when it is no worse on unseen cases.

Reusable by any learner (the gate, the readiness label, answer reuse, routing between offices): give it, for each
evaluation set, the true labels and the current and candidate predictions on cases neither was trained on (cross-
validated staff decisions, a synthetic held-out). Adoption needs, on every set, no more errors than the current model
and no more of the protected error (e.g. a student turned away) than `max_protected_rise` allows; each set's error
difference comes with a paired bootstrap interval so a reader sees how sure the comparison is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np


@dataclass(slots=True)
class SetComparison:
    """Current vs candidate on one evaluation set."""

    n: int
    errors_before: int
    errors_after: int
    protected_before: int  # the costly error (e.g. in-domain turned away)
    protected_after: int
    n_protected: int  # cases where that error is possible (e.g. in-domain cases)
    fixed: list[int] = field(default_factory=list)  # indices wrong before, right after
    broken: list[int] = field(default_factory=list)  # right before, wrong after
    error_rate_change: float = 0.0  # after - before, as a share of n
    interval: tuple[float, float] = (0.0, 0.0)  # 95% paired bootstrap interval of that change
    # given each case's score (probability of the positive label) under both models: the mean Brier score before and
    # after and the 95% paired bootstrap interval of its change. Far more sensitive than error counts on a small set: a
    # candidate pushing unseen cases towards the wrong side shows here before it shows as one more error.
    brier_before: float | None = None
    brier_after: float | None = None
    brier_interval: tuple[float, float] | None = None
    # 95% paired bootstrap interval of the change in the protected error's rate, over the protected cases only
    protected_interval: tuple[float, float] = (0.0, 0.0)

    @property
    def protected_rise(self) -> float:
        """Points (share of the protected cases) by which the costly error rose."""
        return (self.protected_after - self.protected_before) / max(1, self.n_protected)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["protected_rise"] = self.protected_rise
        d["n_fixed"], d["n_broken"] = len(self.fixed), len(self.broken)
        d["mcnemar_p"] = mcnemar_p(len(self.fixed), len(self.broken))
        d["interval"] = list(self.interval)
        if self.brier_interval is not None:
            d["brier_interval"] = list(self.brier_interval)
        d["protected_interval"] = list(self.protected_interval)
        return d


@dataclass
class AdoptionVerdict:
    """Whether to adopt, why, and the per-set comparisons behind it."""

    adopted: bool
    reason: str
    sets: dict[str, SetComparison] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"adopted": self.adopted, "reason": self.reason, "sets": {k: v.as_dict() for k, v in self.sets.items()}}


def paired_bootstrap(wrong_before: np.ndarray, wrong_after: np.ndarray, *, n_boot: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% interval of the change in error rate (after - before), resampling cases with both verdicts paired (also used
    for any per-case loss, e.g. the Brier score)."""
    diff = np.asarray(wrong_after, dtype=np.float64) - np.asarray(wrong_before, dtype=np.float64)
    if len(diff) == 0:
        return 0.0, 0.0
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(diff), size=(n_boot, len(diff)))
    means = diff[idx].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def compare(y: Sequence[int], before: Sequence[int], after: Sequence[int], *, protected_label: int | None = 1, seed: int = 0,
            scores: tuple[Sequence[float], Sequence[float]] | None = None) -> SetComparison:
    """Errors, the protected error (a case of `protected_label` predicted otherwise), flips and the bootstrap interval;
    given `scores` (each model's probability that the case is label 1), the paired Brier comparison too."""
    y_, b, a = (np.asarray(v, dtype=np.int64) for v in (y, before, after))
    if not (len(y_) == len(b) == len(a)):
        raise ValueError("labels and both predictions must have the same length")
    wb, wa = b != y_, a != y_
    prot = (y_ == protected_label) if protected_label is not None else np.zeros(len(y_), dtype=bool)
    return SetComparison(
        n=len(y_), errors_before=int(wb.sum()), errors_after=int(wa.sum()),
        protected_before=int((wb & prot).sum()), protected_after=int((wa & prot).sum()), n_protected=int(prot.sum()),
        fixed=np.flatnonzero(wb & ~wa).tolist(), broken=np.flatnonzero(~wb & wa).tolist(),
        error_rate_change=float(wa.mean() - wb.mean()) if len(y_) else 0.0, interval=paired_bootstrap(wb, wa, seed=seed),
        protected_interval=paired_bootstrap(wb[prot], wa[prot], seed=seed),
        **_brier(y_, scores, seed),
    )


# a bootstrap over a handful of cases cannot say 'surely': three decisions that all moved the same way give an interval
# above zero by resampling alone, so the Brier check speaks only from this many cases on
MIN_BRIER_CASES = 20


def _brier(y: np.ndarray, scores, seed: int) -> dict:
    if scores is None or len(y) == 0:
        return {}
    pb, pa = (np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0) for p in scores)
    if not (len(pb) == len(pa) == len(y)):
        raise ValueError("scores must cover every case")
    t = (y == 1).astype(np.float64)
    lb, la = (pb - t) ** 2, (pa - t) ** 2
    return {"brier_before": float(lb.mean()), "brier_after": float(la.mean()), "brier_interval": paired_bootstrap(lb, la, seed=seed)}


def _allowed(c: SetComparison, extra: int) -> bool:
    """The middle ground: at most `extra` more errors, on a set whose Brier score is surely better."""
    return bool(extra) and c.errors_after - c.errors_before <= extra and c.brier_interval is not None and c.n >= MIN_BRIER_CASES and c.brier_interval[1] < 0


def _per_set(value: float | Mapping[str, float], name: str) -> float:
    return float(value.get(name, 0.0)) if isinstance(value, Mapping) else float(value)


def decide(
    sets: Mapping[str, tuple[Sequence[int], Sequence[int], Sequence[int]]],
    *,
    protected_label: int | None = 1,
    tolerance: float | Mapping[str, float] = 0.0,
    max_protected_rise: float | Mapping[str, float] = 0.0,
    seed: int = 0,
    scores: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
    margin: float | Mapping[str, float] | None = None,
    brier_allowance: Mapping[str, int] | None = None,
    require_gain: Sequence[str] = (),
    protected_surely: Sequence[str] = (),
    gain_alpha: float | None = None,
) -> AdoptionVerdict:
    """Adopt only when, on every set of (labels, current, candidate), the candidate is no worse: its error rate rises by no
    more than that set's `tolerance` (a share) and not surely (the bootstrap interval lies above zero), and the protected
    error rises by no more than `max_protected_rise`. With `margin` for a set, the candidate must moreover be surely no
    worse than that margin there (the upper end of the interval at most the margin: a set too small to tell refuses).
    With `scores` for a set (each model's probability of label 1 per case), the candidate is refused when its Brier score
    there is surely worse (interval above zero), even at equal errors. `brier_allowance` (the middle ground): on a set with
    scores, up to that many more errors are let through when its Brier score is surely better (interval below zero, from
    `MIN_BRIER_CASES` cases on); every other check still applies. On the sets named in `require_gain` the candidate must
    moreover fix more cases than it breaks: a retrain that only trades one set of mistakes for another is not adopted.
    With `gain_alpha`, that gain must moreover be sure: the one-sided exact sign test of the flips (fixed against broken,
    `gain_p`) at most `gain_alpha`, so that a few flips each way, which chance alone gives, are not taken for learning.
    An empty evaluation never adopts."""
    scores = scores or {}
    comparisons = {name: compare(*triple, protected_label=protected_label, seed=seed, scores=scores.get(name)) for name, triple in sets.items()}
    return judge(comparisons, tolerance=tolerance, max_protected_rise=max_protected_rise, margin=margin, brier_allowance=brier_allowance, require_gain=require_gain,
                 protected_surely=protected_surely, gain_alpha=gain_alpha)


def judge(comparisons: Mapping[str, SetComparison], *, tolerance: float | Mapping[str, float] = 0.0, max_protected_rise: float | Mapping[str, float] = 0.0,
          margin: float | Mapping[str, float] | None = None, brier_allowance: Mapping[str, int] | None = None, require_gain: Sequence[str] = (),
          protected_surely: Sequence[str] = (), gain_alpha: float | None = None) -> AdoptionVerdict:
    """`decide`'s rule on comparisons already made (so one piece of evidence can be read under several rules)."""
    comparisons = dict(comparisons)
    if not comparisons or all(c.n == 0 for c in comparisons.values()):
        return AdoptionVerdict(False, "no unseen cases to compare on", comparisons)
    for name, c in comparisons.items():
        lo, hi = c.interval
        if c.errors_after > c.errors_before and (c.error_rate_change > _per_set(tolerance, name) + 1e-12 or lo > 0) and not _allowed(c, (brier_allowance or {}).get(name, 0)):
            return AdoptionVerdict(False, f"worse on {name}: {c.errors_before} -> {c.errors_after} errors of {c.n} (change {c.error_rate_change:+.3f}, 95% [{lo:+.3f}, {hi:+.3f}])", comparisons)
        if c.protected_rise > _per_set(max_protected_rise, name) + 1e-12:
            return AdoptionVerdict(False, f"turns more cases away on {name}: {c.protected_before} -> {c.protected_after} of {c.n_protected}", comparisons)
        if name in protected_surely and c.n_protected >= MIN_BRIER_CASES and c.protected_interval[0] > 0:
            pl, ph = c.protected_interval
            return AdoptionVerdict(False, f"surely turns more cases away on {name}: {c.protected_before} -> {c.protected_after} of {c.n_protected} (95% [{pl:+.4f}, {ph:+.4f}])", comparisons)
        if margin is not None and (not isinstance(margin, Mapping) or name in margin) and c.n and hi > _per_set(margin, name) + 1e-12:
            return AdoptionVerdict(False, f"not surely no worse on {name}: {c.errors_before} -> {c.errors_after} errors of {c.n}, 95% [{lo:+.3f}, {hi:+.3f}] reaches above the margin {_per_set(margin, name):+.3f}", comparisons)
        if c.brier_interval is not None and c.n >= MIN_BRIER_CASES and c.brier_interval[0] > 0:
            bl, bh = c.brier_interval
            return AdoptionVerdict(False, f"scores surely worse on {name}: Brier {c.brier_before:.4f} -> {c.brier_after:.4f} (95% [{bl:+.4f}, {bh:+.4f}]) at {c.errors_before} -> {c.errors_after} errors", comparisons)
    # a regression on any set is the reason given before a gain missing on another
    for name, c in comparisons.items():
        if name in require_gain and len(c.fixed) <= len(c.broken):
            return AdoptionVerdict(False, f"no gain on {name}: {len(c.fixed)} fixed, {len(c.broken)} broken ({c.errors_before} -> {c.errors_after} errors of {c.n}, McNemar p {mcnemar_p(len(c.fixed), len(c.broken)):.2f})", comparisons)
        if name in require_gain and gain_alpha is not None and gain_p(len(c.fixed), len(c.broken)) > gain_alpha + 1e-12:
            return AdoptionVerdict(False, f"no sure gain on {name}: {len(c.fixed)} fixed, {len(c.broken)} broken ({c.errors_before} -> {c.errors_after} errors of {c.n}; "
                                          f"one-sided sign test p {gain_p(len(c.fixed), len(c.broken)):.3f} > {gain_alpha:.3f}: chance alone flips this many each way)", comparisons)
    summary = "; ".join(f"{n}: {c.errors_before} -> {c.errors_after} errors of {c.n}" for n, c in comparisons.items())
    return AdoptionVerdict(True, f"no worse on unseen cases ({summary})", comparisons)


def mcnemar_p(fixed: int, broken: int) -> float:
    """Two-sided exact McNemar p-value of the flips (cases fixed vs broken): how easily chance alone gives this split."""
    from scipy.stats import binomtest

    n = fixed + broken
    return 1.0 if n == 0 else float(binomtest(fixed, n, 0.5).pvalue)


def gain_p(fixed: int, broken: int) -> float:
    """One-sided exact sign test of the flips: the chance of at least `fixed` of the `fixed + broken` flipped cases going the
    candidate's way if each flip were a coin toss (1.0 without flips). 4 fixed against 1 broken: 0.19; 4 against 0: 0.06."""
    from scipy.stats import binom

    n = fixed + broken
    return 1.0 if n == 0 else float(binom.sf(fixed - 1, n, 0.5))


def proportion_interval(hits: Sequence[bool], *, n_boot: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% bootstrap interval of a share (e.g. the precision of a label: drafts called ready that staff sent unchanged)."""
    x = np.asarray(hits, dtype=np.float64)
    if len(x) == 0:
        return 0.0, 0.0
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, len(x), size=(n_boot, len(x)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))
