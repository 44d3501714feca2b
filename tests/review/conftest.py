"""Review fixtures: every queue test runs on SQLite and on the local PostgreSQL server."""

from __future__ import annotations

import pytest

from tests.review.databases import temp_engine


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def engine(request, tmp_path):
    """A fresh migrated database (SQLite file or a private PostgreSQL schema)."""
    with temp_engine(request.param, tmp_path) as eng:
        yield eng
