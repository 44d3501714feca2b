"""General knowledge: does a message ask about the world (who was someone, in what year something happened, the capital
of a country) rather than about a student's studies or an office's procedures?

Such a question shares few words with any office's documents, yet its frame ("¿En qué año…?", "¿Quién fue…?", "¿Cuál es
la…?") is the frame of many office questions, so a gate that weighs topic similarity can rate it just above its
threshold. The model here reads the frame, not the topic: every word the offices' documents never use is replaced by one
placeholder before a word n-gram logistic regression sees the text, so "¿En qué año cayó el muro de
Berlín?" reads as "¿en que año _ el _ de _?" whatever the names are, and an encyclopaedic question about people and places
it never saw looks like the ones it was trained on. An encyclopaedic question in the documents' own vocabulary (a material's
property, a theory, a law, a kind of school: words a course plan or a regulation mentions) keeps its words under that mask,
so a word the documents use but the offices' questions seldom ask about is read as a second placeholder: "¿Qué es el
módulo de elasticidad?" reads as "¿que es el _ de _?", "¿Qué es la zona mínima?" keeps its words. A student who speaks of their own case ("puedo", "mi", "tengo") asks
about their studies, not the world, whatever the words. Trained on questions about the world written from templates (no
evaluation file) against the offices' own synthetic questions; persisted as JSON + NumPy arrays (no pickle).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from classifiers import styles
from classifiers.synthetic import Example
from classifiers.tfidf import tfidf_rows
from pipeline.text import fold

UNKNOWN = "zzdesconocida"  # the placeholder for a word the offices' documents never use (never itself a Spanish word)
RARE = "zzdocumentos"  # the placeholder for a word the documents use but the offices' questions seldom ask about
COMMON_SHARE = 0.01  # a word at least this share of the offices' questions use is their business, read as itself
ANCHOR_RATIO = 5.0  # ... and an anchor when the offices' questions use it at least this many times as often as questions about the world
UNANCHORED = 0.5  # the least probability of a message with no anchor that does not speak of the student's own case
C = 1.0
_TOKEN = re.compile(r"[a-z0-9ñ]+|[^\sa-z0-9ñ]")

# Questions about the world, by kind of subject; nothing here comes from an evaluation file.
SUBJECTS: dict[str, list[str]] = {
    "person": [
        "Hernán Cortés", "Isabel la Católica", "Alejandro Magno", "Mahatma Gandhi", "Albert Einstein", "Thomas Edison", "Pedro de Alvarado",
        "Justo Rufino Barrios", "Francisco Morazán", "Rubén Darío", "Diego Velázquez", "Pablo Picasso", "Ludwig van Beethoven",
        "Johann Sebastian Bach", "William Shakespeare", "Winston Churchill", "Abraham Lincoln", "Fidel Castro", "Eva Perón", "Túpac Amaru",
        "Atahualpa", "Moctezuma", "Louis Pasteur", "Alexander Fleming", "Stephen Hawking", "Aristóteles", "Platón", "Sócrates",
        "Marco Polo", "Fernando de Magallanes", "Vasco da Gama", "Carlos Darwin", "Gregor Mendel", "Dmitri Mendeléyev", "Rosalind Franklin",
        "Enrique VIII", "Luis XIV", "Pedro el Grande", "Catalina la Grande", "Gengis Kan", "Carlomagno", "Augusto", "Nerón", "Ramsés II",
        "Tutankamón", "Hammurabi", "Vincent van Gogh", "Salvador Dalí", "Diego Rivera", "Mario Vargas Llosa", "Octavio Paz", "Pelé",
        "Nikola Tesla", "Isaac Newton", "Michael Faraday", "James Clerk Maxwell", "Leonhard Euler", "Carl Friedrich Gauss", "Marie Curie",
        "Galileo Galilei", "John von Neumann", "Montesquieu", "Hans Kelsen", "Adam Smith", "John Maynard Keynes", "Gustave Eiffel", "Le Corbusier",
        "Michael Jordan", "Usain Bolt", "Elvis Presley", "Los Beatles", "Walt Disney", "Steve Jobs", "Bill Gates", "Mark Zuckerberg",
    ],
    "place": [
        "Francia", "Alemania", "Canadá", "Argentina", "Perú", "Egipto", "la India", "China", "Rusia", "Italia", "Grecia", "Turquía",
        "Kenia", "Sudáfrica", "Nigeria", "Irlanda", "Escocia", "Polonia", "Hungría", "Suecia", "Finlandia", "Chile", "Colombia",
        "Honduras", "El Salvador", "Nicaragua", "Belice", "Costa Rica", "Panamá", "México", "Brasil", "Bolivia", "Paraguay", "Uruguay",
        "Londres", "París", "Roma", "Tokio", "Pekín", "Moscú", "Berlín", "Viena", "Praga", "Lisboa", "Quetzaltenango", "Cobán",
        "el río Nilo", "el río Misisipi", "el río Motagua", "el lago Titicaca", "los Andes", "los Alpes", "los Pirineos", "el Kilimanjaro",
        "el volcán Tajumulco", "el océano Pacífico", "el mar Mediterráneo", "el golfo de México", "la península de Yucatán", "Petén",
    ],
    "event": [
        "la Primera Guerra Mundial", "la guerra de Vietnam", "la Revolución rusa", "la Revolución mexicana", "la independencia de Guatemala",
        "la batalla de Waterloo", "la guerra de los Cien Años", "la Reforma protestante", "el descubrimiento de América", "la Ilustración",
        "la Edad Media", "el Imperio otomano", "el Imperio azteca", "la civilización maya", "el terremoto de 1976", "la guerra civil de Guatemala",
        "la Revolución de 1871", "la firma de la paz", "los Juegos Olímpicos de 1968", "la crisis de los misiles", "el Holocausto",
        "la invasión de Normandía", "la Revolución cubana", "la caída de Constantinopla", "el Tratado de Versalles", "la Guerra de Secesión",
    ],
    "thing": [
        "la Gran Muralla China", "las pirámides de Giza", "el Coliseo romano", "la Estatua de la Libertad", "el Partenón", "la Torre de Pisa",
        "el Taj Mahal", "la Sagrada Familia", "el Palacio Nacional de la Cultura", "el Popol Vuh", "la Biblia", "el Corán", "la Ilíada",
        "la Divina Comedia", "la Declaración de Independencia", "la Carta Magna", "el himno nacional", "la bandera de Guatemala", "el quetzal",
        "la ceiba", "la monja blanca", "el euro", "el dólar", "el petróleo", "el oro", "el café", "el cacao", "el maíz", "la caña de azúcar",
    ],
    "science": [
        "el oxígeno", "el hidrógeno", "el carbono", "el hierro", "la luz", "el sonido", "la electricidad", "el magnetismo", "la Luna",
        "el Sol", "Marte", "Júpiter", "Saturno", "la Vía Láctea", "los dinosaurios", "las ballenas", "los tiburones", "las abejas",
        "el corazón humano", "el cerebro", "la sangre", "los virus", "las bacterias", "las vacunas", "el átomo", "los terremotos",
        "los huracanes", "las mareas", "la capa de ozono", "la selva amazónica",
    ],
    "concept": [
        "la ley de Hooke", "el principio de Arquímedes", "el teorema de Bernoulli", "la ley de Coulomb", "las leyes de Kirchhoff", "el efecto Doppler",
        "el efecto fotoeléctrico", "la mecánica cuántica", "la teoría de grafos", "la transformada de Fourier", "el cálculo diferencial",
        "la teoría de la computabilidad", "el problema de la parada", "la notación O grande", "la criptografía de clave pública", "el protocolo TCP/IP",
        "la arquitectura de von Neumann", "el álgebra de Boole", "el aprendizaje automático", "la fotosíntesis", "la tabla periódica",
        "el enlace covalente", "la destilación fraccionada", "el pH", "la corrosión del acero", "el hormigón armado", "el acero estructural",
        "la viga en voladizo", "el arco de medio punto", "el asfalto", "la energía eólica", "la energía solar fotovoltaica", "la corriente alterna",
        "el motor de inducción", "el transistor", "el circuito integrado", "la fibra óptica", "la teoría de juegos", "la inflación",
        "el producto interno bruto", "la ley de la oferta y la demanda", "la economía keynesiana", "el derecho romano", "el Código Napoleónico",
        "el habeas corpus", "la presunción de inocencia", "el sufragio universal", "el federalismo", "la Convención de Ginebra",
        "la Corte Interamericana de Derechos Humanos", "la Corte Internacional de Justicia", "el método Montessori", "la educación a distancia",
        "la Universidad de Bolonia", "la Universidad de Salamanca", "el sistema métrico decimal", "el método científico", "la teoría de la evolución",
        "el ADN", "la tectónica de placas", "el ciclo del agua", "la ingeniería genética", "la nanotecnología", "la impresión 3D", "la cadena de bloques",
        "el Banco Mundial", "la Organización Mundial del Comercio", "el Mercosur", "el sistema educativo de Japón", "las escuelas públicas de Francia",
    ],
    "organisation": [
        "la Unesco", "la OEA", "el Fondo Monetario Internacional", "la Unión Soviética", "el Imperio británico", "la Liga de Naciones",
        "Microsoft", "Coca-Cola", "Toyota", "Samsung", "el Barcelona", "el Manchester United", "la NBA", "los Juegos Olímpicos",
        "la Iglesia católica", "el Parlamento Europeo", "la Corte Suprema de Estados Unidos", "el Congreso de Guatemala",
    ],
}

FRAMES: dict[str, list[str]] = {
    "person": [
        "¿En qué año nació {e}?", "¿En qué año murió {e}?", "¿Quién fue {e}?", "¿Dónde nació {e}?", "¿De qué país era {e}?",
        "¿Qué inventó {e}?", "¿Qué descubrió {e}?", "¿Cuál es la obra más conocida de {e}?", "¿Contra quién luchó {e}?",
        "¿Quién sucedió a {e}?", "¿A qué se dedicaba {e}?", "¿Qué premio recibió {e}?", "¿Cuántos años gobernó {e}?",
        "¿Cómo murió {e}?", "¿Quiénes eran los padres de {e}?", "¿En qué siglo vivió {e}?", "¿Qué idioma hablaba {e}?",
        "¿Por qué es importante {e} en la historia?", "¿Qué ciudad fundó {e}?", "¿Con quién se casó {e}?",
    ],
    "place": [
        "¿Cuál es la capital de {e}?", "¿Cuántos habitantes tiene {e}?", "¿En qué continente está {e}?", "¿Qué idioma se habla en {e}?",
        "¿Cuál es la moneda de {e}?", "¿Con qué países limita {e}?", "¿Cuál es el punto más alto de {e}?", "¿Quién gobierna {e}?",
        "¿Cuándo se fundó {e}?", "¿Qué superficie tiene {e}?", "¿Qué clima predomina en {e}?", "¿Por qué es famoso {e}?",
        "¿Cuál es la ciudad más grande de {e}?", "¿Qué religión predomina en {e}?", "¿Cuánto mide {e}?", "¿Dónde está ubicado {e}?",
        "¿Qué pueblos habitaban {e} antes de la conquista?", "¿Cuál es el plato típico de {e}?",
    ],
    "event": [
        "¿En qué año empezó {e}?", "¿Cuándo terminó {e}?", "¿Cuáles fueron las causas de {e}?", "¿Quién ganó {e}?", "¿Cuánto duró {e}?",
        "¿Qué consecuencias tuvo {e}?", "¿Qué países participaron en {e}?", "¿Cuántas personas murieron en {e}?", "¿Dónde ocurrió {e}?",
        "¿Quién dirigió {e}?", "¿Qué cambió después de {e}?", "¿En qué siglo fue {e}?",
    ],
    "thing": [
        "¿Quién construyó {e}?", "¿En qué año se hizo {e}?", "¿De qué está hecho {e}?", "¿Qué significa {e}?", "¿Dónde se encuentra {e}?",
        "¿Quién escribió {e}?", "¿Cuántos años tiene {e}?", "¿Qué representa {e}?", "¿De dónde viene {e}?", "¿Cuál es el origen de {e}?",
        "¿Qué altura tiene {e}?", "¿Qué país produce más {e}?",
    ],
    "science": [
        "¿Qué es {e}?", "¿Quién descubrió {e}?", "¿De qué está compuesto {e}?", "¿Cuál es el tamaño de {e}?", "¿Cómo se forma {e}?",
        "¿A qué distancia está {e}?", "¿Cuántos años viven {e}?", "¿Qué función cumple {e}?", "¿Cuál es la temperatura de {e}?",
        "¿Por qué es importante {e} para la vida?", "¿En qué año se descubrió {e}?", "¿Qué tipo de organismo son {e}?",
    ],
    "concept": [
        "¿Qué es {e}?", "¿En qué consiste {e}?", "¿Quién propuso {e}?", "¿Para qué sirve {e}?", "¿Cómo se define {e}?", "¿Qué explica {e}?",
        "¿Cuál es el origen de {e}?", "¿Qué aplicaciones tiene {e}?", "¿Cómo funciona {e}?", "¿En qué año se formuló {e}?", "¿Qué estudia {e}?",
        "¿Por qué es importante {e}?", "¿Qué ventajas y desventajas tiene {e}?", "¿Quién desarrolló {e}?", "¿Qué ejemplos hay de {e}?",
    ],
    "organisation": [
        "¿Cuándo se fundó {e}?", "¿Quién fundó {e}?", "¿Dónde tiene su sede {e}?", "¿Cuántos miembros tiene {e}?", "¿Quién preside {e}?",
        "¿Para qué se creó {e}?", "¿Cuántos títulos ha ganado {e}?", "¿Qué países forman parte de {e}?", "¿En qué año desapareció {e}?",
    ],
}

# Questions about the world with no named subject: superlatives, counts and firsts.
OPEN_QUESTIONS = [
    "¿Cuál es el país más grande del mundo?", "¿Cuál es la montaña más alta de América?", "¿Cuál es el animal más rápido?",
    "¿Quién fue el primer hombre en pisar la Luna?", "¿Cuántos planetas tiene el sistema solar?", "¿Cuál es el desierto más grande del mundo?",
    "¿Cuántos países hay en Centroamérica?", "¿Cuál es el idioma más hablado del mundo?", "¿Quién inventó la imprenta?",
    "¿Cuál es el metal más caro?", "¿Qué país tiene más habitantes?", "¿Cuál fue la primera civilización de Mesoamérica?",
    "¿Quién fue el primer presidente de Guatemala?", "¿Cuántos continentes hay?", "¿Cuál es el ave nacional de Guatemala?",
    "¿Qué temperatura hace en el centro de la Tierra?", "¿Cuál es el mamífero más grande?", "¿En qué año se inventó el internet?",
    "¿Cuántos idiomas mayas se hablan en Guatemala?", "¿Cuál es el libro más vendido de la historia?", "¿Quién descubrió la electricidad?",
    "¿Qué país ganó más mundiales de fútbol?", "¿Cuál es el río más caudaloso del mundo?", "¿Cuál es la isla más grande del mundo?",
]

# The student's own case, in the first person (not a greeting, not "me pueden decir", which asks about anything).
_OWN_CASE = re.compile(
    r"\b(mi|mis|yo|puedo|tengo|necesito|quiero|debo|hago|saco|estoy|soy|voy|pierdo|llevo|pago|perdi|gane|aprobe|repeti|reprobe|"
    r"asignarme|inscribirme|graduarme|meterme|tuve|hice|mande|entregue)\b"
)
_INFORMAL_OPEN = ["oye", "oigan", "una pregunta", "alguien sabe", "pregunta rápida", "duda", "hola", "me pueden decir", "saben", ""]


def general_questions(*, n: int = 1500, seed: int = 41) -> list[Example]:
    """Questions about the world (people, places, events, things, science, organisations), typed the ways people type:
    as asked, informal, without accents or question marks, with a greeting."""
    rng = random.Random(seed)
    kinds = sorted(SUBJECTS)
    out, seen = [], set()
    attempts = 0
    while len(out) < n and attempts < n * 5:
        attempts += 1
        if rng.random() < 0.1:
            question, topic = rng.choice(OPEN_QUESTIONS), "open"
        else:
            kind = rng.choice(kinds)
            topic = rng.choice(SUBJECTS[kind])
            question = rng.choice(FRAMES[kind]).format(e=topic)
        r = rng.random()
        if r < 0.45:
            text = question
        elif r < 0.7:
            text = f"{rng.choice(_INFORMAL_OPEN)} {styles.bare(question).lower()}".strip()
        elif r < 0.85:
            text = fold(styles.bare(question))
        else:
            text = styles.typo(rng, question)
        if text not in seen:
            seen.add(text)
            out.append(Example(text=text, label=0, style="general", source="general-knowledge", topic=topic))
    return out


def masked(texts: Iterable[str], known: frozenset[str], common: frozenset[str] | None = None) -> list[str]:
    """The texts folded, each word the offices' documents never use replaced by one placeholder (numbers kept by their
    length: a year is four digits whatever the year). With `common` (the words the offices' questions often use), a word
    the documents use but not among them is replaced by a second placeholder: "¿Qué es el módulo de elasticidad?" reads
    as "¿que es el _ de _?", a question about a subject the documents mention (a course's matter, a law, a material),
    while "¿Qué es la zona mínima?" keeps the words students ask the offices about."""
    out = []
    for text in texts:
        words = []
        for t in _TOKEN.findall(fold(text)):
            if t.isdigit():
                words.append(f"num{min(len(t), 5)}")
            elif len(t) > 1 and t not in known and t.isalnum():
                words.append(UNKNOWN)
            elif common is not None and len(t) > 1 and t not in common and t.isalnum():
                words.append(RARE)
            else:
                words.append(t)
        out.append(" ".join(words))
    return out


def common_words(office_questions: Sequence[str], *, share: float = COMMON_SHARE) -> list[str]:
    """The folded words at least `share` of the offices' questions use (each question counted once per word)."""
    counts: dict[str, int] = {}
    for text in office_questions:
        for t in set(_TOKEN.findall(fold(text))):
            counts[t] = counts.get(t, 0) + 1
    least = max(2.0, share * len(office_questions))
    return sorted(t for t, n in counts.items() if n >= least and t.isalnum() and not t.isdigit())


def anchor_words(office_questions: Sequence[str], general: Sequence[str], *, share: float = COMMON_SHARE, ratio: float = ANCHOR_RATIO) -> list[str]:
    """The words that tie a message to the offices' business: at least `share` of the offices' questions use them, and
    at least `ratio` times as large a share as of the questions about the world ("créditos", "curso", "eps", "requisitos",
    "semestre", a career's name), not the frame words both kinds of question share ("qué", "cuál", "es")."""
    def shares(texts: Sequence[str]) -> dict[str, float]:
        counts: dict[str, int] = {}
        for text in texts:
            for t in set(_TOKEN.findall(fold(text))):
                counts[t] = counts.get(t, 0) + 1
        return {t: n / max(1, len(texts)) for t, n in counts.items()}

    office, world = shares(office_questions), shares(general)
    return sorted(t for t, v in office.items() if v >= share and v >= ratio * world.get(t, 0.0) and t.isalpha() and len(t) > 2)


@dataclass
class GeneralKnowledge:
    """Probability that a message asks about the world rather than about an office's business (see module doc)."""

    known: list[str]  # folded words of the offices' documents
    vocabulary: dict[str, int]  # word n-grams of the masked texts
    idf: np.ndarray
    coef: np.ndarray  # (n_terms,)
    intercept: float
    meta: dict = field(default_factory=dict)
    common: list[str] | None = None  # folded words the offices' questions often use (None: every known word read as itself)
    anchors: list[str] | None = None  # folded words that tie a message to the offices' business (None: no anchor rule)
    _vectorizer: object = field(default=None, repr=False)
    _known: frozenset[str] = field(default=frozenset(), init=False, repr=False, compare=False)
    _common: frozenset[str] | None = field(default=None, init=False, repr=False, compare=False)
    _anchors: frozenset[str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._known = frozenset(self.known)
        self._common = None if self.common is None else frozenset(self.common)
        self._anchors = None if self.anchors is None else frozenset(self.anchors)

    @staticmethod
    def _new_vectorizer(min_df: int = 1):
        from sklearn.feature_extraction.text import TfidfVectorizer

        return TfidfVectorizer(lowercase=False, token_pattern=r"\S+", sublinear_tf=True, ngram_range=(1, 2), min_df=min_df, dtype=np.float32)

    @classmethod
    def fit(cls, office_questions: Sequence[str], general: Sequence[str], known: Iterable[str], *, c: float = C, seed: int = 7, rare: bool = True, anchored: bool = True) -> "GeneralKnowledge":
        """Fit on the offices' questions (0) against questions about the world (1), words unknown to the documents masked
        (and, with `rare`, the documents' words the offices' questions seldom use masked by a second placeholder); with
        `anchored`, the words that tie a message to the offices' business (`anchor_words`) are kept for `probabilities`."""
        from sklearn.linear_model import LogisticRegression

        known_set = frozenset(known)
        common = common_words(office_questions) if rare else None
        texts = masked([*office_questions, *general], known_set, None if common is None else frozenset(common))
        y = np.array([0] * len(office_questions) + [1] * len(general))
        words = cls._new_vectorizer(min_df=2)
        x = words.fit_transform(texts)
        clf = LogisticRegression(C=c, max_iter=2000, class_weight="balanced", random_state=seed).fit(x, y)
        out = cls(
            known=sorted(known_set), vocabulary={k: int(v) for k, v in words.vocabulary_.items()}, idf=words.idf_.astype(np.float32), coef=clf.coef_[0].astype(np.float32), intercept=float(clf.intercept_[0]), meta={"n_office": len(office_questions), "n_general": len(general)}, common=common,
            anchors=anchor_words(office_questions, general) if anchored else None,
        )
        out._vectorizer = words
        return out

    def probabilities(self, texts: Sequence[str]) -> np.ndarray:
        """(n,) probability that each message asks about the world: 0 where the student speaks of their own case, and at
        least UNANCHORED where the message uses none of the anchors (no word that ties it to any office's business: it
        asks about something, not about the student's studies here)."""
        if not len(texts):
            return np.zeros(0, dtype=np.float32)
        if self._vectorizer is None:
            words = self._new_vectorizer()
            words.vocabulary_, words.idf_ = dict(self.vocabulary), np.asarray(self.idf, dtype=np.float64)
            self._vectorizer = words
        x = tfidf_rows(self._vectorizer, masked(texts, self._known, self._common))
        z = np.asarray(x @ self.coef).ravel() + self.intercept
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))
        own = np.array([bool(_OWN_CASE.search(fold(t))) for t in texts])
        if self._anchors is not None:
            loose = np.array([not (set(_TOKEN.findall(fold(t))) & self._anchors) for t in texts])
            p = np.where(loose, np.maximum(p, UNANCHORED), p)
        return np.where(own, 0.0, p).astype(np.float32)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"general_idf": self.idf, "general_coef": self.coef, "general_intercept": np.array([self.intercept], dtype=np.float32)}

    def vocabularies(self) -> dict:
        return {"known": self.known, "words": self.vocabulary, "meta": self.meta, "common": self.common, "anchors": self.anchors}

    @classmethod
    def from_stored(cls, vocabularies: dict, arrays) -> "GeneralKnowledge":
        return cls(
            known=list(vocabularies["known"]), vocabulary=vocabularies["words"], idf=arrays["general_idf"], coef=arrays["general_coef"], intercept=float(arrays["general_intercept"][0]), meta=vocabularies.get("meta", {}), common=vocabularies.get("common"),
            anchors=vocabularies.get("anchors"),
        )
