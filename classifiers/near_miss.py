"""Near-miss out-of-domain questions built from the office's own documents: their words, someone else's business.

Categories (kept in each example's topic as "<category>:<detail>" so evaluations can break results down):
  other_institution  the office's procedures asked about another faculty, university or professional body
  homework           a course's subject matter (course names from the documents) rather than its administration
  word_problem       a calculation told in prose with quantities and units ("un tanque de 2000 litros se llena a...")
  writing            write, translate, summarise or correct a text
  coding             write or fix code
  opinion            opinions and chit-chat about the field
  jobs               jobs, salaries, CVs, job hunting and work life
  services           personal errands and services off campus (a dentist, a room, a loan, a passport, a lost national ID)
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from classifiers import styles
from classifiers.intent import GENERIC_COURSES, bundled_institutions, course_names_in, spoken_course_names, spoken_institution_names
from classifiers.synthetic import Example, institution_names, procedures
from pipeline.chunking import Chunk
from pipeline.text import fold

CATEGORIES = ("other_institution", "homework", "word_problem", "writing", "coding", "opinion", "jobs", "services")


def other_institutions(own: Sequence[str]) -> list[str]:
    """Bundled institutions that are not the office's own (compared without accents or case), each also by the short
    name students use ("la Landívar", "la Mariano Gálvez")."""
    mine = {fold(n.removeprefix("la ").removeprefix("el ")) for n in own}
    full = [n for names in bundled_institutions().values() for n in names if fold(n) not in mine]
    return full + [s for n in full for s in spoken_institution_names(n) if fold(s) not in mine]


# Made-up universities composed from name parts: the gate must learn how a university is named (after a person, after a
# place, by an acronym), not the bundled names. The parts avoid the bundled universities' own names.
_FIRST_NAMES = ("Tomás", "Andrés", "Ignacio", "Rodrigo", "Lucía", "Isabel", "Antonio", "Esteban", "Gabriel", "Santiago", "Marcos", "Julián", "Domingo", "Vicente")
_SURNAMES = ("Herrera", "Batres", "Montúfar", "Aycinena", "Larrave", "Irigoyen", "Cabrera", "Arévalo", "Barrios", "Castañeda", "Ordóñez", "Valdés", "Quiñónez", "Sologaistoa")
_PLACES = ("Occidente", "Oriente", "las Américas", "Centroamérica", "la Costa Sur", "los Altos", "Sololá", "Petén", "Izabal", "Cobán", "Escuintla", "Huehuetenango")
_TITLE_WORDS = frozenset({"de", "del", "la", "las", "los", "y", "el"})


def made_up_universities(rng: random.Random, n: int) -> list[str]:
    """`n` plausible university names that exist nowhere: "Universidad Esteban Larrave", "Universidad de los Altos"."""
    out = []
    for _ in range(n):
        roll = rng.random()
        if roll < 0.5:
            out.append(f"Universidad {rng.choice(_FIRST_NAMES)} {rng.choice(_SURNAMES)}")
        elif roll < 0.8:
            place = rng.choice(_PLACES)
            out.append(f"Universidad {'del' if place.startswith('el ') else 'de'} {place.removeprefix('el ')}")
        else:
            out.append(f"Universidad {rng.choice(_SURNAMES)}")
    return out


def acronym(name: str) -> str:
    """How a university's name is shortened to capitals: "Universidad del Valle de Guatemala" -> "UVG"."""
    words = [w for w in name.replace("-", " ").split() if w.lower() not in _TITLE_WORDS]
    return "".join(fold(w)[0].upper() for w in words if w[:1].isalpha())


def institution_forms(rng: random.Random, name: str) -> str:
    """One way a student names a university: its full name, a short name ("la Landívar", "la del Valle"), a founder's
    first name ("la Mariano"), its acronym in capitals or typed in lower case ("la UVG", "la uvg"), or "la U Galileo"."""
    forms = [f"la {name}" if name.startswith("Universidad") else name] + spoken_institution_names(name)
    words = name.split()
    if name.startswith("Universidad") and len(words) == 3 and words[1][:1].isupper():
        forms.append(f"la {words[1]}")  # "la Mariano", "la Rafael": the founder's first name alone
        forms.append(f"la U {words[1]}")
    if name.startswith("Universidad") and len(words) == 2:
        forms.append(f"la U {words[1]}")
        forms.append(f"la U{fold(words[1])[:4].upper()}")  # a syllable acronym ("UPANA")
    short = acronym(name)
    if name.startswith("Universidad") and 2 <= len(short) <= 5:
        forms += [f"la {short}", f"la {short.lower()}"]
    return rng.choice(forms)


