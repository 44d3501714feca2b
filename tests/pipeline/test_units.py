"""Answer units: typed, clean pieces of a document and their rendering as Spanish sentences."""

from __future__ import annotations

from pipeline.chunking import chunk_document
from pipeline.documents import Document
from pipeline.loaders.text import html_to_text
from pipeline.units import Unit, clean, extract_units, furniture, render

PENSUM = """Ingeniería Electrónica
La carrera consta de 300 CLAR, distribuidos en 10 semestres.

SEMESTRE 8
codigo: 0380
nombre: Proyectos de Computación Aplicados a Ingeniería Electrónica
creditos: 5
area: No especificada
prerequisitos: 0991, 0246
obligatorio: Sí
---
codigo: 0211
nombre: Teoría Electromagnética 2
creditos: 6
area: No especificada
prerequisitos: Ninguno
obligatorio: No
---
"""


def kinds(units):
    return [u.kind for u in units]


def test_clean_removes_markup_without_spacing_damage():
    assert clean("**Inscripción:** desde el lunes 11") == "Inscripción: desde el lunes 11"
    assert clean("La pasantía es **obligatoria** , y *vale* 10 créditos.") == "La pasantía es obligatoria, y vale 10 créditos."
    assert clean("Ver <strong>SIGE</strong> , [la web](https://x.example/a) .") == "Ver SIGE, la web (https://x.example/a)."
    assert clean("snake_case_name y 2*3*4") == "snake_case_name y 2*3*4"  # not emphasis


def test_a_placeholder_in_angle_brackets_is_text_not_markup():
    """'la cuenta es <número de dpi>@…' tells the student their address; only HTML elements are markup."""
    text = clean("la cuenta es <número de\ndpi>@ingenieria.usac.edu.gt, escribe a <nombre de usuario> o <carné>")
    assert "<número de dpi>@ingenieria.usac.edu.gt" in text
    assert "<nombre de usuario>" in text and "<carné>" in text
    assert clean('<P CLASS="x">Hola</P> <br/><strong>mundo</strong> <span\nstyle="a">ya</span>') == "Hola mundo ya"


def test_records_separated_by_rules_become_one_unit_each_with_their_heading():
    units = [u for u in extract_units(PENSUM) if u.kind == "record"]
    assert len(units) == 2 and units[0].context == "SEMESTRE 8"
    assert units[0].fields["prerequisitos"] == "0991, 0246"
    assert render(units[0]) == "Proyectos de Computación Aplicados a Ingeniería Electrónica (0380): 5 créditos, obligatorio; prerrequisitos: 0991 y 0246."
    assert render(units[1]) == "Teoría Electromagnética 2 (0211): 6 créditos, no obligatorio; prerrequisitos: Ninguno."
    named = render(units[0], {"0991": "Lenguajes de Programación", "0246": "Circuitos 2"})
    assert "prerrequisitos: Lenguajes de Programación (0991) y Circuitos 2 (0246)." in named
    assert "|" not in render(units[0]) and "codigo:" not in render(units[0])


def test_markdown_table_rows_keep_their_header_and_read_as_a_sentence():
    text = "## Programas\n\n| Programa | Duración | Costo |\n|---|---|---|\n| Diploma en Datos | 1 año | 10 cuotas de $ 12.000 |\n| **Total** | 2 años | Gratuito |\n"
    rows = [u for u in extract_units(text) if u.kind == "row"]
    assert [u.fields["Programa"] for u in rows] == ["Diploma en Datos", "Total"]
    assert render(rows[0]) == "Diploma en Datos: duración 1 año, costo 10 cuotas de $ 12.000."


def test_html_tables_reach_the_units_with_their_header_and_no_space_before_commas():
    html = "<main><h1>Calendario</h1><p>Ver <strong>SIGE</strong>, siempre.</p><table><tr><th>Actividad</th><th>Fecha</th></tr><tr><td>Exámenes de febrero</td><td>lunes 2 al sábado 21 de febrero de 2026</td></tr></table></main>"
    text, _, _ = html_to_text(html)
    assert "SIGE, siempre" in text
    rows = [u for u in extract_units(text) if u.kind == "row"]
    assert render(rows[0]) == "Exámenes de febrero: lunes 2 al sábado 21 de febrero de 2026."  # a date needs no 'fecha' before it


def test_a_row_keeps_the_column_word_of_a_value_that_is_not_a_date():
    rows = [u for u in extract_units("| Actividad | Fecha |\n|---|---|\n| Inscripciones | a confirmar |\n") if u.kind == "row"]
    assert render(rows[0]) == "Inscripciones: fecha a confirmar."


