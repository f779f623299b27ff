"""One point of a sweep: a model compiled for one configuration, run on the simulator with
seeded random inputs and compared with the reference evaluator — what ``vta-run MODEL
--config C --random-inputs --seed S --check --stats`` does — and the figures of the run.

:func:`evaluate_point` is the function a Dask worker runs. It takes plain data (the model's
MLIR as bytes, the configuration as a ``vta_config.json`` mapping) and returns a plain mapping
(:data:`RESULT_KEYS`), so that the point needs no shared file system and its result can be
kept as JSON. Whatever goes wrong in the compiler or the simulator is the point's ``error``
status with a one-line reason, never an exception: an exception out of this function means the
worker itself failed, which Dask retries.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from vta_mlir.config import VTAConfig

__all__ = [
    "PointFunction",
    "RESULT_KEYS",
    "STATUSES",
    "point_result",
    "evaluate_point",
    "sram_bytes",
]

#: What computes one point (:func:`evaluate_point`'s signature): the model's MLIR, its name in
#: messages, the configuration as a ``vta_config.json`` mapping and the seed of the inputs; a
#: sweep with a chosen function (``function=``) passes it as the keyword ``function``.
PointFunction = Callable[..., Mapping[str, Any]]
#: The statuses of a row: the outputs agree with the reference evaluator, differ from it, the
#: configuration breaks a hardware rule, or compiling or running failed.
STATUSES: tuple[str, ...] = ("ok", "mismatch", "invalid-config", "error")
#: The keys of a point's result, in order.
RESULT_KEYS: tuple[str, ...] = (
    "status",
    "reason",
    "cycles",
    "busy_load",
    "busy_compute",
    "busy_store",
    "dram_bytes",
    "macs",
    "compile_s",
    "sim_s",
)


def sram_bytes(cfg: VTAConfig) -> int:
    """The on-chip memory of a configuration: its input, weight, accumulator and micro-op
    buffers (``LOG_*_BUFF_SIZE`` are the log2 of their sizes in bytes)."""
    return sum(
        1 << log_size
        for log_size in (
            cfg.log_inp_buff_size,
            cfg.log_wgt_buff_size,
            cfg.log_acc_buff_size,
            cfg.log_uop_buff_size,
        )
    )


def point_result(status: str, reason: str, **figures: Any) -> dict[str, Any]:
    """A result of ``status`` with its one-line ``reason`` (empty when ok) and the figures
    given (the others None)."""
    result: dict[str, Any] = dict.fromkeys(RESULT_KEYS)
    result.update(figures, status=status, reason=reason)
    return result


def import_compiler() -> None:
    """Import everything a point runs — the passes of ``vta-to-isa``, the simulated device, the
    reference evaluator — and build a context once, so that the first point a process computes
    does not count the imports in its ``compile_s``."""
    import vta_mlir.reference  # noqa: F401
    import vta_mlir.runtime.device  # noqa: F401
    from vta_mlir.ir.context import make_context
    from vta_mlir.passes import get_all_passes

    for load in get_all_passes().values():
        load()
    make_context()


def _one_line(exc: BaseException) -> str:
    """The tools' one-line report of an error, with its source position when it has one."""
    from vta_mlir.ir.pipeline import describe_exception

    report = describe_exception(exc)
    return f"{report.location}: {report.message}" if report.location else report.message


def evaluate_point(
    model: bytes, model_name: str, config: Mapping[str, Any], seed: int,
    function: str | None = None,
) -> dict[str, Any]:
    """Compile the input-level MLIR ``model`` (named ``model_name`` in messages) for the
    configuration ``config`` (a ``vta_config.json`` mapping), run it on a new simulated device
    with the random inputs of ``seed`` and compare its outputs with the reference evaluator.
    ``function`` is the function of the model to compile and check, as ``vta-run --function``
    (needed when the model has several).

    Returns the :data:`RESULT_KEYS`: ``status`` ``ok`` or ``mismatch`` (``reason``: the
    outputs that differ) with the run's cycles, busy cycles per module, DRAM data bytes
    (:func:`vta_mlir.stats.dram_bytes`) and true multiply-accumulates
    (:mod:`vta_mlir.explore.macs`); ``error`` with the one-line message when compiling or
    running fails. ``compile_s`` times parsing and lowering, ``sim_s`` the run.
    """
    from vta_mlir.driver import Level, Source, parse_source, to_binary
    from vta_mlir.explore.macs import counting_macs
    from vta_mlir.run import check_outputs, check_sram_indices, random_inputs, run_program
    from vta_mlir.stats import dram_bytes, staging_segments, stats_json

    figures: dict[str, Any] = {}
    try:
        cfg = VTAConfig.from_dict(config, source=model_name)
        start = time.perf_counter()
        parsed = parse_source(Source.from_bytes(model, model_name), cfg)
        if parsed.level != Level.INPUT or parsed.module is None:
            return point_result(
                "error",
                f"{model_name}: {parsed.level.description} has no reference semantics to "
                "check against (a model is input-level IR)",
            )
        # Lowering rewrites the module in place; the reference evaluates the original.
        reference = parsed.module.clone()
        with counting_macs() as counted:
            binary = to_binary(parsed, function=function, requant="fixed-point")
        figures["compile_s"] = time.perf_counter() - start
        figures["macs"] = counted.macs
        inputs = random_inputs(binary.inputs, seed)
        check_sram_indices(binary, cfg)
        start = time.perf_counter()
        record = run_program(binary, cfg, inputs)
        figures["sim_s"] = time.perf_counter() - start
        stats = stats_json(record.stats, binary)
        figures.update(
            cycles=stats["cycles"],
            busy_load=stats["busy"]["load"],
            busy_compute=stats["busy"]["compute"],
            busy_store=stats["busy"]["store"],
            dram_bytes=dram_bytes(stats, staging_segments(binary)),
        )
        problems = check_outputs(reference, binary, inputs, record.outputs, function=function)
    except Exception as exc:  # the point's error, whatever the stage (module doc)
        return point_result("error", _one_line(exc), **figures)
    if problems:
        return point_result("mismatch", "; ".join(problems), **figures)
    return point_result("ok", "", **figures)
