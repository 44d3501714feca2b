"""Office console: page latency (p50 / p95) with 10,000 drafts and 1,000 documents.

  nice -n 10 .venv/bin/python benchmarks/console.py [--data-dir /tmp/orienta-bench-console] [--drafts 10000] [--documents 1000] [--rounds 20]

Set-up (not timed): a fresh data dir; 1,000 generated Markdown documents (three short sections each) ingested with the
hashing embedder into the local Qdrant; 10,000 messages with their drafts (half pending, a tenth quarantined) and 2,000
approved answers bulk-inserted into SQLite. One lead account signs in. Then each page is requested `--rounds` times
through httpx against the ASGI app (the same app `orienta console` serves, CSRF middleware included) and timed from
request to full body. The first request of each page is a warm-up (templates compiled, index facts cached) and not counted.
Writes benchmarks/results/console.json. Target: p95 <= 200 ms per page.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PASSWORD = "una clave larga 123"


def build(data_dir: Path, n_drafts: int, n_docs: int):
    from bot.ops.documents import ingest_documents
    from bot.wiring.services import Services
    from pipeline.settings import Settings
    from review import staff
    from review.answer_models import CuratedAnswer
    from review.db import session_scope
    from review.models import Draft, InboundMessage

    shutil.rmtree(data_dir, ignore_errors=True)
    svc = Services(Settings(data_dir=data_dir, embedding={"backend": "hashing"}, llm={"provider": "extractive"}))
    docs = data_dir / "docs"
    docs.mkdir(parents=True)
    for i in range(n_docs):
        (docs / f"doc_{i:04d}.md").write_text(
            f"# Trámite {i}\n\n## Plazos\n\nEl trámite {i} se solicita entre el {1 + i % 28} de marzo y el {1 + i % 28} de abril en Bedelía.\n\n"
            f"## Requisitos\n\nPresentar la cédula y el formulario {i} firmado.\n\n## Costo\n\nNo tiene costo para estudiantes de grado.\n",
            encoding="utf-8",
        )
    started = time.perf_counter()
    report = ingest_documents(svc, [docs])
    ingest_s = time.perf_counter() - started
    with session_scope(svc.engine) as session:
        staff.add_staff(session=session, name="lucia", role=staff.LEAD, password=PASSWORD, actor="bench")
    with session_scope(svc.engine) as session:
        for i in range(n_drafts):
            state = "drafted" if i % 2 == 0 else ("quarantined" if i % 10 == 1 else "sent")
            m = InboundMessage(channel="email", source_key=f"bench:{i}", sender=f"est{i}@example.com", subject=f"Consulta {i}", cleaned_text=f"¿Cuándo se solicita el trámite {i % n_docs}?", redacted_text=f"¿Cuándo se solicita el trámite {i % n_docs}?", state=state, reason="malformed" if state == "quarantined" else None)
            session.add(m)
            if i % 1000 == 999:
                session.flush()
        session.flush()
    with session_scope(svc.engine) as session:
        rows = session.execute(InboundMessage.__table__.select().with_only_columns(InboundMessage.__table__.c.id, InboundMessage.__table__.c.state)).all()
        for mid, state in rows:
            if state != "quarantined":
                session.add(Draft(message_id=mid, text=f"Hola: el trámite se solicita en marzo.\nSaludos", method="extractive", model="extractive", references=[{"doc_id": f"doc_{mid % n_docs:04d}", "title": f"Trámite {mid % n_docs}"}]))
        for i in range(2000):
            session.add(CuratedAnswer(question=f"¿Cuándo se solicita el trámite {i}?", text=f"Entre marzo y abril (trámite {i}).", approved_by="bench", references=[{"doc_id": f"doc_{i % n_docs:04d}"}]))
    return svc, {"ingested": len(report.added), "chunks": report.chunks, "ingest_s": round(ingest_s, 1)}


def measure(svc, rounds: int, n_docs: int) -> dict:
    from fastapi.testclient import TestClient

    from bot.console.app import create_app
    from review.db import session_scope
    from review.models import Draft
    from sqlmodel import col, select

    app = create_app(svc)
    client = TestClient(app)
    token = re.search(r'name="csrftoken" value="([^"]+)"', client.get("/login").text).group(1)
    assert client.post("/login", data={"csrftoken": token, "name": "lucia", "password": PASSWORD}, follow_redirects=False).status_code == 303
    with session_scope(svc.engine) as session:
        pending = session.exec(select(Draft.id).order_by(col(Draft.id).desc())).first()
    pages = {
        "queue": "/", "queue_page_50": "/?page_no=50", "draft": f"/drafts/{pending}", "quarantined": "/messages?state=quarantined",
        "answers": "/answers", "answers_search": "/answers?q=tr%C3%A1mite%201234", "answers_stale": "/answers?state=stale",
        "documents": "/documents", "documents_page_5": "/documents?page_no=5", "documents_search": "/documents?q=tr%C3%A1mite%2042", "document": f"/documents/doc_{n_docs // 2:04d}", "digests": "/digests", "login": "/login",
    }
    out = {}
    for name, path in pages.items():
        assert client.get(path).status_code == 200, path  # warm-up
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            response = client.get(path)
            times.append((time.perf_counter() - t0) * 1000)
            assert response.status_code == 200
        times.sort()
        out[name] = {"p50_ms": round(statistics.median(times), 1), "p95_ms": round(times[max(0, int(round(0.95 * len(times))) - 1)], 1), "n": len(times)}
        print(f"{name:16} p50 {out[name]['p50_ms']:7.1f} ms   p95 {out[name]['p95_ms']:7.1f} ms", flush=True)
    app.console.state.jobs.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/orienta-bench-console"))
    parser.add_argument("--drafts", type=int, default=10_000)
    parser.add_argument("--documents", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    svc, setup = build(args.data_dir, args.drafts, args.documents)
    print(f"set-up: {setup}", flush=True)
    pages = measure(svc, args.rounds, args.documents)
    result = {"drafts": args.drafts, "documents": args.documents, "rounds": args.rounds, "setup": setup, "pages": pages, "worst_p95_ms": max(p["p95_ms"] for p in pages.values())}
    out = Path(__file__).with_name("results") / "console.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"worst p95 {result['worst_p95_ms']} ms → {out}")
    svc.close()


if __name__ == "__main__":
    main()
