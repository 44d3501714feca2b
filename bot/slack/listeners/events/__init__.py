"""Student messages from Slack (DMs, mentions, configured channels) become inbound messages (ack at once, store lazily)."""

from __future__ import annotations

from bot.slack.listeners.events.messages import register

__all__ = ["register"]
