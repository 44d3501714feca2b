"""Answer-memory buttons: save a sent reply as a standard answer, retire a curated answer (ack at once, work lazily)."""

from __future__ import annotations

import logging
import re
from typing import Any

from bot.learning.answer_memory import current_hashes
from bot.slack import blocks, reviewing
from bot.slack.listeners.actions.review import _ack, _authorised, _lazy
from pipeline.texts import t
from review import answer_memory as answers, queue, states
from review.answer_models import ACTIVE
from review.db import session_scope
from review.errors import NotFound, ReviewError

log = logging.getLogger(__name__)


def save(services, body: dict[str, Any], client) -> None:
    """Guardar como respuesta estándar: the reply sent for this draft becomes (again) an active standard answer."""
    click = _authorised(services, client, body, "answer_save")
    if click is None:
        return
    user_id, draft_id, channel, _ = click
    lang = reviewing.lang_of(services)
    try:
        hashes = current_hashes(services)
        with session_scope(services.engine) as session:
            answer = answers.save_standard(session=session, draft_id=draft_id, actor=reviewing.actor_for(user_id), current=hashes)
    except ReviewError as exc:
        reviewing.tell(client, user_id=user_id, channel=channel, text=t("answer_error", lang).format(error=exc))
        return
    reviewing.tell(client, user_id=user_id, channel=channel, text=t("answer_saved", lang).format(answer_id=answer.id))


def retire(services, body: dict[str, Any], client) -> None:
    """Retirar respuesta #N: the curated answer is no longer used as a draft (the button's value is the answer id)."""
    click = _authorised(services, client, body, "answer_retire", answer=True)
    if click is None:
        return
    user_id, answer_id, channel, _ = click
    lang = reviewing.lang_of(services)
    try:
        with session_scope(services.engine) as session:
            answers.retire(session=session, answer_id=answer_id, actor=reviewing.actor_for(user_id), reason="retired from Slack")
    except ReviewError as exc:
        reviewing.tell(client, user_id=user_id, channel=channel, text=t("answer_error", lang).format(error=exc))
        return
    reviewing.tell(client, user_id=user_id, channel=channel, text=t("answer_retired", lang).format(answer_id=answer_id))


def use(services, body: dict[str, Any], client) -> None:
    """Editar desde la respuesta #N: the edit modal opens with the approved answer's text (greeting filled for this student); submitting it is an edit."""
    action = body["actions"][0]
    user_id = body["user"]["id"]
    container = body.get("container") or {}
    channel = container.get("channel_id") or (body.get("channel") or {}).get("id")
    lang = reviewing.lang_of(services)
    try:
        draft_id, answer_id = (int(x) for x in str(action.get("value") or "").split(":"))
    except ValueError:
        draft_id = answer_id = None
    if not reviewing.authorised(services, client, user_id=user_id, channel=channel, draft_id=draft_id):
        reviewing.refuse(services, client, user_id=user_id, channel=channel, action="edit", draft_id=None)
        return
    if draft_id is None or answer_id is None:
        log.warning("answer-use click with a malformed value: %r", action.get("value"))
        return
    with session_scope(services.engine) as session:
        try:
            draft, message = queue.get_draft(session=session, draft_id=draft_id)
            found = answers.get_answer(session=session, answer_id=answer_id)
        except NotFound as exc:
            reviewing.tell(client, user_id=user_id, channel=channel, text=t("answer_error", lang).format(error=exc))
            return
        decision = queue.decision_for(session=session, message_id=message.id) if message.state != states.DRAFTED else None  # type: ignore[arg-type]
    if decision is not None:
        reviewing.tell(client, user_id=user_id, channel=channel, text=blocks.already_decided_text(decision.actor, decision.action, lang))
        return
    if found.state != ACTIVE or found.office != message.office or answers.changed_documents(found, current_hashes(services)):  # another office's answer is not offered
        reviewing.tell(client, user_id=user_id, channel=channel, text=t("answer_not_usable", lang).format(answer_id=answer_id))
        return
    text = answers.for_student(found.text, message)  # its {nombre} slot filled for this draft's student, in the modal only
    if len(text) > blocks.INPUT_LIMIT:
        reviewing.tell(client, user_id=user_id, channel=channel, text=t("review_edit_in_terminal", lang).format(draft_id=draft_id, n=blocks.INPUT_LIMIT))
        return
    ref = blocks.CardRef(draft_id=draft_id, channel=channel, ts=container.get("message_ts"))  # type: ignore[arg-type]
    client.views_open(trigger_id=body["trigger_id"], view=blocks.edit_modal(draft, ref, lang=lang, text=text))


def register(app, services, send=None) -> None:
    app.action(blocks.ANSWER_SAVE)(ack=_ack, lazy=[_lazy(services, save)])
    app.action(blocks.ANSWER_RETIRE)(ack=_ack, lazy=[_lazy(services, retire)])
    app.action(re.compile(rf"^{blocks.ANSWER_USE}_\d+$"))(ack=_ack, lazy=[_lazy(services, use)])
