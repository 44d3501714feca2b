"""Routing benchmark: a campus of three offices built from the shared FIUSAC documents, routed on real questions.

Offices (by document, as the issue names them): course plans and evaluation rules (pensum_*, normativo_general_
evaluacion_promocion), EPS and internships (normativo_eps, normativo_practicas_finales), graduation
(guia_graduacion_privado_2025); preguntas_frecuentes is a shared campus document every office reads. The router is
trained from the offices' documents only (synthetic questions, `orienta offices train-router`); it is evaluated on
fiusac/qa_dev.jsonl (office from the question's document; questions about the shared document left out: any office
may answer them) and on ood/squad_es_dev.jsonl (office null), and on the fresh sets benchmarks/data/routing_fresh_*.jsonl
(informal questions per office and out-of-domain ones, written before the router changes they measure). None of these
questions is trained on.

  .venv/bin/python benchmarks/routing.py [--data-dir /tmp/r27/campus]

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
from classifiers.routing import GENERAL_KNOWLEDGE_MIN, Lexicon, Router, Wording, routing_report  # noqa: E402
from classifiers.synthetic import offline_questions  # noqa: E402
from pipeline.settings import load_settings  # noqa: E402
from review.db import session_scope  # noqa: E402
from review.office_models import OfficeCreate  # noqa: E402
from review.offices import add_office, find_office  # noqa: E402

SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parents[1] / "shared") if p.exists()), ROOT.parent / "shared")  # a worktree sits one level deeper
FIUSAC = SHARED / "corpora" / "fiusac"
OOD = SHARED / "corpora" / "ood" / "squad_es_dev.jsonl"
FRESH = sorted((ROOT / "benchmarks" / "data").glob("routing_fresh_*.jsonl"))  # held-out sets written before router changes
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
    """The same chunks split into ten offices (each study plan its own office), scored with the trained weights; its
    word model is fitted on the ten offices' own synthetic questions (what `train_router` would fit them on)."""
    groups: dict[str, list[tuple]] = {}
    for corpus in office_corpora(campus_of(services)):
        for chunk, vec in zip(corpus.chunks, corpus.vectors):
            key = chunk.doc_id if chunk.doc_id.startswith("pensum_") else {"cursos": "graduacion"}.get(corpus.office.name, corpus.office.name)
            groups.setdefault(key, []).append((chunk, vec))
    names = sorted(groups)
    lexicon = Lexicon.fit([[c.text for c, _ in groups[n]] for n in names])
    questions = {n: [e.text for e in offline_questions([c for c, _ in groups[n]])] for n in names}
    wording = Wording.fit([q for n in names for q in questions[n]], [n for n in names for _ in questions[n]], names)
    return Router(
        offices=names, office_vectors=[np.stack([v for _, v in groups[n]]) for n in names], lexicon=lexicon, gate=router.gate,
        mean=router.mean, scale=router.scale, weights=router.weights, bias=np.zeros(len(names), dtype=np.float32), wording=wording, general=router.general,
    )


def office_gates(services: Services, offices: list[str]) -> dict:
    """Each office's own gate: stored, else trained as `orienta gate train --office NAME` does (the other offices'
    questions as near misses)."""
    from bot.learning.gate_training import TrainOptions, train
    from bot.learning.routing import other_office_negatives

    campus, out = campus_of(services), {}
    for name in offices:
        svc = campus.office_services(name)
        gate = svc.gate_or_none()
        if gate is None:
            t = time.perf_counter()
            gate = train(svc, TrainOptions(generator="offline", near_misses=other_office_negatives(svc, name)))
            print(f"{name}: gate trained in {time.perf_counter() - t:.0f} s", flush=True)
        out[name] = gate
    return out


def miss(question: str, office: str | None, decision) -> dict:
    """A wrong routing with what decided it: the campus gate's score (after the general-knowledge bar), the general-
    knowledge probability and whether that bar turned the message away."""
    return {"question": question, "office": office, "routed": decision.office, "in_domain_score": round(decision.in_domain_score, 3),
            "general_knowledge": round(decision.general_knowledge, 3), "barred": decision.barred}


def general_knowledge_reach(decisions, truth, threshold: float) -> dict:
    """Where the general-knowledge probability can change a decision: only a message whose campus-gate score (before the
    bar) lies between the threshold and the halfway bar is turned away by a high probability and kept by a low one; a
    message under the threshold is out and one over the bar is in whatever the probability. Counted by in domain / out of
    domain and by what the bar did, with the out-of-domain messages let in over the bar (no probability reaches them)."""
    bar = (1.0 + threshold) / 2.0
    out = {"threshold": round(threshold, 4), "bar": round(bar, 4), "between": {"in_domain": {"turned_away": 0, "kept": 0}, "out_of_domain": {"turned_away": 0, "let_in": 0}},
           "out_of_domain_let_in_over_the_bar": 0}
    for d, t in zip(decisions, truth):
        kind = "in_domain" if t is not None else "out_of_domain"
        if d.barred:  # under the bar, over the threshold, a high probability: turned away
            out["between"][kind]["turned_away"] += 1
        elif d.general_knowledge < GENERAL_KNOWLEDGE_MIN and threshold <= d.in_domain_score < bar:
            out["between"][kind]["kept" if t is not None else "let_in"] += 1
        elif t is None and d.office is not None and d.in_domain_score >= bar:
            out["out_of_domain_let_in_over_the_bar"] += 1
    return out


