"""Review card buttons: Aprobar, Editar, Rechazar, Ver derivación (ack at once, work lazily)."""

from __future__ import annotations

from bot.slack.listeners.actions.review import register

__all__ = ["register"]
