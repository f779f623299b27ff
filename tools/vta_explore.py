"""``vta-explore``: design-space exploration of VTA configurations × models on Dask.

Usage::

    vta-explore net.mlir model.onnx --space space.json --out results/
    vta-explore net.mlir --space space.json --out results/ --workers 4
    vta-explore net.mlir --space space.json --out results/ --scheduler tcp://host:8786

Each model (input-level ``.mlir``, or ``.onnx`` imported as ``vta-import-onnx`` does) is
compiled for every configuration of the space, run on the simulator with the random inputs of
``--seed`` and compared with the reference evaluator, as ``vta-run --random-inputs --check
--stats`` does. ``SPACE.json`` lists axes of ``vta_config.json`` with the values to try,
``{"LOG_BLOCK": [4, 5], "LOG_BATCH": [0, 1]}`` (their cartesian product over the default
configuration; ``timing.<parameter>`` for the cycle model's), or configurations,
``{"configs": ["default", "block32", "my_config.json"]}``.

``DIR`` receives ``results.csv`` (one row per model and configuration), ``pareto.png`` (cycles
against SRAM bytes, one panel per model, the Pareto front marked) and ``<DIR>/summary.md`` (the
fronts), and keeps each computed point in ``DIR/points/``: a rerun computes only the points
missing there, and an interrupted sweep continues where it stopped. The points run on a local
Dask cluster of one worker process per core (``--workers N``), or on the cluster of
``--scheduler``; ``--retries`` is how often a failed point is tried again. ``docs/explore.md``
is the guide.

The exit status is 0 when the sweep completes, 1 when a configuration's outputs differ from
the reference evaluator (a ``mismatch`` row) or on an error, 2 for a malformed space file; every
error is one line on stderr.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from vta_mlir import __version__
from vta_mlir.errors import VTAError
from vta_mlir.explore.report import pareto_front
from vta_mlir.explore.space import SpaceError
from vta_mlir.explore.sweep import OUTPUT_FILES, sweep

from ._cli import CLIArgumentParser, print_error, run_guarded

__all__ = ["SPACE_ERROR_STATUS", "main"]

PROG = "vta-explore"
#: The exit status of a malformed space file (as for a usage error).
SPACE_ERROR_STATUS = 2


def _count(text: str, minimum: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{what} must be at least {minimum}, not {value}")
    return value


def _arg_parser() -> argparse.ArgumentParser:
    p = CLIArgumentParser(
        prog=PROG,
        description="Compile, run and check models on every configuration of a space.",
    )
    p.add_argument("models", nargs="+", metavar="MODEL", help="input-level .mlir or .onnx model")
    p.add_argument(
        "--space",
        required=True,
        metavar="SPACE.json",
        help="axes of vta_config.json with their values, or a list of configurations",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="the output folder")
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="tcp://HOST:PORT",
        help="the scheduler of an existing Dask cluster (default: a local cluster)",
    )
    p.add_argument(
        "--workers",
        type=lambda t: _count(t, 1, "--workers"),
        default=None,
        metavar="N",
        help="worker processes of the local cluster (default: one per core)",
    )
    p.add_argument(
        "--retries",
        type=lambda t: _count(t, 0, "--retries"),
        default=2,
        metavar="N",
        help="how often a failed point is tried again (default: 2)",
    )
    p.add_argument(
        "--seed",
        type=lambda t: _count(t, 0, "--seed"),
        default=0,
        metavar="N",
        help="seed of the random inputs (default: 0)",
    )
    p.add_argument(
        "--function",
        default=None,
        metavar="NAME",
        help="the function of each model to compile and check (needed for a model with several "
        "functions, as with vta-run)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    return p


def _run(argv: Sequence[str] | None) -> int:
    args = _arg_parser().parse_args(argv)
    if args.workers is not None and args.scheduler is not None:
        raise VTAError("--workers sizes the local cluster; it does not apply with --scheduler")
    try:
        result = sweep(
            args.models,
            args.space,
            args.out,
            scheduler=args.scheduler,
            workers=args.workers,
            retries=args.retries,
            seed=args.seed,
            progress=False if args.no_progress else None,
            function=args.function,
        )
    except SpaceError as exc:
        print_error(PROG, str(exc))
        return SPACE_ERROR_STATUS
    statuses: dict[str, int] = {}
    for row in result.rows:
        statuses[row.status] = statuses.get(row.status, 0) + 1
    counts = ", ".join(f"{n} {status}" for status, n in statuses.items())
    print(
        f"{len(result.rows)} rows ({counts}); {result.computed} points computed, "
        f"{result.reused} from {result.out_dir}, {result.failed} failed"
    )
    for model in dict.fromkeys(row.model for row in result.rows):
        front = pareto_front([row for row in result.rows if row.model == model])
        names = ", ".join(row.point.name for row in front) or "none"
        print(f"{model}: Pareto front: {names}")
    print("wrote " + ", ".join(str(result.out_dir / name) for name in OUTPUT_FILES))
    return 1 if statuses.get("mismatch") else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``vta-explore`` with ``argv`` (``sys.argv[1:]`` when ``None``); returns the exit
    status."""
    return run_guarded(PROG, _run, argv)


if __name__ == "__main__":
    sys.exit(main())
