"""The bundled sample office is complete and consistent with its expectations file."""

from __future__ import annotations

import email
from collections import Counter
from email import policy

from bot.demo import sample
from bot.demo.reviewer import says
from pipeline.loaders import load_document


def test_documents_mix_markdown_and_html_and_all_load():
    files = sorted(sample.docs_dir().iterdir())
    kinds = Counter(f.suffix for f in files)
    assert len(files) >= 12 and kinds[".md"] >= 4 and kinds[".html"] >= 4
    for f in files:
        doc = load_document(f)
        assert doc.title and len(doc.text) > 500, f.name
        if f.suffix == ".html":
            assert "cookie" not in doc.text.lower(), f"{f.name}: boilerplate left in the text"


def test_every_sample_email_has_an_expectation_and_the_categories_are_covered():
    exp = sample.expected()["emails"]
    names = {p.name for p in sample.emails_dir().glob("*.eml")}
    assert len(names) >= 25 and names == set(exp)
    outcomes = Counter(e["outcome"] for e in exp.values())
    assert outcomes["answerable"] >= 10 and outcomes["no_info"] >= 3 and outcomes["out_of_domain"] >= 3
    assert outcomes["skipped"] >= 3 and outcomes["quarantined"] >= 1
    doc_ids = {p.stem for p in sample.docs_dir().iterdir()}
    assert all(e["doc"] in doc_ids for e in exp.values() if e["outcome"] == "answerable")


def test_the_tricky_shapes_are_present():
    raws = {p.name: p.read_bytes() for p in sample.emails_dir().glob("*.eml")}
    parsed = {n: email.message_from_bytes(r, policy=policy.default) for n, r in raws.items()}
    assert any(m.get_content_type() == "text/html" for m in parsed.values()), "an HTML-only mail"
    assert any(m.get_content_charset() in ("iso-8859-1", "latin-1") for m in parsed.values()), "a latin-1 mail"
    assert any(m.get_content_type() == "multipart/alternative" for m in parsed.values())
    assert any("escribió:" in r.decode("utf-8", "replace") for r in raws.values()), "a reply with a quoted thread"
    assert any(m.get("List-Id") for m in parsed.values()) and any(m.get("Auto-Submitted") for m in parsed.values())


def test_sample_slack_messages_are_events_with_expectations():
    events = sample.slack_messages()
    expected = {e["ts"]: e for e in sample.expected()["slack"]}
    assert len(events) >= 5
    for ev in events:
        assert ev["type"] in ("message", "app_mention") and ev["text"] and ev["ts"] in expected


def test_sample_threads_follow_up_stored_messages_and_carry_expectations():
    threads = sample.expected()["followups"]
    names = {p.name for p in sample.followup_emails_dir().glob("*.eml")}
    assert names == set(threads["emails"]) and len(names) >= 6
    top = set(sample.expected()["emails"])
    for name, e in threads["emails"].items():
        assert e["follows"] in top or e["follows"].removeprefix("followups/") in names, name
    roots = {ev["ts"] for ev in sample.slack_messages()} | {ev["ts"] for ev in sample.slack_followups()}
    expected = {e["ts"]: e for e in threads["slack"]}
    for ev in sample.slack_followups():
        assert ev["thread_ts"] in roots and ev["thread_ts"] != ev["ts"] and ev["ts"] in expected
    outcomes = [e["outcome"] for e in list(threads["emails"].values()) + threads["slack"]]
    assert outcomes.count("acknowledged") >= 3 and outcomes.count("answerable") >= 6


def test_the_second_week_repeats_earlier_questions_and_asks_close_and_new_ones():
    week2 = sample.expected()["week2"]
    names = {p.name for p in sample.week2_emails_dir().glob("*.eml")}
    assert names == set(week2["emails"])
    assert [ev["ts"] for ev in sample.slack_week2()] == [e["ts"] for e in week2["slack"]]
    entries = list(week2["emails"].values()) + week2["slack"]
    assert 10 <= len(entries) <= 15
    earlier = sample.expectations()
    doc_ids = {p.stem for p in sample.docs_dir().iterdir()}
    for e in entries:
        for key in (e.get("repeat_of"), e.get("close_to")):
            assert key is None or (key in earlier and "week2" not in key), e
        assert e["outcome"] != "answerable" or {e["doc"], *e.get("accept", [])} <= doc_ids, e
    repeats, close = sum("repeat_of" in e for e in entries), sum("close_to" in e for e in entries)
    assert repeats > len(entries) / 2 and close >= 2 and len(entries) - repeats - close >= 2


