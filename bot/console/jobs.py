"""Background work started from the console (ingestion, gate training): one at a time, with visible progress."""

from __future__ import annotations

import itertools
import json
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.wiring.services import Services

log = logging.getLogger(__name__)
KEEP = 50


@dataclass
class Job:
    """One piece of background work and how far it got."""

    id: int
    label: str
    actor: str
    state: str = "en cola"  # en cola | en curso | terminado | falló
    done: int = 0
    total: int = 0
    result: str = ""
    started_at: float = field(default_factory=time.time)
    finished_at: float | None = None

    @property
    def percent(self) -> int:
        if self.state == "terminado":
            return 100
        return int(100 * self.done / self.total) if self.total else 0

    def as_dict(self) -> dict:
        return asdict(self) | {"percent": self.percent}


class Jobs:
    """A single worker thread: index writes never overlap (the local Qdrant and the gate are written by one job at a time)."""

    def __init__(self, services: "Services") -> None:
        self.services = services
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="orienta-console-job")
        self._jobs: dict[int, Job] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.generation = 0  # bumped when a job finishes: cached index facts are recomputed

    def submit(self, label: str, actor: str, work: Callable[[Job], str]) -> Job:
        """Run `work(job)` in the background; it returns the one-line result shown on the page."""
        job = Job(next(self._ids), label, actor)
        with self._lock:
            self._jobs[job.id] = job
            for old in sorted(self._jobs)[:-KEEP]:
                del self._jobs[old]
        self._pool.submit(self._run, job, work)
        return job

    def _run(self, job: Job, work: Callable[[Job], str]) -> None:
        job.state = "en curso"
        try:
            job.result = work(job)
            job.state = "terminado"
        except Exception as exc:  # the edge: the page shows why; the log keeps the traceback
            log.exception("console job %s failed", job.label)
            from bot.console.errors import spanish

            job.state, job.result = "falló", spanish(exc)
        finally:
            job.finished_at = time.time()
            self.generation += 1

    def progress(self, job: Job) -> Callable[[int, int], None]:
        def update(done: int, total: int) -> None:
            job.done, job.total = done, total

        return update

    def get(self, job_id: int) -> Job | None:
        return self._jobs.get(job_id)

    def recent(self, limit: int = 10) -> list[Job]:
        with self._lock:
            return sorted(self._jobs.values(), key=lambda j: j.id, reverse=True)[:limit]

    def wait(self, timeout: float = 60.0) -> None:
        """Until every submitted job has finished (tests, and shutdown)."""
        self._pool.submit(lambda: None).result(timeout)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class IngestLog:
    """The last ingestion warnings and failures of each document, kept in the data dir (the index does not keep them)."""

    def __init__(self, services: "Services") -> None:
        self.path = services.settings.paths.data_dir / "console" / "ingest-log.json"

    def read(self) -> dict[str, Any]:
        try:
            return json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    def record(self, doc_id: str, report) -> None:
        from pathlib import Path

        data = self.read()
        failed = [reason for path, reason in report.failed.items() if Path(path).stem == doc_id]
        warnings = [w for path, ws in report.warnings.items() if Path(path).stem == doc_id for w in ws]
        data[doc_id] = {"failed": failed, "warnings": warnings, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