def other_universities(own: Sequence[str]) -> list[str]:
    """The other institutions that are universities (where a student may come from to this office), with short names."""
    spoken = {s for names in bundled_institutions().values() for n in names if n.startswith("Universidad") for s in spoken_institution_names(n)}
    return [n for n in other_institutions(own) if n.startswith("Universidad") or n in spoken]


# Subject matter, not administration: what a homework question is about.
PROBLEMS = (
    "un bloque de {n} kg baja por un plano inclinado, ¿cuál es su aceleración?", "¿cómo saco la derivada de x^{n} por seno de x?",
    "tengo que integrar por partes x·e^x y no me sale", "¿cómo calculo las reacciones de una viga con una carga de {n} kN?",
    "¿cómo se balancea la ecuación de la combustión del propano?", "¿cuál es la corriente en un circuito con {n} ohmios y 12 V?",
    "¿cómo se recorre un árbol binario en inorden?", "¿cómo se calcula el determinante de una matriz de 3x3?",
    "¿qué es la entalpía y cómo la calculo en este ejercicio?", "¿cómo planteo el método simplex para maximizar la ganancia?",
    "¿cómo se calcula la probabilidad con la distribución normal si la media es {n}?", "¿cómo saco el centro de masa de una placa?",
    "explícame la segunda ley de Newton con un ejemplo", "¿cómo se resuelve una ecuación diferencial de primer orden?",
    "¿qué fórmula uso para el caudal en una tubería de {n} cm?", "¿cómo dibujo la vista isométrica de esta pieza?",
    "¿cómo hago la tabla de verdad de este circuito lógico?", "no entiendo el teorema de Thevenin, ¿me lo explicás?",
    "¿cómo se calcula el momento flector máximo?", "¿cuánto da el límite de sen(x)/x cuando x tiende a 0?",
)
# Plain arithmetic and everyday maths with numbers: the figures make it look like a fee or a grade question.
ARITHMETIC = (
    "¿cuánto es el {p}% de {n}?", "¿cuánto es {n} menos el {p} por ciento?", "¿cuánto da {n} dividido entre {m}?", "¿cuánto es {m} por {k}?",
    "¿cuál es la raíz cuadrada de {n}?", "saca el promedio de {k}, {m} y {p}", "si gano {n} al mes y ahorro el {p}%, ¿cuánto ahorro en un año?",
    "¿cuánto es {k} elevado a la {d}?", "convierte {m} kilómetros a millas", "¿cuántos metros cuadrados tiene un terreno de {k} por {m}?",
    "si presto {n} al {d}% anual, ¿cuánto pago de interés?", "¿a cuánto equivalen {m} dólares en quetzales?", "¿cuánto es {n} entre {d}?",
    "¿qué porcentaje es {m} de {n}?", "un carro recorre {m} km en {d} horas, ¿cuál es su velocidad?", "¿cuánto es la quinta parte de {n}?",
    "pasa {m} grados Fahrenheit a Celsius", "si tengo {n} y gasto {m}, ¿cuánto me queda?", "¿cuánto es {d}/{k} + {d}/{m}?",
)
HOMEWORK_FRAMES = (
    "¿Cómo resuelvo este problema de {c}? {p}", "tengo tarea de {c}: {p}", "Mi catedrático de {c} dejó este ejercicio: {p}",
    "ayuda con {c} porfa, {p}", "Estoy estudiando para el parcial de {c} y no entiendo esto: {p}", "{p} (es de {c})",
    "¿Me explican el tema de {c}? {p}", "¿Me resuelven este ejercicio de {c}? {p}",
)
# Homework told without the problem itself: the course is named, the subject matter is what is asked.
HOMEWORK_PLAIN = (
    "¿Me ayudan con la tarea de {c}?", "no le entiendo a {c}, ¿cómo se hacen los ejercicios?", "¿Cómo planteo el problema 3 de la hoja de {c}?",
    "mi catedrático de {c} dejó un ejercicio y no sé cómo se hace", "¿Qué fórmula se usa en {c} para este tipo de problemas?",
    "¿Me explicás el tema de la semana pasada de {c}?", "necesito resolver la guía de ejercicios de {c}", "¿Alguien me explica la teoría de {c}?",
)
WRITING = (
    ("redáctame la introducción de mi tesis sobre {s}", "writing"), ("hazme un resumen de {s} para mi curso", "writing"),
    ("escribe un ensayo de dos páginas sobre {s}", "writing"), ("traduce al inglés este párrafo sobre {s}", "writing"),
    ("corrígeme la ortografía de este texto sobre {s}", "writing"), ("redactá el marco teórico de un trabajo sobre {s}", "writing"),
    ("hazme una presentación sobre {s}", "writing"), ("escribime las conclusiones de un informe sobre {s}", "writing"),
    ("resume este artículo sobre {s} en tres párrafos", "writing"), ("escribe una carta de motivación para una beca en el extranjero", "writing"),
    ("hazme un programa en Python que calcule {s}", "coding"), ("¿cómo conecto Java con MySQL para mi proyecto de {s}?", "coding"),
    ("tengo un error de compilación en C++ en mi proyecto de {s}, ¿qué hago?", "coding"), ("escribe el código en JavaScript de {s}", "coding"),
    ("¿cómo hago una consulta SQL que agrupe por mes?", "coding"), ("hazme un script en Python para {s}", "coding"),
    ("mi código de Arduino no lee el sensor, ayuda", "coding"), ("¿cómo se declara un puntero en C?", "coding"),
    ("¿cómo arreglo un NullPointerException en Java?", "coding"), ("hazme la página web de {s} en HTML y CSS", "coding"),
)
OPINION = (
    "¿Qué opinás de la inteligencia artificial en {f}?", "¿Qué es mejor, {f} o {g}?", "¿Cuál tiene más futuro, {f} o {g}?",
    "dame ideas de temas de tesis de {f}", "¿Vale la pena estudiar {f}?", "¿Crees que {f} va a desaparecer con la IA?",
    "¿Qué piensas de los ingenieros de {f}?", "hola bot, ¿cómo estás? ¿te gusta {f}?", "¿Me recomiendas una laptop para {f}?",
    "¿Cuál es el mejor libro de {f}?", "¿Qué opinas de ChatGPT para estudiar {f}?", "¿Es difícil {f}? ¿vos qué pensás?",
)
JOBS = (
    "¿Cuánto gana un profesional de {f} recién graduado?", "¿Qué empresas contratan gente de {f}?", "¿Cómo armo mi CV para un trabajo de {f}?",
    "¿Cuál es el salario promedio en {f}?", "¿Dónde busco trabajo de medio tiempo en {f}?", "¿Cuánto cobra un consultor de {f} por hora?",
    "¿Hay trabajo de {f} en el extranjero?", "¿Qué piden en una entrevista de trabajo de {f}?", "¿Cuánto pagan en una pasantía de {f}?",
    "¿Alguien sabe de una chamba de medio tiempo?", "¿Dónde aplico a vacantes de {f}?", "¿Cuánto pido de pretensión salarial como junior de {f}?",
    "¿Conocen empresas que estén contratando gente de {f}?", "¿Cómo le pido un aumento de sueldo a mi jefe?", "¿Conviene trabajar de freelance en {f} mientras estudio?",
    "¿Hay trabajo para gente de {f}?", "¿Saben si hay plazas para {f} en alguna empresa?", "¿Alguien sabe de chamba para estudiantes de {f}?",
    "¿Dónde consigo trabajo de {f} sin experiencia?", "¿Conocen alguna empresa que contrate estudiantes de {f}?", "busco pasantía pagada de {f}, ¿saben de alguna?",
    "¿Cómo pongo mi experiencia de {f} en LinkedIn?", "¿Me pueden despedir si falto al trabajo por un examen?", "¿Cuántas horas extra me pueden pedir en el trabajo?",
    "¿Qué plaza de {f} está disponible en alguna empresa?", "¿Cómo me preparo para la entrevista de una multinacional?", "¿Cuánto me deben pagar de aguinaldo?",
)
# Personal errands and services off campus: everyday business of a student's life, not the office's.
SERVICES = (
    ("¿Me recomiendan un dentista barato?", "dentista"), ("¿Dónde me arreglan la pantalla del celular?", "celular"), ("¿Saben de un cuarto en alquiler cerca de {i}?", "alquiler"),
    ("¿Qué banco da préstamos a estudiantes?", "préstamo"), ("¿Cómo saco la visa de estudiante?", "visa"), ("¿Dónde renuevo el pasaporte?", "pasaporte"),
    ("perdí mi DPI, ¿dónde saco otro?", "dpi"), ("se me perdió la tarjeta del banco, ¿cómo la bloqueo?", "tarjeta bancaria"), ("¿Cuánto cuesta sacar la licencia de conducir?", "licencia"),
    ("¿Conocen un abogado para un problema de herencia?", "abogado"), ("¿Cómo saco el NIT para facturar?", "nit"), ("¿Qué compañía de internet es mejor para mi casa?", "internet"),
    ("¿Dónde llevo el carro al taller?", "taller"), ("¿Me recomiendan un psicólogo particular?", "psicólogo"), ("¿Cómo abro una cuenta de ahorro?", "cuenta bancaria"),
    ("¿Dónde saco los antecedentes penales?", "antecedentes"), ("¿Cuánto cobra un electricista por una instalación?", "electricista"), ("me robaron el celular, ¿cómo lo bloqueo?", "celular robado"),
    ("¿Dónde consigo un seguro médico barato?", "seguro"), ("¿Cómo pago la luz en línea?", "factura de luz"), ("¿Quién hace mudanzas baratas?", "mudanza"),
)
SERVICE_FRAMES = ("{q}", "{q}", "hola, una pregunta: {q}", "oigan, {q}", "{q} es urgente", "disculpen, {q}")
INSTITUTION_FRAMES = (
    "¿{q} en {i}?", "{q} en {i}", "¿Cómo es {t} en {i}?", "¿{i} también tiene {t}?", "¿Qué requisitos pide {i} para {t}?",
    "Mi hermano estudia en {i}, ¿cómo hace {t} allá?", "¿Cuánto cuesta {t} en {i}?", "¿Cuándo son las fechas de {t} en {i}?",
    "Quiero pasarme a {i}, ¿cómo es {t} ahí?", "¿Dónde consulto lo de {t} de {i}?",
)
# The university as the subject or alone, and a move towards it (its equivalencias are its own business).
UNIVERSITY_FRAMES = (
    "{I} tiene {t}?", "¿{I} da becas?", "en {i} cuánto cuesta el semestre", "¿Alguien sabe cuándo abre la inscripción en {i}?",
    "los de {i} tienen {t}?", "¿Qué carreras de ingeniería hay en {i}?", "¿Cuándo son las pruebas de admisión de {i}?", "¿Dónde queda el campus de {i}?",
    "¿Cómo pido equivalencias en {i}?", "me quiero trasladar a {i}, ¿qué piden?", "¿{i} reconoce los cursos aprobados en otra universidad?",
    "¿Cuánto cobran en {i} por crédito?", "mi novia estudia en {i}, ¿cómo saca la constancia de estudios?", "¿{i} tiene plan fin de semana?",
)
_FIELD_WORDS = re.compile(r"\b(Ingenier[ií]a(?: en)? [A-ZÁÉÍÓÚ][\wáéíóú]+(?: [A-ZÁÉÍÓÚ][\wáéíóú]+)?|Arquitectura|Medicina|Derecho)\b")


