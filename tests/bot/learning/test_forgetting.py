"""Retention forgets what the gate and the router learnt from a message (issue 22 on issue 28's learning): its cached query
vectors, its place in the gates' and the router's staff memories and its text in the last retraining report; every file
under the data dir is searched for the texts, their hashes and their vectors."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import update
from sqlmodel import select

from bot.learning.gate_retraining import REPORT_FILE, RetrainReport, _install, save_report
from bot.learning.gate_training import CachedQueries, train_gate_offline
from bot.loop.retention import apply_retention
from bot.ops.documents import ingest_documents
from bot.wiring.services import Services
from classifiers.gate import message_segments
from classifiers.memory import StaffMemory
from classifiers.routing import Lexicon, Router
from pipeline.embed_cache import EmbeddingCache, text_key
from review import queue
from review.db import session_scope
from review.models import InboundMessage, utcnow
from tests.review.factories import make_drafted

OLD = ["¿Cuánto cuesta la matrícula de la Universidad Zorrilla? Soy Ana Quiñónez", "redactame la carta de renuncia de Ana Quiñónez, por favor. Gracias"]
NEW = ["¿Hasta cuándo me inscribo a los exámenes de febrero?"]


@pytest.fixture
def services(settings):
    svc = Services(settings)
    ingest_documents(svc)
    train_gate_offline(svc)
    yield svc
    svc.close()


def _traces(services: Services, texts: list[str]) -> list[tuple[str, bytes]]:
    """What a message leaves behind: its text, the hashes of its segments, its query vectors (as stored in the cache and,
    unit length, in a staff memory)."""
    segments = sorted(set(message_segments(texts)[0]) | set(texts))
    vecs = services.embedder.embed_queries(segments)
    out = [(f"text {t[:20]}", t.encode("utf-8")) for t in texts] + [(f"hash {s[:20]}", text_key(s).encode()) for s in segments]
    out += [(f"vector {s[:20]}", np.asarray(v, dtype=np.float32).tobytes()) for s, v in zip(segments, vecs)]
    out += [(f"unit vector {s[:20]}", StaffMemory.build(v[None, :], [1]).vectors.tobytes()) for s, v in zip(segments, vecs)]
    return out


def _found(data_dir: Path, traces: list[tuple[str, bytes]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in data_dir.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for name, value in traces:
                if value in data:
                    found.setdefault(str(path.relative_to(data_dir)), []).append(name)
    return found


def test_after_retention_no_vector_hash_or_text_of_a_purged_message_remains_in_what_the_gate_and_router_learnt(services, settings):
    embedder = CachedQueries(services, strict=False)  # the gate step: every judged message's segments go to the cache
    ids = {}
    with session_scope(services.engine) as session:
        for i, text in enumerate(OLD + NEW):
            services.gate.decide(text, embedder)
            d, m = make_drafted(session, question=text, in_domain=True, score=0.9)
            ids[text] = m.id
            if i < 2:
                queue.reject(session=session, draft_id=d.id, actor="ana", reason="out_of_domain")
            else:
                queue.approve(session=session, draft_id=d.id, actor="ana")
    texts = OLD + NEW
    # what a retraining leaves: the gate's staff memory, the report naming past decisions that flip, the router's memory
    gate = services.gate
    vecs = services.embedder.embed_queries(texts)
    gate.memory = StaffMemory.build(vecs, [0, 0, 1], dates=["2026-01-02"] * 3, message_ids=[ids[t] for t in texts])
    _install(gate, settings.paths.gate_dir)
    report = RetrainReport(flips={"in_to_out": [{"message_id": ids[t], "text": t[:120], "staff_label": "out"} for t in OLD], "out_to_in": [{"message_id": ids[NEW[0]], "text": NEW[0], "staff_label": "in"}]})
    save_report(services, report)
    lexicon = Lexicon.fit([["inscripción a exámenes de febrero"], ["práctica final y EPS"]])
    documents = services.embedder.embed_passages(["inscripción a exámenes de febrero", "práctica final y EPS"])
    router = Router(offices=["A", "B"], office_vectors=[documents[:1], documents[1:]], lexicon=lexicon, gate=None, mean=np.zeros(1), scale=np.ones(1), weights=np.zeros(1), bias=np.zeros(2),
                    memory=StaffMemory.build(vecs, [1, 1, 1]).vectors, memory_offices=["B", "B", "A"], memory_message_ids=[ids[t] for t in texts])
    router.save(settings.paths.router_dir)

    old_traces, new_traces = _traces(services, OLD), _traces(services, NEW)
    before = _found(settings.data_dir, old_traces)
    assert any("embeddings.sqlite" in p for p in before) and any("gate.npz" in p for p in before) and any("router.npz" in p for p in before), before
    assert any(REPORT_FILE in p for p in before), before  # the check can fail

    with services.engine.begin() as conn:  # the two old messages age past the retention period
        conn.execute(update(InboundMessage).where(InboundMessage.id.in_([ids[t] for t in OLD])).values(created_at=utcnow() - timedelta(days=settings.database.retention_days + 5)))
    done = apply_retention(services)
    assert done.database.messages == 2
    assert done.learnt.gate_memory == 2 and done.learnt.router_memory == 2 and done.learnt.report_texts == 2 and done.learnt.cached_vectors >= 2, done.as_dict()
    services.close()

    assert _found(settings.data_dir, old_traces) == {}
    kept = _found(settings.data_dir, new_traces)  # the message still within its retention keeps what was learnt from it
    assert any("embeddings.sqlite" in p for p in kept) and any("gate.npz" in p for p in kept) and any("router.npz" in p for p in kept), kept
    stored = Services(settings)
    try:
        assert stored.gate.memory.message_ids == [ids[NEW[0]]] and Router.load(settings.paths.router_dir).memory_message_ids == [ids[NEW[0]]]
    finally:
        stored.close()


def test_message_vectors_are_dated_and_forgotten_by_time_when_their_text_is_gone(settings):
    cache = EmbeddingCache(settings.paths.cache_dir)
    try:
        v = np.ones(4, dtype=np.float32)
        cache.put_many("m|query", {"document": v})  # a training text: no date, kept
        cache.put_many("m|query", {"message-old": v}, at=1000.0)
        cache.put_many("m|query", {"message-new": v}, at=3000.0)
        assert cache.forget_written_before(2000.0) == 1
        assert set(cache.get_many("m|query", ["document", "message-old", "message-new"])) == {"document", "message-new"}
    finally:
        cache.close()


def test_a_cache_written_before_vectors_were_dated_is_migrated(settings):
    import sqlite3

    path = settings.paths.cache_dir / "embeddings.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE vectors (model TEXT, key TEXT, vec BLOB, PRIMARY KEY (model, key))")
    conn.execute("INSERT INTO vectors VALUES ('m', 'k', ?)", (np.ones(2, dtype=np.float32).tobytes(),))
    conn.commit()
    conn.close()
    cache = EmbeddingCache(settings.paths.cache_dir)
    try:
        cache.put_many("m", {"k2": np.ones(2, dtype=np.float32)}, at=5.0)
        assert cache.count("m") == 2 and cache.forget_written_before(10.0) == 1 and set(cache.get_many("m", ["k", "k2"])) == {"k"}
    finally:
        cache.close()
