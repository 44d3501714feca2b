"""PDFs drawn for the tests of the PDF loader: pages laid out in boxes, and scanned pages (an image, no text layer)."""

from __future__ import annotations

from pathlib import Path

# six boxes of a requirements checklist, three to a row: (step number, title, body)
BOXES = [
    ("1", "Carta de\nsolicitud", "Carta dirigida a la\ncoordinación, firmada por\nel estudiante y su asesor.\nFormato libre en PDF."),
    ("2", "Recibo de\npago", "Recibo del pago de\ncierre por Q.75.00\nrealizado en cualquier\nagencia del banco."),
    ("3", "Copia del\ndocumento", "Copia legible del\ndocumento de identidad\npor ambos lados, en\nun solo archivo."),
    ("4", "Historial\nacadémico", "Historial de cursos\naprobados emitido por\nla oficina de registro\neste mismo semestre."),
    ("5", "Fotografía\nreciente", "Fotografía de frente,\ncon fondo claro, sin\nlentes ni gorra, en\nformato JPG."),
    ("6", "Formulario\nfirmado", "Formulario de datos\npersonales completo y\nfirmado con tinta azul\nen cada hoja."),
]


def boxes_pdf(path: Path, pages: list[dict | None]) -> Path:
    """One A4 page per entry: {'boxes': [...], 'numbers': 'above' | 'none', 'extra': [(x, y, text), ...]}, or None for a
    scanned page (an image without text)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.backends.backend_pdf import PdfPages

    with PdfPages(path) as pdf:
        for page in pages:
            fig = plt.figure(figsize=(8.27, 11.69))
            if page is None:
                fig.figimage(np.random.default_rng(1).integers(0, 255, (60, 80)), cmap="gray")
            else:
                fig.text(0.08, 0.95, "REQUISITOS PARA EL TRÁMITE DE CIERRE", fontsize=14, family="DejaVu Sans")
                for k, (number, title, body) in enumerate(page.get("boxes", BOXES)):
                    row, col = divmod(k, 3)
                    x, y = 0.06 + col * 0.31, 0.85 - row * 0.3
                    if page.get("numbers", "above") == "above":
                        fig.text(x, y, number, fontsize=12, family="DejaVu Sans")
                    fig.text(x + 0.02, y - 0.03, title, fontsize=10, family="DejaVu Sans", va="top", weight="bold")
                    fig.text(x + 0.02, y - 0.09, body, fontsize=7, family="DejaVu Sans", va="top")
                for x, y, text in page.get("extra", []):
                    fig.text(x, y, text, fontsize=9, family="DejaVu Sans")
            pdf.savefig(fig)
            plt.close(fig)
    return path
