"""Render a digest as self-contained HTML (charts embedded as base64 PNG) and as Markdown.

Depends on nothing in review.digest: it renders any object with the digest's shape
(``DigestView``), so review.digest can import it without a cycle.
"""

from __future__ import annotations

from typing import Protocol

from jinja2 import Environment, PackageLoader, select_autoescape

from pipeline.texts import t
from review import charts
from review.queue import REJECT_REASONS

LABELS = {
    "received": "Recibidos",
    "skipped": "Omitidos (respuestas automáticas, listas)",
    "quarantined": "En cuarentena",
    "out_of_domain": "Fuera de dominio",
    "drafted": "Con borrador",
    "approved": "Aprobados",
    "edited": "Editados",
    "rejected": "Rechazados",
    "sent": "Enviados",
    "acknowledged": "Cierres y agradecimientos (sin borrador)",
    "follow_ups": "Seguimientos en una conversación",
    "waiting": "Esperando un nuevo intento (el modelo o un servicio no respondía)",
    "drafted_offline": "Redactados sin modelo tras una caída",
    "requeued": "Devueltos a borrador desde la cuarentena",
}


class DigestView(Protocol):
    """What the renderers read from a review.digest.Digest."""

    week: str
    counts: dict[str, int]
    trend: list[dict]

    def as_dict(self) -> dict: ...


_ENV = Environment(loader=PackageLoader("review", "templates"), autoescape=select_autoescape(["html", "html.j2"]), trim_blocks=True, lstrip_blocks=True)


def pct(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{value * 100:.{digits}f} %"


def num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def usd(value: float | None) -> str:
    return "—" if value is None else f"US$ {value:.4f}"


def claim_line(kind: str, figures: dict) -> str:
    """'«listo»: 47 de 72 enviados sin cambios (IC 95% 0.54–0.76)' (kind: readiness | reuse; figures: review.claims.precision)."""
    if not figures.get("claimed"):
        return t(f"claim_none_{kind}")
    lo, hi = figures["interval"]
    return t(f"claim_{kind}").format(sent=figures["claimed_sent_unchanged"], claimed=figures["claimed"], lo=f"{lo:.2f}", hi=f"{hi:.2f}")


_ENV.filters.update(pct=pct, num=num, usd=usd, claim_line=claim_line)


SET_ASIDE_LABELS = {state: t(f"set_aside_{state}") for state in ("acknowledged", "skipped", "quarantined")}


def _context(digest: DigestView) -> dict:
    return {"d": digest, "f": digest.as_dict(), "labels": LABELS, "reasons": REJECT_REASONS, "set_aside_labels": SET_ASIDE_LABELS}


def render_html(digest: DigestView) -> str:
    """The report as one HTML file with its charts inline."""
    f = digest.as_dict()
    images = {"staff": charts.data_uri(charts.staff_chart(f)), "quality": charts.data_uri(charts.quality_chart(f))}
    trend = charts.trend_chart(digest.trend)
    if trend is not None:
        images["trend"] = charts.data_uri(trend)
    return _ENV.get_template("digest.html.j2").render(**_context(digest), images=images)


def render_markdown(digest: DigestView) -> str:
    return _ENV.get_template("digest.md.j2").render(**_context(digest))


def summary_lines(digest: DigestView) -> list[str]:
    """A few plain-text lines for Slack and e-mail."""
    f, c = digest.as_dict(), digest.counts
    lines = [
        f"Recibidos {c['received']} · con borrador {c['drafted']} · enviados {c['sent']} · fuera de dominio {c['out_of_domain']} · en cuarentena {c['quarantined']}",
        f"Seguimientos en una conversación {c.get('follow_ups', 0)} · cierres y agradecimientos sin borrador {c.get('acknowledged', 0)} · desde respuestas aprobadas {f['reused']}",
        f"Aprobados {c['approved']} · editados {c['edited']} · rechazados {c['rejected']} · tiempo hasta la revisión p50 {num(f['time_to_review']['p50'], 0)} min, p90 {num(f['time_to_review']['p90'], 0)} min",
    ]
    if f["judge"].get("scored"):
        lines.append(f"Juez: {pct(f['acceptable_rate'])} aceptables ({f['judge']['scored']} puntuadas, {f['judge']['not_scored']} sin puntaje) · kappa {num(f['kappa'])} · Spearman {num(f['spearman'])}")
    else:
        off = f["offline"]
        lines.append(f"Sin juez LLM: enviados sin cambios {pct(off['unchanged_rate'])}, F1 por palabras {num(off['token_f1_mean'])}, distancia de edición {num(off['edit_distance_mean'])}")
    if f["content_gaps"]:
        top = f["content_gaps"][0]
        lines.append(f"Vacíos de contenido: {len(f['content_gaps'])} grupos; el mayor ({top['size']}): «{top['examples'][0][:120]}»")
    if f.get("set_aside"):
        lines.append(f"Sin borrador (cierres, omitidos, en cuarentena): {len(f['set_aside'])}; ver la lista en el informe o `orienta review list --state acknowledged|skipped|quarantined`")
    lines += [claim_line(kind, f["claims"][kind]) for kind in ("readiness", "reuse") if f.get("claims", {}).get(kind, {}).get("claimed")]
    lines.append(f"Costo LLM {usd(f['cost_usd'])} · por respuesta {usd(f['cost_per_answer_usd'])} · aciertos de caché {pct(f['cache_hit_rate'])}")
    return lines
