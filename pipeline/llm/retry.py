"""Retries with exponential backoff that honour the server's retry-after."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")

RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


class Retryable(Exception):
    """A transient failure: the call may be repeated after `retry_after` seconds (None: back off)."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status, self.retry_after = status, retry_after


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds the server asks us to wait (retry-after-ms, retry-after as seconds or HTTP date)."""
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


@dataclass(slots=True)
class RetryPolicy:
    """How often and how long to wait between attempts."""

    max_retries: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    sleep: Callable[[float], None] = time.sleep

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_delay_s)
        backoff = self.base_delay_s * 2**attempt
        return min(self.max_delay_s, backoff * (0.75 + random.random() / 2))

    def run(self, call: Callable[[], T]) -> tuple[T, int]:
        """Run `call`, retrying on Retryable; return its result and the number of attempts."""
        attempt = 0
        while True:
            try:
                return call(), attempt + 1
            except Retryable as exc:
                if attempt >= self.max_retries:
                    raise
                wait = self.delay(attempt, exc.retry_after)
                log.warning("LLM call failed (%s); retry %d/%d in %.2f s", exc, attempt + 1, self.max_retries, wait)
                self.sleep(wait)
                attempt += 1
