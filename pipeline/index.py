"""The chunk index in Qdrant: local on-disk mode by default, a server when a URL is set (same code path)."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from pipeline.chunking import Chunk
from pipeline.errors import IndexBusy, IndexError_
from pipeline.sparse import SparseVector

if TYPE_CHECKING:
    from pipeline.local_search import LocalSearch

DENSE = "dense"
SPARSE = "sparse"
_NS = uuid.UUID("7c1f3a52-6a53-4b39-9a0e-2f9a3b1c0d11")
_EMPTY = "the index is empty: run `orienta ingest` first"
_DOC_FIELDS = ("doc_title", "source", "url", "content_hash", "ingested_at", "active", "chunking", "embedder")
# A document version is written in two steps: its points first carry PENDING (and active False, so retrieval skips them)
# with VERSION_CHUNKS (how many points the version has); one set_payload then flips them live. `recover()` finishes a
# flip whose points are all there and deletes a version cut short (an ingest killed mid-document).
PENDING = "pending"
VERSION = "version"
VERSION_CHUNKS = "version_chunks"


def point_id(chunk_id: str, content_hash: str = "") -> str:
    """Stable Qdrant point id for a chunk of one version of a document."""
    return str(uuid.uuid5(_NS, f"{chunk_id}@{content_hash}" if content_hash else chunk_id))


@dataclass(slots=True)
class Hit:
    """A chunk returned by a search, with its score."""

    chunk: Chunk
    score: float


def chunk_payload(chunk: Chunk, content_hash: str, doc_meta: dict | None = None) -> dict:
    """The payload stored with a chunk: its own fields plus its document's metadata."""
    payload = {"content_hash": content_hash, "active": True, **(doc_meta or {})}
    payload.update(
        chunk_id=chunk.id,
        doc_id=chunk.doc_id,
        doc_title=chunk.doc_title,
        text=chunk.text,
        position=chunk.position,
        url=chunk.url,
        section=chunk.section,
        page=chunk.page,
    )
    if chunk.units is not None:
        payload["units"] = [u.as_payload() for u in chunk.units]
    return payload


def chunk_from_payload(p: dict) -> Chunk:
    from pipeline.units import Unit

    return Chunk(
        doc_id=p["doc_id"],
        doc_title=p["doc_title"],
        text=p["text"],
        position=int(p["position"]),
        url=p.get("url"),
        section=p.get("section"),
        page=p.get("page"),
        meta={"content_hash": p["content_hash"]} if p.get("content_hash") else {},
        units=[Unit.from_payload(u) for u in p["units"]] if "units" in p else None,
    )


def version_key(content_hash: str, chunking: str | None = None, embedder: str | None = None) -> str:
    """What one stored version of a document is: its text, how it was chunked and which model embedded it."""
    import hashlib

    if not chunking and not embedder:
        return content_hash
    return content_hash[:32] + "-" + hashlib.sha256(f"{chunking}|{embedder}".encode()).hexdigest()[:12]


def _doc_filter(doc_id: str, *, version: str | None = None, other_versions: bool = False):
    from qdrant_client import models

    must = [models.FieldCondition(key="doc_id", match=models.MatchValue(value=doc_id))]
    must_not = []
    if version is not None:
        cond = models.FieldCondition(key=VERSION, match=models.MatchValue(value=version))
        (must_not if other_versions else must).append(cond)
    return models.Filter(must=must, must_not=must_not or None)


def _pending_filter():
    from qdrant_client import models

    return models.Filter(must=[models.FieldCondition(key=PENDING, match=models.MatchValue(value=True))])


def _active_filter():
    from qdrant_client import models

    return models.Filter(must_not=[models.FieldCondition(key="active", match=models.MatchValue(value=False))])


# Weighted RRF (RetrievalSettings.fusion_weights, the default hybrid query) is served from Qdrant v1.17
# (https://qdrant.tech/documentation/search/hybrid-queries/, "Weighted RRF"); older servers refuse the query.
MIN_QDRANT_SERVER = (1, 17, 0)


def _version_tuple(text: str) -> tuple[int, ...]:
    import re

    return tuple(int(x) for x in re.findall(r"\d+", text.split("-", 1)[0])[:3])


def check_server_version(client) -> str:
    """The Qdrant server's version; IndexError_ naming the minimum when it is older than every query orienta sends needs."""
    try:
        version = client.info().version
    except Exception as exc:  # noqa: BLE001 - unreachable, refused, not Qdrant: one clear error
        raise IndexError_(f"cannot reach the Qdrant server: {type(exc).__name__}: {exc}") from exc
    if _version_tuple(version) < MIN_QDRANT_SERVER:
        minimum = ".".join(map(str, MIN_QDRANT_SERVER))
        raise IndexError_(f"the Qdrant server is v{version}; orienta needs v{minimum} or newer (weighted RRF in hybrid search): upgrade the qdrant/qdrant image")
    return version


