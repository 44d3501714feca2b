"""Answer-memory buttons: save a sent reply as a standard answer, retire a curated answer (ack at once, work lazily)."""

from __future__ import annotations

import logging
from typing import Any

from bot.answer_memory import current_hashes
from bot.slack import blocks, reviewing
from bot.slack.listeners.actions.review import _ack, _authorised, _lazy
from pipeline.texts import t
from review import answers
from review.db import session_scope
from review.errors import ReviewError

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
    click = _authorised(services, client, body, "answer_retire")
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


def register(app, services) -> None:
    app.action(blocks.ANSWER_SAVE)(ack=_ack, lazy=[_lazy(services, save)])
    app.action(blocks.ANSWER_RETIRE)(ack=_ack, lazy=[_lazy(services, retire)])
