"""A numpy reference evaluator of input-level programs: the semantics ``vta-run --check``
compares the simulator's results with.

It runs a ``func.func`` whose arguments are memrefs on numpy arrays, one whole-array numpy
operation per op, never a Python loop per element::

    from vta_mlir.reference import evaluate
    (y,) = evaluate(text, [x, w])       # the arrays the function reads, in signature order;
                                        # returns the ones it writes, in signature order

What it evaluates:

* ``linalg.generic`` and the structured named ops (``linalg.matmul`` with or without upstream
  ``indexing_maps``, ``linalg.fill``, ``linalg.copy``, ``linalg.transpose``, convolutions, the
  element-wise named ops), ``linalg.broadcast`` and ``linalg.reduce``: any affine indexing maps
  (projected permutations are strided views, other maps gathers); a body of the integer
  ``arith`` subset, evaluated over the iteration space with numpy broadcasting.  A reduction
  must combine the accumulator with one value (``addi``, ``muli``, ``maxsi``, ...); sums of
  products are contracted with ``numpy.einsum`` — in float64 (BLAS) when every partial sum is
  exactly representable there, in int64 otherwise;
* ``memref.alloc`` / ``alloca`` (zero-filled), ``dealloc``, ``copy``, ``subview`` (views, rank
  reduction included), ``cast``, ``collapse_shape`` / ``expand_shape``, ``get_global``;
* ``arith`` on integers and ``index``, ``affine.apply`` / ``min``, and ``affine.for``
  / ``scf.for`` loops around such ops (host-level loops, each iteration vectorised).

Integer arithmetic is exact: every value is held as int64 sign-extended from its type's width
and wrapped to that width after each op (``addi``, ``muli``, ``shli``, ``trunci``, ...).  Two
cases that are undefined in MLIR get VTA's meaning, because the pipeline's normal form relies on
them: ``arith.shrsi`` by a negative amount shifts left (VTA's SHR), and a shift amount of at
least the width is taken modulo the width (the ALU uses the low bits).  An op reads all its
operands before it writes its outputs.

Anything else — floats, tensors, element-wise ``memref.load`` / ``affine.store``, calls — is a
:class:`~vta_mlir.ir.diagnostics.DiagnosticError` at the op; bad arguments are
:class:`~vta_mlir.errors.VTAError` s.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import affine, arith, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    TensorType,
)
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)

from vta_mlir.errors import VTAError
from vta_mlir.ir.dense import dense_int_array
from vta_mlir.ir.diagnostics import report_error

__all__ = [
    "Argument",
    "arguments",
    "evaluate",
    "find_function",
    "run_function",
    "shift_right",
    "wrap",
]

#: numpy storage type of a memref element, by integer width.
_STORAGE: dict[int, type[np.signedinteger[Any]]] = {
    8: np.int8,
    16: np.int16,
    32: np.int32,
    64: np.int64,
}

#: Sums of products below this bound are exact in float64 (53-bit significand).
_FLOAT_EXACT = 1 << 53

_EINSUM_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


# --------------------------------------------------------------------------------------------
# Integer semantics


def wrap(values: Any, width: int) -> np.ndarray:
    """Two's-complement wrap-around of integer values to ``width`` bits, as int64 holding the
    sign-extended result (``width`` 64: int64's own wrap-around)."""
    v = np.asarray(values)
    if v.dtype != np.int64:
        # A uint64 wraps to the same bits; narrower types convert exactly.
        v = v.astype(np.int64)
    if width >= 64:
        return v
    shift = 64 - width
    return (v << shift) >> shift


def _unsigned(v: np.ndarray, width: int) -> np.ndarray:
    """The unsigned reading of sign-extended ``width``-bit values (uint64 for 64 bits)."""
    if width >= 64:
        return np.asarray(v).astype(np.uint64)
    return np.asarray(v) & ((1 << width) - 1)


def shift_right(a: Any, b: Any, width: int = 32) -> np.ndarray:
    """``arith.shrsi`` as VTA's SHR: an arithmetic right shift by ``b`` for ``b >= 0`` and a left
    shift by ``-b`` otherwise, the amount taken modulo ``width``; wrapped to ``width`` bits."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    right = a >> np.mod(b, width)
    if not np.any(b < 0):
        return right
    left = wrap(a << np.mod(-b, width), width)
    return np.where(b < 0, left, right)


def _shift_left(a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    return wrap(a << np.mod(b, width), width)


def _shift_right_unsigned(a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    return wrap(_unsigned(a, width) >> _unsigned(np.mod(b, width), width), width)


def _nonzero_divisor(op: Operation, b: np.ndarray) -> None:
    if np.any(b == 0):
        report_error(op, "divides by zero (undefined behaviour) for the given inputs")


def _divsi(op: Operation, a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    _nonzero_divisor(op, b)
    q = np.floor_divide(a, b)
    # Floor to truncation: one up where the division was inexact and the signs differ.
    q = q + ((np.mod(a, b) != 0) & ((a < 0) != (b < 0)))
    return wrap(q, width)


def _remsi(op: Operation, a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    q = _divsi(op, a, b, 64)
    return wrap(a - q * b, width)


def _unsigned_div(
    op: Operation, a: np.ndarray, b: np.ndarray, width: int, *, ceil: bool = False,
    rem: bool = False,
) -> np.ndarray:
    ua, ub = _unsigned(a, width), _unsigned(b, width)
    _nonzero_divisor(op, ub)
    if rem:
        return wrap(ua % ub, width)
    q = ua // ub
    if ceil:
        q = q + (ua % ub != 0)
    return wrap(q, width)


def _cmpi(predicate: int, a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    if predicate >= 6:
        a, b = _unsigned(a, width), _unsigned(b, width)
    result = {
        0: np.equal,
        1: np.not_equal,
        2: np.less,
        3: np.less_equal,
        4: np.greater,
        5: np.greater_equal,
        6: np.less,
        7: np.less_equal,
        8: np.greater,
        9: np.greater_equal,
    }[predicate](a, b)
    # An i1 true sign-extends to -1 (so extui gives 1 and extsi gives -1, as in MLIR).
    return np.where(result, np.int64(-1), np.int64(0))


#: Binary integer ops: ``(op, a, b, width) -> value`` on sign-extended int64 arrays.
_BINARY: dict[type[Operation], Callable[[Operation, np.ndarray, np.ndarray, int], np.ndarray]] = {
    arith.AddiOp: lambda op, a, b, w: wrap(a + b, w),
    arith.SubiOp: lambda op, a, b, w: wrap(a - b, w),
    arith.MuliOp: lambda op, a, b, w: wrap(a * b, w),
    arith.AndIOp: lambda op, a, b, w: a & b,
    arith.OrIOp: lambda op, a, b, w: a | b,
    arith.XOrIOp: lambda op, a, b, w: a ^ b,
    arith.MaxSIOp: lambda op, a, b, w: np.maximum(a, b),
    arith.MinSIOp: lambda op, a, b, w: np.minimum(a, b),
    arith.MaxUIOp: lambda op, a, b, w: wrap(np.maximum(_unsigned(a, w), _unsigned(b, w)), w),
    arith.MinUIOp: lambda op, a, b, w: wrap(np.minimum(_unsigned(a, w), _unsigned(b, w)), w),
    arith.ShRSIOp: lambda op, a, b, w: shift_right(a, b, w),
    arith.ShLIOp: lambda op, a, b, w: _shift_left(a, b, w),
    arith.ShRUIOp: lambda op, a, b, w: _shift_right_unsigned(a, b, w),
    arith.DivSIOp: _divsi,
    arith.RemSIOp: _remsi,
    arith.FloorDivSIOp: lambda op, a, b, w: (
        _nonzero_divisor(op, b), wrap(np.floor_divide(a, b), w))[1],
    arith.CeilDivSIOp: lambda op, a, b, w: (
        _nonzero_divisor(op, b), wrap(np.floor_divide(a, b) + (np.mod(a, b) != 0), w))[1],
    arith.DivUIOp: lambda op, a, b, w: _unsigned_div(op, a, b, w),
    arith.CeilDivUIOp: lambda op, a, b, w: _unsigned_div(op, a, b, w, ceil=True),
    arith.RemUIOp: lambda op, a, b, w: _unsigned_div(op, a, b, w, rem=True),
}

#: Reductions: the op combining the accumulator with a value -> its numpy ufunc, whether
#: repeating a value leaves the result unchanged, whether it compares unsigned.
_COMBINERS: dict[type[Operation], tuple[np.ufunc, bool, bool]] = {
    arith.AddiOp: (np.add, False, False),
    arith.MuliOp: (np.multiply, False, False),
    arith.XOrIOp: (np.bitwise_xor, False, False),
    arith.AndIOp: (np.bitwise_and, True, False),
    arith.OrIOp: (np.bitwise_or, True, False),
    arith.MaxSIOp: (np.maximum, True, False),
    arith.MinSIOp: (np.minimum, True, False),
    arith.MaxUIOp: (np.maximum, True, True),
    arith.MinUIOp: (np.minimum, True, True),
}


def _width(op: Operation, t: Attribute) -> int:
    """Bit width of an integer or ``index`` type; anything else is unsupported."""
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, IndexType):
        return 64
    report_error(op, f"type {t} is not supported by the reference evaluator (integer and index "
                     "types only)")


def _storage(op: Operation, t: Attribute) -> type[np.signedinteger[Any]]:
    """numpy dtype of a memref's elements."""
    if isinstance(t, TensorType):
        report_error(op, "tensor operands are not supported by the reference evaluator: it "
                         "evaluates programs on memrefs")
    if not isinstance(t, MemRefType):
        report_error(op, f"expected a memref, got {t}")
    element = t.element_type
    if isinstance(element, IntegerType) and element.width.data in _STORAGE:
        return _STORAGE[element.width.data]
    report_error(op, f"memref element type {element} is not supported by the reference "
                     "evaluator (i8, i16, i32 or i64)")


def _scalar(op: Operation, operands: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The results of an element-wise ``arith`` op on (broadcastable) operand values."""
    if isinstance(op, arith.ConstantOp):
        value = op.value
        if not isinstance(value, IntegerAttr):
            report_error(op, f"constant {value} is not supported by the reference evaluator "
                             "(integer and index constants only)")
        width = _width(op, op.result.type)
        return [wrap(np.int64(value.value.data), width)]
    result_width = _width(op, op.results[0].type) if op.results else 64
    kind = type(op)
    if kind in _BINARY:
        width = _width(op, op.operands[0].type)
        return [_BINARY[kind](op, operands[0], operands[1], width)]
    if isinstance(op, arith.ExtSIOp):
        return [operands[0]]
    if isinstance(op, arith.ExtUIOp):
        return [wrap(_unsigned(operands[0], _width(op, op.operands[0].type)), result_width)]
    if isinstance(op, arith.TruncIOp):
        return [wrap(operands[0], result_width)]
    if isinstance(op, arith.IndexCastOp):
        return [wrap(operands[0], result_width)]
    if isinstance(op, arith.CmpiOp):
        width = _width(op, op.operands[0].type)
        return [_cmpi(op.predicate.value.data, operands[0], operands[1], width)]
    if isinstance(op, arith.SelectOp):
        return [np.where(operands[0] != 0, operands[1], operands[2])]
    report_error(op, "is not supported by the reference evaluator")


# --------------------------------------------------------------------------------------------
# Affine expressions over index grids


def _affine(op: Operation, expr: AffineExpr, dims: Sequence[Any], syms: Sequence[Any]) -> Any:
    """``expr`` with dimension ``i`` bound to ``dims[i]`` and symbol ``j`` to ``syms[j]``
    (Python ints or broadcastable index arrays); ``mod`` and ``floordiv`` round towards minus
    infinity as in MLIR."""
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineSymExpr):
        return syms[expr.position]
    if isinstance(expr, AffineConstantExpr):
        return expr.value
    if isinstance(expr, AffineBinaryOpExpr):
        lhs = _affine(op, expr.lhs, dims, syms)
        rhs = _affine(op, expr.rhs, dims, syms)
        kind = expr.kind
        if kind == AffineBinaryOpKind.Add:
            return lhs + rhs
        if kind == AffineBinaryOpKind.Mul:
            return lhs * rhs
        if np.any(np.asarray(rhs) == 0):
            report_error(op, f"affine expression {expr} divides by zero")
        if kind == AffineBinaryOpKind.Mod:
            return lhs % rhs
        if kind == AffineBinaryOpKind.FloorDiv:
            return lhs // rhs
        if kind == AffineBinaryOpKind.CeilDiv:
            return -((-lhs) // rhs)
    report_error(op, f"affine expression {expr} is not supported by the reference evaluator")


def _apply_map(op: Operation, m: AffineMap, operands: Sequence[int]) -> list[int]:
    dims, syms = operands[: m.num_dims], operands[m.num_dims :]
    return [int(_affine(op, r, dims, syms)) for r in m.results]


# --------------------------------------------------------------------------------------------
# Arguments


@dataclass(frozen=True)
class Argument:
    """A memref argument of the evaluated function: position, name, shape, numpy dtype, and
    whether the function reads and writes it."""

    index: int
    name: str
    shape: tuple[int, ...]
    dtype: str
    reads: bool
    writes: bool


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
            elif isinstance(op, linalg.BroadcastOp):
                reads, writes = reads or index == 0, writes or index == 1
            elif isinstance(op, linalg.ReduceOp):
                reads, writes = True, writes or index == 1
            elif isinstance(op, memref.CopyOp):
                reads, writes = reads or index == 0, writes or index == 1
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
        dtype = np.dtype(_storage(f, t)).name
        reads, writes = _accesses(arg)
        found.append(Argument(i, arg.name_hint or f"arg{i}", shape, dtype, reads, writes))
    return found


def _convert_input(arg: Argument, value: Any) -> np.ndarray:
    array = np.asarray(value)
    if array.shape != arg.shape:
        raise VTAError(f"argument '{arg.name}': expected shape {arg.shape}, got {array.shape}")
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
    arrays of the arguments the function reads, in signature order (integer arrays of the
    argument's shape; values are converted to its element type).  Every other argument starts
    as zeros.  Returns the arguments the function writes, in signature order.  ``function``
    names the function when the module has several.
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
    return [arrays[a.index] for a in args if a.writes]


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
    machine = _Machine(module)
    for i, (arg, value) in enumerate(zip(block.args, arrays, strict=True)):
        t = arg.type
        if isinstance(t, MemRefType):
            if not isinstance(value, np.ndarray):
                raise VTAError(f"argument {i}: expected a numpy array for {t}")
            dtype = _storage(f, t)
            shape = tuple(t.get_shape())
            if value.dtype != dtype or any(
                d not in (DYNAMIC_INDEX, n) for d, n in zip(shape, value.shape, strict=False)
            ) or len(shape) != value.ndim:
                raise VTAError(f"argument {i}: expected a {np.dtype(dtype).name} array of "
                               f"shape {shape} for {t}, got {value.dtype} {value.shape}")
            machine.env[arg] = value
        else:
            machine.env[arg] = wrap(np.int64(value), _width(f, t))
    with np.errstate(over="ignore"):
        machine.run_block(block)


# --------------------------------------------------------------------------------------------
# The interpreter


class _Body:
    """Demand-driven evaluation of a structured op's body over its iteration space: each value
    is a numpy array broadcastable to the loop sizes (a dimension the value does not depend on
    has extent 1)."""

    def __init__(
        self,
        machine: _Machine,
        op: Operation,
        block: Block,
        args: Callable[[int], np.ndarray],
        sizes: Sequence[int],
    ) -> None:
        self.machine = machine
        self.op = op
        self.block = block
        self.args = args
        self.sizes = sizes
        self.cache: dict[SSAValue, np.ndarray] = {}

    def local(self, value: SSAValue) -> Operation | None:
        """The op of this body defining ``value``, if any."""
        owner = value.owner
        if isinstance(owner, Operation) and owner.parent_block() is self.block:
            return owner
        return None

    def get(self, value: SSAValue) -> np.ndarray:
        if value in self.cache:
            return self.cache[value]
        if isinstance(value, BlockArgument) and value.block is self.block:
            result = self.args(value.index)
        elif (op := self.local(value)) is not None:
            if isinstance(op, linalg.IndexOp):
                dim = op.dim.value.data
                shape = [1] * len(self.sizes)
                shape[dim] = self.sizes[dim]
                result = np.arange(self.sizes[dim], dtype=np.int64).reshape(shape)
            else:
                if op.regions:
                    report_error(op, "ops with regions are not supported inside a linalg body "
                                     "by the reference evaluator")
                values = _scalar(op, [self.get(v) for v in op.operands])
                for r, v in zip(op.results, values, strict=True):
                    self.cache[r] = np.asarray(v)
                result = self.cache[value]
        else:
            result = self.machine.value(self.op, value)
        self.cache[value] = np.asarray(result)
        return self.cache[value]


class _Machine:
    """Values of the host program: numpy arrays for memrefs (views share memory), 0-d int64
    arrays for integers and indices."""

    def __init__(self, module: ModuleOp | None) -> None:
        self.module = module
        self.env: dict[SSAValue, np.ndarray] = {}
        self.globals: dict[str, np.ndarray] = {}

    def value(self, op: Operation, value: SSAValue) -> np.ndarray:
        try:
            return self.env[value]
        except KeyError:
            report_error(op, "uses a value the reference evaluator did not compute")

    def index(self, op: Operation, value: SSAValue) -> int:
        return int(self.value(op, value))

    # ---- blocks and control flow -----------------------------------------------------------

    def run_block(self, block: Block) -> list[np.ndarray]:
        """Run ``block``; returns the operand values of its terminator."""
        for op in block.ops:
            if isinstance(op, func.ReturnOp):
                if op.operands:
                    report_error(op, "returning values is not supported by the reference "
                                     "evaluator; write results into memref arguments")
                return []
            if isinstance(op, scf.YieldOp | affine.YieldOp):
                return [self.value(op, v) for v in op.operands]
            self.run_op(op)
        return []

    def run_loop(
        self, op: Operation, lower: int, upper: int, step: int, inits: Sequence[SSAValue]
    ) -> None:
        if step <= 0:
            report_error(op, f"loop step {step} is not positive")
        block = op.regions[0].block
        carried = [self.value(op, v) for v in inits]
        for i in range(lower, upper, step):
            self.env[block.args[0]] = np.int64(i)
            for arg, v in zip(block.args[1:], carried, strict=True):
                self.env[arg] = v
            carried = self.run_block(block)
        for r, v in zip(op.results, carried, strict=True):
            self.env[r] = v

    # ---- one op ----------------------------------------------------------------------------

    def run_op(self, op: Operation) -> None:
        if isinstance(op, linalg_abstract.LinalgStructuredOperation):
            self.structured(
                op,
                [m.data for m in op.get_indexing_maps()],
                [it.data for it in op.get_iterator_types()],
                list(op.inputs),
                list(op.outputs),
                op.body.block,
            )
        elif isinstance(op, linalg.BroadcastOp):
            self.broadcast(op)
        elif isinstance(op, linalg.ReduceOp):
            self.reduce(op)
        elif isinstance(op, memref.AllocOp | memref.AllocaOp):
            t = op.memref.type
            dtype = _storage(op, t)
            dynamic = iter(self.index(op, v) for v in op.dynamic_sizes)
            shape = [next(dynamic) if d == DYNAMIC_INDEX else d for d in t.get_shape()]
            self.env[op.memref] = np.zeros(shape, dtype=dtype)
        elif isinstance(op, memref.DeallocOp):
            pass
        elif isinstance(op, memref.CopyOp):
            src = self.value(op, op.source)
            dst = self.value(op, op.destination)
            if src.shape != dst.shape:
                report_error(op, f"copies shape {src.shape} into shape {dst.shape}")
            dst[...] = src
        elif isinstance(op, memref.SubviewOp):
            self.env[op.result] = self.subview(op)
        elif isinstance(op, memref.CastOp):
            self.env[op.dest] = self.value(op, op.source)
        elif isinstance(op, memref.CollapseShapeOp | memref.ExpandShapeOp):
            self.env[op.result] = self.reshape(op)
        elif isinstance(op, memref.GetGlobalOp):
            self.env[op.memref] = self.global_array(op)
        elif isinstance(op, affine.ApplyOp):
            operands = [self.index(op, v) for v in op.mapOperands]
            (value,) = _apply_map(op, op.map.data, operands)
            self.env[op.result] = np.int64(value)
        elif isinstance(op, affine.MinOp):
            operands = [self.index(op, v) for v in op.operands]
            self.env[op.result] = np.int64(min(_apply_map(op, op.map.data, operands)))
        elif isinstance(op, affine.ForOp):
            lbs = [self.index(op, v) for v in op.lowerBoundOperands]
            ubs = [self.index(op, v) for v in op.upperBoundOperands]
            lower = max(_apply_map(op, op.lowerBoundMap.data, lbs))
            upper = min(_apply_map(op, op.upperBoundMap.data, ubs))
            self.run_loop(op, lower, upper, op.step.value.data, list(op.inits))
        elif isinstance(op, scf.ForOp):
            self.run_loop(op, self.index(op, op.lb), self.index(op, op.ub),
                          self.index(op, op.step), list(op.iter_args))
        elif isinstance(op, memref.LoadOp | memref.StoreOp | affine.LoadOp | affine.StoreOp):
            report_error(op, "element-wise memory accesses are not supported by the reference "
                             "evaluator; express the computation with linalg ops")
        elif op.dialect_name() == "arith" and not op.regions:
            values = _scalar(op, [self.value(op, v) for v in op.operands])
            for r, v in zip(op.results, values, strict=True):
                self.env[r] = np.asarray(v)
        else:
            report_error(op, "is not supported by the reference evaluator")

    # ---- memref views ----------------------------------------------------------------------

    def subview(self, op: memref.SubviewOp) -> np.ndarray:
        src = self.value(op, op.source)

        def resolve(static: Iterable[int], dynamic: Sequence[SSAValue]) -> list[int]:
            values = iter(self.index(op, v) for v in dynamic)
            return [next(values) if s == DYNAMIC_INDEX else s for s in static]

        offsets = resolve(op.static_offsets.get_values(), op.offsets)
        sizes = resolve(op.static_sizes.get_values(), op.sizes)
        strides = resolve(op.static_strides.get_values(), op.strides)
        index = []
        for axis, (o, s, st) in enumerate(zip(offsets, sizes, strides, strict=True)):
            extent = src.shape[axis]
            if s < 0 or st <= 0 or o < 0 or (s > 0 and o + (s - 1) * st >= extent):
                report_error(op, f"dimension {axis}: offset {o}, size {s}, stride {st} is out of "
                                 f"bounds for extent {extent}")
            index.append(slice(o, o + (s - 1) * st + 1 if s else o, st))
        view = src[tuple(index)]
        result = op.result.type
        assert isinstance(result, MemRefType)
        rank = len(result.get_shape())
        if rank < view.ndim:
            # Rank reduction drops unit dimensions.  Which ones changes neither the elements
            # nor their order, so the target dimensions are matched left to right.
            target = list(result.get_shape())
            keep: list[int] = []
            for axis, extent in enumerate(view.shape):
                t = len(keep)
                if t == rank:
                    continue
                left, needed = view.ndim - axis, rank - t
                if target[t] == extent or (target[t] == DYNAMIC_INDEX and (
                        extent != 1 or left == needed)):
                    keep.append(axis)
            dropped = [a for a in range(view.ndim) if a not in keep]
            if len(keep) != rank or any(view.shape[a] != 1 for a in dropped):
                report_error(op, f"cannot drop unit dimensions of {view.shape} to get {result}")
            view = view.squeeze(tuple(dropped))
        return view

    def reshape(self, op: memref.CollapseShapeOp | memref.ExpandShapeOp) -> np.ndarray:
        src = self.value(op, op.src)
        t = op.result.type
        assert isinstance(t, MemRefType)
        shape = tuple(t.get_shape())
        if any(d == DYNAMIC_INDEX for d in shape):
            report_error(op, "dynamic result shapes are not supported by the reference evaluator")
        view = src.view()
        try:
            view.shape = shape
        except (AttributeError, ValueError):
            report_error(op, f"cannot reshape a strided view of shape {src.shape} to {shape} "
                             "without copying")
        return view

    def global_array(self, op: memref.GetGlobalOp) -> np.ndarray:
        name = op.name_.root_reference.data
        if name in self.globals:
            return self.globals[name]
        found = None
        if self.module is not None:
            for g in self.module.walk():
                if isinstance(g, memref.GlobalOp) and g.sym_name.data == name:
                    found = g
                    break
        if found is None:
            report_error(op, f"global @{name} is not defined in the module")
        t = found.type
        dtype = _storage(op, t)
        shape = tuple(t.get_shape())
        init = found.initial_value
        if isinstance(init, DenseIntOrFPElementsAttr):
            # From the attribute's bytes: a Python int per element would not scale to weights.
            try:
                values = dense_int_array(init, shape)
            except ValueError as e:
                report_error(op, f"global @{name} {e} of {t}")
            if values is None:
                report_error(op, f"global @{name} does not hold integers")
            array = values.astype(dtype)
        else:
            array = np.zeros(shape, dtype=dtype)
        self.globals[name] = array
        return array

    # ---- structured ops --------------------------------------------------------------------

    def broadcast(self, op: linalg.BroadcastOp) -> None:
        t = op.init.type
        rank = len(t.get_shape()) if isinstance(t, MemRefType) else 0
        added = set(op.dimensions.get_values())
        kept = [d for d in range(rank) if d not in added]
        maps = [
            AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in kept)),
            AffineMap.identity(rank),
        ]
        self.structured(op, maps, [IteratorType.PARALLEL] * rank, [op.input], [op.init],
                        op.hidden_region.block)

    def reduce(self, op: linalg.ReduceOp) -> None:
        t = op.input.type
        rank = len(t.get_shape()) if isinstance(t, MemRefType) else 0
        reduced = set(op.dimensions.get_values())
        kept = [d for d in range(rank) if d not in reduced]
        maps = [
            AffineMap.identity(rank),
            AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in kept)),
        ]
        iterators = [IteratorType.REDUCTION if d in reduced else IteratorType.PARALLEL
                     for d in range(rank)]
        self.structured(op, maps, iterators, [op.input], [op.init], op.region.block)

    def structured(
        self,
        op: Operation,
        maps: Sequence[AffineMap],
        iterators: Sequence[IteratorType],
        ins: Sequence[SSAValue],
        outs: Sequence[SSAValue],
        block: Block,
    ) -> None:
        operands = list(ins) + list(outs)
        for v in operands:
            if isinstance(v.type, TensorType):
                _storage(op, v.type)
        for v in outs:
            _storage(op, v.type)
        arrays = [self.value(op, v) for v in operands]
        if len(maps) != len(arrays):
            report_error(op, f"has {len(arrays)} operands but {len(maps)} indexing maps")
        sizes = _loop_sizes(op, maps, arrays)
        if math.prod(sizes) == 0:
            return
        n = len(sizes)
        reduced = [d for d in range(n) if iterators[d] == IteratorType.REDUCTION]
        for k, m in enumerate(maps[len(ins):]):
            if reduced and _uses_dims(m, reduced):
                report_error(op, f"the indexing map of output #{k} uses a reduction dimension")

        def arg_value(i: int) -> np.ndarray:
            if i >= len(arrays):
                report_error(op, "has more body arguments than operands")
            return _gather(op, arrays[i], maps[i], sizes).astype(np.int64)

        body = _Body(self, op, block, arg_value, sizes)
        terminator = block.last_op
        if terminator is None or len(terminator.operands) != len(outs):
            report_error(op, "body must end in a yield of one value per output")
        results = []
        for k, out in enumerate(outs):
            width = np.dtype(_storage(op, out.type)).itemsize * 8
            acc = block.args[len(ins) + k]
            yielded = terminator.operands[k]
            if reduced:
                value = self.reduction(op, body, yielded, acc, sizes, reduced, width)
            else:
                value = body.get(yielded)
            results.append(wrap(value, width))
        # Every result is computed before any output is written: an output that is also an
        # input is read with its old values.
        for k, value in enumerate(results):
            _scatter(op, arrays[len(ins) + k], maps[len(ins) + k], value, sizes, reduced)

    def reduction(
        self,
        op: Operation,
        body: _Body,
        yielded: SSAValue,
        acc: BlockArgument,
        sizes: Sequence[int],
        reduced: Sequence[int],
        width: int,
    ) -> np.ndarray:
        """The output values of a reduction ``acc = combine(acc, term)``: n-dimensional, extent
        1 along the reduced dimensions."""
        combine = body.local(yielded)
        if (
            combine is None
            or type(combine) not in _COMBINERS
            or not acc.has_one_use()
            or acc not in combine.operands
            or combine.operands[0] is combine.operands[1]
        ):
            report_error(op, "the reference evaluator supports reductions whose body combines "
                             "the accumulator once with a value (addi, muli, maxsi, minsi, "
                             "maxui, minui, andi, ori, xori) and yields the result")
        term = combine.operands[1] if combine.operands[0] is acc else combine.operands[0]
        ufunc, idempotent, unsigned = _COMBINERS[type(combine)]
        combine_width = _width(combine, combine.results[0].type)
        init = body.get(acc)
        n = len(sizes)
        if isinstance(combine, arith.AddiOp):
            factors = _factors(body, term, combine_width)
            total = _contract([_full_rank(body.get(f), n) for f in factors], sizes, reduced)
            return wrap(init + total, combine_width)
        values = _full_rank(body.get(term), n)
        if not idempotent:
            values = np.broadcast_to(values, sizes)
        axes = tuple(d for d in reduced if values.shape[d] > 1)
        if unsigned:
            values, init = _unsigned(values, combine_width), _unsigned(init, combine_width)
        partial = ufunc.reduce(values, axis=axes, keepdims=True) if axes else values
        return wrap(ufunc(init, partial), combine_width)


def _full_rank(value: np.ndarray, n: int) -> np.ndarray:
    value = np.asarray(value)
    if value.ndim < n:
        value = value.reshape((1,) * (n - value.ndim) + value.shape)
    return value


def _uses_dims(m: AffineMap, dims: Sequence[int]) -> bool:
    def used(expr: AffineExpr) -> bool:
        if isinstance(expr, AffineDimExpr):
            return expr.position in dims
        if isinstance(expr, AffineBinaryOpExpr):
            return used(expr.lhs) or used(expr.rhs)
        return False

    return any(used(r) for r in m.results)


def _factors(body: _Body, value: SSAValue, width: int) -> list[SSAValue]:
    """``value`` as a product of factors: ``muli`` ops of the body at least ``width`` bits wide
    are split (wrapping the product at such a width and the sum at ``width`` is the same as
    wrapping only the sum)."""
    op = body.local(value)
    if isinstance(op, arith.MuliOp) and _width(op, op.result.type) >= width:
        return _factors(body, op.lhs, width) + _factors(body, op.rhs, width)
    return [value]


def _contract(factors: Sequence[np.ndarray], sizes: Sequence[int],
              reduced: Sequence[int]) -> np.ndarray:
    """``sum over reduced dimensions of prod(factors)`` (exact modulo 2**64), n-dimensional
    with extent 1 along the reduced dimensions."""
    n = len(sizes)
    if n > len(_EINSUM_LETTERS):
        product = factors[0]
        for f in factors[1:]:
            product = product * f
        product = np.broadcast_to(product, sizes)
        return np.sum(product, axis=tuple(reduced), keepdims=True, dtype=np.int64)
    subscripts, operands, present = [], [], set()
    bound = 1
    for f in factors:
        axes = [d for d in range(n) if f.shape[d] > 1]
        present.update(axes)
        subscripts.append("".join(_EINSUM_LETTERS[d] for d in axes))
        operands.append(f.reshape([f.shape[d] for d in axes]))
        bound *= int(np.abs(f).max()) if f.size else 0
    reduced_set = set(reduced)
    out_dims = [d for d in range(n) if d in present and d not in reduced_set]
    spec = ",".join(subscripts) + "->" + "".join(_EINSUM_LETTERS[d] for d in out_dims)
    # A reduced dimension no factor depends on repeats every term along it.
    repeat = math.prod(sizes[d] for d in reduced if d not in present)
    terms = math.prod(sizes[d] for d in reduced)
    if bound * terms < _FLOAT_EXACT:
        # Every partial sum is an integer below 2**53: float64 (and BLAS) is exact.
        total = np.einsum(spec, *(o.astype(np.float64) for o in operands), optimize=True)
        total = np.asarray(total).astype(np.int64)
    else:
        total = np.asarray(np.einsum(spec, *(o.astype(np.int64) for o in operands),
                                     optimize=True), dtype=np.int64)
    if repeat != 1:
        total = total * np.int64(repeat)
    shape = [sizes[d] if d in out_dims else 1 for d in range(n)]
    return total.reshape(shape)


def _loop_sizes(
    op: Operation, maps: Sequence[AffineMap], arrays: Sequence[np.ndarray]
) -> list[int]:
    """Loop extents, read off the operands' shapes where a map result is a bare dimension."""
    n = maps[0].num_dims if maps else 0
    sizes: list[int | None] = [None] * n
    for k, (m, a) in enumerate(zip(maps, arrays, strict=True)):
        if m.num_dims != n:
            report_error(op, "indexing maps do not agree on the number of loop dimensions")
        if a.ndim != len(m.results):
            report_error(op, f"operand #{k} has rank {a.ndim} but its indexing map has "
                             f"{len(m.results)} results")
        for axis, r in enumerate(m.results):
            if isinstance(r, AffineDimExpr):
                extent = a.shape[axis]
                if sizes[r.position] is None:
                    sizes[r.position] = extent
                elif sizes[r.position] != extent:
                    report_error(op, f"operands disagree on the extent of loop dimension "
                                     f"d{r.position} ({sizes[r.position]} and {extent})")
    missing = [d for d, s in enumerate(sizes) if s is None]
    if missing:
        report_error(op, f"cannot infer the extent of loop dimension d{missing[0]} from the "
                         "operand shapes")
    return [int(s) for s in sizes if s is not None]


def _grid(sizes: Sequence[int]) -> list[np.ndarray]:
    n = len(sizes)
    grids = []
    for d, s in enumerate(sizes):
        shape = [1] * n
        shape[d] = s
        grids.append(np.arange(s, dtype=np.int64).reshape(shape))
    return grids


def _projected(m: AffineMap) -> bool:
    """Whether every result is a distinct dimension or a constant (a strided view)."""
    dims = [r.position for r in m.results if isinstance(r, AffineDimExpr)]
    return len(set(dims)) == len(dims) and all(
        isinstance(r, AffineDimExpr | AffineConstantExpr) for r in m.results
    )


def _check_index(op: Operation, index: Any, extent: int, axis: int) -> None:
    index = np.asarray(index)
    if index.size and (int(index.min()) < 0 or int(index.max()) >= extent):
        report_error(op, f"an indexing map reaches [{int(index.min())}, {int(index.max())}] "
                         f"along axis {axis} of extent {extent}")


def _projected_index(
    op: Operation, m: AffineMap, shape: tuple[int, ...]
) -> tuple[list[Any], list[int]]:
    """The numpy index of a projected-permutation map's results (constants picked, dims
    sliced) over an array of ``shape``, and the iteration dims the sliced axes follow."""
    index: list[Any] = []
    dims: list[int] = []
    for axis, r in enumerate(m.results):
        if isinstance(r, AffineConstantExpr):
            _check_index(op, r.value, shape[axis], axis)
            index.append(r.value)
        else:
            assert isinstance(r, AffineDimExpr)
            index.append(slice(None))
            dims.append(r.position)
    return index, dims


def _gather(op: Operation, array: np.ndarray, m: AffineMap, sizes: Sequence[int]) -> np.ndarray:
    """The operand's element at each point of the iteration space, as an array broadcastable
    to ``sizes`` (a view when the map is a projected permutation)."""
    n = len(sizes)
    if array.ndim == 0:
        return array.reshape((1,) * n)
    if _projected(m):
        index, dims = _projected_index(op, m, array.shape)
        view = array[tuple(index)]
        order = sorted(range(len(dims)), key=lambda i: dims[i])
        view = view.transpose(order)
        shape = [1] * n
        for d in dims:
            shape[d] = sizes[d]
        return view.reshape(shape)
    grids = _grid(sizes)
    indices = []
    for axis, r in enumerate(m.results):
        idx = _affine(op, r, grids, ())
        _check_index(op, idx, array.shape[axis], axis)
        indices.append(np.asarray(idx, dtype=np.int64))
    return _full_rank(array[tuple(indices)], n)


def _scatter(
    op: Operation,
    out: np.ndarray,
    m: AffineMap,
    value: np.ndarray,
    sizes: Sequence[int],
    reduced: Sequence[int],
) -> None:
    """Write ``value`` (over the iteration space, extent 1 along reduced dimensions) through
    the output map ``m``."""
    n = len(sizes)
    shape = [1 if d in reduced else sizes[d] for d in range(n)]
    value = np.broadcast_to(_full_rank(value, n), shape)
    used = {r.position for r in m.results if isinstance(r, AffineDimExpr)}
    if not all(isinstance(r, AffineDimExpr | AffineConstantExpr) for r in m.results):
        used = {d for d in range(n) if _uses_dims(m, [d])}
    lost = [d for d in range(n) if d not in reduced and d not in used and sizes[d] > 1]
    if lost:
        report_error(op, f"the output map {m} does not depend on parallel dimension d{lost[0]}, "
                         "so several iterations write one element")
    if out.ndim == 0:
        out[()] = value.reshape(-1)[0]
        return
    if _projected(m):
        index, dims = _projected_index(op, m, out.shape)
        picked = value[tuple(slice(None) if d in dims else 0 for d in range(n))]
        ordered = sorted(dims)
        out[tuple(index)] = picked.transpose([ordered.index(d) for d in dims])
        return
    grids = _grid(shape)
    indices = []
    for axis, r in enumerate(m.results):
        idx = np.broadcast_to(np.asarray(_affine(op, r, grids, ()), dtype=np.int64), shape)
        _check_index(op, idx, out.shape[axis], axis)
        indices.append(idx)
    flat = np.ravel_multi_index(tuple(indices), out.shape)
    if np.unique(flat).size != flat.size:
        report_error(op, f"the output map {m} writes some elements more than once")
    out[tuple(indices)] = value
