"""Index fixtures: local on-disk Qdrant always, a Qdrant server too when ORIENTA_TEST_QDRANT_URL is set."""

from __future__ import annotations

import os
import uuid

import pytest

from pipeline.index import ChunkIndex

SERVER_URL = os.environ.get("ORIENTA_TEST_QDRANT_URL")


@pytest.fixture(params=["local", "server"])
def index(request, tmp_path):
    """A fresh ChunkIndex, the same code path in local mode and against a server."""
    if request.param == "server":
        if not SERVER_URL:
            pytest.skip("set ORIENTA_TEST_QDRANT_URL to run the index tests against a Qdrant server")
        idx = ChunkIndex(url=SERVER_URL, api_key=os.environ.get("ORIENTA_TEST_QDRANT_API_KEY"), collection=f"test_{uuid.uuid4().hex[:12]}")
    else:
        idx = ChunkIndex(path=tmp_path / "qdrant")
    yield idx
    idx.reset()
    idx.close()
