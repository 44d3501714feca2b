"""Typed errors raised by the pipeline; only the edges catch broadly."""


class PipelineError(Exception):
    """Root of every error the pipeline raises."""


class ConfigurationError(PipelineError):
    """Settings or a plug-in name that cannot work."""


class DocumentError(PipelineError):
    """A document could not be loaded or parsed."""


class IndexError_(PipelineError):
    """The vector index could not be read or written."""


class RetrievalError(PipelineError):
    """Retrieval failed (index missing, embedder broken)."""


class OutOfDomain(PipelineError):
    """The question is outside the office's domain."""


class LLMError(PipelineError):
    """An LLM call failed after retries."""


class GenerationError(PipelineError):
    """A generator could not produce a usable answer."""


class DerivationError(GenerationError):
    """A derivation could not be parsed or is not a valid tree."""
