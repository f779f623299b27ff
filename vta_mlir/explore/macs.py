"""The true multiply-accumulates of a program: what its contractions and convolutions compute,
with the channel counts as they are (no rounding up to whole blocks).

They are counted on the module as ``vta-pack`` receives it — the memref form of structured ops
that every input form reaches first (tensors bufferized, loop nests raised,
``docs/pipeline.md`` stage 0) — so an ONNX import, a torch-mlir export and a hand-written
module of the same network count alike. A structured op multiply-accumulates when it has a
reduction loop and its body multiplies two values that are not constants (a matmul, a
convolution, a ``linalg.generic`` contraction; not a pooling op, nor the scaling of an average
pool); it does one per point of its iteration space.

:func:`counting_macs` counts them while the program compiles, so that no second pass over the
input is needed; the GEMM bound of a configuration is then MACs / (BATCH · BLOCK_IN ·
BLOCK_OUT), as ``benchmarks/resnet18_network.py`` computes it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from vta_mlir.ir.stages import observe_stages

__all__ = ["MacCount", "counting_macs", "multiply_accumulates"]

#: The stage before which the module is in the form counted (the first of the lowering proper).
COUNTED_BEFORE = "vta-pack"
_PRODUCTS = (arith.MuliOp, arith.MulfOp)


def _is_constant(value: SSAValue) -> bool:
    return isinstance(value.owner, arith.ConstantOp)


def _multiplies_operands(op: LinalgStructuredOperation) -> bool:
    """Whether the body multiplies two non-constant values (the products of a
    contraction)."""
    if not op.body.blocks:
        return False
    return any(
        isinstance(inner, _PRODUCTS)
        and not _is_constant(inner.operands[0])
        and not _is_constant(inner.operands[1])
        for inner in op.body.block.ops
    )


def _op_macs(op: LinalgStructuredOperation) -> int | None:
    """The multiply-accumulates of one structured op (0 for one that does none), None when its
    loop ranges cannot be inferred from its operand shapes."""
    iterators = [t.data for t in op.get_iterator_types()]
    if IteratorType.REDUCTION not in iterators or not _multiplies_operands(op):
        return 0
    try:
        ranges = op.get_static_loop_ranges()
    except (NotImplementedError, ValueError, IndexError):
        return None
    if any(not isinstance(r, int) or r < 0 for r in ranges):
        return None
    return math.prod(ranges)


def multiply_accumulates(module: Operation) -> int | None:
    """The multiply-accumulates of every structured op of ``module`` (module doc); None when
    one of them has loop ranges its operand shapes do not give (dynamic shapes)."""
    total = 0
    for op in module.walk():
        if isinstance(op, LinalgStructuredOperation):
            macs = _op_macs(op)
            if macs is None:
                return None
            total += macs
    return total


@dataclass
class MacCount:
    """The multiply-accumulates counted while a program compiled: None until the counted
    stage was reached (or when they could not be counted)."""

    macs: int | None = None


@contextmanager
def counting_macs() -> Iterator[MacCount]:
    """While the block compiles input-level IR through ``vta-to-isa``, count its
    multiply-accumulates on the module ``vta-pack`` receives."""
    count = MacCount()

    def observe(
        previous: ModulePass | None, module: ModuleOp, following: ModulePass | None
    ) -> None:
        if following is not None and following.name == COUNTED_BEFORE and count.macs is None:
            count.macs = multiply_accumulates(module)

    with observe_stages(observe):
        yield count
