"""Charts for the digest and the answer evaluation: matplotlib (Agg) figures as PNG bytes or base64."""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence

COLORS = {"approve": "#16a34a", "edit": "#f59e0b", "reject": "#dc2626", "bar": "#2563eb", "muted": "#9ca3af"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def png_bytes(fig) -> bytes:
    """Render and close a figure."""
    plt = _pyplot()
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _bars(ax, labels: Sequence[str], values: Sequence[float], colors: Sequence[str] | str, title: str, fmt: str = "{:g}") -> None:
    bars = ax.bar(range(len(values)), values, color=colors)
    ax.set_xticks(range(len(values)), labels, fontsize=8)
    ax.set_title(title, fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    for b, v in zip(bars, values, strict=True):
        ax.annotate(fmt.format(v), (b.get_x() + b.get_width() / 2, b.get_height()), ha="center", va="bottom", fontsize=8)


def _draw_staff(ax, d: Mapping) -> None:
    _bars(ax, ["aprobados", "editados", "rechazados"], [d.get("approved", 0), d.get("edited", 0), d.get("rejected", 0)], [COLORS["approve"], COLORS["edit"], COLORS["reject"]], "Decisiones del personal")


def _draw_quality(ax, d: Mapping) -> None:
    dist = (d.get("judge") or {}).get("distribution") or {}
    sizes = (d.get("edit_sizes") or {}).get("values") or []
    if any(dist.values()):
        _bars(ax, ["1", "2", "3", "4", "5"], [dist.get(str(s), 0) for s in range(1, 6)], [COLORS["reject"]] * 2 + [COLORS["approve"]] * 3, "Puntaje del juez (corrección)")
    elif sizes:
        from matplotlib.ticker import MaxNLocator

        ax.hist(sizes, bins=[0, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0], color=COLORS["edit"])
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title("Tamaño de las ediciones (sin juez LLM)", fontsize=10)
        ax.spines[["top", "right"]].set_visible(False)
    else:
        ax.axis("off")
        ax.text(0.5, 0.5, "Sin puntajes del juez\nni ediciones esta semana", ha="center", va="center", fontsize=9, color=COLORS["muted"])


def staff_chart(d: Mapping) -> bytes:
    """Approved / edited / rejected counts."""
    fig, ax = _pyplot().subplots(figsize=(3.8, 2.8))
    _draw_staff(ax, d)
    return png_bytes(fig)


def quality_chart(d: Mapping) -> bytes:
    """The judge's score distribution, or the edit sizes when no judge ran."""
    fig, ax = _pyplot().subplots(figsize=(3.8, 2.8))
    _draw_quality(ax, d)
    return png_bytes(fig)


def summary_chart(d: Mapping) -> bytes:
    """Both of the above side by side (the image posted to Slack)."""
    fig, (left, right) = _pyplot().subplots(1, 2, figsize=(7.2, 2.8))
    _draw_staff(left, d)
    _draw_quality(right, d)
    return png_bytes(fig)


def trend_chart(trend: Sequence[Mapping]) -> bytes | None:
    """Volume and acceptance over the previous weeks and this one."""
    if len(trend) < 2:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 2.8))
    weeks = [t["week"][-3:] for t in trend]
    ax.bar(weeks, [t.get("received") or 0 for t in trend], color="#dbeafe", label="recibidos")
    ax.set_ylabel("mensajes", fontsize=8)
    ax2 = ax.twinx()
    for key, label, color in (("approve_rate", "aprobados sin cambios", COLORS["approve"]), ("acceptable_rate", "aceptables según el juez", COLORS["bar"])):
        ys = [t.get(key) for t in trend]
        if any(y is not None for y in ys):
            ax2.plot(weeks, [y if y is not None else float("nan") for y in ys], marker="o", color=color, label=label)
    ax2.set_ylim(0, 1)
    ax2.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_title("Tendencia semanal", fontsize=10)
    handles = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    ax.legend(handles, [h.get_label() for h in handles], fontsize=7, loc="upper left")
    return png_bytes(fig)


def comparison_chart(rows: Sequence[Mapping]) -> bytes:
    """Answer-evaluation configurations side by side: answered rate, correctness and total."""
    import numpy as np

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(5.0, 1.6 * len(rows) + 2), 3.0))
    keys = [("answered_rate", "respondidas"), ("correctness", "corrección"), ("total", "total"), ("faithfulness", "fidelidad")]
    x = np.arange(len(rows))
    width = 0.8 / len(keys)
    for i, (key, label) in enumerate(keys):
        ax.bar(x + i * width, [r.get(key) or 0 for r in rows], width, label=label)
    ax.set_xticks(x + 0.4 - width / 2, [r["label"] for r in rows], fontsize=7, rotation=15)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7, ncols=4, loc="upper center", bbox_to_anchor=(0.5, 1.18))
    ax.spines[["top", "right"]].set_visible(False)
    return png_bytes(fig)
