"""Intent features: whose business a message is (this office's, another institution's) and what it asks for.

Beside topic similarity the gate looks at: does the message name another institution (an entity check against the
names the office's documents use), is its subject a course's content rather than its administration, and is it a
request to produce something ("hazme", "redactá", "resolvé") rather than a question. Each feature has a name and a
Spanish description so a decision can be explained.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from classifiers.outside import office_hours, outside_service, people_of_other_fields, profession_pay, programme_without_pay, someone_elses_school
from pipeline.text import fold

# (name, description shown to reviewers)
FEATURES: tuple[tuple[str, str], ...] = (
    ("other_institution", "nombra otra institución"),
    ("own_institution", "nombra a la propia institución"),
    ("course_content", "pregunta por el contenido de un curso"),
    ("content_cues", "palabras de ejercicio o de materia"),
    ("admin_cues", "palabras de trámite, requisito, fecha o regla"),
    ("request", "pide producir algo (hazme, redactá, resolvé)"),
    ("coding", "pide código o programación"),
    ("opinion", "pide una opinión o conversación"),
    ("jobs", "pregunta por trabajo o salario (2: busca empleo, un CV, un sueldo; 1: su propio trabajo)"),
    ("campus", "lugar, servicio u horario del campus"),
    ("personal", "habla de su propio caso (mi, puedo, tengo, me piden)"),
    ("encyclopedic", "pregunta de enciclopedia (quién fundó, en qué año, qué tipo de)"),
    ("problem", "cuenta un problema con algo de la oficina (perdí el carné, el link de pago no abre)"),
    ("named_institution", "nombra una institución por su nombre o su sigla (la Mariano, la UVG)"),
    ("transfer_in", "viene de otra institución a un trámite de aquí (equivalencias, traslado)"),
    ("computes", "pide un cálculo con cantidades (metros, litros, por ciento)"),
    ("provider", "busca un proveedor de fuera (qué clínica, qué taller, algo barato) o el servicio propio de otra entidad (un banco, el DPI)"),
    ("errand", "pide un trámite de su propio registro (constancia, carné, sección, recibo, cita, reingreso)"),
)
NAMES = tuple(n for n, _ in FEATURES)

_INSTITUTION = re.compile(r"\b(facultad|universidad|escuela|colegio|instituto|academia|ministerio|camara)\s+(?:de|del)\s+((?:(?:la|las|los|el)\s+)?[a-z0-9ñ]+(?:\s+(?:y\s+)?[a-z0-9ñ]+){0,2})")
_CLAUSE_WORDS = frozenset({"que", "como", "donde", "cuando", "si", "quien", "cual"})
_BODIES = {"colegio", "ministerio", "camara", "academia"}  # professional and public bodies: never the office's business
_STOP = {"de", "del", "la", "las", "los", "el", "en", "y", "mi", "su", "tu", "esta", "este", "que", "para", "a", "o", "no", "si"}
_FIELD_CONTEXT = r"(?:carrera|facultad|escuela|licenciatura|pensum|admision|estudiantes?|estudiar|estudio|ingreso|inscripcion)\s+(?:de\s+|en\s+|a\s+|para\s+)?"
# Who belongs to a field: "los de odontología", "la gente de veterinaria", "mi prima estudia farmacia", "entrar a medicina".
_BELONGING = r"(?:(?:los|las|la\s+gente|compas?|companer[oa]s|alumn[oa]s|egresad[oa]s)\s+de\s+|estudi(?:a|an|as|o|ar|ando)\s+|entrar\s+a\s+)"
RARE_ZIPF = 4.0  # a field word rarer than this in everyday Spanish (Zipf) names the field even alone ("zootecnia"); "derecho" does not
_OWN_FIELD = re.compile(r"\b(?:ingenieria|carrera de|licenciatura en)\s+(?:en\s+)?([a-z]+(?:\s+y\s+[a-z]+)?)")
_CONTENT = re.compile(
    r"\b(resuelv\w*|resolv\w*|resolucion|ejercicio\w*|problema de|formula\w*|calcul[ao]\w*|calcular\w*|derivad\w*|integra[lr]\w*|ecuacion\w*|teorema\w*|ley de|"
    r"explica\w*|no entiendo|no le entiendo|demostra\w*|despeja\w*|grafica\w*|matriz|vector\w*|aceleracion|velocidad|fuerza|circuito|voltaje|"
    r"corriente|resistencia de|momento de|limite|funcion|algoritmo|tarea|deber|diagrama|balancea\w*|reaccion\w*|molecula\w*|probabilidad|"
    r"dividido|multiplicado|elevado a|raiz cuadrada|al cuadrado|al cubo|porcentaje|promedio de \d|convierte|convertir|equivalen?)\b"
    r"|\d+\s*(?:kg|kn|n|m/s|cm|mm|v|ohm\w*|grados|°)\b|[=^]|\bx\s*[-+*/]"
    r"|\d+(?:[.,]\d+)?\s*(?:%|por\s*ciento)\s+(?:de|del)\s+\d|\bcuanto (?:es|da|son) (?:el |la )?\d|\d+\s*(?:[-+*/x]|por|entre|menos|mas)\s*\d+\s*(?:$|[?=])"
)
_ADMIN = re.compile(
    r"\b(requisito\w*|prerrequisito\w*|inscri\w*|asign\w*|credito\w*|nota\w*|zona|aprob\w*|reprob\w*|retrasada\w*|fecha\w*|plazo\w*|tramit\w*|"
    r"constancia\w*|solvencia\w*|pag[oa]\w*|cuota\w*|cierre|pensum|carnet|carne|matricula\w*|reglamento\w*|normativo\w*|permiso\w*|horario\w*|"
    r"beca\w*|titulo|graduacion|graduarme|examen\w*|parcial\w*|curso\w*|semestre\w*|practicas?|eps|equivalencia\w*|revalida\w*|certificado\w*|"
    r"portal|usuario|contrasena|correo|constancia|obligatori\w*|repetir|desist\w*|baja|cupo\w*|convocatoria\w*|boleta\w*|recibo\w*|link|enlace|"
    r"no (?:me )?(?:abre|carga|deja|aparece\w*|llega)|bloque\w*|reposicion|extravi\w*)\b"
)
_AGO = r"(?!\s+(?:\d+|un|una|unos|unas|dos|tres|cuatro|cinco|varios|varias|algunos|algunas|mucho|poco)?\s*(?:a[nñ]os?|mes|meses|semanas?|dias?|horas?|rato|tiempo|semestres?)\b)"  # "hace 3 años": a time ago
_REQUEST = re.compile(
    r"(?:^|[,.!¡]\s*|\b(?:porfa|por favor|podrias|podes|puedes|me puedes|me podes)\s+)(haz\w*|hace(?:me|nos)?\b" + _AGO + r"|hac[eé]\w*(?<!hace)(?<!hacé)|redact\w*|escrib[ie]\w*|resuelv\w*|resolv[eé]\w*|traduc\w*|"
    r"resum\w*|corrig\w*|correg\w*|genera\w*|crea(?:me)?|dame|arma(?:me)?|program\w*|dise[nñ]a\w*|elabora\w*|pasame|completa\w*)\b"
)
# "código" is code unless it is one of the office's codes: a course's, a payment's, a verification code sent by mail.
_CODING = re.compile(r"\b(python|java|javascript|c\+\+|sql|html|css|php|django|react|arduino|codigo(?!\s+(?:del?|para)\s+(?:(?:la|el|mi)\s+)?(?:curso|verificacion|pago|estudiante|carrera|asignatura|seguridad|acceso|confirmacion|boleta|orden|registro|carne|seccion))|script|programa que|compila\w*|puntero\w*|bug|excepcion|nullpointer\w*|segmentation|api|crud|github|lenguaje c)\b")
_OPINION = re.compile(r"\b(opin\w*|crees|creés|piensas|pensas|que es mejor|cual es mejor|vale la pena|recomiendas|recomendas|recomiendan|te gusta\w*|como estas|admiras|tu favorit\w*|ideas? (?:de|para) (?:temas?|tesis|proyecto)|mas futuro|va a desaparecer)\b")
# A job search or a job's pay (a CV, a salary, who hires, vacancies): someone else's business whatever else is said. A place
# for the office's own supervised practice ("busco plaza para el EPS") is not one.
_NOT_PRACTICE = r"(?!\s+(?:para|de|en)\s+(?:(?:el|la|las|los|mi|mis)\s+)?(?:eps|practica\w*|ehps)\b)"
_JOB_SEARCH = re.compile(
    r"\b(salario\w*|salarial|sueldo\w*|cv|curriculum|hoja de vida|empleo\w*|trabajo de(?! graduacion)|busco trabajo|"
    rf"(?:hay|busco|buscan|necesitan|conocen|saben de|sabe de|consigo|conseguir|encontrar|ofrecen|ofertas? de)\s+(?:un\s+|una\s+|algun\s+|alguna\s+)?(?:trabajo|empleo|chamba|plazas?|puesto|vacantes?|pasantias?){_NOT_PRACTICE}|"
    r"(?:cuanto|cuantos)\s+(?:les?\s+)?(?:gana|ganan|cobra|cobran|pagan|paga)\s+(?:un|una|los|las|a\s+los|a\s+las|al)\s|"  # a person's pay; "me cobraron", "ganar el curso" are not
    r"(?:puesto|plaza|vacante)\s+(?:en|de)\s+(?:una|un|alguna|algun)\s+(?:empresa|compania|fabrica|constructora|banco|ingenio|maquila)|(?:les|le)\s+pagan\s+(?:mas|menos|bien|mal)|"  # a position in a company; a profession's pay
    rf"contrat(?:a|an|ando|en|e)|entrevista\w*|oferta\w* laboral\w*|salida laboral|chamba\w*|vacante\w*|plaza de{_NOT_PRACTICE}|plazas (?:de|para|en){_NOT_PRACTICE}|freelance|linkedin|pretension salarial)\b"
)
# The student's own work life (a boss, overtime, part-time hours): beside a question for the office it is context ("mi jefe
# no me deja salir para el examen"), so it only raises the bar.
_WORK_LIFE = re.compile(r"\b(trabajar (?:en|como|de)|aguinaldo|despid\w*|despedir\w*|mi jefe|horas extra|medio tiempo)\b")
_CAMPUS = re.compile(r"\b(salon|aula|edificio|cafeteria|cantina|comedor|biblioteca|parqueo|estacionamiento|lockers?|casilleros?|wifi|impri\w*|fotocopi\w*|bano\w*|enfermeria|clinica|gimnasio|a que hora (?:abre|cierra|atiende)\w*|horario de atencion|objetos perdidos|telefono|ascensor|rampa|cajero|ventanilla|permiso\w*)\b")

# A student asks about their own case, in the first person or addressing the office; a quiz question asks about the world.
_PERSONAL = re.compile(r"\b(me|mi|mis|yo|puedo|tengo|necesito|quiero|debo|hago|saco|estoy|soy|voy|pierdo|llevo|paso|pago|perdi|gane|aprobe|repeti|llevar|asignarme|inscribirme|graduarme|ustedes|pueden|podrian|porfa|hola|buenas)\b")
_ENCYCLOPEDIC = re.compile(
    r"\b(1[5-9]\d\d|20[0-2]\d|en que (?:ano|siglo|decada)|quien (?:fue|fundo|desarrollo|escribio|invento|descubrio|creo|propuso|dirigio)|que tipo de|que nombre|"
    r"cual fue|que fue|que ha hecho|que pretende|que entidad|que proceso|que rama|que metodo|que sistema|historia|antiguo|antigua|siglo)\b"
)

# A student reporting a problem with one of the office's own things: something lost, broken, refused or wrong (a verb of
# trouble) about a card, a receipt, the portal, a record (a thing of the office). The documents rarely describe such
# troubles, so the message looks little like them; this cue says whose business it is. Trouble with anything else (a
# phone, a national ID, code that does not compile) does not fire it.
_TROUBLE = re.compile(
    r"\b(perd\w*|se me (?:perdio|cayo|dano|vencio|bloqueo|olvido)|extravi\w*|robaron|vencid[oa]|no (?:me )?(?:abre|carga|deja|aparece\w*|aparezco|figuro|llega|funciona|sale|salgo|reconoce|acepta)|"
    r"(?:me )?(?:sale|da|aparece) (?:un )?error|error \d+|caid[oa]|bloque\w*|olvide|cobraron|cobro doble|dos veces|mal escrit\w*|equivocad[oa]|no puedo (?:entrar|ingresar|pagar|asignar\w*|inscrib\w*|descargar|ver|imprimir|generar)|"
    r"pagina en blanco|se queda cargando|no (?:me )?han (?:dado|respondido|devuelto))\b"
)
_OFFICE_THING = re.compile(
    r"\b(carne|carnet|boleta\w*|orden de pago|recibo\w*|portal|usuario|contrasena|pin|constancia\w*|certificado\w*|solvencia\w*|cierre|nota\w*|asignacion\w*|"
    r"inscripcion\w*|inscrit[oa]|pago\w*|link|enlace|sistema|plataforma|correo institucional|titulo|matricula|equivalencia\w*|expediente|curso\w* que (?:si )?aprobe|"
    r"listado\w*|lista de (?:clase|asignados|alumnos|notas|estudiantes))\b"
)

# An institution named by its name rather than described ("la Facultad de ..."): after an article or "universidad", a word
# the documents never use that reads as a name. An acronym ("la UVG", "en la ufm"), a capitalised word mid-sentence ("la
# Galileo"), "la del ..." / "la de ..." with the noun left out ("la del Valle"), or the feminine article before a word
# that cannot be a feminine noun ("la mariano", "la landivar": "la [universidad] Mariano Gálvez"). A name list would miss
# the next university; the pattern does not.
_NAME_SLOT = re.compile(r"\b(?=(?:(la|el)\s+(?:(del?)\s+)?|(universidad|u)\s+)([^\W\d_]+))")  # a lookahead: "la u galileo" holds two slots
_NOT_FEMININE = re.compile(r"(?:[^i]o|[lr]|(?<!io)n)$")  # endings a feminine common noun seldom has ("-o", "-l", "-r", "-n" but not "-ión")
_FEMININE_ANYWAY = frozenset({
    "mano", "foto", "moto", "radio", "mujer", "flor", "piel", "sal", "senal", "carcel", "miel", "imagen", "razon", "orden", "labor",
    "final", "credencial", "capital", "postal", "catedral", "moral", "virgen", "margen", "sarten", "tesis", "crisis", "dosis", "sintesis",
})
_OWN_INSTITUTION = re.compile(r"\b(?:la|esta|mi) (?:facultad|facu|universidad|escuela)\b(?! de)")
_URL_LIKE = re.compile(r"\s+(?:de|del)\s+[a-z]")  # "la URL del portal": a web address, not a university
# How students shorten the kind of an institution: "el Tec de Monterrey", "la uni", "el poli" name an institution as a
# university's own name does, whatever follows.
_SHORT_INSTITUTION = frozenset({"tec", "uni", "poli", "insti", "tecnologico", "politecnico"})
# Where a lower-case name can stand: after a preposition ("en la mariano", "de la landivar"), not where "la" is a pronoun
# before a verb ("¿dónde la saco?", "creo que la sumaron mal", "¿la pido en ventanilla?").
_NAME_PLACE = re.compile(r"\b(?:en|de|a|para|por|con|desde|sobre|entre|hacia)\s+$")
_FUNCTION = frozenset({"que", "cual", "cuales", "mas", "misma", "mismo", "otra", "otro", "primera", "segunda", "ultima", "siguiente", "anterior", "mia", "tuya", "suya", "unica"})

# A student coming from another institution to one of this office's procedures (equivalencias, traslado, reconocimiento
# of courses): naming the origin is no sign of someone else's business. The direction decides: "me quiero pasar a la
# Landívar" asks about the other institution.
_TRANSFER_WORD = re.compile(r"\b(?:equivalenc\w*|convalid\w*|revalid\w*|recono[cz]\w*|acredit\w*|traslad\w*|dan por aprobad\w*|tomen en cuenta (?:los|mis) cursos)\b")
_ORIGIN = re.compile(
    r"\b(?:vengo|vine|venia|viene|vienen)\s+d(?:e|el)?\b|\b(?:estudi(?:e|aba|o|a|an)|llev(?:e|o)|curs(?:e|o|a)|aprob(?:e|o)|gane|cursos (?:aprobados|ganados))\s+(?:\w+\s+){0,4}?en\b"
    r"|\b(?:graduad[oa]|egresad[oa]|titulad[oa]|gradue)\s+(?:\w+\s+){0,2}?(?:de|en)\b|\bsoy\s+(?:de|del)\b|\b(?:pas|traslad|cambi)\w*\s+(?:d|de|desde)\b"
)
_MOTION = re.compile(
    r"\b(?:pas(?:ar|o|e|a)|traslad\w*|cambi(?:ar|o|e|a)|entr(?:ar|o|e)|ingres(?:ar|o|e)|inscrib\w*|venir)(?:me|se|nos|te)?\s+"
    r"(?:(?:de|desde)\s+(?:(?:la|el)\s+)?\w+(?:\s+\w+)?\s+)?(?:a|para)\s+(?:(?:la|el|esta)\s+)?([a-z]+)"
)
# An institution a document of the office goes to ("una constancia de inscripción para el IGSS", "la carta de cursos
# aprobados para la embajada"): the office is asked to issue it for the student, so naming the recipient is no sign of
# someone else's business. From "para" to the end of its clause.
_OFFICE_PAPER = r"(?:constancia|certificacion|certificado|carta|papel|documento|solvencia|cierre|record|historial|comprobante|copia|fotocopia)s?"
# Also where it is to be handed in ("para presentarla en la UVG", "entregarla al IGSS"): a place the student delivers it.
_RECIPIENT = re.compile(
    rf"\b{_OFFICE_PAPER}\b"
    r"[^.?!;]{0,60}?\b(?:(para)\s+(?:el|la|los|las|un|una|mi|su)\s+|((?:para\s+)?(?:presentar|entregar|llevar|mandar|enviar|meter)\w*)\s+(?:(?:en|a)\s+(?:el|la|los|las|un|una|mi|su)\s+|al\s+))[^.?!;,]*"
)
# What makes a paper the office's: it is of the faculty or of the student's studies, or says something of the student.
_OF_THE_OFFICE = r"(?:de\s+(?:la\s+)?(?:facultad|facu|u|universidad|usac|escuela|carrera)\b|de\s+(?:estudios?|inscripcion|cursos|notas|alumno|estudiante|pensum|cierre)\b|que\s+(?:diga|conste|demuestre|soy|estoy))"
# An outside body that asks the student for the office's paper ("la municipalidad me pide una carta de la facultad", "en
# la embajada me piden una constancia"): the body is who the paper goes to, so it is no sign of someone else's business.
_ASKED_BY = re.compile(
    r"(?:^|[.?!;,¿]\s*|\b(?:en|de|y)\s+)((?:el|la|los|las)\s+[^.?!;,]{1,40}?)\s+(?:me|nos|le|les)\s+(?:(?:la|lo|las|los)\s+)?"
    rf"(?:pide\w*|piden|pidio|pidieron|exig\w*|solicit\w*|requier\w*|requiri\w*)\s+(?:\w+\s+){{0,3}}?{_OFFICE_PAPER}\s+{_OF_THE_OFFICE}"
)
# A noun left out after "la del" / "la de" that the message named before ("la sección del sábado ... a la del lunes") or
# a time that only a section, a schedule or a session has ("la del lunes", "la de la tarde"): no institution's name.
_TIME_WORD = re.compile(r"(?:lunes|martes|miercoles|jueves|viernes|sabados?|domingos?|manana|tarde|noche|matutin\w*|vespertin\w*|nocturn\w*|fin|semana|mediodia|\d+)$")
_ANTECEDENT = re.compile(r"\b(?:la|una|esta|otra|mi)\s+([a-z]+)\s+(?:de|del)\s")
# Where the student comes from is this university itself ("vengo de la usac"), not a faculty or career named after it.
_ORIGIN_HERE = re.compile(r"\s*(?:(?:la|el|esta)\s+)?(?:usac|san carlos|aca|aqui)\b")
_HERE = re.compile(r"\b(?:aca|aqui|esta facultad|con ustedes)\b")
# Decision-time transfer cues (rules=True only): an origin said with "del" ("egresado del INTECAP"), and this faculty as
# where the student goes ("seguir ingeniería en la USAC", "estudiar ingeniería como segunda carrera", "me pasan a
# ingeniería"). Not "en ingeniería", which is where the student may have studied elsewhere.
_ORIGIN_DEL = re.compile(r"\b(?:graduad[oa]|egresad[oa]|titulad[oa])\s+(?:\w+\s+){0,2}?del\b")
_TO_THIS_FACULTY = re.compile(
    r"\b(?:seguir|continuar|estudiar|terminar|empezar|iniciar|a|para)\s+(?:(?:la\s+)?carrera\s+de\s+)?ingenieria\b"
    r"|\b(?:seguir|continuar|estudiar|terminar)\s+(?:\w+\s+){0,3}?en\s+(?:la\s+)?(?:usac|san\s+carlos|esta\s+facultad)\b"
)
_OWN_PLACES = frozenset({"facultad", "facu", "u", "universidad", "aca", "aqui"})

# A calculation asked for: quantities with units, arithmetic, a percentage of a figure. A grade or a fee has a figure but
# no unit ("tengo 42 de zona", "pagué 150"), so it does not fire.
_UNIT = (
    r"(?:m|cm|mm|km|metros?|centimetros?|milimetros?|kilometros?|kg|kilos?|gramos?|gr|mg|lb|libras?|toneladas?|litros?|ml|galones?|km/h|kph|m/s2?|"
    r"n|kn|newtons?|j|joules?|w|watts?|kw|kwh|v|voltios?|volts?|amperios?|amperes?|ohm\w*|grados?|°c?|pies|pulgadas?|segundos?|seg|minutos?|mol\w*|"
    r"hz|pa|kpa|psi|faradios?|microfaradios?|uf|mah|bytes?|kb|mb|gb|m2|m3|cm2|cm3|rpm|atm|calorias?)"
)
_QUANTITY = re.compile(rf"\b\d+(?:[.,]\d+)?\s*{_UNIT}(?![\w/])")
_ARITHMETIC = re.compile(r"\d\s*[-+*/^=]\s*[\d(x]|\bx\s*[-+*/^=]|\b\d+\s+(?:por|entre|menos|mas|dividido|elevado)\s+(?:a\s+(?:la\s+)?)?\d|\b(?:derivad|integral|raiz)\w*\s+de\s+\S*\d")
# Decision-time calculation cues (rules=True only): a percentage taken off a figure ("cuánto es 3500 menos el 15 por
# ciento"), an average or a sum of a list of figures asked for ("sacar el promedio de 61, 74, 88 y 93").
_COMPUTE_SPOKEN = re.compile(
    r"\b\d+(?:[.,]\d+)?\s+(?:menos|mas)\s+(?:el\s+)?\d+(?:[.,]\d+)?\s*(?:%|por\s*ciento)"
    r"|\b(?:sac\w*|calcul\w*|cuanto\s+(?:es|da))\s+(?:el|la)\s+(?:promedio|media|suma|total)\s+de\s+\d+(?:[.,]\d+)?(?:\s*,\s*\d+(?:[.,]\d+)?)+\s+y\s+\d+"
)
_PERCENT_OF = re.compile(r"\d+(?:[.,]\d+)?\s*(?:%|por\s*ciento)\s+(?:de|del)\s+(?:\w+\s+){0,2}?\d|\b\d+(?:[.,]\d+)?\s*(?:%|por\s*ciento)\s+de\s+(?:descuento|interes|aumento|impuesto|ganancia)")

# A student choosing an outside provider for a personal need: which clinic, workshop or shop, or the cheap one. The office
# provides its own services and recommends no business; asked about on campus ("¿hay enfermería en la facultad?") a
# service is a campus question and does not fire this. A bank is left out: the office's fees are paid at one. Nor does it
# lend money: "¿me prestan 300?" asks a favour of a person, not the office (a student short of money for a fee, said so,
# is left to the classifier and may reach a person).
_PROVIDER = re.compile(
    r"\b(?:(?:mas\s+)?barat(?:o|a|os|as|isim\w*)|"
    r"(?:que|cual|cuales|en\s+que|a\s+que|algun|alguna)\s+(?:clinica|hospital|sanatorio|taller|tienda|farmacia|restaurante|hotel|hospedaje|"
    r"abogado|dentista|doctor|medico|psicologo|notario|aseguradora|cooperativa|agencia|compania|ferreteria|mecanico|optica|veterinaria)s?|"
    r"(?:me|nos)\s+(?:(?:pueden|puede|podrian|podria|podes|puedes)\s+)?prest(?:an|a|as|ar|en)\s+(?:unos\s+)?(?:\d+|pisto|plata|lana|varo))\b"
)

# A student's own administrative errand with the office: the student (first person, or the office addressed) asks for,
# needs or reports a change to a thing of their own record at this faculty: a certificate or letter about their studies,
# their card, a receipt or payment slip, a form, their section or schedule, their record, an appointment about their
# case, readmission, dropping or changing a course. The documents seldom describe such errands, so the message looks
# little like them; this cue says it is the office's business. The thing must be the student's record, not another
# body's paper: "una constancia de antecedentes penales", "el recibo de la luz" do not fire it (what the thing is "of"
# must itself be academic business), nor does a thing without an ask ("el carné sirve para la biblioteca?").
_ERRAND_ASK = re.compile(
    r"\b(?:necesit\w*|ocup\w*|quier\w*|quisiera|solicit\w*|pid[oae]\w*|ped[ií]\w*|tramit\w*|sac(?:o|ar|arme|arla|arlo)|obten\w*|agend\w*|me urge|"
    r"me (?:(?:pueden|puede|podrian|podria|podes|puedes|puedo|podre)\s+)?(?:dar|den|dan|extiend\w*|extender|emit\w*|repon\w*|regres\w*|devuelv\w*|devolver|cambi\w*|pas(?:an|en|ar)|muev(?:an|en)|mover|"
    r"mand(?:an|en|ar)|envi(?:an|en|ar)|corrij\w*|correg\w*|actualiz\w*|gener\w*|hac(?:er|en)\s+(?:el|la|un|una)\s+(?:cambio|correccion|duplicado|reposicion)|ayud\w*\s+con)|"
    r"a quien (?:le )?(?:pido|solicito|acudo|busco|pregunto|entrego)|con quien (?:hablo|veo|tramito)|donde (?:pido|saco|solicito|tramito|entrego|recojo|lleno)|"
    r"(?:donde|a quien|como|cuando|con quien) se (?:recoge|entrega|pide|solicita|tramita|saca|llena|presenta)|"
    r"(?:cambi|pas|mov)arme|me cambio|desasign\w*|retirarme|darme de baja|reingres\w*|reincorpor\w*|reposicion|duplicado|reponer|corregir|corrijan|actualizar|"
    r"me (?:cerraron|cambiaron|pasaron|quitaron|movieron|borraron|anularon|dieron de baja|sacaron)|se me (?:borro|mojo|rompio|perdio|dano|arruino|vencio)|"
    r"perd[ií](?:do|da|mos)?|extravi\w*)\b"
)
# An errand asked of the office without a person ("¿dónde se recoge el formulario...?"): the office is addressed.
_IMPERSONAL_ASK = re.compile(r"\b(?:donde|a quien|como|cuando|con quien) se (?:recoge|entrega|pide|solicita|tramita|saca|llena|presenta)\b")
_ERRAND_THING = re.compile(
    r"\b(constancias?|certificacion\w*|certificados?|carne|carnet|boletas?|recibos?|comprobantes?|orden de pago|formularios?|solicitud|"
    r"seccion\w*|horarios?|jornada|expediente|historial|record|ficha|reingreso|asignacion\w*|desasignacion|inscripcion|cierre|solvencia|orden de impresion|"
    r"papel(?= (?:que|donde) (?:diga|conste|demuestre))|"
    r"notas?|titulo|(?:mis|sus) datos|datos personales|nombre|apellidos?|correo registrado|cursos?|laboratorios?|salon|carta|(cita|reunion))\b"
)
# Errands that name their own object: leaving or re-entering a course or the faculty.
# Or a talk with one of the office's people about the student's case ("necesito hablar con alguien de la secretaría académica").
_ERRAND_SELF = re.compile(
    r"\b(?:desasign\w*|reingres\w*|reincorpor\w*|darme de baja|cambiarme de (?:seccion|horario|jornada|salon)|"
    r"(?:hablar|reunirme|platicar|verme|entrevistarme)\s+con\s+(?:alguien|una persona|el|la)\s+(?:de\s+(?:la\s+|el\s+)?)?"
    r"(?:secretari\w*|coordinador\w*|coordinacion|director\w*|direccion|control academico|orientador\w*|orientacion|decan\w*))\b"
)
# What a thing is "of", "for" or "with" when it says so: academic business, or a person of the faculty, keeps it the
# student's record; an appointment is the office's only when it says with whom or about what.
_ERRAND_OF = re.compile(r"\s+(?:de|del|para|con)\s+(?:(?:la|el|los|las|mi|mis|un|una)\s+)?(\w+)((?:\s+\w+){0,2})")
_ERRAND_OF_OK = re.compile(
    r"(?:estudi\w*|estudiante|alumn\w*|vacaciones|ingenieria|facultad|facu|carrera|semestre\w*|u|usac|universidad|beca\w*|sello|"
    r"coordinador\w*|director\w*|secretari\w*|catedratic\w*|profesor\w*|inge|ingeniero|orientador\w*|control|revisar|ver|"
    r"academic\w*|cursos|aprobad\w*|"  # a letter about the student's studies ("carta de buena conducta académica")
    r"ma[nñ]ana|tarde|noche|matutin\w*|vespertin\w*|nocturn\w*|lunes|martes|miercoles|jueves|viernes|sabados?|domingos?|fin)$"  # a section or schedule by its time
)
# The student's own card or paper damaged or lost, told with the thing first ("mi carné se rompió").
_ERRAND_DAMAGED = re.compile(r"\b(?:mi|el|la) (?:carne|carnet|constancia|boleta|recibo|titulo|solvencia|certificado|certificacion)\s+(?:\w+\s+){0,2}?se (?:me )?(?:rompio|perdio|dano|mojo|borro|arruino|quemo|vencio)\b")
_FIRST_PERSON_ASK = re.compile(r"\b(?:quisiera|solicito|ocupo|pido|necesito|requiero)\b")
_ERRAND_GAP = 4  # words between the ask and its thing: "ocupo que me extiendan una constancia"; not "saco la media ponderada de estas notas"
_ERRAND_CLAUSE = re.compile(r"[^.?!;:,\n]+")


def _ERRAND_OF_ACADEMIC(word: str) -> bool:
    return bool(_ADMIN.search(word) or _ERRAND_OF_OK.match(word) or _ERRAND_THING.fullmatch(word) or _ERRAND_ASK.fullmatch(word))


def own_errand(folded: str) -> bool:
    """The student's own administrative errand with the office: in one clause, an ask (_ERRAND_ASK) followed by a thing of
    the student's record (_ERRAND_THING) that is not another body's, or an errand that names its own object (_ERRAND_SELF)."""
    if not (_PERSONAL.search(folded) or _FIRST_PERSON_ASK.search(folded) or _IMPERSONAL_ASK.search(folded)):
        return False
    for c in _ERRAND_CLAUSE.finditer(folded):
        clause = c.group(0)
        if _ERRAND_SELF.search(clause) or _ERRAND_DAMAGED.search(clause):
            return True
        for ask in _ERRAND_ASK.finditer(clause):
            for m in _ERRAND_THING.finditer(clause, ask.end()):  # the thing asked for follows the ask, a few words on
                if len(clause[ask.end() : m.start()].split()) > _ERRAND_GAP:
                    break
                of = _ERRAND_OF.match(clause, m.end())
                if of is None:
                    if not m.group(2):  # an appointment says with whom or about what
                        return True
                elif _ERRAND_OF_ACADEMIC(of.group(1)) or any(_ERRAND_OF_OK.match(w) for w in of.group(2).split()[:2] if w not in _STOP):
                    return True  # the first word says what the thing is of; an adjective after it may ("de buena conducta académica")
    return False


# Generic course names used when the documents list none (a small office may not publish its curriculum).
GENERIC_COURSES = ("Cálculo 1", "Física 1", "Química General", "Álgebra Lineal", "Programación 1", "Estadística", "Dibujo Técnico", "Economía")
INSTITUTIONS_PATH = Path(__file__).resolve().parent / "data" / "institutions.json"
_COURSE_LINE = re.compile(r"^\s*(?:nombre|curso|materia|asignatura)\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_NOT_A_COURSE = re.compile(r"practica|eps|seminario|social humanistica|tecnicas de estudio")


@lru_cache(maxsize=4096)
def _zipf(folded_word: str) -> float:
    """How common a folded word is in everyday Spanish (wordfreq's bundled list, offline); 0 for unknown words."""
    from pipeline.loaders.vocabulary import _dictionary

    return _dictionary().get(folded_word, 0.0)


@lru_cache(maxsize=1)
def bundled_institutions() -> dict[str, tuple[str, ...]]:
    """The bundled faculties, universities and professional bodies of Spanish-speaking countries."""
    data = json.loads(INSTITUTIONS_PATH.read_text(encoding="utf-8"))
    return {k: tuple(v) for k, v in data.items() if not k.startswith("_")}


@lru_cache(maxsize=1)
def bundled_nicknames() -> tuple[str, ...]:
    """How students name the country's private universities when they talk ("la marro", "la landi", "la mesoamericana"):
    domain knowledge for the entity check, kept apart from the names that make training examples."""
    data = json.loads(INSTITUTIONS_PATH.read_text(encoding="utf-8"))
    return tuple(data.get("_nicknames", ()))


def course_names_in(texts: Sequence[str]) -> list[str]:
    """Course names the documents list in their records ("nombre: Física Básica"), without practice/EPS items."""
    names: dict[str, str] = {}
    for text in texts:
        for m in _COURSE_LINE.finditer(text):
            name = m.group(1)
            if 3 < len(name) < 60 and not _NOT_A_COURSE.search(fold(name)):
                names.setdefault(fold(name), name)
    return sorted(names.values())


_COURSE_PREFIX = re.compile(r"^(?:[aá]rea|curso(?: de)?|laboratorio de)\s+", re.IGNORECASE)
_COURSE_NUMBER = re.compile(r"\s+(?:\d+|[ivx]+|[a-d])$", re.IGNORECASE)


def spoken_course_names(name: str) -> list[str]:
    """How students name a course: the listed name, without a leading "Área", without its trailing number
    ("Área Matemática Intermedia 1" -> "Matemática Intermedia 1", "Matemática Intermedia")."""
    plain = _COURSE_PREFIX.sub("", name.strip())
    base = _COURSE_NUMBER.sub("", plain)
    return list(dict.fromkeys(n for n in (name.strip(), plain, base) if len(n) >= 5))


# Where an institution's name ends: a clause or a new phrase begins ("en escuela de vacaciones que necesito pagar": the
# name is "vacaciones", not "vacaciones ... necesito").
_NAME_END = frozenset({"que", "como", "donde", "cuando", "si", "porque", "pero", "para", "me", "se", "no", "ya", "a", "o"})


def _tail(match: re.Match) -> list[str]:
    out = []
    for w in match.group(2).split():
        if w in _NAME_END and out:
            break
        if w not in _STOP:
            out.append(w)
    return out


def _field_words() -> list[str]:
    """Folded subject words of the bundled faculties and schools ("Facultad de Medicina" -> "medicina")."""
    words = []
    for name in bundled_institutions().get("faculties", ()):
        tail = [w for w in fold(name).split()[2:] if w not in _STOP and w != "ciencias"]
        words += tail[:1]
    return sorted(set(words))


def _study_fields() -> list[str]:
    """Every field of study the bundled faculties and schools are named after, folded, as words and as whole phrases
    ("Facultad de Ciencias Químicas y Farmacia" -> "quimicas", "farmacia"; "Escuela de Trabajo Social" -> "trabajo social")."""
    out: set[str] = set()
    for name in bundled_institutions().get("faculties", ()):
        tail = [w for w in fold(name).split()[2:] if w not in _STOP and w not in ("ciencias", "ciencia")]
        if len(tail) == 1:
            out.add(tail[0])
        elif tail:  # a phrase, and those of its words that say the field alone ("farmacia", not "trabajo" or "social")
            out.add(" ".join(fold(name).split()[2:]).removeprefix("ciencias de la ").removeprefix("ciencias "))
            out.update(w for w in tail if len(w) > 3 and _zipf(w) < RARE_ZIPF)
    return sorted(out)


# Where a field of study names the people or the faculty that follow it: "los de psicología", "estudia farmacia", "la carrera
# de derecho", "inscribirse en arquitectura", "en medicina de la USAC".
# A procedure every faculty has, said of another field ("el examen privado de arquitectura", "el EPS de odontología", "las
# prácticas del bufete de derecho"): that faculty's own procedure, although the office's documents describe one by the same name.
_PROCEDURE_OF = r"(?:examen(?:es)?\s+(?:privado|publico|general|tecnico\s+profesional)|eps|e\.p\.s\.?|tesis|practicas?(?:\s+(?:supervisada|profesional|final))?|internado|bufete(?:\s+popular)?|trabajo\s+de\s+graduacion|pensum|plan\s+de\s+estudios)\s+(?:de|en)\s+(?:(?:la\s+)?(?:facultad|escuela|carrera)\s+de\s+)?"
_STUDY_BEFORE = rf"(?:{_PROCEDURE_OF}|{_FIELD_CONTEXT}|{_BELONGING}|(?:la\s+)?gente\s+de\s+|(?:inscrib\w*|entrar|ingresar|pasarse|cambiarse)\s+(?:a|en)\s+|(?:carrera|licenciatura)\s+(?:de|en)\s+)"
_STUDY_AFTER = r"\s+(?:de|en)\s+(?:la\s+)?(?:usac|san\s+carlos|u\b|universidad)"

# Decision-time cues (rules=True only: the classifier is fitted without them, see IntentModel.row); the people of another
# field and a profession's pay are read in classifiers.outside.
# A field named bare at the head of a sentence or clause ("en económicas el privado es oral o escrito", "en psicología piden
# examen específico"): the place the question is about. Not inside a clause ("... en experiencia laboral o en educación"),
# nor a phrase that goes on ("en derecho a examen", "en administración de la facultad").
_BARE_FIELD_HEAD = r"(?:^|[,.;:¿?!]\s*)(?:y\s+)?en\s+(?:(?:la\s+)?(?:carrera|facultad|escuela)\s+de\s+)?"
_BARE_FIELD_TAIL = r"\b(?!\s+(?:de|del|a|al|y|con|para|por|que|se)\b)"
# The student's own career or school ("la escuela de mi carrera", "la dirección de mi escuela"): this office's own.
_MINE = re.compile(r"(?:mi|mis|nuestr[oa]s?)\b")


@dataclass
class IntentModel:
    """The office's own names and course names, read from its documents."""

    own_words: list[str] = field(default_factory=list)  # folded words the documents put after facultad/universidad/escuela/ingeniería
    other_fields: list[str] = field(default_factory=list)  # bundled faculty subjects the documents hardly mention
    vocabulary: list[str] = field(default_factory=list)  # every folded word of the documents
    courses: list[str] = field(default_factory=list)  # folded course names
    other_names: list[str] = field(default_factory=list)  # folded bundled institutions the documents never name
    study_fields: list[str] = field(default_factory=list)  # other fields of study, however often the documents use the word (empty in gates fitted before)
    _vocab: frozenset[str] = field(default=frozenset(), init=False, repr=False, compare=False)
    _courses: re.Pattern | None = field(default=None, init=False, repr=False, compare=False)
    _mentions: tuple | None = field(default=None, init=False, repr=False, compare=False)  # compiled on first use (_mention_patterns)
    _bare: re.Pattern | None = field(default=None, init=False, repr=False, compare=False)  # compiled on first use (_bare_field)

    def __post_init__(self) -> None:
        self._vocab = frozenset(self.vocabulary)
        longest_first = sorted(self.courses, key=len, reverse=True)
        self._courses = re.compile(r"\b(?:" + "|".join(map(re.escape, longest_first)) + r")\b") if longest_first else None

    def _mention_patterns(self) -> tuple:
        """The other fields' pattern, the rare fields' pattern and one pattern per other institution's name, compiled once
        (one per name outgrows the `re` module's cache, which then compiled them again for every text)."""
        if self._mentions is None:
            fields = rare = None
            if self.other_fields:
                fields = re.compile(rf"\b(?:{_FIELD_CONTEXT}|{_BELONGING})(?:{'|'.join(map(re.escape, self.other_fields))})\b")
                # a rare field word that is also a campus place ("la enfermería", the infirmary) names the field only as a
                # field of study ("estudia enfermería"), never alone
                rare_words = [f for f in self.other_fields if _zipf(f) < RARE_ZIPF and not _CAMPUS.fullmatch(f)]
                rare = re.compile(rf"\b(?:{'|'.join(map(re.escape, rare_words))})\b") if rare_words else None
            names = tuple((name, re.compile(rf"\b{re.escape(name)}\b")) for name in self.other_names if len(name) >= 4)
            if self.study_fields:
                alt = "|".join(map(re.escape, sorted(self.study_fields, key=len, reverse=True)))
                studied = re.compile(rf"\b{_STUDY_BEFORE}(?:{alt})\b|\b(?:{alt}){_STUDY_AFTER}")
                fields = studied if fields is None else re.compile(f"{fields.pattern}|{studied.pattern}")
            self._mentions = (fields, rare, names)
        return self._mentions

    @classmethod
    def fit(cls, chunk_texts: Sequence[str]) -> "IntentModel":
        """Read the office's own institution words and course names from its documents."""
        corpus = fold(" ".join(" ".join(t.split()) for t in chunk_texts))
        counts: dict[str, int] = {}
        heads: set[str] = set()  # the word right after "Facultad de" is the institution's name even if said once
        for m in _INSTITUTION.finditer(corpus):
            tail = _tail(m)
            heads.update(tail[:1])
            for w in tail[1:3]:
                counts[w] = counts.get(w, 0) + 1
        for m in _OWN_FIELD.finditer(corpus):
            for w in m.group(1).split():
                counts[w] = counts.get(w, 0) + 1
        own_words = sorted({w for w, c in counts.items() if c >= 2 and len(w) > 2} | {w for w in heads if len(w) > 2})
        words = Counter(corpus.split())
        other_fields = [f for f in _field_words() if f not in own_words and words[f] < 3]
        # named as a field of study ("los de derecho", "la carrera de psicología"), a word is another field even when the
        # documents use it in another sense ("tiene derecho a examen", a course "Psicología Industrial"); not the office's
        # own careers
        study_fields = [f for f in _study_fields() if not set(f.split()) & set(own_words)]
        others = [fold(n) for names in bundled_institutions().values() for n in names]
        others += [fold(s) for names in bundled_institutions().values() for n in names for s in spoken_institution_names(n)]
        others += [fold(n) for n in bundled_nicknames()]
        return cls(
            own_words=own_words,
            other_fields=other_fields,
            vocabulary=sorted(set(words)),
            courses=sorted({fold(v) for c in course_names_in(chunk_texts) or GENERIC_COURSES for v in spoken_course_names(c)}),
            other_names=sorted({n for n in others if n and n not in corpus}),
            study_fields=study_fields,
        )

    def institution_mentions(self, folded: str, *, rules: bool = False) -> tuple[int, int]:
        """(other, own) institution mentions in a folded text. With `rules`, the decision-time cues too: the student's own
        school ("la escuela de mi carrera") is the office's, and another field named by its people or bare at a clause's
        head is another faculty."""
        other = own = 0
        for m in _INSTITUTION.finditer(folded):
            if m.group(2).split()[0] in _CLAUSE_WORDS:  # "se asegura la Facultad de que ...": a clause follows, not a name
                continue
            if rules and m.group(1) != "colegio" and _MINE.match(m.group(2)):
                own += 1
                continue
            tail = _tail(m)
            unknown_second = len(tail) > 1 and tail[1] not in self.own_words and tail[1] not in self._vocab
            if m.group(1) in _BODIES or (tail and (tail[0] not in self.own_words or unknown_second)):
                other += 1
            else:
                own += 1
        own += len(_OWN_INSTITUTION.findall(folded))
        fields, rare, names = self._mention_patterns()
        if fields is not None:
            spans = {m.end() for m in fields.finditer(folded)}
            if rare is not None:
                spans |= {m.end() for m in rare.finditer(folded)}
            other += len(spans)
        for name, pattern in names:
            if name in folded and pattern.search(folded):  # the substring test first: most texts name no institution
                other += 1
        if rules and not _CAMPUS.search(folded):
            other += people_of_other_fields(folded)
        if rules and self.study_fields:
            bare = self._bare_field()
            other += len(bare.findall(folded))
        return other, own

    def _bare_field(self) -> re.Pattern:
        if self._bare is None:
            alt = "|".join(map(re.escape, sorted(self.study_fields, key=len, reverse=True)))
            self._bare = re.compile(rf"{_BARE_FIELD_HEAD}(?:{alt}){_BARE_FIELD_TAIL}")
        return self._bare

    def named_institutions(self, raw: str, folded: str) -> int:
        """How many institutions the text names by a name or acronym the documents never use (see _NAME_SLOT)."""
        cased = raw if len(raw) == len(folded) else folded  # case is read from the raw text where folding kept positions
        found = 0
        for m in _NAME_SLOT.finditer(folded):
            article, elided, title, w = m.group(1), m.group(2), m.group(3), m.group(4)
            if w in self._vocab or w in self.own_words or w in _FUNCTION or len(w) < 2:
                continue
            r = cased[m.start(4) : m.end(4)]
            thing_of = bool(_URL_LIKE.match(folded, m.end(4)))  # "la URL del portal", "la mariano de ..." is rarer than a web address
            # a university is feminine ("la UVG"); an acronym after "el" names an exam, a programme or a body ("el ETP", "el IGSS")
            acronym = r.isupper() and 2 <= len(r) <= 6 and not thing_of and article != "el"
            capital = r[:1].isupper() and not r.isupper() and m.start() > 0
            placed = bool(_NAME_PLACE.search(folded[max(0, m.start() - 12) : m.start()]))
            if title:
                named = w not in _STOP and (capital or acronym or _zipf(w) < RARE_ZIPF or w.endswith(("o", "l", "r", "n", "z")))
            elif elided:
                antecedent = any(_ERRAND_THING.fullmatch(a.group(1)) or _ADMIN.fullmatch(a.group(1)) for a in _ANTECEDENT.finditer(folded, 0, m.start()))
                named = article == "la" and len(w) > 3 and placed and not _TIME_WORD.match(w) and not antecedent
            else:
                unknown_short = len(w) <= 5 and _zipf(w) < 2.6 and not r.isupper()
                mismatch = article == "la" and w not in _FEMININE_ANYWAY and bool(_NOT_FEMININE.search(w))
                short_kind = w in _SHORT_INSTITUTION  # "el tec de monterrey", "en la uni": the kind of institution, shortened
                named = acronym or capital or short_kind or (placed and not thing_of and not r.isupper() and (unknown_short or mismatch))
            found += bool(named)
        return found

    def transfer_in(self, folded: str, *, rules: bool = False) -> bool:
        """A student from another institution (or career) asking for one of this office's procedures (equivalencias, traslado).
        With `rules`, the decision-time cues too: an origin said with "del" ("egresado del INTECAP"), and this faculty
        named as where the student goes ("quiero seguir ingeniería en la USAC", "¿me pasan a ingeniería?")."""
        here = bool(_HERE.search(folded))
        elsewhere = False
        for m in _MOTION.finditer(folded):
            dest = m.group(1)
            if dest in _OWN_PLACES or dest in self.own_words:
                here = True
            elif dest not in self._vocab or dest in self.other_fields:
                elsewhere = True  # "me quiero pasar a la Landívar": the other institution is where they go
        if elsewhere and not here:
            return False
        origins = list(_ORIGIN.finditer(folded))
        if rules:
            origins += list(_ORIGIN_DEL.finditer(folded))
        from_here = [bool(_ORIGIN_HERE.match(folded, o.end())) for o in origins]
        if from_here and all(from_here):
            return False  # "dan equivalencias si vengo de la usac?": the student leaves this institution for another
        word, origin = bool(_TRANSFER_WORD.search(folded)), bool(origins)
        here = here or (rules and bool(_TO_THIS_FACULTY.search(folded)))
        return (origin and (word or here)) or (word and here)

    def row(self, text: str, *, rules: bool = True) -> list[float]:
        """The intent features of one text. `rules=False` leaves out the cues that only serve the structure's decision
        (another body's own service or someone else's school business in the provider column, the office's own hours in
        the errand column, see classifiers.outside): the classifier is fitted without them, so it does not lean on a cue
        the structure decides by anyway and weigh the rest of its evidence less."""
        raw = " ".join(text.split())
        f = fold(raw)
        f_inst, raw_inst = f, raw
        spans = [(m.start(1) if m.group(1) else m.start(2), m.end()) for m in _RECIPIENT.finditer(f)]  # the recipient of a document the office issues
        spans += [m.span(1) for m in _ASKED_BY.finditer(f)]  # the body that asks for it
        for start, end in spans:  # not whose business is asked
            blank = " " * (end - start)
            f_inst = f_inst[:start] + blank + f_inst[end:]
            if len(raw_inst) == len(f):
                raw_inst = raw_inst[:start] + blank + raw_inst[end:]
        other, own = self.institution_mentions(f_inst, rules=rules)
        named, transfer = self.named_institutions(raw_inst, f_inst), self.transfer_in(f, rules=rules)
        if transfer:  # the other institution is where the student comes from, not whose business is asked
            other = named = 0
        course = bool(self._courses and self._courses.search(f))
        rest = self._courses.sub(" curso ", f) if course else f  # "Cálculo 1" names a course; it is not a calculation
        content = len(_CONTENT.findall(rest))
        admin = len(_ADMIN.findall(f))
        course_content = float(course and content > 0 and content >= admin)
        return [
            float(min(other, 2)), float(min(own, 2)), course_content, float(min(content, 4)), float(min(admin, 4)),
            float(bool(_REQUEST.search(f))), float(min(len(_CODING.findall(f)), 2)), float(bool(_OPINION.search(f))),
            self._jobs(f, rules), float(bool(_CAMPUS.search(f))), float(min(len(_PERSONAL.findall(f)), 2)),
            float(bool(_ENCYCLOPEDIC.search(f))), float(bool(_TROUBLE.search(f) and _OFFICE_THING.search(f))),
            float(min(named, 2)), float(transfer),
            float(min(len(_QUANTITY.findall(f)) + len(_ARITHMETIC.findall(f)) + len(_PERCENT_OF.findall(f)) + (len(_COMPUTE_SPOKEN.findall(f)) if rules else 0), 3)),
            float(bool(_PROVIDER.search(f)) or (rules and (outside_service(f) or someone_elses_school(f)))), float(own_errand(f) or (rules and office_hours(f))),
        ]

    @staticmethod
    def _jobs(f: str, rules: bool) -> float:
        """2: a job search or a job's pay; 1: the student's own work life. With `rules`, a profession's pay asked ("qué tan
        bien pagan a un ingeniero") is a job question, and a pay word said only of the office's own programme ("¿el EPS
        es con sueldo?") is not."""
        search = bool(_JOB_SEARCH.search(f))
        programme = programme_without_pay(f) if rules else None
        if programme is not None:
            search = search and bool(_JOB_SEARCH.search(programme))
        elif rules and not search:
            search = profession_pay(f)
        return 2.0 if search else float(bool(_WORK_LIFE.search(f)))

    def transform(self, texts: Sequence[str], *, rules: bool = True) -> np.ndarray:
        return np.asarray([self.row(t, rules=rules) for t in texts], dtype=np.float32).reshape(len(texts), len(NAMES))

    def as_dict(self) -> dict:
        return {"own_words": self.own_words, "other_fields": self.other_fields, "vocabulary": self.vocabulary, "courses": self.courses, "other_names": self.other_names, "study_fields": self.study_fields}

    @classmethod
    def from_dict(cls, d: dict) -> "IntentModel":
        return cls(own_words=list(d.get("own_words", [])), other_fields=list(d.get("other_fields", [])), vocabulary=list(d.get("vocabulary", [])), courses=list(d.get("courses", [])), other_names=list(d.get("other_names", [])), study_fields=list(d.get("study_fields", [])))


def spoken_institution_names(name: str) -> list[str]:
    """How students name a university without its title: "Universidad Rafael Landívar" -> "la Rafael Landívar", "la
    Landívar"; "Universidad del Valle de Guatemala" -> "la del Valle". Faculties and bodies keep their full name."""
    m = re.match(r"^Universidad\s+(de\s+la\s+|del\s+|de\s+)?(.+)$", name)
    if not m:
        return []
    rest = m.group(2)
    words = rest.split()
    out = [f"la {(m.group(1) or '').strip()} {rest}".replace("  ", " ").replace("la de la ", "la de la ")]
    if m.group(1) and len(words) > 2 and words[1] in ("de", "del"):
        out.append(f"la {m.group(1).strip()} {words[0]}")  # "la del Valle"
    if not m.group(1) and len(words) == 2 and words[1][:1].isupper() and len(words[1]) >= 5 and _zipf(fold(words[1])) < 3.0:
        out.append(f"la {words[1]}")  # a founder's surname, rare as a word: "la Landívar", "la Marroquín" (not "la Nacional")
    return [" ".join(o.split()) for o in out]
