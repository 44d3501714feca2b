"""Gate operations behind the CLI and the demo: train from the index, evaluate on labelled questions."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from bot.services import Services
from classifiers.gate import Gate
from classifiers.training import train_offline


def train_gate_offline(services: Services) -> Gate:
    """Train the gate from the documents currently in the index and store it."""
    chunks_vecs = services.index.all_chunks(with_vectors=True)
    if not chunks_vecs:
        raise RuntimeError("the index is empty: run `orienta ingest` first")
    chunks = [c for c, _ in chunks_vecs]
    vectors = np.stack([v for _, v in chunks_vecs])
    g = services.settings.gate
    gate = train_offline(chunks, vectors, embedder=services.embedder, features=g.features, balanced=g.balanced)
    gate.save(services.settings.paths.gate_dir)
    services._gate = gate
    return gate


def binary_report(y_true: Sequence[int], y_pred: Sequence[int]) -> dict:
    """Precision, recall and F1 for both classes (1 = in domain, 0 = out of domain)."""
    y, p = np.asarray(y_true), np.asarray(y_pred)
    out: dict = {"n": int(len(y)), "accuracy": float((y == p).mean()) if len(y) else 0.0}
    for label, name in ((1, "in"), (0, "out")):
        tp = int(((p == label) & (y == label)).sum())
        fp = int(((p == label) & (y != label)).sum())
        fn = int(((p != label) & (y == label)).sum())
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        out[f"precision_{name}"] = prec
        out[f"recall_{name}"] = rec
        out[f"f1_{name}"] = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return out


def evaluate_gate(services: Services, in_domain: Sequence[str], out_of_domain: Sequence[str]) -> dict:
    """The stored gate's scores on labelled questions."""
    gate = services.gate
    texts = list(in_domain) + list(out_of_domain)
    y = [1] * len(in_domain) + [0] * len(out_of_domain)
    start = time.perf_counter()
    probs = gate.probabilities(texts, services.embedder)
    elapsed = time.perf_counter() - start
    report = binary_report(y, [int(p >= gate.threshold) for p in probs])
    report["threshold"] = gate.threshold
    report["ms_per_message"] = 1000 * elapsed / max(1, len(texts))
    return report


