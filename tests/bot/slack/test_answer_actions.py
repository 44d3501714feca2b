"""The answer-memory buttons end to end: signed clicks against the local Slack server."""

from __future__ import annotations

import json

from sqlmodel import Session, select

from bot.slack import blocks
from bot.slack.poster import post_pending_cards
from review import answer_memory as answers
from review.answer_models import ACTIVE, RETIRED, CuratedAnswer
from review.db import session_scope
from review.models import AuditEvent
from tests.bot.slack.conftest import REVIEW_CHANNEL
from tests.bot.slack.helpers import click, drain, make_app, submit
from tests.review.factories import make_drafted


def _approved_card(services, slack_server):
    with session_scope(services.engine) as s:
        draft, _ = make_drafted(s)
    assert post_pending_cards(services) == 1
    ts = slack_server.posted(REVIEW_CHANNEL)[-1]["ts"]
    app = make_app(services, slack_server)
    click(app, blocks.APPROVE, draft.id, ts=ts)
    drain(app)
    return draft, ts


def _answers(services) -> list[CuratedAnswer]:
    with Session(services.engine) as s:
        return list(s.exec(select(CuratedAnswer)).all())


def _ephemerals(slack_server) -> list[str]:
    return [c.args.get("text", "") for c in slack_server.successful_calls("chat.postEphemeral")]


def test_the_decided_card_offers_save_and_the_click_makes_a_standard_answer(services, slack_server):
    draft, ts = _approved_card(services, slack_server)
    card = next(m for m in slack_server.posted(REVIEW_CHANNEL) if m["ts"] == ts)
    buttons = [e for b in card["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert [(e["action_id"], e["value"]) for e in buttons] == [(blocks.ANSWER_SAVE, str(draft.id))]
    (kept,) = _answers(services)
    assert not kept.standard
    app = make_app(services, slack_server)
    assert click(app, blocks.ANSWER_SAVE, draft.id, ts=ts).status == 200
    drain(app)
    (kept,) = _answers(services)
    assert (kept.standard, kept.state) == (True, ACTIVE)
    assert any(f"Respuesta estándar #{kept.id} guardada" in text for text in _ephemerals(slack_server))


def test_retire_click_retires_and_strangers_are_refused(services, slack_server):
    draft, ts = _approved_card(services, slack_server)
    (kept,) = _answers(services)
    app = make_app(services, slack_server)
    click(app, blocks.ANSWER_RETIRE, kept.id, ts=ts, user="U0EVE")
    drain(app)
    assert _answers(services)[0].state == ACTIVE
    with Session(services.engine) as s:
        refused = s.exec(select(AuditEvent).where(AuditEvent.event == "unauthorised")).all()
    assert [e.details["action"] for e in refused] == ["answer_retire"]
    app = make_app(services, slack_server)
    click(app, blocks.ANSWER_RETIRE, kept.id, ts=ts, user="U0BETO")
    drain(app)
    (kept,) = _answers(services)
    assert (kept.state, kept.state_changed_by) == (RETIRED, "slack:U0BETO")
    assert any(f"Respuesta #{kept.id} retirada" in text for text in _ephemerals(slack_server))


def test_saving_a_rejected_draft_is_refused_with_a_note(services, slack_server):
    with session_scope(services.engine) as s:
        draft, _ = make_drafted(s)
    app = make_app(services, slack_server)
    click(app, blocks.ANSWER_SAVE, draft.id)
    drain(app)
    assert _answers(services) == [] and any("not approved" in text for text in _ephemerals(slack_server))


def test_a_suggested_approved_answer_opens_the_edit_modal_with_its_text_and_sending_it_confirms_that_answer(services, slack_server):
    """'Editar desde la respuesta #N': the reviewer reads the approved text in the edit modal; sent unchanged, it is that answer again."""
    _approved_card(services, slack_server)
    with session_scope(services.engine) as s:  # the documents it cites are the indexed ones (this office has none)
        (kept,) = s.exec(select(CuratedAnswer)).all()
        kept.references = []
        kept.text = "Hola {nombre}:\n" + kept.text.split("\n", 1)[-1]  # a greeting slot, filled for the student of the draft
        s.add(kept)
    (kept,) = _answers(services)
    filled = kept.text.replace("Hola {nombre}:", "Hola:")  # this student's message gives no name: a neutral greeting
    suggestion = {"kind": answers.SUGGESTION_FLAG, "answer_id": kept.id, "question": kept.question, "approved_at": kept.approved_at.isoformat(), "similarity": 0.91}
    with session_scope(services.engine) as s:
        draft, _ = make_drafted(s, question="¿cuál es la fecha límite para anotarse a febrero?", text="Hola:\nOtro borrador.\nSaludos", flags=[suggestion])
    assert post_pending_cards(services) == 1
    card = slack_server.posted(REVIEW_CHANNEL)[-1]
    rendered = json.dumps(card["blocks"], ensure_ascii=False)
    assert f"💡 Parecida a la respuesta aprobada #{kept.id}" in rendered and "Paso" not in rendered
    (use,) = [e for b in card["blocks"] if b["type"] == "actions" for e in b["elements"] if e["action_id"].startswith(blocks.ANSWER_USE)]
    assert (use["action_id"], use["value"]) == (f"{blocks.ANSWER_USE}_{kept.id}", f"{draft.id}:{kept.id}")

    app = make_app(services, slack_server)
    click(app, use["action_id"], use["value"], ts=card["ts"], user="U0EVE")  # not a reviewer
    drain(app)
    assert not [c for c in slack_server.calls_to("views.open") if c.ok]
    app = make_app(services, slack_server)
    click(app, use["action_id"], use["value"], ts=card["ts"])
    drain(app)
    (opened,) = [c for c in slack_server.calls_to("views.open") if c.ok]
    view = json.loads(opened.args["view"]) if isinstance(opened.args["view"], str) else opened.args["view"]
    assert view["callback_id"] == blocks.EDIT_CALLBACK and view["blocks"][0]["element"]["initial_value"] == filled and "{" not in filled
    app = make_app(services, slack_server)
    values = {blocks.EDIT_BLOCK: {blocks.EDIT_INPUT: {"type": "plain_text_input", "value": filled}}}
    assert submit(app, blocks.EDIT_CALLBACK, values, private_metadata=view["private_metadata"]).status == 200
    drain(app)
    (again,) = _answers(services)  # no second copy: the approved answer now also covers this wording
    assert again.id == kept.id and "¿cuál es la fecha límite para anotarse a febrero?" in (again.aliases or [])


def test_a_suggested_answer_whose_documents_changed_is_not_offered_for_editing(services, slack_server):
    _approved_card(services, slack_server)
    (kept,) = _answers(services)
    assert kept.references  # cites a document this office no longer has indexed
    suggestion = {"kind": answers.SUGGESTION_FLAG, "answer_id": kept.id, "question": kept.question, "approved_at": kept.approved_at.isoformat(), "similarity": 0.91}
    with session_scope(services.engine) as s:
        draft, _ = make_drafted(s, flags=[suggestion])
    app = make_app(services, slack_server)
    click(app, f"{blocks.ANSWER_USE}_{kept.id}", f"{draft.id}:{kept.id}")
    drain(app)
    assert not [c for c in slack_server.calls_to("views.open") if c.ok]
    assert any(f"La respuesta #{kept.id} ya no está activa" in text for text in _ephemerals(slack_server))
