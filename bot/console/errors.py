"""Errors shown on the console's pages, in Spanish."""

from __future__ import annotations


def spanish(exc: BaseException) -> str:
    """The error's first line, in Spanish when it is one of the library's known messages."""
    from bot.wiring import spanish as _spanish

    text = str(exc) or type(exc).__name__
    return _spanish.library(text.splitlines()[0])
