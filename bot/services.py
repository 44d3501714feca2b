"""Wiring: build every component from Settings, lazily, in one place."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from sqlalchemy.engine import Engine

from bot import sample
from classifiers.errors import GateNotTrained
from classifiers.gate import Gate
from pipeline.embeddings import Embedder, embedder_from_settings
from pipeline.errors import ConfigurationError
from pipeline.generation import GENERATORS, Generator
from pipeline.index import ChunkIndex
from pipeline.llm import LLM, llm_from_settings
from pipeline.retrieval import Retriever
from pipeline.settings import Settings
from review.db import init_db, make_engine


@dataclass
class Services:
    """The components an entry point needs, created on first use."""

    settings: Settings
    _gate: Gate | None = field(default=None, init=False)

    @cached_property
    def engine(self) -> Engine:
        engine = make_engine(self.settings.database_url, echo=self.settings.database.echo)
        init_db(engine)
        return engine

    @cached_property
    def embedder(self) -> Embedder:
        return embedder_from_settings(self.settings.embedding)

    @cached_property
    def index(self) -> ChunkIndex:
        return ChunkIndex.from_settings(self.settings)

    @cached_property
    def retriever(self) -> Retriever:
        from pipeline import retrieval

        factory = getattr(retrieval, "retriever_from_settings", None)
        if factory is not None:
            return factory(self.settings.retrieval, index=self.index, embedder=self.embedder)
        return retrieval.DenseRetriever(self.index, self.embedder)

    @cached_property
    def llm(self) -> LLM | None:
        return llm_from_settings(self.settings.llm)

    def generator(self, method: str | None = None) -> Generator:
        """The configured generator; offline (no LLM) this is always the extractive one."""
        import pipeline.generation.extractive  # noqa: F401  (registers)
        import pipeline.generation.rag  # noqa: F401

        try:
            import pipeline.generation.derivation  # noqa: F401
        except ImportError:
            pass
        if self.llm is None:
            return GENERATORS["extractive"](lang=self.settings.llm.language)
        method = method or self.settings.llm.method
        if method not in GENERATORS:
            raise ConfigurationError(f"generation method {method!r} is not available; choose from {sorted(GENERATORS)}")
        prices = self.settings.llm.prices_per_mtok.get(self.llm.model)
        return GENERATORS[method](llm=self.llm, prices=prices, lang=self.settings.llm.language, index=self.index, embedder=self.embedder, fallback=GENERATORS["rag"](llm=self.llm, prices=prices))

    @property
    def gate(self) -> Gate:
        if self._gate is None:
            self._gate = Gate.load(self.settings.paths.gate_dir)
        return self._gate

    def gate_or_none(self) -> Gate | None:
        try:
            return self.gate
        except GateNotTrained:
            return None

    def document_paths(self) -> list[Path]:
        return list(self.settings.paths.documents) or [sample.docs_dir()]

    def close(self) -> None:
        if "index" in self.__dict__:
            self.index.close()
