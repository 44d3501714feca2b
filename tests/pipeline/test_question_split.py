"""Several questions in one message: split by topic, continuations kept together."""

from __future__ import annotations

from pipeline.question_split import asked_sentence, split_questions, standalone, with_context


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



def test_a_question_asking_another_kind_of_answer_is_its_own_part_even_without_its_own_topic():
    assert split_questions("¿Cómo reválido una materia de otra universidad? ¿Cuánto sale el trámite?") == [
        "¿Cómo reválido una materia de otra universidad?", "¿Cuánto sale el trámite?"  # a procedure, then a cost
    ]
    assert split_questions("Me interesa el Diploma de Ciencia de Datos. ¿Cuánto cuesta y hasta cuándo me puedo postular?") == [
        "Me interesa el Diploma de Ciencia de Datos. ¿Cuánto cuesta?", "¿Y hasta cuándo me puedo postular?"  # two questions in one sentence
    ]
    assert len(split_questions("¿Me puedo inscribir y que me cuente el curso?")) == 1  # 'y que' joins, it does not ask


def test_a_part_that_leans_on_the_one_before_is_asked_with_it():
    assert not standalone("¿Cuánto sale el trámite?") and standalone("¿Cuándo abre la convocatoria de becas para el año que viene?")
    as_context, as_question = with_context("¿Cuánto sale el trámite?", "¿Cómo reválido una materia?")
    assert as_context == "Cómo reválido una materia. ¿Cuánto sale el trámite?"  # the earlier question said as context
    assert as_question == "¿Cuánto sale el trámite? ¿Cómo reválido una materia?"  # its own question first


def test_one_question_and_no_question_are_one_part():
    assert split_questions("Quería saber hasta cuándo me puedo inscribir a los exámenes de febrero.") == ["Quería saber hasta cuándo me puedo inscribir a los exámenes de febrero."]
    assert split_questions("") == []


def test_a_long_list_of_questions_is_bounded():
    topics = ("becas alojamiento", "examenes febrero", "creditos titulo", "revalidas programa", "posgrados maestria", "pasantias convenio", "bedelia horario")
    text = " ".join(f"¿Qué pasa con {w}?" for w in topics)
    parts = split_questions(text)
    assert len(parts) == 5 and "bedelia horario" in parts[-1] and "posgrados maestria" in parts[-1]


def test_a_heading_drops_a_short_label_that_only_announces_the_question_and_keeps_a_condition():
    assert asked_sentence("Y otra cosa: ¿cuándo abre la convocatoria de becas?") == "¿Cuándo abre la convocatoria de becas?"
    assert asked_sentence("Consulta: ¿hay clases el sábado?") == "¿Hay clases el sábado?"
    assert asked_sentence("Si repruebo el laboratorio, ¿pierdo el curso?") == "Si repruebo el laboratorio, ¿pierdo el curso?"
    assert asked_sentence("Tengo esta duda con el plazo del 22 de enero de 2027: ¿se puede extender?").startswith("Tengo esta duda")