def course_names(chunks: Sequence[Chunk]) -> list[str]:
    """Course names listed in the documents; generic ones when there are none."""
    return course_names_in([c.text for c in chunks]) or list(GENERIC_COURSES)


def fields_of(chunks: Sequence[Chunk]) -> list[str]:
    """The professions the documents are about (document titles and 'Ingeniería X' mentions), plus generic ones."""
    found: dict[str, str] = {}
    for c in chunks:
        for m in _FIELD_WORDS.finditer(" ".join(c.text.split()[:400])):
            found.setdefault(fold(m.group(1)), m.group(1))
    return sorted(found.values())[:20] + ["ingeniería", "programación", "la carrera"]


def _example(rng: random.Random, question: str, topic: str, category: str, seen: set[str]) -> Example | None:
    style = rng.choice(("direct", "direct", "informal", "informal", "long", "statement", "student", "student"))
    # typed as students type (lower case, no accents, a greeting or a line about their semester), as the in-domain
    # student messages are: how a message is typed must not be a sign of the domain
    # a statement is made from the question, never from the bare topic: "Necesito información sobre ingeniería civil"
    # (a jobs topic) or "Les escribo por el tema de la inscripción" (an institution's procedure) is the office's business
    about = topic if style != "statement" else bare if (bare := question.rstrip()).endswith("?") else bare + "?"
    text = styles.student_like(rng, question) if style == "student" else styles.render(rng, style, question=question, topic=about, area="ingeniería")
    if category in ("writing", "coding", "homework", "word_problem", "services") and style == "statement":
        text = question  # a request is not turned into "Quisiera saber si ..."
    key = fold(text)
    if key in seen or len(text) < 8:
        return None
    seen.add(key)
    return Example(text=text, label=0, style=style, source="near-miss", topic=f"{category}:{topic[:60]}")


