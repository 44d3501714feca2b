"""The weekly digest: what happened to the messages orienta received in one ISO week, and how good the drafts were."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from statistics import fmean

from sqlmodel import Session, col, select

from review import claims, metrics, retries, states
from review.evaluation_models import CORRECTNESS, FAITHFULNESS, RELEVANCE, SCORED, JudgeScore
from review.answer_memory import CURATED_METHOD, student_address
from review.faq import faq_suggestions, hand_answered
from review.gaps import cluster_questions
from review.judge import Judge, offline_measures
from review.models import AuditEvent, Decision, DigestRun, Draft, InboundMessage, utcnow
from review.queue import REJECT_REASONS
from review.report import LABELS, render_html, render_markdown
from review.scoring import ChunkText, score_drafts
from review.weeks import parse_week, previous_week

COUNT_KEYS = ("received", "skipped", "quarantined", "out_of_domain", "drafted", "approved", "edited", "rejected", "sent", "acknowledged", "follow_ups", "waiting", "drafted_offline", "requeued")
OFFLINE_LABEL = "Medidas sin LLM (no son el juez): distancia de edición normalizada y F1 por palabras entre el borrador y la respuesta enviada."


@dataclass
class Digest:
    """The week's figures."""

    week: str
    counts: dict[str, int]
    by_channel: dict[str, int] = field(default_factory=dict)
    skip_reasons: dict[str, int] = field(default_factory=dict)
    quarantine_reasons: dict[str, int] = field(default_factory=dict)
    rates: dict[str, float | None] = field(default_factory=dict)
    reject_reasons: dict[str, int] = field(default_factory=dict)
    edit_sizes: dict = field(default_factory=dict)
    time_to_review: dict = field(default_factory=lambda: {"p50": None, "p90": None, "n": 0})
    backlog: dict = field(default_factory=dict)
    reviewers: dict[str, dict[str, int]] = field(default_factory=dict)
    judge: dict = field(default_factory=dict)
    agreement: dict = field(default_factory=dict)
    offline: dict = field(default_factory=dict)
    llm: dict = field(default_factory=dict)
    documents: dict = field(default_factory=dict)
    content_gaps: list[dict] = field(default_factory=list)
    faq_suggestions: list[dict] = field(default_factory=list)
    reused: int = 0
    set_aside: list[dict] = field(default_factory=list)
    gate_errors: dict = field(default_factory=dict)
    claims: dict = field(default_factory=dict)  # {"readiness"|"reuse": review.claims.precision}: drafts that claimed to be sendable, how many staff sent unchanged
    gate_learning: dict = field(default_factory=dict)  # the last gate retraining: adopted, evidence, flips, reviewers set aside
    trend: list[dict] = field(default_factory=list)
    generated_at: str = ""
    office: str | None = None  # campus mode: the office this digest is about (None: the whole campus, or the only office)

    def as_dict(self) -> dict:
        return {
            "week": self.week,
            **({"office": self.office} if self.office else {}),
            **self.counts,
            "by_channel": self.by_channel,
            "skip_reasons": self.skip_reasons,
            "quarantine_reasons": self.quarantine_reasons,
            "rates": self.rates,
            "reject_reasons": self.reject_reasons,
            "edit_sizes": self.edit_sizes,
            "time_to_review": self.time_to_review,
            "backlog": self.backlog,
            "reviewers": self.reviewers,
            "judge": self.judge,
            "acceptable_rate": self.judge.get("acceptable_rate"),
            "agreement": self.agreement,
            "kappa": self.agreement.get("kappa"),
            "spearman": self.agreement.get("spearman"),
            "offline": self.offline,
            "llm": self.llm,
            "cost_usd": self.llm.get("cost_usd", 0.0),
            "cache_hit_rate": self.llm.get("cache", {}).get("hit_rate"),
            "cost_per_answer_usd": self.llm.get("cost_per_answer_usd"),
            "documents": self.documents,
            "content_gaps": self.content_gaps,
            "faq_suggestions": self.faq_suggestions,
            "reused": self.reused,
            "set_aside": self.set_aside,
            "gate_errors": self.gate_errors,
            "claims": self.claims,
            "gate_learning": self.gate_learning,
            "trend": self.trend,
            "generated_at": self.generated_at,
        }


