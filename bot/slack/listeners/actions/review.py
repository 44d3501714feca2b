"""Button handlers of the review card: thin wrappers around bot.slack.reviewing."""

from __future__ import annotations

import logging
from typing import Any

from bot.slack import blocks, reviewing
from pipeline.texts import t
from review import queue, states
from review.db import session_scope
from review.errors import ConcurrentUpdate, NotFound, ReviewError, UnconfirmedLinks

log = logging.getLogger(__name__)


def _ack(ack) -> None:
    ack()


def _click(body: dict[str, Any]) -> tuple[str, int | None, str | None, str | None]:
    """(user id, draft id, card channel, card ts) of a button click."""
    action = body["actions"][0]
    try:
        draft_id: int | None = int(action.get("value") or "")
    except ValueError:
        draft_id = None
    container = body.get("container") or {}
    channel = container.get("channel_id") or (body.get("channel") or {}).get("id")
    return body["user"]["id"], draft_id, channel, container.get("message_ts")


def _authorised(services, client, body: dict[str, Any], action: str, *, answer: bool = False) -> tuple[str, int, str | None, str | None] | None:
    """(user, id, channel, ts) of a click by someone who may act on it (`answer`: the value is a curated answer's id)."""
    user_id, draft_id, channel, ts = _click(body)
    if not reviewing.authorised(services, client, user_id=user_id, channel=channel, **({"answer_id": draft_id} if answer else {"draft_id": draft_id})):
        reviewing.refuse(services, client, user_id=user_id, channel=channel, action=action, draft_id=draft_id)
        return None
    if draft_id is None:
        log.warning("review click without a draft id: %s", body["actions"][0])
        return None
    return user_id, draft_id, channel, ts


def approve(services, body, client, *, send=None, confirm_links: bool = False) -> None:
    """Aprobar (or «Aprobar con enlaces», confirmed in Slack's dialog): record the approval; the winner updates the card and sends the reply."""
    click = _authorised(services, client, body, "approve")
    if click is None:
        return
    user_id, draft_id, channel, _ = click
    try:
        reviewing.decide(services, action="approve", draft_id=draft_id, user_id=user_id, confirm_links=confirm_links)
    except UnconfirmedLinks as exc:
        lang = reviewing.lang_of(services)
        reviewing.tell(client, user_id=user_id, channel=channel, text=t("review_links_need_confirmation", lang).format(draft_id=draft_id, links=", ".join(exc.links)))
        return
    except ConcurrentUpdate as exc:
        if not reviewing.is_repeat(exc, user_id=user_id, action="approve"):
            reviewing.tell(client, user_id=user_id, channel=channel, text=reviewing.conflict_text(services, exc))
        if not (exc.actor or "").startswith("slack:"):  # decided in the terminal: bring the stale card up to date
            reviewing.after_decision(services, client, draft_id=draft_id, send=send)
        return
    except ReviewError as exc:
        reviewing.tell(client, user_id=user_id, channel=channel, text=t("review_error", reviewing.lang_of(services)).format(error=exc))
        return
    reviewing.after_decision(services, client, draft_id=draft_id, send=send)


def open_modal(services, body, client, *, action: str) -> None:
    """Editar / Rechazar / Ver derivación: open the matching modal while the trigger id is fresh."""
    click = _authorised(services, client, body, action) if action != "derivation" else _click(body)
    if click is None:
        return
    user_id, draft_id, channel, ts = click
    lang = reviewing.lang_of(services)
    with session_scope(services.engine) as session:
        try:
            draft, message = queue.get_draft(session=session, draft_id=draft_id)  # type: ignore[arg-type]
        except NotFound:
            reviewing.tell(client, user_id=user_id, channel=channel, text=t("review_missing_draft", lang).format(draft_id=draft_id))
            return
        decision = queue.decision_for(session=session, message_id=message.id) if message.state != states.DRAFTED else None  # type: ignore[arg-type]
    if decision is not None and action != "derivation":
        reviewing.tell(client, user_id=user_id, channel=channel, text=blocks.already_decided_text(decision.actor, decision.action, lang))
        return
    if action == "edit" and len(draft.text) > blocks.INPUT_LIMIT:  # a truncated prefill must never be sent
        reviewing.tell(client, user_id=user_id, channel=channel, text=t("review_edit_in_terminal", lang).format(draft_id=draft.id, n=blocks.INPUT_LIMIT))
        return
    ref = blocks.CardRef(draft_id=draft.id, channel=channel, ts=ts)  # type: ignore[arg-type]
    build = {"edit": blocks.edit_modal, "reject": blocks.reject_modal, "derivation": blocks.derivation_modal}[action]
    client.views_open(trigger_id=body["trigger_id"], view=build(draft, ref, lang=lang))


def register(app, services, send=None) -> None:
    app.action(blocks.APPROVE)(ack=_ack, lazy=[_lazy(services, approve, send=send)])
    app.action(blocks.APPROVE_LINKS)(ack=_ack, lazy=[_lazy(services, approve, send=send, confirm_links=True)])
    app.action(blocks.EDIT)(ack=_ack, lazy=[_lazy(services, open_modal, action="edit")])
    app.action(blocks.REJECT)(ack=_ack, lazy=[_lazy(services, open_modal, action="reject")])
    app.action(blocks.DERIVATION)(ack=_ack, lazy=[_lazy(services, open_modal, action="derivation")])


def _lazy(services, fn, **kw):
    """A lazy listener with the signature Bolt injects (body, client), bound to `services`."""

    def lazy(body, client) -> None:
        fn(services, body, client, **kw)

    lazy.__name__ = f"{fn.__name__}_{kw.get('action', 'click')}"
    return lazy
