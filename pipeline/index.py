"""The chunk index in Qdrant: local on-disk mode by default, a server when a URL is set."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.chunking import Chunk
from pipeline.errors import IndexError_

DENSE = "dense"
_NS = uuid.UUID("7c1f3a52-6a53-4b39-9a0e-2f9a3b1c0d11")


def point_id(chunk_id: str) -> str:
    """Stable Qdrant point id for a chunk id."""
    return str(uuid.uuid5(_NS, chunk_id))


@dataclass(slots=True)
class Hit:
    """A chunk returned by a search, with its score."""

    chunk: Chunk
    score: float


def chunk_payload(chunk: Chunk, content_hash: str) -> dict:
    return {
        "chunk_id": chunk.id,
        "doc_id": chunk.doc_id,
        "doc_title": chunk.doc_title,
        "text": chunk.text,
        "position": chunk.position,
        "url": chunk.url,
        "section": chunk.section,
        "page": chunk.page,
        "content_hash": content_hash,
        "active": True,
    }


def chunk_from_payload(p: dict) -> Chunk:
    return Chunk(
        doc_id=p["doc_id"],
        doc_title=p["doc_title"],
        text=p["text"],
        position=int(p["position"]),
        url=p.get("url"),
        section=p.get("section"),
        page=p.get("page"),
    )


class ChunkIndex:
    """Qdrant collection of chunks with a named dense vector."""

    def __init__(self, *, path: Path | None = None, url: str | None = None, api_key: str | None = None, collection: str = "orienta_chunks") -> None:
        self.path, self.url, self.api_key, self.collection = path, url, api_key, collection
        self._client = None

    @classmethod
    def from_settings(cls, settings) -> "ChunkIndex":  # settings: pipeline.settings.Settings
        q = settings.qdrant
        return cls(
            path=None if q.url else settings.paths.qdrant_dir,
            url=q.url,
            api_key=q.api_key.get_secret_value() if q.api_key else None,
            collection=q.collection,
        )

    @property
    def client(self):
        if self._client is None:
            from qdrant_client import QdrantClient

            if self.url:
                self._client = QdrantClient(url=self.url, api_key=self.api_key)
            else:
                assert self.path is not None
                self.path.mkdir(parents=True, exist_ok=True)
                self._client = QdrantClient(path=str(self.path))
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def exists(self) -> bool:
        return self.client.collection_exists(self.collection)

    def ensure(self, dim: int) -> None:
        """Create the collection if it does not exist."""
        from qdrant_client import models

        if not self.exists():
            self.client.create_collection(
                self.collection,
                vectors_config={DENSE: models.VectorParams(size=dim, distance=models.Distance.COSINE)},
            )
            if self.url:  # payload indexes only matter on a server
                self.client.create_payload_index(self.collection, "doc_id", models.PayloadSchemaType.KEYWORD)

    def reset(self) -> None:
        if self.exists():
            self.client.delete_collection(self.collection)

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray, *, content_hash: str) -> None:
        """Write all chunks of one document (call delete_document first to replace it)."""
        from qdrant_client import models

        points = [
            models.PointStruct(id=point_id(c.id), vector={DENSE: v.tolist()}, payload=chunk_payload(c, content_hash))
            for c, v in zip(chunks, vectors, strict=True)
        ]
        if points:
            self.client.upsert(self.collection, points=points, wait=True)

    def delete_document(self, doc_id: str) -> None:
        from qdrant_client import models

        if self.exists():
            self.client.delete(
                self.collection,
                points_selector=models.FilterSelector(filter=_doc_filter(doc_id)),
                wait=True,
            )

    def documents(self) -> dict[str, dict]:
        """Indexed documents: id -> {title, url, content_hash, chunks, active}."""
        if not self.exists():
            return {}
        docs: dict[str, dict] = {}
        offset = None
        while True:
            points, offset = self.client.scroll(self.collection, limit=512, offset=offset, with_payload=True, with_vectors=False)
            for p in points:
                pl = p.payload or {}
                d = docs.setdefault(pl["doc_id"], {"title": pl["doc_title"], "url": pl.get("url"), "content_hash": pl.get("content_hash"), "chunks": 0, "active": pl.get("active", True)})
                d["chunks"] += 1
            if offset is None:
                return docs

    def all_chunks(self, *, with_vectors: bool = False) -> list[tuple[Chunk, np.ndarray | None]]:
        """Every active chunk (and optionally its dense vector), in document order."""
        if not self.exists():
            return []
        out = []
        offset = None
        while True:
            points, offset = self.client.scroll(self.collection, limit=512, offset=offset, with_payload=True, with_vectors=[DENSE] if with_vectors else False)
            for p in points:
                if not (p.payload or {}).get("active", True):
                    continue
                vec = np.asarray(p.vector[DENSE], dtype=np.float32) if with_vectors and p.vector else None
                out.append((chunk_from_payload(p.payload), vec))
            if offset is None:
                break
        out.sort(key=lambda cv: (cv[0].doc_id, cv[0].position))
        return out

    def search_dense(self, vector: np.ndarray, k: int) -> list[Hit]:
        from qdrant_client import models

        if not self.exists():
            raise IndexError_("the index is empty: run `orienta ingest` first")
        res = self.client.query_points(
            self.collection,
            query=vector.tolist(),
            using=DENSE,
            limit=k,
            with_payload=True,
            query_filter=models.Filter(must_not=[models.FieldCondition(key="active", match=models.MatchValue(value=False))]),
        )
        return [Hit(chunk_from_payload(p.payload), float(p.score)) for p in res.points]


def _doc_filter(doc_id: str):
    from qdrant_client import models

    return models.Filter(must=[models.FieldCondition(key="doc_id", match=models.MatchValue(value=doc_id))])
