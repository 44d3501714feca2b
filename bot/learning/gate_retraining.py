"""Retrain the gate from staff decisions: corrections weigh more, a held-out share of them judges the new gate, and
the new gate replaces the old one only when it does not do worse there. Safe to run every week."""

from __future__ import annotations

import logging
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sqlmodel import select

from bot.learning.gate_training import TrainOptions, feedback_examples, train
from bot.wiring.services import Services
from classifiers.errors import GateError
from classifiers.evaluation import binary_report
from classifiers.gate import Gate
from classifiers.synthetic import Example
from review.db import session_scope
from review.models import Draft, InboundMessage

log = logging.getLogger(__name__)
HELD_OUT_EVERY = 4  # every 4th staff-labelled message (by id) is kept out of training to judge the retrained gate
MAX_F1_DROP = 0.02


@dataclass
class RetrainReport:
    """What a retraining did and how the held-out figures moved."""

    n_feedback: int = 0
    n_corrections: int = 0
    n_heldout: int = 0
    before: dict = field(default_factory=dict)
    after: dict = field(default_factory=dict)
    synthetic_before: dict = field(default_factory=dict)
    synthetic_after: dict = field(default_factory=dict)
    adopted: bool = False
    reason: str = ""

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _message_id(e: Example) -> int:
    return int((e.topic or "message:0").split(":", 1)[1])


def _figures(gate: Gate, examples: list[Example], embedder) -> dict:
    if not examples:
        return {}
    p = gate.probabilities([e.text for e in examples], embedder)
    rep = binary_report([e.label for e in examples], (p >= gate.threshold).astype(int).tolist())
    return {k: rep[k] for k in ("n", "f1_in", "f1_out", "accuracy", "confusion")}


DOUBT_SCORE = 0.7  # an in-domain verdict below this score counts as doubted


def gate_views(services: Services) -> dict[int, tuple[bool, bool]]:
    """Per message: (the gate let it in, the gate doubted it: out of domain, without information, or a low score)."""
    out: dict[int, tuple[bool, bool]] = {}
    with session_scope(services.engine) as session:
        for draft, message in session.exec(select(Draft, InboundMessage).where(Draft.message_id == InboundMessage.id)).all():
            let_in = draft.gate_in_domain is not False and not draft.out_of_domain
            doubt = not let_in or draft.gate_outcome == "no_info" or (draft.gate_score is not None and draft.gate_score < DOUBT_SCORE)
            out[message.id] = (let_in, doubt)  # type: ignore[index]
    return out


def weighted_feedback(services: Services, weight: int) -> tuple[list[Example], int]:
    """Staff-labelled examples, each correction of the gate ("fuera de dominio" on a message it let in, an approval of a
    draft it doubted) repeated `weight` times; and how many corrections there were."""
    views = gate_views(services)
    out, corrections = [], 0
    for e in feedback_examples(services):
        let_in, doubt = views.get(_message_id(e), (True, False))
        correction = (e.label == 0 and let_in) or (e.label == 1 and doubt)
        corrections += correction
        out += [e] * (weight if correction else 1)
    return out, corrections


def retrain_from_feedback(services: Services) -> RetrainReport:
    """Train a candidate gate with staff feedback (less a held-out share), compare, and adopt it if it is not worse."""
    report = RetrainReport()
    weight = services.settings.gate.feedback_weight
    examples, report.n_corrections = weighted_feedback(services, weight)
    unique = {(e.text, e.label, e.topic): e for e in examples}
    report.n_feedback = len(unique)
    if not unique:
        report.reason = "no staff decisions to learn from"
        return report
    held = [e for e in unique.values() if _message_id(e) % HELD_OUT_EVERY == 0]
    train_on = [e for e in examples if _message_id(e) % HELD_OUT_EVERY != 0]
    report.n_heldout = len(held)
    try:
        current = services.gate
    except GateError:
        current = None
    if current is not None:
        report.before = _figures(current, held, services.embedder)
        report.synthetic_before = current.meta.get("heldout", {})
    gate_dir = services.settings.paths.gate_dir
    with tempfile.TemporaryDirectory(prefix="orienta-gate-") as tmp:
        candidate = train(services, TrainOptions(generator="offline", extra_examples=train_on), directory=Path(tmp), use=False)
        report.after = _figures(candidate, held, services.embedder)
        report.synthetic_after = candidate.meta.get("heldout", {})
        worse = bool(report.before and report.after) and min(report.after["f1_in"], report.after["f1_out"]) < min(report.before["f1_in"], report.before["f1_out"]) - MAX_F1_DROP
        if worse:
            report.reason = "the retrained gate does worse on the held-out staff decisions; the current gate stays"
            log.warning(report.reason)
            return report
        report.adopted, report.reason = True, "adopted"
        candidate.meta["retraining"] = {k: v for k, v in report.as_dict().items() if k not in ("synthetic_before", "synthetic_after")}
        candidate.save(Path(tmp))
        for name in ("gate.json", "gate.npz", "features.json", "features.npz"):
            gate_dir.mkdir(parents=True, exist_ok=True)
            shutil.copy2(Path(tmp) / name, gate_dir / f".{name}.new")
        for name in ("gate.npz", "features.json", "features.npz", "gate.json"):  # gate.json last: a reader never sees a half-written gate
            (gate_dir / f".{name}.new").replace(gate_dir / name)
    candidate.fresh = True
    services._gate = candidate
    log.info("gate retrained from %d staff decisions (%d corrections): held-out %s -> %s", report.n_feedback, report.n_corrections, report.before, report.after)
    return report


def figures_moved(report: RetrainReport) -> str:
    """One line for logs and the CLI: held-out F1 before -> after."""
    def f(d: dict) -> str:
        return f"{d['f1_in']:.3f}/{d['f1_out']:.3f}" if d else "—"

    return f"staff held-out F1 in/out {f(report.before)} -> {f(report.after)} (n={report.n_heldout}); synthetic {f(report.synthetic_before)} -> {f(report.synthetic_after)}; {report.reason}"


