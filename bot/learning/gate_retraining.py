"""Retrain the gate from staff decisions: corrections weigh enough to matter, a memory of staff-labelled messages decides
close repeats, and the new gate replaces the old one only when it is no worse on every staff decision it did not learn
from (cross-validation) and on the synthetic held-out. A reviewer the gate keeps disagreeing with is set aside and named.
Safe to run every week; the last report is kept in the gate directory for the digest."""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sqlmodel import select

from bot.learning.gate_training import CachedQueries, TrainOptions, _corpus, curated_examples, feedback_examples, synthetic_examples, train
from bot.wiring.services import Services
from classifiers.errors import GateError
from classifiers.features import FeatureSpace
from classifiers.gate import Gate
from classifiers.retraining import LearningOptions, StaffLabel, learn_from_staff
from classifiers.synthetic import Example
from review.db import session_scope
from review.models import Decision, Draft, InboundMessage

log = logging.getLogger(__name__)
REPORT_FILE = "retraining.json"
DOUBT_SCORE = 0.7  # an in-domain verdict below this score counts as doubted
MAX_FLIPS_LISTED = 20


@dataclass
class RetrainReport:
    """What a retraining did, the unseen-case evidence and which past decisions flip."""

    n_feedback: int = 0
    n_corrections: int = 0
    n_heldout: int = 0  # staff decisions judged out of fold (all of them, by cross-validation)
    before: dict = field(default_factory=dict)  # staff decisions, out of fold: gate without staff learning
    after: dict = field(default_factory=dict)  # ... the candidate
    synthetic_before: dict = field(default_factory=dict)
    synthetic_after: dict = field(default_factory=dict)
    comparison: dict = field(default_factory=dict)  # per set: errors, in-domain turned away, bootstrap interval
    threshold: dict = field(default_factory=dict)
    flips: dict = field(default_factory=lambda: {"in_to_out": [], "out_to_in": []})
    reviewers: dict = field(default_factory=dict)
    set_aside: list[str] = field(default_factory=list)  # reviewers whose decisions were not learnt from
    memory: dict = field(default_factory=dict)
    # what was adopted: "classifier" (corrections weighted into a retrained classifier, with the memory), "memory" (the gate
    # in use unchanged, with the staff memory consulted first: always so below `min_decisions`), or "" (nothing)
    adopted_kind: str = ""
    min_decisions: int = 0
    memory_only: dict = field(default_factory=dict)  # the memory-alone candidate's out-of-fold evidence, when it was judged
    seconds: float = 0.0
    adopted: bool = False
    reason: str = ""

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _message_id(e: Example) -> int:
    return int((e.topic or "message:0").split(":", 1)[1])


def gate_views(services: Services) -> dict[int, tuple[bool, bool]]:
    """Per message: (the gate let it in, the gate doubted it: out of domain, without information, or a low score)."""
    out: dict[int, tuple[bool, bool]] = {}
    with session_scope(services.engine) as session:
        for draft, message in session.exec(select(Draft, InboundMessage).where(Draft.message_id == InboundMessage.id)).all():
            let_in = draft.gate_in_domain is not False and not draft.out_of_domain
            doubt = not let_in or draft.gate_outcome == "no_info" or (draft.gate_score is not None and draft.gate_score < DOUBT_SCORE)
            out[message.id] = (let_in, doubt)  # type: ignore[index]
    return out


def staff_labels(services: Services) -> list[StaffLabel]:
    """Every staff decision that says whether a message is the office's business, with reviewer, date and whether it
    corrected the gate ("fuera de dominio" on a message it let in, an approval of one it doubted)."""
    views = gate_views(services)
    who: dict[int, tuple[str, str]] = {}
    with session_scope(services.engine) as session:
        for d in session.exec(select(Decision)).all():
            who[d.message_id] = (d.actor, d.created_at.date().isoformat() if d.created_at else "")
    out = []
    for e in feedback_examples(services):
        mid = _message_id(e)
        let_in, doubt = views.get(mid, (True, False))
        correction = (e.label == 0 and let_in) or (e.label == 1 and doubt)
        reviewer, date = who.get(mid, ("", ""))
        out.append(StaffLabel(text=e.text, label=e.label, message_id=mid, reviewer=reviewer, date=date, correction=bool(correction), no_info=e.source == "feedback-no-info"))
    return out


def _options(services: Services) -> LearningOptions:
    g = services.settings.gate
    return LearningOptions(model=g.model, balanced=g.balanced, correction_weight=g.correction_weight, radius=g.memory_radius, min_in_recall=g.min_in_recall, staff_model=g.staff_model)


