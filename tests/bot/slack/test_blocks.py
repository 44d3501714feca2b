"""Block Kit builders: pure functions from drafts and decisions to Slack JSON."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from bot.slack import blocks as B
from review.models import Decision, Draft, InboundMessage

NOW = datetime(2026, 11, 20, 13, 0, tzinfo=timezone.utc)
STEPS = [
    {"id": "s1", "rule": "Extract", "premises": ["1"], "conclusion": "La inscripción cierra el 10/02.", "is_final": False, "flags": []},
    {"id": "s2", "rule": "Refine", "premises": ["s1"], "conclusion": "Podés inscribirte hasta el 10 de febrero en bedelía.", "is_final": True, "flags": ["'bedelía' no está en la premisa"]},
]


def _message(**kw) -> InboundMessage:
    base = dict(id=7, channel="email", source_key="k", sender="ana@example.com", subject="Exámenes <febrero>", cleaned_text="¿Hasta cuándo me inscribo?\nGracias", gate_in_domain=True, gate_score=0.873, created_at=NOW - timedelta(hours=3))
    return InboundMessage(**(base | kw))


def _draft(**kw) -> Draft:
    base = dict(
        id=42, message_id=7, text="Hola:\nLa inscripción cierra el 10 de febrero & no hay prórroga.", method="derivation", model="claude-sonnet-4-5",
        references=[{"doc_id": "examenes", "title": "Exámenes | reglamento", "url": "https://fing.example/examenes"}, {"doc_id": "faq", "title": "Preguntas frecuentes", "url": None}],
        derivation=STEPS, flags=[{"step": "s2", "rule": "Refine", "flag": "'bedelía' no está en la premisa"}], chunks=[{"doc_id": "examenes", "chunk_id": "examenes#0"}],
        gate_score=0.873, gate_in_domain=True,
    )
    return Draft(**(base | kw))


def _all_text(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)


def test_card_shows_everything_needed_to_decide():
    card = B.review_card(_draft(), _message())
    text = _all_text(card["blocks"])
    assert "📧 Correo · de ana@example.com" in text
    assert "Exámenes &lt;febrero&gt;" in text  # user text is escaped
    assert "&gt; ¿Hasta cuándo me inscribo?" in text  # the cleaned question, quoted
    assert "en dominio (0.87)" in text and "derivation · claude-sonnet-4-5" in text
    assert "no hay prórroga" in text and "&amp; no hay" in text
    assert "<https://fing.example/examenes|Exámenes ¦ reglamento>" in text and "• Preguntas frecuentes" in text
    assert "El verificador marcó 1 paso(s)" in text and "paso s2 (Refine)" in text
    assert card["text"].startswith("Borrador #42 para revisar")


def test_card_buttons_carry_the_draft_id():
    actions = B.review_card(_draft(), _message())["blocks"][-1]
    assert actions["type"] == "actions" and actions["block_id"] == B.ACTIONS_BLOCK
    assert [(e["text"]["text"], e["action_id"], e["value"]) for e in actions["elements"]] == [
        ("Aprobar", B.APPROVE, "42"), ("Editar", B.EDIT, "42"), ("Rechazar", B.REJECT, "42"), ("Ver derivación", B.DERIVATION, "42")
    ]
    assert actions["elements"][0]["style"] == "primary" and actions["elements"][2]["style"] == "danger"


def test_slack_sender_is_a_mention_and_out_of_domain_is_loud():
    text = _all_text(B.review_card(_draft(gate_in_domain=False, gate_score=0.12, no_info=True), _message(channel="slack", sender="U0STUDENT1"))["blocks"])
    assert "💬 Slack · de <@U0STUDENT1>" in text and "*FUERA DE DOMINIO* (0.12)" in text
    assert "Sin información en los documentos" in text


def test_long_drafts_stay_within_slack_limits():
    card = B.review_card(_draft(text="palabra " * 2000), _message(cleaned_text="x" * 5000))
    sections = [b["text"]["text"] for b in card["blocks"] if b["type"] == "section" and "text" in b]
    assert max(len(s) for s in sections) <= B.SECTION_LIMIT
    assert any("se ve completo en Editar" in s for s in sections)
    assert len(card["blocks"]) <= 50


def test_decided_card_has_no_buttons_and_says_who_what_when():
    at = datetime(2026, 11, 20, 13, 5, tzinfo=timezone.utc)
    decision = Decision(id=1, message_id=7, draft_id=42, action="reject", actor="slack:U0ANA", reason="out_of_domain", comment="es sobre la cantina", created_at=at)
    card = B.decided_card(_draft(), _message(), decision)
    text = _all_text(card["blocks"])
    assert not any(b["type"] == "actions" for b in card["blocks"])
    assert "🚫 Rechazado por <@U0ANA>" in text and "motivo: fuera de dominio" in text and "es sobre la cantina" in text
    assert f"<!date^{int(at.timestamp())}^" in text and "2026-11-20 13:05 UTC" in text


def test_decided_card_after_edit_shows_the_text_that_was_sent():
    decision = Decision(id=1, message_id=7, draft_id=42, action="edit", actor="cli:beto", final_text="Texto nuevo", created_at=NOW)
    text = _all_text(B.decided_card(_draft(), _message(), decision)["blocks"])
    assert "Texto enviado" in text and "Texto nuevo" in text and "no hay prórroga" not in text
    assert "Editado y aprobado por beto (terminal)" in text


def test_edit_modal_is_prefilled_and_carries_the_card():
    ref = B.CardRef(draft_id=42, channel="CREV", ts="1.2")
    view = B.edit_modal(_draft(), ref)
    field = view["blocks"][0]
    assert view["type"] == "modal" and view["callback_id"] == B.EDIT_CALLBACK and len(view["title"]["text"]) <= 24
    assert field["block_id"] == B.EDIT_BLOCK and field["element"]["initial_value"].startswith("Hola:\nLa inscripción")
    assert B.CardRef.loads(view["private_metadata"]) == ref


def test_reject_modal_offers_the_five_reasons_and_an_optional_comment():
    view = B.reject_modal(_draft(), B.CardRef(draft_id=42))
    select = next(b for b in view["blocks"] if b.get("block_id") == B.REASON_BLOCK)["element"]
    comment = next(b for b in view["blocks"] if b.get("block_id") == B.COMMENT_BLOCK)
    assert [o["text"]["text"] for o in select["options"]] == ["fuera de dominio", "información incorrecta", "falta información en los documentos", "requiere atención personal", "spam"]
    assert [o["value"] for o in select["options"]] == ["out_of_domain", "incorrect", "missing_info", "personal", "spam"]
    assert comment["optional"] is True and view["submit"]["text"] == "Rechazar"


def test_derivation_view_marks_flagged_steps_root_first():
    view = B.derivation_modal(_draft(), B.CardRef(draft_id=42))
    texts = [b["text"]["text"] for b in view["blocks"]]
    assert texts[0].startswith("⚠️ *[s2] Refine*") and "'bedelía' no está en la premisa" in texts[0]
    assert "*[s1] Extract* ← h1 (examenes)" in texts[1] and "⚠️" not in texts[1]
    assert "submit" not in view


def test_derivation_view_without_derivation_says_so():
    texts = _all_text(B.derivation_modal(_draft(derivation=[], method="rag"), B.CardRef(draft_id=42)))
    assert "no tiene derivación (método rag)" in texts


def test_home_shows_pending_oldest_and_mine_today():
    d, m = _draft(), _message()
    view = B.home_view(pending=3, oldest_at=NOW - timedelta(hours=5), mine_today=2, now=NOW, upcoming=[(d, m)])
    text = _all_text(view)
    assert view["type"] == "home"
    assert "*Pendientes:*\\n3" in text and "hace 5 h" in text and "*Mis decisiones hoy:*\\n2" in text and "#42" in text
    empty = _all_text(B.home_view(pending=0, oldest_at=None, mine_today=0, now=NOW))
    assert "No hay borradores pendientes" in empty


def test_ages_read_naturally():
    assert [B.age(s) for s in (30, 600, 3 * 3600, 3 * 86400)] == ["hace 0 min", "hace 10 min", "hace 3 h", "hace 3 días"]


def test_card_says_the_model_declined_or_was_cut_off():
    refused = _all_text(B.review_card(_draft(text="", flags=[{"kind": "outcome", "step": None, "rule": None, "flag": "refusal"}], derivation=[]), _message())["blocks"])
    assert "El modelo se negó a responder" in refused and "El verificador marcó" not in refused
    cut = B.review_card(_draft(flags=[{"kind": "outcome", "step": None, "rule": None, "flag": "truncated"}, *_draft().flags]), _message())["blocks"]
    text = _all_text(cut)
    assert "Respuesta truncada" in text and "El verificador marcó 1 paso(s)" in text
    divider = next(i for i, b in enumerate(cut) if b["type"] == "divider")
    assert "Respuesta truncada" in _all_text(cut[divider + 1])  # right above the draft, where the reviewer reads
    assert "Respuesta truncada" not in _all_text(B.review_card(_draft(), _message())["blocks"])


def test_card_of_a_follow_up_shows_its_conversation_and_the_standalone_query():
    context = {
        "turns": [{"role": "student", "text": "¿Hasta cuándo me inscribo a <exámenes>?", "message_id": 3}, {"role": "office", "text": "Del 11 al 22 de enero.", "message_id": 3}],
        "query": "Hasta cuándo me inscribo a exámenes.\n¿Y si no puedo ir?",
    }
    blocks = B.review_card(_draft(context=context), _message(cleaned_text="¿Y si no puedo ir?"))["blocks"]
    text = _all_text(blocks)
    assert "Conversación (2 turnos anteriores)" in text and "*Estudiante:* ¿Hasta cuándo me inscribo a &lt;exámenes&gt;?" in text
    assert "*Oficina:* Del 11 al 22 de enero." in text and "Búsqueda" in text
    assert all(len(b["text"]["text"]) <= 3000 for b in blocks if b.get("type") == "section" and "text" in b)
    assert "Conversación" not in _all_text(B.review_card(_draft(), _message())["blocks"])


def test_card_of_a_message_with_several_questions_lists_them_in_order():
    text = _all_text(B.review_card(_draft(context={"parts": ["¿Hasta cuándo me inscribo?", "¿Cuándo abren las becas?"]}), _message())["blocks"])
    assert "1. ¿Hasta cuándo me inscribo?" in text and text.index("1. ¿Hasta") < text.index("2. ¿Cuándo abren las becas?")


def test_card_shows_the_gates_outcome_and_its_reasons():
    draft = _draft(gate_outcome="no_info", gate_reasons=["lugar, servicio u horario del campus (+2.1)", "parecido a los documentos (+0.8)"])
    text = _all_text(B.review_card(draft, _message())["blocks"])
    assert "sin información en los documentos" in text and "lugar, servicio u horario del campus (+2.1)" in text
    out = _all_text(B.review_card(_draft(gate_in_domain=False, gate_score=0.08, gate_outcome="out_of_domain", gate_reasons=["nombra otra institución (-3.4)"]), _message())["blocks"])
    assert "FUERA DE DOMINIO" in out and "nombra otra institución (-3.4)" in out


def test_set_aside_messages_are_listed_with_their_reason_and_a_needs_reply_button_each():
    ack = _message(id=11, state="acknowledged", cleaned_text="Dale, gracias!", reason="acknowledgement: closing")
    skipped = _message(id=12, state="skipped", channel="slack", sender="U0STUDENT", cleaned_text=None, body_text="Fuera de la oficina <hasta el lunes>", reason="auto_reply: the body says it is an automatic reply")
    blocks = B.set_aside_blocks([ack, skipped])
    text = _all_text(blocks)
    assert "Mensajes sin borrador* (2)" in text and "cierre (sin respuesta)" in text and "omitido" in text
    assert "auto_reply: the body says it is an automatic reply" in text and "&lt;hasta el lunes&gt;" in text and "<@U0STUDENT>" in text
    buttons = [b["accessory"] for b in blocks if "accessory" in b]
    assert [(b["action_id"], b["value"], b["text"]["text"]) for b in buttons] == [
        (f"{B.NEEDS_REPLY}_11", "11", "Necesita respuesta"), (f"{B.NEEDS_REPLY}_12", "12", "Necesita respuesta"),
    ]
    assert "Ningún mensaje quedó sin borrador" in _all_text(B.set_aside_blocks([]))
    home = B.home_view(pending=0, oldest_at=None, mine_today=0, now=NOW, set_aside=[ack])
    assert f"{B.NEEDS_REPLY}_11" in _all_text(home) and "No hay borradores pendientes" in _all_text(home)


def test_card_marks_a_closing_turn_of_the_conversation():
    context = {"turns": [{"role": "student", "text": "¿Dónde firmo el acta?", "message_id": 3}, {"role": "student", "text": "ok gracias", "message_id": 4, "acknowledged": True}]}
    text = _all_text(B.review_card(_draft(context=context), _message(cleaned_text="¿y a qué hora abren?"))["blocks"])
    assert "*Estudiante (cierre, sin respuesta):* ok gracias" in text and "*Estudiante:* ¿Dónde firmo el acta?" in text


def test_card_links_each_claim_to_its_passage_and_flags_uncited_claims():
    refs = [{"doc_id": "examenes", "title": "Exámenes", "url": "https://fing.example/examenes",
             "claims": [{"claim": "La inscripción cierra el 22 de enero", "passage": 1, "quote": "Inscripción: hasta el viernes 22 de enero de 2027 <23:59>"}]}]
    flags = [{"kind": "uncited_claim", "step": None, "rule": None, "flag": "Hay un recargo de 500 pesos"}]
    text = _all_text(B.review_card(_draft(method="rag", references=refs, flags=flags, derivation=[]), _message())["blocks"])
    assert "↳ «La inscripción cierra el 22 de enero» — extracto 1: “Inscripción: hasta el viernes 22 de enero de 2027 &lt;23:59&gt;”" in text
    assert "Afirmaciones sin cita (1)" in text and "• Hay un recargo de 500 pesos" in text
    assert "El verificador marcó" not in text  # an uncited claim is a draft-level flag, not a verifier step
    cited_only = _all_text(B.review_card(_draft(method="rag", references=refs, flags=[], derivation=[]), _message())["blocks"])
    assert "sin cita" not in cited_only


def test_many_claims_keep_the_references_section_within_slack_limits():
    claims = [{"claim": "afirmación " * 20, "passage": n, "quote": "cita " * 40} for n in range(1, 40)]
    card = B.review_card(_draft(references=[{"doc_id": "d", "title": "D", "url": None, "claims": claims}]), _message())
    assert all(len(b["text"]["text"]) <= 3000 for b in card["blocks"] if b.get("type") == "section" and "text" in b)


READINESS = {"kind": "readiness", "step": None, "rule": None, "flag": "necesita revisión", "label": "necesita revisión", "missing": "no encontré el costo: «el examen final»", "passages": [{"doc_id": "guia", "title": "Guía <privado>", "text": "El examen privado se realiza en el edificio T-3."}]}


def test_card_says_whether_the_draft_is_ready_and_offers_the_closest_passages():
    card = B.review_card(_draft(flags=[READINESS]), _message())
    text = _all_text(card["blocks"])
    assert "⚠️ Estado del borrador: necesita revisión — no encontré el costo: «el examen final»" in text
    assert "1. [Guía &lt;privado&gt;] El examen privado se realiza en el edificio T-3." in text
    ready = _all_text(B.review_card(_draft(flags=[READINESS | {"flag": "listo", "label": "listo", "missing": None, "passages": []}]), _message())["blocks"])
    assert "✅ Estado del borrador: listo" in ready and "Pasajes más cercanos" not in ready
    assert "Estado del borrador" not in _all_text(B.review_card(_draft(), _message())["blocks"])  # drafts without a label (LLM) show none
