"""The workloads of the end-to-end tests: each input-level program of ``examples/``, how its
inputs are drawn, and its results computed with plain numpy — written here from the programs'
stated semantics, independently of ``vta_mlir`` (neither the compiler nor the reference
evaluator).

They are the standard workloads of ``docs/performance.md`` §4: the three tutorials (vector add,
``matrix_multiply``, ``matrix_multiply_opt``), dense layers with bias and ReLU-clip at batch 32
and 64 with weights given either way round, the ALU and GEMM unit tests of §4.3, and shapes that
are not whole blocks with a batch above one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .numerics import trunc8, wrap

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CONFIGS = ("default", "block32", "batch2")

INT8 = (-128, 127)
INT32 = (-(1 << 31), (1 << 31) - 1)
BIAS = (-(1 << 14), (1 << 14) - 1)  # as TVM's ResNet-18 benchmark draws its biases


def i64(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


def matmul32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """int32 accumulation of an int matrix product (exact in int64, then wrapped)."""
    return wrap(i64(a) @ i64(b), 32)


@dataclass(frozen=True)
class Workload:
    """An example program: its read arguments (name -> shape, dtype, value range, in signature
    order), its written arguments computed with numpy, and the configurations where it is known
    to fail, with the reason (the tests mark those ``xfail(strict=True)``)."""

    name: str
    inputs: dict[str, tuple[tuple[int, ...], str, tuple[int, int]]]
    expected: Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]]
    xfail: dict[str, str] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return EXAMPLES / f"{self.name}.mlir"

    def draw(self, seed: int) -> dict[str, np.ndarray]:
        rng = np.random.default_rng(seed)
        return {
            name: rng.integers(lo, hi, size=shape, dtype=dtype, endpoint=True)
            for name, (shape, dtype, (lo, hi)) in self.inputs.items()
        }


def _alu_ops(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    a, b = i64(v["a"]), i64(v["b"])
    return {
        "shl_imm": trunc8(a << 3),
        "shr_imm": trunc8(a >> 2),
        "max_imm": trunc8(np.maximum(a, 4)),
        "max_tensor": trunc8(np.maximum(a, b)),
        "add_imm": trunc8(a + 3),
        "add_tensor": trunc8(a + b),
        "relu": trunc8(np.clip(a, 0, 127)),
        "shift_scale": trunc8(wrap(a + 5, 32) >> 2),
    }


WORKLOADS: tuple[Workload, ...] = (
    Workload(
        "vector_add",
        {"a": ((1, 1024), "int32", INT32), "b": ((1, 1024), "int32", INT32)},
        lambda v: {"c": trunc8(i64(v["a"]) + v["b"])},
    ),
    Workload(
        "matrix_multiply",
        {"a": ((1, 256), "int8", INT8), "b": ((256, 256), "int8", INT8)},
        lambda v: {"c": trunc8(matmul32(v["a"], v["b"].T))},
    ),
    Workload(
        "matrix_multiply_opt",
        {"x": ((1, 1024), "int8", INT8), "w": ((1024, 1024), "int8", INT8)},
        lambda v: {"y": trunc8(np.clip(matmul32(v["x"], v["w"]) >> 8, 0, 127))},
    ),
    Workload(
        "dense_bias_relu",
        {"x": ((32, 64), "int8", INT8), "w": ((48, 64), "int8", INT8),
         "bias": ((48,), "int32", BIAS)},
        lambda v: {"y": trunc8(np.clip(wrap(matmul32(v["x"], v["w"].T) + v["bias"], 32) >> 6,
                                   0, 127))},
    ),
    Workload(
        "dense_batch64",
        {"x": ((64, 128), "int8", INT8), "w": ((128, 96), "int8", INT8),
         "bias": ((96,), "int32", BIAS)},
        lambda v: {"y": trunc8(np.clip(wrap(matmul32(v["x"], v["w"]) + v["bias"], 32) >> 7,
                                   0, 127))},
    ),
    Workload(
        "dense_kn",
        {"x": ((8, 96), "int8", INT8), "w": ((96, 80), "int8", INT8)},
        lambda v: {"y": trunc8(np.clip(wrap(matmul32(v["x"], v["w"]) - 64, 32) >> 5, -128, 127))},
    ),
    Workload(
        "alu_ops",
        {"a": ((8, 128), "int32", INT32), "b": ((8, 128), "int32", INT32)},
        _alu_ops,
    ),
    Workload(
        "insn_gemm",
        {"x": ((4, 16), "int8", INT8), "w": ((64, 16), "int8", INT8)},
        lambda v: {"y": trunc8(np.clip(matmul32(v["x"], v["w"].T) >> 8, 0, 127))},
    ),
    Workload(
        "insn_save_load_out",
        {"x": ((6, 96), "int32", INT32)},
        lambda v: {"y": trunc8(v["x"])},
    ),
    Workload(
        "odd_shapes",
        {"x": ((3, 40), "int8", INT8), "w": ((40, 24), "int8", INT8),
         "bias": ((24,), "int32", BIAS)},
        lambda v: {"y": trunc8(np.clip(wrap(v["bias"] + matmul32(v["x"], v["w"]), 32) >> 3,
                                   0, 127))},
    ),
)

BY_NAME = {w.name: w for w in WORKLOADS}
