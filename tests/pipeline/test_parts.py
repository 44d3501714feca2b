"""One reply from the answers to several questions: in order, then the documents they cite, once; NoInfo does not hide the others."""

from __future__ import annotations

from pipeline.derivation import Step, validate
from pipeline.generation import Answer, Reference, format_reply
from pipeline.generation.parts import compose, reply_body, said_before
from pipeline.generation.readiness import Readiness
from pipeline.texts import t
from tests.pipeline.generation_helpers import exam_hits


def _answer(body, refs, hits, steps, no_info=False):
    return Answer(text=format_reply(body, refs), method="extractive", model="x", references=refs, no_info=no_info, derivation=steps, hits=hits)


def test_answers_come_in_order_then_their_references_once_and_a_valid_derivation():
    hits = exam_hits()
    exams = _answer("La inscripción es del 11 al 22 de enero.", [Reference("examenes", "Exámenes", "https://x/examenes")], hits[:1], [Step("s1", "Extract", ["1"], "del 11 al 22 de enero", is_final=True)])
    nothing = _answer(t("no_info"), [], [], [Step("s1", "NoInfo", [], t("no_info"), is_final=True)], no_info=True)
    grants = _answer("Las becas se piden del 1 al 28 de febrero.", [Reference("becas", "Becas", None)], hits[1:2], [Step("s1", "Extract", ["1"], "del 1 al 28 de febrero", is_final=True)])
    reply = compose(["¿Hasta cuándo me inscribo?", "¿Hay gimnasio?", "¿Cuándo piden las becas?"], [exams, nothing, grants])
    text = reply.text
    assert text.startswith(t("greeting")) and text.rstrip().endswith(t("closing").splitlines()[-1])
    i1, i2, i3 = text.index("1. ¿Hasta cuándo me inscribo?"), text.index("2. ¿Hay gimnasio?"), text.index("3. ¿Cuándo piden las becas?")
    assert i1 < i2 < i3
    assert "del 11 al 22 de enero" in text[i1:i2] and "del 1 al 28 de febrero" in text[i3:]
    refs = text.index(t("references"))
    assert text.count(t("references")) == 1 and refs > i3  # one list of documents, after the last answer, in the order cited
    assert text[refs:].index("- Exámenes: https://x/examenes") < text[refs:].index("- Becas")
    assert t("no_info") in text[i2:i3]  # the part without information says so; the others are still answered
    assert not reply.no_info and [r.doc_id for r in reply.references] == ["examenes", "becas"]
    final = validate(reply.derivation, len(reply.hits))
    assert final.rule == "Concat" and len(final.premises) == 3
    assert [s.premises for s in reply.derivation if s.rule == "Extract"] == [["1"], ["2"]]  # chunk premises renumbered past earlier parts' hits


def test_one_answer_is_returned_as_it_is_and_the_body_keeps_its_references():
    a = _answer("Texto.", [Reference("d", "Doc", None)], [], [])
    assert compose(["?"], [a]) is a
    assert reply_body(a) == "Texto.\n\n" + t("references") + "\n- Doc"


def test_a_part_an_earlier_part_already_answers_is_said_once_under_both_questions():
    rule = "Sí. Podés solicitar licencia por trabajo por un máximo de dos años en total."
    first = _answer(rule, [Reference("faq", "Preguntas", None)], [], [Step("s1", "Extract", [], rule, is_final=True)])
    again = _answer("- " + rule + "\n- Otra regla que no se preguntó.", [Reference("faq", "Preguntas", None)], [], [Step("s1", "Extract", [], rule, is_final=True)])
    assert said_before(again, [first]) and not said_before(first, [])
    reply = compose(["¿Puedo pedir licencia?", "¿Por cuánto tiempo?"], [first, again])
    assert reply is first  # one answer left: no numbered parts, no repeated rule


def test_a_reply_to_several_questions_is_ready_only_when_every_part_is_and_says_what_is_missing():
    hits = exam_hits()
    ready = _answer("Del 11 al 22 de enero.", [Reference("examenes", "Exámenes", None)], hits[:1], [Step("s1", "Extract", ["1"], "x", is_final=True)])
    ready.extra_flags = [Readiness(True).flag()]
    unsure = _answer("Las becas tienen cupos.", [Reference("becas", "Becas", None)], hits[1:2], [Step("s1", "Extract", ["1"], "y", is_final=True)])
    unsure.extra_flags = [Readiness(False, "no encontré la fecha de «la convocatoria de becas»", [{"text": "Las becas tienen cupos."}]).flag()]
    flags = [f for f in compose(["¿Hasta cuándo me inscribo?", "¿Cuándo abren las becas?"], [ready, unsure]).extra_flags if f["kind"] == "readiness"]
    assert len(flags) == 1 and flags[0]["flag"] == "necesita revisión"
    assert flags[0]["missing"] == "pregunta 2: no encontré la fecha de «la convocatoria de becas»" and flags[0]["passages"] == [{"text": "Las becas tienen cupos."}]
    both = compose(["¿Hasta cuándo me inscribo?", "¿Cuándo abren las becas?"], [ready, _answer("Del 1 al 28 de febrero.", [], [], [Step("s1", "Extract", [], "z", is_final=True)])])
    assert [f["flag"] for f in both.extra_flags if f["kind"] == "readiness"] == ["listo"]


def test_a_document_two_parts_cite_is_listed_once():
    ref = Reference("examenes", "Exámenes", "https://x/examenes")
    first = _answer("La inscripción es del 11 al 22 de enero.", [ref], [], [Step("s1", "Extract", [], "a", is_final=True)])
    second = _answer("Los exámenes son del 1 al 20 de febrero.", [Reference("examenes", "Exámenes", "https://x/examenes")], [], [Step("s1", "Extract", [], "b", is_final=True)])
    text = compose(["¿Hasta cuándo me inscribo?", "¿Cuándo son los exámenes?"], [first, second]).text
    assert text.count("- Exámenes: https://x/examenes") == 1 and text.count(t("references")) == 1
    assert text.index("2. ¿Cuándo son los exámenes?") < text.index(t("references"))
