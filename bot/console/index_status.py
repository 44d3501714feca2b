"""What the documents page shows about the index, cached until a console job changes it (scrolling 1,000 documents per page view is too slow)."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from classifiers.errors import GateError

if TYPE_CHECKING:
    from bot.console.jobs import Jobs
    from bot.wiring.services import Services

TTL_S = 60.0  # another process (`orienta ingest` against a server Qdrant) may change the index too


class IndexStatus:
    def __init__(self, services: "Services", jobs: "Jobs") -> None:
        self.services, self.jobs = services, jobs
        self._lock = threading.Lock()
        self._key: tuple | None = None
        self._docs: dict[str, dict] = {}
        self._gate: dict[str, Any] | None = None
        self._refreshing = False

    def forget(self) -> None:
        self._key = None

    def _fresh(self) -> None:
        """After a console change: read the index now. After the TTL only: keep serving the last read and refresh in the background."""
        generation = self.jobs.generation
        with self._lock:
            if self._key is None or self._key[0] != generation:
                self._load(generation)
            elif time.monotonic() - self._key[1] > TTL_S and not self._refreshing:
                self._refreshing = True
                threading.Thread(target=self._background, args=(generation,), name="orienta-console-index-status", daemon=True).start()

    def _load(self, generation: int) -> None:
        self._docs = self.services.index.documents()
        self._gate = None
        self._key = (generation, time.monotonic())

    def _background(self, generation: int) -> None:
        try:
            docs = self.services.index.documents()
            with self._lock:
                if self._key is not None and self._key[0] == generation:
                    self._docs, self._gate, self._key = docs, None, (generation, time.monotonic())
        finally:
            self._refreshing = False

    def rows(self, log: dict[str, Any]) -> list[dict[str, Any]]:
        """Every indexed document with its figures and the last ingestion's warnings and failures."""
        self._fresh()
        out = []
        for doc_id, d in sorted(self._docs.items()):
            entry = log.get(doc_id) or {}
            out.append({
                "id": doc_id, "title": d.get("title") or doc_id, "chunks": d.get("chunks", 0), "active": bool(d.get("active", True)),
                "ingested_at": d.get("ingested_at"), "hash": (d.get("content_hash") or "")[:12] or None, "source": d.get("source"),
                "url": d.get("url"), "warnings": entry.get("warnings") or [], "failed": entry.get("failed") or [],
            })
        known = set(self._docs)
        for doc_id, entry in sorted(log.items()):  # failed before it was ever indexed: listed with the reason
            if doc_id not in known and entry.get("failed"):
                out.append({"id": doc_id, "title": doc_id, "chunks": None, "active": False, "ingested_at": None, "hash": None, "source": None, "url": None, "warnings": entry.get("warnings") or [], "failed": entry["failed"], "missing": True})
        return out

    def chunks(self, doc_id: str, limit: int = 200) -> dict[str, Any]:
        """The document's chunks (first `limit`) and how many answer units they hold."""
        chunks = [c for c, _ in self.services.index.all_chunks(doc_ids=[doc_id])]
        return {"units": sum(len(c.units or ()) for c in chunks), "items": [{"position": c.position, "section": c.section, "page": c.page, "text": c.text[:500], "units": len(c.units or ())} for c in chunks[:limit]], "total": len(chunks)}

    def gate(self) -> dict[str, Any]:
        """Whether the gate is trained and fresh for the current index."""
        self._fresh()
        if self._gate is None:
            try:
                gate = self.services.gate
            except GateError:
                self._gate = {"state": "missing"}
            else:
                stale = gate.is_stale(self.services.corpus_hash()) if self._docs else False
                self._gate = {"state": "stale" if stale else "fresh", "threshold": gate.threshold, "trained_at": gate.meta.get("trained_at")}
        return self._gate
