"""What a draft claimed and whether staff bore it out (precision counts the label the card showed): an offline draft labelled «listo», or a draft made from an approved
answer, claims it can be sent as it is; staff sending it unchanged confirms the claim, an edit or a rejection refutes it.

Shared by the digest (the week's precision of each claim) and `bot.learning.readiness_calibration` (a stricter rule
learnt only on held-out evidence)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from classifiers.adoption import proportion_interval
from pipeline.generation.readiness import READY, readiness_of
from review import metrics
from review.answer_memory import CURATED_FLAG, CURATED_METHOD
from review.models import Decision, Draft

OFFLINE_METHOD = "extractive"  # Draft.method of offline drafts (pipeline.generation.extractive)
REUSE_FEATURES = ("similarity", "lexical")


@dataclass(slots=True)
class Case:
    """One staff decision on a draft: whether it was sent unchanged (`sent`), whether the draft claimed it could be (`claimed`), and its measures."""

    draft_id: int
    sent: bool
    claimed: bool  # the claim drafting made, before any calibrated rule (what calibration learns from)
    features: dict[str, float] = field(default_factory=dict)
    shown: bool | None = None  # the claim the card showed (after a calibrated rule), when it differs from `claimed`

    @property
    def labelled(self) -> bool:
        return self.claimed if self.shown is None else self.shown


def sent_unchanged(draft: Draft, decision: Decision) -> bool:
    """Staff sent the draft as it was (approved, or an edit that changed nothing); an edit or any rejection says it was not sendable."""
    return metrics.staff_level(decision.action, decision.reason, draft_text=draft.text, final_text=decision.final_text) == metrics.UNCHANGED


def readiness_case(draft: Draft, decision: Decision) -> Case | None:
    """The case of an offline draft carrying a readiness flag, or None."""
    flag = readiness_of(draft.flags) if draft.method == OFFLINE_METHOD else None
    if flag is None or draft.id is None:
        return None
    ev = {k: float(v) for k, v in (flag.get("evidence") or {}).items() if isinstance(v, (int, float))}
    raw, shown = flag.get("uncalibrated", flag.get("flag")) == READY, flag.get("flag") == READY
    return Case(draft.id, sent_unchanged(draft, decision), raw, ev, None if shown == raw else shown)


def reuse_case(draft: Draft, decision: Decision) -> Case | None:
    """The case of a draft made from an approved answer, or None."""
    flag = next((f for f in draft.flags or [] if f.get("kind") == CURATED_FLAG), None)
    if draft.method != CURATED_METHOD or flag is None or draft.id is None:
        return None
    ev = {k: float(flag[k]) for k in REUSE_FEATURES if isinstance(flag.get(k), (int, float))}
    return Case(draft.id, sent_unchanged(draft, decision), True, ev)


def cases(pairs: Iterable[tuple[Draft, Decision]]) -> dict[str, list[Case]]:
    """{"readiness": [...], "reuse": [...]} of the decided drafts."""
    out: dict[str, list[Case]] = {"readiness": [], "reuse": []}
    for draft, decision in pairs:
        for kind, make in (("readiness", readiness_case), ("reuse", reuse_case)):
            if (c := make(draft, decision)) is not None:
                out[kind].append(c)
    return out


def precision(found: Sequence[Case], *, seed: int = 0) -> dict:
    """How many drafts claimed to be sendable, how many of those staff sent unchanged, the share and its 95% bootstrap interval."""
    claimed = [c for c in found if c.labelled]
    sent = sum(c.sent for c in claimed)
    lo, hi = proportion_interval([c.sent for c in claimed], seed=seed)
    return {
        "decisions": len(found), "claimed": len(claimed), "claimed_sent_unchanged": sent,
        "precision": round(sent / len(claimed), 4) if claimed else None, "interval": [round(lo, 4), round(hi, 4)],
        "not_claimed": len(found) - len(claimed), "not_claimed_sent_unchanged": sum(c.sent for c in found if not c.labelled),
    }