def near_miss_questions(chunks: Sequence[Chunk], *, per_category: int = 120, seed: int = 41) -> list[Example]:
    """Out-of-domain questions in the office's own words, `per_category` of each category."""
    rng = random.Random(seed)
    seen: set[str] = set()
    own = institution_names(chunks)
    others = other_institutions(own)
    procs = procedures(chunks) or ["la inscripción", "el examen final", "las becas"]
    courses = course_names(chunks)
    fields = fields_of(chunks)
    makers = {
        "other_institution": lambda: _institution(rng, procs, others),
        "homework": lambda: _homework(rng, courses),
        "word_problem": lambda: _word_problem(rng, courses),
        "writing": lambda: _request(rng, "writing", procs, courses),
        "coding": lambda: _request(rng, "coding", procs, courses),
        "opinion": lambda: _opinion(rng, fields),
        "jobs": lambda: _jobs(rng, fields),
        "services": lambda: _services(rng, own),
    }
    out: list[Example] = []
    for category, make in makers.items():
        got = 0
        for _ in range(per_category * 4):
            if got >= per_category:
                break
            question, topic = make()
            ex = _example(rng, question, topic, category, seen)
            if ex is not None:
                out.append(ex)
                got += 1
    return out


# A calculation told in prose: a thing with quantities and units, and the quantity asked. Composed from parts, so the
# figures, units and objects vary; a grade or a fee has figures but no units.
SCENES = (
    ("un carro viaja a {a} km/h durante {b} horas", "qué distancia recorre"), ("un tanque de {a} litros se llena a {b} litros por minuto", "en cuánto tiempo se llena"),
    ("una viga de {b} m soporta una carga de {a} kg en el centro", "cuál es el momento máximo"), ("un bloque de {b} kg baja por un plano inclinado de {c} grados", "cuál es su aceleración"),
    ("una resistencia de {a} ohms está conectada a {b} V", "cuánta corriente pasa"), ("un terreno mide {a} por {b} metros", "cuántos metros cuadrados tiene"),
    ("disuelvo {b} gramos de sal en {a} ml de agua", "cuál es la concentración"), ("un motor de {a} W funciona {b} horas al día", "cuánta energía gasta al mes"),
    ("una pelota se lanza hacia arriba a {b} m/s", "hasta qué altura llega"), ("un tren sale a {b} km/h y otro a {c} km/h desde {a} km de distancia", "a qué hora se cruzan"),
    ("una bomba sube agua {b} m con un caudal de {c} litros por segundo", "qué potencia necesita"), ("un cable de {a} m de cobre tiene {c} mm de diámetro", "cuál es su resistencia"),
    ("un cilindro tiene {b} cm de radio y {a} cm de altura", "cuál es su volumen"), ("un resorte se estira {c} cm con {b} N", "cuál es la constante"),
    ("una losa de {b} m por {c} m lleva {a} kg por metro cuadrado", "cuánto pesa en total"), ("un gas a {c} atm ocupa {b} litros", "qué volumen ocupa a {d} atm"),
    ("dos capacitores de {b} y {c} microfaradios están en serie", "cuánto da la capacitancia total"), ("un ciclista recorre {a} metros en {b} segundos", "cuál es su velocidad"),
    ("una rueda gira a {a} rpm", "cuántas vueltas da en {b} minutos"), ("un préstamo de {a} quetzales al {c} por ciento anual", "cuánto pago de interés en {d} años"),
)
PROBLEM_FRAMES = (
    "si {s}, ¿{q}?", "{s}, ¿{q}?", "tengo este problema: {s}. ¿{q}?", "ayuda porfa: {s}, {q}", "¿{q} si {s}?", "{s}... {q}? es para {c}",
    "me dejaron esto en {c}: {s}, {q}", "alguien sabe {q}? {s}", "{s}. ¿{q}? no me sale", "necesito saber {q} si {s}",
)


