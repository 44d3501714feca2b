"""Split-and-replay benchmark of learning the gate from staff (issue 28).

Protocol:
  PYTHONPATH=$PWD python benchmarks/gate_learning.py --data-dir DIR [--splits 2] [--fresh-seeds 101,102]
      [--fresh2-seeds 201,202] [--fresh3-seeds 301,302] [--fresh4-seeds 401,402]
      [--parts tuning,fresh,fresh2,fresh3,fresh4,dev_to_fresh,worse] [--out PATH]
The gate is trained offline from the FIUSAC text documents (shared corpora, read by path). The dev set
benchmarks/data/gate_learning_dev.jsonl (informal in-domain messages and near-miss out-of-domain ones, written for this
benchmark and used nowhere in training) is split in two halves, stratified, per seed:
  - staff traffic: the first half is judged by the gate; every mistake is corrected (and every in-domain verdict under
    0.7 approved as a correction), every right verdict approved — reviewer "staff";
  - the gate learns (classifiers.retraining.learn_from_staff, what `orienta gate retrain` runs) and the unseen half is
    evaluated before and after, with the verdict of adoption;
  - poisoned: the same, but 30 in-domain messages of the first half are rejected as out of domain by reviewer "mallory";
    the share of in-domain messages of the unseen half turned away, before and after;
  - reach: memory radius -> unseen messages it decides, mistakes it fixes, right verdicts it breaks (split 1 chooses it);
  - a deliberately worse retrain (labels flipped) to show adoption refuses it.
The correction weight, the memory radius and the adoption margins were chosen on the dev set's splits 1 and 2 ("tuning"
in the results: optimistic by construction). The figures to quote are the "fresh" ones: 100 messages written afterwards
(benchmarks/data/gate_learning_fresh.jsonl: 50 informal in-domain, 50 near misses, kept out of all training and tuning),
split with seeds 101 and 102 that were never used, the configured parameters unchanged; and "dev_to_fresh": every dev
message reviewed as staff traffic, every fresh message unseen. "unseen_after" is what the office would serve (the
candidate if adopted, else the gate as it was); "unseen_after_candidate" is the retrained classifier either way;
"unseen_after_memory_alone" is the other candidate, the gate as it was with the staff memory (within its radius) consulted
first, and "memory_only_evidence" its out-of-fold verdict; "reach_out_of_fold" is the memory's reach curve judged out of
fold on the seen half alone (what `gate retrain --json` reports), to set beside "reach", the same curve on the unseen half.
"fresh3": a third fresh file (benchmarks/data/gate_learning_fresh3.jsonl, 202 messages by family) written in the fourth
session before any of its runs, split with seeds 301 and 302, for confirmation only.
"fresh4": a fourth fresh file (benchmarks/data/gate_learning_fresh_i28s.jsonl, 207 messages by family, among them public
services) written before the intent-level learning was tried, split with seeds 401 and 402, the untouched check.
"fresh2": a second, larger fresh file written in the third session (benchmarks/data/gate_learning_fresh2.jsonl: 119
informal in-domain, 120 near misses and far ones, by family), never used for training or for choosing anything, split
with seeds 201 and 202 (about 120 unseen messages per split); each total carries a 95% bootstrap interval of the fall
(unseen messages resampled within each split, both verdicts paired). "carry_by_family": how far staff labels reach, per
family of unseen message (other universities' procedures, homework, ...), at several cosine radii.
"--counterfactuals N" (off by default): each correction also teaches N variants of itself that keep its family and change
its surface (classifiers.counterfactual); "candidate_fixed" / "candidate_broken" (and "candidate_by_family"): the unseen
messages the retrained candidate fixes and breaks, its reach and overreach. The session-12 run with N = 6:
benchmarks/results/gate_learning_counterfactuals.json.
Timing at 10,000 decisions: benchmarks/gate_retrain_scale.py.
Writes benchmarks/results/gate_learning.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [str(ROOT)] + [p for p in sys.path if p and Path(p).resolve() != Path(__file__).resolve().parent]

from bot.learning.gate_training import _corpus, embed_queries_cached, synthetic_examples, train_gate_offline  # noqa: E402
from bot.ops.documents import ingest_documents, read_jsonl  # noqa: E402
from bot.wiring.services import Services  # noqa: E402
from classifiers import adoption  # noqa: E402
from classifiers.evaluation import binary_report  # noqa: E402
from classifiers.features import FeatureSpace  # noqa: E402
from classifiers.memory import choose_radius, reach_curve  # noqa: E402
from classifiers.retraining import LearningOptions, StaffLabel, learn_from_staff  # noqa: E402
from pipeline.settings import load_settings  # noqa: E402

SHARED = next((p for p in (ROOT.parent / "shared" / "corpora", ROOT.parents[1] / "shared" / "corpora") if p.exists()), ROOT.parent / "shared" / "corpora")
DEV = ROOT / "benchmarks" / "data" / "gate_learning_dev.jsonl"
FRESH = ROOT / "benchmarks" / "data" / "gate_learning_fresh.jsonl"
FRESH2 = ROOT / "benchmarks" / "data" / "gate_learning_fresh2.jsonl"
FRESH3 = ROOT / "benchmarks" / "data" / "gate_learning_fresh3.jsonl"
FRESH4 = ROOT / "benchmarks" / "data" / "gate_learning_fresh_i28s.jsonl"
RADII = (0.86, 0.88, 0.9, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97, 0.98)


class Cached:
    def __init__(self, services: Services) -> None:
        self.services, self.name, self.dim = services, services.embedder.name, services.embedder.dim

    def embed_queries(self, texts):
        return embed_queries_cached(self.services, list(texts))


def halves(rows: list[dict], seed: int) -> tuple[list[dict], list[dict]]:
    rng = np.random.default_rng(seed)
    a, b = [], []
    for label in ("in", "out"):
        group = [r for r in rows if r["label"] == label]
        order = rng.permutation(len(group))
        cut = len(group) // 2
        a += [group[i] for i in order[:cut]]
        b += [group[i] for i in order[cut:]]
    return a, b


def verdicts(gate, rows, embedder) -> np.ndarray:
    return (gate.probabilities([r["text"] for r in rows], embedder) >= gate.threshold).astype(int)


def figures(y, pred) -> dict:
    r = binary_report(list(y), list(pred))
    return {"mistakes": int((np.asarray(y) != np.asarray(pred)).sum()), "f1_in": round(r["f1_in"], 3), "f1_out": round(r["f1_out"], 3),
            "in_turned_away": int(r["confusion"][0][1]), "n_in": r["n_in"], "out_let_through": int(r["confusion"][1][0]), "n_out": r["n_out"]}


def traffic(gate, rows, embedder, reviewer: str = "staff") -> list[StaffLabel]:
    decisions = gate.outcomes([r["text"] for r in rows], embedder, explain=0)
    out = []
    for i, (r, d) in enumerate(zip(rows, decisions)):
        label = int(r["label"] == "in")
        correction = (label == 0 and d.in_domain) or (label == 1 and (not d.in_domain or d.score < 0.7))
        out.append(StaffLabel(text=r["text"], label=label, message_id=i + 1, reviewer=reviewer, date="2026-11-12", correction=bool(correction)))
    return out


def run_split(gate, synthetic, space, embedder, options: LearningOptions, seen: list[dict], unseen: list[dict], *, seed: int, choose: bool) -> dict:
    """One replay: staff review `seen`, the gate learns, `unseen` is judged before and after (and with 30 poisoned
    corrections). `choose`: pick the memory radius on this split's reach curve (a tuning split), else keep the configured one."""
    y_unseen = [int(r["label"] == "in") for r in unseen]
    before = figures(y_unseen, verdicts(gate, unseen, embedder))
    staff = traffic(gate, seen, embedder)
    # reach of the memory: staff labels of the seen half against the gate's verdicts on the unseen half
    vec_seen, vec_unseen = embedder.embed_queries([r["text"] for r in seen]), embedder.embed_queries([r["text"] for r in unseen])
    curve = reach_curve(vec_seen, [s.label for s in staff], vec_unseen, y_unseen, verdicts(gate, unseen, embedder).tolist(), RADII)
    carry = family_carry(vec_seen, seen, staff, vec_unseen, unseen)
    radius = choose_radius(curve, default=options.radius) if choose else options.radius
    opts = LearningOptions(**{**options.__dict__, "radius": radius})
    res, reviewers, _ = learn_from_staff(synthetic, staff, space=space, embedder=embedder, current_threshold=gate.threshold, options=opts, current=gate)
    cand_gate = res.classifier_candidate or res.gate
    served_after = res.gate if res.verdict.adopted else gate
    old_rule = adopted_under_previous_rule(res.verdict)
    # the rule before the sure gain ("more fixed than broken" on the staff decisions), read from the classifier's evidence
    plain_gain = None
    if res.kind == "classifier" and res.verdict.sets:
        plain_gain = adoption.judge(res.verdict.sets, tolerance=opts.tolerance, max_protected_rise=opts.max_protected_rise, margin=opts.margin, brier_allowance=opts.brier_allowance,
                                    require_gain=opts.require_gain, protected_surely=opts.protected_surely, gain_alpha=None)
        if plain_gain.adopted and (res.figures.get("staff_model_in_domain_guard") or {}).get("refused"):
            plain_gain = adoption.AdoptionVerdict(False, "the staff model's in-domain guard refuses", plain_gain.sets)
    middle = adoption.judge(res.verdict.sets, tolerance=opts.tolerance, max_protected_rise=opts.max_protected_rise, margin=opts.margin, brier_allowance={"staff_decisions": 1})
    if middle.adopted and (res.figures.get("staff_model_in_domain_guard") or {}).get("refused"):
        middle = adoption.AdoptionVerdict(False, "the staff model's in-domain guard refuses", middle.sets)
    after = figures(y_unseen, verdicts(served_after, unseen, embedder))
    after_candidate = figures(y_unseen, verdicts(cand_gate, unseen, embedder))
    after_no_memory = figures(y_unseen, (cand_gate.probabilities([r["text"] for r in unseen], embedder, memory=False) >= cand_gate.threshold).astype(int))
    # what the memory-alone candidate serves: the gate as it is, the staff memory within its radius only, no staff model
    memory_alone = figures(y_unseen, verdicts(replace(gate, memory=replace(cand_gate.memory, reach=cand_gate.memory.radius, model=None)), unseen, embedder))
    # poisoned: 30 in-domain messages of the seen half rejected as out of domain by one reviewer
    ins = [i for i, s in enumerate(staff) if s.label == 1][:30]
    poisoned = [StaffLabel(text=s.text, label=0, message_id=s.message_id, reviewer="mallory", date=s.date, correction=True) if i in ins else s for i, s in enumerate(staff)]
    pres, previewers, kept = learn_from_staff(synthetic, poisoned, space=space, embedder=embedder, current_threshold=gate.threshold, options=opts, current=gate)
    served = pres.gate if pres.verdict.adopted else gate
    after_poison = figures(y_unseen, verdicts(served, unseen, embedder))
    forced = figures(y_unseen, verdicts(pres.classifier_candidate or pres.gate, unseen, embedder))
    split = {
        "seed": seed, "n_seen": len(seen), "n_unseen": len(unseen), "corrections_fed": sum(s.correction for s in staff),
        "unseen_before": before, "unseen_after": after, "unseen_after_candidate": after_candidate, "unseen_after_without_memory": after_no_memory,
        "adopted": res.verdict.adopted, "adopted_kind": res.kind if res.verdict.adopted else "", "adoption_reason": res.verdict.reason,
        "unseen_after_memory_alone": memory_alone, "memory_only_evidence": res.memory_only, "reach_out_of_fold": res.figures.get("reach_out_of_fold"), "adopted_under_previous_rule": old_rule,
        "unseen_after_under_previous_rule": after_candidate if old_rule else before, "threshold": res.threshold,
        "adopted_without_sure_gain": None if plain_gain is None else plain_gain.adopted,
        "unseen_after_without_sure_gain": after if plain_gain is None or plain_gain.adopted == res.verdict.adopted else (after_candidate if plain_gain.adopted else before),
        "staff_gain_p": adoption.gain_p(len(res.verdict.sets["staff_decisions"].fixed), len(res.verdict.sets["staff_decisions"].broken)) if "staff_decisions" in res.verdict.sets else None,
        "adopted_under_middle_ground": middle.adopted, "middle_ground_reason": middle.reason, "unseen_after_under_middle_ground": after_candidate if middle.adopted else before,
        "staff_model_in_domain_guard": res.figures.get("staff_model_in_domain_guard"), "staff_model_served": res.gate.memory.model is not None,
        "evidence": {k: {kk: vv for kk, vv in v.as_dict().items() if kk not in ("fixed", "broken")} for k, v in res.verdict.sets.items()},
        "reach": curve, "carry_by_family": carry, "radius": radius,
        "wrong_before": [int(a != b) for a, b in zip(y_unseen, verdicts(gate, unseen, embedder))],
        "wrong_after": [int(a != b) for a, b in zip(y_unseen, verdicts(served_after, unseen, embedder))],
        "wrong_after_candidate": [int(a != b) for a, b in zip(y_unseen, verdicts(cand_gate, unseen, embedder))], "radius_chosen_here": choose, "learn_seconds": round(res.seconds, 1),
        "counterfactuals_fed": res.figures.get("counterfactuals", 0),
        "poisoned": {"adopted": pres.verdict.adopted, "adopted_kind": pres.kind if pres.verdict.adopted else "", "reason": pres.verdict.reason, "set_aside": sorted(w for w, r in previewers.items() if r["flagged"]),
                     "reviewers": previewers, "unseen_served": after_poison, "unseen_if_forced": forced,
                     "staff_model_in_domain_guard": pres.figures.get("staff_model_in_domain_guard"), "staff_model_in_candidate": pres.gate.memory.model is not None,
                     "in_turned_away_points": round(100 * (after_poison["in_turned_away"] - before["in_turned_away"]) / max(1, before["n_in"]), 2)},
    }
    # reach and overreach of the candidate on the unseen half: mistakes it fixes, right verdicts it breaks (by family)
    wb, wc = split["wrong_before"], split["wrong_after_candidate"]
    split["candidate_fixed"] = sum(a and not b for a, b in zip(wb, wc))
    split["candidate_broken"] = sum(b and not a for a, b in zip(wb, wc))
    split["candidate_by_family"] = {}
    for r, a, b in zip(unseen, wb, wc):
        if a != b:
            fam = split["candidate_by_family"].setdefault(r.get("family", "?"), {"fixed": 0, "broken": 0})
            fam["fixed" if a else "broken"] += 1
    if EVIDENCE_DIR is not None:  # the out-of-fold evidence behind both verdicts, to read other adoption rules from it
        save_evidence(EVIDENCE_DIR / f"seed{seed}_clean.npz", res, split["wrong_before"], split["wrong_after_candidate"])
        save_evidence(EVIDENCE_DIR / f"seed{seed}_poisoned.npz", pres, split["wrong_before"], [int(a != b) for a, b in zip(y_unseen, verdicts(pres.classifier_candidate or pres.gate, unseen, embedder))])
    print(f"  seed {seed}: candidate fixed {split['candidate_fixed']} broken {split['candidate_broken']} {split['candidate_by_family']} (variants {split['counterfactuals_fed']})", flush=True)
    print(f"  seed {seed}: corrections {split['corrections_fed']}; unseen mistakes {before['mistakes']} -> {after['mistakes']} (candidate {after_candidate['mistakes']}, without memory {after_no_memory['mistakes']}); "
          f"memory alone {memory_alone['mistakes']}; F1 {before['f1_in']}/{before['f1_out']} -> {after['f1_in']}/{after['f1_out']}; adopted {res.verdict.adopted} {res.kind} ({res.verdict.reason}); threshold {res.threshold['before']:.3f} -> {res.threshold['after']:.3f}; "
          f"middle ground adopts {middle.adopted}; staff model guard {res.figures.get('staff_model_in_domain_guard', {}).get('refused')}; "
          f"radius {radius}; poisoned: set aside {split['poisoned']['set_aside']}, adopted {pres.verdict.adopted}, in turned away {before['in_turned_away']} -> {after_poison['in_turned_away']} (forced {forced['in_turned_away']}); {res.seconds:.1f}s", flush=True)
    return split


