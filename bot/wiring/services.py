"""Wiring: build every component from Settings, lazily, in one place."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine

from bot.wiring.metrics import instrument_llm
from classifiers.errors import GateNotTrained
from classifiers.gate import Gate, corpus_hash
from pipeline.embeddings import Embedder, embedder_from_settings
from pipeline.errors import ConfigurationError
from pipeline.generation import GENERATORS, Generator
from pipeline.index import ChunkIndex
from pipeline.llm import LLM, llm_from_settings
from pipeline.retrieval import Retriever, retriever_from_settings
from pipeline.settings import Settings
from review.db import init_db, make_engine


log = logging.getLogger(__name__)
# The embedded default office: what `orienta ingest` and the demo index when no documents are configured.
EMBEDDED_DOCUMENTS = Path(__file__).resolve().parents[1] / "demo" / "sample_office" / "docs"

@dataclass
class Services:
    """The components an entry point needs, created on first use."""

    settings: Settings
    _gate: Gate | None = field(default=None, init=False)
    batch_runner_factory: Any = field(default=None, repr=False)  # (llm) -> runner; tests plug a fake Message Batches runner here
    office: str | None = field(default=None)  # campus mode: the office these services are scoped to (None: the default office)

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
        return retriever_from_settings(self.settings.retrieval, index=self.index, embedder=self.embedder)

    @cached_property
    def llm(self) -> LLM | None:
        """The drafting model."""
        return self._instrumented(llm_from_settings(self.settings.llm))

    @cached_property
    def judge_llm(self) -> LLM | None:
        """The weekly judge's model (ORIENTA_LLM__JUDGE_MODEL)."""
        return self._instrumented(llm_from_settings(self.settings.llm, role="judge"))

    @cached_property
    def synthetic_llm(self) -> LLM | None:
        """The model writing the gate's synthetic questions (ORIENTA_LLM__SYNTHETIC_MODEL)."""
        return self._instrumented(llm_from_settings(self.settings.llm, role="synthetic"))

    def _instrumented(self, llm: LLM | None) -> LLM | None:
        """The same LLM object, its calls counted in the Prometheus metrics (calls, latency, cost, errors by model)."""
        from pipeline.llm import prices_for

        return instrument_llm(llm, lambda model: prices_for(self.settings.llm, model))

    def batch_runner(self, llm: LLM | None):
        """A Message Batches runner for `llm` with its state under the data dir (None when batches do not apply)."""
        from pipeline.llm import batch_runner_for

        if self.batch_runner_factory is not None:
            return self.batch_runner_factory(llm)
        return batch_runner_for(llm, self.settings.llm, self.settings.paths.batches_dir)

    def generator(self, method: str | None = None) -> Generator:
        """The configured generator (cached per method); offline (no LLM) this is always the extractive one."""
        import pipeline.generation.derivation  # noqa: F401  (registers)
        import pipeline.generation.extractive  # noqa: F401
        import pipeline.generation.long_context  # noqa: F401
        import pipeline.generation.rag  # noqa: F401
        from pipeline.generation.ranking import UnitRanker
        from pipeline.llm import prices_for

        cache = self.__dict__.setdefault("_generators", {})
        llm_cfg = self.settings.llm
        method = "extractive" if self.llm is None else (method or llm_cfg.method)
        if method in cache:
            return cache[method]
        if method not in GENERATORS:
            raise ConfigurationError(f"generation method {method!r} is not available; choose from {sorted(GENERATORS)}")
        if self.llm is None:
            gen = GENERATORS["extractive"](lang=llm_cfg.language, index=self.index, embedder=self.embedder, ranker=UnitRanker.load(self.settings.paths.unit_ranker))
        else:
            prices = prices_for(llm_cfg, self.llm.model)
            common = dict(llm=self.llm, prices=prices, lang=llm_cfg.language, index=self.index, embedder=self.embedder)
            gen = GENERATORS[method](**common, fallback=GENERATORS["rag"](**common), retries=llm_cfg.derivation_retries, max_chars=llm_cfg.long_context_max_chars, verifier_min_similarity=llm_cfg.verifier_min_similarity)
        cache[method] = gen
        return gen

    @property
    def gate(self) -> Gate:
        if self._gate is None:
            self._gate = Gate.load(self.settings.paths.gate_dir)
        return self._gate

    def gate_or_none(self) -> Gate | None:
        """The trained gate, or None when there is none or it is stale (the documents changed since training)."""
        try:
            gate = self.gate
        except GateNotTrained:
            return None
        if gate.fresh is None:  # checked once per loaded gate
            gate.fresh = not gate.is_stale(self.corpus_hash())
            if not gate.fresh:
                log.warning("the gate is stale (the documents changed since it was trained): run `orienta gate train`")
        return gate if gate.fresh else None

    def corpus_hash(self) -> str:
        """Fingerprint of what the index holds now (the gate records the one it was trained on)."""
        return corpus_hash([(c.id, c.text) for c, _ in self.index.all_chunks()])

    def document_paths(self) -> list[Path]:
        """The office's document folders (the bundled sample office when none is configured), the campus's shared ones,
        and the documents added from the console."""
        if self.office is not None:  # Settings.for_office already added the shared documents
            paths = list(self.settings.paths.documents)
        else:
            paths = (list(self.settings.paths.documents) or [EMBEDDED_DOCUMENTS]) + list(self.settings.offices.shared_documents)
        uploads = self.settings.paths.uploads_dir
        return paths + [uploads] if uploads.is_dir() and any(uploads.iterdir()) else paths

    def close(self) -> None:
        campus = self.__dict__.pop("_campus", None)
        if campus is not None and campus.services is self:  # an office's services do not close the campus around them
            campus.close()
        if "index" in self.__dict__:
            self.index.close()
