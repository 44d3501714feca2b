"""Evaluation arithmetic on a hand-computed case, threshold choice, the PCA/K-Means view."""

from __future__ import annotations

import numpy as np
import pytest

from classifiers.evaluation import binary_report, cluster_view, plot_view
from classifiers.gate import choose_threshold


def test_binary_report_matches_hand_computation():
    # 4 in-domain (3 caught, 1 turned away), 6 out-of-domain (1 let through, 5 caught)
    y_true = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    y_pred = [1, 1, 1, 0, 1, 0, 0, 0, 0, 0]
    r = binary_report(y_true, y_pred)
    assert r["confusion"] == [[3, 1], [1, 5]]
    assert (r["n"], r["n_in"], r["n_out"]) == (10, 4, 6)
    assert r["precision_in"] == pytest.approx(3 / 4) and r["recall_in"] == pytest.approx(3 / 4) and r["f1_in"] == pytest.approx(0.75)
    assert r["precision_out"] == pytest.approx(5 / 6) and r["recall_out"] == pytest.approx(5 / 6) and r["f1_out"] == pytest.approx(5 / 6)
    assert r["accuracy"] == pytest.approx(0.8)


def test_binary_report_without_positives_has_zero_scores():
    r = binary_report([0, 0], [0, 0])
    assert r["f1_in"] == 0.0 and r["f1_out"] == 1.0


def test_threshold_keeps_in_domain_recall():
    y = np.array([1] * 10 + [0] * 10)
    p = np.concatenate([np.linspace(0.3, 0.9, 10), np.linspace(0.0, 0.6, 10)])
    t = choose_threshold(y, p, min_in_recall=1.0)
    assert (p[y == 1] >= t).all() and t <= 0.3
    assert choose_threshold(y, p, min_in_recall=0.8, cap=0.5) == pytest.approx(min(0.5, np.sort(p[y == 1])[2] - 1e-6))


def test_cluster_view_separates_two_blobs_and_plots(tmp_path):
    rng = np.random.default_rng(0)
    x = np.vstack([rng.normal(0, 0.1, (20, 8)) + 3, rng.normal(0, 0.1, (20, 8)) - 3])
    y = [1] * 20 + [0] * 20
    view = cluster_view(x, y)
    assert view["cluster_agreement"] == 1.0 and view["xy"].shape == (40, 2)
    path = plot_view(view, y, tmp_path / "pca.png")
    assert path.read_bytes()[:4] == b"\x89PNG"
