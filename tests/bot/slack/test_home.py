"""App Home: pending count, oldest pending age and my decisions today, published on app_home_opened."""

from __future__ import annotations

import json

from review import queue
from review.db import session_scope
from tests.bot.slack.helpers import drain, home_opened, make_app
from tests.review.factories import make_drafted


def _published(slack_server, user: str) -> str:
    calls = [c for c in slack_server.calls_to("views.publish") if c.ok and c.args.get("user_id") == user]
    assert calls, "no App Home was published"
    view = calls[-1].args["view"]
    return json.dumps(view if isinstance(view, dict) else json.loads(view), ensure_ascii=False)


def test_home_tab_shows_the_queue_and_my_decisions_today(services, slack_server):
    with session_scope(services.engine) as s:
        drafts = [make_drafted(s, subject=f"consulta {i}")[0] for i in range(4)]
        queue.approve(session=s, draft_id=drafts[0].id, actor="slack:U0ANA")
        queue.reject(session=s, draft_id=drafts[1].id, actor="slack:U0ANA", reason="spam")
        queue.approve(session=s, draft_id=drafts[2].id, actor="slack:U0BETO")
    app = make_app(services, slack_server)
    assert home_opened(app, user="U0ANA").status == 200
    drain(app)
    text = _published(slack_server, "U0ANA")
    assert "*Pendientes:*\\n1" in text and "*Mis decisiones hoy:*\\n2" in text and "hace 0 min" in text
    assert f"#{drafts[3].id}" in text and f"#{drafts[0].id} " not in text


def test_home_tab_with_an_empty_queue(services, slack_server):
    app = make_app(services, slack_server)
    home_opened(app, user="U0BETO")
    drain(app)
    text = _published(slack_server, "U0BETO")
    assert "No hay borradores pendientes" in text and "*Mis decisiones hoy:*\\n0" in text


def test_home_lists_messages_set_aside_and_needs_reply_sends_one_to_drafting(services, slack_server):
    from sqlmodel import Session, select

    from bot.slack import blocks
    from review import states
    from review.models import AuditEvent, InboundMessage, InboundMessageCreate
    from tests.bot.slack.helpers import click

    with session_scope(services.engine) as s:
        message, _ = queue.store_inbound(session=s, data=InboundMessageCreate(channel="slack", source_key="slack:ack:1", sender="U0STUDENT", cleaned_text="perfecto, ya lo mandé", redacted_text="perfecto, ya lo mandé"))
        message.reason = "acknowledgement: closing"
        states.transition(s, message, states.ACKNOWLEDGED, actor=queue.SYSTEM)
        mid = message.id
    app = make_app(services, slack_server)
    home_opened(app, user="U0ANA")
    drain(app)
    text = _published(slack_server, "U0ANA")
    assert "Mensajes sin borrador" in text and "perfecto, ya lo mandé" in text and f"{blocks.NEEDS_REPLY}_{mid}" in text
    app = make_app(services, slack_server)
    click(app, f"{blocks.NEEDS_REPLY}_{mid}", mid, user="U0EVE")  # not a reviewer
    drain(app)
    with Session(services.engine) as s:
        assert s.get(InboundMessage, mid).state == states.ACKNOWLEDGED
    app = make_app(services, slack_server)
    click(app, f"{blocks.NEEDS_REPLY}_{mid}", mid, user="U0BETO")
    drain(app)
    with Session(services.engine) as s:
        assert s.get(InboundMessage, mid).state == states.RECEIVED
        events = s.exec(select(AuditEvent).where(AuditEvent.message_id == mid)).all()
    assert [(e.event, e.actor) for e in events if e.event in ("needs_reply", "unauthorised")] == [("unauthorised", "slack:U0EVE"), ("needs_reply", "slack:U0BETO")]