EVIDENCE_DIR: Path | None = None


def save_evidence(path: Path, res, wrong_before, wrong_after_candidate) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {f"{name}__{k}": np.asarray(v) for name, ev in res.evidence.items() for k, v in ev.items()}
    np.savez_compressed(path, unseen_wrong_before=np.asarray(wrong_before), unseen_wrong_after_candidate=np.asarray(wrong_after_candidate), **arrays)


def adopted_under_previous_rule(verdict) -> bool:
    """The adoption rule of the second session (3-point margin on staff decisions, half a point on the synthetic
    held-out, no 'surely no worse' margin, no Brier check), read from the same evidence."""
    tol = {"staff_decisions": 0.03, "synthetic_heldout": 0.005}
    rise = {"staff_decisions": 0.02, "synthetic_heldout": 0.01}
    for name, c in verdict.sets.items():
        if c.errors_after > c.errors_before and (c.error_rate_change > tol.get(name, 0.0) + 1e-12 or c.interval[0] > 0):
            return False
        if c.protected_rise > rise.get(name, 0.0) + 1e-12:
            return False
    return bool(verdict.sets) and any(c.n for c in verdict.sets.values())


CARRY_RADII = (0.80, 0.84, 0.86, 0.88, 0.90, 0.93)


def family_carry(vec_seen, seen: list[dict], staff: list[StaffLabel], vec_unseen, unseen: list[dict]) -> dict:
    """How far a staff label carries, per family of unseen message: at each cosine radius, the share of the unseen
    messages of that family with a staff-labelled message of the same family that close (the correction reaches them),
    and the share whose nearest staff-labelled message within the radius has the other label (overreach / conflict).
    "another university's procedure" -> other universities is family other_institution; homework -> homework."""
    a = np.asarray(vec_seen, dtype=np.float32)
    b = np.asarray(vec_unseen, dtype=np.float32)
    a /= np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-9)
    b /= np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-9)
    sims = b @ a.T
    fam_seen = np.array([r.get("family", "?") for r in seen])
    lab_seen = np.array([s.label for s in staff])
    out: dict = {}
    for fam in sorted({r.get("family", "?") for r in unseen}):
        rows = [i for i, r in enumerate(unseen) if r.get("family", "?") == fam]
        if not rows or not (fam_seen == fam).any():
            continue
        label = int(unseen[rows[0]]["label"] == "in")
        same = sims[rows][:, fam_seen == fam].max(axis=1)
        other = sims[rows][:, lab_seen != label].max(axis=1) if (lab_seen != label).any() else np.full(len(rows), -1.0)
        nearest_wrong = other > np.maximum(same, sims[rows][:, lab_seen == label].max(axis=1))
        out[fam] = {"n": len(rows), "nearest_label_wrong": int(nearest_wrong.sum()),
                    "reached_by_same_family": {f"{r:.2f}": round(float((same >= r).mean()), 3) for r in CARRY_RADII},
                    "other_label_within": {f"{r:.2f}": round(float((other >= r).mean()), 3) for r in CARRY_RADII}}
    return out


