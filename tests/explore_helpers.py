"""Shared by the ``vta-explore`` tests: small models, the figures of a plain ``vta-run
--stats``, point functions that instrument a sweep, and a cluster of separate ``dask
scheduler`` / ``dask worker`` processes.

The point functions are module-level functions of an importable module: the workers of a
local cluster unpickle them by reference.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from vta_mlir.explore.point import evaluate_point
from vta_mlir.explore.sweep import SweepResult

ROOT = Path(__file__).resolve().parents[1]
#: A whole network (nine layers chained through DRAM, per-layer figures) and one convolution.
SMALL_CNN = ROOT / "examples" / "networks" / "small_cnn.mlir"
CONV_EXAMPLES = ROOT / "examples" / "conv"
CONV = CONV_EXAMPLES / "conv2d_c8.mlir"
#: The small CNN's multiply-accumulates: conv1 16·16·16·16·9, two 16-channel 8×8 3×3
#: convolutions, 16 → 32 channels at 4×4 (3×3, and the 1×1 downsample), 32 → 32 at 4×4, fc
#: 32 → 10 (examples/networks/README.md).
SMALL_CNN_MACS = (
    16 * 16 * 16 * 16 * 9
    + 2 * 16 * 8 * 8 * 16 * 9
    + 32 * 4 * 4 * 16 * 9
    + 32 * 4 * 4 * 16
    + 32 * 4 * 4 * 32 * 9
    + 32 * 10
)
#: The columns whose values are wall times.
TIMINGS = ("compile_s", "sim_s")
#: Seconds to wait for a scheduler or its workers to come up.
STARTUP_TIMEOUT_S = 60


def tiny_onnx(path: Path) -> Path:
    """A one-convolution QDQ model (16 → 16 channels, 8×8, 3×3), built with onnx.helper."""
    from tests.onnx_qdq_builder import conv_model

    return conv_model((1, 16, 8, 8), 16).save(path, (1, 16, 6, 6))


def vta_run_stats(model: Path, config: str, folder: Path,
                  function: str | None = None) -> dict[str, Any]:
    """The ``--stats`` of ``vta-run MODEL --config C --random-inputs --check`` (an ONNX model
    imported with ``vta-import-onnx`` first; ``--function`` when ``function`` is given); the
    check must pass."""
    from vta_mlir.tools import vta_import_onnx, vta_run

    if model.suffix == ".onnx":
        imported = folder / f"{model.stem}.mlir"
        assert vta_import_onnx.main([str(model), "-o", str(imported)]) == 0
        model = imported
    stats = folder / f"{model.stem}.{config}.stats.json"
    chosen = [] if function is None else ["--function", function]
    status = vta_run.main(
        [str(model), "--config", config, "--random-inputs", "--check", "--stats", str(stats),
         *chosen]
    )
    assert status == 0
    return json.loads(stats.read_text())


def data_bytes(stats: Mapping[str, Any]) -> int:
    """The DRAM data bytes of a ``--stats`` object, counted here on their own: per layer the
    bytes read and written of every segment but the micro-op staging ones (``uops``...), or
    the four data counters of a run without layers."""
    if stats["layers"]:
        return sum(
            moved["read"] + moved["written"]
            for layer in stats["layers"]
            for segment, moved in layer["dram_bytes"].items()
            if not segment.startswith("uops")
        )
    counters = stats["counters"]
    return sum(
        counters[k]
        for k in ("inp_load_nbytes", "wgt_load_nbytes", "acc_load_nbytes", "out_store_nbytes")
    )


def rows_without_timings(result: SweepResult) -> list[tuple[Any, ...]]:
    """Every row's model, point and figures but the wall times."""
    return [
        (row.model, row.point.name, *(v for k, v in row.figures.items() if k not in TIMINGS))
        for row in result.rows
    ]


# ---------------------------------------------------------------------------------------------
# Point functions


def dying_point(
    marker: str, model: bytes, model_name: str, config: Mapping[str, Any], seed: int
) -> Mapping[str, Any]:
    """The first call of all (the one that creates ``marker``) ends its worker process at once;
    every other call is :func:`~vta_mlir.explore.point.evaluate_point`."""
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return evaluate_point(model, model_name, config, seed)
    os._exit(1)


def refused_point(
    model: bytes, model_name: str, config: Mapping[str, Any], seed: int
) -> Mapping[str, Any]:
    """A point that must not be computed."""
    raise AssertionError(f"{model_name} was computed again")


# ---------------------------------------------------------------------------------------------
# A cluster of separate processes


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End ``process`` and the processes it started (its own session), then reap it."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        except ProcessLookupError:
            pass


@contextmanager
def external_cluster(folder: Path, workers: int = 2) -> Iterator[str]:
    """``dask scheduler`` on a free port of localhost and ``dask worker`` with ``workers``
    single-threaded processes, each a process group of its own, always stopped on exit; yields
    the scheduler's address."""
    dask = str(Path(sys.executable).parent / "dask")
    scheduler_file = folder / "scheduler.json"
    processes: list[subprocess.Popen[bytes]] = []
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    try:
        processes.append(
            subprocess.Popen(
                [
                    dask,
                    "scheduler",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    "0",
                    "--no-dashboard",
                    "--scheduler-file",
                    str(scheduler_file),
                ],
                start_new_session=True,
                **quiet,
            )
        )
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not scheduler_file.is_file() or not scheduler_file.read_text().strip():
            assert processes[0].poll() is None, "dask scheduler stopped"
            assert time.monotonic() < deadline, "dask scheduler did not start"
            time.sleep(0.1)
        address = json.loads(scheduler_file.read_text())["address"]
        processes.append(
            subprocess.Popen(
                [
                    dask,
                    "worker",
                    address,
                    "--nworkers",
                    str(workers),
                    "--nthreads",
                    "1",
                    "--host",
                    "127.0.0.1",
                    "--no-dashboard",
                ],
                start_new_session=True,
                **quiet,
            )
        )
        from distributed import Client

        with Client(address, timeout=STARTUP_TIMEOUT_S) as client:
            client.wait_for_workers(workers, timeout=STARTUP_TIMEOUT_S)
        yield address
    finally:
        for process in reversed(processes):
            _stop(process)