def _word_problem(rng: random.Random, courses: list[str]) -> tuple[str, str]:
    scene, question = rng.choice(SCENES)
    nums = {"a": rng.choice((rng.randint(100, 5000), rng.randint(10, 99) * 10)), "b": rng.randint(2, 60), "c": rng.randint(2, 45), "d": rng.randint(2, 9)}
    course = rng.choice(spoken_course_names(rng.choice(courses)) or courses)
    return rng.choice(PROBLEM_FRAMES).format(s=scene.format(**nums), q=question.format(**nums), c=course), "problema con cantidades"


def _institution(rng: random.Random, procs: list[str], others: list[str]) -> tuple[str, str]:
    if rng.random() < 0.45:  # a university named any way students name one, bundled or made up
        universities = [n for n in others if n.startswith("Universidad")] or ["Universidad del Istmo"]
        name = rng.choice(universities) if rng.random() < 0.5 else made_up_universities(rng, 1)[0]
        i, t = institution_forms(rng, name), rng.choice(procs)
        text = rng.choice(UNIVERSITY_FRAMES).format(i=i, I=i[:1].upper() + i[1:], t=t)
        return text, name
    t, inst = rng.choice(procs), rng.choice(others)
    inst_ref = inst if inst[:1].islower() or inst.isupper() else (f"la {inst}" if inst.split()[0] in ("Facultad", "Universidad", "Escuela", "Pontificia") else f"el {inst}")
    q = styles.bare(rng.choice(styles.TOPIC_QUESTIONS).format(t=t))
    return rng.choice(INSTITUTION_FRAMES).format(q=q, t=t, i=inst_ref).replace("¿¿", "¿"), inst


