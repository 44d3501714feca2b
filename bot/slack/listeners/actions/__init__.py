"""Review card buttons: Aprobar, Editar, Rechazar, Ver derivación, the answer-memory buttons and «Necesita respuesta» (ack at once, work lazily)."""

from __future__ import annotations

from bot.slack.listeners.actions import answers, review, set_aside


def register(app, services, send=None) -> None:
    review.register(app, services, send)
    answers.register(app, services, send)
    set_aside.register(app, services, send)


__all__ = ["register"]
