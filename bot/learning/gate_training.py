"""Gate operations behind the CLI and the demo: train from the index, learn from staff decisions, evaluate."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sqlmodel import select

from bot.wiring.services import Services
from classifiers.errors import GateError
from classifiers.evaluation import binary_report, cluster_view, plot_view
from classifiers.features import FeatureSpace
from classifiers.gate import Gate, corpus_hash
from classifiers.synthetic import Example, load_dataset, save_dataset
from classifiers.training import offline_dataset, train_gate
from review.db import session_scope
from review.models import Decision, Draft, InboundMessage

log = logging.getLogger(__name__)
CACHE_BATCH = 512  # query embeddings written to the cache every this many texts


@dataclass
class TrainOptions:
    """What `orienta gate train` was asked for; unset fields fall back to GateSettings."""

    generator: str = "offline"  # offline | llm
    features: str | None = None
    model: str | None = None
    balanced: bool | None = None
    extra_examples: list[Example] | None = None  # labelled examples added as they are (already weighted)
    near_misses: list[Example] | None = None  # campus mode: questions of the other offices' documents, out of this office's domain


def _corpus(services: Services):
    pairs = services.index.all_chunks(with_vectors=True)
    if not pairs:
        raise GateError("the index is empty: run `orienta ingest` first")
    chunks = [c for c, _ in pairs]
    return chunks, np.stack([v for _, v in pairs]), corpus_hash([(c.id, c.text) for c in chunks])


def feedback_examples(services: Services) -> list[Example]:
    """Staff decisions as labelled examples: out-of-scope rejections and approved canned replies are out, other approvals in."""
    out: list[Example] = []
    with session_scope(services.engine) as session:
        rows = session.exec(select(Decision, Draft, InboundMessage).where(Decision.draft_id == Draft.id, Decision.message_id == InboundMessage.id)).all()
        for decision, draft, message in rows:
            text = (message.redacted_text or message.cleaned_text or "").strip()
            if not text:
                continue
            if decision.action == "reject" and decision.reason == "out_of_domain":
                label = 0
            elif decision.action == "approve" and draft.out_of_domain:
                label = 0
            elif decision.action in ("approve", "edit"):
                label = 1
            else:
                continue
            source = "feedback-no-info" if label == 1 and draft.no_info else "feedback"  # a content gap: in domain, no documents
            out.append(Example(text=text, label=label, style="feedback", source=source, topic=f"message:{message.id}"))
    return out


def curated_examples(services: Services) -> list[Example]:
    """Questions of the active curated answers: staff approved a reply to them, so they are in domain."""
    from review.answer_memory import questions_for_gate

    with session_scope(services.engine) as session:
        return [Example(text=q, label=1, style="curated", source="curated", topic="curated") for q in dict.fromkeys(questions_for_gate(session=session, offices=[services.office]))]  # this office's


def embed_queries_cached(services: Services, texts: Sequence[str], *, messages: bool = False) -> np.ndarray:
    """Query embeddings of training texts, kept in the embedding cache so retraining does not re-embed them.

    `messages`: the texts are (or may be) students' messages: the vectors written are dated, so retention forgets them."""
    from pipeline.embed_cache import EmbeddingCache, text_key

    embedder = services.embedder
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    cache = EmbeddingCache(services.settings.paths.cache_dir)
    model = f"{embedder.name}|query"
    try:
        keys = [text_key(t) for t in texts]
        found = cache.get_many(model, list(dict.fromkeys(keys)))
        todo = sorted({k: t for k, t in zip(keys, texts) if k not in found}.items())
        for start in range(0, len(todo), CACHE_BATCH):  # stored as it goes: an interrupted run keeps what it embedded
            part = todo[start : start + CACHE_BATCH]
            vecs = embedder.embed_queries([t for _, t in part])
            new = {k: v for (k, _), v in zip(part, vecs, strict=True)}
            cache.put_many(model, new, at=time.time() if messages else None)
            found.update(new)
        return np.stack([found[k] for k in keys]).astype(np.float32)
    finally:
        cache.close()


