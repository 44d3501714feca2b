"""Log lines with timestamps, levels and the id of the message being worked on; plain text or one JSON object per line."""

from __future__ import annotations

import contextvars
import json
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import TextIO

# Libraries that log every request or migration step at INFO: kept at WARNING even with -v.
NOISY = ("alembic", "httpx", "httpcore", "urllib3", "anthropic", "openai", "slack_bolt", "slack_sdk", "sentence_transformers",
         "qdrant_client", "apscheduler", "waitress", "huggingface_hub", "filelock", "matplotlib", "asyncio", "websocket", "websockets")

_message_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("orienta_message_id", default=None)
TEXT_FORMAT = "%(asctime)s %(levelname)-7s %(name)s [msg %(message_id)s] %(message)s"


@contextmanager
def message_context(message_id: object) -> Iterator[None]:
    """Tag every log line written inside the block with this message id."""
    token = _message_id.set(None if message_id is None else str(message_id))
    try:
        yield
    finally:
        _message_id.reset(token)


class _MessageIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.message_id = _message_id.get() or "-"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time (UTC, ISO 8601), level, logger, message id, message, exception."""

    def format(self, record: logging.LogRecord) -> str:
        data = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message_id": getattr(record, "message_id", None) if getattr(record, "message_id", "-") != "-" else None,
            "message": record.getMessage(),
        }
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False)


def configure_logging(*, level: str | int = "WARNING", json_format: bool = False, stream: TextIO | None = None) -> logging.Handler:
    """Replace the root handlers with one that writes timestamped lines (or JSON) to `stream` (stderr)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.addFilter(_MessageIdFilter())
    handler.setFormatter(JsonFormatter() if json_format else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "_orienta", False):
            root.removeHandler(old)
    handler._orienta = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)
    for name in NOISY:
        logging.getLogger(name).setLevel(logging.WARNING)
    return handler
