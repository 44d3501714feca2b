"""Charts render as PNG without a display and embed into the self-contained HTML."""

from __future__ import annotations

import base64

from review import charts

PNG = b"\x89PNG\r\n\x1a\n"


def _figures(**over):
    f = {"approved": 3, "edited": 2, "rejected": 1, "judge": {"distribution": {"1": 0, "2": 1, "3": 1, "4": 2, "5": 2}}, "edit_sizes": {"values": []}}
    return f | over


def test_charts_are_png():
    for png in (charts.staff_chart(_figures()), charts.quality_chart(_figures()), charts.summary_chart(_figures())):
        assert png.startswith(PNG) and len(png) > 2000
    # without a judge the quality chart shows the edit sizes; with neither it says so
    assert charts.quality_chart(_figures(judge={}, edit_sizes={"values": [0.1, 0.5]})).startswith(PNG)
    assert charts.quality_chart(_figures(judge={}, edit_sizes={})).startswith(PNG)
    import matplotlib

    assert matplotlib.get_backend().lower() == "agg"


def test_data_uri_round_trips():
    png = charts.staff_chart(_figures())
    uri = charts.data_uri(png)
    assert uri.startswith("data:image/png;base64,") and base64.b64decode(uri.split(",", 1)[1]) == png


def test_trend_needs_two_weeks():
    assert charts.trend_chart([{"week": "2026-W47", "received": 3}]) is None
    assert charts.trend_chart([{"week": "2026-W46", "received": 3, "approve_rate": 0.5, "acceptable_rate": None}, {"week": "2026-W47", "received": 4, "approve_rate": 0.25, "acceptable_rate": 0.75}]).startswith(PNG)


def test_comparison_chart():
    rows = [{"label": "rag k=5", "answered_rate": 0.9, "correctness": 0.5, "total": 0.45, "faithfulness": None}, {"label": "derivation k=5", "answered_rate": 0.8, "correctness": 0.6, "total": 0.48, "faithfulness": 0.9}]
    assert charts.comparison_chart(rows).startswith(PNG)
