"""The Slack review UI end to end: signed clicks and modal submissions against the local Slack server."""

from __future__ import annotations

import json
import mailbox
import threading

import pytest

from sqlmodel import Session, select

from bot.slack import blocks
from bot.slack.poster import post_pending_cards
from review import states
from review.db import session_scope
from review.models import AuditEvent, Decision, InboundMessage, OutgoingReply
from tests.bot.slack.conftest import REVIEW_CHANNEL
from tests.bot.slack.helpers import click, drain, make_app, submit
from tests.review.factories import make_drafted


def _pending_card(services, slack_server, **kw):
    with session_scope(services.engine) as s:
        draft, message = make_drafted(s, **kw)
    assert post_pending_cards(services) == 1
    card = slack_server.posted(REVIEW_CHANNEL)[-1]
    return draft, message, card["ts"]


def _sent_mail(services) -> list:
    path = services.settings.paths.outbox_dir
    return list(mailbox.Maildir(path, create=False)) if path.exists() else []


def _decisions(services) -> list[Decision]:
    with Session(services.engine) as s:
        return list(s.exec(select(Decision)).all())


def test_approve_click_records_updates_the_card_and_sends_the_reply(services, slack_server):
    draft, message, ts = _pending_card(services, slack_server)
    app = make_app(services, slack_server)
    response = click(app, blocks.APPROVE, draft.id, ts=ts)
    assert response.status == 200
    drain(app)
    (decision,) = _decisions(services)
    assert (decision.action, decision.actor) == ("approve", "slack:U0ANA")
    card = next(m for m in slack_server.posted(REVIEW_CHANNEL) if m["ts"] == ts)
    assert [b.get("block_id") for b in card["blocks"] if b["type"] == "actions"] == [blocks.ANSWER_BLOCK] and "Aprobado por <@U0ANA>" in json.dumps(card["blocks"], ensure_ascii=False)
    thread = [m for m in slack_server.posted(REVIEW_CHANNEL) if m.get("thread_ts") == ts and m["ts"] != ts]
    assert len(thread) == 1 and "Aprobado por <@U0ANA>" in thread[0]["text"]
    (sent,) = _sent_mail(services)
    assert sent["To"] == "ana@example.com" and "10 de febrero" in sent.get_payload(decode=True).decode()
    with Session(services.engine) as s:
        assert s.get(InboundMessage, message.id).state == states.SENT


def test_twenty_simultaneous_approve_clicks_send_exactly_one_reply(services, slack_server):
    _twenty_clicks(services, slack_server)


@pytest.mark.postgres
def test_twenty_simultaneous_approve_clicks_on_postgres(pg_services, slack_server):
    assert pg_services.engine.dialect.name == "postgresql"
    _twenty_clicks(pg_services, slack_server)


def _twenty_clicks(services, slack_server):
    draft, _, ts = _pending_card(services, slack_server)
    app = make_app(services, slack_server)
    users = ["U0ANA", "U0BETO"]
    start = threading.Barrier(20)
    statuses: list[int] = []

    def go(i: int) -> None:
        start.wait()
        statuses.append(click(app, blocks.APPROVE, draft.id, user=users[i % 2], ts=ts).status)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(20)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    drain(app)
    assert statuses == [200] * 20
    assert len(_decisions(services)) == 1 and len(_sent_mail(services)) == 1
    with Session(services.engine) as s:
        assert [r.state for r in s.exec(select(OutgoingReply)).all()] == ["sent"]
    assert len([m for m in slack_server.posted(REVIEW_CHANNEL) if m.get("thread_ts") == ts and m["ts"] != ts]) == 1
    winner = _decisions(services)[0].actor.removeprefix("slack:")
    loser = next(u for u in users if u != winner)
    told = [e for e in slack_server.ephemeral if e.get("user") == loser]
    assert told and all(f"<@{winner}>" in e["text"] for e in told)


def test_double_delivery_of_the_same_click_makes_one_decision(services, slack_server):
    draft, _, ts = _pending_card(services, slack_server)
    app = make_app(services, slack_server)
    click(app, blocks.APPROVE, draft.id, ts=ts)
    click(app, blocks.APPROVE, draft.id, ts=ts)
    drain(app)
    assert len(_decisions(services)) == 1 and len(_sent_mail(services)) == 1
    assert slack_server.ephemeral == []  # the same reviewer's repeat is not an error


def test_unauthorised_user_is_refused_privately_and_audited(services, slack_server):
    draft, message, ts = _pending_card(services, slack_server)
    app = make_app(services, slack_server)
    click(app, blocks.APPROVE, draft.id, user="U0INTRUSO", ts=ts)
    drain(app)
    assert _decisions(services) == [] and _sent_mail(services) == []
    (note,) = slack_server.ephemeral
    assert note["user"] == "U0INTRUSO" and "No estás autorizado" in note["text"]
    with Session(services.engine) as s:
        event = s.exec(select(AuditEvent).where(AuditEvent.event == "unauthorised")).one()
        assert s.get(InboundMessage, message.id).state == states.DRAFTED
    assert (event.actor, event.message_id, event.details["action"]) == ("slack:U0INTRUSO", message.id, "approve")