def _aware(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def _minutes(a: datetime, b: datetime) -> float:
    return (_aware(b) - _aware(a)).total_seconds() / 60


def _r(x: float | None, n: int = 3) -> float | None:
    return None if x is None else round(x, n)


def build_digest(
    *,
    session: Session,
    week: str,
    judge: Judge | None = None,
    documents: Mapping[str, str] | None = None,
    chunk_text: ChunkText | None = None,
    now: datetime | None = None,
    trend_weeks: int = 4,
    gate_retraining: Mapping | None = None,
    offices: Sequence[str | None] | None = None,
) -> Digest:
    """Figures for messages stored during `week`; with a judge, the week's unjudged drafts are scored first.
    `offices`: campus mode, only these offices' messages (None in it: the default office's; None: every office)."""
    start, end = parse_week(week)
    in_week: tuple = (InboundMessage.created_at >= start, InboundMessage.created_at < end)
    if offices is not None:
        named = [o for o in offices if o is not None]
        mine = col(InboundMessage.office).in_(named)
        in_week += ((mine | col(InboundMessage.office).is_(None)) if None in offices else mine,)
    messages = session.exec(
        select(InboundMessage.id, InboundMessage.channel, InboundMessage.state, InboundMessage.reason, InboundMessage.gate_in_domain, InboundMessage.redacted_text, InboundMessage.follows_id, InboundMessage.subject).where(*in_week)
    ).all()
    reached: dict[int, set[str]] = defaultdict(set)
    events: dict[int, set[str]] = defaultdict(set)
    for mid, to_state, event in session.exec(select(AuditEvent.message_id, AuditEvent.to_state, AuditEvent.event).join(InboundMessage, InboundMessage.id == AuditEvent.message_id).where(*in_week)).all():
        events[mid].add(event)
        if to_state:
            reached[mid].add(to_state)
    drafts: dict[int, Draft] = {}
    for d in session.exec(select(Draft).join(InboundMessage, InboundMessage.id == Draft.message_id).where(*in_week).order_by(Draft.id)).all():
        drafts[d.message_id] = d  # the latest draft of each message
    decisions = {dec.message_id: dec for dec in session.exec(select(Decision).join(InboundMessage, InboundMessage.id == Decision.message_id).where(*in_week)).all()}
    questions = {m.id: m.redacted_text or "" for m in messages}

    counts = dict.fromkeys(COUNT_KEYS, 0)
    counts["received"] = len(messages)
    for m in messages:
        seen = reached[m.id] | {m.state}
        for key in ("skipped", "quarantined", "drafted", "approved", "edited", "rejected", "sent", "acknowledged"):
            counts[key] += key in seen and not (key == states.QUARANTINED and retries.REQUEUED_EVENT in events[m.id] and m.state != states.QUARANTINED)  # a quarantine staff undid is not counted
        counts["waiting"] += m.state in (states.RECEIVED, states.CLASSIFIED) and retries.DEFERRED_EVENT in events[m.id]  # still waiting after a transient failure
        counts["drafted_offline"] += retries.OFFLINE_EVENT in events[m.id]
        counts["requeued"] += retries.REQUEUED_EVENT in events[m.id]
        counts["out_of_domain"] += m.gate_in_domain is False
        counts["follow_ups"] += m.follows_id is not None  # linked to an earlier message of its conversation
    digest = Digest(
        week=week,
        counts=counts,
        by_channel=dict(Counter(m.channel for m in messages)),
        skip_reasons=dict(Counter(m.reason or "?" for m in messages if m.state == states.SKIPPED)),
        quarantine_reasons=dict(Counter((m.reason or "?").split(":")[0] for m in messages if m.state == states.QUARANTINED)),
        generated_at=utcnow().isoformat(timespec="seconds"),
    )
    received, decided = counts["received"], len(decisions)
    actions = Counter(dec.action for dec in decisions.values())
    digest.rates = {
        "skipped": metrics.rate(counts["skipped"], received),
        "quarantined": metrics.rate(counts["quarantined"], received),
        "out_of_domain": metrics.rate(counts["out_of_domain"], received),
        "approve": metrics.rate(actions["approve"], decided),
        "edit": metrics.rate(actions["edit"], decided),
        "reject": metrics.rate(actions["reject"], decided),
    }
    digest.reject_reasons = dict(Counter(dec.reason or "?" for dec in decisions.values() if dec.action == "reject").most_common())
    digest.set_aside = [_set_aside_item(m) for m in messages if m.state in states.NOT_DRAFTED][:SET_ASIDE_MAX]
    _review_figures(digest, drafts, decisions, now=now or utcnow(), end=end, state_of={m.id: m.state for m in messages})
    if judge is not None:
        score_drafts(session=session, judge=judge, items=[(d, decisions.get(mid), questions.get(mid, "")) for mid, d in drafts.items()], chunk_text=chunk_text)
    _judge_figures(digest, session, drafts, decisions)
    _llm_figures(digest, drafts, session)
    _document_figures(digest, drafts, documents)
    gap_questions = [questions[mid] for mid, d in drafts.items() if (d.no_info and not d.out_of_domain) or (decisions.get(mid) is not None and decisions[mid].reason == "missing_info")]
    digest.content_gaps = cluster_questions(gap_questions)
    digest.faq_suggestions = faq_suggestions(hand_answered(drafts, decisions, questions, lambda mid: student_address(session.get(InboundMessage, mid))))
    digest.reused = sum(d.method == CURATED_METHOD for d in drafts.values())
    found = claims.cases((drafts[mid], dec) for mid, dec in decisions.items() if mid in drafts and drafts[mid].id == dec.draft_id)
    digest.claims = {kind: claims.precision(found[kind]) for kind in ("readiness", "reuse")}
    _gate_figures(digest, drafts, decisions, questions)
    digest.gate_learning = gate_learning_summary(gate_retraining)
    digest.trend = _trend(session, digest, trend_weeks)
    return digest


SET_ASIDE_MAX = 200  # messages listed by id in the digest's "sin borrador" section


def _set_aside_item(m) -> dict:
    """One message set aside without a draft: id, state, reason and a short redacted excerpt ("necesita respuesta" takes the id)."""
    from pipeline.redaction import redact

    text = m.redacted_text if m.redacted_text is not None else redact(m.subject or "").text
    return {"message_id": m.id, "state": m.state, "channel": m.channel, "reason": m.reason or "", "excerpt": " ".join(text.split())[:SET_ASIDE_EXCERPT]}


SET_ASIDE_EXCERPT = 120


def _review_figures(digest: Digest, drafts: dict[int, Draft], decisions: dict[int, Decision], *, now: datetime, end: datetime, state_of: dict[int, str]) -> None:
    waits, sizes, offline = [], [], []
    reviewers: dict[str, Counter] = defaultdict(Counter)
    for mid, dec in decisions.items():
        reviewers[dec.actor][dec.action] += 1
        draft = drafts.get(mid)
        if draft is None:
            continue
        waits.append(_minutes(draft.created_at, dec.created_at))
        if dec.action in ("approve", "edit"):
            m = offline_measures(draft=draft.text, sent=dec.final_text if dec.action == "edit" and dec.final_text else draft.text)
            offline.append(m)
            if dec.action == "edit":
                sizes.append(m["edit_distance"])
    digest.time_to_review = {"p50": _r(metrics.percentile(waits, 50), 1), "p90": _r(metrics.percentile(waits, 90), 1), "n": len(waits)}
    small = sum(s <= metrics.SMALL_EDIT_MAX for s in sizes)
    digest.edit_sizes = {"n": len(sizes), "small": small, "large": len(sizes) - small, "p50": _r(metrics.percentile(sizes, 50)), "values": [round(s, 3) for s in sizes], "small_max": metrics.SMALL_EDIT_MAX}
    digest.reviewers = {actor: dict(c) | {"total": sum(c.values())} for actor, c in sorted(reviewers.items(), key=lambda kv: -sum(kv[1].values()))}
    at = min(_aware(now), end)
    ages = [_minutes(d.created_at, at) / 60 for mid, d in drafts.items() if state_of.get(mid) == states.DRAFTED]
    digest.backlog = {"pending": len(ages), "oldest_hours": _r(max(ages), 1) if ages else None, "p50_hours": _r(metrics.percentile(ages, 50), 1)}
    digest.offline = {
        "label": OFFLINE_LABEL,
        "n": len(offline),
        "edit_distance_mean": _r(fmean(m["edit_distance"] for m in offline)) if offline else None,
        "token_f1_mean": _r(fmean(m["token_f1"] for m in offline)) if offline else None,
        "unchanged_rate": _r(metrics.rate(sum(bool(m["unchanged"]) for m in offline), len(offline))),
    }


def _judge_figures(digest: Digest, session: Session, drafts: dict[int, Draft], decisions: dict[int, Decision]) -> None:
    by_draft = {d.id: mid for mid, d in drafts.items()}
    rows = session.exec(select(JudgeScore).join(Draft, Draft.id == JudgeScore.draft_id).where(Draft.id.in_(list(by_draft)))).all() if by_draft else []  # type: ignore[union-attr]
    scores: dict[str, dict[int, JudgeScore]] = defaultdict(dict)
    for s in rows:
        scores[s.kind][s.draft_id] = s
    correct = [s for s in scores[CORRECTNESS].values() if s.status == SCORED and s.score is not None]
    dist = Counter(str(int(round(s.score))) for s in correct)  # type: ignore[arg-type]

    def mean(kind: str) -> float | None:
        values = [s.score for s in scores[kind].values() if s.status == SCORED and s.score is not None]
        return _r(fmean(values)) if values else None

    digest.judge = {
        "scored": len(correct),
        "not_scored": sum(s.status != SCORED for s in scores[CORRECTNESS].values()),
        "distribution": {str(k): dist.get(str(k), 0) for k in range(1, 6)},
        "acceptable_rate": _r(metrics.rate(sum(metrics.acceptable(s.score) for s in correct), len(correct))),  # type: ignore[arg-type]
        "mean": _r(fmean(s.score for s in correct)) if correct else None,  # type: ignore[misc]
        "max_spread": max((s.spread or 0.0 for s in correct), default=None),
        "faithfulness": mean(FAITHFULNESS),
        "relevance": mean(RELEVANCE),
        "models": sorted({s.model for s in rows if s.model}),
        "cost_usd": round(sum(s.cost_usd for s in rows), 6),
    }
    staff, judged = [], []
    for s in correct:
        mid = by_draft[s.draft_id]
        dec = decisions.get(mid)
        level = metrics.staff_level(dec.action, dec.reason, draft_text=drafts[mid].text, final_text=dec.final_text) if dec else None
        if level is not None:
            staff.append(level)
            judged.append(s.score)
    digest.agreement = {
        "n": len(staff),
        "kappa": _r(metrics.weighted_kappa(staff, [metrics.judge_level(x) for x in judged])),
        "weights": "quadratic",
        "spearman": _r(metrics.spearman(judged, staff)),
        "confusion": metrics.confusion([metrics.acceptable(x) for x in judged], [lvl >= metrics.LARGE_EDIT for lvl in staff]),
        "staff_levels": {metrics.STAFF_LABELS[k]: staff.count(k) for k in reversed(metrics.STAFF_LEVELS)},
    }


def _tokens(usage: Mapping | None) -> tuple[int, int]:
    """(cache-read tokens, prompt tokens) of one draft's stored usage (see pipeline.llm.Usage)."""
    u = usage or {}
    read = int(u.get("cache_read_tokens") or 0)
    return read, int(u.get("input_tokens") or 0) + int(u.get("cache_write_tokens") or 0) + read


def _cache_figures(drafts: list[Draft]) -> dict:
    """Prompt-cache hit rate: cache-read tokens / prompt tokens (fresh + written + read) of the drafts."""
    read = prompt = written = 0
    for d in drafts:
        r, p = _tokens(d.usage)
        read, prompt, written = read + r, prompt + p, written + int((d.usage or {}).get("cache_write_tokens") or 0)
    return {"read_tokens": read, "write_tokens": written, "prompt_tokens": prompt, "hit_rate": _r(read / prompt) if prompt else None}


def _llm_figures(digest: Digest, drafts: dict[int, Draft], session: Session) -> None:
    gen = [d for d in drafts.values() if d.method != "canned"]
    lat = [d.latency_ms for d in gen]
    by_model: dict[str, dict] = {}
    for d in gen:
        m = by_model.setdefault(d.model, {"drafts": 0, "cost_usd": 0.0, "_read": 0, "_prompt": 0})
        m["drafts"] += 1
        m["cost_usd"] = round(m["cost_usd"] + d.cost_usd, 6)
        r, p = _tokens(d.usage)
        m["_read"], m["_prompt"] = m["_read"] + r, m["_prompt"] + p
    for m in by_model.values():
        read, prompt = m.pop("_read"), m.pop("_prompt")
        m["cost_per_answer_usd"] = round(m["cost_usd"] / m["drafts"], 6)
        m["cache_hit_rate"] = _r(read / prompt) if prompt else None
    generation = round(sum(d.cost_usd for d in drafts.values()), 6)
    judging = digest.judge.get("cost_usd", 0.0)
    digest.llm = {
        "cost_usd": round(generation + judging, 6),
        "generation_cost_usd": generation,
        "judge_cost_usd": judging,
        # generation cost of the week over the answers drafted (canned out-of-domain replies are not answers)
        "answers": len(gen),
        "cost_per_answer_usd": round(generation / len(gen), 6) if gen else None,
        "cache": _cache_figures(gen),
        "latency_ms": {"p50": _r(metrics.percentile(lat, 50), 1), "p90": _r(metrics.percentile(lat, 90), 1)},
        "by_model": by_model,
        "methods": dict(Counter(d.method for d in drafts.values())),
    }


def _document_figures(digest: Digest, drafts: dict[int, Draft], documents: Mapping[str, str] | None) -> None:
    cited: Counter[str] = Counter()
    titles: dict[str, str] = dict(documents or {})
    for d in drafts.values():
        for ref in d.references:
            cited[ref["doc_id"]] += 1
            titles.setdefault(ref["doc_id"], ref.get("title") or ref["doc_id"])
    never = sorted(set(documents or {}) - set(cited))
    digest.documents = {
        "cited": [{"doc_id": k, "title": titles.get(k, k), "count": n} for k, n in cited.most_common(10)],
        "never": [{"doc_id": k, "title": titles.get(k, k)} for k in never],
        "known": len(documents) if documents is not None else None,
    }


def _gate_figures(digest: Digest, drafts: dict[int, Draft], decisions: dict[int, Decision], questions: dict[int, str]) -> None:
    missed, false_alarm = [], []
    for mid, dec in decisions.items():
        draft = drafts.get(mid)
        if draft is None:
            continue
        if not draft.out_of_domain and dec.action == "reject" and dec.reason == "out_of_domain":
            missed.append(questions.get(mid, ""))
        elif draft.out_of_domain and dec.action == "edit" and dec.final_text and metrics.edit_distance(draft.text, dec.final_text) > metrics.SMALL_EDIT_MAX:
            false_alarm.append(questions.get(mid, ""))
    digest.gate_errors = {"missed": len(missed), "missed_examples": missed[:3], "false_alarm": len(false_alarm), "false_alarm_examples": false_alarm[:3]}


def gate_learning_summary(report: Mapping | None) -> dict:
    """What the digest says about the last gate retraining: adopted or not and why, the out-of-fold F1 on staff
    decisions, the threshold, past decisions that flip each way, and reviewers the gate keeps disagreeing with."""
    if not report:
        return {}
    flips = report.get("flips") or {}
    reviewers = report.get("reviewers") or {}
    flagged = [{"reviewer": who, "disagreements": r.get("disagreements", 0), "decisions": r.get("decisions", 0)} for who, r in sorted(reviewers.items()) if r.get("flagged")]
    before, after = report.get("before") or {}, report.get("after") or {}
    return {
        "adopted": bool(report.get("adopted")),
        "adopted_kind": report.get("adopted_kind", ""),  # "memory": the gate unchanged, with the staff memory consulted first
        "reason": report.get("reason", ""),
        "n_feedback": report.get("n_feedback", 0),
        "n_corrections": report.get("n_corrections", 0),
        "f1_before": [_r(before.get("f1_in")), _r(before.get("f1_out"))] if before else None,
        "f1_after": [_r(after.get("f1_in")), _r(after.get("f1_out"))] if after else None,
        "threshold": report.get("threshold") or {},
        "in_to_out": list(flips.get("in_to_out", []))[:5],
        "out_to_in": list(flips.get("out_to_in", []))[:5],
        "n_in_to_out": len(flips.get("in_to_out", [])),
        "n_out_to_in": len(flips.get("out_to_in", [])),
        "disagreeing_reviewers": flagged,
    }


TREND_KEYS = ("received", "approve_rate", "acceptable_rate", "kappa", "cost_usd", "cache_hit_rate", "cost_per_answer_usd")


def _trend_point(week: str, figures: Mapping) -> dict:
    rates = figures.get("rates") or {}
    return {
        "week": week,
        "received": figures.get("received"),
        "approve_rate": rates.get("approve"),
        "acceptable_rate": figures.get("acceptable_rate"),
        "kappa": figures.get("kappa"),
        "cost_usd": figures.get("cost_usd"),
        "cache_hit_rate": figures.get("cache_hit_rate"),
        "cost_per_answer_usd": figures.get("cost_per_answer_usd"),
    }


def _trend(session: Session, digest: Digest, weeks: int) -> list[dict]:
    points, w = [], digest.week
    for _ in range(weeks):
        w = previous_week(w)
        run = session.get(DigestRun, w)
        if run is not None and run.figures:
            points.append(_trend_point(w, run.figures))
    points.reverse()
    return points + [_trend_point(digest.week, digest.as_dict() | {"trend": []})]


def write_report(digest: Digest, reports_dir: Path) -> tuple[Path, Path]:
    """Write the digest as Markdown and self-contained HTML (charts embedded); returns both paths."""
    reports_dir.mkdir(parents=True, exist_ok=True)
    md = reports_dir / f"digest-{digest.week}.md"
    html = reports_dir / f"digest-{digest.week}.html"
    md.write_text(render_markdown(digest), encoding="utf-8")
    html.write_text(render_html(digest), encoding="utf-8")
    return md, html


def record_run(*, session: Session, digest: Digest, md: Path, html: Path) -> DigestRun:
    """One row per ISO week; rebuilding updates it."""
    run = session.get(DigestRun, digest.week) or DigestRun(iso_week=digest.week)
    run.figures, run.markdown_path, run.html_path, run.created_at = digest.as_dict(), str(md), str(html), utcnow()
    session.add(run)
    session.flush()
    return run


__all__ = ["COUNT_KEYS", "Digest", "LABELS", "REASON_LABELS", "build_digest", "record_run", "write_report"]
REASON_LABELS = REJECT_REASONS
