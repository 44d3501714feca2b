"""Digest benchmark: build time of one ISO week of 5,000 synthetic messages (SQLite; PostgreSQL with --postgres).

  .venv/bin/python benchmarks/digest.py [--messages 5000] [--repeat 3] [--postgres]
Inserts a week of messages in bulk (realistic mix: 5 % skipped, 2 % quarantined, 8 % out of domain,
drafts with references, decisions approve/edit/reject with reasons, judge scores for 60 % of the
decided drafts, 10 % NoInfo questions for the content gaps), then times build_digest and write_report.
Prints a table and writes benchmarks/results/digest.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# benchmarks/queue.py would shadow the stdlib `queue` (multiprocessing, joblib): keep this folder off the path
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from sqlmodel import Session  # noqa: E402

from review.db import init_db, make_engine  # noqa: E402
from review.digest import build_digest, write_report  # noqa: E402
from review.evaluation_models import CORRECTNESS, JudgeScore  # noqa: E402
from review.models import AuditEvent, Decision, Draft, InboundMessage  # noqa: E402

WEEK = "2026-W47"
MON = datetime(2026, 11, 16, tzinfo=timezone.utc)
DOCS = [f"doc{i:02d}" for i in range(40)]
TOPICS = ["becas de posgrado en el exterior", "residencia para estudiantes del interior", "pasantías pagas en empresas", "seguro médico estudiantil", "carné de biblioteca perdido", "estacionamiento para bicicletas"]
QUESTIONS = ["¿Cuándo cierran las inscripciones a {}?", "¿Qué requisitos hay para {}?", "¿Dónde consulto sobre {}?"]


def populate(session: Session, n: int, rng: random.Random) -> None:
    """One week of n messages, written in bulk."""
    msgs, events, drafts, decisions, scores = [], [], [], [], []
    for i in range(1, n + 1):
        at = MON + timedelta(seconds=rng.randrange(7 * 86400))
        roll = rng.random()
        state = "skipped" if roll < 0.05 else "quarantined" if roll < 0.07 else "drafted"
        gap = rng.random() < 0.10
        question = rng.choice(QUESTIONS).format(rng.choice(TOPICS) if gap else f"el trámite {rng.randrange(200)}")
        ood = state == "drafted" and rng.random() < 0.08
        m = {"id": i, "channel": rng.choice(["email", "email", "slack"]), "source_key": f"bench:{i}", "received_at": at, "created_at": at, "updated_at": at, "state": state, "version": 1, "attachments": [],
             "redacted_text": question, "cleaned_text": question, "reason": "auto-reply" if state == "skipped" else "malformed: x" if state == "quarantined" else None, "gate_in_domain": None if state != "drafted" else not ood, "gate_score": 0.5}
        events.append({"message_id": i, "actor": "orienta", "event": "received", "to_state": "received", "details": {}, "at": at})
        if state != "drafted":
            events.append({"message_id": i, "actor": "orienta", "event": "transition", "from_state": "received", "to_state": state, "details": {}, "at": at})
            msgs.append(m)
            continue
        d_at = at + timedelta(seconds=rng.randrange(5, 120))
        text = "Hola:\n\nSegún la documentación de la Facultad: " + " ".join(rng.choice(["plazo", "formulario", "bedelía", "créditos", "examen", "constancia"]) for _ in range(40))
        drafts.append({"id": i, "message_id": i, "text": text, "method": "derivation", "model": "claude-sonnet-4-5", "no_info": gap, "out_of_domain": ood, "fallback": False, "references": [] if gap or ood else [{"doc_id": rng.choice(DOCS[:25]), "title": "Documento"}],
                       "derivation": [], "flags": [], "chunks": [], "usage": {}, "cost_usd": 0.004, "latency_ms": rng.gauss(4000, 800), "created_at": d_at})
        events += [{"message_id": i, "actor": "orienta", "event": "transition", "from_state": "received", "to_state": "classified", "details": {}, "at": d_at},
                   {"message_id": i, "actor": "orienta", "event": "transition", "from_state": "classified", "to_state": "drafted", "details": {}, "at": d_at}]
        if rng.random() < 0.1:  # still pending
            msgs.append(m)
            continue
        r = rng.random()
        action = "approve" if r < 0.55 else "edit" if r < 0.8 else "reject"
        reason = rng.choice(["incorrect", "missing_info", "out_of_domain", "personal", "spam"]) if action == "reject" else None
        final = text.replace("plazo", "fecha límite", rng.randrange(1, 4)) if action == "edit" else None
        dec_at = d_at + timedelta(minutes=rng.expovariate(1 / 90))
        decisions.append({"message_id": i, "draft_id": i, "action": action, "actor": rng.choice(["ana", "bruno", "carla"]), "reason": reason, "comment": "dato mal" if reason == "incorrect" else None, "final_text": final, "created_at": dec_at})
        to_state = {"approve": "approved", "edit": "edited", "reject": "rejected"}[action]
        events.append({"message_id": i, "actor": "ana", "event": "transition", "from_state": "drafted", "to_state": to_state, "details": {}, "at": dec_at})
        if action != "reject":
            events.append({"message_id": i, "actor": "orienta", "event": "transition", "from_state": to_state, "to_state": "sent", "details": {}, "at": dec_at})
            to_state = "sent"
        m["state"] = to_state
        msgs.append(m)
        if rng.random() < 0.6:
            base = {"approve": 5, "edit": 4, "reject": 2}[action]
            score = max(1, min(5, base + rng.choice([-1, 0, 0, 0, 1])))
            scores.append({"draft_id": i, "kind": CORRECTNESS, "status": "scored", "score": score, "runs": [score], "spread": 0.0, "model": "claude-haiku-4-5", "cost_usd": 0.0008, "created_at": dec_at})
    for model, rows in ((InboundMessage, msgs), (Draft, drafts), (Decision, decisions), (AuditEvent, events), (JudgeScore, scores)):
        session.bulk_insert_mappings(model, rows)
        session.flush()
    session.commit()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--postgres", action="store_true", help="Also time it on PostgreSQL (a scratch database it creates and drops).")
    args = ap.parse_args()
    urls = {}
    tmp = Path(tempfile.mkdtemp(prefix="orienta-bench-digest-"))
    urls["sqlite"] = f"sqlite:///{tmp / 'bench.db'}"
    if args.postgres:
        urls["postgresql"] = "postgresql+psycopg://postgres@127.0.0.1:5432/orienta_bench_digest"
    results = {}
    for name, url in urls.items():
        if name == "postgresql":
            from sqlalchemy import create_engine, text

            admin = create_engine("postgresql+psycopg://postgres@127.0.0.1:5432/test", isolation_level="AUTOCOMMIT")
            with admin.connect() as c:
                c.execute(text("DROP DATABASE IF EXISTS orienta_bench_digest"))
                c.execute(text("CREATE DATABASE orienta_bench_digest"))
        engine = make_engine(url)
        init_db(engine)
        with Session(engine) as session:
            t0 = time.perf_counter()
            populate(session, args.messages, random.Random(8))
            insert_s = time.perf_counter() - t0
        builds, cpus, writes = [], [], []
        for _ in range(args.repeat):
            with Session(engine) as session:
                t0, c0 = time.perf_counter(), time.process_time()
                digest = build_digest(session=session, week=WEEK, documents={d: d for d in DOCS}, now=MON + timedelta(days=8))
                builds.append(time.perf_counter() - t0)
                cpus.append(time.process_time() - c0)
            t0 = time.perf_counter()
            write_report(digest, tmp / "reports")
            writes.append(time.perf_counter() - t0)
        f = digest.as_dict()
        results[name] = {"messages": f["received"], "insert_s": round(insert_s, 2), "build_s_median": round(statistics.median(builds), 3), "build_s_all": [round(b, 3) for b in builds], "build_cpu_s_median": round(statistics.median(cpus), 3),
                         "write_report_s_median": round(statistics.median(writes), 3), "kappa": f["kappa"], "spearman": f["spearman"], "acceptable_rate": f["acceptable_rate"], "content_gaps": len(f["content_gaps"]), "time_to_review": f["time_to_review"]}
        engine.dispose()
        if name == "postgresql":
            with admin.connect() as c:
                c.execute(text("DROP DATABASE IF EXISTS orienta_bench_digest"))
    print(f"{'db':<11}{'messages':>9}{'build s (median)':>18}{'build CPU s':>13}{'write report s':>16}{'kappa':>8}{'gaps':>6}")
    for name, r in results.items():
        print(f"{name:<11}{r['messages']:>9}{r['build_s_median']:>18.3f}{r['build_cpu_s_median']:>13.3f}{r['write_report_s_median']:>16.3f}{r['kappa']!s:>8}{r['content_gaps']:>6}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    print("(2-core machine shared with other jobs: timings are noisy)")
    out = ROOT / "benchmarks" / "results" / "digest.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"week": WEEK, "repeat": args.repeat, "results": results}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
