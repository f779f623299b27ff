"""Design-space exploration: models × VTA configurations, computed on a Dask cluster.

::

    from vta_mlir.explore import sweep
    result = sweep(["net.mlir", "model.onnx"], {"LOG_BLOCK": [4, 5], "LOG_BATCH": [0, 1]},
                   "out/")
    for row in result.rows:
        print(row.model, row.point.name, row.status, row.get("cycles"))

Each point compiles a model for one configuration, runs it on the simulator with seeded random
inputs and compares it with the reference evaluator, as ``vta-run --random-inputs --check
--stats`` does; the sweep writes ``results.csv``, ``pareto.png`` and ``<DIR>/summary.md`` and keeps
every computed point in the output folder, so that a rerun computes only what is missing.
``vta-explore`` is its command line; ``docs/explore.md`` the guide.

The parts: :mod:`.space` (``SPACE.json``), :mod:`.point` (one point, what a worker runs),
:mod:`.macs` (the true multiply-accumulates of a model), :mod:`.cache` (the kept points),
:mod:`.report` (rows, CSV, Pareto fronts, summary), :mod:`.plot` (``pareto.png``) and
:mod:`.sweep` (the Dask cluster). Importing this package needs neither Dask nor matplotlib;
running a sweep needs both (``pip install 'vta-mlir[explore]'``).
"""

from __future__ import annotations

from vta_mlir.explore.point import evaluate_point
from vta_mlir.explore.report import Row, pareto_front
from vta_mlir.explore.space import Point, Space, SpaceError, load_space, parse_space
from vta_mlir.explore.sweep import SweepResult, sweep

__all__ = [
    "Point",
    "Row",
    "Space",
    "SpaceError",
    "SweepResult",
    "evaluate_point",
    "load_space",
    "pareto_front",
    "parse_space",
    "sweep",
]
