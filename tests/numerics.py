"""numpy arithmetic for the tests' references and the random inputs of their programs, written
independently of ``vta_mlir``'s compiler and reference evaluator.

* integer semantics of the programs: two's-complement wrap-around (:func:`wrap`,
  :func:`wrap32`), ``arith.trunci`` to i8 (:func:`trunc8`), ``arith.shrsi`` as VTA's SHR
  (:func:`shift_right`);
* random inputs: integers drawn from a bounded range (:func:`random_ints`), for the arguments
  of a compiled module (:func:`random_args`) or of an MLIR function (:func:`random_memref_args`);
* running a compiled module on the simulator: :func:`run_binary` (outputs by name) and
  :func:`run_and_compare` (one output, compared bit for bit with numpy).

Every draw is ``rng.integers(lo, hi + 1, shape)`` in int64, then cast: the same stream, so
the same arrays, for a given seed whatever the bounds' source.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerType, MemRefType

from vta_mlir.config import VTAConfig
from vta_mlir.runtime import Device

# --------------------------------------------------------------------------------------------
# Integer arithmetic


def wrap(values: Any, bits: int) -> np.ndarray:
    """Two's-complement wrap-around of integer values to ``bits`` (as int64)."""
    half = 1 << (bits - 1)
    return (np.asarray(values, dtype=np.int64) + half) % (1 << bits) - half


def wrap32(values: Any) -> np.ndarray:
    """``values`` reduced to int32 as a 32-bit two's-complement adder leaves them (as int64)."""
    return wrap(values, 32)


def trunc8(values: Any) -> np.ndarray:
    """``arith.trunci`` to i8: the low 8 bits, as a signed byte."""
    return wrap(values, 8).astype(np.int8)


def shift_right(values: np.ndarray, amounts: Any) -> np.ndarray:
    """``arith.shrsi`` as the normal form and VTA's SHR have it: an arithmetic shift right, a
    negative amount shifting left."""
    amounts = np.asarray(amounts)
    return np.where(
        amounts >= 0, values >> np.maximum(amounts, 0), values << np.maximum(-amounts, 0)
    )


# --------------------------------------------------------------------------------------------
# Random inputs


class ArgLike(Protocol):
    """What :func:`random_args` reads of an argument (``vta_mlir.abi.ArgSpec`` has it)."""

    @property
    def name(self) -> str: ...

    @property
    def dtype(self) -> str: ...

    @property
    def shape(self) -> tuple[int, ...]: ...


#: Inclusive ``(lo, hi)`` bounds of the values drawn for an argument.
Bounds = Callable[[ArgLike], tuple[int, int]]


def dtype_bounds(dtype: Any, limit: int | None = None) -> tuple[int, int]:
    """The range of ``dtype``, narrowed to ``[-limit, limit]`` when ``limit`` is given."""
    info = np.iinfo(np.dtype(dtype))
    if limit is None:
        return int(info.min), int(info.max)
    return max(int(info.min), -limit), min(int(info.max), limit)


def within(limit: int) -> Bounds:
    """Bounds of ``[-limit, limit]`` narrowed to each argument's dtype."""
    return lambda spec: dtype_bounds(spec.dtype, limit)


def operand_bounds(dtype: Any) -> tuple[int, int]:
    """i8 over its whole range, i32 within ±2^20 (so sums of a few products do not wrap)."""
    return (-128, 127) if np.dtype(dtype) == np.int8 else (-(1 << 20), (1 << 20) - 1)


def random_ints(
    rng: np.random.Generator, shape: Iterable[int], lo: int, hi: int, dtype: Any
) -> np.ndarray:
    """Integers uniform in ``[lo, hi]`` (both included), cast to ``dtype``."""
    return rng.integers(lo, hi + 1, size=tuple(shape)).astype(dtype)


def random_args(
    specs: Iterable[ArgLike], seed: int | np.random.Generator, bounds: Bounds | None = None
) -> dict[str, np.ndarray]:
    """A random array for each argument of ``specs``, by name, drawn in order from ``seed``
    (a seed or a generator); ``bounds`` gives each argument's range (its dtype's by default)."""
    rng = np.random.default_rng(seed)
    out = {}
    for spec in specs:
        lo, hi = bounds(spec) if bounds is not None else dtype_bounds(spec.dtype)
        out[spec.name] = random_ints(rng, spec.shape, lo, hi, spec.dtype)
    return out


def memref_dtype(t: MemRefType) -> np.dtype[Any]:
    """The numpy type of an ``i8`` / ``i32`` memref's elements."""
    element = t.element_type
    assert isinstance(element, IntegerType)
    return np.dtype(f"int{element.width.data}")


def random_memref_args(f: func.FuncOp, rng: np.random.Generator) -> list[np.ndarray]:
    """A random array for each memref argument of ``f``, in order, within
    :func:`operand_bounds`."""
    arrays = []
    for arg in f.body.block.args:
        t = arg.type
        assert isinstance(t, MemRefType)
        dtype = memref_dtype(t)
        arrays.append(random_ints(rng, t.get_shape(), *operand_bounds(dtype), dtype))
    return arrays


# --------------------------------------------------------------------------------------------
# Running on the simulator


def run_binary(
    binary: Any, cfg: VTAConfig, inputs: Mapping[str, np.ndarray], device: Device | None = None
) -> tuple[dict[str, np.ndarray], Any]:
    """Load ``binary`` on ``device`` (a new one for ``cfg`` by default), run it on ``inputs``
    (by name) and return its outputs by name and the run's statistics."""
    mod = (device or Device(cfg)).load_module(binary)
    outs = mod.run({a.name: inputs[a.name] for a in mod.inputs})
    assert mod.last_run is not None
    return {a.name: o for a, o in zip(mod.outputs, outs, strict=True)}, mod.last_run


def run_and_compare(mod: Any, values: Mapping[str, np.ndarray], want: np.ndarray) -> np.ndarray:
    """Call the compiled module ``mod`` (one output) on ``values`` and compare its result with
    ``want`` bit for bit: shape, dtype and every element."""
    (y,) = mod(**values)
    assert y.shape == want.shape and y.dtype == want.dtype, (y.shape, y.dtype, want.dtype)
    np.testing.assert_array_equal(y, want)
    return y
