"""A persistent embedding cache keyed by model name and text hash, so unchanged text is never re-embedded."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from pipeline.embeddings import Embedder

Progress = Callable[[int, int], None]


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Vectors in one SQLite file under the cache dir: (model, text hash) -> float32 vector, never the text.

    A vector of a student's message also carries when it was written (`at`, Unix seconds): retention forgets the vectors
    of purged messages by their hashes and, for any it could not name, by that time (`forget`, `forget_written_before`).
    Vectors of documents and training texts carry no time and stay."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / "embeddings.sqlite"
        self._conn: sqlite3.Connection | None = None

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path)
            self._conn.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT, key TEXT, vec BLOB, at REAL, PRIMARY KEY (model, key))")
            if "at" not in {row[1] for row in self._conn.execute("PRAGMA table_info(vectors)")}:  # a cache written before messages were dated
                with self._conn:
                    self._conn.execute("ALTER TABLE vectors ADD COLUMN at REAL")
        return self._conn

    def get_many(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for i in range(0, len(keys), 500):
            part = list(keys[i : i + 500])
            rows = self.conn.execute(f"SELECT key, vec FROM vectors WHERE model = ? AND key IN ({','.join('?' * len(part))})", [model, *part])
            out.update((k, np.frombuffer(v, dtype=np.float32)) for k, v in rows)
        return out

    def put_many(self, model: str, items: dict[str, np.ndarray], *, at: float | None = None) -> None:
        """Store vectors; `at` (Unix seconds) marks them as a message's, to be forgotten with it."""
        with self.conn:
            self.conn.executemany(
                "INSERT OR REPLACE INTO vectors (model, key, vec, at) VALUES (?, ?, ?, ?)",
                [(model, k, np.asarray(v, dtype=np.float32).tobytes(), at) for k, v in items.items()],
            )

    def forget(self, keys: Sequence[str]) -> int:
        """Delete the vectors of these text hashes, whatever the model; how many rows went."""
        removed = 0
        with self.conn:
            for i in range(0, len(keys), 500):
                part = list(keys[i : i + 500])
                removed += self.conn.execute(f"DELETE FROM vectors WHERE key IN ({','.join('?' * len(part))})", part).rowcount
        return removed

    def forget_written_before(self, at: float) -> int:
        """Delete the message vectors written before `at` (Unix seconds); how many rows went."""
        with self.conn:
            return self.conn.execute("DELETE FROM vectors WHERE at IS NOT NULL AND at < ?", (at,)).rowcount

    def compact(self) -> None:
        """Rewrite the file so deleted vectors leave no trace in its free pages."""
        self.conn.execute("VACUUM")

    def count(self, model: str | None = None) -> int:
        if model is None:
            return self.conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
        return self.conn.execute("SELECT COUNT(*) FROM vectors WHERE model = ?", (model,)).fetchone()[0]

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class CachedEmbedder:
    """Wraps an Embedder: passages come from the cache when their text was embedded before by the same model."""

    def __init__(self, embedder: Embedder, cache: EmbeddingCache, *, batch_size: int = 32) -> None:
        self.inner, self.cache, self.batch_size = embedder, cache, batch_size
        self.name = embedder.name
        self.hits = self.misses = 0

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_passages(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Embed passages, in batches, only those not already cached; `progress(done, total)` after each batch."""
        keys = [text_key(t) for t in texts]
        found = self.cache.get_many(self.name, list(dict.fromkeys(keys)))
        first = {k: i for i, k in reversed(list(enumerate(keys)))}
        todo = [i for k, i in first.items() if k not in found]  # each missing text once
        self.hits += len(texts) - len(todo)
        self.misses += len(todo)
        done = len(texts) - len(todo)
        if progress:
            progress(done, len(texts))
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start : start + self.batch_size]
            vecs = self.inner.embed_passages([texts[i] for i in batch])
            new = {keys[i]: v for i, v in zip(batch, vecs, strict=True)}
            self.cache.put_many(self.name, new)
            found.update(new)
            done += sum(1 for k in keys if k in new)
            if progress:
                progress(done, len(texts))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([found[k] for k in keys]).astype(np.float32)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_queries(texts)

    def __getattr__(self, name: str):
        if name == "late_name":  # late pooling only when the wrapped embedder has it
            return getattr(self.inner, "late_name")
        raise AttributeError(name)

    def embed_late(self, items: Sequence[tuple[str, Sequence[tuple[int, int]]]], progress: Progress | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
        """Late-pooled (passage vector, span vectors) per (text, spans), cached under the late-pooling name and
        the text with its spans (the engine's own vectors, under `name`, never mix with these)."""
        model, dim = self.late_name, self.dim
        keys = [text_key(t + "\x00" + ";".join(f"{a}:{b}" for a, b in spans)) for t, spans in items]
        found = self.cache.get_many(model, list(dict.fromkeys(keys)))
        first = {k: i for i, k in reversed(list(enumerate(keys)))}
        todo = [i for k, i in first.items() if k not in found]
        self.hits += len(items) - len(todo)
        self.misses += len(todo)
        done = len(items) - len(todo)
        if progress:
            progress(done, len(items))
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start : start + self.batch_size]
            res = self.inner.embed_late([items[i] for i in batch])  # type: ignore[attr-defined]
            new = {keys[i]: np.concatenate([v[None, :], np.asarray(sv, dtype=np.float32).reshape(-1, dim)]).reshape(-1) for i, (v, sv) in zip(batch, res, strict=True)}
            self.cache.put_many(model, new)
            found.update(new)
            done += len(batch)
            if progress:
                progress(done, len(items))
        out = []
        for k in keys:
            m = np.asarray(found[k], dtype=np.float32).reshape(-1, dim)
            out.append((m[0], m[1:]))
        return out
