"""How far any neighbour or correction method can reach on the replay benchmark's unseen mistakes (issue 28).

  PYTHONPATH=$PWD python benchmarks/gate_learning_neighbours.py --data-dir DIR [--parts fresh2,fresh3,fresh,fresh4]

For each split of benchmarks/gate_learning.py (same halves, same staff review of the seen half), every mistake the gate
makes on the unseen half is listed with its nearest staff-decided message of the seen half (cosine of the embedder the
gate uses), that message's label, and the nearest message labelled the right way and the wrong way for it. "reachable":
the nearest correctly-labelled staff message is closer than the nearest wrongly-labelled one. The same counts are given
for the unseen messages the gate gets right ("at risk": their nearest staff message has the other label), which is what a
neighbour rule would break. Writes benchmarks/results/gate_learning_neighbours.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [str(ROOT), str(ROOT / "benchmarks")] + [p for p in sys.path if p and Path(p).resolve() != Path(__file__).resolve().parent]

import gate_learning as gl  # noqa: E402
from bot.learning.gate_training import train_gate_offline  # noqa: E402
from bot.ops.documents import ingest_documents, read_jsonl  # noqa: E402
from bot.wiring.services import Services  # noqa: E402
from pipeline.settings import load_settings  # noqa: E402


def unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)


def split_rows(gate, embedder, seen: list[dict], unseen: list[dict]) -> dict:
    staff = gl.traffic(gate, seen, embedder)
    y_seen = np.array([s.label for s in staff])
    corr = np.array([s.correction for s in staff])
    y = np.array([int(r["label"] == "in") for r in unseen])
    pred = gl.verdicts(gate, unseen, embedder)
    scores = gate.probabilities([r["text"] for r in unseen], embedder, memory=False)
    sims = unit(embedder.embed_queries([r["text"] for r in unseen])) @ unit(embedder.embed_queries([r["text"] for r in seen])).T
    arrays = {"y": y, "pred": pred, "score": scores, "sims": sims, "y_seen": y_seen, "correction": corr}
    rows, right = [], {"n": 0, "at_risk": 0}
    for i in range(len(unseen)):
        near = int(np.argmax(sims[i]))
        same = sims[i][y_seen == y[i]].max() if (y_seen == y[i]).any() else -1.0
        other = sims[i][y_seen != y[i]].max() if (y_seen != y[i]).any() else -1.0
        if pred[i] == y[i]:
            right["n"] += 1
            right["at_risk"] += int(other > same)
            continue
        rows.append({"text": unseen[i]["text"], "family": unseen[i].get("family", "?"), "label": int(y[i]), "score": round(float(scores[i]), 3),
                     "nearest": seen[near]["text"], "nearest_label": int(y_seen[near]), "nearest_correction": bool(corr[near]), "nearest_sim": round(float(sims[i][near]), 3),
                     "nearest_right_sim": round(float(same), 3), "nearest_wrong_sim": round(float(other), 3), "reachable": bool(same > other)})
    return {"mistakes": rows, "right": right, "corrections": int(corr.sum()), "arrays": arrays}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--parts", default="fresh2,fresh3,fresh,fresh4")
    ap.add_argument("--arrays", type=Path, default=None, help="save each split's scores, labels and similarities (npz) here")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "gate_learning_neighbours.json")
    args = ap.parse_args()
    services = Services(load_settings(data_dir=args.data_dir))
    if not services.index.all_chunks():
        ingest_documents(services, [gl.SHARED / "fiusac" / "text"])
    gate = train_gate_offline(services)
    embedder = gl.Cached(services)
    data = {"dev": (gl.DEV, tuple(range(1, 11))), "fresh": (gl.FRESH, (103, 104)), "fresh2": (gl.FRESH2, (201, 202)), "fresh3": (gl.FRESH3, (301, 302)), "fresh4": (gl.FRESH4, (401, 402))}
    out: dict = {}
    for part in [p.strip() for p in args.parts.split(",") if p.strip()]:
        path, seeds = data[part]
        rows = read_jsonl(path)
        for seed in seeds:
            r = split_rows(gate, embedder, *gl.halves(rows, seed))
            arrays = r.pop("arrays")
            if args.arrays is not None:
                args.arrays.mkdir(parents=True, exist_ok=True)
                np.savez_compressed(args.arrays / f"{part}_{seed}.npz", threshold=gate.threshold, **arrays)
            m = r["mistakes"]
            r["summary"] = {"mistakes": len(m), "reachable": sum(x["reachable"] for x in m), "nearest_is_right": sum(x["nearest_label"] == x["label"] for x in m),
                            "right_verdicts": r["right"]["n"], "right_at_risk": r["right"]["at_risk"]}
            out[f"{part}/{seed}"] = r
            print(part, seed, r["summary"], flush=True)
            for x in m:
                print(f"   [{x['family']}/{'in' if x['label'] else 'out'} {x['score']:.2f}] {x['text'][:70]!r} -> {x['nearest_sim']:.3f} {'in' if x['nearest_label'] else 'out'}{'*' if x['nearest_correction'] else ''} "
                      f"{x['nearest'][:60]!r}; right {x['nearest_right_sim']:.3f} wrong {x['nearest_wrong_sim']:.3f}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2, ensure_ascii=False), encoding="utf-8")
    services.close()


if __name__ == "__main__":
    main()
