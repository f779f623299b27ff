"""The points of a sweep on a Dask cluster: a ``LocalCluster`` of single-threaded worker
processes, or the cluster of a given scheduler.

Only :func:`vta_mlir.explore.sweep.sweep` imports this module, when it has points to compute:
it is the one part of vta-mlir that imports Dask.

* Every worker imports the compiler before its first point (:class:`ImportCompiler`, a worker
  plugin, so a worker that joins or restarts later does too): a point's ``compile_s`` is its
  compilation only.
* A model's MLIR is scattered to every worker once (``broadcast``): the tasks carry a reference
  to it, and a worker that dies leaves copies on the others.
* Each point is one task with keys of its own (the point's key and a token of the sweep), so
  that equal points of two models or two sweeps are never taken for one another; Dask retries
  a task that fails (``retries``), and on a local cluster moves a task whose worker died to
  another at most ``retries`` times (``distributed.scheduler.allowed-failures``).
* Results arrive in completion order (``as_completed``), each stored at once, behind a
  progress bar.
"""

from __future__ import annotations

import logging
import re
import sys
import uuid
from collections.abc import Mapping
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

import dask
from distributed import Client, KilledWorker, LocalCluster, WorkerPlugin, as_completed
from tqdm import tqdm

from vta_mlir.errors import VTAError
from vta_mlir.explore.cache import PointCache
from vta_mlir.explore.point import RESULT_KEYS, PointFunction, import_compiler, point_result

if TYPE_CHECKING:
    from distributed import Worker

    from vta_mlir.explore.space import Point
    from vta_mlir.explore.sweep import Model

__all__ = ["CONNECT_TIMEOUT_S", "ImportCompiler", "failure_result", "run_points"]

#: Seconds to wait for an external scheduler to answer and for a first worker to join it.
CONNECT_TIMEOUT_S = 30
#: A worker's address, which a failure's message may hold: rows never name a worker.
_ADDRESS = re.compile(r"\b[a-z]+://\S+")
#: The name the worker plugin is registered under (registering it again replaces it).
_PLUGIN_NAME = "vta-explore-import-compiler"


class ImportCompiler(WorkerPlugin):
    """Imports the compiler on each worker when it starts (module doc)."""

    def setup(self, worker: Worker) -> None:
        import_compiler()


def failure_result(exc: BaseException) -> dict[str, Any]:
    """The ``error`` result of a point whose task failed on every attempt (no worker named)."""
    if isinstance(exc, KilledWorker):
        reason = "the workers running it died on every attempt (a crash, or out of memory)"
    else:
        message = _ADDRESS.sub("a worker", " ".join(str(exc).split()))
        reason = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return point_result("error", f"the point failed on every attempt: {reason}")


def _connect(stack: ExitStack, scheduler: str | None, workers: int, retries: int) -> Client:
    """A client of a new local cluster of ``workers`` processes, or of ``scheduler``'s."""
    if scheduler is None:
        with dask.config.set({"distributed.scheduler.allowed-failures": retries}):
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    # The scheduler's HTTP routes (health, metrics) on a free port, not on 8787.
                    scheduler_kwargs={"dashboard_address": ":0"},
                    silence_logs=logging.ERROR,
                )
            )
        client = stack.enter_context(Client(cluster))
        client.wait_for_workers(workers)
        return client
    try:
        client = stack.enter_context(Client(scheduler, timeout=CONNECT_TIMEOUT_S))
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as exc:  # unreachable, or not an address
        raise VTAError(
            f"cannot use the scheduler at {scheduler}: {' '.join(str(exc).split())}"
        ) from None
    return client


def run_points(
    tasks: Mapping[str, tuple[Model, Point]],
    texts: Mapping[str, bytes],
    *,
    seed: int,
    scheduler: str | None,
    workers: int,
    retries: int,
    progress: bool | None,
    point_function: PointFunction,
    function: str | None = None,
    cache: PointCache,
) -> tuple[dict[str, dict[str, Any]], int]:
    """Run the ``tasks`` (point key to model and point), the models' MLIR ``texts`` by model
    name, on the cluster (``workers`` local processes unless ``scheduler`` is given), passing
    ``function`` to ``point_function`` when one is chosen; store each result in ``cache`` as it
    completes. Returns the results by key and how many points failed
    on every attempt (those are not stored: the next run computes them again)."""
    results: dict[str, dict[str, Any]] = {}
    failed = 0
    with ExitStack() as stack:
        client = _connect(stack, scheduler, max(1, min(workers, len(tasks))), retries)
        client.register_plugin(ImportCompiler(), name=_PLUGIN_NAME)
        remote = {
            name: client.scatter(text, broadcast=True, hash=False) for name, text in texts.items()
        }
        token = uuid.uuid4().hex[:8]
        # A point function written without the keyword keeps working when none is chosen.
        chosen = {} if function is None else {"function": function}
        futures = {}
        for key, (model, point) in tasks.items():
            assert point.config is not None
            future = client.submit(
                point_function,
                remote[model.name],
                model.source_name,
                point.config.to_dict(),
                seed,
                **chosen,
                key=f"vta-explore-{model.name}-{point.name}-{key[:12]}-{token}",
                retries=retries,
                pure=False,
            )
            futures[future] = key
        bar = stack.enter_context(
            tqdm(
                total=len(futures),
                desc="vta-explore",
                unit="point",
                file=sys.stderr,
                disable=progress is False or (progress is None and not sys.stderr.isatty()),
            )
        )
        for future in as_completed(futures):
            key = futures[future]
            model, point = tasks[key]
            try:
                result = dict(future.result())
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # a cancelled future's error is a BaseException
                results[key] = failure_result(exc)
                failed += 1
            else:
                results[key] = {k: result.get(k) for k in RESULT_KEYS}
                assert point.config is not None
                cache.store(
                    key,
                    results[key],
                    model=model.name,
                    digest=model.digest,
                    cfg=point.config,
                    seed=seed,
                )
            future.release()
            bar.update()
    return results, failed
