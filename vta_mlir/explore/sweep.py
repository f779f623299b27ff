"""The sweep: every model on every point of a space, computed on a Dask cluster, kept in the
output folder as it completes, then written out as ``results.csv``, ``pareto.png`` and
``<DIR>/summary.md``.

By default the points run on a ``dask.distributed`` ``LocalCluster`` of one single-threaded
worker process per core (``workers`` sizes it); ``scheduler`` names an existing cluster
instead (``dask scheduler`` and ``dask worker`` processes, on any machines that can reach each
other). A model's MLIR travels to the workers as bytes (``Client.scatter`` to every worker,
so a worker that dies loses no copy the others need), and each point is one task that Dask
retries when it fails (``retries``); on a local cluster the same number bounds how often a
point may be on a worker that dies (``distributed.scheduler.allowed-failures``; an external
scheduler keeps its own setting). A point that fails on every attempt becomes an ``error``
row, and is computed again by the next run.

Points already in the output folder (:mod:`vta_mlir.explore.cache`) are not computed again:
a rerun of a finished sweep submits nothing and writes the same rows.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vta_mlir import __version__
from vta_mlir.atomic_write import write_bytes, write_text
from vta_mlir.errors import VTAError
from vta_mlir.explore.cache import PointCache, model_digest, point_key
from vta_mlir.explore.point import PointFunction, evaluate_point
from vta_mlir.explore.report import Row, csv_text, make_row, summary_markdown
from vta_mlir.explore.space import Point, Space, load_space, parse_space

__all__ = [
    "EXPLORE_EXTRA",
    "MODEL_SUFFIXES",
    "OUTPUT_FILES",
    "Model",
    "PointFunction",
    "SweepResult",
    "default_workers",
    "read_models",
    "require_dependencies",
    "sweep",
]

#: The optional dependencies of a sweep, as ``pip install 'vta-mlir[explore]'`` installs them.
EXPLORE_EXTRA = "explore"
#: The model files a sweep takes: input-level MLIR, or ONNX imported as ``vta-import-onnx``.
MODEL_SUFFIXES = (".mlir", ".onnx")
#: The files a sweep writes into its output folder (besides ``points/``).
OUTPUT_FILES = ("results.csv", "pareto.png", "summary.md")


@dataclass(frozen=True)
class Model:
    """A model of the sweep: its name (the file's stem), its file and the file's bytes."""

    name: str
    path: Path
    data: bytes

    @property
    def digest(self) -> str:
        return model_digest(self.data)

    def mlir(self) -> bytes:
        """The model's input-level MLIR: the file itself, or the import of an ONNX model."""
        if self.path.suffix != ".onnx":
            return self.data
        try:
            from vta_mlir.frontend import onnx as frontend
        except ImportError as exc:
            raise VTAError(
                f"importing '{self.path}' needs the onnx package ({exc}); install it with "
                "pip install 'vta-mlir[onnx]'"
            ) from None
        return frontend.import_text(self.path).encode("utf-8")

    @property
    def source_name(self) -> str:
        """The name of the MLIR in messages (the ONNX import's is the model's, ``.mlir``)."""
        return self.path.name if self.path.suffix != ".onnx" else f"{self.path.name}.mlir"


@dataclass
class SweepResult:
    """What a sweep produced: its rows in order (models, then points), its axes, how many
    points it computed, took from the output folder or lost to failed workers, and where it
    wrote them."""

    rows: list[Row]
    axes: tuple[str, ...]
    computed: int
    reused: int
    failed: int
    out_dir: Path

    @property
    def csv_path(self) -> Path:
        return self.out_dir / OUTPUT_FILES[0]


def require_dependencies() -> None:
    """One error naming the extra when dask.distributed or matplotlib is missing."""
    missing = []
    for module in ("dask.distributed", "matplotlib"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if missing:
        raise VTAError(
            f"vta-explore needs {' and '.join(missing)}, which the extra '{EXPLORE_EXTRA}' "
            f"installs: pip install 'vta-mlir[{EXPLORE_EXTRA}]'"
        )


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def read_models(paths: Sequence[str | os.PathLike[str]]) -> list[Model]:
    """The models of ``paths``, read; an unreadable file, another suffix than
    :data:`MODEL_SUFFIXES` or two models of one name is an error."""
    if not paths:
        raise VTAError("no model given")
    models: list[Model] = []
    for given in paths:
        path = Path(given)
        if path.suffix not in MODEL_SUFFIXES:
            raise VTAError(f"'{path}': a model is an input-level .mlir file or an .onnx model")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise VTAError(f"cannot open model '{path}': {exc.strerror or exc}") from None
        if any(m.name == path.stem for m in models):
            raise VTAError(f"two models are named '{path.stem}' (a model is named by its stem)")
        models.append(Model(path.stem, path, data))
    return models


def _space(space: str | os.PathLike[str] | Mapping[str, Any] | Space) -> Space:
    if isinstance(space, Space):
        return space
    if isinstance(space, Mapping):
        return parse_space(space)
    return load_space(space)


def _write(path: Path, data: str | bytes) -> None:
    try:
        if isinstance(data, bytes):
            write_bytes(path, data)
        else:
            write_text(path, data)
    except OSError as exc:
        raise VTAError(f"cannot write '{path}': {exc.strerror or exc}") from None


def sweep(
    models: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    space: str | os.PathLike[str] | Mapping[str, Any] | Space,
    out: str | os.PathLike[str],
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    retries: int = 2,
    seed: int = 0,
    progress: bool | None = None,
    point_function: PointFunction = evaluate_point,
    function: str | None = None,
) -> SweepResult:
    """Run every model (``.mlir`` or ``.onnx`` files, or one such file) on every point of
    ``space`` (a ``SPACE.json`` path, its decoded object or a
    :class:`~vta_mlir.explore.space.Space`) and write the table, the plot and the summary
    (:data:`OUTPUT_FILES`) into the folder ``out`` (module doc).

    ``scheduler`` (``tcp://HOST:PORT``) uses an existing Dask cluster; otherwise a local one of
    ``workers`` processes (default: one per core) runs the points missing from ``out``.
    ``retries`` is how often a failed point is tried again, ``seed`` the seed of the random
    inputs, ``progress`` whether to show the progress bar (default: when stderr is a terminal).
    ``point_function`` computes one point (default
    :func:`~vta_mlir.explore.point.evaluate_point`; another one instruments the sweep).
    ``function`` is the function of each model to compile, as ``vta-run --function`` (needed
    for an ``.mlir`` model with several functions); it is part of each point's key.
    Errors of the arguments, the space or a model are raised before anything is written.
    """
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise VTAError(f"retries must be a non-negative integer, not {retries!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise VTAError(f"the seed must be a non-negative integer, not {seed!r}")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise VTAError(f"workers must be a positive integer, not {workers!r}")
    if function is not None and (not isinstance(function, str) or not function):
        raise VTAError(f"the function must be a function's name, not {function!r}")
    if workers is not None and scheduler is not None:
        raise VTAError("workers sizes the local cluster; it does not apply with a scheduler")
    the_space = _space(space)
    read = read_models([models] if isinstance(models, str | os.PathLike) else models)
    require_dependencies()
    out_dir = Path(out)
    if out_dir.exists() and not out_dir.is_dir():
        raise VTAError(f"the output folder '{out_dir}' is a file")

    cache = PointCache(out_dir)
    results = cache.load()
    keys: dict[tuple[str, str], str] = {}
    tasks: dict[str, tuple[Model, Point]] = {}
    for model in read:
        for point in the_space.points:
            if point.config is None:
                continue
            key = point_key(model.digest, point.config, seed, function)
            keys[model.name, point.name] = key
            if key not in results:
                tasks.setdefault(key, (model, point))
    reused = len({k for k in keys.values() if k in results})
    failed = 0
    if tasks:
        # Imported before anything is written: an import error is the sweep's, not a point's.
        texts = {m.name: m.mlir() for m in read if any(t[0] is m for t in tasks.values())}
        from vta_mlir.explore.cluster import run_points

        computed, failed = run_points(
            tasks,
            texts,
            seed=seed,
            scheduler=scheduler,
            workers=workers if workers is not None else default_workers(),
            retries=retries,
            progress=progress,
            point_function=point_function,
            function=function,
            cache=cache,
        )
        results.update(computed)

    rows = [
        make_row(model.name, point, results.get(keys.get((model.name, point.name), "")))
        for model in read
        for point in the_space.points
    ]
    names = [m.name for m in read]
    from vta_mlir.explore.plot import pareto_png

    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VTAError(f"cannot create '{out_dir}': {exc.strerror or exc}") from None
    _write(out_dir / OUTPUT_FILES[0], csv_text(rows, the_space.axes))
    _write(out_dir / OUTPUT_FILES[1], pareto_png(names, rows, the_space.axes))
    _write(
        out_dir / OUTPUT_FILES[2],
        summary_markdown(names, rows, the_space, seed=seed, version=__version__),
    )
    return SweepResult(rows, the_space.axes, len(tasks) - failed, reused, failed, out_dir)
