"""Loaders turn files into Documents, one function per format, registered by extension."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pipeline.documents import Document
from pipeline.errors import DocumentError

Loader = Callable[[Path], Document]
LOADERS: dict[str, Loader] = {}

MAX_BYTES = 20 * 1024 * 1024


def register(*extensions: str) -> Callable[[Loader], Loader]:
    """Register a loader for file extensions (with the dot, lower case)."""

    def deco(fn: Loader) -> Loader:
        for ext in extensions:
            LOADERS[ext] = fn
        return fn

    return deco


def looks_binary(data: bytes) -> bool:
    """True for data that is clearly not text (NUL bytes or mostly control characters)."""
    head = data[:8192]
    if b"\x00" in head:
        return True
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13))
    return bool(head) and controls / len(head) > 0.05


def decode_text(data: bytes, name: str) -> tuple[str, str | None]:
    """Decode UTF-8, or windows-1252 for legacy files; returns (text, warning or None)."""
    if looks_binary(data):
        raise DocumentError(f"{name}: looks like a binary file, not text")
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        where = exc.start
    try:
        return data.decode("cp1252"), f"{name}: not valid UTF-8 (byte {where}); read as windows-1252"
    except UnicodeDecodeError:
        raise DocumentError(f"{name}: not valid UTF-8 (byte {where}) nor windows-1252 text") from None


def read_text(path: Path) -> str:
    """Read a text file as UTF-8, falling back to windows-1252 for legacy files."""
    return decode_text(path.read_bytes(), path.name)[0]


def load_document(path: Path, *, max_bytes: int = MAX_BYTES) -> Document:
    """Load one file with the loader for its extension; raise DocumentError with a clear reason."""
    _register_builtin()
    loader = LOADERS.get(path.suffix.lower())
    if loader is None:
        raise DocumentError(f"{path.name}: unsupported file type {path.suffix or '(none)'}; supported: {', '.join(sorted(LOADERS))}")
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise DocumentError(f"{path.name}: cannot be read ({exc.strerror})") from exc
    if size == 0:
        raise DocumentError(f"{path.name}: empty file")
    if size > max_bytes:
        raise DocumentError(f"{path.name}: too large ({size / 1e6:.0f} MB > {max_bytes / 1e6:.0f} MB limit)")
    try:
        doc = loader(path)
    except DocumentError:
        raise
    except OSError as exc:
        raise DocumentError(f"{path.name}: cannot be read ({exc.strerror or exc})") from exc
    except Exception as exc:  # parser libraries raise many kinds of errors on corrupt files
        raise DocumentError(f"{path.name}: could not be parsed as {path.suffix.lstrip('.').upper()} ({type(exc).__name__}: {str(exc)[:120]})") from exc
    if not doc.text.strip() and not doc.handmade:
        raise DocumentError(f"{path.name}: no text could be extracted")
    return doc


def _register_builtin() -> None:
    from pipeline.loaders import office, pdf, table, text  # noqa: F401  (registers)


from pipeline.loaders.text import html_to_text  # noqa: E402  (public name kept here)

__all__ = ["LOADERS", "MAX_BYTES", "Loader", "decode_text", "html_to_text", "load_document", "read_text", "register"]
