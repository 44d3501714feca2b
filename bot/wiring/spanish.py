"""orienta speaks Spanish in the terminal and the console: the library's and click's common English messages, said in Spanish.

The library keeps its own (English) exception texts, which logs and tests read; only what the terminal shows is
translated here. A message with no entry is shown as it is: a rare English line beats a wrong translation.
"""

from __future__ import annotations

import re

# (pattern over the whole first line, replacement): the library's errors the CLI shows to the user
LIBRARY = [
    (r"no draft #(\d+)", r"no existe el borrador #\1"),
    (r"(.+): unsupported file type (.+); supported: (.+)", r"\1: tipo de archivo no admitido \2; se admiten: \3"),
    (r"(.+): empty file", r"\1: el archivo está vacío"),
    (r"(.+): too large \((.+) MB > (.+) MB limit\)", r"\1: demasiado grande (\2 MB; el máximo es \3 MB)"),
    (r"(.+): cannot be read \((.+)\)", r"\1: no se puede leer (\2)"),
    (r"(.+): could not be parsed as (\w+) \((.+)\)", r"\1: no se pudo interpretar como \2 (\3)"),
    (r"(.+): no text could be extracted", r"\1: no se pudo extraer texto"),
    (r"(.+): looks like a binary file, not text", r"\1: parece un archivo binario, no texto"),
    (r"(.+): another file \((.+)\) already has the document id (.+)", r"\1: otro archivo (\2) ya tiene el id de documento \3"),
    (r"the answer text is empty", "el texto de la respuesta está vacío"),
    (r"no message (\d+)", r"no existe el mensaje \1"),
    (r"no curated answer #(\d+)", r"no existe la respuesta guardada #\1"),
    (r"message (\d+): cannot go from '(.+)' to '(.+)'", r"mensaje \1: no puede pasar de '\2' a '\3'"),
    (r"message (\d+) was already handled by (.+?) \((.+)\)", r"el mensaje \1 ya fue atendido por \2 (\3)"),
    (r"message (\d+) was already handled by (.+)", r"el mensaje \1 ya fue atendido por \2"),
    (r"message (\d+) was already handled \((.+)\)", r"el mensaje \1 ya fue atendido (\2)"),
    (r"message (\d+) was already handled", r"el mensaje \1 ya fue atendido"),
    (r"draft #(\d+) is not the latest draft of message (\d+)", r"el borrador #\1 no es el último del mensaje \2"),
    (r"draft #(\d+) contains links that are not in the documents \((.+)\); confirm them explicitly to send",
     r"el borrador #\1 lleva enlaces que no están en los documentos (\2); para enviarlo igual, confirmalos con --confirm-links"),
    (r"the draft is empty \(the model declined to answer\): edit it or reject it", "el borrador está vacío (el modelo no quiso responder): editalo o rechazalo"),
    (r"the edited reply is empty", "la respuesta editada está vacía"),
    (r"unknown reject reason (.+); choose from (.+)", r"motivo de rechazo desconocido \1; opciones: \2"),
    (r"unknown answer state (.+); choose from (.+)", r"estado desconocido \1; opciones: \2"),
    (r"draft #(\d+) was not approved: only a reply that was sent can become a standard answer",
     r"el borrador #\1 no fue aprobado: solo una respuesta enviada puede pasar a ser respuesta estándar"),
    (r"week must look like 2026-W47, got (.+)", r"la semana debe tener la forma 2026-W47 (se recibió \1)"),
    (r"no such ISO week: (.+)", r"no existe la semana ISO \1"),
    (r"(.+) exists and was not created by `orienta demo`; choose another --data-dir", r"\1 ya existe y no la creó `orienta demo`; elegí otra --data-dir"),
    (r"the index is empty: run `orienta ingest` first", "el índice está vacío: corré primero `orienta ingest`"),
    (r"--llm needs an LLM: set ANTHROPIC_API_KEY \(or use --offline\)", "--llm necesita un LLM: definí ANTHROPIC_API_KEY (o usá --offline)"),
    (r"no gate in (.+): run `orienta gate train`", r"no hay un gate en \1: corré `orienta gate train`"),
    (r"the gate in (.+) has an old format: run `orienta gate train`", r"el gate de \1 tiene un formato viejo: corré `orienta gate train`"),
    (r"the gate needs examples of both classes", "el gate necesita ejemplos de las dos clases"),
    (r"no chunks to sample from", "no hay fragmentos de donde sacar ejemplos: corré primero `orienta ingest`"),
    (r"unknown feature set (.+); combine (.+) with '\+'", r"conjunto de rasgos desconocido \1; combiná \2 con '+'"),
    (r"unknown gate model (.+?)(?:; choose from (.+))?", r"modelo de gate desconocido \1"),
    (r"k-NN needs dense features \(embedding, similarity or lexical\)", "k-NN necesita rasgos densos (embedding, similarity o lexical)"),
]