def total(splits: list[dict], *, n_boot: int = 2000, seed: int = 0) -> dict:
    b = sum(s["unseen_before"]["mistakes"] for s in splits)
    a = sum(s["unseen_after"]["mistakes"] for s in splits)
    prev = sum(s["unseen_after_under_previous_rule"]["mistakes"] for s in splits)
    middle = sum(s["unseen_after_under_middle_ground"]["mistakes"] for s in splits)
    cand = sum(s["unseen_after_candidate"]["mistakes"] for s in splits)
    plain = sum(s.get("unseen_after_without_sure_gain", s["unseen_after"])["mistakes"] for s in splits)
    # 95% bootstrap interval of the fall: unseen messages resampled within each split, both verdicts paired
    rng = np.random.default_rng(seed)
    wb = [np.asarray(s["wrong_before"]) for s in splits]
    wa = [np.asarray(s["wrong_after"]) for s in splits]
    falls = []
    for _ in range(n_boot):
        sb = sa = 0
        for x, y in zip(wb, wa):
            idx = rng.integers(0, len(x), len(x))
            sb += int(x[idx].sum())
            sa += int(y[idx].sum())
        falls.append(1 - sa / sb if sb else 0.0)
    fixed, broken = sum(s.get("candidate_fixed", 0) for s in splits), sum(s.get("candidate_broken", 0) for s in splits)
    return {"before": b, "after": a, "candidate_fixed": fixed, "candidate_broken": broken, "after_under_previous_rule": prev, "after_under_middle_ground": middle, "after_without_sure_gain": plain, "after_candidate_always": cand, "fall": round(1 - a / max(1, b), 3), "fall_95": [round(float(np.percentile(falls, 2.5)), 3), round(float(np.percentile(falls, 97.5)), 3)],
            "f1_worse_in_any_split": any(s["unseen_after"]["f1_in"] < s["unseen_before"]["f1_in"] or s["unseen_after"]["f1_out"] < s["unseen_before"]["f1_out"] for s in splits),
            "max_in_turned_away_points_poisoned": max(s["poisoned"]["in_turned_away_points"] for s in splits)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", type=Path, required=True, help="a scratch data directory (the gate is trained into it)")
    ap.add_argument("--splits", type=int, default=2)
    ap.add_argument("--fresh-seeds", default="101,102", help="seeds of the fresh splits (never used to choose anything)")
    ap.add_argument("--fresh2-seeds", default="201,202", help="seeds of the splits of the second, larger fresh file")
    ap.add_argument("--fresh3-seeds", default="301,302", help="seeds of the splits of the third fresh file")
    ap.add_argument("--fresh4-seeds", default="401,402", help="seeds of the splits of the fourth fresh file")
    ap.add_argument("--parts", default="tuning,fresh,fresh2,fresh3,fresh4,dev_to_fresh,worse", help="which parts to run")
    ap.add_argument("--staff-model", choices=("config", "on", "off"), default="config", help="the staff model: as configured (ORIENTA_GATE__STAFF_MODEL), or forced on/off")
    ap.add_argument("--brier-allowance", type=int, default=None, help="extra staff CV errors adoption lets through when the Brier interval is surely better (default: LearningOptions')")
    ap.add_argument("--correction-weight", type=float, default=None, help="weight of one staff correction (default: the setting)")
    ap.add_argument("--confirmation-weight", type=float, default=None, help="weight of one staff decision that agrees with the gate (default: LearningOptions')")
    ap.add_argument("--gain-alpha", type=float, default=None, help="level of the sign test a staff-decision gain must pass (default: LearningOptions'; 0 = off: more fixed than broken is enough)")
    ap.add_argument("--counterfactuals", type=int, default=None, help="counterfactual variants per correction (classifiers.counterfactual; default: LearningOptions', 0 = off)")
    ap.add_argument("--counterfactual-weight", type=float, default=None, help="weight of one variant as a share of one correction's (default: LearningOptions')")
    ap.add_argument("--evidence-dir", type=Path, default=None, help="save each split's out-of-fold evidence (npz) here")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "gate_learning.json")
    args = ap.parse_args()
    global EVIDENCE_DIR
    EVIDENCE_DIR = args.evidence_dir
    services = Services(load_settings(data_dir=args.data_dir))
    if not services.index.all_chunks():
        ingest_documents(services, [SHARED / "fiusac" / "text"])
    gate = train_gate_offline(services)
    embedder = Cached(services)
    chunks, vectors, corpus_id = _corpus(services)
    synthetic, _ = synthetic_examples(services, chunks, vectors, corpus_id, "offline")
    space = FeatureSpace.fit(gate.features, chunk_texts=[c.embed_text for c in chunks], chunk_vectors=vectors)
    g = services.settings.gate
    options = LearningOptions(model=g.model, balanced=g.balanced, correction_weight=g.correction_weight, radius=g.memory_radius, min_in_recall=g.min_in_recall, staff_model=g.staff_model if args.staff_model == "config" else args.staff_model == "on")
    if args.correction_weight is not None:
        options.correction_weight = args.correction_weight
    if args.gain_alpha is not None:
        options.gain_alpha = args.gain_alpha if args.gain_alpha > 0 else None
    if args.confirmation_weight is not None:
        options.confirmation_weight = args.confirmation_weight
    if args.counterfactuals is not None:
        options.counterfactuals = args.counterfactuals
    if args.counterfactual_weight is not None:
        options.counterfactual_weight = args.counterfactual_weight
    if args.brier_allowance is not None:
        options.brier_allowance = {"staff_decisions": args.brier_allowance} if args.brier_allowance else {}
    rows, fresh, fresh2, fresh3, fresh4 = read_jsonl(DEV), read_jsonl(FRESH), read_jsonl(FRESH2), read_jsonl(FRESH3), read_jsonl(FRESH4)
    parts = {p.strip() for p in args.parts.split(",")}
    result: dict = {"threshold": gate.threshold, "n_dev": len(rows), "n_fresh": len(fresh), "n_fresh2": len(fresh2), "n_fresh3": len(fresh3), "n_fresh4": len(fresh4), "parts": sorted(parts),
                    "correction_weight": options.correction_weight, "confirmation_weight": options.confirmation_weight, "min_decisions": options.min_decisions, "memory_radius": options.radius, "staff_model": options.staff_model, "staff_model_c": options.staff_model_c,
                    "counterfactuals": options.counterfactuals, "counterfactual_weight": options.counterfactual_weight,
                    "brier_allowance": options.brier_allowance, "gain_alpha": options.gain_alpha, "staff_model_in_guard": options.staff_model_in_guard}
    # 2b. the larger fresh files, kept out of all training and tuning: fresh2 (239 messages written in the third session)
    #     and fresh3 (202 messages written in the fourth, before any of its runs); about 100-120 unseen messages per split
    for name, data, seed_list in (("fresh2", fresh2, args.fresh2_seeds), ("fresh3", fresh3, args.fresh3_seeds), ("fresh4", fresh4, args.fresh4_seeds)):
        if name not in parts:
            continue
        print(f"{name} splits (seeds {seed_list}):", flush=True)
        seeds = [int(x) for x in seed_list.split(",") if x.strip()]
        result[name] = [run_split(gate, synthetic, space, embedder, options, *halves(data, seed), seed=seed, choose=False) for seed in seeds]
        result[f"total_unseen_mistakes_{name}"] = total(result[name])
        print(f"total unseen mistakes, {name} splits: {result[f'total_unseen_mistakes_{name}']}")
        save(args.out, result)
    # 1. the tuning splits: the correction weight (100), the memory radius (0.93) and the adoption margins were chosen on
    #    these very splits of the dev set; their figures are optimistic by construction
    if "tuning" in parts:
        print("tuning splits (dev set, seeds the parameters were chosen on):", flush=True)
        result["tuning"] = [run_split(gate, synthetic, space, embedder, options, *halves(rows, seed), seed=seed, choose=seed == 1) for seed in range(1, args.splits + 1)]
        result["total_unseen_mistakes_tuning"] = total(result["tuning"])
        print(f"total unseen mistakes, tuning splits: {result['total_unseen_mistakes_tuning']}")
        save(args.out, result)
    # 2. fresh splits: messages written afterwards (benchmarks/data/gate_learning_fresh.jsonl), split with seeds never
    #    used, the configured parameters as they are
    if "fresh" in parts:
        print("fresh splits (fresh messages, new seeds, parameters as configured):", flush=True)
        seeds = [int(x) for x in args.fresh_seeds.split(",") if x.strip()]
        result["fresh"] = [run_split(gate, synthetic, space, embedder, options, *halves(fresh, seed), seed=seed, choose=False) for seed in seeds]
        result["total_unseen_mistakes_fresh"] = total(result["fresh"])
        print(f"total unseen mistakes, fresh splits: {result['total_unseen_mistakes_fresh']}")
        save(args.out, result)
    # 3. learning from all of the dev set's staff decisions, judged on every fresh message
    if "dev_to_fresh" in parts:
        print("dev decisions -> every fresh message (both fresh files):", flush=True)
        result["dev_to_fresh"] = run_split(gate, synthetic, space, embedder, options, rows, fresh + fresh2, seed=0, choose=False)
        result["total_unseen_mistakes_dev_to_fresh"] = total([result["dev_to_fresh"]])
        save(args.out, result)
    # a deliberately worse retrain: every staff label flipped
    if "worse" in parts:
        seen, _ = halves(rows, 1)
        staff = traffic(gate, seen, embedder)
        flipped = [StaffLabel(text=s.text, label=1 - s.label, message_id=s.message_id, reviewer=f"r{i % 4}", date=s.date, correction=True) for i, s in enumerate(staff)]
        worse, _, _ = learn_from_staff(synthetic, flipped, space=space, embedder=embedder, current_threshold=gate.threshold, options=options, current=gate)
        result["worse_on_purpose"] = {"adopted": worse.verdict.adopted, "reason": worse.verdict.reason}
        print(f"worse on purpose: adopted {worse.verdict.adopted} ({worse.verdict.reason})", flush=True)
    result["scale"] = "see benchmarks/gate_retrain_scale.py (benchmarks/results/gate_retrain_scale.json)"
    save(args.out, result)
    services.close()


def save(out: Path, result: dict) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
