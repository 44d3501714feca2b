"""Fit the gate: features, class balance, held-out calibration and threshold, final refit."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone

import numpy as np

from classifiers.errors import GateError
from classifiers.evaluation import binary_report
from classifiers.features import FeatureSpace
from classifiers.gate import MODELS, Gate, choose_threshold
from classifiers.synthetic import NO_INFO_SOURCES, Example, dataset_hash
from pipeline.embeddings import Embedder


def balance(y: np.ndarray, *, seed: int) -> np.ndarray:
    """Indices of a class-balanced subsample (the larger class is randomly cut down)."""
    rng = np.random.default_rng(seed)
    idx_in, idx_out = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    n = min(len(idx_in), len(idx_out))
    keep = np.concatenate([rng.choice(idx_in, n, replace=False), rng.choice(idx_out, n, replace=False)])
    return np.sort(keep)


def heldout_split(groups: Sequence[str], y: np.ndarray, *, seed: int, fraction: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    """Train/held-out indices with whole groups (chunks, documents, bank topics) on one side, both classes present."""
    rng = np.random.default_rng(seed)
    train, held = [], []
    for label in (0, 1):
        idx = np.flatnonzero(y == label)
        names = sorted({groups[i] for i in idx})
        rng.shuffle(names)
        n_held = max(1, int(round(fraction * len(names)))) if len(names) > 1 else 0
        held_names = set(names[:n_held])
        for i in idx:
            (held if groups[i] in held_names else train).append(i)
    return np.array(sorted(train)), np.array(sorted(held))


def group_folds(groups: Sequence[str], y: np.ndarray, *, seed: int, k: int = 3) -> list[tuple[np.ndarray, np.ndarray]]:
    """`k` (train, held-out) index pairs; whole groups go to one fold, each class's groups dealt round-robin over the folds."""
    rng = np.random.default_rng(seed)
    fold_of = np.zeros(len(y), dtype=int)
    for label in (0, 1):
        idx = np.flatnonzero(y == label)
        names = sorted({groups[i] for i in idx})
        rng.shuffle(names)
        where = {name: j % k for j, name in enumerate(names)}
        for i in idx:
            fold_of[i] = where[groups[i]]
    folds = [(np.flatnonzero(fold_of != f), np.flatnonzero(fold_of == f)) for f in range(k)]
    return [(tr, ho) for tr, ho in folds if len(ho) and len(set(y[tr].tolist())) == 2] or [heldout_split(groups, y, seed=seed)]


def _stack(dense: np.ndarray, sparse, rows: np.ndarray, mean: np.ndarray, scale: np.ndarray):
    d = (dense[rows] - mean) / scale
    if sparse is None:
        return d
    from scipy.sparse import csr_matrix, hstack

    return hstack([csr_matrix(d), sparse[rows]]).tocsr()


class _Fitted:
    """One fitted model in the gate's own (pickle-free) representation."""

    def __init__(self, model: str, dense, sparse, y, rows, *, k: int, seed: int, weights: np.ndarray | None = None) -> None:
        self.model = model
        self.mean = dense[rows].mean(axis=0)
        self.scale = dense[rows].std(axis=0) + 1e-6
        x = _stack(dense, sparse, rows, self.mean, self.scale)
        self.coef, self.intercept, self.neighbours, self.labels, self.k = np.zeros(0), 0.0, np.zeros((0, 0)), np.zeros(0), k
        if model == "knn":
            if dense.shape[1] == 0:
                raise GateError("k-NN needs dense features (embedding, similarity or lexical)")
            xd = (dense[rows] - self.mean) / self.scale
            self.neighbours = (xd / np.maximum(np.linalg.norm(xd, axis=1, keepdims=True), 1e-9)).astype(np.float32)
            self.labels = y[rows].astype(np.int8)
            return
        if model == "logreg":
            from sklearn.linear_model import LogisticRegression

            clf = LogisticRegression(C=1.0, max_iter=3000)
        elif model == "svm":
            from sklearn.svm import LinearSVC

            clf = LinearSVC(C=0.1, max_iter=20000, random_state=seed)
        else:
            raise GateError(f"unknown gate model {model!r}; choose from {', '.join(MODELS)}")
        clf.fit(x, y[rows], sample_weight=weights)  # weights: one per row of `rows` (staff corrections count more)
        self.coef = np.asarray(clf.coef_[0], dtype=np.float32)
        self.intercept = float(clf.intercept_[0])

    def gate(self, space: FeatureSpace, *, threshold: float = 0.5, calibration: tuple[float, float] = (1.0, 0.0)) -> Gate:
        return Gate(
            space=space,
            model=self.model,
            threshold=threshold,
            mean=self.mean.astype(np.float32),
            scale=self.scale.astype(np.float32),
            coef=self.coef,
            intercept=self.intercept,
            calibration=calibration,
            neighbours=self.neighbours,
            neighbour_labels=self.labels,
            k=self.k,
        )