class ChunkIndex:
    """Qdrant collection of chunks with a named dense vector and a named sparse (BM25, IDF-modified) vector."""

    def __init__(
        self,
        *,
        path: Path | None = None,
        url: str | None = None,
        api_key: str | None = None,
        collection: str = "orienta_chunks",
        batch_size: int = 256,
        fast_local_search: bool = True,
    ) -> None:
        self.path, self.url, self.api_key, self.collection = path, url, api_key, collection
        self.batch_size = batch_size
        self.fast_local_search = fast_local_search
        self._client = None
        self._has_inactive: bool | None = None  # local mode only: skip the (slow, pure-Python) filter when nothing is inactive
        self._local_search: LocalSearch | None = None  # local mode only: in-memory copy searched instead of qdrant-client's local scoring

    @classmethod
    def from_settings(cls, settings) -> "ChunkIndex":  # settings: pipeline.settings.Settings
        q = settings.qdrant
        return cls(
            path=None if q.url else settings.paths.qdrant_dir,
            url=q.url,
            api_key=q.api_key.get_secret_value() if q.api_key else None,
            collection=q.collection,
            fast_local_search=q.fast_local_search,
        )

    @property
    def client(self):
        if self._client is None:
            from qdrant_client import QdrantClient

            if self.url:
                client = QdrantClient(url=self.url, api_key=self.api_key)
                check_server_version(client)
                self._client = client
            else:
                assert self.path is not None
                self.path.mkdir(parents=True, exist_ok=True)
                try:
                    self._client = QdrantClient(path=str(self.path))
                except RuntimeError as exc:  # local mode holds a file lock: one process at a time
                    raise IndexBusy(f"the local index at {self.path} is in use by another orienta process ({exc})") from exc
        return self._client

    def close(self) -> None:
        self._changed()  # once the file lock is released another process may write
        if self._client is not None:
            self._client.close()
            self._client = None

    def _changed(self) -> None:
        """Forget what a write may have made stale (called after every write)."""
        self._has_inactive = None
        self._local_search = None

    def exists(self) -> bool:
        return self.client.collection_exists(self.collection)

    def ensure(self, dim: int) -> None:
        """Create the collection if needed; refuse one built for another vector size or without sparse vectors."""
        from qdrant_client import models

        if self.exists():
            info = self.client.get_collection(self.collection)
            vectors = info.config.params.vectors
            have = vectors.get(DENSE).size if isinstance(vectors, dict) and DENSE in vectors else None
            sparse = info.config.params.sparse_vectors or {}
            if have != dim or SPARSE not in sparse:
                raise IndexError_(
                    f"the index was built with another embedding model or layout (dense size {have}, now {dim}); rebuild it with `orienta ingest --reset`"
                )
            return
        server = {}
        if self.url:  # a server holds what local mode cannot (benchmarks/scale_curve.py; README "Index at scale")
            server = {
                # payloads (chunk text and its answer units with their vectors: ~4 KB a chunk) stay on disk; a search reads
                # only the top hits' payloads, and the fields filters use are payload-indexed below (kept in RAM)
                "on_disk_payload": True,
                # int8 copies of the dense vectors in RAM (4x smaller), full vectors kept to rescore the candidates
                "quantization_config": models.ScalarQuantization(scalar=models.ScalarQuantizationConfig(type=models.ScalarType.INT8, quantile=0.99, always_ram=True)),
                "hnsw_config": models.HnswConfigDiff(m=16, ef_construct=100),
            }
        self.client.create_collection(
            self.collection,
            vectors_config={DENSE: models.VectorParams(size=dim, distance=models.Distance.COSINE)},
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            **server,
        )
        self._changed()
        if self.url:  # payload indexes only matter on a server
            for key in ("doc_id", "content_hash", VERSION):
                self.client.create_payload_index(self.collection, key, models.PayloadSchemaType.KEYWORD)
            self.client.create_payload_index(self.collection, "active", models.PayloadSchemaType.BOOL)
            self.client.create_payload_index(self.collection, PENDING, models.PayloadSchemaType.BOOL)

    def reset(self) -> None:
        if self.exists():
            self.client.delete_collection(self.collection)
        self._changed()

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray, *, content_hash: str, sparse: Sequence[SparseVector] | None = None, doc_meta: dict | None = None, pending: bool = False) -> None:
        """Write all chunks of one document version (see replace_document for the atomic swap).

        `pending`: the points are written hidden (active False, PENDING True) until `_flip` makes them live.
        """
        from qdrant_client import models

        meta = dict(doc_meta or {})
        version = meta.setdefault(VERSION, version_key(content_hash, meta.get("chunking"), meta.get("embedder")))
        if pending:
            meta.update({"doc_active": bool(meta.get("active", True)), "active": False, PENDING: True, VERSION_CHUNKS: len(chunks)})
        sparse = sparse if sparse is not None else [None] * len(chunks)
        points = []
        for c, v, s in zip(chunks, vectors, sparse, strict=True):
            vector = {DENSE: np.asarray(v, dtype=np.float32).tolist()}
            if s is not None and s.indices:
                vector[SPARSE] = s.to_qdrant()
            points.append(models.PointStruct(id=point_id(c.id, version), vector=vector, payload=chunk_payload(c, content_hash, meta)))
        try:
            for i in range(0, len(points), self.batch_size):
                self.client.upsert(self.collection, points=points[i : i + self.batch_size], wait=True)
        finally:
            self._changed()

    def replace_document(self, chunks: Sequence[Chunk], vectors: np.ndarray, sparse: Sequence[SparseVector], *, doc_meta: dict) -> None:
        """Write a new version of a document atomically, then drop the old one.

        The new points are written hidden, then flipped live in one set_payload; on failure (or a kill) the old
        version stays and the hidden points are removed (here, or by `recover()` on the next ingest).
        """
        meta = dict(doc_meta)
        doc_id, content_hash = meta["doc_id"], meta["content_hash"]
        version = meta.setdefault(VERSION, version_key(content_hash, meta.get("chunking"), meta.get("embedder")))
        active = bool(meta.get("active", True))
        try:
            self.upsert(chunks, vectors, content_hash=content_hash, sparse=sparse, doc_meta=meta, pending=True)
            self._flip(doc_id, version, active)
        except Exception as exc:  # any client/transport failure: roll back this version's points
            self._delete(_doc_filter(doc_id, version=version))
            raise IndexError_(f"{doc_id}: writing to the index failed ({type(exc).__name__}: {exc}); the previous version was kept") from exc
        self._delete(_doc_filter(doc_id, version=version, other_versions=True))

    def _flip(self, doc_id: str, version: str, active: bool) -> None:
        """Make a written version live: one payload update over all its points."""
        try:
            self.client.set_payload(self.collection, payload={"active": active, PENDING: False}, points=_doc_filter(doc_id, version=version), wait=True)
        finally:
            self._changed()

    def recover(self) -> dict[str, list[str]]:
        """Finish or undo what an interrupted ingest left: versions whose points are all written go live, the rest are deleted.

        Returns {"completed": [...], "discarded": [...]} (doc_id@version). Safe to call any time no ingest is running.
        """
        out: dict[str, list[str]] = {"completed": [], "discarded": []}
        if not self.exists():
            return out
        versions: dict[tuple[str, str], dict] = {}
        for p in self._scroll(with_vectors=False, flt=_pending_filter()):
            pl = p.payload or {}
            versions.setdefault((pl["doc_id"], pl.get(VERSION) or ""), pl)
        for (doc_id, version), pl in versions.items():
            have = self.client.count(self.collection, count_filter=_doc_filter(doc_id, version=version), exact=True).count
            if version and have == pl.get(VERSION_CHUNKS):
                self._flip(doc_id, version, bool(pl.get("doc_active", True)))
                self._delete(_doc_filter(doc_id, version=version, other_versions=True))
                out["completed"].append(f"{doc_id}@{version}")
            else:
                self._delete(_doc_filter(doc_id, version=version))
                out["discarded"].append(f"{doc_id}@{version}")
        return out

    def _delete(self, flt) -> None:
        from qdrant_client import models

        if self.exists():
            try:
                self.client.delete(self.collection, points_selector=models.FilterSelector(filter=flt), wait=True)
            finally:
                self._changed()

    def delete_document(self, doc_id: str) -> None:
        self._delete(_doc_filter(doc_id))

    def set_active(self, doc_id: str, active: bool) -> int:
        """Include (True) or exclude (False) a document from retrieval without deleting it; returns its chunk count."""
        n = self.client.count(self.collection, count_filter=_doc_filter(doc_id), exact=True).count if self.exists() else 0
        if n:
            try:
                self.client.set_payload(self.collection, payload={"active": active}, points=_doc_filter(doc_id), wait=True)
            finally:
                self._changed()
        return n

    def _retrieval_filter(self):
        """The filter that hides inactive documents (None in local mode while every document is active)."""
        if self.url:
            return _active_filter()
        if self._has_inactive is None:
            if not self.exists():
                return None
            from qdrant_client import models

            inactive = models.Filter(must=[models.FieldCondition(key="active", match=models.MatchValue(value=False))])
            self._has_inactive = self.client.count(self.collection, count_filter=inactive, exact=True).count > 0
        return _active_filter() if self._has_inactive else None

    def _scroll(self, *, with_vectors, flt=None):
        offset = None
        while True:
            points, offset = self.client.scroll(self.collection, scroll_filter=flt, limit=512, offset=offset, with_payload=True, with_vectors=with_vectors)
            yield from points
            if offset is None:
                return

    def documents(self) -> dict[str, dict]:
        """Indexed documents: id -> {title, url, source, content_hash, ingested_at, active, chunking, embedder, chunks}."""
        if not self.exists():
            return {}
        docs: dict[str, dict] = {}
        for p in self._scroll(with_vectors=False):
            pl = p.payload or {}
            if pl.get(PENDING):
                continue  # a version being written (or cut short): not indexed yet
            d = docs.setdefault(pl["doc_id"], {"title": pl.get("doc_title"), **{k: pl.get(k) for k in _DOC_FIELDS if k != "doc_title"}, "chunks": 0})
            d["active"] = True if d["active"] is None else d["active"]
            d["chunks"] += 1
        return docs

    def all_chunks(self, *, with_vectors: bool = False, doc_ids: Collection[str] | None = None) -> list[tuple[Chunk, np.ndarray | None]]:
        """Every active chunk (of `doc_ids` only, when given; optionally with its dense vector), in document order."""
        if not self.exists():
            return []
        flt = _active_filter()
        if doc_ids is not None:
            from qdrant_client import models

            flt.must = [models.FieldCondition(key="doc_id", match=models.MatchAny(any=sorted(doc_ids)))]
        out = []
        for p in self._scroll(with_vectors=[DENSE] if with_vectors else False, flt=flt):
            vec = np.asarray(p.vector[DENSE], dtype=np.float32) if with_vectors and p.vector else None
            out.append((chunk_from_payload(p.payload), vec))
        out.sort(key=lambda cv: (cv[0].doc_id, cv[0].position))
        return out

    def count(self) -> int:
        return self.client.count(self.collection, exact=True).count if self.exists() else 0

    def _query(self, **kwargs) -> list[Hit]:
        if not self.exists():
            raise IndexError_(_EMPTY)
        res = self.client.query_points(self.collection, with_payload=True, query_filter=self._retrieval_filter(), **kwargs)
        return [Hit(chunk_from_payload(p.payload), float(p.score)) for p in res.points]

    def _fast(self) -> LocalSearch | None:
        """The in-memory copy searched in local mode (built on first use after a write), or None when Qdrant does the search."""
        if self.url or not self.fast_local_search:
            return None
        if not self.exists():
            raise IndexError_(_EMPTY)
        if self._local_search is None:
            from pipeline.local_search import LocalSearch

            self._local_search = LocalSearch(list(self._scroll(with_vectors=True)), dense=DENSE, sparse=SPARSE)
        return self._local_search

    def search_dense(self, vector: np.ndarray, k: int) -> list[Hit]:
        if (fast := self._fast()) is not None:
            return _hits(fast.dense(vector, k))
        return self._query(query=np.asarray(vector, dtype=np.float32).tolist(), using=DENSE, limit=k)

    def search_sparse(self, vector: SparseVector, k: int) -> list[Hit]:
        if not vector.indices:
            return []
        if (fast := self._fast()) is not None:
            return _hits(fast.sparse(vector, k))
        return self._query(query=vector.to_qdrant(), using=SPARSE, limit=k)

    def search_hybrid(self, dense: np.ndarray, sparse: SparseVector, k: int, *, prefetch: int = 50, rrf_k: int | None = None, weights: tuple[float, float] | None = None) -> list[Hit]:
        """Dense and sparse candidates fused by reciprocal rank fusion (one Query API call on a server)."""
        from qdrant_client import models

        fusion_weights = list(weights) if weights and sparse.indices else None  # weights need both branches
        if (fast := self._fast()) is not None:
            return _hits(fast.hybrid(dense, sparse, k, prefetch=prefetch, rrf_k=rrf_k, weights=fusion_weights))
        active = self._retrieval_filter()
        branches = [models.Prefetch(query=np.asarray(dense, dtype=np.float32).tolist(), using=DENSE, limit=prefetch, filter=active)]
        if sparse.indices:
            branches.append(models.Prefetch(query=sparse.to_qdrant(), using=SPARSE, limit=prefetch, filter=active))
        if rrf_k is None and weights is None:
            query = models.FusionQuery(fusion=models.Fusion.RRF)
        else:
            query = models.RrfQuery(rrf=models.Rrf(k=rrf_k, weights=fusion_weights))
        return self._query(prefetch=branches, query=query, limit=k)


def _hits(pairs: list[tuple[dict, float]]) -> list[Hit]:
    return [Hit(chunk_from_payload(payload), score) for payload, score in pairs]
