"""Campus mode from the command line: offices add, ingest and gate train per office, routing evaluation, moves."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from bot.cli import app

LIBRARY = """# Biblioteca central

## Préstamo de libros
El préstamo de libros de la biblioteca central dura siete días. Cada estudiante puede llevar hasta tres libros a la vez.
La renovación del préstamo se hace en el mostrador de la biblioteca o en el catálogo en línea.

## Multas por atraso
Cada día de atraso en la devolución de un libro genera una multa de dos pesos por libro.
Con multas pendientes no se pueden pedir libros nuevos hasta pagarlas en la biblioteca.

## Salas de lectura
Las salas de lectura silenciosa de la biblioteca abren de lunes a viernes de 8 a 21 horas.
Las salas grupales se reservan con un día de anticipación en el mostrador de la biblioteca.
"""

SPORTS = """# Deportes universitarios

## Gimnasio
El gimnasio universitario abre de lunes a sábado de 7 a 22 horas. La inscripción al gimnasio requiere un certificado médico vigente.
La cuota del gimnasio es gratuita para estudiantes con la matrícula al día.

## Torneos
Los torneos de fútbol, básquetbol y vóleibol se juegan cada semestre entre facultades.
Los equipos se inscriben en la coordinación de deportes con una lista de jugadores y sus carnés.