def test_members_of_the_review_channel_are_reviewers_when_no_list_is_configured(services, slack_server):
    services.settings.slack.reviewers = []
    slack_server.add_channel(REVIEW_CHANNEL, name="revision", members=["U0CARLA", "U0BOT0001"])
    draft, _, ts = _pending_card(services, slack_server)
    app = make_app(services, slack_server)
    click(app, blocks.APPROVE, draft.id, user="U0AJENO", ts=ts)
    click(app, blocks.APPROVE, draft.id, user="U0CARLA", ts=ts)
    drain(app)
    assert [d.actor for d in _decisions(services)] == ["slack:U0CARLA"]
    assert slack_server.calls_to("conversations.members")


def test_edit_opens_a_prefilled_modal_and_its_submission_sends_the_edited_text(services, slack_server):
    draft, _, ts = _pending_card(services, slack_server)
    app = make_app(services, slack_server)
    click(app, blocks.EDIT, draft.id, ts=ts)
    drain(app)
    (opened,) = [c for c in slack_server.calls_to("views.open") if c.ok]
    view = json.loads(opened.args["view"]) if isinstance(opened.args["view"], str) else opened.args["view"]
    assert view["callback_id"] == blocks.EDIT_CALLBACK and view["blocks"][0]["element"]["initial_value"] == draft.text
    app = make_app(services, slack_server)
    value = lambda text: {blocks.EDIT_BLOCK: {blocks.EDIT_INPUT: {"type": "plain_text_input", "value": text}}}  # noqa: E731
    empty = submit(app, blocks.EDIT_CALLBACK, value("  "), private_metadata=view["private_metadata"])
    unchanged = submit(app, blocks.EDIT_CALLBACK, value(draft.text), private_metadata=view["private_metadata"])
    ok = submit(app, blocks.EDIT_CALLBACK, value("Hola:\nCierra el 10/02. Saludos"), private_metadata=view["private_metadata"])
    drain(app)
    assert json.loads(empty.body)["errors"][blocks.EDIT_BLOCK] == "La respuesta no puede quedar vacía."
    assert "No hiciste cambios" in json.loads(unchanged.body)["errors"][blocks.EDIT_BLOCK]
    assert ok.status == 200 and ok.body == ""
    (decision,) = _decisions(services)
    assert decision.action == "edit" and decision.final_text == "Hola:\nCierra el 10/02. Saludos"
    (sent,) = _sent_mail(services)
    assert "Cierra el 10/02" in sent.get_payload(decode=True).decode()


def test_reject_modal_records_reason_and_comment_and_sends_nothing(services, slack_server):
    draft, message, ts = _pending_card(services, slack_server)
    app = make_app(services, slack_server)
    click(app, blocks.REJECT, draft.id, ts=ts)
    drain(app)
    opened = next(c for c in slack_server.calls_to("views.open") if c.ok)
    view = json.loads(opened.args["view"]) if isinstance(opened.args["view"], str) else opened.args["view"]
    app = make_app(services, slack_server)
    values = {
        blocks.REASON_BLOCK: {blocks.REASON_INPUT: {"type": "static_select", "selected_option": {"value": "out_of_domain"}}},
        blocks.COMMENT_BLOCK: {blocks.COMMENT_INPUT: {"type": "plain_text_input", "value": "pregunta por la cantina"}},
    }
    assert submit(app, blocks.REJECT_CALLBACK, values, private_metadata=view["private_metadata"]).status == 200
    drain(app)
    (decision,) = _decisions(services)
    assert (decision.action, decision.reason, decision.comment) == ("reject", "out_of_domain", "pregunta por la cantina")
    assert _sent_mail(services) == []
    card = next(m for m in slack_server.posted(REVIEW_CHANNEL) if m["ts"] == ts)
    assert "motivo: fuera de dominio" in json.dumps(card["blocks"], ensure_ascii=False)


def test_second_reviewer_submitting_a_modal_is_told_who_decided_first(services, slack_server):
    draft, _, ts = _pending_card(services, slack_server)
    app = make_app(services, slack_server)
    click(app, blocks.APPROVE, draft.id, user="U0ANA", ts=ts)
    drain(app)
    app = make_app(services, slack_server)
    meta = blocks.CardRef(draft_id=draft.id, channel=REVIEW_CHANNEL, ts=ts).dumps()
    values = {blocks.REASON_BLOCK: {blocks.REASON_INPUT: {"type": "static_select", "selected_option": {"value": "spam"}}}}
    response = submit(app, blocks.REJECT_CALLBACK, values, private_metadata=meta, user="U0BETO")
    drain(app)
    assert "ya fue decidido por <@U0ANA> (aprobado)" in json.loads(response.body)["errors"][blocks.REASON_BLOCK]
    assert [d.action for d in _decisions(services)] == ["approve"]


