"""`orienta review list|show|approve|edit|reject`: the terminal review queue."""

from __future__ import annotations

import getpass
import os
from typing import Optional

import typer
from rich.table import Table

from bot.cli._common import console, describe, edit_in_editor, err_console, fail, print_json, services
from pipeline.derivation import Step, render
from pipeline.generation import outcome_of
from pipeline.generation.readiness import READY, readiness_of, readiness_text
from pipeline.texts import t
from review import answer_memory as answers, queue, states
from review.answer_memory import CURATED_FLAG, SUGGESTION_FLAG
from review.db import session_scope
from review.errors import ReviewError

ACTIONS = {"approve": "aprobado", "edit": "editado y aprobado"}
STATE_ES = {"drafted": "pendiente", "approved": "aprobado", "edited": "editado", "rejected": "rechazado", "sent": "enviado", "send_failed": "envío fallido"}
review_app = typer.Typer(help="Revisión de borradores: aprobar, editar o rechazar.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(review_app, name="review")


def _actor(actor: Optional[str]) -> str:
    return actor or f"cli:{os.environ.get('USER') or getpass.getuser()}"


def draft_summary(draft, message) -> dict:
    return {
        "draft_id": draft.id,
        "message_id": message.id,
        "state": message.state,
        "channel": message.channel,
        "sender": message.sender,
        "subject": message.subject,
        "question": message.cleaned_text,
        "gate": {"in_domain": message.gate_in_domain, "score": message.gate_score, "outcome": draft.gate_outcome, "reasons": draft.gate_reasons or []},
        "method": draft.method,
        "model": draft.model,
        "no_info": draft.no_info,
        "out_of_domain": draft.out_of_domain,
        "references": draft.references,
        "flags": draft.flags,
        "foreign_links": queue.flagged_links(draft),
        "reason": message.reason,
        "message_flags": message.flags or [],
        "outcome": outcome_of(draft.flags),
        "readiness": (readiness_of(draft.flags) or {}).get("flag"),
        "version": message.version,
        "created_at": draft.created_at.isoformat(),
        "office": message.office,
        "route": (draft.context or {}).get("route"),
    }


def set_aside_summary(message) -> dict:
    return {
        "message_id": message.id,
        "state": message.state,
        "state_label": t(f"set_aside_{message.state}"),
        "channel": message.channel,
        "sender": message.sender,
        "subject": message.subject,
        "text": message.cleaned_text or message.redacted_text or message.body_text,
        "reason": message.reason,
        "at": message.updated_at.isoformat(),
    }


def _list_set_aside(ctx: typer.Context, state: str, limit: int, as_json: bool) -> None:
    """Acknowledged, skipped or quarantined messages, with the reason and the command that sends them to drafting."""
    with session_scope(services(ctx).engine) as session:
        items = [set_aside_summary(m) for m in queue.not_drafted(session=session, state=state, limit=limit)]
    if as_json:
        print_json(items)
        return
    if not items:
        console.print(f"No hay mensajes en estado {state}.")
        return
    table = Table("msg", "estado", "de", "asunto / texto", "motivo")
    for it in items:
        text = (it["text"] or it["subject"] or "")[:70].replace("\n", " ")
        table.add_row(str(it["message_id"]), it["state_label"], it["sender"] or "", text, (it["reason"] or "")[:80])
    console.print(table)
    console.print(f"{t('set_aside_action')}: orienta review needs-reply <msg>", highlight=False, markup=False)


@review_app.command("list")
def list_cmd(
    ctx: typer.Context,
    all_: bool = typer.Option(False, "--all", help="Incluir los borradores ya decididos."),
    state: Optional[str] = typer.Option(None, "--state", help="Un estado: drafted, approved, ... o acknowledged, skipped, quarantined (mensajes sin borrador)."),
    limit: int = typer.Option(50, "--limit", help="Cuántos borradores como máximo."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Borradores que esperan revisión (los más antiguos primero), o los mensajes apartados sin borrador (--state)."""
    if state in states.NOT_DRAFTED:
        _list_set_aside(ctx, state, limit, as_json)
        return
    if state is not None and state not in states.STATES:
        fail(f"estado desconocido {state!r}; uno de: {', '.join(sorted(states.STATES))}")
    svc = services(ctx)
    offices = None if ctx.obj.office is None else [svc.office]  # --office: that office's queue (None: the default office)
    with session_scope(svc.engine) as session:
        rows = queue.list_drafts(session=session, state=state if state else None if all_ else "drafted", limit=limit, offices=offices)
        items = [draft_summary(d, m) for d, m in rows]
    if as_json:
        print_json(items)
        return
    if not items:
        console.print("No hay borradores pendientes.")
        return
    table = Table("#", "estado", "de", "asunto / pregunta", "tipo", "refs")
    for it in items:
        kind = "fuera de dominio" if it["out_of_domain"] else {"refusal": "modelo se negó", "truncated": "truncada", "paused": "incompleta"}.get(it["outcome"]) or ("sin información" if it["no_info"] else it["method"])
        question = (it["question"] or it["subject"] or "")[:70].replace("\n", " ")
        table.add_row(str(it["draft_id"]), it["state"], it["sender"] or "", question, kind, ", ".join(r["doc_id"] for r in it["references"]))
    console.print(table)


@review_app.command("show")
def show_cmd(ctx: typer.Context, draft_id: int = typer.Argument(..., help="Número del borrador (ver `review list`)."), as_json: bool = typer.Option(False, "--json", help="Salida en JSON.")) -> None:
    """Todo sobre un borrador: pregunta, borrador, referencias, derivación."""
    with session_scope(services(ctx).engine) as session:
        try:
            draft, message = queue.get_draft(session=session, draft_id=draft_id)
        except ReviewError as exc:
            fail(describe(exc))
        data = draft_summary(draft, message) | {"draft": draft.text, "derivation": draft.derivation, "conversation": draft.context or {}} | _decided(session, message)
    if as_json:
        print_json(data)
        return
    console.rule(f"Borrador #{data['draft_id']} · {STATE_ES.get(data['state'], data['state'])}")
    console.print(f"[bold]De:[/] {data['sender']}   [bold]Asunto:[/] {data['subject']}", highlight=False)
    gate = data["gate"]
    if gate["in_domain"] is not None:
        label = t("review_gate_no_info") if gate["outcome"] == "no_info" else t("review_gate_in") if gate["in_domain"] else t("review_gate_out")
        console.print(f"[bold]Gate:[/] {label} (score {gate['score']:.2f})", highlight=False)
        if gate["reasons"]:
            console.print(f"[bold]Motivos del gate:[/] {'; '.join(gate['reasons'])}", highlight=False, markup=False)
    console.print(f"[bold]Método:[/] {data['method']} · {data['model']}")
    if any(f.get("kind") == "offline_fallback" for f in data["flags"]):
        console.print(t("review_offline_fallback"), highlight=False, markup=False)
    curated = next((f for f in data["flags"] if f.get("kind") == CURATED_FLAG), None)
    if curated:
        from bot.slack.blocks import based_on_text

        console.print(based_on_text(curated), highlight=False)
    if data["outcome"] != "ok":
        console.print(f"[bold red]{t('review_outcome_' + data['outcome'])}[/]", highlight=False)
    for flag in (f for f in data["flags"] if f.get("kind") == SUGGESTION_FLAG):
        from bot.slack.blocks import suggestion_text

        console.print(suggestion_text(flag), highlight=False, markup=False)
        console.print(f"  orienta review edit {data['draft_id']} --from-answer {flag['answer_id']}", highlight=False, markup=False)
    ready = readiness_of(data["flags"])
    if ready is not None:
        console.print(readiness_text(ready), style="green" if ready.get("flag") == READY else "yellow", highlight=False, markup=False)
    console.print("\n[bold]Pregunta (limpia):[/]")
    console.print(data["question"] or "", highlight=False, markup=False)
    _print_conversation(data["conversation"])
    console.print("\n[bold]Borrador:[/]")
    console.print(data["draft"], highlight=False, markup=False)
    links = [f["link"] for f in data["flags"] or [] if f.get("kind") == queue.FOREIGN_LINK]
    if links:
        console.print("\n[bold red]Enlaces que NO están en los documentos (posible inyección):[/] " + ", ".join(links), highlight=False)
        console.print(f"Para enviarlo igual: orienta review approve {data['draft_id']} --confirm-links", highlight=False, markup=False)
    if (data.get("reason") or "").startswith("reused_message_id"):
        console.print(f"\n[bold yellow]Atención:[/] {data['reason']}", highlight=False)
    for flag in data["message_flags"]:
        console.print("\n[bold yellow]Atención:[/] ", end="")
        console.print(str(flag.get("flag") or flag.get("kind")), highlight=False, markup=False)
        for hidden in flag.get("hidden") or []:
            console.print(f"  {hidden.get('kind')}: {hidden.get('text')}", highlight=False, markup=False)
    if data["derivation"]:
        console.print("\n[bold]Derivación:[/]")
        console.print(render([Step.from_dict(s) for s in data["derivation"]]), highlight=False, markup=False)
    _print_decision(data)


def _decided(session, message) -> dict:
    """Who decided what and when, and the text that was sent (None while the draft waits)."""
    from sqlmodel import select

    from review.models import OutgoingReply

    decision = queue.decision_for(session=session, message_id=message.id)
    reply = session.exec(select(OutgoingReply).where(OutgoingReply.message_id == message.id)).first()
    return {
        "decision": None if decision is None else {"action": decision.action, "actor": decision.actor, "at": decision.created_at.isoformat(timespec="seconds"), "reason": decision.reason, "comment": decision.comment},
        "sent_text": reply.body if reply is not None else None,
        "reply_state": reply.state if reply is not None else None,
    }


def _print_decision(data: dict) -> None:
    decision = data.get("decision")
    if decision is None:
        return
    label = {"approve": "Aprobado", "edit": "Editado y aprobado", "reject": "Rechazado"}.get(decision["action"], decision["action"])
    reason = f" · motivo: {queue.REJECT_REASONS.get(decision['reason'] or '', decision['reason'])}" if decision["reason"] else ""
    console.print(f"\n[bold]Decisión:[/] {label} por {decision['actor']} el {decision['at'][:16].replace('T', ' ')}{reason}", highlight=False)
    if decision["comment"]:
        console.print(f"Comentario: {decision['comment']}", highlight=False, markup=False)
    if data.get("sent_text") is not None:
        state = {"pending": "en cola de envío", "sending": "enviándose", "sent": "enviada", "failed": "envío fallido"}.get(data["reply_state"], data["reply_state"])
        console.print(f"\n[bold]Texto enviado ({state}):[/]")
        console.print(data["sent_text"], highlight=False, markup=False)


@review_app.command("needs-reply")
def needs_reply_cmd(
    ctx: typer.Context,
    message_id: int = typer.Argument(..., help="Número del mensaje (ver `review list --state acknowledged|skipped|quarantined`)."),
    actor: Optional[str] = typer.Option(None, "--actor", help="Quién lo decide (por defecto, el usuario del sistema)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Necesita respuesta: un mensaje cerrado, omitido o en cuarentena vuelve a redactarse en el próximo `orienta run`."""
    with session_scope(services(ctx).engine) as session:
        try:
            message = queue.needs_reply(session=session, message_id=message_id, actor=_actor(actor))
        except ReviewError as exc:
            fail(describe(exc))
        data = {"message_id": message.id, "state": message.state, "reason": message.reason}
    if as_json:
        print_json(data)
        return
    console.print(t("set_aside_sent_back").format(message_id=message_id), highlight=False, markup=False)


def _print_conversation(context: dict) -> None:
    """The earlier turns a follow-up was drafted with, its standalone query and the question parts."""
    turns = context.get("turns") or []
    if turns:
        console.print(f"\n[bold]Conversación ({len(turns)} turnos anteriores):[/]")
        for turn in turns:
            who = t("review_turn_office" if turn.get("role") == "office" else "review_turn_student")
            mark = f" ({t('review_turn_acknowledged')})" if turn.get("acknowledged") else ""
            console.print(f"  {who}{mark}: " + " ".join(str(turn.get("text") or "").split()), highlight=False, markup=False)
    if context.get("query"):
        console.print(f"[bold]{t('review_query')}:[/] ", end="")
        console.print(context["query"], highlight=False, markup=False)
    for i, part in enumerate(context.get("parts") or [], start=1):
        console.print(f"  {i}. {part}", highlight=False, markup=False)


def _run(ctx: typer.Context, fn, as_json: bool, **kwargs) -> None:
    with session_scope(services(ctx).engine) as session:
        try:
            decision = fn(session=session, **kwargs)
        except ReviewError as exc:
            fail(describe(exc))
        data = {"decision_id": decision.id, "draft_id": decision.draft_id, "action": decision.action, "actor": decision.actor, "reason": decision.reason}
    data["slack_card_updated"] = _sync_slack_card(ctx, decision.draft_id)
    if as_json:
        print_json(data)
    else:
        console.print(f"borrador #{data['draft_id']}: {ACTIONS.get(data['action'], data['action'])} por {data['actor']}; la respuesta sale en el próximo `orienta run`." if data["action"] != "reject" else f"borrador #{data['draft_id']}: rechazado ({data['reason']}) por {data['actor']}.")


@review_app.command("approve")
def approve_cmd(
    ctx: typer.Context,
    draft_id: int = typer.Argument(..., help="Número del borrador (ver `review list`)."),
    actor: Optional[str] = typer.Option(None, "--as", help="Nombre de quien revisa."),
    confirm_links: bool = typer.Option(False, "--confirm-links", help="Enviarlo aunque lleve enlaces que no están en los documentos (ver `review show`)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Aprueba un borrador tal como está."""
    _run(ctx, queue.approve, as_json, draft_id=draft_id, actor=_actor(actor), confirm_links=confirm_links)


@review_app.command("edit")
def edit_cmd(
    ctx: typer.Context,
    draft_id: int = typer.Argument(..., help="Número del borrador (ver `review list`)."),
    text: Optional[str] = typer.Option(None, "--text", help="La respuesta corregida (si no, se abre $EDITOR)."),
    from_answer: Optional[int] = typer.Option(None, "--from-answer", help="Empezar desde el texto de una respuesta aprobada (ver `answers list`) en vez del borrador."),
    actor: Optional[str] = typer.Option(None, "--as", help="Nombre de quien revisa."),
    confirm_links: bool = typer.Option(False, "--confirm-links", help="Enviarlo aunque conserve enlaces que no están en los documentos."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Aprueba una versión editada de un borrador."""
    if text is None:
        try:
            with session_scope(services(ctx).engine) as session:
                draft, _ = queue.get_draft(session=session, draft_id=draft_id)
                drafted = draft.text
                original = drafted if from_answer is None else answers.get_answer(session=session, answer_id=from_answer).text
        except ReviewError as exc:
            fail(str(exc))
        text = edit_in_editor(original)
        if text.strip() == drafted.strip():
            fail("no hubo cambios; para enviar el borrador tal como está, usá `orienta review approve`")
    _run(ctx, queue.edit, as_json, draft_id=draft_id, actor=_actor(actor), text=text, confirm_links=confirm_links)


@review_app.command("reject")
def reject_cmd(
    ctx: typer.Context,
    draft_id: int = typer.Argument(..., help="Número del borrador (ver `review list`)."),
    reason: str = typer.Option(..., "--reason", help=f"Uno de: {', '.join(queue.REJECT_REASONS)}."),
    comment: Optional[str] = typer.Option(None, "--comment", help="Comentario para el equipo (no se envía al estudiante)."),
    actor: Optional[str] = typer.Option(None, "--as", help="Nombre de quien revisa."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Rechaza un borrador; no se envía nada al estudiante."""
    _run(ctx, queue.reject, as_json, draft_id=draft_id, actor=_actor(actor), reason=reason, comment=comment)


def _sync_slack_card(ctx: typer.Context, draft_id: int) -> bool:
    """When Slack is configured, show the terminal's decision on the draft's review card (best effort)."""
    svc = services(ctx)
    if svc.settings.slack.bot_token is None:
        return False
    from bot.slack.app import web_client
    from bot.slack.reviewing import sync_card

    try:
        sync_card(svc, web_client(svc), draft_id=draft_id)
    except Exception as exc:  # the edge: the decision is recorded; a stale card is synced on the next pass
        err_console.print(f"[yellow]aviso:[/] la tarjeta de Slack no se actualizó: {describe(exc)}", highlight=False)
        return False
    return True


@review_app.command("cards")
def cards_cmd(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Salida en JSON.")) -> None:
    """Publica en el canal de revisión de Slack las tarjetas de los borradores pendientes y actualiza las decididas en otro lado."""
    svc = services(ctx)
    if svc.settings.slack.bot_token is None or not svc.settings.slack.review_channel:
        fail("la revisión en Slack no está configurada: definí ORIENTA_SLACK__BOT_TOKEN y ORIENTA_SLACK__REVIEW_CHANNEL")
    from bot.slack.poster import post_pending_cards
    from bot.slack.reviewing import sync_decided_cards

    data = {"posted": post_pending_cards(svc), "synced": sync_decided_cards(svc)}
    if as_json:
        print_json(data)
    else:
        console.print(f"{data['posted']} tarjetas publicadas, {data['synced']} actualizadas.")


@review_app.command("purge")
def purge_cmd(
    ctx: typer.Context,
    days: Optional[int] = typer.Option(None, "--days", help="Días de retención (por defecto: ORIENTA_DATABASE__RETENTION_DAYS)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Borra todo texto guardado de mensajes más antiguos que el período de retención, en cualquier estado, con las copias de salida, informes viejos y tarjetas de Slack (los conteos y las decisiones quedan)."""
    from bot.loop.retention import apply_retention

    svc = services(ctx)
    if days:
        svc.settings.database.retention_days = days
    done = apply_retention(svc)
    report = done.database
    if as_json:
        print_json(done.as_dict())
    else:
        console.print(
            f"{report.messages} mensajes, {report.drafts} borradores y {report.replies} respuestas sin textos personales (anteriores a {report.cutoff:%Y-%m-%d}); "
            f"{done.outbox_files} archivos de salida, {done.report_files} informes y {done.cards_blanked} tarjetas de Slack limpiados."
        )


@review_app.command("retry")
def retry_cmd(
    ctx: typer.Context,
    message_id: Optional[int] = typer.Argument(None, help="Número del mensaje en cuarentena (ver `review list --state quarantined`)."),
    all_: bool = typer.Option(False, "--all", help="Todos los mensajes en cuarentena."),
    actor: Optional[str] = typer.Option(None, "--as", help="Nombre de quien lo pide."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Vuelve a poner en borrador mensajes en cuarentena (por ejemplo, después de una caída del modelo)."""
    from review import retries

    if (message_id is None) == (not all_):
        fail("indicá un número de mensaje o --all")
    with session_scope(services(ctx).engine) as session:
        try:
            done, refused = retries.requeue_quarantined(session=session, actor=_actor(actor), message_id=message_id)
        except ReviewError as exc:
            fail(describe(exc))
    data = {"requeued": done, "refused": {str(k): v for k, v in refused.items()}}
    if as_json:
        print_json(data)
        return
    console.print(f"{len(done)} mensajes vuelven a borrador; se redactan en el próximo `orienta run`." if done else "Ningún mensaje volvió a borrador.", highlight=False)
    for mid, why in refused.items():
        console.print(f"  mensaje {mid}: {why}", highlight=False, markup=False)


@review_app.command("move")
def move_cmd(
    ctx: typer.Context,
    item_id: int = typer.Argument(..., help="Número del borrador (ver `review list`), o del mensaje con --message."),
    office: str = typer.Option(..., "--office", help="Oficina a la que pasa el mensaje (se vuelve a redactar con sus documentos)."),
    message: bool = typer.Option(False, "--message", help="ID es el número del mensaje (para los que no tienen borrador, ver `offices unrouted`)."),
    force: bool = typer.Option(False, "--force", help="Coordinación del campus: devolverlo a una oficina por la que ya pasó."),
    actor: Optional[str] = typer.Option(None, "--as", help="Nombre de quien lo mueve."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Pasa un mensaje pendiente a la cola de otra oficina; queda auditado y enseña al ruteador."""
    from bot.wiring.campus import campus_of
    from bot.cli._common import ctx_root
    from review.errors import InvalidTransition, OfficeError, RoutingLoop, UnknownOffice
    from review.offices import MOVED_BY_STAFF, move, route_of

    root = ctx_root(ctx)
    campus = campus_of(root)
    with session_scope(root.engine) as session:
        try:
            message_id = item_id if message else queue.get_draft(session=session, draft_id=item_id)[1].id
            moved = move(session=session, message_id=message_id, to_office=office, actor=_actor(actor), default=campus.default, known=campus.names(), by=MOVED_BY_STAFF, reason="reviewer", force=force)
            data = {"message_id": moved.id, "office": moved.office or campus.default, "state": moved.state, "route": route_of(session=session, message=moved, default=campus.default)}
        except RoutingLoop as exc:
            fail(f"el mensaje #{exc.message_id} ya pasó por la oficina {exc.target!r} ({' → '.join(exc.path[:-1])}): devolverlo haría un bucle; respondelo desde donde está, o la coordinación del campus puede forzarlo con --force")
        except UnknownOffice:
            fail(f"no existe la oficina {office!r} (oficinas: {', '.join(campus.names())})")
        except InvalidTransition as exc:
            fail(f"el mensaje #{exc.message_id} ya no está pendiente (estado {exc.current}): no se puede mover")
        except OfficeError:
            fail(f"el mensaje ya está en la oficina {office!r}")
        except ReviewError as exc:
            fail(describe(exc))
    if as_json:
        print_json(data)
        return
    console.print(f"mensaje #{data['message_id']} pasado a la oficina {data['office']!r} ({' → '.join(data['route'])}); se redacta de nuevo en el próximo `orienta run`.", highlight=False)
