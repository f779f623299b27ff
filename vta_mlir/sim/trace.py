"""The Chrome / Perfetto trace of a program under the cycle model: what ``vta-run --trace``
writes and :func:`vta_mlir.trace` returns.

The trace depends on the instructions and the configuration's timing parameters only, not on
the data: every call of a program has the same one.  Its runs are timed back to back
(:func:`vta_mlir.sim.timing.time_runs`) and drawn as one stream
(:func:`vta_mlir.sim.timing.chrome_trace`): a track per module with a slice per instruction,
and a ``layers`` track when the program has layers (:mod:`vta_mlir.sim.layers`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vta_mlir.config import VTAConfig
from vta_mlir.program import Program
from vta_mlir.sim.timing import chrome_trace, time_runs

if TYPE_CHECKING:
    from vta_mlir.binary import BinaryModule

__all__ = ["trace_json"]


def trace_json(program: Program | BinaryModule, cfg: VTAConfig) -> dict[str, Any]:
    """The Chrome trace-event object of ``program`` (a :class:`~vta_mlir.program.Program` or a
    binary module's) on ``cfg``: its runs timed back to back by the cycle model, with a track
    of layer slices when the program has layers."""
    prog = program if isinstance(program, Program) else program.program
    runs = [run.insns for run in prog.runs]
    result = time_runs(runs, cfg)
    return chrome_trace([insn for run in runs for insn in run], result, cfg,
                        layers=prog.layers, insn_layers=prog.insn_layers().tolist())
