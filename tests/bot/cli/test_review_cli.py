"""`orienta review`: the terminal queue on the same service functions as Slack."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from bot.cli import app
from bot.wiring.services import Services
from review.db import session_scope
from tests.review.factories import make_drafted


def _cli(settings, *args: str):
    result = CliRunner().invoke(app, ["--data-dir", str(settings.paths.data_dir), *args], catch_exceptions=False)
    return result


def test_list_approve_reject_and_purge_from_the_terminal(settings):
    svc = Services(settings)
    with session_scope(svc.engine) as s:
        d1, _ = make_drafted(s, subject="créditos")
        d2, _ = make_drafted(s, subject="cantina")
    svc.close()
    listed = json.loads(_cli(settings, "review", "list", "--json").stdout)
    assert [i["draft_id"] for i in listed] == [d1.id, d2.id]
    approved = json.loads(_cli(settings, "review", "approve", str(d1.id), "--as", "marta", "--json").stdout)
    assert (approved["action"], approved["actor"], approved["slack_card_updated"]) == ("approve", "marta", False)
    bad = _cli(settings, "review", "reject", str(d2.id), "--reason", "aburrido")
    assert bad.exit_code == 1 and "motivo de rechazo desconocido" in bad.stderr
    rejected = json.loads(_cli(settings, "review", "reject", str(d2.id), "--reason", "out_of_domain", "--json").stdout)
    assert rejected["reason"] == "out_of_domain"
    again = _cli(settings, "review", "approve", str(d2.id))
    assert again.exit_code == 1 and "ya fue atendido" in again.stderr
    assert json.loads(_cli(settings, "review", "list", "--json").stdout) == []
    purge = json.loads(_cli(settings, "review", "purge", "--days", "30", "--json").stdout)
    assert purge["messages"] == 0  # nothing is old enough


def test_a_declined_draft_is_shown_as_such_and_cannot_be_approved_empty(settings):
    svc = Services(settings)
    with session_scope(svc.engine) as s:
        d, _ = make_drafted(s, text="", flags=[{"kind": "outcome", "step": None, "rule": None, "flag": "refusal"}])
        cut, _ = make_drafted(s, flags=[{"kind": "outcome", "step": None, "rule": None, "flag": "truncated"}])
    svc.close()
    shown = _cli(settings, "review", "show", str(d.id))
    assert shown.exit_code == 0 and "El modelo se negó a responder" in shown.stdout
    assert json.loads(_cli(settings, "review", "show", str(d.id), "--json").stdout)["outcome"] == "refusal"
    assert "Respuesta truncada" in _cli(settings, "review", "show", str(cut.id)).stdout
    listed = {i["draft_id"]: i["outcome"] for i in json.loads(_cli(settings, "review", "list", "--json").stdout)}
    assert listed == {d.id: "refusal", cut.id: "truncated"}
    empty = _cli(settings, "review", "approve", str(d.id))
    assert empty.exit_code == 1 and "vacío" in empty.stderr
    edited = json.loads(_cli(settings, "review", "edit", str(d.id), "--text", "Hola: te respondemos por correo.", "--json").stdout)
    assert edited["action"] == "edit"


def test_show_prints_the_conversation_of_a_follow_up(settings):
    svc = Services(settings)
    context = {"turns": [{"role": "student", "text": "¿Hasta cuándo me inscribo a exámenes?", "message_id": 1}, {"role": "office", "text": "Del 11 al 22 de enero.", "message_id": 1}], "query": "Hasta cuándo me inscribo a exámenes.\n¿Y si no puedo ir?"}
    with session_scope(svc.engine) as s:
        d, _ = make_drafted(s, context=context)
    svc.close()
    shown = _cli(settings, "review", "show", str(d.id)).stdout
    assert "Conversación (2 turnos anteriores)" in shown and "Estudiante: ¿Hasta cuándo me inscribo a exámenes?" in shown
    assert "Oficina: Del 11 al 22 de enero." in shown and shown.index("Estudiante:") < shown.index("Oficina:") < shown.index("Borrador:")
    assert json.loads(_cli(settings, "review", "show", str(d.id), "--json").stdout)["conversation"] == context


def test_set_aside_messages_are_listed_by_state_and_needs_reply_sends_one_to_drafting(settings):
    from review import queue, states
    from review.models import InboundMessageCreate

    svc = Services(settings)
    with session_scope(svc.engine) as s:
        message, _ = queue.store_inbound(session=s, data=InboundMessageCreate(channel="email", source_key="cli:ack", sender="tomas@example.com", subject="Re: beca", cleaned_text="Gracias, ya entregué los papeles.", redacted_text="Gracias, ya entregué los papeles."))
        states.transition(s, message, states.ACKNOWLEDGED, actor=queue.SYSTEM)
        message.reason = "acknowledgement: closing"
        mid = message.id
    svc.close()
    listed = json.loads(_cli(settings, "review", "list", "--state", "acknowledged", "--json").stdout)
    assert [(i["message_id"], i["state"], i["reason"]) for i in listed] == [(mid, "acknowledged", "acknowledgement: closing")]
    table = _cli(settings, "review", "list", "--state", "acknowledged")
    assert "cierre" in table.stdout and "entregué" in table.stdout and "needs-reply" in table.stdout
    assert json.loads(_cli(settings, "review", "list", "--state", "quarantined", "--json").stdout) == []
    assert _cli(settings, "review", "list", "--state", "perdido").exit_code == 1
    done = json.loads(_cli(settings, "review", "needs-reply", str(mid), "--actor", "cli:marta", "--json").stdout)
    assert done["state"] == "received" and done["reason"].startswith("needs_reply: acknowledged")
    assert json.loads(_cli(settings, "review", "list", "--state", "acknowledged", "--json").stdout) == []
    again = _cli(settings, "review", "needs-reply", str(mid))
    assert again.exit_code == 1


def test_show_prints_the_readiness_label_and_what_is_missing(settings):
    flag = {"kind": "readiness", "step": None, "rule": None, "flag": "necesita revisión", "label": "necesita revisión", "missing": "no encontré la fecha o el plazo: «la inscripción»", "passages": [{"doc_id": "cal", "title": "Calendario", "text": "La inscripción se hace en el SIGE."}]}
    svc = Services(settings)
    with session_scope(svc.engine) as s:
        d, _ = make_drafted(s, flags=[flag])
    svc.close()
    shown = " ".join(_cli(settings, "review", "show", str(d.id)).stdout.split())  # the terminal wraps long lines
    assert "Estado del borrador: necesita revisión — no encontré la fecha o el plazo: «la inscripción»" in shown
    assert "1. [Calendario] La inscripción se hace en el SIGE." in shown
    assert json.loads(_cli(settings, "review", "show", str(d.id), "--json").stdout)["readiness"] == "necesita revisión"
