"""The HTML digest rendered in headless Chromium at laptop and phone widths; screenshots kept as test artifacts."""

from __future__ import annotations

import shutil
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest
from sqlmodel import Session

from review.db import init_db, make_engine, session_scope
from review.digest import build_digest, write_report
from tests.review.digest_week import DOCS, WEEK, build_week

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def _screenshot(html: Path, png: Path, width: int, height: int, profile: Path) -> None:
    args = [
        str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", f"--user-data-dir={profile}",
        f"--screenshot={png}", f"--window-size={width},{height}", html.as_uri(),
    ]
    subprocess.run(args, check=True, capture_output=True, timeout=120)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Chromium not installed at /usr/bin/chromium (.ci/services.sh installs it: apt-get install -y chromium)")
def test_digest_renders_in_chromium(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'd.db'}")
    init_db(engine)
    with session_scope(engine) as session:
        build_week(session)
    with Session(engine) as session:
        digest = build_digest(session=session, week=WEEK, documents=DOCS, now=datetime(2026, 12, 1, tzinfo=timezone.utc))
    _, html = write_report(digest, tmp_path / "reports")
    ARTIFACTS.mkdir(exist_ok=True)
    shots = {}
    for name, width in (("laptop", 1280), ("phone", 390)):
        png = ARTIFACTS / f"digest-{name}.png"
        png.unlink(missing_ok=True)
        _screenshot(html, png, width, 2400, tmp_path / f"profile-{name}")
        shots[name] = png
    for png in shots.values():
        data = png.read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 20_000  # a rendered page, not a blank one
    # the DOM Chromium built contains the figures (the page needs no network: images are inline)
    dom = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run", f"--user-data-dir={tmp_path / 'profile-dom'}", "--dump-dom", html.as_uri()],
        check=True, capture_output=True, timeout=120, text=True,
    ).stdout
    assert "Kappa de Cohen ponderado" in dom and dom.count("data:image/png;base64,") >= 2
    shutil.copy(shots["laptop"], ARTIFACTS / "digest.png")
