"""Run many Messages requests through the Message Batches API (half price), resumable by job name.

Limits from build-with-claude/batch-processing: a batch holds at most 100,000 requests
or 256 MB, whichever comes first (larger inputs are split over several batches);
processing ends within 24 hours, after which unfinished requests are ``expired``;
results stay downloadable for 29 days. ``custom_id`` must match ``^[a-zA-Z0-9_-]{1,64}$``
and be unique within a batch (api/creating-message-batches). Results come back in any
order and are mapped by ``custom_id``.

The batch ids and the custom_ids of a job are written to ``state_dir/<job>.json`` before
polling starts, so a process that dies while waiting picks the same batches up again
instead of paying for a second submission. The state file is removed once the results
have been read.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from pipeline.errors import LLMError

log = logging.getLogger(__name__)

CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_JOB = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


class BatchError(LLMError):
    """A batch job could not be submitted, polled or read."""


@dataclass
class BatchItem:
    """One request of a batch: its id and a Messages API body."""

    custom_id: str
    params: dict


@dataclass
class BatchOutcome:
    """The result of one item: succeeded | errored | canceled | expired."""

    custom_id: str
    status: str
    message: Any | None  # anthropic.types.Message when succeeded
    error: str | None


class BatchRunner:
    """Submit items as one or more message batches, poll until they end, map results back."""

    MAX_REQUESTS = 100_000
    MAX_BYTES = 256 * 1024 * 1024

    def __init__(self, *, client, state_dir: Path, poll_interval_s: float = 30.0, max_wait_s: float = 86400.0, sleep: Callable[[float], None] = time.sleep) -> None:
        self.client = client
        self.state_dir = Path(state_dir)
        self.poll_interval_s = poll_interval_s
        self.max_wait_s = max_wait_s
        self.sleep = sleep

    # -- public --------------------------------------------------------------
    def run(self, job: str, items: list[BatchItem]) -> dict[str, BatchOutcome]:
        """Outcomes by custom_id, in the order of ``items``; resumes ``job`` if it was interrupted."""
        if not _JOB.match(job):
            raise BatchError(f"job name {job!r} must match {_JOB.pattern}")
        ids = [it.custom_id for it in items]
        self._check_ids(ids)
        if not items:
            return {}
        state = self._load(job)
        if state is not None and sorted(state["custom_ids"]) != sorted(ids):
            raise BatchError(
                f"batch job {job!r} has unfinished state for other items in {self._path(job)}; "
                "finish it with the same items or delete that file"
            )
        if state is None:
            state = {"job": job, "custom_ids": ids, "batches": []}
        else:
            log.info("resuming batch job %s: %d batch(es) already submitted", job, len(state["batches"]))
        self._submit_missing(job, state, items)
        self._poll(job, state)
        outcomes = self._collect(state)
        self._path(job).unlink(missing_ok=True)
        return {cid: outcomes.get(cid) or BatchOutcome(cid, "errored", None, "missing from the batch results") for cid in ids}

    # -- steps -----------------------------------------------------------------
    def _check_ids(self, ids: list[str]) -> None:
        bad = [cid for cid in ids if not isinstance(cid, str) or not CUSTOM_ID.match(cid)]
        if bad:
            raise BatchError(f"custom_id {bad[0]!r} must match {CUSTOM_ID.pattern}")
        seen: set[str] = set()
        dups = [cid for cid in ids if cid in seen or seen.add(cid)]
        if dups:
            raise BatchError(f"custom_id {dups[0]!r} appears more than once; each must be unique")

    def _chunks(self, items: list[BatchItem]) -> list[list[BatchItem]]:
        chunks: list[list[BatchItem]] = []
        current: list[BatchItem] = []
        size = 0
        for it in items:
            n = len(json.dumps({"custom_id": it.custom_id, "params": it.params}, ensure_ascii=False).encode())
            if current and (len(current) >= self.MAX_REQUESTS or size + n > self.MAX_BYTES):
                chunks.append(current)
                current, size = [], 0
            current.append(it)
            size += n
        if current:
            chunks.append(current)
        return chunks

    def _submit_missing(self, job: str, state: dict, items: list[BatchItem]) -> None:
        submitted = {cid for b in state["batches"] for cid in b["custom_ids"]}
        pending = [it for it in items if it.custom_id not in submitted]
        for chunk in self._chunks(pending):
            try:
                batch = self.client.messages.batches.create(requests=[{"custom_id": it.custom_id, "params": it.params} for it in chunk])
            except Exception as exc:  # anthropic.APIError and transport errors, after the SDK's own retries
                raise BatchError(f"could not submit batch for job {job!r}: {type(exc).__name__}: {exc}") from exc
            state["batches"].append({"id": batch.id, "custom_ids": [it.custom_id for it in chunk], "ended": False})
            self._save(job, state)  # before polling: a restart resumes instead of resubmitting
            log.info("batch job %s: submitted %s with %d request(s)", job, batch.id, len(chunk))

    def _poll(self, job: str, state: dict) -> None:
        waited = 0.0
        while True:
            for b in state["batches"]:
                if b["ended"]:
                    continue
                try:
                    status = self.client.messages.batches.retrieve(b["id"]).processing_status
                except Exception as exc:
                    raise BatchError(f"could not poll batch {b['id']} of job {job!r}: {type(exc).__name__}: {exc}") from exc
                if status == "ended":
                    b["ended"] = True
                    self._save(job, state)
            if all(b["ended"] for b in state["batches"]):
                return
            if waited >= self.max_wait_s:
                raise BatchError(f"batch job {job!r} not finished after {waited:.0f} s; run it again to resume ({self._path(job)})")
            self.sleep(self.poll_interval_s)
            waited += self.poll_interval_s

    def _collect(self, state: dict) -> dict[str, BatchOutcome]:
        outcomes: dict[str, BatchOutcome] = {}
        for b in state["batches"]:
            try:
                results = list(self.client.messages.batches.results(b["id"]))
            except Exception as exc:
                raise BatchError(f"could not read results of batch {b['id']}: {type(exc).__name__}: {exc}") from exc
            for r in results:
                outcomes[r.custom_id] = _outcome(r)
        return outcomes

    # -- state -------------------------------------------------------------------
    def _path(self, job: str) -> Path:
        return self.state_dir / f"{job}.json"

    def _load(self, job: str) -> dict | None:
        path = self._path(job)
        if not path.exists():
            return None
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
            assert isinstance(state.get("custom_ids"), list) and isinstance(state.get("batches"), list)
        except (ValueError, AssertionError) as exc:
            raise BatchError(f"batch state {path} is unreadable ({exc}); delete it to start the job again") from exc
        return state

    def _save(self, job: str, state: dict) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        path = self._path(job)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(state), encoding="utf-8")
        os.replace(tmp, path)


def _outcome(r) -> BatchOutcome:
    result = r.result
    kind = result.type
    if kind == "succeeded":
        return BatchOutcome(r.custom_id, kind, result.message, None)
    if kind == "errored":
        err = getattr(result.error, "error", None)
        detail = f"{getattr(err, 'type', 'error')}: {getattr(err, 'message', '')}" if err is not None else "errored"
        return BatchOutcome(r.custom_id, kind, None, detail)
    if kind == "expired":
        return BatchOutcome(r.custom_id, kind, None, "expired: the batch reached its 24-hour limit before this request ran")
    return BatchOutcome(r.custom_id, kind, None, "canceled before this request ran")
