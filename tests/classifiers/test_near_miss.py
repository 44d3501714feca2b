"""Near-miss negatives built from the office's documents: every category, in the office's words, with provenance."""

from __future__ import annotations

from classifiers.intent import bundled_institutions
from classifiers.near_miss import CATEGORIES, course_names, near_miss_questions, other_institutions
from classifiers.synthetic import institution_names
from pipeline.text import fold


def test_every_category_is_generated_and_kept_in_the_topic(chunks):
    rows = near_miss_questions(chunks, per_category=25)
    by_cat = {}
    for r in rows:
        by_cat.setdefault(r.topic.split(":", 1)[0], []).append(r)
    assert set(by_cat) == set(CATEGORIES)
    assert all(len(v) == 25 for v in by_cat.values())
    assert all(r.label == 0 and r.source == "near-miss" for r in rows)
    assert len({r.text for r in rows}) == len(rows)


def test_other_institution_questions_name_someone_else(chunks):
    own = institution_names(chunks)
    others = {fold(n) for n in other_institutions(own)}
    assert "facultad de ingenieria" not in others and "facultad de derecho" in others
    rows = [r for r in near_miss_questions(chunks, per_category=30) if r.topic.startswith("other_institution:")]
    bundled = [fold(n) for names in bundled_institutions().values() for n in names]
    assert all(any(b in fold(r.text) for b in bundled) for r in rows)


def test_homework_uses_the_documents_course_names(chunks):
    courses = course_names(chunks)
    assert courses == ["Física Básica", "Matemática Básica 1"]
    rows = [r for r in near_miss_questions(chunks, per_category=20) if r.topic.startswith("homework:")]
    assert all(any(fold(c) in fold(r.text) for c in courses) for r in rows)


def test_generation_is_deterministic(chunks):
    assert [r.text for r in near_miss_questions(chunks, per_category=10, seed=3)] == [r.text for r in near_miss_questions(chunks, per_category=10, seed=3)]
