"""In-domain messages about a student's own case: coming from another university."""

from __future__ import annotations

from classifiers.near_miss import institution_forms
from classifiers.student_cases import transfer_requests
from pipeline.text import fold


def test_transfers_name_where_the_student_comes_from_and_are_in_domain():
    rows = transfer_requests(["Universidad Galileo", "Universidad del Istmo"], forms=institution_forms, n=40)
    assert len(rows) == 40 and all(r.label == 1 and r.source == "offline-transfer" for r in rows)
    assert any("galileo" in fold(r.text) or "istmo" in fold(r.text) for r in rows)
    assert len({r.text for r in rows}) == 40

