"""Retention for what orienta learnt from messages: their cached query vectors, the gates' and the router's staff
memories, and the message texts quoted in the last retraining report. Run by the retention pass (bot.loop.retention)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import col, select

from bot.wiring.services import Services
from classifiers.errors import GateError
from classifiers.gate import Gate, message_segments
from pipeline.embed_cache import EmbeddingCache, text_key
from review.db import session_scope
from review.models import InboundMessage

log = logging.getLogger(__name__)


@dataclass
class Forgotten:
    """What one pass removed from the learnt state."""

    cached_vectors: int = 0
    gate_memory: int = 0  # staff-labelled messages dropped from the gates' memories (every office)
    router_memory: int = 0
    report_texts: int = 0  # message texts blanked in retraining reports

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def message_keys(messages: Iterable[InboundMessage]) -> list[str]:
    """The cache keys of every text the gate or a retraining may have embedded for these messages (whole and segments)."""
    texts = {t.strip() for m in messages for t in (m.redacted_text, m.cleaned_text, m.body_text) if t and t.strip()}
    segments = message_segments(sorted(texts))[0] if texts else []
    return sorted({text_key(t) for t in texts | set(segments)})


def forget_vectors_of(services: Services, messages: Sequence[InboundMessage]) -> int:
    """Delete the cached vectors of these messages' texts (called while their texts are still stored)."""
    keys = message_keys(messages)
    if not keys:
        return 0
    cache = EmbeddingCache(services.settings.paths.cache_dir)
    try:
        return cache.forget(keys)
    finally:
        cache.close()


def forget_vectors_before(services: Services, cutoff: datetime, *, compact: bool) -> int:
    """Delete every message vector written before `cutoff` (those whose text could not be named: a follow-up's rewritten
    question, a pass that stopped half-way); with `compact`, rewrite the file so no deleted vector stays in it."""
    path = services.settings.paths.cache_dir / "embeddings.sqlite"
    if not path.exists():
        return 0
    cache = EmbeddingCache(services.settings.paths.cache_dir)
    try:
        removed = cache.forget_written_before(cutoff.timestamp())
        if removed or compact:
            cache.compact()
        return removed
    finally:
        cache.close()


def purged_message_ids(services: Services) -> set[int]:
    with session_scope(services.engine) as session:
        return {int(i) for i in session.exec(select(InboundMessage.id).where(col(InboundMessage.redacted_at).is_not(None))).all()}


def forget_in_gate(services: Services, purged: set[int]) -> tuple[int, int]:
    """Drop purged messages from this office's stored gate memory and blank their texts in its last retraining report;
    (memory entries dropped, report texts blanked)."""
    from bot.learning.gate_retraining import REPORT_FILE, _install

    gate_dir = services.settings.paths.gate_dir
    dropped = blanked = 0
    if (gate_dir / "gate.json").exists():
        try:
            gate = Gate.load(gate_dir)
        except GateError as exc:
            log.warning("retention could not read the gate in %s: %s", gate_dir, exc)
            gate = None
        if gate is not None:
            memory = gate.memory.without(purged)
            dropped = len(gate.memory) - len(memory)
            if dropped:
                gate.memory = memory
                _install(gate, gate_dir)
                services._gate = None  # read again, without them
    report = gate_dir / REPORT_FILE
    if report.exists():
        data = json.loads(report.read_text(encoding="utf-8"))
        for rows in (data.get("flips") or {}).values():
            for row in rows if isinstance(rows, list) else ():
                if isinstance(row, dict) and row.get("message_id") in purged and row.get("text"):
                    row["text"] = ""
                    blanked += 1
        if blanked:
            report.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return dropped, blanked


def forget_in_router(services: Services, purged: set[int]) -> int:
    """Drop purged messages from the campus router's staff memory (stored only when it has any)."""
    from classifiers.routing import Router, RouterNotTrained

    directory = services.settings.paths.router_dir
    try:
        router = Router.load(directory)
    except RouterNotTrained:
        return 0
    dropped = router.forget_messages(purged)
    if dropped:
        router.save(directory)
        services.__dict__.pop("_router", None)
    return dropped


def forget_learnt(services: Services, offices: Sequence[Services], cutoff: datetime, *, already: int = 0) -> Forgotten:
    """After the database purge: message vectors older than `cutoff` leave the cache, purged messages leave every gate's
    and the router's staff memory and the retraining reports (`already`: vectors the purge itself forgot by their texts)."""
    done = Forgotten(cached_vectors=already)
    purged = purged_message_ids(services)
    for office in offices:
        dropped, blanked = forget_in_gate(office, purged)
        done.gate_memory += dropped
        done.report_texts += blanked
    done.router_memory = forget_in_router(services, purged)
    done.cached_vectors += forget_vectors_before(services, cutoff, compact=already > 0)
    return done
