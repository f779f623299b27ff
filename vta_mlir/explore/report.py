"""The files of a sweep: ``results.csv`` (one row per model and point), the Pareto front of each
model (cycles against on-chip memory) and the summary, ``<DIR>/summary.md``.

Every figure of a row comes from the point's run (:mod:`vta_mlir.explore.point`) or from its
configuration: nothing names the worker or host that computed it, so a sweep gives the same
rows wherever it runs (but the two timings, ``compile_s`` and ``sim_s``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vta_mlir.config import VTAConfig
from vta_mlir.explore.point import STATUSES, sram_bytes
from vta_mlir.explore.space import Point, Space

__all__ = [
    "FIGURE_COLUMNS",
    "Row",
    "csv_text",
    "make_row",
    "pareto_front",
    "summary_markdown",
]

#: The columns after ``model``, ``config`` and the axes, in order.
FIGURE_COLUMNS: tuple[str, ...] = (
    "status",
    "reason",
    "cycles",
    "busy_load",
    "busy_compute",
    "busy_store",
    "dram_bytes",
    "sram_bytes",
    "macs_per_cycle",
    "bound_ratio",
    "compile_s",
    "sim_s",
)
#: Decimals of the real-valued columns in the CSV file.
_DECIMALS = {"bound_ratio": 4, "compile_s": 3, "sim_s": 3}


@dataclass(frozen=True)
class Row:
    """One row of ``results.csv``: the model, the point, and the figures by column."""

    model: str
    point: Point
    figures: Mapping[str, Any]

    @property
    def status(self) -> str:
        return str(self.figures["status"])

    def get(self, column: str) -> Any:
        return self.figures.get(column)


def make_row(model: str, point: Point, result: Mapping[str, Any] | None) -> Row:
    """The row of ``point`` for ``model``: ``invalid-config`` when the hardware rules forbid
    the configuration, else the point's ``result`` (:data:`~vta_mlir.explore.point.RESULT_KEYS`)
    with the figures of the configuration: ``sram_bytes``, ``macs_per_cycle`` (BATCH ·
    BLOCK_IN · BLOCK_OUT) and the bound ratio, cycles over the GEMM bound of the true MACs."""
    if point.config is None:
        figures = dict.fromkeys(FIGURE_COLUMNS)
        figures.update(status="invalid-config", reason=point.invalid_reason or "")
        return Row(model, point, figures)
    if result is None:
        raise ValueError(f"no result for the valid point {point.name} of {model}")
    cfg: VTAConfig = point.config
    figures = {column: result.get(column) for column in FIGURE_COLUMNS}
    figures["sram_bytes"] = sram_bytes(cfg)
    figures["macs_per_cycle"] = cfg.gemm_macs_per_cycle
    cycles, macs = result.get("cycles"), result.get("macs")
    figures["bound_ratio"] = (
        cycles * cfg.gemm_macs_per_cycle / macs if cycles is not None and macs else None
    )
    return Row(model, point, figures)


def _cell(column: str, value: Any) -> str:
    if value is None:
        return ""
    if column in _DECIMALS:
        return f"{float(value):.{_DECIMALS[column]}f}"
    return str(value)


def csv_text(rows: Sequence[Row], axes: Sequence[str]) -> str:
    """``results.csv``: the columns ``model``, ``config``, one per axis, then
    :data:`FIGURE_COLUMNS`; an empty cell for a figure a row does not have."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["model", "config", *axes, *FIGURE_COLUMNS])
    for row in rows:
        values = dict(row.point.values)
        writer.writerow(
            [
                row.model,
                row.point.name,
                *(str(values[axis]) for axis in axes),
                *(_cell(c, row.get(c)) for c in FIGURE_COLUMNS),
            ]
        )
    return out.getvalue()


def pareto_front(rows: Sequence[Row]) -> list[Row]:
    """The ``ok`` rows no other ``ok`` row beats — as few cycles or fewer with as little SRAM or
    less, and strictly fewer of one — ordered by SRAM then cycles. A configuration whose outputs
    differ from the reference, or that did not run, is on no front."""
    ok = [r for r in rows if r.status == "ok" and r.get("cycles") is not None]

    def beats(a: Row, b: Row) -> bool:
        ca, cb, sa, sb = a.get("cycles"), b.get("cycles"), a.get("sram_bytes"), b.get("sram_bytes")
        return ca <= cb and sa <= sb and (ca < cb or sa < sb)

    front = [r for r in ok if not any(beats(other, r) for other in ok)]
    return sorted(front, key=lambda r: (r.get("sram_bytes"), r.get("cycles"), r.point.name))


def _format_int(value: Any) -> str:
    return "-" if value is None else f"{int(value):,}"


def _format_ratio(value: Any) -> str:
    return "-" if value is None else f"{float(value):.2f}"


def model_summary(model: str, rows: Sequence[Row]) -> list[str]:
    """The section of one model: its statuses, its Pareto front and its rows that are not
    ``ok``."""
    counts = ", ".join(f"{sum(r.status == s for r in rows)} {s}" for s in STATUSES)
    lines = [f"## {model}", "", f"{len(rows)} points: {counts}.", ""]
    front = pareto_front(rows)
    if front:
        lines += [
            "Pareto front (fewest cycles for the SRAM), from the smallest SRAM:",
            "",
            "| config | cycles | sram_bytes | macs_per_cycle | bound_ratio | dram_bytes |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        lines += [
            f"| `{r.point.name}` | {_format_int(r.get('cycles'))} | "
            f"{_format_int(r.get('sram_bytes'))} | {_format_int(r.get('macs_per_cycle'))} | "
            f"{_format_ratio(r.get('bound_ratio'))} | {_format_int(r.get('dram_bytes'))} |"
            for r in front
        ]
    else:
        lines.append("No point ran and agreed with the reference evaluator: no Pareto front.")
    others = [r for r in rows if r.status != "ok"]
    if others:
        lines += ["", "Not ok:", ""]
        lines += [f"- `{r.point.name}`: {r.status}: {r.get('reason')}" for r in others]
    return [*lines, ""]


def summary_markdown(
    models: Sequence[str], rows: Sequence[Row], space: Space, *, seed: int, version: str
) -> str:
    """The summary (``<DIR>/summary.md``): what was swept, then per model its statuses and its
    Pareto front."""
    lines = [
        "# Design-space exploration",
        "",
        f"{len(models)} model(s) × {len(space.points)} configuration(s): {space.description}; "
        f"random inputs of seed {seed}; vta-mlir {version}. Figures per point in "
        "`results.csv`, the fronts plotted in `pareto.png`.",
        "",
    ]
    for model in models:
        lines += model_summary(model, [r for r in rows if r.model == model])
    return "\n".join(lines)