def platt(margins: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Sigmoid calibration (a, b) of raw margins on held-out labels."""
    from sklearn.linear_model import LogisticRegression

    if len(set(y.tolist())) < 2:
        return 1.0, 0.0
    lr = LogisticRegression(C=100.0).fit(margins.reshape(-1, 1), y)
    return float(lr.coef_[0, 0]), float(lr.intercept_[0])


def train_gate(
    examples: Sequence[Example],
    *,
    space: FeatureSpace,
    embedder: Embedder | None = None,
    query_vecs: np.ndarray | None = None,
    model: str = "logreg",
    balanced: bool = False,
    k: int = 15,
    min_in_recall: float = 0.98,
    seed: int = 7,
) -> Gate:
    """Fit on labelled examples; calibrate and choose the threshold on out-of-fold scores (whole groups held out)."""
    if model not in MODELS:
        raise GateError(f"unknown gate model {model!r}; choose from {', '.join(MODELS)}")
    texts = [e.text for e in examples]
    y = np.array([e.label for e in examples], dtype=np.int64)
    if len(set(y.tolist())) < 2:
        raise GateError("the gate needs examples of both classes")
    groups = [e.group for e in examples]
    dense, sparse = space.transform(texts, embedder=embedder, query_vecs=query_vecs, rules=False)  # the decision's rule cues are not fitted
    rows = balance(y, seed=seed) if balanced else np.arange(len(y))
    folds = group_folds([groups[i] for i in rows], y[rows], seed=seed)
    out_of_fold = np.zeros(len(rows))  # each example scored by a model that did not see its group
    for tr_local, ho_local in folds:
        g = _Fitted(model, dense, sparse, y, rows[tr_local], k=k, seed=seed).gate(space)
        ho = rows[ho_local]
        ho_sparse = sparse[ho] if sparse is not None else None
        out_of_fold[ho_local] = g.margin(dense[ho], ho_sparse) if model == "svm" else g.probabilities_from_features(dense[ho], ho_sparse)
    calibration = platt(out_of_fold, y[rows]) if model == "svm" else (1.0, 0.0)
    if model == "svm":
        out_of_fold = 1.0 / (1.0 + np.exp(-np.clip(calibration[0] * out_of_fold + calibration[1], -50, 50)))
    # The recall floor protects the questions the documents answer. Office business the documents lack (campus places,
    # services, a transfer from another university) is generated from generic frames and bundled names: it is learnt and
    # reported, but it does not set the floor, or the threshold sinks to where encyclopedic questions in the documents'
    # vocabulary get through.
    answerable = np.array([examples[i].label == 0 or examples[i].source not in NO_INFO_SOURCES for i in rows])
    threshold = choose_threshold(y[rows][answerable], out_of_fold[answerable], min_in_recall=min_in_recall)
    no_info_rows = ~answerable
    no_info_recall = float((out_of_fold[no_info_rows] >= threshold).mean()) if no_info_rows.any() else None
    held = binary_report(y[rows].tolist(), (out_of_fold >= threshold).astype(int).tolist())
    final = _Fitted(model, dense, sparse, y, rows, k=k, seed=seed).gate(space, threshold=threshold, calibration=calibration)
    tr, ho = rows[folds[0][0]], rows[folds[0][1]]
    info = fit_information(examples, dense, final, tr, ho, seed=seed)
    final.meta = {
        "balanced": balanced,
        "embedder": getattr(embedder, "name", None),
        "n_in": int((y[rows] == 1).sum()),
        "n_out": int((y[rows] == 0).sum()),
        "n_examples_total": len(examples),
        "dataset_hash": dataset_hash(examples),
        "heldout": {k_: v for k_, v in held.items() if k_ != "confusion"},
        "heldout_accuracy": held["accuracy"],
        "heldout_no_info_recall": no_info_recall,
        "information_heldout": info,
        "trained_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    return final


def fit_information(examples: Sequence[Example], dense: np.ndarray, gate: Gate, tr: np.ndarray, ho: np.ndarray, *, seed: int) -> dict | None:
    """Give `gate` its second boundary (answerable vs in domain without information) from the in-domain examples; held-out report."""
    from sklearn.linear_model import LogisticRegression

    answerable = np.array([e.label == 1 and e.source not in NO_INFO_SOURCES for e in examples], dtype=np.int64)
    in_domain = np.array([e.label == 1 for e in examples])
    tr_in, ho_in = tr[in_domain[tr]], ho[in_domain[ho]]
    if len(set(answerable[tr_in].tolist())) < 2:
        return None
    x = (dense - gate.mean) / gate.scale
    clf = LogisticRegression(C=1.0, max_iter=3000, class_weight="balanced", random_state=seed).fit(x[tr_in], answerable[tr_in])
    gate.info_coef, gate.info_intercept = np.asarray(clf.coef_[0], dtype=np.float32), float(clf.intercept_[0])
    p = gate.info_probabilities(dense[ho_in])
    gate.info_threshold = choose_threshold(answerable[ho_in], p, min_in_recall=0.95) if len(ho_in) else 0.5
    final = LogisticRegression(C=1.0, max_iter=3000, class_weight="balanced", random_state=seed).fit(x[in_domain], answerable[in_domain])
    gate.info_coef, gate.info_intercept = np.asarray(final.coef_[0], dtype=np.float32), float(final.intercept_[0])
    rep = binary_report(answerable[ho_in].tolist(), (p >= gate.info_threshold).astype(int).tolist())
    return {"f1_answerable": rep["f1_in"], "f1_no_info": rep["f1_out"], "threshold": gate.info_threshold}


def offline_dataset(chunks: Sequence, *, seed: int = 13) -> list[Example]:
    """Templated in-domain questions from the chunks (also typed as students type), campus business without documents,
    near misses built from the documents, and the bank and templated out-of-domain questions."""
    import random

    from classifiers import styles
    from classifiers.near_miss import institution_forms, made_up_universities, near_miss_questions, other_universities
    from classifiers.ood import offline_ood
    from classifiers.student_cases import transfer_requests
    from classifiers.synthetic import campus_questions, institution_names, offline_questions, problem_reports, student_questions

    questions = offline_questions(chunks, seed=seed)
    positives = questions + student_questions(questions, n=1200, seed=seed + 2) + campus_questions(chunks, n=400, seed=seed + 4)
    positives += problem_reports(chunks, n=400, seed=seed + 6)
    # students from other universities asking for this office's equivalencias; the near misses hold the other direction
    universities = [u for u in other_universities(institution_names(chunks)) if u.startswith("Universidad")]
    universities += made_up_universities(random.Random(seed + 10), 30)
    positives += transfer_requests(universities, forms=institution_forms, n=150, seed=seed + 10)
    return [e for e in positives if styles.says_something(e.text)] + near_miss_questions(chunks, seed=seed + 8) + offline_ood(n_templated=1500, seed=seed + 16)
