"""Throw-away databases for tests: a SQLite file, or a private schema on the local PostgreSQL server."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from review.db import init_db, make_engine

PG_URL = os.environ.get("ORIENTA_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def postgres_available() -> bool:
    try:
        engine = make_engine(PG_URL, connect_args={"connect_timeout": 3})
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        engine.dispose()
        return True
    except Exception:  # any failure to connect means: skip the PostgreSQL variant
        return False


@contextmanager
def temp_engine(kind: str, tmp_path: Path, **kwargs) -> Iterator[Engine]:
    """A migrated, empty database of `kind` ("sqlite" or "postgresql"), dropped afterwards."""
    if kind == "sqlite":
        engine = make_engine(f"sqlite:///{tmp_path / 'test.db'}", **kwargs)
        init_db(engine)
        try:
            yield engine
        finally:
            engine.dispose()
        return
    if not postgres_available():
        pytest.skip(f"PostgreSQL not reachable at {PG_URL}")
    schema = f"t_{secrets.token_hex(6)}"
    admin = make_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine = make_engine(PG_URL, connect_args={"options": f"-csearch_path={schema}"}, **kwargs)
    try:
        init_db(engine)
        yield engine
    finally:
        engine.dispose()
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
