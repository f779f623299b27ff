"""Running the host steps of a loaded module (:class:`vta_mlir.program.HostStep`) between its
device runs.

Each step's function is parsed once, when the module is loaded.  Before the step its buffers
are read from device DRAM and unpacked into logical arrays (:meth:`ArgSpec.unpack_values`),
the function runs on them with the reference evaluator, and the ``inout`` buffers are packed
and written back: the device then finds every result in the layout it reads.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func

from vta_mlir.errors import BinaryFormatError
from vta_mlir.program import HostStep

__all__ = ["HostStepRunner"]

#: Reads ``nbytes`` of device DRAM at a physical address.
ReadDram = Callable[[int, int], np.ndarray]
#: Writes bytes to device DRAM at a physical address.
WriteDram = Callable[[int, bytes], None]


def _step_function(step: HostStep) -> func.FuncOp:
    from vta_mlir.dialects.vtaisa_host import HostStepOp, step_function

    op = HostStepOp.from_record(step)
    f = step_function(op.module)
    if f is None:  # pragma: no cover - the loader verified the step
        raise BinaryFormatError(f"host step '{step.name}' has no function")
    return f


def contraction_macs(f: func.FuncOp) -> int:
    """The multiply-accumulates of ``f``: the iteration space of each structured op that
    reduces over a product."""
    from xdsl.dialects import arith
    from xdsl.dialects.linalg import abstract_ops as linalg_abstract

    total = 0
    for op in f.walk():
        if not isinstance(op, linalg_abstract.LinalgStructuredOperation):
            continue
        iterators = [it.data.value for it in op.get_iterator_types()]
        body = op.regions[0].block.ops if op.regions and op.regions[0].blocks else ()
        if "reduction" not in iterators or not any(
                isinstance(b, arith.MulfOp | arith.MuliOp) for b in body):
            continue
        sizes = op.get_static_loop_ranges()
        total += int(np.prod(sizes)) if sizes else 0
    return total


class HostStepRunner:
    """The host steps of one program, ready to run."""

    def __init__(self, steps: Sequence[HostStep]) -> None:
        self.steps = list(steps)
        self._functions = [_step_function(step) for step in self.steps]
        self._macs = [contraction_macs(f) for f in self._functions]

    def run_after(self, runs_done: int, read: ReadDram, write: WriteDram,
                  records: list[dict[str, Any]]) -> None:
        """Run the steps that come after ``runs_done`` runs, in order, appending one record
        per step to ``records`` (its name, source location, elements and seconds)."""
        from vta_mlir.reference import run_function

        for step, f, macs in zip(self.steps, self._functions, self._macs, strict=True):
            if step.after_run != runs_done:
                continue
            arrays = [np.array(spec.unpack_values(read(spec.phys, spec.packed_nbytes)))
                      for spec in step.args]
            start = time.perf_counter()
            run_function(f, arrays)
            seconds = time.perf_counter() - start
            for spec, array in zip(step.args, arrays, strict=True):
                if spec.direction == "inout":
                    write(spec.phys, spec.pack_values(array))
            records.append({"step": "compute", "operation": step.name,
                            "location": step.location,
                            "elements": int(sum(a.size for a in arrays)),
                            "macs": macs, "seconds": seconds})
