"""Functions, their arguments and the entry points of the reference evaluator
(:mod:`vta_mlir.reference`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import affine, func, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    MemRefType,
    ModuleOp,
)
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Block, SSAValue

from vta_mlir.abi import Quantization, dequantize, quantize
from vta_mlir.errors import VTAError
from vta_mlir.ir.quant import argument_quantization
from vta_mlir.ir.upstream_fixes.linalg_map import MapOp
from vta_mlir.reference.elementwise import float_storage, storage_type, type_width, wrap
from vta_mlir.reference.machine import Machine

# --------------------------------------------------------------------------------------------
# Arguments


@dataclass(frozen=True)
class Argument:
    """A memref argument of the evaluated function: position, name, shape, numpy dtype,
    whether the function reads and writes it, and its ``vta.quant`` quantization (a float edge:
    the host quantizes the float values given for it and dequantizes what the function
    writes)."""

    index: int
    name: str
    shape: tuple[int, ...]
    dtype: str
    reads: bool
    writes: bool
    quant: Quantization | None = None


def _as_module(source: Any) -> ModuleOp | func.FuncOp:
    if isinstance(source, ModuleOp | func.FuncOp):
        return source
    from vta_mlir.driver import parse_text

    if isinstance(source, str):
        return parse_text(source)
    if isinstance(source, os.PathLike):
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise VTAError(f"cannot read '{path}': {exc}") from None
        return parse_text(text, filename=str(path))
    raise TypeError(
        f"expected MLIR text, a path, a module or a function, not {type(source).__name__}"
    )


def find_function(module: ModuleOp | func.FuncOp, name: str | None = None) -> func.FuncOp:
    """The function to evaluate: ``name``, else the module's only function with a body."""
    if isinstance(module, func.FuncOp):
        candidates = [module]
    else:
        candidates = [
            op for op in module.walk() if isinstance(op, func.FuncOp) and op.body.blocks
        ]
    if name is not None:
        named = [f for f in candidates if f.sym_name.data == name.lstrip("@")]
        if not named:
            known = ", ".join(f"@{f.sym_name.data}" for f in candidates) or "none"
            raise VTAError(f"no function @{name.lstrip('@')} in the module (functions: {known})")
        return named[0]
    if len(candidates) != 1:
        if not candidates:
            raise VTAError("the module has no function with a body to evaluate")
        known = ", ".join(f"@{f.sym_name.data}" for f in candidates)
        raise VTAError(f"the module has several functions ({known}); name the one to evaluate")
    return candidates[0]


def _body_reads_output(block: Block, n_inputs: int, k: int) -> bool:
    return bool(block.args[n_inputs + k].uses)


def _accesses(value: SSAValue) -> tuple[bool, bool]:
    """Whether the memory behind ``value`` (or a view of it) is read and written."""
    reads = writes = False
    pending = [value]
    while pending:
        v = pending.pop()
        for use in v.uses:
            op, index = use.operation, use.index
            if isinstance(op, memref.SubviewOp | memref.CastOp | memref.CollapseShapeOp
                          | memref.ExpandShapeOp):
                if index == 0:
                    pending.append(op.results[0])
            elif isinstance(op, linalg_abstract.LinalgStructuredOperation):
                n_in = len(op.inputs)
                if index < n_in:
                    reads = True
                else:
                    writes = True
                    iterators = [it.data for it in op.get_iterator_types()]
                    if IteratorType.REDUCTION in iterators or _body_reads_output(
                        op.body.block, n_in, index - n_in
                    ):
                        reads = True
            elif isinstance(op, MapOp):
                n_in = len(op.inputs)
                init_read = index == n_in and _body_reads_output(op.mapper.block, n_in, 0)
                reads, writes = reads or index < n_in or init_read, writes or index == n_in
            elif isinstance(op, linalg.BroadcastOp):
                reads, writes = reads or index == 0, writes or index == 1
            elif isinstance(op, linalg.ReduceOp):
                reads, writes = True, writes or index == 1
            elif isinstance(op, memref.CopyOp):
                reads, writes = reads or index == 0, writes or index == 1
            elif isinstance(op, memref.LoadOp | affine.LoadOp):
                reads = True
            elif isinstance(op, memref.StoreOp | affine.StoreOp):
                # Operand 0 is the stored value, 1 the memref.
                writes = writes or index == 1
            elif isinstance(op, memref.DeallocOp):
                pass
            else:
                # An op the evaluator rejects anyway; count it as both.
                reads = writes = True
    return reads, writes