class CachedQueries:
    """The services' embedder with query embeddings kept in the embedding cache (keyed by embedder and text hash).

    The gate step judges every message through it, so a message's segments are embedded once, when it arrives; the
    retraining that later learns from the staff decision on it finds them there and embeds only texts it never saw.
    What it writes is dated as a message's (retention forgets it).
    `strict=False` (the gate step): a cache that cannot be read or written only costs the embedding, never the verdict."""

    def __init__(self, services: Services, *, strict: bool = True) -> None:
        self.services, self.strict = services, strict
        self.name, self.inner = services.embedder.name, services.embedder

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_passages(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        import sqlite3

        try:
            return embed_queries_cached(self.services, list(texts), messages=True)
        except (sqlite3.Error, OSError) as exc:
            if self.strict:
                raise
            log.warning("embedding cache unavailable (%s): embedding without it", exc)
            return self.inner.embed_queries(list(texts))


def dataset_path(services: Services, generator: str, corpus_id: str) -> Path:
    return services.settings.paths.gate_dir / "datasets" / f"{generator}-{corpus_id}.jsonl"


def synthetic_examples(services: Services, chunks, vectors, corpus_id: str, generator: str) -> tuple[list[Example], Path]:
    """The dataset for this corpus: read from its reviewable JSONL file if present, else generated once and saved."""
    path = dataset_path(services, generator, corpus_id)
    if path.exists() and generator != "offline":  # offline data is cheap and deterministic: regenerated, saved for review
        return load_dataset(path), path
    if generator == "offline":
        examples = offline_dataset(chunks)
    elif generator == "llm":
        if services.synthetic_llm is None:
            raise GateError("--llm needs an LLM: set ANTHROPIC_API_KEY (or use --offline)")
        from classifiers.llm_synthetic import llm_dataset

        g = services.settings.gate
        examples = llm_dataset(services.synthetic_llm, chunks, vectors, n_in=g.llm_in_domain, n_out=g.llm_out_of_domain)
        from classifiers.ood import bank_examples

        examples += bank_examples()
    else:
        raise GateError(f"unknown generator {generator!r}; use offline or llm")
    return examples, save_dataset(examples, path)


def train(services: Services, options: TrainOptions | None = None, *, directory: Path | None = None, use: bool = True) -> Gate:
    """Train the gate from the documents in the index (and staff feedback if asked), store it (in the gate directory
    unless told otherwise) and use it (unless `use` is False)."""
    options = options or TrainOptions()
    g = services.settings.gate
    chunks, vectors, corpus_id = _corpus(services)
    examples, path = synthetic_examples(services, chunks, vectors, corpus_id, options.generator)
    n_feedback = 0
    if options.extra_examples:
        n_feedback += len({(e.text, e.label) for e in options.extra_examples})
        examples = examples + list(options.extra_examples)
    if options.near_misses:
        examples = examples + list(options.near_misses)
    known = {e.text for e in examples}
    curated = [e for e in curated_examples(services) if e.text not in known]
    examples = examples + curated
    features = options.features or g.features
    space = FeatureSpace.fit(features, chunk_texts=[c.embed_text for c in chunks], chunk_vectors=vectors)
    query_vecs = embed_queries_cached(services, [e.text for e in examples]) if space.needs_embedding else None
    gate = train_gate(
        examples,
        space=space,
        embedder=services.embedder,
        query_vecs=query_vecs,
        model=options.model or g.model,
        balanced=g.balanced if options.balanced is None else options.balanced,
        k=g.knn_k,
        min_in_recall=g.min_in_recall,
    )
    gate.meta.update({"corpus_hash": corpus_id, "generator": options.generator, "dataset": str(path), "feedback_examples": n_feedback, "curated_examples": len(curated), "other_office_examples": len(options.near_misses or [])})
    gate.fresh = True
    gate.save(directory or services.settings.paths.gate_dir)
    if use:
        services._gate = gate
    return gate


def train_gate_offline(services: Services) -> Gate:
    """Train the gate with the configured defaults and the offline generator (the demo's path)."""
    return train(services, TrainOptions(generator="offline"))


def evaluate_gate(services: Services, in_domain: Sequence[str], out_of_domain: Sequence[str], *, plot: Path | None = None) -> dict:
    """The stored gate's scores on labelled questions (and optionally the PCA / K-Means plot)."""
    gate = services.gate
    texts = list(in_domain) + list(out_of_domain)
    y = [1] * len(in_domain) + [0] * len(out_of_domain)
    start = time.perf_counter()
    vecs = services.embedder.embed_queries(texts) if gate.space.needs_embedding or plot else None
    embed_s = time.perf_counter() - start
    start = time.perf_counter()
    probs = gate.probabilities(texts, services.embedder, query_vecs=vecs)
    decide_s = time.perf_counter() - start
    report = binary_report(y, [int(p >= gate.threshold) for p in probs])
    report |= {
        "threshold": gate.threshold,
        "model": gate.model,
        "features": gate.features,
        "stale": gate.is_stale(services.corpus_hash()),
        "ms_per_message_embedding": 1000 * embed_s / max(1, len(texts)),
        "ms_per_message_decision": 1000 * decide_s / max(1, len(texts)),
    }
    if plot is not None and vecs is not None and len(texts) >= 2:
        view = cluster_view(vecs, y)
        plot_view(view, y, plot)
        report["plot"] = str(plot)
        report["cluster_agreement"] = view["cluster_agreement"]
    return report
