"""Review queue benchmark: with N pending drafts in SQLite and PostgreSQL, time listing the queue and recording a decision.

  .venv/bin/python benchmarks/review_queue.py [--drafts 10000] [--ops 300] [--pg postgresql+psycopg://postgres@127.0.0.1:5432/test]

"list" = the first page of pending drafts (50, oldest first, with their messages) plus the pending count, as the
App Home and `orienta review list` do; "decide" = one approval or rejection (state transition with optimistic
concurrency, Decision, outbox row, audit event) committed in its own transaction. PostgreSQL is ANALYZEd after
the bulk load (without statistics its planner sorts all 10k rows: list p50 ~70 ms). Prints p50/p95/max in ms and
writes benchmarks/results/review_queue.json. PostgreSQL runs in a throw-away schema.
"""

from __future__ import annotations

import sys
from pathlib import Path

# This file is named like the stdlib `queue` (psycopg imports it): drop benchmarks/ from the import path.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

from sqlalchemy import insert, text  # noqa: E402
from sqlmodel import Session  # noqa: E402

from review import queue, states  # noqa: E402
from review.db import init_db, make_engine, session_scope  # noqa: E402
from review.models import Draft, InboundMessage, utcnow  # noqa: E402

SCHEMA = "bench_queue"


def seed(engine, n: int) -> None:
    """N drafted messages with one draft each, inserted in bulk."""
    now = utcnow()
    question = "¿Cuántos créditos necesito para recibirme y hasta cuándo me puedo inscribir a los exámenes de febrero?"
    draft_text = "Hola:\nSegún el reglamento necesitás 450 créditos. La inscripción a exámenes cierra el 10 de febrero.\nSaludos" * 3
    with engine.begin() as conn:
        for start in range(0, n, 1000):
            rows = [
                dict(channel="email", source_key=f"bench:{i}", external_id=f"<b{i}@x>", sender=f"est{i}@example.com", subject=f"consulta {i}", received_at=now,
                     cleaned_text=question, redacted_text=question, attachments=[], state=states.DRAFTED, gate_in_domain=True, gate_score=0.9, version=3, created_at=now, updated_at=now)
                for i in range(start, min(n, start + 1000))
            ]
            conn.execute(insert(InboundMessage), rows)
        ids = [r[0] for r in conn.execute(text("SELECT id FROM inbound_message ORDER BY id"))]
        for start in range(0, len(ids), 1000):
            conn.execute(insert(Draft), [
                dict(message_id=i, text=draft_text, method="derivation", model="claude-sonnet-4-5", no_info=False, out_of_domain=False, fallback=False,
                     references=[{"doc_id": "creditos", "title": "Créditos", "url": "https://x/creditos"}], derivation=[], flags=[], chunks=[], usage={},
                     cost_usd=0.01, latency_ms=900.0, created_at=now)
                for i in ids[start:start + 1000]
            ])


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


def measure(engine, ops: int) -> dict:
    list_ms, decide_ms = [], []
    for _ in range(ops):
        t0 = time.perf_counter()
        with Session(engine) as s:
            page = queue.list_drafts(session=s, limit=50)
            queue.count_pending(session=s)
        list_ms.append((time.perf_counter() - t0) * 1000)
        assert len(page) == 50
    with Session(engine) as s:
        targets = [d.id for d, _ in queue.list_drafts(session=s, limit=ops)]
    for i, draft_id in enumerate(targets):
        t0 = time.perf_counter()
        with session_scope(engine) as s:
            if i % 3 == 2:
                queue.reject(session=s, draft_id=draft_id, actor="bench", reason="missing_info")
            else:
                queue.approve(session=s, draft_id=draft_id, actor="bench")
        decide_ms.append((time.perf_counter() - t0) * 1000)
    summary = lambda xs: {"p50": round(statistics.median(xs), 2), "p95": round(pct(xs, 95), 2), "max": round(max(xs), 2)}  # noqa: E731
    return {"list": summary(list_ms), "decide": summary(decide_ms)}


def run(kind: str, url: str, n: int, ops: int) -> dict:
    engine = make_engine(url, **({"connect_args": {"options": f"-csearch_path={SCHEMA}"}} if kind == "postgresql" else {}))
    init_db(engine)
    t0 = time.perf_counter()
    seed(engine, n)
    seeded = time.perf_counter() - t0
    if kind == "postgresql":  # planner statistics, as autovacuum would gather after a bulk load
        with engine.begin() as conn:
            conn.execute(text("ANALYZE"))
    with Session(engine) as s:
        pending = queue.count_pending(session=s)
    result = {"backend": kind, "drafts": pending, "seed_s": round(seeded, 1), **measure(engine, ops)}
    engine.dispose()
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--drafts", type=int, default=10_000)
    ap.add_argument("--ops", type=int, default=300)
    ap.add_argument("--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "review_queue.json"))
    args = ap.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        results.append(run("sqlite", f"sqlite:///{tmp}/bench.db", args.drafts, args.ops))
    admin = make_engine(args.pg)
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE; CREATE SCHEMA {SCHEMA}"))
    try:
        results.append(run("postgresql", args.pg, args.drafts, args.ops))
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE"))
        admin.dispose()
    print(f"{'backend':<11} {'drafts':>7} {'list p50':>9} {'list p95':>9} {'decide p50':>11} {'decide p95':>11}  (ms)")
    for r in results:
        print(f"{r['backend']:<11} {r['drafts']:>7} {r['list']['p50']:>9} {r['list']['p95']:>9} {r['decide']['p50']:>11} {r['decide']['p95']:>11}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"ops": args.ops, "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
