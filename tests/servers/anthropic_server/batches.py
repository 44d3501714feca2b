"""The Message Batches API of the stand-in.

Endpoints (build-with-claude/batch-processing and api/creating-message-batches):
``POST /v1/messages/batches``, ``GET /v1/messages/batches`` (list),
``GET /v1/messages/batches/{id}``, ``POST /v1/messages/batches/{id}/cancel``,
``DELETE /v1/messages/batches/{id}``, ``GET /v1/messages/batches/{id}/results`` (JSONL).

Rules enforced at create time: 1..100,000 requests and at most 256 MB (the batch
processing page; the API reference's "1 - 10000 elements" disagrees, the guide's
figure is used because it is the one stated in prose and repeated in every locale),
``custom_id`` matching ``^[a-zA-Z0-9_-]{1,64}$`` and unique within the batch, ``params``
an object without ``stream``. Each request's params are checked with the same per-model
rules as ``/v1/messages``; one the API would refuse ends ``errored`` with the same error
body. ``processing_status`` goes ``in_progress`` -> ``ended`` after ``polls_to_end``
retrieves (or ``canceling`` -> ``ended`` after a cancel); results are produced when the
batch ends, through the same scripted replies / responder as ``/v1/messages``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import secrets
import string
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from .rules import RuleError

CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_REQUESTS = 100_000
MAX_BYTES = 256 * 1024 * 1024
_ALNUM = string.ascii_letters + string.digits


def _iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).isoformat().replace("+00:00", "Z")


def _bad(message: str) -> RuleError:
    return RuleError(400, "invalid_request_error", message)


@dataclass
class Batch:
    id: str
    requests: List[Dict[str, Any]]
    created_at: float
    polls: int = 0
    status: str = "in_progress"  # in_progress | canceling | ended
    cancel_at: Optional[float] = None
    ended_at: Optional[float] = None
    results: Optional[List[Dict[str, Any]]] = None
    expire: bool = False


@dataclass
class BatchStore:
    """Batches held by one ``FakeAnthropicServer``.

    ``answer(params) -> (status, body)`` runs one request through the server's validation
    and reply path: ``(200, message)`` or ``(status, error body)``.
    """

    answer: Callable[[Dict[str, Any]], Tuple[int, Dict[str, Any]]]
    clock: Callable[[], float]
    polls_to_end: int = 1
    expired_custom_ids: Set[str] = field(default_factory=set)
    omitted_custom_ids: Set[str] = field(default_factory=set)  # left out of the results file (a fault to survive)
    batches: Dict[str, Batch] = field(default_factory=dict)
    creates: int = 0
    _lock: threading.RLock = field(default_factory=threading.RLock)

    # -- scripting ---------------------------------------------------------
    def expire(self, batch_id: str) -> None:
        """The batch hits its 24 h limit: unfinished requests end ``expired``."""
        with self._lock:
            b = self.batches[batch_id]
            b.expire = True
            self._end(b)

    # -- endpoints -----------------------------------------------------------
    def create(self, body: Any, raw_size: int) -> Dict[str, Any]:
        if not isinstance(body, dict):
            raise _bad("Input should be an object")
        reqs = body.get("requests")
        if not isinstance(reqs, list) or not reqs:
            raise _bad("requests: List should have at least 1 item after validation, not 0")
        if len(reqs) > MAX_REQUESTS:
            raise _bad(f"requests: a Message Batch is limited to {MAX_REQUESTS} requests, got {len(reqs)}")
        if raw_size > MAX_BYTES:
            raise RuleError(413, "request_too_large", "Message Batch exceeds the 256 MB size limit")
        seen: Set[str] = set()
        for i, r in enumerate(reqs):
            if not isinstance(r, dict):
                raise _bad(f"requests.{i}: Input should be an object")
            cid = r.get("custom_id")
            if not isinstance(cid, str) or not CUSTOM_ID.match(cid):
                raise _bad(f"requests.{i}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'")
            if cid in seen:
                raise _bad(f"requests.{i}.custom_id: Duplicate custom_id '{cid}'. custom_id must be unique within a Message Batch.")
            seen.add(cid)
            params = r.get("params")
            if not isinstance(params, dict):
                raise _bad(f"requests.{i}.params: Input should be an object")
            if params.get("stream"):
                raise _bad(f"requests.{i}.params.stream: streaming is not supported in Message Batches")
        with self._lock:
            self.creates += 1
            bid = "msgbatch_01" + "".join(secrets.choice(_ALNUM) for _ in range(24))
            b = Batch(bid, [dict(r) for r in reqs], self.clock())
            self.batches[bid] = b
            return self.view(b, base_url="")

    def get(self, batch_id: str) -> Batch:
        b = self.batches.get(batch_id)
        if b is None:
            raise RuleError(404, "not_found_error", f"Message Batch {batch_id} not found")
        return b

    def retrieve(self, batch_id: str, base_url: str) -> Dict[str, Any]:
        with self._lock:
            b = self.get(batch_id)
            if b.status != "ended":
                b.polls += 1
                if b.status == "canceling" or b.polls > self.polls_to_end:
                    self._end(b)
            return self.view(b, base_url)

    def cancel(self, batch_id: str, base_url: str) -> Dict[str, Any]:
        with self._lock:
            b = self.get(batch_id)
            if b.status == "in_progress":
                b.status, b.cancel_at = "canceling", self.clock()
            return self.view(b, base_url)

    def delete(self, batch_id: str) -> Dict[str, Any]:
        with self._lock:
            b = self.get(batch_id)
            if b.status != "ended":
                raise _bad(f"Message Batch {batch_id} cannot be deleted while processing_status is {b.status}; cancel it first.")
            del self.batches[batch_id]
            return {"id": batch_id, "type": "message_batch_deleted"}

    def list(self, base_url: str, limit: int = 20, after_id: Optional[str] = None) -> Dict[str, Any]:
        with self._lock:
            ids = sorted(self.batches, key=lambda i: self.batches[i].created_at, reverse=True)
            if after_id in ids:
                ids = ids[ids.index(after_id) + 1:]
            page = ids[:limit]
            return {
                "data": [self.view(self.batches[i], base_url) for i in page],
                "has_more": len(ids) > len(page),
                "first_id": page[0] if page else None,
                "last_id": page[-1] if page else None,
            }

    def results_jsonl(self, batch_id: str) -> bytes:
        with self._lock:
            b = self.get(batch_id)
            if b.status != "ended" or b.results is None:
                raise _bad(f"Message Batch {batch_id} has not finished processing; results are available once processing_status is 'ended'.")
            return "".join(json.dumps(r) + "\n" for r in b.results if r["custom_id"] not in self.omitted_custom_ids).encode()

    # -- internals -----------------------------------------------------------
    def _end(self, b: Batch) -> None:
        if b.status == "ended":
            return
        results = []
        for r in b.requests:
            cid = r["custom_id"]
            if b.cancel_at is not None:
                results.append({"custom_id": cid, "result": {"type": "canceled"}})
            elif b.expire or cid in self.expired_custom_ids:
                results.append({"custom_id": cid, "result": {"type": "expired"}})
            else:
                status, body = self.answer(r["params"])
                if status == 200:
                    results.append({"custom_id": cid, "result": {"type": "succeeded", "message": body}})
                else:
                    results.append({"custom_id": cid, "result": {"type": "errored", "error": body}})
        b.results, b.status, b.ended_at = results, "ended", self.clock()

    def view(self, b: Batch, base_url: str) -> Dict[str, Any]:
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if b.results is None:
            counts["processing"] = len(b.requests)
        else:
            for r in b.results:
                counts[r["result"]["type"]] += 1
        ended = b.status == "ended"
        return {
            "id": b.id,
            "type": "message_batch",
            "processing_status": b.status,
            "request_counts": counts,
            "created_at": _iso(b.created_at),
            "expires_at": _iso(b.created_at + 24 * 3600),
            "ended_at": _iso(b.ended_at) if b.ended_at else None,
            "cancel_initiated_at": _iso(b.cancel_at) if b.cancel_at else None,
            "archived_at": None,
            "results_url": f"{base_url}/v1/messages/batches/{b.id}/results" if ended else None,
        }