# click's usage errors (typer vendors click; its texts are not translatable through gettext)
USAGE = [
    (r"Missing argument (.+?)\.(?: (.+))?", r"falta el argumento \1 \2"),
    (r"Missing option (.+?)\.(?: (.+))?", r"falta la opción \1 \2"),
    (r"Missing parameter: (.+)", r"falta el parámetro \1"),
    (r"Missing command\.", "falta el comando"),
    (r"No such option: (\S+) \(Possible options: (.+)\)", r"no existe la opción \1 (opciones parecidas: \2)"),
    (r"No such option: (\S+)", r"no existe la opción \1"),
    (r"No such command '(.+)'\. Did you mean (.+)\?", r"no existe el comando '\1' (¿quisiste decir \2?)"),
    (r"No such command '(.+)'\.", r"no existe el comando '\1'"),
    (r"Got unexpected extra argument(?:s|\(s\))? \((.+)\)", r"sobran argumentos: \1"),
    (r"Option '(.+)' requires an argument\.", r"la opción '\1' necesita un valor"),
    (r"Option '(.+)' does not take a value\.", r"la opción '\1' no lleva valor"),
    (r"Invalid value: (.+)", r"valor inválido: \1"),
]

# why a value was refused (typer checks values with pydantic; older versions with click's types)
VALUE = [
    (r"Value error, (.+) is a placeholder value; set a real secret or leave it unset", r"\1 es un valor de ejemplo: poné un secreto real o dejalo sin definir"),
    (r"Input should be a valid integer.*", "tiene que ser un número entero"),
    (r"Input should be a valid number.*", "tiene que ser un número"),
    (r"Input should be a valid boolean.*", "tiene que ser sí o no (true/false)"),
    (r"Input should be greater than or equal to (.+)", r"tiene que ser mayor o igual que \1"),
    (r"Input should be greater than (.+)", r"tiene que ser mayor que \1"),
    (r"Input should be less than or equal to (.+)", r"tiene que ser menor o igual que \1"),
    (r"Input should be less than (.+)", r"tiene que ser menor que \1"),
    (r"'(.+)' is not a valid integer\.", r"tiene que ser un número entero (se recibió '\1')"),  # said as pydantic's is
    (r"'(.+)' is not a valid float\.", r"tiene que ser un número (se recibió '\1')"),
    (r"(.+) is not in the range x>=(\S+)\.", r"tiene que ser mayor o igual que \2 (se recibió \1)"),  # click's IntRange
    (r"(.+) is not in the range x>(\S+)\.", r"tiene que ser mayor que \2 (se recibió \1)"),
    (r"(.+) is not in the range x<=(\S+)\.", r"tiene que ser menor o igual que \2 (se recibió \1)"),
    (r"(.+) is not in the range x<(\S+)\.", r"tiene que ser menor que \2 (se recibió \1)"),
    (r"(.+) is not in the range (.+)\.", r"\1 está fuera del rango \2"),
    (r"(.+) is not one of (.+)\.", r"\1 no es ninguna de estas opciones: \2"),
    (r"Input should be ('.+') or ('.+')", r"tiene que ser \1 o \2"),
    (r"Input should be ('.+')", r"tiene que ser \1"),
]


def _translate(text: str, table: list[tuple[str, str]]) -> str:
    for pattern, replacement in table:
        match = re.fullmatch(pattern, text, flags=re.DOTALL)
        if match:
            return match.expand(replacement)
    return text


def library(text: str) -> str:
    return _translate(text, LIBRARY)


def value(text: str) -> str:
    """Why a value was refused (a pydantic or click message), in Spanish when known."""
    return _translate(text, VALUE)


def usage(text: str) -> str:
    """One line: click's multi-line extras (a list of choices) are joined."""
    text = " ".join(text.split())
    invalid = re.fullmatch(r"Invalid value for (.+?): (.+)", text)
    if invalid:
        return f"valor inválido para {invalid.group(1)}: {value(invalid.group(2))}"
    return _translate(text, USAGE).replace("Choose from:", "opciones:").strip()
