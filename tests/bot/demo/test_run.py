"""The walking skeleton end to end: `orienta demo` on the bundled sample office."""

from __future__ import annotations

import email
import mailbox
from email import policy

import pytest
from sqlmodel import Session, select

from bot.demo import sample
from bot.demo.reviewer import says
from bot.demo.run import run_demo
from bot.wiring.services import Services
from bot.loop.worker import run_once
from review.models import Draft, InboundMessage

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # the demo ingests the sample office: chunks and their answer units are embedded


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """One demo run (real embedder, real Qdrant local mode, SQLite) shared by the assertions below."""
    from pipeline.settings import Settings

    settings = Settings(data_dir=tmp_path_factory.mktemp("demo") / "demo", _env_file=None)  # type: ignore[call-arg]
    settings.llm.provider = "extractive"
    result = run_demo(settings)
    return settings, result


def _email_rows(result):
    """The first week's sample e-mails (not their follow-ups, not the second week's)."""
    return [r for r in result.rows if not r.source.startswith(("slack", "followups/", "week2/"))]


def _thread_rows(result):
    """The follow-ups and closings delivered after the office answered (e-mail and Slack)."""
    return [r for r in result.rows if "follows" in r.expected]


def test_every_sample_email_is_accounted_for_exactly_once(demo):
    _, result = demo
    names = sorted(p.name for p in sample.emails_dir().glob("*.eml"))
    rows = _email_rows(result)
    assert sorted(r.source for r in rows) == names
    for r in rows:
        assert r.state in {"drafted", "approved", "edited", "rejected", "sent", "skipped", "quarantined", "acknowledged"}, r
        if r.state in ("skipped", "quarantined"):
            assert r.reason, f"{r.source} was {r.state} without a reason"


def test_answerable_samples_cite_the_right_document(demo):
    _, result = demo
    answerable = [r for r in _email_rows(result) if r.expected.get("outcome") == "answerable"]
    right = [r for r in answerable if r.expected["doc"] in r.references]
    misses = [f"{r.source}: cited {r.references} (gate {r.gate}), expected {r.expected['doc']}" for r in answerable if r not in right]
    # Offline extractive drafting is lexical: one miss in ten is tolerated here and reported in the note, not hidden.
    assert len(right) >= 0.9 * len(answerable), "\n".join(misses)


def test_questions_without_an_answer_in_the_documents_get_no_invented_answer(demo):
    _, result = demo
    for r in _email_rows(result):
        if r.expected.get("outcome") == "no_info":
            assert not r.references and r.outcome in ("no_info", "out_of_domain"), r


def test_auto_replies_bounces_and_lists_are_skipped(demo):
    _, result = demo
    expected_skips = {name for name, e in sample.expected()["emails"].items() if e["outcome"] == "skipped"}
    assert len(expected_skips) >= 3
    skipped = {r.source for r in _email_rows(result) if r.state == "skipped"}
    assert expected_skips <= skipped


def test_out_of_domain_samples_are_drafted_as_out_of_domain(demo):
    settings, result = demo
    ood = {name for name, e in sample.expected()["emails"].items() if e["outcome"] == "out_of_domain"}
    assert ood
    by_source = {r.source: r for r in _email_rows(result)}
    for name in ood:
        assert by_source[name].gate == "out", name
        assert by_source[name].draft_id is not None


def test_approved_replies_are_threaded_emails_in_the_outbox(demo):
    settings, result = demo
    box = mailbox.Maildir(settings.paths.outbox_dir, create=False)
    replies = [email.message_from_bytes(box.get_bytes(k), policy=policy.default) for k in box.keys()]
    decided = [r for r in result.rows if not r.source.startswith("slack") and r.decision in ("approve", "edit")]
    assert decided and len(replies) == len(decided)
    engine = Services(settings).engine
    with Session(engine) as session:
        originals = {m.external_id: m for m in session.exec(select(InboundMessage).where(InboundMessage.channel == "email")).all()}
    for reply in replies:
        assert reply["Subject"].lower().startswith("re: ")  # a reply to "RE: …" keeps the student's prefix
        original = originals[reply["In-Reply-To"]]
        assert original.external_id in reply["References"]
        assert reply["To"] == original.sender
        assert reply["Message-ID"] and reply["Message-ID"] != original.external_id
        assert original.state == "sent"


def test_report_is_written_with_the_counts(demo):
    _, result = demo
    assert result.report_html.exists() and result.report_md.exists()
    d = result.digest
    rows = result.rows
    assert d["received"] == len(rows)
    assert d["skipped"] == sum(r.state == "skipped" for r in rows)
    assert d["sent"] == sum(r.state == "sent" for r in rows) > 0
    assert "Recibidos" in result.report_md.read_text(encoding="utf-8")


