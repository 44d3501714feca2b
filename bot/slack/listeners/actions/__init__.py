"""Review card buttons: Aprobar, Editar, Rechazar, Ver derivación, and the answer-memory buttons (ack at once, work lazily)."""

from __future__ import annotations

from bot.slack.listeners.actions import answers, review


def register(app, services, send=None) -> None:
    review.register(app, services, send)
    answers.register(app, services, send)


__all__ = ["register"]
