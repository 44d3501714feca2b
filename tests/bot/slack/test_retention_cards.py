"""Retention reaches Slack (issue 14): the review card of a purged message is replaced by a placeholder, once."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update

from bot.loop.retention import apply_retention
from bot.slack.poster import post_pending_cards
from review.db import session_scope
from review.models import InboundMessage, utcnow
from review.retention import TOMBSTONE
from tests.review.factories import make_drafted


def test_the_card_of_a_purged_message_becomes_a_placeholder(services, slack_server):
    with session_scope(services.engine) as s:
        make_drafted(s, sender="ana.lopez@correo.example", question="Soy Ana López, DPI 1983 44414 2215: ¿cuándo me gradúo?")
    assert post_pending_cards(services) == 1
    [posted] = slack_server.calls_to("chat.postMessage")
    with session_scope(services.engine) as s:
        s.execute(update(InboundMessage).values(created_at=utcnow() - timedelta(days=400)))
    done = apply_retention(services)
    assert done.database.messages == 1 and done.cards_blanked == 1
    [updated] = [c for c in slack_server.calls_to("chat.update") if c.ok]
    assert updated.args["ts"] and TOMBSTONE in str(updated.args.get("text")) and "López" not in str(updated.args)
    assert apply_retention(services).cards_blanked == 0  # done once
