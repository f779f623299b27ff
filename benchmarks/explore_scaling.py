"""Scaling of ``vta-explore`` with the workers of a local Dask cluster: the same sweep with 1
worker process, then with 2 (``--workers``), each from an empty output folder, wall time
included the cluster's start-up.

The sweep is the ResNet-18 convolution layers C1–C11 (``benchmarks/resnet18_layers.py``, or
those of ``--layers``; a quarter of a second to one and a half each to compile, simulate and
check) on 8 configurations: ``LOG_BLOCK`` 4 and 5, ``LOG_BATCH`` 0 and 1, and a DMA latency of
32 or 64 cycles, 88 points. The points are independent, so the work divides among the workers;
the speed-up falls short of the number of workers by the cluster's start-up and the sweep's
tail (the last points running while a worker is idle), and by whatever else runs on the
machine's cores.

It prints, per worker count, the best wall time of ``--repeat`` rounds (the runs alternate, so
that a change of the machine's load weighs on every count alike), the points per second and
the speed-up against the first count, and whether the runs gave the same rows (they must: the
figures do not depend on the worker that computed them, the wall times of each point aside).

Usage::

    python benchmarks/explore_scaling.py [--layers C1,...,C11] [--workers 1,2] [--repeat 1]
                                         [--json FILE]
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

from vta_mlir.atomic_write import write_text as write_atomically  # noqa: E402

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
    """The sweep on a new local cluster of ``workers`` processes, into an empty folder of
    ``folder``: its wall time and its result."""
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
    parser.add_argument(
        "--repeat", type=int, default=1, help="rounds of the runs, alternated (best time kept)"
    )
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.layers.split(",") if n.strip()]
    counts = [int(n) for n in args.workers.split(",")]
    seconds: dict[int, list[float]] = {n: [] for n in counts}
    results: list[Any] = []
    with tempfile.TemporaryDirectory(prefix="explore-scaling-") as tmp:
        folder = Path(tmp)
        models = write_layers(names, folder)
        configurations = math.prod(len(values) for values in SPACE.values())
        points = len(models) * configurations
        print(
            f"sweep: ResNet-18 layers {', '.join(names)} × {configurations} configurations "
            f"= {points} points"
        )
        # Rounds alternate the worker counts, so that a change of the machine's load weighs on
        # all of them alike; each run starts from an empty folder.
        for round_index in range(max(1, args.repeat)):
            for n in counts:
                wall, result = run(models, n, folder / f"round-{round_index}")
                seconds[n].append(wall)
                results.append(result)
    statuses = {row.status for result in results for row in result.rows}
    best = {n: min(times) for n, times in seconds.items()}
    print(f"{'workers':>7}  {'wall s':>8}  {'points/s':>8}  {'speed-up':>8}  all runs (s)")
    first = best[counts[0]]
    for n in counts:
        runs = ", ".join(f"{t:.1f}" for t in seconds[n])
        print(
            f"{n:>7}  {best[n]:>8.1f}  {points / best[n]:>8.2f}  {first / best[n]:>7.2f}×  {runs}"
        )
    same = all(figures(result) == figures(results[0]) for result in results)
    print(f"statuses: {', '.join(sorted(statuses))}; same rows in every run: {same}")
    if args.json:
        payload = {
            "layers": names,
            "points": points,
            "wall_s": {str(n): times for n, times in seconds.items()},
            "same_rows": same,
        }
        write_atomically(args.json, json.dumps(payload, indent=2) + "\n")
    return 0 if same and statuses == {"ok"} else 1


if __name__ == "__main__":
    sys.exit(main())