def _without_gate(router: Router) -> Router:
    from dataclasses import replace

    return replace(router, gate=None)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "orienta-routing-bench")
    ap.add_argument("--retrain", action="store_true", help="Train the router again even if a fresh one is stored.")
    ap.add_argument("--office-gates", action="store_true", help="Also route with each office's own gate consulted (trained first when missing, as `orienta gate train --office NAME` does).")
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
    dev_misses = [miss(q, t, d) for q, t, d in zip(texts, truth, decisions) if d.office != t]
    n_in = len(qa)
    in_report = routing_report(truth[:n_in], [router.offices[int(np.argmax([d.probabilities[o] for o in router.offices]))] for d in decisions[:n_in]], offices=router.offices)
    ood_report = binary_report([1] * n_in + [0] * len(ood), [int(p is not None) for p in predicted])

    fresh = {}
    for path in FRESH:  # {"question", "office": name or null}, never trained on
        rows = read_jsonl(path)
        f_texts = [r["question"] for r in rows]
        f_decisions = router.route_many(f_texts, services.embedder, query_vecs=embed_queries_cached(services, f_texts))
        f_pred = [d.office for d in f_decisions]
        rep = routing_report([r["office"] for r in rows], f_pred, offices=router.offices)
        fresh[path.stem] = {k: rep[k] for k in ("macro_f1", "accuracy", "f1", "confusion", "n")}
        fresh[path.stem]["misses"] = [miss(q, r["office"], d) for q, r, d in zip(f_texts, rows, f_decisions) if d.office != r["office"]]
        print(f"{path.stem}: macro-F1 {rep['macro_f1']:.3f} ({sum(1 for t, p in zip(rows, f_pred) if t['office'] != p)} of {len(rows)} wrong)", flush=True)

    with_gates = None
    if args.office_gates:
        gates = office_gates(services, router.offices)
        variants = {}
        for label, r in (("campus_gate_and_office_gates", router), ("office_gates_only", _without_gate(router))):
            gated = r.route_many(texts, services.embedder, query_vecs=vecs, office_gates=gates)
            rep = routing_report(truth, [d.office for d in gated], offices=router.offices)
            ood_g = binary_report([1] * n_in + [0] * len(ood), [int(d.office is not None) for d in gated])
            variants[label] = {k: rep[k] for k in ("macro_f1", "accuracy", "f1", "confusion")} | {"out_of_domain": {k: ood_g[k] for k in ("f1_in", "f1_out", "precision_out", "recall_out")}, "refused_by_an_office_gate": sum(1 for d in gated if d.refused_by)}
        with_gates = {"office_gates": {o: {"threshold": g.threshold} if g is not None else None for o, g in gates.items()}} | variants
        print("with office gates:", {k: round(v["macro_f1"], 3) for k, v in variants.items()}, flush=True)

    latencies = {}
    for label, r in (("3_offices", router), ("10_offices", ten_office_router(router, services))):
        times, cpu, with_embedding = [], [], []
        for i in range(0, len(texts), 7):  # one message at a time
            s, c = time.perf_counter(), time.process_time()
            r.route(texts[i], services.embedder, query_vec=vecs[i])
            times.append((time.perf_counter() - s) * 1000)
            cpu.append((time.process_time() - c) * 1000)
        for i in range(0, len(texts), 41):
            s = time.perf_counter()
            r.route(f"{texts[i]} ({label})", services.embedder)  # a text the embedder has not memoised
            with_embedding.append((time.perf_counter() - s) * 1000)
        gated_times = []
        if with_gates is not None:  # one message at a time, its best office's own gate asked too (the one the loop uses)
            by_name = {n: gates.get("cursos" if n.startswith("pensum_") else n) for n in r.offices}
            for i in range(0, len(texts), 7):
                s = time.perf_counter()
                r.route(texts[i], services.embedder, query_vec=vecs[i], office_gates=by_name)
                gated_times.append((time.perf_counter() - s) * 1000)
        latencies[label] = ({"with_office_gates_ms_p50": statistics.median(gated_times), "with_office_gates_ms_p95": float(np.percentile(gated_times, 95))} if gated_times else {}) | {
            "offices": len(r.offices),
            "ms_p50": statistics.median(times), "ms_p95": float(np.percentile(times, 95)), "n": len(times),
            "cpu_ms_p50": statistics.median(cpu), "cpu_ms_p95": float(np.percentile(cpu, 95)),
            "with_embedding_ms_p50": statistics.median(with_embedding), "with_embedding_ms_p95": float(np.percentile(with_embedding, 95)),
        }
    result = {
        "protocol": __doc__.split("\n\n")[1].replace("\n", " "),
        "offices": router.offices,
        "router": router.meta,
        "train_seconds": train_s,
        "routing_with_ood": {k: all_report[k] for k in ("macro_f1", "accuracy", "f1", "confusion", "n")} | {"misses": dev_misses},
        "general_knowledge_reach": general_knowledge_reach(decisions, truth, router.gate.threshold) if router.gate is not None else None,
        "routing_in_domain_only": {k: in_report[k] for k in ("macro_f1", "accuracy", "f1", "confusion", "n")},
        "out_of_domain": {k: ood_report[k] for k in ("f1_in", "f1_out", "precision_out", "recall_out", "accuracy")},
        "fresh": fresh,
        "latency": latencies,
        "with_office_gates": with_gates,
        "note": "latency: route() per message with the question's embedding given (the drafting step embeds it once and the gate reuses it); with_embedding also embeds it. ms_*: wall clock, cpu_ms_*: the process's CPU time (every thread). 2 shared CPU cores, noisy timings.",
        "load_average": list(__import__("os").getloadavg()),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("offices", "out_of_domain", "latency")}, indent=1, ensure_ascii=False))
    print("routing macro-F1 (with OOD):", round(all_report["macro_f1"], 3), " in-domain only:", round(in_report["macro_f1"], 3))
    services.close()


if __name__ == "__main__":
    main()
