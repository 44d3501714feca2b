"""Offline out-of-domain examples: the bundled bank plus templated questions about the world at large."""

from __future__ import annotations

import random

from classifiers import styles
from classifiers.bank import load_ood_bank
from classifiers.synthetic import Example

# Entities by kind, and question frames a person asks about such things (nothing here comes from evaluation files).
ENTITIES: dict[str, list[str]] = {
    "person": [
        "Simón Bolívar", "Frida Kahlo", "Gabriel García Márquez", "Marie Curie", "Napoleón Bonaparte", "Cleopatra", "Isaac Newton",
        "Miguel de Cervantes", "Leonardo da Vinci", "Nelson Mandela", "Pablo Neruda", "Julio César", "Ada Lovelace", "Charles Darwin",
        "Rigoberta Menchú", "Mozart", "Lionel Messi", "Shakira", "Galileo Galilei", "Confucio", "Juana de Arco", "Nikola Tesla",
        "Benito Juárez", "Jorge Luis Borges", "Sor Juana Inés de la Cruz", "Carlos V", "Martin Luther King", "Ernesto Guevara",
    ],
    "place": [
        "el río Amazonas", "el lago de Atitlán", "Islandia", "el desierto de Atacama", "Japón", "la ciudad de Florencia", "el Himalaya",
        "Madagascar", "el canal de Panamá", "Tikal", "Machu Picchu", "el mar Muerto", "Nueva Zelanda", "el volcán de Fuego",
        "la Patagonia", "Estambul", "el río Danubio", "Australia", "el Sahara", "Groenlandia", "Venecia", "el estrecho de Gibraltar",
        "Cuba", "Noruega", "el monte Everest", "Marruecos", "la Antártida", "Portugal", "el Caribe", "Siberia",
    ],
    "event": [
        "la Revolución francesa", "la Segunda Guerra Mundial", "la caída del Imperio romano", "la llegada a la Luna", "la peste negra",
        "la Guerra Fría", "la independencia de México", "la Revolución industrial", "el Renacimiento", "la conquista de América",
        "la caída del muro de Berlín", "la Guerra Civil española", "las Cruzadas", "la crisis de 1929", "el Mundial de 1986",
    ],
    "concept": [
        "la fotosíntesis", "la teoría de la relatividad", "el efecto invernadero", "la inflación", "el ADN", "la mecánica cuántica",
        "la democracia", "el big bang", "la evolución de las especies", "la tabla periódica", "los agujeros negros", "el sistema inmune",
        "la deriva continental", "el calentamiento global", "la energía nuclear", "la economía de mercado", "el feudalismo", "los volcanes",
        "la blockchain", "la inteligencia artificial", "el impresionismo", "la ósmosis", "la gravedad", "los eclipses", "el barroco",
    ],
    "work": [
        "Cien años de soledad", "Don Quijote", "La Odisea", "Hamlet", "la Novena Sinfonía", "El Padrino", "Harry Potter",
        "el Guernica", "La Mona Lisa", "El Principito", "Star Wars", "Los Simpson", "Game of Thrones", "Pedro Páramo", "El señor de los anillos",
    ],
    "organisation": [
        "la ONU", "la NASA", "el Real Madrid", "Google", "la Unión Europea", "la FIFA", "la OTAN", "Apple", "el Vaticano",
        "la Cruz Roja", "Amazon", "la Organización Mundial de la Salud", "el Banco Mundial", "Netflix", "la Universidad de Oxford",
        "el MIT", "la Universidad de Salamanca", "Harvard", "el Louvre", "la Fórmula 1",
    ],
    "thing": [
        "una pizza napolitana", "el café de especialidad", "un perro labrador", "una bicicleta de montaña", "un teléfono nuevo",
        "las plantas de interior", "una tortilla de papas", "el aceite de oliva", "un acuario", "las zapatillas para correr",
        "un televisor 4K", "el pan de masa madre", "un gato persa", "las suculentas", "una guitarra acústica", "el vino tinto",
    ],
}

