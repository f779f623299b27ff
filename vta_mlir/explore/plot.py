"""``pareto.png``: cycles against on-chip memory, one panel per model, every point that ran
labelled, the Pareto front marked.

Drawn on a bare :class:`matplotlib.figure.Figure`, whose ``savefig`` renders with the Agg
backend: nothing of ``pyplot`` or of the user's backend is touched.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from vta_mlir.explore.report import Row, pareto_front

__all__ = ["point_label", "pareto_png"]

#: Inches per panel, and the resolution of the image.
_PANEL_SIZE = (6.4, 5.2)
_DPI = 110
KIB = 1024


def point_label(row: Row, axes: Sequence[str]) -> str:
    """A point's label in the plot: its values on the axes, ``/``-separated (the legend names
    the axes), or the configuration's name in a ``configs`` space."""
    if not axes:
        return row.point.name
    values = dict(row.point.values)
    return "/".join(str(values[axis]) for axis in axes)


def pareto_png(models: Sequence[str], rows: Sequence[Row], axes: Sequence[str]) -> bytes:
    """The plot as PNG bytes: for each model, its ``ok`` points (cycles against SRAM KiB), its
    Pareto front as a staircase, its ``mismatch`` points crossed."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    fig = Figure(figsize=(_PANEL_SIZE[0] * len(models), _PANEL_SIZE[1]), layout="constrained")
    panels = fig.subplots(1, len(models), squeeze=False)[0]
    thousands = FuncFormatter(lambda value, _: f"{value:,.0f}")
    for ax, model in zip(panels, models, strict=True):
        mine = [r for r in rows if r.model == model]
        ok = [r for r in mine if r.status == "ok" and r.get("cycles") is not None]
        wrong = [r for r in mine if r.status == "mismatch" and r.get("cycles") is not None]
        ran = ok + wrong
        front = pareto_front(ok)
        behind = [r for r in ok if r not in front]
        ax.set_title(model)
        unplotted = [r.status for r in mine if r not in ran]
        if unplotted:
            counts = ", ".join(f"{unplotted.count(s)} {s}" for s in dict.fromkeys(unplotted))
            ax.text(0.01, 0.01, f"not plotted: {counts}", fontsize=7, transform=ax.transAxes)
        ax.set_xlabel("SRAM, KiB (INP + WGT + ACC + UOP buffers)")
        ax.set_ylabel("cycles")
        if not ran:
            ax.text(0.5, 0.5, "no point ran", ha="center", va="center", transform=ax.transAxes)
            continue
        ax.xaxis.set_major_formatter(thousands)
        ax.yaxis.set_major_formatter(thousands)

        def xy(group: Sequence[Row]) -> tuple[list[float], list[float]]:
            return [r.get("sram_bytes") / KIB for r in group], [r.get("cycles") for r in group]

        if behind:
            ax.scatter(*xy(behind), color="tab:blue", zorder=2, label="configuration")
        if front:
            ax.step(*xy(front), where="post", color="tab:red", linewidth=1, zorder=1)
            ax.scatter(*xy(front), color="tab:red", zorder=3, label="Pareto front")
        if wrong:
            ax.scatter(*xy(wrong), color="black", marker="x", zorder=3, label="mismatch")
        for row in ran:
            ax.annotate(
                point_label(row, axes),
                (row.get("sram_bytes") / KIB, row.get("cycles")),
                xytext=(4, 3),
                textcoords="offset points",
                fontsize=7,
            )
        ax.margins(x=0.15, y=0.1)
        ax.grid(True, linewidth=0.3)
        ax.legend(loc="best", fontsize=8)
    if axes:
        fig.suptitle(f"labels: {' / '.join(axes)}", fontsize=9)
    out = io.BytesIO()
    # No software version in the file: the same figures give the same image.
    fig.savefig(out, format="png", dpi=_DPI, metadata={"Software": None})
    return out.getvalue()
