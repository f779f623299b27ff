"""Scaling of ``vta-explore`` with the workers of a local Dask cluster: the same sweep with 1
worker process, then with 2 (``--workers``), each from an empty output folder, wall time
included the cluster's start-up.

The sweep is the ResNet-18 convolution layers C1–C11 (``benchmarks/resnet18_layers.py``, or
those of ``--layers``; a quarter of a second to one and a half each to compile, simulate and
check) on 8 configurations: ``LOG_BLOCK`` 4 and 5, ``LOG_BATCH`` 0 and 1, and a DMA latency of
32 or 64 cycles, 88 points. The points
are independent, so the work divides among the workers; the speed-up falls short of the
number of workers by the cluster's start-up and the sweep's tail (the last points running
while a worker is idle), and by whatever else runs on the machine's cores.

It prints the wall time and the points per second of each run, the speed-up of each against
the first, and whether the runs gave the same rows (they must: the figures do not depend on
the worker that computed them, the wall times of each point aside).

Usage::

    python benchmarks/explore_scaling.py [--layers C1,...,C11] [--workers 1,2] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import resnet18_layers as rl  # noqa: E402

#: The configurations of the sweep: 2 × 2 × 2 points over the default configuration.
SPACE: dict[str, list[int]] = {
    "LOG_BLOCK": [4, 5],
    "LOG_BATCH": [0, 1],
    "timing.dma_latency": [32, 64],
}
#: The wall times of a point (the only figures that differ between runs).
TIMINGS = ("compile_s", "sim_s")


def write_layers(names: list[str], folder: Path) -> list[Path]:
    """Each ResNet-18 layer of ``names`` as ``folder/<name>.mlir``."""
    paths = []
    for name in names:
        path = folder / f"{name}.mlir"
        path.write_text(rl.conv_mlir(rl.by_name(name)))
        paths.append(path)
    return paths


def run(models: list[Path], workers: int, folder: Path) -> tuple[float, Any]:
    """The sweep on a new local cluster of ``workers`` processes, into an empty folder: its
    wall time and its result."""
    from vta_mlir.explore import sweep

    start = time.perf_counter()
    result = sweep(models, SPACE, folder / f"out-{workers}", workers=workers, progress=False)
    return time.perf_counter() - start, result


def figures(result: Any) -> list[tuple[Any, ...]]:
    """Every row's model, point and figures but the wall times."""
    return [
        (row.model, row.point.name, *(v for k, v in row.figures.items() if k not in TIMINGS))
        for row in result.rows
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--layers",
        default=",".join(layer.name for layer in rl.LAYERS),
        help="ResNet-18 layers (default: C1-C11)",
    )
    parser.add_argument("--workers", default="1,2", help="worker counts to compare, in order")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.layers.split(",") if n.strip()]
    counts = [int(n) for n in args.workers.split(",")]
    with tempfile.TemporaryDirectory(prefix="explore-scaling-") as tmp:
        folder = Path(tmp)
        models = write_layers(names, folder)
        configurations = math.prod(len(values) for values in SPACE.values())
        points = len(models) * configurations
        print(
            f"sweep: ResNet-18 layers {', '.join(names)} × {configurations} configurations "
            f"= {points} points"
        )
        runs = [(n, *run(models, n, folder)) for n in counts]
    statuses = {row.status for _, _, result in runs for row in result.rows}
    print(f"{'workers':>7}  {'wall s':>8}  {'points/s':>8}  {'speed-up':>8}")
    first = runs[0][1]
    for n, seconds, _ in runs:
        print(f"{n:>7}  {seconds:>8.1f}  {points / seconds:>8.2f}  {first / seconds:>7.2f}×")
    same = all(figures(result) == figures(runs[0][2]) for _, _, result in runs)
    print(f"statuses: {', '.join(sorted(statuses))}; same rows in every run: {same}")
    if args.json:
        payload = {
            "layers": names,
            "points": points,
            "runs": [{"workers": n, "wall_s": s} for n, s, _ in runs],
            "same_rows": same,
        }
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n")
    return 0 if same and statuses == {"ok"} else 1


if __name__ == "__main__":
    sys.exit(main())
