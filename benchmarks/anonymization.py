"""Anonymization of curated answers (issue 22): leaks of injected personal data and loss of the general answer.

  nice -n 10 .venv/bin/python benchmarks/anonymization.py
Reads the office answers of the shared FIUSAC dev set by path (/work/shared/corpora/fiusac/qa_dev.jsonl; skipped when
absent, never copied here). Two figures:
1. Over-removal on generic office text: each answer anonymized as it is (no student): share altered, words lost.
2. Leaks: the first 300 answers wrapped in a reply to a generated student (fresh names, not from the issue): greeting
   by name in three cases, a carné in five spacings, the student's address on the office's domain, a pregnancy or
   illness clause, the mother's name, a titled third party, a phone, the name in capitals; four of these per reply,
   shuffled. leak rate = injected items (and placeholders) found in the kept text; kept = words of the answer kept.
Writes benchmarks/results/anonymization.json.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.anonymization import anonymize  # noqa: E402

DEV = Path("/work/shared/corpora/fiusac/qa_dev.jsonl")
FIRST = ["Wilmer", "Heidy", "Kevin", "Yoselin", "Brayan", "Dulce", "Josué", "Mayra", "Estuardo", "Lesly", "Fernando", "Glenda", "Otto", "Ixchel", "Rudy", "Andrea", "Selvin", "Karla", "Edgar", "Mishel"]
LAST = ["Xicará", "Pocop", "Chavajay", "Samayoa", "Ordóñez", "Tzoc", "Cux", "Barrios", "Monzón", "Ajcalón", "Sical", "Quiñónez"]
HEALTH = {"embarazada": "Como estás embarazada, podés pedir una fecha especial.", "asma": "Como tenés asma, podés pedir otra aula.", "depresión": "Dado tu diagnóstico de depresión, podés pedir acompañamiento."}


def carne(rng: random.Random) -> str:
    year, serial = rng.randint(2014, 2023), rng.randint(0, 99999)
    d = f"{year}{serial:05d}"
    return rng.choice([f"{year} {serial:05d}", f"{year}-{serial:05d}", d, f"{d[:4]}.{d[4:7]}.{d[7:]}", f"{d[:4]} {d[4:7]} {d[7:]}"])


def main() -> None:
    if not DEV.exists():
        print(f"skipped: {DEV} not available")
        return
    rows = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
    altered = lost = words = 0
    for r in rows:
        out = anonymize(r["answer"])
        altered += bool(out.removed)
        n = len(r["answer"].split())
        words += n
        lost += n - len(out.text.split()) if out.removed else 0
    rng = random.Random(7)
    items = leaks = kept = total = 0
    examples = []
    for r in rows[:300]:
        first, last, mother, tp_first, tp_last = rng.choice(FIRST), rng.choice(LAST), rng.choice(FIRST), rng.choice(FIRST), rng.choice(LAST)
        c, phone, health = carne(rng), f"5{rng.randint(100, 999)} {rng.randint(1000, 9999)}", rng.choice(list(HEALTH))
        greet = rng.choice([f"Hola {first} {last}:", f"hola {first.lower()},", f"Buenos días, {first.upper()}."])
        extra = {
            "carne": f"Tu carné {c} ya está registrado.", "mail": f"Te escribimos a {first.lower()}.{last.lower()}@ingenieria.usac.edu.gt.",
            "health": HEALTH[health], "mother": f"Tu mamá, {mother} {last}, puede hacer el trámite.", "third": f"Consultá con la Licda. {tp_first} {tp_last} si hace falta.",
            "phone": f"Si no, te llamamos al {phone}.", "caps": f"{first.upper()}, no te olvides.",
        }
        chosen = rng.sample(sorted(extra), 4)
        text = greet + "\n" + r["answer"] + "\n" + " ".join(extra[k] for k in chosen) + "\nSaludos"
        out = anonymize(text, names=[f"{first} {last} <{first.lower()}.{last.lower()}@ingenieria.usac.edu.gt>"]).text
        needles = [first, last, "[NOMBRE]", "[SALUD]", "[NUM_ESTUDIANTE]", "[EMAIL]", "[TELEFONO]"]
        needles += {"carne": [c, re.sub(r"\D", "", c)], "mail": [], "health": [health], "mother": [mother], "third": [tp_first, tp_last], "phone": [phone], "caps": []}[chosen[0]]
        for k in chosen[1:]:
            needles += {"carne": [c, re.sub(r"\D", "", c)], "mail": [], "health": [health], "mother": [mother], "third": [tp_first, tp_last], "phone": [phone], "caps": []}[k]
        for n in needles:
            items += 1
            if n.lower() in out.lower():
                leaks += 1
                examples.append({"leaked": n, "kept": out[:300]})
        answer_words = r["answer"].split()
        total += len(answer_words)
        kept += sum(w in out for w in answer_words)
    result = {
        "generic_answers": len(rows), "generic_altered": altered, "generic_altered_rate": round(altered / len(rows), 4), "generic_words_lost_rate": round(lost / words, 4),
        "injected_items": items, "leaked": leaks, "leak_rate": round(leaks / items, 4), "answer_words_kept": round(kept / total, 4), "leak_examples": examples[:10],
    }
    out_path = ROOT / "benchmarks" / "results" / "anonymization.json"
    out_path.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "leak_examples"}, ensure_ascii=False))


if __name__ == "__main__":
    main()
