"""Review modals: the edit and reject submissions."""

from __future__ import annotations

from bot.slack.listeners.views.review import register

__all__ = ["register"]
