"""Our own hostile mail set (benchmarks/hostile_set.py) through one in-process `run --once` pass: every case ends as
expected (skipped auto-replies and notices, quarantined unreadable mail, drafted questions decoded right), each skip and
quarantine with its reason (issue 22, bar 13). The figure: benchmarks/hostile_mail.py --only-hostile."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.hostile_mail import hostile_pass  # noqa: E402
from benchmarks.hostile_set import cases  # noqa: E402

FAMILIES = {"ooo_es", "ndr", "auto_headers", "student_not_auto", "broken_mime", "charset", "huge_empty"}


def test_the_set_covers_every_family_the_issue_lists():
    found = cases()
    assert {c.family for c in found.values()} == FAMILIES
    by = lambda fam: [c for c in found.values() if c.family == fam]  # noqa: E731
    assert len(by("ooo_es")) >= 8 and len(by("ndr")) >= 6 and all(c.expect == "skipped" for c in by("ooo_es") + by("ndr"))
    assert all(c.expect == "drafted" for c in by("student_not_auto"))
    assert any(c.expect == "quarantined" for c in by("broken_mime")) and any(c.expect == "drafted" for c in by("broken_mime"))


def test_every_hostile_mail_is_handled_as_expected():
    result = hostile_pass()
    assert result["pass"] == "finished"
    assert result["handled_as_expected"] == result["cases"], result["not_as_expected"]
