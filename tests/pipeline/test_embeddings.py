"""The offline embedder's settings reach the model."""

from __future__ import annotations

import numpy as np

from pipeline.embeddings import embedder_from_settings
from pipeline.settings import EmbeddingSettings


def test_the_offline_embedder_runs_with_the_configured_thread_count():
    emb = embedder_from_settings(EmbeddingSettings(threads=1))
    assert emb.threads == 1
    one = emb.embed_queries(["¿Cuándo cierra la inscripción a exámenes?"])
    two = embedder_from_settings(EmbeddingSettings(threads=2)).embed_queries(["¿Cuándo cierra la inscripción a exámenes?"])
    assert one.shape == (1, emb.dim) and np.allclose(one, two, atol=1e-4)  # threads change speed, not vectors
    assert embedder_from_settings(EmbeddingSettings(threads=None)).threads is None
