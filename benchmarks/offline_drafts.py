"""Offline draft quality on fiusac: debris, repeats, reference coverage, length, gold document, generation latency.

  nice -n 10 .venv/bin/python benchmarks/offline_drafts.py [--data-dir /tmp/orienta-bench-offline] [--limit N] [--details FILE.jsonl]
Indexes ../shared/corpora/fiusac/text with the default settings (incrementally), retrieves for every question of
fiusac/qa_dev.jsonl and times only the offline extractive generator (retrieval excluded). Per draft body:
- debris: ` | ` joins, runs of two or more `clave: valor` record fields, Markdown/HTML markup, or a line that the
  source documents repeat on three or more PDF pages (page headers/footers);
- repeated sentence: the same sentence (folded) twice in one draft;
- coverage: share of the reference answer's content words (folded, stop words dropped, light stem) found in the draft;
- words: draft body length; doc: the expected document among the answer's references;
- garbled: PDF text defects in the draft (benchmarks/pdf_text.py, garbled_signals: run-together or CamelCase-glued words,
  a hyphen left inside a word, a split ligature, stray list or page numbers);
- latency: wall time, the generating thread's CPU time and the process's CPU time (all threads: an embedding
  runtime's worker threads included) of `generate` alone; CPU times do not grow with other processes' load on a
  shared machine.
Writes benchmarks/results/offline_drafts.json.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path
from statistics import fmean, median

ROOT = Path(__file__).resolve().parents[1]
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from bot.ops.answer_eval import answer_body  # noqa: E402
from bot.ops.documents import ingest_documents, read_jsonl  # noqa: E402
from bot.wiring.services import Services  # noqa: E402
from benchmarks.pdf_text import garbled_signals  # noqa: E402
from pipeline.generation.readiness import readiness_of  # noqa: E402
from pipeline.loaders.vocabulary import Vocabulary  # noqa: E402
from pipeline.settings import load_settings  # noqa: E402
from pipeline.text import STOPWORDS_ES, fold, sentences, stem, tokens  # noqa: E402
from pipeline.units import HTML_TAG  # noqa: E402

FIUSAC = ROOT.parent / "shared" / "corpora" / "fiusac"
PDF_SOURCES = {"Guía de Graduación 2025", "Guía de Privado 2025", "NormativoEPS", "NormativoGeneral_Evaluacion_y_Promocion", "Normativo_finales", "Preguntas Frecuentes"}
_PAGE = re.compile(r"^-{2,}\s*p[áa]gina\s+\d+\s*-{2,}\s*$", re.IGNORECASE | re.MULTILINE)
_FIELD = re.compile(r"(?:^|[\s|])[a-záéíóúñ_]{3,20}:(?=\s*(?:\||$|\S))", re.MULTILINE)
_MARKUP = re.compile(r"\*\*|__|^#{1,6}\s|\s[,.;:](?=\s|$)", re.MULTILINE)  # HTML elements: pipeline.units.HTML_TAG (a placeholder such as '<número de dpi>' is text)


def page_headers(folder: Path) -> set[str]:
    """Lines that a document repeats on three or more of its pages (headers and footers)."""
    out: set[str] = set()
    for f in sorted(folder.glob("*.md")):
        pages = _PAGE.split(f.read_text(encoding="utf-8"))
        if len(pages) < 4:
            continue
        seen = Counter(line for p in pages for line in {x.strip() for x in p.splitlines()} if len(line) >= 6 and not line.isdigit())
        out.update(line for line, n in seen.items() if n >= 3)
    return out


def debris(body: str, headers: set[str]) -> list[str]:
    """What makes a draft look like flattened tables or page furniture."""
    found = []
    if " | " in body:
        found.append("pipe")
    if len(_FIELD.findall(body)) >= 2 and re.search(r"(?:^|\s)(?:codigo|nombre|creditos|prerequisitos|area|obligatorio):", fold(body)):
        found.append("fields")
    if _MARKUP.search(body) or HTML_TAG.search(body):
        found.append("markup")
    lines = {x.strip(" -•*") for x in body.splitlines()}
    if any(h in lines for h in headers):
        found.append("page_header")
    return found


def repeated(body: str) -> bool:
    seen = Counter(" ".join(tokens(s)) for s in sentences(body))
    return any(n > 1 and len(s) >= 15 for s, n in seen.items())


def content_words(text: str) -> set[str]:
    return {stem(w) for w in tokens(text) if w not in STOPWORDS_ES and len(w) > 2}


def summary(rows: list[dict]) -> dict:
    """The bar figures of a subset of drafts."""
    cov = [x["coverage"] for x in rows if x["coverage"] is not None]
    hits = [x["doc_hit"] for x in rows if x["doc_hit"] is not None]
    return {
        "n": len(rows),
        "expected_doc_in_references": round(sum(hits) / len(hits), 4) if hits else None,
        "coverage_mean": round(fmean(cov), 4) if cov else None,
        "words_median": median(x["words"] for x in rows) if rows else None,
        "drafts_with_debris": sum(bool(x["debris"]) for x in rows),
        "drafts_garbled": sum(bool(x["garbled"]) for x in rows),
        "ready": sum(x["readiness"] == "listo" for x in rows),
    }


def readiness_summary(rows: list[dict]) -> dict:
    """How many drafts are labelled listo, and how the reference coverage of those compares with the others (a proxy of the label's precision; the reviewer's judgement is the real one)."""
    ready = [x for x in rows if x["readiness"] == "listo" and x["coverage"] is not None]
    other = [x for x in rows if x["readiness"] != "listo" and x["coverage"] is not None]
    return {
        "ready": len(ready),
        "needs_review": len(other),
        "ready_coverage_ge_0_5": round(sum(x["coverage"] >= 0.5 for x in ready) / len(ready), 4) if ready else None,
        "needs_review_coverage_ge_0_5": round(sum(x["coverage"] >= 0.5 for x in other) / len(other), 4) if other else None,
    }


def percentile(values: list[float], q: float) -> float:
    xs = sorted(values)
    if not xs:
        return 0.0
    i = (len(xs) - 1) * q / 100
    lo, hi = int(i), min(int(i) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (i - lo)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/orienta-bench-offline"))
    ap.add_argument("--limit", type=int, default=None, help="An evenly spaced sample of N questions.")
    ap.add_argument("--corpus", type=Path, default=FIUSAC, help="The fiusac folder (text/ and qa_dev.jsonl).")
    ap.add_argument("--qa", type=Path, default=None, help="Questions (default: <corpus>/qa_dev.jsonl); each names its expected document as doc or document.")
    ap.add_argument("--details", type=Path, default=None, help="Write one JSON line per question here.")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "offline_drafts.json")
    ap.add_argument(
        "--documents",
        choices=("text", "pdf"),
        default="text",
        help="text: <corpus>/text (the converted documents); pdf: the original PDFs of <corpus>/pdf plus the course plans of text/, asked "
        "<corpus>/qa_dev_pdf.jsonl (the 115 rules/procedures questions, expected documents named after the PDFs). The PDFs are those "
        "that text/ was converted from; the law compilation, which text/ lacks, is left out.",
    )
    ap.add_argument("--ranker", type=Path, default=None, help="Rank units with this learned model (default: the data dir's adopted one, if any).")
    args = ap.parse_args()
    fiusac = args.corpus
    if not fiusac.exists():
        sys.exit(f"shared corpus not available at {fiusac}")
    args.qa = args.qa or fiusac / ("qa_dev_pdf.jsonl" if args.documents == "pdf" else "qa_dev.jsonl")
    settings = load_settings(data_dir=args.data_dir)
    if args.documents == "text":
        settings.paths.documents = [fiusac / "text"]
    else:  # the PDFs the text/ files were converted from (not the 260-page law compilation, which text/ lacks), and the course plans
        pdfs = [p for p in sorted((fiusac / "pdf").glob("*.pdf")) if p.stem in PDF_SOURCES]
        settings.paths.documents = pdfs + sorted((fiusac / "text").glob("pensum_*.md"))
    settings.llm.provider = "extractive"
    services = Services(settings)
    t0 = time.perf_counter()
    ingest_report = ingest_documents(services)
    index_s = time.perf_counter() - t0
    qa = read_jsonl(args.qa)
    if args.limit:
        qa = qa[:: max(1, len(qa) // args.limit)][: args.limit]
    headers = page_headers(fiusac / "text")
    vocab = Vocabulary()  # the Spanish list alone: a draft is judged by its words, not by what the documents repeat
    generator = services.generator()
    if args.ranker:
        from pipeline.generation.ranking import UnitRanker

        generator.ranker = UnitRanker.load(args.ranker)
    r = settings.retrieval
    generator.generate(qa[0]["question"], services.retriever.retrieve(qa[0]["question"], r.k, support=r.support_chunks))  # warm-up (corpus statistics)
    rows = []
    for row in qa:
        q = row["question"]
        hits = services.retriever.retrieve(q, r.k, support=r.support_chunks)
        start, cpu, proc = time.perf_counter(), time.thread_time(), time.process_time()
        answer = generator.generate(q, hits)
        ms, cpu_ms, proc_ms = (time.perf_counter() - start) * 1000, (time.thread_time() - cpu) * 1000, (time.process_time() - proc) * 1000
        body = answer_body(answer.text, settings.llm.language)
        ref = content_words(row.get("answer") or "")
        have = content_words(body)
        gold = row.get("doc") or row.get("document")  # the fresh sets name it "document"
        refs = [x.doc_id for x in answer.references]
        rows.append(
            {
                "question": q,
                "draft": body,
                "method": answer.method,
                "references": refs,
                "expected_doc": gold,
                "no_info": answer.no_info,
                "debris": debris(body, headers),
                "repeated_sentence": repeated(body),
                "coverage": round(len(ref & have) / len(ref), 4) if ref else None,
                "words": len(body.split()),
                "doc_hit": any(g in refs for g in (gold if isinstance(gold, list) else [gold])) if gold else None,
                "garbled": sorted(garbled_signals(body, vocab)),
                "readiness": (readiness_of(answer.flags) or {}).get("flag"),
                "missing": (readiness_of(answer.flags) or {}).get("missing"),
                "evidence": (readiness_of(answer.flags) or {}).get("evidence"),
                "kind": "course_plan" if any(str(d).startswith("pensum_") for d in (gold if isinstance(gold, list) else [gold])) else "rules_procedures",
                "latency_ms": round(ms, 2),
                "cpu_ms": round(cpu_ms, 2),
                "process_cpu_ms": round(proc_ms, 2),
            }
        )
    n = len(rows)
    cov = [x["coverage"] for x in rows if x["coverage"] is not None]
    lat = [x["latency_ms"] for x in rows]
    cpu_lat = [x["cpu_ms"] for x in rows]
    proc_lat = [x["process_cpu_ms"] for x in rows]
    hits = [x["doc_hit"] for x in rows if x["doc_hit"] is not None]
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    result = {
        "qa": str(args.qa.relative_to(fiusac.parent)) if args.qa.is_relative_to(fiusac.parent) else str(args.qa),
        "n_questions": n,
        "embedding": f"{settings.embedding.backend}/{settings.embedding.model}",
        "retrieval": {"mode": r.mode, "k": r.k, "chunking": r.chunking, "support_chunks": r.support_chunks},
        "drafts_with_debris": sum(bool(x["debris"]) for x in rows),
        "debris_kinds": dict(Counter(k for x in rows for k in x["debris"])),
        "drafts_with_repeated_sentence": sum(x["repeated_sentence"] for x in rows),
        "drafts_garbled": sum(bool(x["garbled"]) for x in rows),
        "garbled_kinds": dict(Counter(k for x in rows for k in x["garbled"])),
        "documents": args.documents,
        "coverage_mean": round(fmean(cov), 4) if cov else None,
        "coverage_median": round(median(cov), 4) if cov else None,
        "words_median": median(x["words"] for x in rows) if rows else None,
        "no_info": sum(x["no_info"] for x in rows),
        "expected_doc_in_references": round(sum(hits) / len(hits), 4) if hits else None,
        "generation_ms_p50": round(percentile(lat, 50), 2),
        "generation_ms_p95": round(percentile(lat, 95), 2),
        "generation_cpu_ms_p50": round(percentile(cpu_lat, 50), 2),  # CPU time of the generating thread: robust to a shared machine
        "generation_cpu_ms_p95": round(percentile(cpu_lat, 95), 2),
        "generation_process_cpu_ms_p50": round(percentile(proc_lat, 50), 2),  # all threads of the process (time.process_time)
        "generation_process_cpu_ms_p95": round(percentile(proc_lat, 95), 2),
        "by_kind": {kind: summary([x for x in rows if x["kind"] == kind]) for kind in ("course_plan", "rules_procedures")},
        "readiness": readiness_summary(rows),
        "ingest": {"seconds": round(index_s, 1), "added": len(ingest_report.added), "updated": len(ingest_report.updated), "unchanged": len(ingest_report.unchanged)},
        "loadavg": load,
        "note": "2-core machine shared with other jobs; latency is the generator alone, retrieval excluded",
    }
    services.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.details:
        args.details.parent.mkdir(parents=True, exist_ok=True)
        args.details.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in rows), encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k not in ("retrieval",)}, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
