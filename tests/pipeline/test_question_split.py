"""Several questions in one message: split by topic, continuations kept together."""

from __future__ import annotations

from pipeline.question_split import asked_sentence, split_questions


def test_questions_about_different_topics_are_split_in_order_with_their_context():
    text = "Hola. ¿Hasta cuándo me inscribo a los exámenes de febrero? Tengo que dar Cálculo 2. Además, ¿cuántos créditos necesito para recibirme? Y por último, ¿en qué horario atiende Bedelía?"
    parts = split_questions(text)
    assert len(parts) == 3
    assert parts[0].startswith("Hola. ¿Hasta cuándo") and "Cálculo 2" in parts[0]  # the context sentence stays with its question
    assert "créditos" in parts[1] and "Bedelía" in parts[2]
    assert asked_sentence(parts[0]) == "¿Hasta cuándo me inscribo a los exámenes de febrero?"


def test_a_continuation_without_its_own_topic_stays_with_the_question_before():
    assert split_questions("¿Cuándo abren las inscripciones a los cursos del primer semestre? ¿Y hasta qué día hay tiempo?") == [
        "¿Cuándo abren las inscripciones a los cursos del primer semestre? ¿Y hasta qué día hay tiempo?"
    ]
    assert len(split_questions("¿Cómo reválido una materia de otra universidad? ¿Cuánto sale el trámite?")) == 1


def test_one_question_and_no_question_are_one_part():
    assert split_questions("Quería saber hasta cuándo me puedo inscribir a los exámenes de febrero.") == ["Quería saber hasta cuándo me puedo inscribir a los exámenes de febrero."]
    assert split_questions("") == []


def test_a_long_list_of_questions_is_bounded():
    topics = ("becas alojamiento", "examenes febrero", "creditos titulo", "revalidas programa", "posgrados maestria", "pasantias convenio", "bedelia horario")
    text = " ".join(f"¿Qué pasa con {w}?" for w in topics)
    parts = split_questions(text)
    assert len(parts) == 5 and "bedelia horario" in parts[-1] and "posgrados maestria" in parts[-1]
