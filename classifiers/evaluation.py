"""Evaluation arithmetic: per-class precision, recall, F1, accuracy, confusion; the PCA/K-Means view."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np


def binary_report(y_true: Sequence[int], y_pred: Sequence[int]) -> dict:
    """Scores for both classes (1 = in domain, 0 = out of domain); confusion is [[in→in, in→out], [out→in, out→out]]."""
    y, p = np.asarray(y_true, dtype=int), np.asarray(y_pred, dtype=int)
    out: dict = {"n": int(len(y)), "n_in": int((y == 1).sum()), "n_out": int((y == 0).sum())}
    out["accuracy"] = float((y == p).mean()) if len(y) else 0.0
    for label, name in ((1, "in"), (0, "out")):
        tp = int(((p == label) & (y == label)).sum())
        fp = int(((p == label) & (y != label)).sum())
        fn = int(((p != label) & (y == label)).sum())
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        out[f"precision_{name}"] = prec
        out[f"recall_{name}"] = rec
        out[f"f1_{name}"] = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    out["confusion"] = [
        [int(((y == 1) & (p == 1)).sum()), int(((y == 1) & (p == 0)).sum())],
        [int(((y == 0) & (p == 1)).sum()), int(((y == 0) & (p == 0)).sum())],
    ]
    return out


def cluster_view(vectors: np.ndarray, y_true: Sequence[int], *, seed: int = 0) -> dict:
    """2-D PCA coordinates, K-Means(k=2) clusters, and how well the clusters match the true classes."""
    from sklearn.cluster import KMeans
    from sklearn.decomposition import PCA

    y = np.asarray(y_true, dtype=int)
    xy = PCA(n_components=2, random_state=seed).fit_transform(vectors)
    clusters = KMeans(n_clusters=2, n_init=10, random_state=seed).fit_predict(vectors)
    agreement = float(max((clusters == y).mean(), (clusters != y).mean())) if len(y) else 0.0
    return {"xy": xy, "clusters": clusters, "cluster_agreement": agreement}


def plot_view(view: dict, y_true: Sequence[int], path: Path) -> Path:
    """Scatter the PCA view: colour = K-Means cluster, marker = true class."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    y = np.asarray(y_true, dtype=int)
    xy, clusters = view["xy"], view["clusters"]
    fig, ax = plt.subplots(figsize=(7, 6))
    for label, marker, name in ((1, "o", "en dominio"), (0, "x", "fuera de dominio")):
        for c, colour in ((0, "tab:blue"), (1, "tab:orange")):
            m = (y == label) & (clusters == c)
            if m.any():
                ax.scatter(xy[m, 0], xy[m, 1], s=12, marker=marker, c=colour, alpha=0.7, label=f"{name} · cluster {c}")
    ax.set_title(f"PCA 2-D · K-Means k=2 (coincidencia con la clase: {view['cluster_agreement']:.2f})")
    ax.legend(fontsize=8)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path
