"""Training entry points: build the synthetic dataset from indexed chunks and fit the gate."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from classifiers.bank import load_ood_bank
from classifiers.gate import Gate, corpus_hash, train_gate
from classifiers.synthetic import Example, offline_questions
from pipeline.chunking import Chunk
from pipeline.embeddings import Embedder


def offline_dataset(chunks: Sequence[Chunk], *, seed: int = 13) -> list[Example]:
    """Templated in-domain questions plus the bundled out-of-domain bank."""
    examples = offline_questions(chunks, seed=seed)
    examples += [Example(text=row["text"], label=0, style="bank", source="ood-bank") for row in load_ood_bank()]
    return examples


def train_offline(chunks: Sequence[Chunk], vectors: np.ndarray, *, embedder: Embedder, features: str = "embedding+similarity", balanced: bool = True) -> Gate:
    """Fit the gate on the offline synthetic dataset for these chunks."""
    examples = offline_dataset(chunks)
    gate = train_gate(
        [e.text for e in examples if e.label == 1],
        [e.text for e in examples if e.label == 0],
        embedder=embedder,
        corpus=vectors,
        corpus_id=corpus_hash([(c.id, c.text) for c in chunks]),
        features=features,
        balanced=balanced,
    )
    gate.meta["generator"] = "offline"
    return gate
