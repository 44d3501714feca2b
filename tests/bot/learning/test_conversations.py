"""Conversations end to end (SQLite, local Qdrant, offline drafting): linking, follow-ups with their thread, closings, several questions."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from bot.demo import sample
from bot.email.maildir import OutboxMaildir, copy_to_maildir
from bot.ops.documents import ingest_documents
from bot.wiring.services import Services
from bot.slack.intake import intake_slack_event
from bot.loop.worker import run_once
from review import queue, states
from review.db import session_scope
from review.digest import build_digest
from review.models import Draft, InboundMessage, OutgoingReply
from review.weeks import iso_week
from tests.servers.api_fixtures import anthropic_server  # noqa: F401  (fixture)


@pytest.fixture
def services(settings, tmp_path):
    settings.gate.enabled = False
    settings.paths.maildir = tmp_path / "inbox"
    svc = Services(settings)
    ingest_documents(svc, [sample.docs_dir()])
    yield svc
    svc.close()


def deliver(svc: Services, *files) -> None:
    copy_to_maildir(list(files), svc.settings.paths.maildir)


def email(name: str):
    return sample.emails_dir() / name


def followup(name: str):
    return sample.followup_emails_dir() / name


def by_subject_and_sender(session: Session) -> dict[tuple[str, str], list[InboundMessage]]:
    out: dict = {}
    for m in session.exec(select(InboundMessage).order_by(InboundMessage.received_at)).all():
        out.setdefault((m.sender, m.channel), []).append(m)
    return out


def _latest(session, message) -> Draft | None:
    return queue.latest_draft(session=session, message_id=message.id)


def test_an_email_follow_up_is_linked_by_references_and_drafted_with_its_thread(services):
    deliver(services, email("01_inscripcion_examenes_febrero.eml"), followup("f01_examenes_borrarme.eml"), email("02_creditos_para_recibirme.eml"))
    run_once(services)
    with Session(services.engine) as s:
        first, second = by_subject_and_sender(s)[("martina.sosa98@gmail.example", "email")]
        other = by_subject_and_sender(s)[("fede.acosta@hotmail.example", "email")][0]
        assert second.follows_id == first.id and second.conversation_id == first.conversation_id == first.id
        assert other.follows_id is None and other.conversation_id == other.id
        context = _latest(s, second).context
        assert [t["role"] for t in context["turns"]] == ["student"] and "exámenes de febrero" in context["turns"][0]["text"]
        assert "exámenes de febrero" in context["query"] and context["query"].endswith("¿Y si me anoto y después no puedo ir, me puedo borrar?")
        assert "examenes" in [r["doc_id"] for r in _latest(s, second).references]
        assert _latest(s, first).context == {}  # a first message has no thread to show


def test_a_reply_to_our_sent_message_id_is_linked_and_carries_our_answer(services):
    deliver(services, email("04_que_becas_hay.eml"))
    run_once(services)
    with session_scope(services.engine) as s:
        message = s.exec(select(InboundMessage)).one()
        queue.edit(session=s, draft_id=_latest(s, message).id, actor="staff", text="Hola Bruno: está la Beca de Alojamiento en la Residencia Universitaria.")
    run_once(services)  # sends it into the outbox Maildir
    with Session(services.engine) as s:
        ours = s.exec(select(OutgoingReply)).one().our_message_id
    assert ours and OutboxMaildir(services.settings.paths.outbox_dir).find(ours)
    raw = followup("f02_becas_plazo.eml").read_bytes().replace(b"<CAPq7Lx2bS@mail.gmail.example> <reply-0002@ingenieria.example.edu.uy>", ours.encode()).replace(b"<reply-0002@ingenieria.example.edu.uy>", ours.encode())
    (services.settings.paths.data_dir / "reply.eml").write_bytes(raw)
    deliver(services, services.settings.paths.data_dir / "reply.eml")
    run_once(services)
    with Session(services.engine) as s:
        first, second = sorted(s.exec(select(InboundMessage)).all(), key=lambda m: m.id)
        assert second.follows_id == first.id
        turns = _latest(s, second).context["turns"]
        assert [t["role"] for t in turns] == ["student", "office"]
        assert "Beca de Alojamiento" in turns[1]["text"] and "Bruno" not in turns[1]["text"]  # our reply, redacted


def test_subject_and_sender_link_a_reply_without_threading_headers_and_nothing_else(services, tmp_path):
    stranger = tmp_path / "stranger.eml"
    stranger.write_bytes(followup("f06_horario_periodo_examenes.eml").read_bytes().replace(b"diegom_92@hotmail.example", b"otra.persona@gmail.example").replace(b"DB9PR02MB7799", b"XX"))
    deliver(services, email("09_horario_bedelia.eml"), followup("f06_horario_periodo_examenes.eml"), stranger)
    run_once(services)
    with Session(services.engine) as s:
        original, reply = by_subject_and_sender(s)[("diegom_92@hotmail.example", "email")]
        assert reply.follows_id == original.id
        assert by_subject_and_sender(s)[("otra.persona@gmail.example", "email")][0].follows_id is None


def test_slack_thread_replies_are_linked_a_thanks_gets_no_draft_and_the_digest_counts_them(services):
    root, *_ = sample.slack_messages()
    question, _, _, thanks, _ = sample.slack_followups()
    with session_scope(services.engine) as s:
        for i, event in enumerate([root, question, thanks]):
            intake_slack_event(s, event, event_id=f"Ev{i}")
    report = run_once(services)
    assert report.acknowledged == 1 and report.drafted == 2
    with Session(services.engine) as s:
        r, q, g = sorted(s.exec(select(InboundMessage)).all(), key=lambda m: m.id)
        assert q.follows_id == r.id and g.follows_id == q.id and r.conversation_id == q.conversation_id == g.conversation_id
        assert g.state == states.ACKNOWLEDGED and g.reason.startswith("acknowledgement") and _latest(s, g) is None
        assert _latest(s, q).context["turns"][0]["text"].startswith("¿hasta cuándo tengo para pedir la revisión")
        digest = build_digest(session=s, week=iso_week(r.created_at)).as_dict()
    assert digest["acknowledged"] == 1 and digest["follow_ups"] == 2
    assert not (services.settings.paths.outbox_dir / "slack.jsonl").exists()  # no reply to a thanks



def test_a_direct_message_outside_the_thread_that_leans_on_the_previous_one_is_linked(services):
    """In a DM, "¿y si ya pasó el plazo?" written at the top level continues the student's previous question; a new full question does not."""
    root, *_ = sample.slack_messages()
    assert root["channel"].startswith("D") and "thread_ts" not in root
    ts = float(root["ts"])
    lean = {**root, "text": "¿y si ya se me pasó?", "ts": f"{ts + 600:.6f}", "event_ts": f"{ts + 600:.6f}"}
    fresh = {**root, "text": "otra consulta: ¿qué becas hay para los que vienen del interior?", "ts": f"{ts + 1200:.6f}", "event_ts": f"{ts + 1200:.6f}"}
    late = {**root, "text": "¿y para el otro parcial?", "ts": f"{ts + 3 * 86400:.6f}", "event_ts": f"{ts + 3 * 86400:.6f}"}
    with session_scope(services.engine) as s:
        for i, event in enumerate([root, lean, fresh, late]):
            intake_slack_event(s, event, event_id=f"EvDm{i}")
    run_once(services)
    with Session(services.engine) as s:
        r, lean_m, fresh_m, late_m = sorted(s.exec(select(InboundMessage)).all(), key=lambda m: m.id)
        assert lean_m.follows_id == r.id and lean_m.conversation_id == r.conversation_id
        assert _latest(s, lean_m).context["turns"][0]["text"].startswith("¿hasta cuándo tengo para pedir la revisión")
        assert fresh_m.follows_id is None and fresh_m.conversation_id == fresh_m.id
        assert late_m.follows_id is None  # days later: not the same conversation

