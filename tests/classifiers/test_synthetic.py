"""The offline generator: five styles, provenance, records, determinism."""

from __future__ import annotations

from classifiers.synthetic import STYLES, Example, campus_questions, institution_names, load_dataset, offline_questions, read_chunk, save_dataset


def test_every_style_appears_with_chunk_provenance(chunks):
    examples = offline_questions(chunks, per_chunk=10)
    assert {e.style for e in examples} == set(STYLES)
    ids = {c.id for c in chunks}
    assert all(e.label == 1 and e.source == "offline-template" and e.chunk_ids and e.chunk_ids[0] in ids for e in examples)
    assert len({e.text for e in examples}) == len(examples)


def test_statements_have_no_question_marks_and_vague_ones_are_short(chunks):
    examples = offline_questions(chunks, per_chunk=10)
    statements = [e.text for e in examples if e.style == "statement"]
    vague = [e.text for e in examples if e.style == "vague"]
    assert statements and not any("?" in s or "¿" in s for s in statements)
    assert vague and all(len(v.split()) <= 6 for v in vague)


def test_records_are_read_as_fields_and_named_by_their_name_field(chunks):
    material = read_chunk(next(c for c in chunks if c.id == "pensum#0"))
    names = [r["nombre"] for r in material.records]
    assert names == ["Matemática Básica 1", "Física Básica"]
    examples = offline_questions([c for c in chunks if c.id == "pensum#0"], per_chunk=40)
    assert any("Física Básica" in e.text or "Matemática Básica 1" in e.text for e in examples)


def test_faq_questions_and_article_titles_become_material(chunks):
    faq = read_chunk(next(c for c in chunks if c.id == "examenes#2"))
    assert faq.faq == ["¿Puedo rendir un examen por suficiencia?"]
    article = read_chunk(next(c for c in chunks if c.id == "examenes#1"))
    assert any("revisión de exámenes" in t.lower() for t in article.topics)


def test_generation_is_deterministic_per_seed(chunks):
    a = [e.text for e in offline_questions(chunks, seed=1)]
    assert a == [e.text for e in offline_questions(chunks, seed=1)]
    assert a != [e.text for e in offline_questions(chunks, seed=2)]


def test_dataset_file_round_trips(tmp_path):
    rows = [Example(text="¿Hasta cuándo me inscribo?", label=1, style="direct", source="llm", chunk_ids=("a#1", "a#2"), prompt_hash="abc"), Example(text="un poema", label=0, style="vague", source="ood-bank", topic="writing")]
    path = save_dataset(rows, tmp_path / "d.jsonl")
    assert load_dataset(path) == rows


def test_campus_questions_name_the_institution_from_the_documents(chunks):
    names = institution_names(chunks)
    assert names[0] == "la Facultad de Ingeniería" and "la facultad" in names
    rows = campus_questions(chunks, n=60)
    assert len(rows) == 60 and all(r.label == 1 and r.source == "offline-campus" for r in rows)
    assert {r.style for r in rows} == set(STYLES) | {"student"}
    topics = " ".join(r.topic or "" for r in campus_questions(chunks, n=200))
    assert any(t in topics for t in ("salón", "edificio", "aula")) and any(w in topics for w in ("faltar", "ausentarme", "no ir"))  # places and permissions
    assert any("Facultad de Ingeniería" in r.text for r in rows)


def test_student_questions_are_typed_like_students_and_keep_their_chunks(chunks):
    from classifiers.synthetic import student_questions

    questions = offline_questions(chunks, seed=3)
    rows = student_questions(questions, n=40, seed=3)
    assert rows and all(r.label == 1 and r.source == "offline-student" and r.chunk_ids for r in rows)
    originals = {e.text for e in questions}
    assert not any(r.text in originals for r in rows)
    assert sum(r.text == r.text.lower() for r in rows) >= len(rows) * 0.6  # mostly lower case, as typed
    assert any(not r.text.startswith("¿") for r in rows)


def test_problem_reports_are_in_domain_messages_about_the_offices_things(chunks):
    from classifiers.synthetic import problem_reports
    from pipeline.text import fold

    rows = problem_reports(chunks, n=120, institutions=["la Landívar", "Universidad Galileo"], seed=3)
    assert len(rows) == 120 and all(r.label == 1 and r.source == "offline-problem" for r in rows)
    families = {r.topic.split(":", 1)[0] for r in rows}
    assert families == {"lost", "broken", "login", "wrong", "transfer"}
    transfer = [r.text for r in rows if r.topic.startswith("transfer:")]
    assert all("landivar" in fold(t) or "galileo" in fold(t) for t in transfer)
    assert problem_reports(chunks, n=30, seed=3)[0].text == problem_reports(chunks, n=30, seed=3)[0].text
    assert not any(r.topic.startswith("transfer:") for r in problem_reports(chunks, n=60, seed=3))  # no institutions given, no transfers