FRAMES: dict[str, list[str]] = {
    "person": [
        "¿En qué año nació {e}?", "¿Quién fue {e}?", "¿Por qué es famoso {e}?", "¿Dónde murió {e}?", "¿Qué descubrió {e}?",
        "¿Cuál fue la obra más importante de {e}?", "¿Con quién se casó {e}?", "háblame de la vida de {e}", "¿Qué edad tenía {e} cuando murió?",
        "dato curioso sobre {e}", "who was {e}", "¿{e} tuvo hijos?",
    ],
    "place": [
        "¿Cuál es la capital de {e}?", "¿Cuántos habitantes tiene {e}?", "¿Dónde queda {e}?", "¿Qué idioma se habla en {e}?",
        "¿Cuál es la mejor época para viajar a {e}?", "¿Qué clima tiene {e}?", "¿Qué se puede visitar en {e}?", "¿Qué tan grande es {e}?",
        "¿Cómo llego a {e} desde aquí?", "¿Qué animales viven en {e}?", "where is {e}", "¿Es caro viajar a {e}?",
    ],
    "event": [
        "¿Cuándo empezó {e}?", "¿Cuáles fueron las causas de {e}?", "¿Quién ganó {e}?", "¿Cuánto duró {e}?", "¿Qué consecuencias tuvo {e}?",
        "resumen de {e}", "¿Por qué terminó {e}?", "¿Cuántas personas murieron en {e}?", "¿Qué países participaron en {e}?",
    ],
    "concept": [
        "¿Qué es {e}?", "explícame {e} como si tuviera 10 años", "¿Cómo funciona {e}?", "¿Quién descubrió {e}?", "¿Para qué sirve {e}?",
        "dame un resumen de {e}", "¿Cuál es la diferencia entre {e} y otras teorías?", "what is {e}", "¿Es peligroso {e}?", "ejemplos de {e}",
    ],
    "work": [
        "¿Quién escribió {e}?", "¿De qué trata {e}?", "¿Cómo termina {e}?", "¿Vale la pena ver {e}?", "¿En qué año salió {e}?",
        "¿Quién es el protagonista de {e}?", "recomendame algo parecido a {e}", "¿Dónde se puede ver {e}?", "análisis de {e}",
    ],
    "organisation": [
        "¿Cuándo se fundó {e}?", "¿Quién dirige {e}?", "¿Dónde tiene su sede {e}?", "¿Cuántos empleados tiene {e}?", "¿Qué hace {e}?",
        "historia de {e}", "¿Cómo entro a trabajar en {e}?", "¿Cuánto vale {e}?", "¿Quién fundó {e}?",
    ],
    "thing": [
        "¿Cómo preparo {e}?", "¿Dónde compro {e}?", "¿Cuánto cuesta {e}?", "¿Cómo cuido {e}?", "¿Qué marca de {e} me recomiendan?",
        "¿Vale la pena {e}?", "tips para {e}", "¿Cada cuánto hay que limpiar {e}?",
    ],
}


NEARBY_PLACES = (
    "pizzería", "farmacia", "cajero automático", "bar", "supermercado", "hotel", "parrillada", "heladería", "peluquería",
    "lavandería", "cine", "librería de usados", "casa de cambio", "veterinaria", "parada del ómnibus a la playa", "discoteca",
)
NEARBY_FRAMES = (
    "¿Dónde queda la {p} más cercana a {inst}?", "¿Qué {p} me recomiendan cerca de {inst}?", "¿Hay alguna {p} abierta cerca de {inst}?",
    "¿Cuál es la mejor {p} por la zona de {inst}?", "¿A qué hora cierra la {p} que está frente a {inst}?",
)


def nearby_places(*, n: int = 80, seed: int = 31, institutions: tuple[str, ...] = ("la facultad", "la universidad", "la facu")) -> list[Example]:
    """Near misses: places around the institution, which are not the office's business."""
    rng = random.Random(seed)
    out, seen = [], set()
    for _ in range(n * 3):
        if len(out) >= n:
            break
        place = rng.choice(NEARBY_PLACES)
        style = rng.choice(styles.STYLES)
        text = styles.render(rng, style, question=rng.choice(NEARBY_FRAMES).format(p=place, inst=rng.choice(institutions)), topic=f"{place} cerca de la facultad")
        if text not in seen:
            seen.add(text)
            out.append(Example(text=text, label=0, style=style, source="ood-nearby", topic=f"nearby:{place}"))
    return out


def bank_examples() -> list[Example]:
    """The bundled hand-written out-of-domain bank."""
    return [Example(text=row["text"], label=0, style="bank", source="ood-bank", topic=row.get("topic")) for row in load_ood_bank()]


def templated_ood(*, n: int = 600, seed: int = 29) -> list[Example]:
    """Questions about people, places, events, concepts, works, organisations and things, in the five styles."""
    rng = random.Random(seed)
    out, seen = [], set()
    kinds = sorted(ENTITIES)
    attempts = 0
    while len(out) < n and attempts < n * 5:
        attempts += 1
        kind = rng.choice(kinds)
        entity = rng.choice(ENTITIES[kind])
        question = rng.choice(FRAMES[kind]).format(e=entity)
        style = rng.choice(styles.STYLES)
        text = styles.render(rng, style, question=question, topic=entity, context=None, area="la vida")
        if text in seen:
            continue
        seen.add(text)
        out.append(Example(text=text, label=0, style=style, source="ood-template", topic=f"{kind}:{entity}"))
    return out


def offline_ood(*, n_templated: int = 600, seed: int = 29) -> list[Example]:
    """Everything the offline path uses as out-of-domain: bank plus templates."""
    return bank_examples() + templated_ood(n=n_templated, seed=seed) + nearby_places(n=160, seed=seed + 2)