def test_a_closing_with_a_new_question_is_drafted(services):
    deliver(services, email("07_escolaridad_trabajo.eml"), followup("f09_escolaridad_completa.eml"))
    run_once(services)
    with Session(services.engine) as s:
        _, closing = by_subject_and_sender(s)[("agus.pereira@gmail.example", "email")]
        assert closing.state == states.DRAFTED and "bedelia_tramites" in [r["doc_id"] for r in _latest(s, closing).references]


def test_several_questions_are_answered_in_order_then_their_references_once(services):
    deliver(services, email("34_varias_preguntas.eml"))
    run_once(services)
    with Session(services.engine) as s:
        message = s.exec(select(InboundMessage)).one()
        draft = _latest(s, message)
    assert len(draft.context["parts"]) == 2
    first, second = draft.text.index("1. ¿Hasta cuándo me puedo inscribir"), draft.text.index("2. ")
    assert first < second
    refs = draft.text.index("Referencias:")
    assert draft.text.count("Referencias:") == 1 and second < refs  # the documents are listed once, after the answers
    assert "Exámenes" in draft.text[refs:] and "Becas" in draft.text[refs:]
    assert {r["doc_id"] for r in draft.references} >= {"examenes", "becas"}
    assert draft.derivation[-1]["rule"] == "Concat" and draft.derivation[-1]["is_final"]