def test_derivation_button_shows_the_tree_with_flags(services, slack_server):
    steps = [
        {"id": "s1", "rule": "Extract", "premises": ["1"], "conclusion": "Cierra el 10/02.", "is_final": False, "flags": []},
        {"id": "s2", "rule": "Refine", "premises": ["s1"], "conclusion": "Cierra el 10 de febrero a las 18 h.", "is_final": True, "flags": ["'18 h' no aparece en las premisas"]},
    ]
    draft, _, ts = _pending_card(services, slack_server, derivation=steps)
    app = make_app(services, slack_server)
    click(app, blocks.DERIVATION, draft.id, user="U0ANA", ts=ts)
    drain(app)
    opened = next(c for c in slack_server.calls_to("views.open") if c.ok)
    text = json.dumps(opened.args["view"], ensure_ascii=False)
    assert "⚠️ *[s2] Refine*" in text and "18 h" in text and "[s1] Extract" in text


def test_decision_in_the_terminal_updates_the_slack_card(services, slack_server):
    from bot.slack.reviewing import sync_decided_cards
    from review import queue

    draft, _, ts = _pending_card(services, slack_server)
    with session_scope(services.engine) as s:
        queue.reject(session=s, draft_id=draft.id, actor="cli:marta", reason="personal")
    client = make_app(services, slack_server).client
    assert sync_decided_cards(services, client=client) == 1
    assert sync_decided_cards(services, client=client) == 0
    card = next(m for m in slack_server.posted(REVIEW_CHANNEL) if m["ts"] == ts)
    text = json.dumps(card["blocks"], ensure_ascii=False)
    assert "Rechazado por marta (terminal)" in text and "requiere atención personal" in text
    # a Slack click on the stale card is answered with who decided
    app = make_app(services, slack_server)
    click(app, blocks.APPROVE, draft.id, user="U0BETO", ts=ts)
    drain(app)
    assert any("marta (terminal)" in e["text"] for e in slack_server.ephemeral if e["user"] == "U0BETO")


def test_drafts_too_long_for_a_slack_form_are_not_edited_there(services, slack_server):
    draft, _, ts = _pending_card(services, slack_server, text="palabra " * 500)
    app = make_app(services, slack_server)
    click(app, blocks.EDIT, draft.id, ts=ts)
    drain(app)
    assert not [c for c in slack_server.calls_to("views.open") if c.ok]
    assert any(f"orienta review edit {draft.id}" in e["text"] for e in slack_server.ephemeral)


FOREIGN = [{"kind": "foreign_link", "link": "https://evil.example/login", "flag": "enlace que no está en los documentos: https://evil.example/login"}]


def test_a_card_with_foreign_links_shows_them_and_plain_approve_is_refused(services, slack_server):
    draft, message, ts = _pending_card(services, slack_server, text="Entrá a https://evil.example/login", flags=FOREIGN)
    card = next(m for m in slack_server.posted(REVIEW_CHANNEL) if m["ts"] == ts)
    rendered = json.dumps(card["blocks"], ensure_ascii=False)
    assert "NO están en los documentos" in rendered and "evil.example/login" in rendered
    buttons = [e for b in card["blocks"] if b["type"] == "actions" for e in b["elements"]]
    approve = next(e for e in buttons if e["action_id"] == blocks.APPROVE_LINKS)
    assert "confirm" in approve and not any(e["action_id"] == blocks.APPROVE for e in buttons)
    app = make_app(services, slack_server)
    assert click(app, blocks.APPROVE, draft.id, ts=ts).status == 200  # a forged or stale plain approve
    drain(app)
    assert _decisions(services) == [] and _sent_mail(services) == []
    assert any("Aprobar con enlaces" in (c.args.get("text") or "") for c in slack_server.calls_to("chat.postEphemeral"))


def test_approve_with_links_confirmed_in_slack_records_the_confirmation_and_sends(services, slack_server):
    draft, message, ts = _pending_card(services, slack_server, text="Entrá a https://evil.example/login", flags=FOREIGN)
    app = make_app(services, slack_server)
    assert click(app, blocks.APPROVE_LINKS, draft.id, ts=ts).status == 200
    drain(app)
    (decision,) = _decisions(services)
    assert decision.action == "approve" and len(_sent_mail(services)) == 1
    with Session(services.engine) as s:
        confirmed = s.exec(select(AuditEvent).where(AuditEvent.event == "foreign_links_confirmed")).one()
    assert confirmed.actor == "slack:U0ANA" and confirmed.details["links"] == ["https://evil.example/login"]