def test_list_items_carry_their_heading_and_faq_pairs_their_question():
    text = "## Período de febrero de 2027\n\n- **Inscripción:** desde el lunes 11 hasta el viernes 22 de enero de 2027.\n- **Exámenes:** del lunes 8 al sábado 27 de febrero de 2027.\n\n1. ¿Tengo correo de ingeniería?\nSí, a todos los estudiantes inscritos se les crea un correo\nen correo.ingenieria.usac.edu.gt.\n"
    units = extract_units(text)
    items = [u for u in units if u.kind == "item"]
    assert render(items[0]) == "Período de febrero de 2027, inscripción: desde el lunes 11 hasta el viernes 22 de enero de 2027."
    faq = next(u for u in units if u.kind == "faq")
    assert faq.context == "¿Tengo correo de ingeniería?"
    assert faq.text == "Sí, a todos los estudiantes inscritos se les crea un correo en correo.ingenieria.usac.edu.gt."


def test_wrapped_lines_are_joined_and_sentences_are_not_cut_mid_clause():
    text = "ARTÍCULO 5. Duración: el programa dura seis meses y el informe\nse entrega al final del período. El Art. 6 regula la\nprórroga del plazo.\n"
    sents = [u.text for u in extract_units(text) if u.kind == "sentence"]
    assert sents == ["ARTÍCULO 5. Duración: el programa dura seis meses y el informe se entrega al final del período.", "El Art. 6 regula la prórroga del plazo."]


def test_running_page_headers_are_dropped():
    pages = "\n".join(f"--- Página {i} ---\nFIUSAC\nFACULTAD DE INGENIERÍA\nCICLO ACADÉMICO 2025\nContenido propio de la página {i} con un dato." for i in range(1, 5))
    assert {"FIUSAC", "CICLO ACADÉMICO 2025"} <= furniture(pages)
    texts = " ".join(u.text for u in extract_units(pages))
    assert "FIUSAC" not in texts and "CICLO ACADÉMICO" not in texts and "página 3 con un dato" in texts


def test_chunks_get_the_units_that_start_in_them_and_units_round_trip_the_payload():
    doc = Document(id="pensum_electronica", title="Ingeniería", text=PENSUM, source="x.md")
    chunks = chunk_document(doc, "structure", 200, 20)
    units = [u for c in chunks for u in c.units]
    assert sum(u.kind == "record" for u in units) == 2
    u = units[-1]
    u.set_vec([0.5, -0.25, 1.0])
    back = Unit.from_payload(u.as_payload())
    assert back.fields == u.fields and list(back.vec()) == [0.5, -0.25, 1.0]


def test_regulation_lists_and_article_titles():
    from pipeline.units import extract_units, heading_case, render

    text = "ARTÍCULO 10. DURACIÓN DE LAS PRÁCTICAS\na.) La práctica inicial tendrá una duración de un semestre.\nb.) La práctica final tendrá una duración:\nb.1 La práctica final laboral tendrá una duración de 400 horas efectivas.\n"
    units = extract_units(text)
    items = [u for u in units if u.kind == "item"]
    assert [u.text for u in items][0] == "La práctica inicial tendrá una duración de un semestre."
    assert any("400 horas" in u.text and not u.text.startswith("b.1") for u in items)
    assert {u.context for u in items} == {"ARTÍCULO 10. DURACIÓN DE LAS PRÁCTICAS"}
    assert heading_case("ARTÍCULO 13. REQUISITOS DE LA PRÁCTICA FINAL DEL EPS") == "Artículo 13. Requisitos de la práctica final del EPS"
    assert heading_case("SPICUA CAROL") == ""  # a watermark's letters, not a heading
    assert heading_case("Requisitos del curso") == "Requisitos del curso"
    assert all(not render(u).endswith(":.") for u in units)