def test_a_follow_up_with_several_questions_is_split_on_its_own_words(services):
    """Each question of the follow-up is made standalone with the thread; the earlier question is not answered again."""
    root, *_ = sample.slack_messages()
    follow_up = dict(sample.slack_followups()[0], text="¿y la revisión la hace el mismo docente que corrigió? Otra cosa: ¿qué becas hay para los que vienen del interior?")
    with session_scope(services.engine) as s:
        for i, event in enumerate([root, follow_up]):
            intake_slack_event(s, event, event_id=f"Ev{i}")
    run_once(services)
    with Session(services.engine) as s:
        r, q = sorted(s.exec(select(InboundMessage)).all(), key=lambda m: m.id)
        draft = _latest(s, q)
    assert q.follows_id == r.id
    first, second = draft.context["parts"]
    assert "revisión" in first and "parcial" in first  # leans on the thread: combined with the earlier question
    assert second.startswith("Otra cosa: ¿qué becas") and "parcial" not in second  # has its own terms: asked as it is
    assert {ref["doc_id"] for ref in draft.references} >= {"examenes_complementarios", "becas"}
    assert draft.text.index("1. ¿y la revisión") < draft.text.index("2. ¿Qué becas hay")  # in order, in the student's words, without the label "Otra cosa:"

def test_with_claude_a_follow_up_is_rewritten_then_drafted_with_the_previous_exchange(settings, anthropic_server):
    """Against the strict Anthropic stand-in: one short structured rewrite call, then the RAG call carrying the thread."""
    import json

    from pydantic import SecretStr

    from tests.pipeline.claude_rules import assert_valid

    settings.gate.enabled = False
    settings.llm.provider, settings.llm.api_key, settings.llm.base_url, settings.llm.method = "anthropic", SecretStr("k"), anthropic_server.url, "rag"
    svc = Services(settings)
    ingest_documents(svc, [sample.docs_dir()])
    root, *_ = sample.slack_messages()
    question = sample.slack_followups()[0]
    anthropic_server.enqueue_text("Podés pedir la revisión dentro de los tres días hábiles.\n\nReferencias:\n- Exámenes complementarios y revisión de pruebas")
    anthropic_server.enqueue_text(json.dumps({"query": "¿La revisión de un parcial la hace el mismo docente que lo corrigió?"}, ensure_ascii=False))
    anthropic_server.enqueue_text("La hace un docente distinto si lo pedís expresamente.\n\nReferencias:\n- Exámenes complementarios y revisión de pruebas")
    with session_scope(svc.engine) as s:
        intake_slack_event(s, root, event_id="Ev1")
    run_once(svc)
    with session_scope(svc.engine) as s:
        intake_slack_event(s, question, event_id="Ev2")
    run_once(svc)
    svc.close()
    rewrite, drafting = anthropic_server.message_requests[-2:]
    assert rewrite.json["output_config"]["format"]["type"] == "json_schema" and "<conversacion_previa>" in rewrite.json["messages"][0]["content"]
    content = drafting.json["messages"][0]["content"]  # the passages as search results, then the thread and the question
    assert {b["type"] for b in content[:-1]} == {"search_result"} and all(b["citations"] == {"enabled": True} for b in content[:-1])
    user = content[-1]["text"]
    assert "Estudiante: ¿hasta cuándo tengo para pedir la revisión" in user, user
    assert user.endswith("<consulta>\n¿y la revisión la hace el mismo docente que corrigió?\n</consulta>")  # the student's own words, answered with the thread
    with Session(svc.engine) as s:
        follow_up = s.exec(select(InboundMessage).where(InboundMessage.follows_id.is_not(None))).one()
        draft = _latest(s, follow_up)
    assert draft.context["query"] == "¿La revisión de un parcial la hace el mismo docente que lo corrigió?"
    assert draft.text.startswith("La hace un docente distinto")
    assert_valid(anthropic_server)


