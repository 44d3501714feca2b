"""Shared test fixtures: fast fakes and settings rooted in a temporary data dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.embeddings import HashingEmbedder
from pipeline.settings import Settings

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test when the shared corpora are absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared corpus not available at {path}")
    return path


@pytest.fixture
def fake_embedder() -> HashingEmbedder:
    """Deterministic, model-free embedder."""
    return HashingEmbedder(dim=256)


@pytest.fixture
def settings(tmp_path, monkeypatch) -> Settings:
    """Settings isolated from the environment, with the data dir in tmp_path and the hashing embedder."""
    for key in list(__import__("os").environ):
        if key.startswith("ORIENTA_") or key.startswith("ANTHROPIC_"):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    s = Settings(data_dir=tmp_path / "data", _env_file=None)  # type: ignore[call-arg]
    s.embedding.backend = "hashing"
    return s


@pytest.fixture
def cli_env(tmp_path, monkeypatch) -> Path:
    """Environment for running `orienta` in-process: no ORIENTA_/ANTHROPIC_ variables, a fresh data dir, the model-free embedder."""
    import os

    for key in list(os.environ):
        if key.startswith(("ORIENTA_", "ANTHROPIC_")):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ORIENTA_EMBEDDING__BACKEND", "hashing")
    monkeypatch.setenv("ORIENTA_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"