def test_numbered_and_bare_markers_start_items_and_short_items_under_a_lead_in_are_kept():
    text = (
        "ARTÍCULO 4. DEFINICIÓN\nLas Prácticas de Ingeniería se dividen en:\n1.) Prácticas Iniciales\n2.) Prácticas Intermedias\n"
        "El Programa de Prácticas es de carácter obligatorio.\nARTÍCULO 11. REQUISITOS PARA LA PRÁCTICA INICIAL\na)\nb)\nEstar debidamente inscrito en la Facultad.\n"
        "Asignarse en control académico.\nc)\nTener aprobado el curso de Matemática Básica II.\nd)\nSometerse a un seminario de\n"
        "inducción previo a las prácticas.\nEl seminario se publica cada semestre.\n"
    )
    units = extract_units(text)
    assert not any(u.text.endswith(": 1.") or u.text.endswith(" 2.") for u in units)  # '1.)' is a marker, not a sentence end
    assert [u.text for u in units if u.kind == "item"] == [
        "Prácticas Iniciales",
        "Prácticas Intermedias",
        "Estar debidamente inscrito en la Facultad.",
        "Asignarse en control académico.",
        "Tener aprobado el curso de Matemática Básica II.",
        "Someterse a un seminario de inducción previo a las prácticas.",
    ]
    assert not any(" c) " in u.text or " d) " in u.text for u in units)
    assert any(u.kind == "sentence" and u.text == "El seminario se publica cada semestre." for u in units)
    assert any(u.kind == "sentence" and u.text == "El Programa de Prácticas es de carácter obligatorio." for u in units)  # not a wrap of the last short name
    assert not any(u.text == "Uno dos" for u in extract_units("Texto suelto sin lista.\n- Uno dos\n"))  # a short item no lead-in announces stays dropped


def test_a_title_wrapped_after_an_open_word_is_one_heading_and_a_sentence_start_is_not_a_title():
    text = "Carta de\nsolicitud firmada\nLa carta se entrega en la ventanilla de la escuela.\n\nSolo se reciben pagos en\nAgencias del banco del sistema, en horario de atención."
    units = extract_units(text)
    heads = [u.text for u in units if u.kind == "heading"]
    assert heads == ["Carta de solicitud firmada"]
    sentences = [u.text for u in units if u.kind == "sentence"]
    assert "Solo se reciben pagos en Agencias del banco del sistema, en horario de atención." in sentences


def test_a_lead_in_keeps_the_value_set_on_the_next_line_or_paragraph():
    text = "## Examen privado\n\nEl costo del examen privado es de:\n\nQ.180.00 por estudiante.\n\nSe paga en cualquier agencia bancaria.\n"
    sentences = [u.text for u in extract_units(text) if u.kind == "sentence"]
    assert sentences == ["El costo del examen privado es de: Q.180.00 por estudiante.", "Se paga en cualquier agencia bancaria."]
    alone = [(u.kind, u.text) for u in extract_units("La cuota mensual es:\nQ.95.00 por curso.\n")]
    assert alone == [("sentence", "La cuota mensual es: Q.95.00 por curso.")]  # a short lead-in line is not the title of its value
    single = [u for u in extract_units("## Trámite\n\nEl plazo es:\n- diez días hábiles desde la notificación\n") if u.kind != "heading"]
    assert [u.text for u in single] == ["El plazo es: diez días hábiles desde la notificación"]
    listed = [u for u in extract_units("## Requisitos\n\nLos documentos son:\n- Constancia de inscripción vigente\n- Solvencia general del ciclo\n") if u.kind == "item"]
    assert [u.text for u in listed] == ["Constancia de inscripción vigente", "Solvencia general del ciclo"]  # a list of several items stays a list


def test_a_line_that_wraps_mid_phrase_is_not_taken_for_a_running_header():
    pages = [f"--- Página {i} ---\nFACULTAD DE INGENIERÍA\nOrden de pago y boleta de pago de\nAlquiler de Toga número {i} por Q.{i}0.00.\n" for i in range(1, 5)]
    skip = furniture("".join(pages))
    assert "FACULTAD DE INGENIERÍA" in skip and "Orden de pago y boleta de pago de" not in skip


FLAT_TABLE = """Artículo 16°. Para cada ciclo lectivo (semestre) el estudiante tiene derecho
a asignarse un máximo de créditos, dependiendo la siguiente tabla:
PROMEDIΟ
Promedio ≤70
71 a 85
86 a 100
CRÉDITOS CLAR (MÁXIMOS)
32
37
42
DICUA CAROT
En los casos de estudiantes que cursen carreras simultáneas podrán
asignarse 5 créditos adicionales en la tabla indicada.
"""


def test_a_table_flattened_column_by_column_is_read_back_as_rows():
    units = extract_units(FLAT_TABLE)
    assert kinds(units) == ["sentence", "row", "row", "row", "sentence"]
    assert units[0].text.endswith("dependiendo la siguiente tabla:")  # the lead-in ends before the table, not run into its numbers
    assert [render(u) for u in units[1:4]] == ["Promedio ≤ 70: 32 créditos.", "Promedio 71 a 85: 37 créditos.", "Promedio 86 a 100: 42 créditos."]
    assert units[4].text.startswith("En los casos de estudiantes")  # the stamp's letters after the values are not text


