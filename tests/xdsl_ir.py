"""Helpers for tests that parse MLIR, run passes on it and interpret the result with xDSL's
interpreter against numpy."""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp, i8, i32
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.interpreters import register_implementations
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.interpreters.utils.ptr import RawPtr, TypedPtr
from xdsl.ir import Operation

from vta_mlir.ir.context import parse_module, print_module
from vta_mlir.ir.diagnostics import verify_op
from vta_mlir.ir.pipeline import run_pipeline

#: A stencil of affine loads and stores whose maps use both loop variables as dims.
AFFINE = """
func.func @stencil(%a: memref<6x8xi32>, %b: memref<6x8xi32>) {
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 7 {
      %v = affine.load %a[%i * 2, %j + 1] : memref<6x8xi32>
      affine.store %v, %b[%i + 3, %j] : memref<6x8xi32>
    }
  }
  return
}
"""


def parse(ctx: Context, text: str) -> ModuleOp:
    module = parse_module(text, filename="test.mlir", ctx=ctx)
    verify_op(module)
    return module


def run_passes(ctx: Context, module: ModuleOp, spec: str) -> ModuleOp:
    """Run ``spec`` with the project's pass registry (xDSL's passes and the project's)."""
    return run_pipeline(module, spec, ctx=ctx)


def ops_of(module: Operation, kind: type[Operation]) -> list[Operation]:
    return [op for op in module.walk() if isinstance(op, kind)]


def roundtrip(ctx: Context, text: str) -> str:
    """Print, re-parse, re-print: the two printouts must agree, also via generic form."""
    first = print_module(parse(ctx, text))
    assert print_module(parse(ctx, first)) == first
    generic = print_module(parse(ctx, text), generic=True)
    assert print_module(parse(ctx, generic)) == first
    return first


# --------------------------------------------------------------------------------------------
# Running IR on numpy data


@register_impls
class _MissingArith(InterpreterFunctions):
    """Integer ops the 0.74 interpreter lacks; values are Python ints, already signed."""

    @impl(arith.ExtSIOp)
    def run_extsi(self, interpreter: Interpreter, op: arith.ExtSIOp, args: tuple[int, ...]):
        return args

    @impl(arith.MaxSIOp)
    def run_maxsi(self, interpreter: Interpreter, op: arith.MaxSIOp, args: tuple[int, ...]):
        return (max(args),)

    @impl(arith.MinSIOp)
    def run_minsi(self, interpreter: Interpreter, op: arith.MinSIOp, args: tuple[int, ...]):
        return (min(args),)


_XTYPES = {np.dtype(np.int8): i8, np.dtype(np.int32): i32}


def _to_shaped(array: np.ndarray) -> ShapedArray[int]:
    data = bytearray(np.ascontiguousarray(array).tobytes())
    return ShapedArray(TypedPtr(RawPtr(data), xtype=_XTYPES[array.dtype]), list(array.shape))


def _to_numpy(value: ShapedArray[int], like: np.ndarray) -> np.ndarray:
    raw = bytes(value.data_ptr.raw.memory)
    return np.frombuffer(raw, dtype=like.dtype).reshape(like.shape).copy()


def interpret(ctx: Context, module: ModuleOp, name: str, *arrays: np.ndarray) -> list[np.ndarray]:
    """Call function ``name`` on copies of ``arrays`` (memref arguments, updated in place);
    returns the arrays after the call."""
    interpreter = Interpreter(module)
    register_implementations(interpreter, ctx)
    interpreter.register_implementations(_MissingArith())
    shaped = [_to_shaped(a) for a in arrays]
    interpreter.call_op(name, tuple(shaped))
    return [_to_numpy(s, a) for s, a in zip(shaped, arrays, strict=True)]


RNG = np.random.default_rng(1234)


def rand_i8(*shape: int) -> np.ndarray:
    return RNG.integers(-128, 128, size=shape, dtype=np.int8)
