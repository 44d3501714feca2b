"""Text a database refuses (NUL bytes, lone surrogates) made storable before every flush, the same on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, inspect
from sqlalchemy.orm import Session

REPLACEMENT = "\ufffd"


def db_safe(value: str) -> str:
    """`value` without NUL characters and with lone surrogates replaced (PostgreSQL refuses both in text; SQLite's driver refuses surrogates)."""
    if "\x00" in value:
        value = value.replace("\x00", REPLACEMENT)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-8", "replace").decode("utf-8")
    return value


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return db_safe(value)
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _sanitise(session: Session, _flush_context: object, _instances: object) -> None:
    for obj in list(session.new) + list(session.dirty):
        state = inspect(obj, raiseerr=False)
        if state is None:
            continue
        for attr in state.mapper.column_attrs:
            if attr.key not in state.dict:  # not loaded (deferred or expired): nothing new to write, and no reason to load it
                continue
            value = state.dict[attr.key]
            if isinstance(value, (str, dict, list)):
                cleaned = _clean(value)
                if cleaned != value:
                    setattr(obj, attr.key, cleaned)


def install() -> None:
    """Register the sanitiser on every ORM session (idempotent)."""
    if not event.contains(Session, "before_flush", _sanitise):
        event.listen(Session, "before_flush", _sanitise)