def test_a_forwarded_thread_of_another_student_is_not_linked(services, tmp_path):
    """References name another student's message (a forward, a classmate's reply-all): no shared conversation, no shared turns."""
    raw = followup("f01_examenes_borrarme.eml").read_bytes()
    forwarded = raw.replace(b"martina.sosa98@gmail.example", b"otro.estudiante@correo.example")
    assert forwarded != raw
    path = tmp_path / "reenvio.eml"
    path.write_bytes(forwarded.replace(b"Message-ID: <", b"Message-ID: <fwd-", 1))
    deliver(services, email("01_inscripcion_examenes_febrero.eml"), path)
    run_once(services)
    with Session(services.engine) as s:
        other = by_subject_and_sender(s)[("otro.estudiante@correo.example", "email")][0]
        assert other.follows_id is None and other.conversation_id == other.id
        assert "turns" not in (_latest(s, other).context or {})


def test_an_acknowledged_message_stays_in_the_thread_and_needs_reply_drafts_it(services):
    """A thank-you is recorded without a draft, shown as a turn of the conversation (not given to the model), listed in the
    digest, and «necesita respuesta» drafts it instead of acknowledging it again."""
    root, *_ = sample.slack_messages()
    thread = root["ts"]
    ts = float(thread)
    thanks = {**root, "text": "buenísimo, mil gracias!", "ts": f"{ts + 60:.6f}", "event_ts": f"{ts + 60:.6f}", "thread_ts": thread}
    later = {**root, "text": "¿y la revisión se pide por escrito o en persona?", "ts": f"{ts + 120:.6f}", "event_ts": f"{ts + 120:.6f}", "thread_ts": thread}
    with session_scope(services.engine) as s:
        for i, event in enumerate([root, thanks]):
            intake_slack_event(s, event, event_id=f"EvAck{i}")
    run_once(services)
    with session_scope(services.engine) as s:
        intake_slack_event(s, later, event_id="EvAck2")
    run_once(services)
    with Session(services.engine) as s:
        r, g, q = sorted(s.exec(select(InboundMessage)).all(), key=lambda m: m.id)
        assert g.state == states.ACKNOWLEDGED and [m.id for m in queue.not_drafted(session=s, state=states.ACKNOWLEDGED)] == [g.id]
        turns = _latest(s, q).context["turns"]
        assert [(t["message_id"], bool(t.get("acknowledged"))) for t in turns] == [(r.id, False), (g.id, True)]
        listed = build_digest(session=s, week=iso_week(r.created_at)).as_dict()["set_aside"]
        assert [(i["message_id"], i["state"]) for i in listed] == [(g.id, states.ACKNOWLEDGED)]
    with session_scope(services.engine) as s:
        queue.needs_reply(session=s, message_id=g.id, actor="cli:marta")
    report = run_once(services)
    assert report.drafted == 1 and report.acknowledged == 0
    with Session(services.engine) as s:
        assert s.get(InboundMessage, g.id).state == states.DRAFTED and _latest(s, s.get(InboundMessage, g.id)) is not None


def test_closing_shaped_requests_reach_staff_by_email_and_slack_and_pure_thanks_are_acknowledged(services, tmp_path):
    """A message that opens with thanks but asks, reports a problem or states a need is drafted in both channels; a
    message whose every sentence closes is recorded as acknowledged (never quarantined as empty)."""
    from email.message import EmailMessage

    mails = {
        "request_cobro": "Muchas gracias\nMe cobraron la cuota dos veces este mes.",
        "request_libreta": "Perfecto. Extravié la libreta de estudiante y ocupo un duplicado.\n\nSaludos,\nMauro Giménez",
        "closing": "¡Mil gracias! Ya lo resolví.\n\nMauro Giménez",
    }
    files = []
    for i, (name, body) in enumerate(mails.items()):
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = f"Mauro Giménez <mauro{i}@example.org>", "consultas@example.edu", "Re: trámite", f"<cs{i}@example.org>"
        msg.set_content(body)
        path = tmp_path / f"{name}.eml"
        path.write_bytes(msg.as_bytes())
        files.append(path)
    deliver(services, *files)
    root, *_ = sample.slack_messages()
    ts = float(root["ts"])
    slack = {"request_link": "ok gracias. el link del formulario de becas no carga", "closing": "dale, joya 👍"}
    with session_scope(services.engine) as s:
        for i, text in enumerate(slack.values()):
            intake_slack_event(s, {**root, "user": f"U0CS{i}", "text": text, "ts": f"{ts + 100 * (i + 1):.6f}", "event_ts": f"{ts + 100 * (i + 1):.6f}"}, event_id=f"EvCs{i}")
    run_once(services)
    with Session(services.engine) as s:
        rows = s.exec(select(InboundMessage)).all()
        by_text = {(m.body_text or "").strip(): m for m in rows}
    for name, body in {**mails, **{f"slack_{k}": v for k, v in slack.items()}}.items():
        message = by_text[body.strip()]
        expected = states.ACKNOWLEDGED if name.endswith("closing") else states.DRAFTED
        assert message.state == expected, (name, message.state, message.reason)


