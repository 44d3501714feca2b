"""Routing benchmark: a campus of three offices built from the shared FIUSAC documents, routed on real questions.

Offices (by document, as the issue names them): course plans and evaluation rules (pensum_*, normativo_general_
evaluacion_promocion), EPS and internships (normativo_eps, normativo_practicas_finales), graduation
(guia_graduacion_privado_2025); preguntas_frecuentes is a shared campus document every office reads. The router is
trained from the offices' documents only (synthetic questions, `orienta offices train-router`); it is evaluated on
fiusac/qa_dev.jsonl (office from the question's document; questions about the shared document left out: any office
may answer them) and on ood/squad_es_dev.jsonl (office null). None of these questions is trained on.

  /work/main/.venv/bin/python benchmarks/routing.py [--data-dir /tmp/r27/campus]

builds the campus in the data dir when it is not there (the same steps as `orienta offices add NAME --documents DIR`
and `orienta ingest --office NAME`), and writes benchmarks/results/routing.json. The latency part routes one message
at a time through a ten-office router (the eight study plans as offices of their own, plus EPS and graduation) built
from the same chunks.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [str(ROOT)] + [p for p in sys.path if p and Path(p).resolve() != Path(__file__).resolve().parent]

from bot.wiring.campus import campus_of  # noqa: E402
from bot.learning.gate_training import embed_queries_cached  # noqa: E402
from bot.learning.routing import office_corpora, router_or_none, train_router  # noqa: E402
from bot.ops.documents import ingest_documents, read_jsonl  # noqa: E402
from bot.wiring.services import Services  # noqa: E402
from classifiers.evaluation import binary_report  # noqa: E402
from classifiers.routing import Lexicon, Router, routing_report  # noqa: E402
from pipeline.settings import load_settings  # noqa: E402
from review.db import session_scope  # noqa: E402
from review.office_models import OfficeCreate  # noqa: E402
from review.offices import add_office, find_office  # noqa: E402

SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parents[1] / "shared") if p.exists()), ROOT.parent / "shared")  # a worktree sits one level deeper
FIUSAC = SHARED / "corpora" / "fiusac"
OOD = SHARED / "corpora" / "ood" / "squad_es_dev.jsonl"
SHARED_DOC = "preguntas_frecuentes"


def office_of(doc: str) -> str | None:
    if doc.startswith("pensum_") or doc == "normativo_general_evaluacion_promocion":
        return "cursos"
    if doc in ("normativo_eps", "normativo_practicas_finales"):
        return "eps"
    if doc == "guia_graduacion_privado_2025":
        return "graduacion"
    return None


def build_campus(data_dir: Path) -> Services:
    """The three offices (document folders of symbolic links to the shared files) and the shared FAQ, indexed."""
    docs = data_dir / "sources"  # not data_dir/documents: that folder holds what the console uploads
    for path in sorted((FIUSAC / "text").glob("*.md")):
        office = office_of(path.stem) or ("campus" if path.stem == SHARED_DOC else None)
        if office is None:
            continue
        (docs / office).mkdir(parents=True, exist_ok=True)
        link = docs / office / path.name
        if not link.exists():
            link.symlink_to(path)
    services = Services(load_settings(data_dir=data_dir, offices={"shared_documents": [docs / "campus"]}))
    campus = campus_of(services)
    for name in ("cursos", "eps", "graduacion"):
        with session_scope(services.engine) as session:
            if find_office(session=session, name=name) is None:
                add_office(session=session, data=OfficeCreate(name=name, slug="", documents=[str(docs / name)]), actor="benchmark")
        report = ingest_documents(campus.office_services(name))
        print(f"{name}: {len(report.added)} added, {report.chunks} chunks", flush=True)
    return services


def ten_office_router(router: Router, services: Services) -> Router:
    """The same chunks split into ten offices (each study plan its own office), scored with the trained weights."""
    groups: dict[str, list[tuple]] = {}
    for corpus in office_corpora(campus_of(services)):
        for chunk, vec in zip(corpus.chunks, corpus.vectors):
            key = chunk.doc_id if chunk.doc_id.startswith("pensum_") else {"cursos": "graduacion"}.get(corpus.office.name, corpus.office.name)
            groups.setdefault(key, []).append((chunk, vec))
    names = sorted(groups)
    lexicon = Lexicon.fit([[c.text for c, _ in groups[n]] for n in names])
    return Router(
        offices=names, office_vectors=[np.stack([v for _, v in groups[n]]) for n in names], lexicon=lexicon, gate=router.gate,
        mean=router.mean, scale=router.scale, weights=router.weights, bias=np.zeros(len(names), dtype=np.float32),
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "orienta-routing-bench")
    ap.add_argument("--retrain", action="store_true", help="Train the router again even if a fresh one is stored.")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "routing.json")
    args = ap.parse_args()

    if not FIUSAC.exists():
        sys.exit(f"the shared corpora are not at {SHARED}")
    services = build_campus(args.data_dir)
    t0 = time.perf_counter()
    router = (None if args.retrain else router_or_none(services)) or train_router(services)
    train_s = time.perf_counter() - t0

    qa = [r for r in read_jsonl(FIUSAC / "qa_dev.jsonl") if isinstance(r["doc"], str) and office_of(r["doc"])]
    ood = read_jsonl(OOD)
    texts = [r["question"] for r in qa] + [r["question"] for r in ood]
    truth = [office_of(r["doc"]) for r in qa] + [None] * len(ood)
    vecs = embed_queries_cached(services, texts)
    decisions = router.route_many(texts, services.embedder, query_vecs=vecs)
    predicted = [d.office for d in decisions]
    all_report = routing_report(truth, predicted, offices=router.offices)
    n_in = len(qa)
    in_report = routing_report(truth[:n_in], [router.offices[int(np.argmax([d.probabilities[o] for o in router.offices]))] for d in decisions[:n_in]], offices=router.offices)
    ood_report = binary_report([1] * n_in + [0] * len(ood), [int(p is not None) for p in predicted])

    latencies = {}
    for label, r in (("3_offices", router), ("10_offices", ten_office_router(router, services))):
        times, with_embedding = [], []
        for i in range(0, len(texts), 7):  # one message at a time
            s = time.perf_counter()
            r.route(texts[i], services.embedder, query_vec=vecs[i])
            times.append((time.perf_counter() - s) * 1000)
        for i in range(0, len(texts), 41):
            s = time.perf_counter()
            r.route(f"{texts[i]} ({label})", services.embedder)  # a text the embedder has not memoised
            with_embedding.append((time.perf_counter() - s) * 1000)
        latencies[label] = {
            "offices": len(r.offices),
            "ms_p50": statistics.median(times), "ms_p95": float(np.percentile(times, 95)), "n": len(times),
            "with_embedding_ms_p50": statistics.median(with_embedding), "with_embedding_ms_p95": float(np.percentile(with_embedding, 95)),
        }
    result = {
        "protocol": __doc__.split("\n\n")[1].replace("\n", " "),
        "offices": router.offices,
        "router": router.meta,
        "train_seconds": train_s,
        "routing_with_ood": {k: all_report[k] for k in ("macro_f1", "accuracy", "f1", "confusion", "n")},
        "routing_in_domain_only": {k: in_report[k] for k in ("macro_f1", "accuracy", "f1", "confusion", "n")},
        "out_of_domain": {k: ood_report[k] for k in ("f1_in", "f1_out", "precision_out", "recall_out", "accuracy")},
        "latency": latencies,
        "note": "latency: route() per message with the question's embedding given (the drafting step embeds it once and the gate reuses it); with_embedding also embeds it. 2 shared CPU cores, noisy timings.",
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("offices", "out_of_domain", "latency")}, indent=1, ensure_ascii=False))
    print("routing macro-F1 (with OOD):", round(all_report["macro_f1"], 3), " in-domain only:", round(in_report["macro_f1"], 3))
    services.close()


if __name__ == "__main__":
    main()