def _flips(current: Gate | None, candidate: Gate, staff: list[StaffLabel], embedder) -> dict:
    """Past decisions whose verdict the new gate changes, each direction, and whether the change agrees with staff."""
    flips: dict = {"in_to_out": [], "out_to_in": [], "agree_with_staff": 0, "disagree_with_staff": 0}
    if current is None or not staff:
        return flips
    texts = [s.text for s in staff]
    old = current.probabilities(texts, embedder) >= current.threshold
    new = candidate.probabilities(texts, embedder) >= candidate.threshold
    for s, a, b in zip(staff, old, new):
        if a == b:
            continue
        agrees = int(b) == s.label
        flips["agree_with_staff" if agrees else "disagree_with_staff"] += 1
        key = "in_to_out" if a else "out_to_in"
        if len(flips[key]) < MAX_FLIPS_LISTED:
            flips[key].append({"message_id": s.message_id, "text": s.text[:120], "staff_label": "in" if s.label else "out", "agrees_with_staff": agrees, "reviewer": s.reviewer})
    return flips


def _install(candidate: Gate, gate_dir: Path) -> None:
    """Replace the stored gate file by file, gate.json last: a reader never sees a half-written gate."""
    with tempfile.TemporaryDirectory(prefix="orienta-gate-") as tmp:
        candidate.save(Path(tmp))
        gate_dir.mkdir(parents=True, exist_ok=True)
        for name in ("gate.json", "gate.npz", "features.json", "features.npz"):
            shutil.copy2(Path(tmp) / name, gate_dir / f".{name}.new")
        for name in ("gate.npz", "features.json", "features.npz", "gate.json"):
            (gate_dir / f".{name}.new").replace(gate_dir / name)


def save_report(services: Services, report: RetrainReport) -> Path:
    path = services.settings.paths.gate_dir / REPORT_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report.as_dict(), indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    return path


def last_report(services: Services) -> dict | None:
    """The last retraining's report (adopted or not), for the digest."""
    path = services.settings.paths.gate_dir / REPORT_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def retrain_from_feedback(services: Services, *, options: LearningOptions | None = None, generator: str = "offline", near_misses: list[Example] | None = None) -> RetrainReport:
    """Learn a candidate gate from every staff decision, compare it out of fold with the gate that did not learn from
    them, and adopt it only if it is no worse; the report is stored for the digest either way.

    The one way orienta learns the gate from staff: `gate retrain`, the weekly job and `gate train --include-feedback`
    (which trains from the documents first, with `generator` and campus `near_misses`, then calls this)."""
    report = RetrainReport()
    staff = staff_labels(services)
    report.n_feedback, report.n_corrections = len(staff), sum(s.correction for s in staff)
    if not staff:
        report.reason = "no staff decisions to learn from"
        save_report(services, report)
        return report
    try:
        current: Gate | None = services.gate
    except GateError:
        current = None
    chunks, vectors, corpus_id = _corpus(services)
    synthetic, path = synthetic_examples(services, chunks, vectors, corpus_id, generator)
    synthetic = synthetic + list(near_misses or [])
    known = {e.text for e in synthetic}
    synthetic = synthetic + [e for e in curated_examples(services) if e.text not in known]
    g = services.settings.gate
    space = FeatureSpace.fit(current.features if current is not None else g.features, chunk_texts=[c.embed_text for c in chunks], chunk_vectors=vectors)
    embedder = CachedQueries(services)  # the gate step cached every judged message: only texts never seen are embedded
    options = options or _options(services)
    threshold = current.threshold if current is not None and not current.is_stale(corpus_id) else None
    # the memory alone is offered on the gate learnt from the documents: the one in use when it learnt nothing from staff
    current_gate = current if current is not None and not current.is_stale(corpus_id) and not current.meta.get("feedback_examples") else None
    result, report.reviewers, staff = learn_from_staff(synthetic, staff, space=space, embedder=embedder, current_threshold=threshold, options=options, current=current_gate)
    report.set_aside = sorted(who for who, r in report.reviewers.items() if r["flagged"])
    if report.set_aside:
        log.warning("gate retraining set aside the decisions of %s: the gate keeps disagreeing with them", ", ".join(report.set_aside))
    sets = result.verdict.sets
    report.n_heldout = sets["staff_decisions"].n if "staff_decisions" in sets else 0
    report.before, report.after = result.figures["staff_decisions"]["before"], result.figures["staff_decisions"]["after"]
    report.synthetic_before, report.synthetic_after = result.figures["synthetic_heldout"]["before"], result.figures["synthetic_heldout"]["after"]
    report.comparison = {k: {kk: vv for kk, vv in v.as_dict().items() if kk not in ("fixed", "broken")} | {"fixed": len(v.fixed), "broken": len(v.broken)} for k, v in sets.items()}
    report.threshold = result.threshold
    report.memory = {"size": len(result.gate.memory), "radius": result.gate.memory.radius, "decided_out_of_fold": result.figures.get("memory_decided_out_of_fold", 0),
                     "staff_model": result.gate.memory.model is not None, "staff_model_decided_out_of_fold": result.figures.get("staff_model_decided_out_of_fold", 0),
                     "staff_model_in_domain_guard": result.figures.get("staff_model_in_domain_guard") or {},
                     "reach_out_of_fold": result.figures.get("reach_out_of_fold") or []}
    report.min_decisions, report.memory_only = options.min_decisions, result.memory_only
    report.seconds = round(result.seconds, 2)
    report.flips = _flips(current, result.gate, staff, embedder)
    report.adopted, report.reason = result.verdict.adopted, result.verdict.reason
    report.adopted_kind = result.kind if report.adopted else ""
    if not report.adopted:
        log.warning("gate retraining not adopted: %s", report.reason)
        save_report(services, report)
        return report
    candidate = result.gate
    summary = {k: v for k, v in report.as_dict().items() if k in ("n_feedback", "n_corrections", "n_heldout", "before", "after", "threshold", "adopted", "adopted_kind", "reason", "set_aside")}
    if result.kind == "memory":  # the gate in use, unchanged, with the staff memory: its training meta stays as it was
        candidate.meta["retraining"] = summary
        _install(candidate, services.settings.paths.gate_dir)
        candidate.fresh = True
        services._gate = candidate
        save_report(services, report)
        log.info("gate learnt from %d staff decisions through its staff memory alone: %s", report.n_feedback, figures_moved(report))
        return report
    candidate.meta.update({
        "corpus_hash": corpus_id, "generator": generator, "dataset": str(path), "other_office_examples": len(near_misses or []), "features": space.name, "balanced": options.balanced,
        "embedder": services.embedder.name, "n_in": int(sum(e.label for e in synthetic) + sum(s.label for s in staff)),
        "n_out": int(sum(1 - e.label for e in synthetic) + sum(1 - s.label for s in staff)), "feedback_examples": len(staff), "curated_examples": 0,
        "heldout_accuracy": (report.synthetic_after or {}).get("accuracy"),
        "retraining": summary,
    })
    candidate.meta.pop("features", None)
    _install(candidate, services.settings.paths.gate_dir)
    candidate.fresh = True
    services._gate = candidate
    save_report(services, report)
    log.info("gate retrained from %d staff decisions (%d corrections): %s", report.n_feedback, report.n_corrections, figures_moved(report))
    return report