def test_every_answerable_sample_names_the_facts_a_right_answer_gives_and_close_questions_have_the_reviewers_answer():
    by_key = sample.expectations()
    for key, e in by_key.items():
        if e["outcome"] == "answerable":
            assert e.get("must_say") or by_key[sample.intent(key, by_key)].get("must_say"), key
        if "close_to" in e:
            assert e.get("staff_answer"), key
        if e.get("staff_answer"):
            assert all(says(e["staff_answer"], fact) for fact in e.get("must_say", [])), key
            assert not any(says(e["staff_answer"], fact) for fact in e.get("past_period", [])), key


def test_must_say_facts_are_in_the_expected_documents_and_past_period_facts_in_the_office_documents():
    """The expectations are checked against the documents, not written to fit a draft."""
    texts = {f.stem: load_document(f).text for f in sample.docs_dir().iterdir()}
    for key, e in sample.expectations().items():
        docs = [d for d in [e.get("doc"), *e.get("docs", []), *e.get("accept", [])] if d]
        for fact in e.get("must_say", []):
            assert any(says(texts[d], fact) for d in docs), (key, fact)
        for fact in e.get("past_period", []):
            assert any(says(t, fact) for t in texts.values()), (key, fact)


def test_questions_whose_documents_hold_an_earlier_period_name_it_as_past():
    by_key = sample.expectations()
    for key in ("01_inscripcion_examenes_febrero.eml", "05_inscripcion_cursos_primer_semestre.eml", "34_varias_preguntas.eml"):
        assert by_key[key].get("past_period"), key


def test_a_draft_a_person_would_edit_does_not_state_every_must_say_fact():
    """Drafts a blind reader sent back for editing: the price without the graduate discount the asker gets, the end of
    classes without the second midterms that fall before the exams the student wants to travel before."""
    by_key = sample.expectations()
    price_only = ("Diploma de Especialización en Ciencia de Datos: costo 10 cuotas de $ 12.000. "
                  "Período de postulación: del lunes 2 de noviembre al viernes 11 de diciembre de 2026.")
    classes_only = "Fin de clases del segundo semestre: viernes 20 de noviembre de 2026. Período de exámenes de diciembre: lunes 30 de noviembre."
    assert not all(says(price_only, f) for f in by_key["08_diploma_ciencia_datos.eml"]["must_say"])
    assert not all(says(classes_only, f) for f in by_key["13_fin_de_clases.eml"]["must_say"])
    assert all(says(price_only + " Los egresados tienen un descuento del 20 %.", f) for f in by_key["08_diploma_ciencia_datos.eml"]["must_say"])
    repeat = next(e for e in sample.expected()["week2"]["slack"] if e.get("repeat_of") == "13_fin_de_clases.eml")
    assert all(says(classes_only, f) for f in repeat["must_say"])  # asked without the trip, the end of classes is the answer


def test_a_draft_without_the_windows_the_exception_or_where_to_send_is_edited():
    """Drafts a person edits although they gave the first facts: the reválida without its submission windows, the credit cap
    without how to ask for an exception, the papers without where they go and the fee."""
    by_key = sample.expectations()
    revalida = ("Para materias de universidades privadas se abona una tasa de $ 1.200 por solicitud. Se pide con el formulario R-1, "
                "con la escolaridad y el programa de cada materia, enviados en PDF a revalidas@ingenieria.example.edu.uy.")
    cap = "El máximo es de 60 créditos por semestre; con promedio de 9 o más y al menos 90 créditos aprobados, hasta 75 créditos."
    papers = "Tenés que presentar el formulario R-1, la escolaridad y el programa, apostillados por ser de una universidad extranjera."
    for key, draft, rest in (
        ("03_revalida_otra_universidad.eml", revalida, " Se reciben del 1 al 31 de marzo y del 1 al 30 de septiembre."),
        ("10_maximo_creditos_semestre.eml", cap, " Para pedir una excepción, una nota fundamentada a la Comisión de Carrera."),
        ("32_adjunto_programa_revalida.eml", papers, " Se envían a revalidas@ingenieria.example.edu.uy del 1 al 31 de marzo o del 1 al 30 de septiembre; tasa de $ 1.200."),
    ):
        must = by_key[key]["must_say"]
        assert not all(says(draft, f) for f in must), key
        assert all(says(draft + rest, f) for f in must), key
