"""Input-level GEMM programs written as MLIR text, with their results computed by plain numpy
(independently of ``vta_mlir``): ``y = int8(epilogue(init + x · w))`` with ``x`` M×K int8,
weights K×N (``linalg.matmul``) or N×K (a ``linalg.generic`` reading ``W(n, k)``), an int32
accumulator filled with 0 or a broadcast int32 bias, and an element-wise epilogue of
``arith`` ops on int32 ending in a truncation to int8 (two's-complement wrap-around).

:func:`check_on_simulator` compiles one with the default pipeline (double buffering on),
checks the instruction stream for hazards, runs it and compares with numpy bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

import vta_mlir
from vta_mlir.passes.tile import DOUBLE_BUFFER_ATTR
from vta_mlir.runtime import Device
from vta_mlir.sim.hazards import program_hazards

from .mlir_programs import mac_region
from .numerics import wrap

#: The epilogue steps: (op, constant).  ``shrsi`` is an arithmetic shift right, ``relu`` is
#: ``maxsi`` with 0.
EPILOGUE_OPS = ("shrsi", "maxsi", "minsi", "addi", "muli", "relu")


@dataclass(frozen=True)
class Gemm:
    """One program: shapes, weight layout (``"kn"`` or ``"nk"``), initial accumulator
    (``"zero"`` or ``"bias"``) and epilogue steps."""

    m: int
    k: int
    n: int
    layout: str = "kn"
    init: str = "zero"
    epilogue: tuple[tuple[str, int], ...] = field(default=(("shrsi", 8),))

    @property
    def weight_shape(self) -> tuple[int, int]:
        return (self.k, self.n) if self.layout == "kn" else (self.n, self.k)

    def mlir(self) -> str:
        """The program as MLIR text (one function ``@gemm``)."""
        m, k, n = self.m, self.k, self.n
        wk, wn = self.weight_shape
        acc_t = f"memref<{m}x{n}xi32>"
        x_t, w_t, y_t = f"memref<{m}x{k}xi8>", f"memref<{wk}x{wn}xi8>", f"memref<{m}x{n}xi8>"
        args = [f"%x: {x_t}", f"%w: {w_t}"]
        if self.init == "bias":
            args.append(f"%bias: memref<{n}xi32>")
        args.append(f"%y: {y_t}")
        lines = [f"func.func @gemm({', '.join(args)}) {{", f"  %acc = memref.alloc() : {acc_t}"]
        if self.init == "bias":
            lines.append(
                f"  linalg.broadcast ins(%bias : memref<{n}xi32>) outs(%acc : {acc_t})"
                " dimensions = [0]"
            )
        else:
            lines += [
                "  %zero = arith.constant 0 : i32",
                f"  linalg.fill ins(%zero : i32) outs(%acc : {acc_t})",
            ]
        if self.layout == "kn":
            lines.append(f"  linalg.matmul ins(%x, %w : {x_t}, {w_t}) outs(%acc : {acc_t})")
        else:
            lines += [
                "  linalg.generic {indexing_maps = [affine_map<(i, j, l) -> (i, l)>,",
                "                                   affine_map<(i, j, l) -> (j, l)>,",
                "                                   affine_map<(i, j, l) -> (i, j)>],",
                '                  iterator_types = ["parallel", "parallel", "reduction"]}',
                f"      ins(%x, %w : {x_t}, {w_t}) outs(%acc : {acc_t}) {{",
                mac_region(),
                "  }",
            ]
        lines += [
            "  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,",
            "                                   affine_map<(i, j) -> (i, j)>],",
            '                  iterator_types = ["parallel", "parallel"]}',
            f"      ins(%acc : {acc_t}) outs(%y : {y_t}) {{",
            "  ^bb0(%v0: i32, %out: i8):",
        ]
        value = "%v0"
        for step, (op, constant) in enumerate(self.epilogue):
            name = "maxsi" if op == "relu" else op
            c = 0 if op == "relu" else constant
            lines += [
                f"    %c{step} = arith.constant {c} : i32",
                f"    %v{step + 1} = arith.{name} {value}, %c{step} : i32",
            ]
            value = f"%v{step + 1}"
        lines += [
            f"    %r = arith.trunci {value} : i32 to i8",
            "    linalg.yield %r : i8",
            "  }",
            f"  memref.dealloc %acc : {acc_t}",
            "  return",
            "}",
        ]
        return "\n".join(lines) + "\n"

    def inputs(self, seed: int) -> list[np.ndarray]:
        """Random arguments in signature order (the output excluded)."""
        rng = np.random.default_rng(seed)
        out = [
            rng.integers(-128, 127, size=(self.m, self.k), dtype=np.int8, endpoint=True),
            rng.integers(-128, 127, size=self.weight_shape, dtype=np.int8, endpoint=True),
        ]
        if self.init == "bias":
            out.append(
                rng.integers(
                    -(1 << 14), (1 << 14) - 1, size=(self.n,), dtype=np.int32, endpoint=True
                )
            )
        return out

    def expected(self, arrays: Sequence[np.ndarray]) -> np.ndarray:
        """The output computed with numpy: int32 accumulation of the int8 products, the
        epilogue on int32 with wrap-around, truncation to int8."""
        x = np.asarray(arrays[0], dtype=np.int64)
        w = np.asarray(arrays[1], dtype=np.int64)
        acc = x @ (w if self.layout == "kn" else w.T)
        if self.init == "bias":
            acc = acc + np.asarray(arrays[2], dtype=np.int64)[None, :]
        v = wrap(acc, 32)
        for op, c in self.epilogue:
            if op == "shrsi":
                v = v >> c
            elif op in ("maxsi", "relu"):
                v = np.maximum(v, 0 if op == "relu" else c)
            elif op == "minsi":
                v = np.minimum(v, c)
            elif op == "addi":
                v = wrap(v + c, 32)
            elif op == "muli":
                v = wrap(v * c, 32)
            else:
                raise ValueError(f"unknown epilogue op {op}")
        return wrap(v, 8).astype(np.int8)


def double_buffered(g: Gemm, config: str) -> bool:
    """Does ``vta-tile`` mark a loop of ``g`` ``vta.double_buffer`` on ``config``?"""
    module = vta_mlir.parse(g.mlir(), config=config)
    vta_mlir.run_pipeline(module, "vta-pack,vta-tile")
    return any(DOUBLE_BUFFER_ATTR in op.attributes for op in module.walk())


def check_on_simulator(g: Gemm, config: str, seed: int = 0) -> None:
    """Compile ``g`` for ``config`` with the default pipeline, check that its instruction
    stream has no hazard, run it and compare the output with numpy bit for bit."""
    binary = vta_mlir.lower(g.mlir(), config=config)
    hazards = program_hazards(binary.program, binary.config)
    assert hazards == [], "\n".join(str(h) for h in hazards[:5])
    module = Device(binary.config).load_module(binary)
    inputs = g.inputs(seed)
    (y,) = module(*inputs)
    assert module.last_run is not None and module.last_run.warnings == []
    np.testing.assert_array_equal(y, g.expected(inputs), err_msg=f"{g} on {config}")
