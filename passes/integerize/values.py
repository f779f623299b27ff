"""Small readings of the IR ``vta-integerize`` shares between its modules: shapes, result
arguments, channel maps, and the choice of a requantization at an op (``docs/onnx.md`` §3)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue

from vta_mlir.host import RESULT_ATTR_NAME
from vta_mlir.quant.requant import Requant, choose_requant, choose_requant_channels

from .meaning import Unsupported

__all__ = ["is_result", "reads_channel", "requant", "shape", "writes"]


def shape(value: SSAValue) -> tuple[int, ...]:
    """The static shape of a memref value."""
    t = value.type
    assert isinstance(t, MemRefType)
    return tuple(t.get_shape())


def is_result(f: func.FuncOp, index: int) -> bool:
    """Whether argument ``index`` of ``f`` is a result (``vta.result``)."""
    attrs = f.arg_attrs.data[index].data if f.arg_attrs is not None else {}
    return RESULT_ATTR_NAME in attrs


def writes(op: Operation, buffer: SSAValue) -> bool:
    """Whether ``op`` is a generic writing ``buffer``."""
    return isinstance(op, linalg.GenericOp) and buffer in op.outputs


def reads_channel(op: linalg.GenericOp, index: int, rank: int) -> bool:
    """Whether input ``index`` of ``op`` is read along the output channels only."""
    results = op.indexing_maps.data[index].data.results
    channel = 1 if rank == 4 else rank - 1
    return len(results) == 1 and str(results[0]) == f"d{channel}"


def requant(op: Operation, multiplier: float | np.ndarray) -> Requant:
    """The fixed-point requantization of ``multiplier``, one per channel when it is a vector
    of different values (per-channel weight scales); an error at ``op`` when there is none."""
    values = np.ravel(multiplier)
    try:
        if np.any(values != values[0]):  # per-channel weight scales
            return choose_requant_channels(values.tolist())
        return choose_requant(float(values[0]))
    except ValueError as exc:
        raise Unsupported(op, str(exc)) from None
