"""Review card buttons: Aprobar, Editar, Rechazar, Ver derivación, the answer-memory buttons and «Necesita respuesta» (ack at once, work lazily)."""

from __future__ import annotations

from bot.slack.listeners.actions import answers, review, set_aside


def register(app, services) -> None:
    review.register(app, services)
    answers.register(app, services)
    set_aside.register(app, services)


__all__ = ["register"]
