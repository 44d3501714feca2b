"""Does the gate judge the request, not the vocabulary around it? (issue 22, item 7)

Protocol:
  PYTHONPATH=$PWD python benchmarks/gate_padding.py --data-dir DIR
Uses the gate stored in the data dir (trained offline from the FIUSAC text documents; `benchmarks/gate_learning.py`
trains it) and scores, with the request clause deciding ("request") and without it (the best of the whole text and its
questions, as before: "best_segment"):
  - benchmarks/data/gate_learning_dev.jsonl: informal in-domain and near-miss messages written for issue 28, with a
    family of production requests padded with office words;
  - tests/classifiers/data/gate_dev_fiusac.jsonl: the near-miss development set of issue 4 (in = answerable + no-info);
  - SQuAD-es (out) vs fiusac/qa_dev.jsonl (in), shared corpora read by path;
  - benchmarks/data/gate_fresh_i22.jsonl: fresh cases for the families still missed in issue 22 (another field named by
    a common word, office business the documents do not cover, writing requests without a clitic), with controls;
  - benchmarks/data/gate_near_miss_fresh_i22g.jsonl: 60 fresh near-miss and informal messages written before the
    second round of issue 22's gate work (problem reports, other universities by short name, arithmetic with numbers,
    jobs, personal errands, padded requests); never used for training or a threshold;
  - benchmarks/data/gate_near_miss_fresh_i22n.jsonl: 150 fresh messages written before the third round of issue 22's gate
    work (75 informal FIUSAC questions incl. transfers and problem reports; 75 near misses: other universities named every
    way, jobs, homework, word problems, coding and writing requests, padded requests, services, general knowledge); never
    used for training or choosing.
  - benchmarks/data/gate_near_miss_fresh_i22s.jsonl: 120 fresh messages written before the fourth round (60 informal FIUSAC
    questions: rules, procedures, payments, problems, transfers; 60 near misses incl. other USAC faculties named by
    field); never used for training or choosing.
  - benchmarks/data/gate_near_miss_fresh_i22g2.jsonl: 120 fresh messages written before the fifth round (60 informal
    FIUSAC questions by family; 60 near misses: padded writing, homework and coding requests, other universities and other
    USAC faculties, jobs, services, general engineering, translation); never used for training or choosing.
  - benchmarks/data/gate_near_miss_fresh_i22x.jsonl: 120 fresh messages written before the sixth round (60 informal FIUSAC
    messages incl. office business the documents may lack: a section or schedule change, a lost card, a reprinted receipt;
    60 near misses: other universities and USAC faculties, services, personal errands, jobs and CV, padded writing,
    homework and coding requests, translation); never used for training or choosing.
  - benchmarks/data/gate_near_miss_fresh_i22y.jsonl: 120 fresh messages written before the seventh round (60 informal
    FIUSAC messages incl. 15 office errands the documents may not describe: certificates, a lost card, section and
    schedule changes, record appointments, readmission, duplicate receipts; 60 near misses: other universities and USAC
    faculties, public services, loans and favours, jobs, padded writing, homework and coding requests, recipes, general
    knowledge, translation); never used for training or choosing.
  - benchmarks/data/gate_near_miss_fresh_i22z.jsonl: 80 fresh messages written before the eighth round (40 informal
    FIUSAC messages incl. 10 errands phrased in varied ways and 5 naming another faculty or university as the student's
    origin or a document's recipient; 40 near misses: universities by nickname, other faculties' own procedures, padded
    asks with no request verb, bank business, misc); never used for training or choosing.
  - benchmarks/data/gate_near_miss_fresh_i22aa.jsonl: 120 fresh messages written before the ninth round (60 informal
    FIUSAC messages: rules, procedures, payments, problems, errands, letters asked for by an outside body, origins,
    transfers, schedules; 60 near misses: other universities and faculties, other institutions' documents and banks,
    homework, coding, writing, translation, jobs, general knowledge, personal errands, padded asks); never used for
    training or choosing.
  - benchmarks/data/gate_near_miss_fresh_i22ab.jsonl: 40 fresh messages written before the tenth round (20 FIUSAC
    messages naming the student's own career informally, asking about pay of the EPS or practices, or the name of an
    office paper; 20 near misses: another faculty named by its people or a bare field, a translation asked as a
    question, salaries); never used for training or choosing.
  - benchmarks/data/gate_near_miss_fresh_i22ac.jsonl: 120 fresh messages written before the eleventh round (60 informal
    FIUSAC messages: rules, procedures, payments, schedules incl. office hours, problems, errands, letters for outside
    bodies, EPS pay, own career, transfers, pensum changes; 60 near misses: other universities and USAC faculties,
    padded asks for a diagram, a recipe, an essay, code or a translation, homework, coding, writing, jobs and pay,
    public services, someone else's school business, general knowledge, translation, personal, banks); never used for
    training or choosing.
Each set is broken down by family, and the messages judged wrong are listed with their score ("misses").
For the padded family, how many were let through each way. Writes benchmarks/results/gate_padding.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [str(ROOT)] + [p for p in sys.path if p and Path(p).resolve() != Path(__file__).resolve().parent]

from bot.learning.gate_training import embed_queries_cached  # noqa: E402
from bot.ops.documents import read_jsonl  # noqa: E402
from bot.wiring.services import Services  # noqa: E402
from classifiers.evaluation import binary_report  # noqa: E402
from classifiers.gate import QUESTION, REQUESTS, WHOLE, judge_segments, message_segments  # noqa: E402
from pipeline.settings import load_settings  # noqa: E402

SHARED = next((p for p in (ROOT.parent / "shared" / "corpora", ROOT.parents[1] / "shared" / "corpora") if p.exists()), ROOT.parent / "shared" / "corpora")


def verdicts(gate, texts, services) -> dict[str, np.ndarray]:
    kinds: list[str] = []
    segments, owner = message_segments(texts, kinds=kinds)
    vecs = embed_queries_cached(services, segments)
    dense, sparse = gate.space.transform(segments, query_vecs=vecs)
    p = gate.probabilities_from_features(dense, sparse)
    with_request, best = judge_segments(p, owner, kinds, len(texts))
    with_request, _ = gate.errand_floor(with_request, best, dense, kinds)  # the student's own errand: at least the threshold
    with_request, _ = gate.elsewhere_bar(with_request, dense, owner, kinds)
    old_kinds = [k if k not in REQUESTS else "ignored" for k in kinds]
    keep = [i for i, k in enumerate(old_kinds) if k in (WHOLE, QUESTION)]
    best_segment, _ = judge_segments(p[keep], [owner[i] for i in keep], [old_kinds[i] for i in keep], len(texts))
    return {"request": with_request, "best_segment": best_segment}


def report(y, pred) -> dict:
    r = binary_report(list(y), list(pred))
    return {"f1_in": round(r["f1_in"], 3), "f1_out": round(r["f1_out"], 3), "confusion": r["confusion"]}


# The fresh near-miss sets of issue 22, one per round of its gate work, in the order they were written.
NEAR_MISS_ROUNDS = ("i22g", "i22n", "i22s", "i22g2", "i22x", "i22y", "i22z", "i22aa", "i22ab", "i22ac")


def _labelled(rows: list[dict]) -> tuple[list[str], list[int], list[str]]:
    """(texts, 1 for in domain, families) of a hand-written set's rows."""
    return [r["text"] for r in rows], [int(r["label"] == "in") for r in rows], [r["family"] for r in rows]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", type=Path, required=True, help="a data directory holding a gate trained from the FIUSAC text documents")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "gate_padding.json")
    args = ap.parse_args()
    services = Services(load_settings(data_dir=args.data_dir))
    gate = services.gate
    out: dict = {"threshold": gate.threshold}
    sets = {}
    sets["issue28_dev"] = _labelled(read_jsonl(ROOT / "benchmarks" / "data" / "gate_learning_dev.jsonl"))
    sets["fresh_i22"] = _labelled(read_jsonl(ROOT / "benchmarks" / "data" / "gate_fresh_i22.jsonl"))  # written for issue 22; never used for training or a threshold
    nm = read_jsonl(ROOT / "tests" / "classifiers" / "data" / "gate_dev_fiusac.jsonl")
    nm_near = [r for r in nm if r["category"] != "far"]
    sets["issue4_near_miss"] = ([r["text"] for r in nm_near], [int(r["label"] != "ood") for r in nm_near], [r["category"] for r in nm_near])
    ins = [r["question"] for r in read_jsonl(SHARED / "fiusac" / "qa_dev.jsonl")]
    outs = [r["question"] for r in read_jsonl(SHARED / "ood" / "squad_es_dev.jsonl")]
    sets["squad_es"] = (ins + outs, [1] * len(ins) + [0] * len(outs), ["in"] * len(ins) + ["squad"] * len(outs))
    for name in NEAR_MISS_ROUNDS:  # each written before its round of issue 22's gate work; never trained on
        sets[f"fresh_{name}"] = _labelled(read_jsonl(ROOT / "benchmarks" / "data" / f"gate_near_miss_fresh_{name}.jsonl"))
    for name, (texts, y, fams) in sets.items():
        scores = verdicts(gate, texts, services)
        v = {how: (sc >= gate.threshold).astype(int) for how, sc in scores.items()}
        out[name] = {how: report(y, pred) for how, pred in v.items()}
        # per family: how many each way ended as labelled
        out[name]["by_family"] = {f: {how: f"{int(sum(pred[i] == y[i] for i in range(len(y)) if fams[i] == f))} of {fams.count(f)}" for how, pred in v.items()} for f in sorted(set(fams))}
        if name != "squad_es":
            pred, sc = v["request"], scores["request"]
            out[name]["misses"] = [f"{'in' if y[i] else 'out'}/{fams[i]} p={sc[i]:.3f}: {texts[i][:110]}" for i in range(len(y)) if pred[i] != y[i]]
        padded = [i for i, f in enumerate(fams) if f == "padded"]
        if padded:
            out[name]["padded_let_through"] = {how: int(pred[padded].sum()) for how, pred in v.items()} | {"n": len(padded)}
        print(name, json.dumps(out[name], ensure_ascii=False))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2, ensure_ascii=False), encoding="utf-8")
    services.close()


if __name__ == "__main__":
    main()
