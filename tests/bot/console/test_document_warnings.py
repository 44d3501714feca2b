"""A PDF that is ingested only in part shows its warnings, page range by page range, on the console's documents pages."""

from __future__ import annotations

from tests.bot.console.conftest import csrf
from tests.pipeline.pdf_factory import boxes_pdf


def test_an_uploaded_pdf_with_scanned_pages_shows_a_warning_per_page_range(lead, app, svc, tmp_path):
    pdf = boxes_pdf(tmp_path / "cierre.pdf", [{}, None, None, {}])
    response = lead.post("/documents/upload", data={"csrftoken": csrf(lead, "/documents")}, files={"file": ("cierre.pdf", pdf.read_bytes())}, follow_redirects=False)
    assert response.status_code == 303, response.text
    app.console.state.jobs.wait()
    assert svc.index.documents()["cierre"]["chunks"] >= 1
    listing = " ".join(lead.get("/documents").text.split())
    assert "cierre.pdf: pages 2-3 of 4: no text layer" in listing
    detail = " ".join(lead.get("/documents/cierre").text.split())
    assert "pages 2-3 of 4: no text layer" in detail
    assert "Recibo de pago: Recibo del pago de cierre por Q.75.00" in detail or "Recibo del pago de cierre" in detail