def arguments(source: Any, *, function: str | None = None) -> list[Argument]:
    """The memref arguments of the function :func:`evaluate` runs, in signature order."""
    f = find_function(_as_module(source), function)
    found = []
    for i, arg in enumerate(f.body.block.args):
        t = arg.type
        if not isinstance(t, MemRefType):
            raise VTAError(f"@{f.sym_name.data}: argument {i} has type {t}; the reference "
                           "evaluator takes memref arguments only")
        shape = tuple(t.get_shape())
        if any(d == DYNAMIC_INDEX for d in shape):
            raise VTAError(f"@{f.sym_name.data}: argument {i} ({t}) has a dynamic shape")
        dtype = np.dtype(storage_type(f, t)).name
        reads, writes = _accesses(arg)
        found.append(Argument(i, arg.name_hint or f"arg{i}", shape, dtype, reads, writes,
                              argument_quantization(f, i)))
    return found


def _convert_input(arg: Argument, value: Any) -> np.ndarray:
    array = np.asarray(value)
    if array.shape != arg.shape:
        raise VTAError(f"argument '{arg.name}': expected shape {arg.shape}, got {array.shape}")
    if arg.quant is not None:
        if not np.issubdtype(array.dtype, np.floating):
            raise VTAError(f"argument '{arg.name}': quantized (vta.quant), expects floats, got "
                           f"{array.dtype}")
        return quantize(array, arg.quant)
    if np.issubdtype(np.dtype(arg.dtype), np.floating):
        if not np.issubdtype(array.dtype, np.floating):
            raise VTAError(f"argument '{arg.name}': expected floats ({arg.dtype}), got "
                           f"{array.dtype}")
        # Rounded to nearest even where the array's type is wider.
        return array.astype(arg.dtype)
    if not np.issubdtype(array.dtype, np.integer):
        raise VTAError(f"argument '{arg.name}': expected integers ({arg.dtype}), got "
                       f"{array.dtype}")
    width = np.dtype(arg.dtype).itemsize * 8
    if array.size and np.dtype(array.dtype).itemsize * 8 > width:
        lo, hi = -(1 << (width - 1)), (1 << width) - 1
        if int(array.min()) < lo or int(array.max()) > hi:
            raise VTAError(f"argument '{arg.name}': values do not fit in {arg.dtype}")
    return wrap(array, width).astype(arg.dtype)


def evaluate(
    source: Any, inputs: Sequence[Any], *, function: str | None = None
) -> list[np.ndarray]:
    """Run an input-level program on numpy arrays.

    ``source`` is MLIR text, a path, a parsed module or a ``func.func``; ``inputs`` are the
    arrays of the arguments the function reads, in signature order (arrays of the argument's
    shape, integers for an integer element type and floats for a float one, converted to the
    element type; float arrays for an argument with ``vta.quant``, quantized as the host
    does).  Every other argument starts as zeros.
    Returns the arguments the function writes, in signature order (float32 for one with
    ``vta.quant``, dequantized).  ``function`` names the function when the module has several.
    """
    f = find_function(_as_module(source), function)
    args = arguments(f)
    read = [a for a in args if a.reads]
    if len(inputs) != len(read):
        names = ", ".join(a.name for a in read) or "none"
        raise VTAError(f"@{f.sym_name.data} reads {len(read)} argument(s) ({names}) but "
                       f"{len(inputs)} input array(s) were given")
    arrays = [np.zeros(a.shape, dtype=a.dtype) for a in args]
    for a, value in zip(read, inputs, strict=True):
        arrays[a.index] = _convert_input(a, value)
    run_function(f, arrays)
    return [arrays[a.index] if a.quant is None else dequantize(arrays[a.index], a.quant)
            for a in args if a.writes]


def run_function(f: func.FuncOp, arrays: Sequence[Any]) -> None:
    """Run ``f`` with one array per argument, updating the memref arguments' arrays in place
    (each must have the argument's shape and element type)."""
    block = f.body.block
    if len(arrays) != len(block.args):
        raise VTAError(f"@{f.sym_name.data} takes {len(block.args)} argument(s), "
                       f"{len(arrays)} given")
    module = f.parent_op()
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    machine = Machine(module)
    for i, (arg, value) in enumerate(zip(block.args, arrays, strict=True)):
        t = arg.type
        if isinstance(t, MemRefType):
            if not isinstance(value, np.ndarray):
                raise VTAError(f"argument {i}: expected a numpy array for {t}")
            dtype = storage_type(f, t)
            shape = tuple(t.get_shape())
            if value.dtype != dtype or any(
                d not in (DYNAMIC_INDEX, n) for d, n in zip(shape, value.shape, strict=False)
            ) or len(shape) != value.ndim:
                raise VTAError(f"argument {i}: expected a {np.dtype(dtype).name} array of "
                               f"shape {shape} for {t}, got {value.dtype} {value.shape}")
            machine.env[arg] = value
        elif (dtype := float_storage(f, t)) is not None:
            machine.env[arg] = np.asarray(value).astype(dtype)
        else:
            machine.env[arg] = wrap(np.int64(value), type_width(f, t))
    # Float ops give IEEE's results (inf, NaN) without warnings; integer ops wrap.
    with np.errstate(all="ignore"):
        machine.run_block(block)