## Piscina
La piscina universitaria tiene clases de natación para principiantes los martes y jueves.
Para usar la piscina se pide gorra de natación y un control dermatológico anual.
"""

QUESTIONS = [
    ("¿Cuántos días dura el préstamo de un libro de la biblioteca?", "Biblioteca"),
    ("¿Cuánto es la multa por devolver tarde un libro?", "Biblioteca"),
    ("¿Cómo reservo una sala grupal de lectura en la biblioteca?", "Biblioteca"),
    ("¿A qué hora abre el gimnasio universitario?", "Deportes"),
    ("¿Cómo inscribo a mi equipo de fútbol en el torneo?", "Deportes"),
    ("¿Qué necesito para usar la piscina universitaria?", "Deportes"),
]


@pytest.fixture
def cli(cli_env):
    runner = CliRunner()

    def run(*args: str, ok: bool = True):
        result = runner.invoke(app, list(args), catch_exceptions=False)
        if ok:
            assert result.exit_code == 0, result.output
        return result

    return run


@pytest.fixture
def campus(cli, tmp_path):
    """Two offices with their own documents, indexed; the default office left unused."""
    for name, text in (("Biblioteca", LIBRARY), ("Deportes", SPORTS)):
        folder = tmp_path / "docs" / name.lower()
        folder.mkdir(parents=True)
        (folder / f"{name.lower()}.md").write_text(text, encoding="utf-8")
        created = json.loads(cli("offices", "add", name, "--documents", str(folder), "--json").stdout)
        assert created["name"] == name and created["documents"] == [str(folder.resolve())]
        report = json.loads(cli("ingest", "--office", name, "--json").stdout)
        assert report["added"] == [name.lower()] and report["chunks"] > 0
    return tmp_path


def test_offices_have_their_own_index_and_gate(cli, campus, cli_env):
    listed = {o["name"]: o for o in json.loads(cli("offices", "list", "--json").stdout)}
    assert listed["principal"]["default"] and listed["principal"]["chunks"] == 0
    assert listed["Biblioteca"]["chunks"] > 0 and listed["Deportes"]["chunks"] > 0
    docs = json.loads(cli("docs", "list", "--office", "Deportes", "--json").stdout)
    assert list(docs) == ["deportes"]  # the office's index holds its documents only
    hits = json.loads(cli("search", "multa por atraso", "--office", "Biblioteca", "--json").stdout)
    assert hits and all(h["doc_id"] == "biblioteca" for h in hits)
    gate = json.loads(cli("gate", "train", "--office", "Biblioteca", "--json").stdout)
    assert gate["other_office_examples"] > 0  # the other office's documents are near-miss negatives
    assert (cli_env / "offices" / "biblioteca" / "gate" / "gate.json").exists()
    assert not (cli_env / "gate" / "gate.json").exists()  # the default office's gate is untouched


def test_unknown_office_and_duplicate_are_refused_with_a_clear_message(cli, campus):
    bad = cli("search", "libros", "--office", "Tesorería", ok=False)
    assert bad.exit_code != 0 and "no existe la oficina 'Tesorería'" in bad.output and "Biblioteca" in bad.output
    again = cli("offices", "add", "biblioteca", "--documents", str(campus / "docs" / "biblioteca"), ok=False)
    assert again.exit_code != 0 and "ya existe" in again.output


def test_eval_routing_reports_macro_f1_accuracy_and_confusion(cli, campus):
    qa = campus / "routing.jsonl"
    rows = [{"question": q, "office": o} for q, o in QUESTIONS] + [{"question": "¿En qué año se fundó el Imperio bizantino?", "office": None}]
    qa.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    report = json.loads(cli("eval", "routing", "--qa", str(qa), "--json").stdout)
    assert {"macro_f1", "accuracy", "confusion"} <= set(report)
    assert set(report["offices"]) == {"Biblioteca", "Deportes"}
    assert report["n"] == len(rows)
    assert sum(report["confusion"]["Biblioteca"].values()) == 3 and sum(report["confusion"]["Deportes"].values()) == 3
    office_rows = [(q, o) for q, o in QUESTIONS]
    right = sum(report["confusion"][o].get(o, 0) for o in ("Biblioteca", "Deportes"))
    assert right >= len(office_rows) - 1  # lexically distinct offices: the model-free embedder separates them


def test_eval_routing_rejects_a_bad_file(cli, campus):
    qa = campus / "bad.jsonl"
    qa.write_text(json.dumps({"question": "hola"}) + "\n", encoding="utf-8")
    bad = cli("eval", "routing", "--qa", str(qa), "--json", ok=False)
    assert bad.exit_code != 0 and "'office'" in bad.output


def test_a_single_office_deployment_needs_no_office_option(cli):
    cli("ingest")
    listed = json.loads(cli("offices", "list", "--json").stdout)
    assert [o["name"] for o in listed] == ["principal"] and listed[0]["chunks"] > 0
    hits = json.loads(cli("search", "becas", "--office", "principal", "--json").stdout)
    assert hits  # --office naming the only office is the same as no option


def test_removing_an_office_keeps_it_listed_until_added_again(cli, campus):
    cli("offices", "remove", "Deportes")
    names = [o["name"] for o in json.loads(cli("offices", "list", "--json").stdout)]
    assert "Deportes" not in names
    bad = cli("search", "gimnasio", "--office", "Deportes", ok=False)
    assert "no existe la oficina" in bad.output
    cli("offices", "add", "Deportes", "--documents", str(campus / "docs" / "deportes"))
    assert "Deportes" in [o["name"] for o in json.loads(cli("offices", "list", "--json").stdout)]


def test_review_queue_per_office_moves_and_a_refused_loop(cli, campus, cli_env):
    from sqlmodel import Session

    from review.db import init_db, make_engine
    from tests.review.factories import make_drafted

    engine = make_engine(f"sqlite:///{(cli_env / 'orienta.db').resolve()}")
    init_db(engine)
    with Session(engine) as session:
        home, _ = make_drafted(session, question="¿A qué hora abre el gimnasio?")
        sports, sports_message = make_drafted(session, question="¿Hay torneo de vóleibol?")
        sports_message.office = "Deportes"
        session.add(sports_message)
        session.commit()
        home_id, sports_id = home.id, sports.id
    engine.dispose()
    assert [d["draft_id"] for d in json.loads(cli("review", "list", "--office", "Deportes", "--json").stdout)] == [sports_id]
    assert [d["draft_id"] for d in json.loads(cli("review", "list", "--office", "principal", "--json").stdout)] == [home_id]
    assert len(json.loads(cli("review", "list", "--json").stdout)) == 2  # without --office: the whole campus
    moved = json.loads(cli("review", "move", str(home_id), "--office", "Deportes", "--as", "ana", "--json").stdout)
    assert moved["office"] == "Deportes" and moved["state"] == "classified" and moved["route"] == ["principal", "Deportes"]
    assert json.loads(cli("review", "list", "--json").stdout) == [d for d in json.loads(cli("review", "list", "--json").stdout) if d["draft_id"] == sports_id]
    loop = cli("review", "move", str(moved["message_id"]), "--message", "--office", "principal", ok=False)
    assert loop.exit_code != 0 and "ya pasó por la oficina 'principal'" in loop.output and "bucle" in loop.output
    unknown = cli("review", "move", str(sports_id), "--office", "Tesorería", ok=False)
    assert "no existe la oficina 'Tesorería'" in unknown.output
    forced = json.loads(cli("review", "move", str(moved["message_id"]), "--message", "--office", "principal", "--force", "--json").stdout)
    assert forced["route"] == ["principal", "Deportes", "principal"]
