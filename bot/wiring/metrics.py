"""Prometheus metrics of `orienta run`: intake, drafting and sending by channel, the review queue, the mailbox, LLM calls,
gate decisions and job failures.

The metric objects belong to no registry; `registry_for(engine)` puts them, with the collectors that read the database
at scrape time, into one registry per endpoint (so tests and several apps in one process do not collide)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from functools import wraps
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

log = logging.getLogger(__name__)

MESSAGES = Counter("orienta_messages", "Messages by channel and outcome (received, skipped, quarantined, drafted, acknowledged, waiting: a transient drafting failure, sent, send_failed).", ["channel", "outcome"], registry=None)
GATE_DECISIONS = Counter("orienta_gate_decisions", "Out-of-domain gate decisions while drafting (in, out, none: no fresh gate).", ["decision"], registry=None)
LLM_CALLS = Counter("orienta_llm_calls", "LLM calls by model and outcome (ok, refusal, truncated, paused, error).", ["model", "outcome"], registry=None)
LLM_ERRORS = Counter("orienta_llm_errors", "LLM calls that raised, by model and error type.", ["model", "error"], registry=None)
LLM_LATENCY = Histogram("orienta_llm_latency_seconds", "Wall time of LLM calls by model.", ["model"], buckets=(0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300), registry=None)
LLM_COST = Counter("orienta_llm_cost_usd", "Cost of LLM calls in USD (models table prices) by model.", ["model"], registry=None)
LLM_TOKENS = Counter("orienta_llm_tokens", "Tokens of LLM calls by model and kind (input, output, cache_write, cache_read).", ["model", "kind"], registry=None)
JOB_FAILURES = Counter("orienta_job_failures", "Periodic jobs that raised, by job.", ["job"], registry=None)
MAILBOX_LAST_POLL = Gauge("orienta_imap_last_success_timestamp_seconds", "When the mailbox was last read successfully (Unix time; 0: never).", registry=None)

STATIC = (MESSAGES, GATE_DECISIONS, LLM_CALLS, LLM_ERRORS, LLM_LATENCY, LLM_COST, LLM_TOKENS, JOB_FAILURES, MAILBOX_LAST_POLL)
_last_poll: list[float] = []  # the same instant as MAILBOX_LAST_POLL, readable without the client's internals


def count_message(channel: str, outcome: str, n: int = 1) -> None:
    if n:
        MESSAGES.labels(channel=channel, outcome=outcome).inc(n)


def mailbox_polled(at: float | None = None) -> None:
    """The mailbox was read successfully (IMAP sync or IDLE renewal)."""
    at = time.time() if at is None else at
    MAILBOX_LAST_POLL.set(at)
    _last_poll[:] = [at]


def last_mailbox_poll() -> float | None:
    return _last_poll[0] if _last_poll else None


def count_gate(in_domain: bool | None) -> None:
    GATE_DECISIONS.labels(decision="none" if in_domain is None else "in" if in_domain else "out").inc()


def instrument_llm(llm: Any, prices: Callable[[str], dict[str, float] | None]) -> Any:
    """Count `llm.complete` calls, latency, cost, tokens and errors by model; the object (and its type) stays the same."""
    if llm is None or getattr(llm.complete, "_orienta_instrumented", False):
        return llm
    inner = llm.complete

    @wraps(inner)
    def complete(**kwargs: Any):
        model = getattr(llm, "model", "unknown")
        start = time.perf_counter()
        try:
            response = inner(**kwargs)
        except Exception as exc:
            LLM_ERRORS.labels(model=model, error=type(exc).__name__).inc()
            LLM_CALLS.labels(model=model, outcome="error").inc()
            raise
        finally:
            LLM_LATENCY.labels(model=model).observe(time.perf_counter() - start)
        LLM_CALLS.labels(model=model, outcome=response.outcome).inc()
        usage = response.usage
        for kind in ("input", "output", "cache_write", "cache_read"):
            LLM_TOKENS.labels(model=model, kind=kind).inc(getattr(usage, f"{kind}_tokens"))
        LLM_COST.labels(model=model).inc(usage.cost(prices(response.model or model)))
        return response

    complete._orienta_instrumented = True  # type: ignore[attr-defined]
    llm.complete = complete
    return llm


class QueueCollector(Collector):
    """Read at scrape time from the database: messages waiting per stage, and the age of the oldest draft waiting for review."""

    def __init__(self, engine: "Callable[[], Engine]") -> None:
        self.engine = engine  # called at scrape time: a database that is down at start does not stop the endpoint

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from datetime import datetime, timezone

        from sqlalchemy import func
        from sqlmodel import Session, col, select

        from review import states
        from review.models import InboundMessage, OutgoingReply
        from review.queue import oldest_pending_at

        depth = GaugeMetricFamily("orienta_queue_depth", "Items waiting, by stage (drafting, review, sending; retry: drafting after a transient failure; quarantined).", labels=["stage"])
        age = GaugeMetricFamily("orienta_oldest_waiting_draft_age_seconds", "Age of the oldest message waiting for a staff decision (0: none waiting).")
        lag = GaugeMetricFamily("orienta_imap_poll_lag_seconds", "Seconds since the mailbox was last read successfully (absent before the first read).")
        try:
            with Session(self.engine()) as session:
                counts = dict(session.exec(select(InboundMessage.state, func.count()).group_by(InboundMessage.state)).all())
                sending = session.exec(select(func.count()).select_from(OutgoingReply).where(col(OutgoingReply.state).in_(["pending", "sending"]))).one()
                retrying = session.exec(select(func.count()).select_from(InboundMessage).where(col(InboundMessage.state).in_([states.RECEIVED, states.CLASSIFIED]), col(InboundMessage.draft_attempts) > 0)).one()
                oldest = oldest_pending_at(session=session)
        except Exception:  # noqa: BLE001 - a scrape must not fail because the database is down; /readyz says why
            log.warning("metrics: the database could not be read", exc_info=True)
            return
        depth.add_metric(["drafting"], counts.get(states.RECEIVED, 0) + counts.get(states.CLASSIFIED, 0))
        depth.add_metric(["review"], counts.get(states.DRAFTED, 0))
        depth.add_metric(["sending"], sending)
        depth.add_metric(["retry"], retrying)  # part of drafting: waiting after a transient failure (the digest's "waiting")
        depth.add_metric(["quarantined"], counts.get(states.QUARANTINED, 0))
        if oldest is not None and oldest.tzinfo is None:
            oldest = oldest.replace(tzinfo=timezone.utc)
        age.add_metric([], 0.0 if oldest is None else max(0.0, (datetime.now(timezone.utc) - oldest).total_seconds()))
        yield depth
        yield age
        polled = last_mailbox_poll()
        if polled is not None:
            lag.add_metric([], max(0.0, time.time() - polled))
            yield lag


def registry_for(engine: "Callable[[], Engine] | None" = None) -> CollectorRegistry:
    """A registry with every orienta metric (and the database-backed ones when a way to reach the `engine` is given)."""
    registry = CollectorRegistry(auto_describe=True)
    for metric in STATIC:
        registry.register(metric)
    if engine is not None:
        registry.register(QueueCollector(engine))
    return registry