def test_a_flattened_table_with_stamp_letters_and_a_cut_header_takes_its_measure_from_the_lead_in():
    text = "El estudiante tiene derecho a asignarse un máximo de créditos,\nsegún la siguiente distribución:\nPromedio\npromedio<70\nCOA\néditos (máximos)\n70≤ promedio <75 ISTISEIVIND\n75≤ promedio <85\n85≤ promedio ≤100\n36\n40\n44\n48\nEn los casos de carreras simultáneas podrán asignarse 10 créditos adicionales.\n"
    rows = [render(u) for u in extract_units(text) if u.kind == "row"]
    assert rows == ["Promedio < 70: 36 créditos.", "70 ≤ promedio < 75: 40 créditos.", "75 ≤ promedio < 85: 44 créditos.", "85 ≤ promedio ≤ 100: 48 créditos."]


def test_lines_of_numbers_that_are_not_one_value_per_label_stay_prose():
    text = "Los requisitos son los siguientes:\nInscripción 2025\n12\n15\nFin de la lista con más palabras en esta línea.\n"
    assert not [u for u in extract_units(text) if u.kind == "row"]


def test_an_address_that_completes_a_lead_in_is_kept_even_where_pages_repeat_it():
    page = "- Orden de pago de Examen Privado de Q.250.00. Generar el pago\nindividual desde su usuario de SIIF:\nsiif.usac.edu.gt/pagousac\nÚnicamente se aceptan pagos en Agencias\nBancarias Banrural o Bantrab,\nNO G&T.\nNombre del archivo en .PDF:\nOrden_#carné\nPago_#carné\n"
    others = [f"La solvencia número {n} se genera en el portal de pagos.\nsiif.usac.edu.gt/pagousac\n" for n in range(2, 5)]
    text = "".join(f"--- Página {n} ---\n{body}\n" for n, body in enumerate([page, *others], start=1))
    assert "siif.usac.edu.gt/pagousac" in furniture(text)  # repeated on every page
    units = extract_units(text)
    item = next(u for u in units if u.kind == "item")
    assert "de SIIF: siif.usac.edu.gt/pagousac. Únicamente se aceptan pagos" in item.text
    assert item.text.endswith("Banrural o Bantrab, NO G&T.")  # a capitals line that ends the sentence is not a heading
    assert any(u.text.startswith("Nombre del archivo") and u.text.endswith(": Orden_#carné, Pago_#carné") for u in units)  # file names listed


def test_an_faq_answer_keeps_its_list_as_lines():
    text = (
        "5. ¿Por qué no me han cargado cursos que Junta Directiva ya me aprobó?\n"
        "Posibles causas por las que no se le han cargado los cursos que le aprobó son:\n"
        "a. Datos incompletos (falta sección, el nombre o código de curso no coinciden)\n"
        "b. Datos incorrectos (el curso no pertenece a la carrera)\n"
        "c. La resolución no ha llegado a Centro de cálculo\n"
        "6. ¿Tengo correo de ingeniería?\n"
        "Si, a todos los estudiantes inscritos se les crea un correo institucional.\n"
    )
    faqs = [u for u in extract_units(text) if u.kind == "faq"]
    assert faqs[0].text.splitlines() == [
        "Posibles causas por las que no se le han cargado los cursos que le aprobó son:",
        "- Datos incompletos (falta sección, el nombre o código de curso no coinciden).",
        "- Datos incorrectos (el curso no pertenece a la carrera).",
        "- La resolución no ha llegado a Centro de cálculo.",
    ]
    assert "\n" not in faqs[1].text


def test_each_sentence_of_a_long_paragraph_starts_where_its_line_is():
    text = (
        "Artículo 15°. El estudiante que así lo solicite podrá realizar el cambio de\n"
        "una oportunidad de asignación ante Junta Directiva. Artículo 16°. Para cada\n"
        "ciclo lectivo el estudiante tiene derecho a asignarse un máximo de créditos.\n"
    )
    units = extract_units(text)
    assert [u.offset for u in units] == [0, text.index("una oportunidad")]  # the second sentence starts on the second line, not at the paragraph's start
    assert units[1].text.startswith("Artículo 16°.")