def train_with_feedback(services: Services, options: TrainOptions | None = None) -> Gate:
    """`gate train --include-feedback` (and the console's retrain button): train the gate from the documents, then learn
    from staff decisions exactly as `gate retrain` does (weighted corrections, the staff memory, adopted only when no
    worse on unseen decisions); the report is kept for the digest and summarised in the gate's meta."""
    options = options or TrainOptions()
    g = services.settings.gate
    model = options.model or g.model
    if model not in ("logreg", "svm"):
        raise GateError("learning from staff decisions (--include-feedback) needs a linear gate model: logreg or svm")
    train(services, options)
    learning = _options(services)
    learning.model = model
    learning.balanced = g.balanced if options.balanced is None else options.balanced
    report = retrain_from_feedback(services, options=learning, generator=options.generator, near_misses=options.near_misses)
    gate = services.gate
    gate.meta["staff_learning"] = {"adopted": report.adopted, "reason": report.reason, "n_feedback": report.n_feedback, "n_corrections": report.n_corrections}
    return gate


def figures_moved(report: RetrainReport) -> str:
    """One line for logs and the CLI: out-of-fold F1 before -> after, the threshold, the verdict."""
    def f(d: dict) -> str:
        return f"{d['f1_in']:.3f}/{d['f1_out']:.3f}" if d else "—"

    t = report.threshold or {}
    thr = f"threshold {t.get('before') or 0:.3f} -> {t.get('after') or 0:.3f}" if t else "threshold unchanged"
    flips = report.flips or {}
    return (
        f"staff decisions (cross-validated) F1 in/out {f(report.before)} -> {f(report.after)} (n={report.n_heldout}); synthetic held-out {f(report.synthetic_before)} -> {f(report.synthetic_after)}; "
        f"{thr}; flips in->out {len(flips.get('in_to_out', []))}, out->in {len(flips.get('out_to_in', []))}; {report.reason}"
    )