def test_running_again_creates_no_duplicates(demo):
    settings, result = demo
    assert result.second_run.stored == 0 and result.second_run.drafted == 0
    services = Services(settings)
    try:
        with Session(services.engine) as session:
            before = (len(session.exec(select(InboundMessage)).all()), len(session.exec(select(Draft)).all()))
        report = run_once(services)
        with Session(services.engine) as session:
            after = (len(session.exec(select(InboundMessage)).all()), len(session.exec(select(Draft)).all()))
    finally:
        services.close()
    assert report.stored == 0 and report.drafted == 0
    assert before == after


def _drafts(settings, result) -> dict[str, str]:
    """Draft text by sample source (e-mail file name or Slack ts)."""
    ids = {r.source: r.draft_id for r in result.rows if r.draft_id is not None}
    with Session(Services(settings).engine) as session:
        return {source: session.get(Draft, draft_id).text for source, draft_id in ids.items()}


def test_offline_drafts_carry_no_markup_or_spacing_artefacts(demo):
    settings, result = demo
    for source, text in _drafts(settings, result).items():
        assert "**" not in text and "<" not in text and " ," not in text and " ." not in text.replace(" ...", ""), f"{source}: {text}"
        assert " | " not in text and "##" not in text, f"{source}: {text}"


def _ask(settings, question: str) -> str:
    """`orienta ask` on the demo's index: retrieval, then the offline generator."""
    services = Services(settings)
    try:
        r = services.settings.retrieval
        hits = services.retriever.retrieve(question, r.k, support=r.support_chunks)
        return services.generator().generate(question, hits).text
    finally:
        services.close()


def test_offline_drafts_answer_what_the_issue_cases_ask(demo):
    """February's exam dates with each year said by its own source, Bedelía's hours, the reválida's cost, the pasantía's hours."""
    settings, result = demo
    drafts = _drafts(settings, result)
    february = drafts["01_inscripcion_examenes_febrero.eml"].split("Referencias:")[0]
    assert "22 de enero de 2027" in february, february
    assert not any("2026" in line and "2027" in line for line in february.splitlines()), february  # no row mixes years
    bedelia = drafts["09_horario_bedelia.eml"]
    assert "9:30 a 13:00" in bedelia and "14:30 a 18:00" in bedelia, bedelia
    pasantia = drafts["30_multipart_alternativa_pasantia.eml"]
    assert "obligatoria" in pasantia and "200 horas" in pasantia, pasantia
    revalida = _ask(settings, "¿cuánto sale la reválida?")
    assert "1.200" in revalida, revalida


def test_the_pasantia_requirements_include_the_250_credit_condition(demo):
    settings, _ = demo
    assert "250 créditos" in _ask(settings, "¿Qué requisitos tiene la pasantía?")


def test_the_private_university_fee_is_answered_with_its_amount(demo):
    settings, result = demo
    revalida = _drafts(settings, result)["03_revalida_otra_universidad.eml"]
    assert "$ 1.200" in revalida and "gratuito" not in revalida, revalida


def test_a_repeated_question_is_answered_from_an_approved_answer(demo):
    settings, result = demo
    repeats = {e["ts"]: e for e in sample.expected()["slack"] if e.get("repeat_of")}
    rows = [r for r in result.rows if r.source.split(":")[-1].removeprefix("slack ") in repeats]
    assert len(rows) == len(repeats)
    reused = [r for r in rows if r.reused_from is not None]
    assert reused, [(r.source, r.references) for r in rows]
    with Session(Services(settings).engine) as session:
        for r in reused:
            draft = session.get(Draft, r.draft_id)
            assert draft.method == "curated" and f"answer#{r.reused_from}" == draft.model
            assert r.expected["doc"] in r.references
    assert result.digest["reused"] == sum(r.reused_from is not None for r in result.rows)  # both weeks


def test_follow_ups_are_linked_to_their_thread_and_drafted_with_it(demo):
    settings, result = demo
    rows = _thread_rows(result)
    assert len(rows) >= 10 and any(r.source.startswith("slack") for r in rows) and any(r.source.startswith("followups/") for r in rows)
    assert [r.source for r in rows if r.follows != r.expected["follows"]] == []
    assert [r.source for r in rows if r.reused_from is not None] == []  # a follow-up asks past the approved answer it follows
    borrar = next(r for r in rows if r.source == "followups/f01_examenes_borrarme.eml")
    with Session(Services(settings).engine) as session:
        context = session.get(Draft, borrar.draft_id).context
    turns = context["turns"]
    assert turns[0]["role"] == "student" and "exámenes de febrero" in turns[0]["text"]
    assert "examenes" in borrar.references  # drafted with its thread: the exams document, not course withdrawal
    assert result.followup_run.drafted + result.followup_run.acknowledged == len(rows) and result.digest["follow_ups"] >= len(rows)


def test_a_thanks_in_a_thread_is_recorded_with_no_draft_and_no_reply(demo):
    settings, result = demo
    closings = [r for r in _thread_rows(result) if r.expected["outcome"] == "acknowledged"]
    assert len(closings) >= 3
    for r in closings:
        assert r.state == "acknowledged" and r.draft_id is None and r.decision is None, r
    assert result.digest["acknowledged"] == len(closings)
    answered_with_question = next(r for r in _thread_rows(result) if r.source == "followups/f09_escolaridad_completa.eml")
    assert answered_with_question.draft_id is not None and answered_with_question.state != "acknowledged"
    assert "bedelia_tramites" in answered_with_question.references


