"""Typed errors raised by the pipeline; only the edges catch broadly."""


class PipelineError(Exception):
    """Root of every error the pipeline raises."""


class ConfigurationError(PipelineError):
    """Settings or a plug-in name that cannot work."""


class DocumentError(PipelineError):
    """A document could not be loaded or parsed."""


class IndexError_(PipelineError):
    """The vector index could not be read or written."""


class IndexBusy(IndexError_):
    """The local index is held by another process (an ingestion, a second worker): it will be free again."""

    transient = True  # the message waits and is retried (is_transient)


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


TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
_TRANSIENT_NAMES = frozenset({
    "APITimeoutError", "APIConnectionError", "TimeoutException", "ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout",
    "ConnectError", "ReadError", "WriteError", "RemoteProtocolError", "NetworkError", "ResponseHandlingException", "Retryable",
    "DisconnectionError", "InterfaceError",
})
_SCHEMA_TROUBLE = ("no such table", "no such column", "syntax error", "does not exist", "undefinedtable", "undefinedcolumn")


def is_transient(exc: BaseException) -> bool:
    """Whether a failure may go away by itself (a timeout, a connection error, 429 or 5xx from the LLM, Qdrant or the
    database, a time budget overrun): the message waits and is retried. Anything else is deterministic.

    The exception and its causes are read: a PipelineError raised `from` a transport error is transient. An exception
    may say so itself with a boolean `transient` attribute."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        flag = getattr(current, "transient", None)
        if isinstance(flag, bool):
            return flag
        if isinstance(current, (TimeoutError, ConnectionError)):
            return True
        status = getattr(current, "status_code", None)
        if not isinstance(status, int):
            status = getattr(current, "status", None)
        if isinstance(status, int) and 100 <= status < 600:
            return status in TRANSIENT_STATUS
        name = type(current).__name__
        if name in _TRANSIENT_NAMES:
            return True
        if name == "OperationalError":  # the database: locked, gone away, connection refused; not a wrong schema
            text = str(current).lower()
            return not any(s in text for s in _SCHEMA_TROUBLE)
        if getattr(current, "connection_invalidated", False):
            return True
        current = current.__cause__ or current.__context__
    return False
