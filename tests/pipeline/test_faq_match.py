"""FAQ question matching: a question that means an FAQ entry's own question gets that entry's answer first and whole."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from pipeline.generation.asking import ask
from pipeline.generation.extractive import ExtractiveGenerator
from pipeline.generation.faq_match import FaqMatcher, matched, spread_of
from pipeline.generation.readiness import readiness_of
from tests.pipeline.generation_helpers import hit

URL = "https://x.example/faq"
ENTRIES = {
    "¿Cómo recupero mi contraseña del portal?": "Ingrese su número de DPI en la opción olvidó su contraseña y recibirá un correo.",
    "¿Cuántas veces puedo modificar mi asignación?": "Durante la asignación regular puede realizar 5 asignaciones completas.",
    "¿Cuál es el requisito para llevar cursos en modo Pre-Post?": "Ser estudiante de cierre y no haber hecho Pre-Post anteriormente.",
    "¿Tengo correo de ingeniería?": "Sí, a todos los estudiantes inscritos se les crea un correo.",
    "¿Cómo actualizo mi CUI?": "Ingrese al portal de registro y complete el formulario.",
    "¿Por qué no puedo hacer la suficiencia de un curso?": "El requisito para poder hacer la suficiencia de un curso es no haberlo cursado anteriormente y no haber intentado hacer una suficiencia de ese mismo curso anteriormente.",
}


class FakeEmbedder:
    """Query vectors from a table (unknown texts: a vector far from every entry); counts its calls."""

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        self.table, self.calls = table, 0

    def embed_queries(self, texts):
        self.calls += 1
        return np.stack([self.table.get(t, _unit(np.arange(8.0))) for t in texts])

    def embed_passages(self, texts):
        return self.embed_queries(texts)


def _unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


def _table() -> dict[str, np.ndarray]:
    """Each entry its own direction over a shared component (as e5's cosines crowd together: 0.8 between entries)."""
    out = {}
    for i, q in enumerate(ENTRIES):
        v = np.full(8, 0.0)
        v[7] = 2.0
        v[i] = 1.0
        out[q] = _unit(v)
    return out


def _cands(scores: dict[str, float], doc: str = "faq"):
    out = []
    for i, (q, a) in enumerate(ENTRIES.items()):
        unit = SimpleNamespace(kind="faq", context=q, text=a, offset=i)
        out.append(SimpleNamespace(unit=unit, chunk=SimpleNamespace(doc_id=doc), score=scores.get(q, 0.1), parts={}, hit_no=1))
    other = SimpleNamespace(unit=SimpleNamespace(kind="sentence", context="Artículo 9", text="Un artículo vecino sobre la contraseña del portal.", offset=99), chunk=SimpleNamespace(doc_id="normativo"), score=0.9, parts={}, hit_no=1)
    return [other, *out]


def test_the_entry_whose_question_the_student_asks_goes_first_and_alone():
    table = _table()
    question = "se me olvido la clave del portal, como la recupero?"
    table[question] = _unit(table["¿Cómo recupero mi contraseña del portal?"] * 0.98 + table["¿Tengo correo de ingeniería?"] * 0.02)
    emb = FakeEmbedder(table)
    cands = _cands({})
    hit_ = FaqMatcher(emb).promote(ask(question), table[question], cands)
    assert hit_ is cands[0] and hit_.unit.context == "¿Cómo recupero mi contraseña del portal?" and matched(hit_)
    assert all(c.score * 0.85 < hit_.score for c in cands[1:])  # below the share selection keeps beside the best unit
    assert hit_.parts["faq_sim"] >= 0.91 and hit_.parts["faq_spread"] >= 1.8


def test_a_question_close_to_every_entry_matches_none():
    table = _table()
    generic = "¿Qué es la asignación?"
    table[generic] = _unit(sum(table.values()))  # equally close to all: high cosine, no spread
    cands = _cands({})
    before = [c.unit.text for c in cands]
    assert FaqMatcher(FakeEmbedder(table)).promote(ask(generic), table[generic], cands) is None
    assert [c.unit.text for c in cands] == before and not any(matched(c) for c in cands)


def test_an_entry_that_does_not_hold_the_asked_object_is_not_matched():
    table = _table()
    question = "¿Cómo recupero mi boleta de pago del examen privado?"
    table[question] = table["¿Cómo recupero mi contraseña del portal?"]  # the same meaning to the embedder, another object
    assert FaqMatcher(FakeEmbedder(table)).promote(ask(question), table[question], _cands({})) is None


def test_without_a_question_vector_nothing_changes():
    cands = _cands({})
    assert FaqMatcher(FakeEmbedder(_table())).promote(ask("¿Cómo recupero mi contraseña?"), None, cands) is None


def test_a_document_s_entries_are_embedded_once_in_one_batch():
    table = _table()
    emb = FakeEmbedder(table)
    chunk = SimpleNamespace(units=[SimpleNamespace(kind="faq", context=q, text=a) for q, a in ENTRIES.items()])
    m = FaqMatcher(emb, chunks_of=lambda doc: [chunk] if doc == "faq" else [])
    for q in ("¿Cómo recupero mi contraseña del portal?", "¿Cuántas veces puedo modificar mi asignación?", "otra cosa"):
        m.promote(ask(q), table.get(q, _unit(np.arange(8.0))), _cands({})[:3])  # only two entries among the candidates
    assert emb.calls == 1 and len(m._vecs) == len(ENTRIES)


def test_spread_needs_enough_entries():
    assert spread_of(0.95, [0.95, 0.8, 0.8]) is None
    assert spread_of(0.95, [0.95, 0.8, 0.8, 0.8, 0.8]) > 1.8


def test_the_generator_says_the_matched_entry_and_labels_a_yes_no_answer_listo():
    faq = (
        "## Preguntas frecuentes\n\n"
        + "".join(f"{i}. {q}\n{a}\n" for i, (q, a) in enumerate(ENTRIES.items(), start=1))
    )
    rules = "## Asignación\n\nArtículo 12. El estudiante podrá asignarse un curso hasta tres veces en el semestre.\n"
    hits = [hit("faq", "Preguntas frecuentes", faq, URL, "Preguntas frecuentes"), hit("normativo", "Normativo", rules, URL, "Asignación", pos=1)]
    table = _table()
    question = "¿Puedo solicitar suficiencia de un curso que ya cursé?"
    table[question] = table["¿Por qué no puedo hacer la suficiencia de un curso?"]
    emb = FakeEmbedder(table)
    for h in hits:
        from pipeline.generation.candidates import units_of

        for u in units_of(h.chunk):
            u.set_vec(_unit(np.arange(8.0)))
    gen = ExtractiveGenerator(embedder=emb)
    answer = gen.generate(question, hits)
    assert "es no haberlo cursado anteriormente" in answer.text and "tres veces" not in answer.text, answer.text
    assert readiness_of(answer.flags)["flag"] == "listo", readiness_of(answer.flags)