def test_a_message_with_two_questions_answers_both_in_order(demo):
    settings, result = demo
    row = next(r for r in result.rows if r.source == "34_varias_preguntas.eml")
    assert {"examenes", "becas"} <= set(row.references)
    text = _drafts(settings, result)["34_varias_preguntas.eml"]
    assert text.index("1. ") < text.index("2. ")


def _week(result, n: int):
    return [r for r in result.rows if r.week == n]


def _key(source: str) -> str:
    """A row's key in the sample's expectations: e-mail file name or Slack ts."""
    return source.split(":")[-1] if source.startswith("slack ") else source


def test_the_reviewer_decides_every_draft_of_both_weeks_and_the_week_counts_match(demo):
    _, result = demo
    assert [w.week for w in result.weeks] == [1, 2]
    for work in result.weeks:
        rows = _week(result, work.week)
        drafted = [r for r in rows if r.draft_id is not None]
        assert work.messages == len(rows) and work.drafts == len(drafted) and work.pending == 0
        assert (work.approved, work.edited, work.rejected) == tuple(sum(r.decision == a for r in drafted) for a in ("approve", "edit", "reject"))
        assert work.reused == sum(r.reused_from is not None for r in rows)
    second = {r.source for r in _week(result, 2)}
    assert len(second) == len(sample.slack_week2()) + len(list(sample.week2_emails_dir().glob("*.eml")))
    assert all(s.startswith(("week2/", "slack ")) for s in second)
    assert result.weeks[0].edited and result.weeks[0].approved  # the first week has both
    assert {"missing_info", "out_of_domain"} <= set(result.digest["reject_reasons"])


def test_week_two_drafts_repeated_questions_from_approved_answers_and_the_right_ones_go_out_unchanged(demo):
    settings, result = demo
    by_key = sample.expectations()
    reused = [r for r in _week(result, 2) if r.reused_from is not None]
    assert reused, [(r.source, r.references) for r in _week(result, 2)]
    same = [r for r in reused if sample.intent(_key(r.reused_source), by_key) == sample.intent(_key(r.source), by_key)]
    assert same and all(r.decision == "approve" for r in same), [(r.source, r.reused_source, r.decision) for r in same]
    texts = _drafts(settings, result)
    for r in reused:  # an answer approved for another question goes out only when it says what this one needs
        want = by_key[_key(r.source)]
        first = by_key[sample.intent(_key(r.source), by_key)]
        body = texts[r.source].split("Referencias:")[0]
        states = all(says(body, f) for f in want.get("must_say") or first.get("must_say", []))
        states = states and not any(says(body, f) for f in want.get("past_period") or first.get("past_period", []))
        assert (r.decision == "approve") == states, (r.source, r.reused_source, r.decision)
    assert result.weeks[1].reused_approved == sum(r.decision == "approve" for r in reused)


def _rewritten(engine, row) -> bool:
    """The reviewer wrote the reply: an edit whose text is not a suggested approved answer sent as offered."""
    from review.answer_memory import for_student, suggestions_of
    from review.answer_models import CuratedAnswer
    from review.models import Decision

    if row.decision != "edit":
        return False
    with Session(engine) as session:
        draft = session.get(Draft, row.draft_id)
        message = session.get(InboundMessage, draft.message_id)
        decision = session.exec(select(Decision).where(Decision.draft_id == draft.id, Decision.action == "edit")).first()
        offered = {for_student(a.text, message).strip() for f in suggestions_of(draft) if (a := session.get(CuratedAnswer, int(f["answer_id"]))) is not None}
        return (decision.final_text or "").strip() not in offered


def test_questions_asked_again_in_week_two_need_fewer_rewrites_than_when_first_asked(demo):
    """Measured on the demo, not assumed: the reviewer's rewrites of a question fall once its answer is approved.

    A rewrite is an edit the reviewer wrote; sending the approved answer the card offered («Editar desde la respuesta
    #N») is the cheap path the memory exists for, and is counted apart (as the demo's week table does). A question
    whose first draft was already approved unchanged cannot need fewer edits, so edits alone would punish better
    first drafts."""
    settings, result = demo
    engine = Services(settings).engine
    by_key = sample.expectations()
    row_of = {_key(r.source): r for r in result.rows}
    again = [r for r in _week(result, 2) if "repeat_of" in r.expected]
    first = [row_of[sample.intent(_key(r.source), by_key)] for r in again]
    assert len(again) >= 5 and all(r.week == 1 for r in first)
    rewrites_again = sum(_rewritten(engine, r) for r in again)
    rewrites_first = sum(_rewritten(engine, r) for r in first)
    assert rewrites_again < rewrites_first, [(r.source, r.decision, r.reused_from) for r in again]
