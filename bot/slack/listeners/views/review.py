"""Edit and reject modal submissions: validate, decide, answer the modal within 3 s, then update the card."""

from __future__ import annotations

from typing import Any

from bot.slack import blocks, reviewing
from pipeline.texts import t
from review import queue
from review.db import session_scope
from review.errors import ConcurrentUpdate, NotFound, ReviewError, UnconfirmedLinks


def _values(view: dict[str, Any], block_id: str, action_id: str) -> dict[str, Any]:
    return ((view.get("state") or {}).get("values") or {}).get(block_id, {}).get(action_id) or {}


def edit_errors(text: str, original: str, lang: str) -> str | None:
    """Why an edited reply cannot be sent, or None."""
    if not text.strip():
        return t("review_edit_empty", lang)
    if text.strip() == original.strip():
        return t("review_edit_unchanged", lang)
    if len(text) > blocks.INPUT_LIMIT:
        return t("review_edit_too_long", lang).format(n=blocks.INPUT_LIMIT)
    return None


def _submit(services, ack, body, client, *, action: str, field_block: str, send=None) -> None:
    view = body["view"]
    user_id = body["user"]["id"]
    ref = blocks.CardRef.loads(view.get("private_metadata") or "{}")
    lang = reviewing.lang_of(services)
    if not reviewing.authorised(services, client, user_id=user_id, channel=ref.channel, draft_id=ref.draft_id):
        ack(response_action="errors", errors={field_block: t("review_not_authorised", lang)})
        reviewing.refuse(services, client, user_id=user_id, channel=ref.channel, action=action, draft_id=ref.draft_id)
        return
    kwargs: dict[str, Any] = {}
    if action == "edit":
        text = _values(view, blocks.EDIT_BLOCK, blocks.EDIT_INPUT).get("value") or ""
        with session_scope(services.engine) as session:
            try:
                original = queue.get_draft(session=session, draft_id=ref.draft_id)[0].text
            except NotFound:
                ack(response_action="errors", errors={field_block: t("review_missing_draft", lang).format(draft_id=ref.draft_id)})
                return
        problem = edit_errors(text, original, lang)
        if problem:
            ack(response_action="errors", errors={field_block: problem})
            return
        kwargs["text"] = text
    else:
        reason = (_values(view, blocks.REASON_BLOCK, blocks.REASON_INPUT).get("selected_option") or {}).get("value")
        if reason not in queue.REJECT_REASONS:
            ack(response_action="errors", errors={field_block: t("review_reject_no_reason", lang)})
            return
        kwargs["reason"] = reason
        kwargs["comment"] = (_values(view, blocks.COMMENT_BLOCK, blocks.COMMENT_INPUT).get("value") or "").strip() or None
    try:
        reviewing.decide(services, action=action, draft_id=ref.draft_id, user_id=user_id, **kwargs)
    except ConcurrentUpdate as exc:
        if reviewing.is_repeat(exc, user_id=user_id, action=action):
            ack()
        else:
            ack(response_action="errors", errors={field_block: reviewing.conflict_text(services, exc)})
        if not (exc.actor or "").startswith("slack:"):  # decided in the terminal: bring the stale card up to date
            reviewing.after_decision(services, client, draft_id=ref.draft_id, send=send)
        return
    except UnconfirmedLinks as exc:
        ack(response_action="errors", errors={field_block: t("review_edit_foreign_links", lang).format(links=", ".join(exc.links))})
        return
    except ReviewError as exc:
        ack(response_action="errors", errors={field_block: t("review_error", lang).format(error=exc)})
        return
    ack()  # the modal closes now; the rest runs after Slack has its answer
    reviewing.after_decision(services, client, draft_id=ref.draft_id, send=send)


def register(app, services, send=None) -> None:
    @app.view(blocks.EDIT_CALLBACK)
    def edit_submitted(ack, body, client) -> None:
        _submit(services, ack, body, client, action="edit", field_block=blocks.EDIT_BLOCK, send=send)

    @app.view(blocks.REJECT_CALLBACK)
    def reject_submitted(ack, body, client) -> None:
        _submit(services, ack, body, client, action="reject", field_block=blocks.REASON_BLOCK, send=send)