def _homework(rng: random.Random, courses: list[str]) -> tuple[str, str]:
    course = rng.choice(spoken_course_names(rng.choice(courses)) or courses)
    if rng.random() < 0.3:
        nums = {"n": rng.choice((rng.randint(100, 9999), rng.randint(10, 99) * 100)), "m": rng.randint(12, 480), "k": rng.randint(3, 60), "p": rng.choice((5, 10, 12, 15, 20, 25, 30, 35, 40)), "d": rng.randint(2, 9)}
        problem = rng.choice(ARITHMETIC).format(**nums)
        return (problem if rng.random() < 0.7 else rng.choice(HOMEWORK_FRAMES).format(c=course, p=problem)), "aritmética"
    if rng.random() < 0.35:
        return rng.choice(HOMEWORK_PLAIN).format(c=course), course
    problem = rng.choice(PROBLEMS).format(n=rng.randint(2, 40))
    return rng.choice(HOMEWORK_FRAMES).format(c=course, p=problem), course


def _request(rng: random.Random, kind: str, procs: list[str], courses: list[str]) -> tuple[str, str]:
    template = rng.choice([tpl for tpl, k in WRITING if k == kind])
    subject = rng.choice(courses) if rng.random() < 0.6 else rng.choice(procs)
    return template.format(s=subject), subject


def _opinion(rng: random.Random, fields: list[str]) -> tuple[str, str]:
    f, g = rng.sample(fields, 2) if len(fields) > 1 else (fields[0], "medicina")
    return rng.choice(OPINION).format(f=f, g=g), f


def _jobs(rng: random.Random, fields: list[str]) -> tuple[str, str]:
    f = rng.choice(fields)
    return rng.choice(JOBS).format(f=f), f


def _services(rng: random.Random, own: list[str]) -> tuple[str, str]:
    q, topic = rng.choice(SERVICES)
    q = q.format(i=rng.choice(own) if own else "la universidad")
    text = rng.choice(SERVICE_FRAMES).format(q=q[:1].lower() + q[1:] if not q.startswith("{") else q)
    return text[:1].upper() + text[1:] if text.startswith("¿") else text, topic
