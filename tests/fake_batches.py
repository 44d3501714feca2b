"""A Message Batches runner with pipeline.llm.batches.BatchRunner's interface, for tests: each item's params
go to `client.messages.create` (the stand-in server), so every batched request is checked like a synchronous one.
"""

from __future__ import annotations

from pipeline.llm.batches import BatchItem, BatchOutcome


class FakeBatchRunner:
    """Runs every item synchronously; records jobs; `fail` custom ids come back errored."""

    def __init__(self, *, client, state_dir=None, poll_interval_s: float = 30.0, max_wait_s: float = 86400.0, sleep=None, fail: set[str] | None = None) -> None:
        self.client, self.fail = client, fail or set()
        self.jobs: list[tuple[str, list[BatchItem]]] = []

    def run(self, job: str, items: list[BatchItem]) -> dict[str, BatchOutcome]:
        self.jobs.append((job, list(items)))
        out = {}
        for item in items:
            if item.custom_id in self.fail:
                out[item.custom_id] = BatchOutcome(item.custom_id, "errored", None, "invalid_request_error")
                continue
            params = dict(item.params)
            extra = {k: params.pop(k) for k in list(params) if k == "temperature"}
            msg = self.client.messages.create(**params, **({"extra_body": extra} if extra else {}))
            out[item.custom_id] = BatchOutcome(item.custom_id, "succeeded", msg, None)
        return out