def test_a_reply_linked_before_the_message_it_answers_leaves_that_message_in_the_thread(services):
    """Mail can be stored out of order: linking the second follow-up first must not cut the first one off its thread."""
    from bot.learning import conversations
    from bot.loop.intake import intake_maildir
    from bot.loop.run_report import RunReport

    deliver(services, email("01_inscripcion_examenes_febrero.eml"), followup("f01_examenes_borrarme.eml"), followup("f10_examenes_listo.eml"))
    intake_maildir(services, RunReport())
    with session_scope(services.engine) as s:
        by_id = {m.external_id: m for m in s.exec(select(InboundMessage)).all()}
        original, first, second = by_id["<CAHx9f2kQ1@mail.gmail.example>"], by_id["<CAHx9f2kQ9@mail.gmail.example>"], by_id["<CAHx9f2kR3@mail.gmail.example>"]
        conversations.link(s, second)  # the later reply first
        conversations.link(s, first)
        assert second.follows_id == first.id and first.follows_id == original.id
        assert original.conversation_id == first.conversation_id == second.conversation_id == original.id


def test_two_students_in_one_channel_thread_are_two_conversations(services):
    """Another user replying in a student's channel thread starts their own conversation: the first student's question
    never enters the second one's history, prompt or card, and each keeps their own follow-ups."""
    base = 1794990000.0
    channel = "C07PUBLIC01"

    def event(user: str, text: str, at: float, thread: float | None = None) -> dict:
        e = {"type": "message", "channel": channel, "user": user, "text": text, "ts": f"{at:.6f}", "event_ts": f"{at:.6f}", "channel_type": "channel"}
        return e | ({"thread_ts": f"{thread:.6f}"} if thread is not None else {})

    root = event("U0RAQUEL01", "Hola, soy Raquel Ibarra, ¿hasta cuándo puedo pedir la revisión de un parcial? Tuve covid la semana del examen", base)
    other = event("U0TOMAS002", "¿y cuánto cuesta la maestría en ingeniería ambiental?", base + 60, thread=base)
    again = event("U0RAQUEL01", "¿y si ya se me pasó el plazo?", base + 120, thread=base)
    other_follow = event("U0TOMAS002", "¿y se puede pagar en cuotas?", base + 180, thread=base)
    with session_scope(services.engine) as s:
        for i, e in enumerate([root, other, again, other_follow]):
            intake_slack_event(s, e, event_id=f"EvMix{i}")
    run_once(services)
    with Session(services.engine) as s:
        r, o, a, of = sorted(s.exec(select(InboundMessage)).all(), key=lambda m: m.id)
        assert o.follows_id is None and o.conversation_id == o.id != r.conversation_id
        assert a.follows_id == r.id and a.conversation_id == r.conversation_id
        assert of.follows_id == o.id and of.conversation_id == o.id
        for mine in (o, of):
            draft = _latest(s, mine)
            card_facts = str(draft.context) + draft.text
            assert "revisión de un parcial" not in card_facts and "Raquel" not in card_facts and "covid" not in card_facts.lower()
        turns = _latest(s, a).context["turns"]
        assert [t["message_id"] for t in turns] == [r.id] and "maestría" not in str(turns)
        from bot.learning.conversations import conversation_of

        assert {m.sender for m in conversation_of(s, of)} == {"U0TOMAS002"}
        assert {m.sender for m in conversation_of(s, a)} == {"U0RAQUEL01"}
