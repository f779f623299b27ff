"""Shared by the ``vta-tile`` tests: a numpy evaluator of the ops of stages 1 and 2, the
examples packed and tiled, and queries on the SRAM buffers of a tiled module."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import affine, arith, func, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, MemRefType, ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr

from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.dialects.vta import Sram, set_module_config, sram_space
from vta_mlir.ir.context import parse_module
from vta_mlir.ir.diagnostics import DiagnosticError, verify_op
from vta_mlir.passes.pack import PackPass
from vta_mlir.passes.tile import TilePass
from vta_mlir.passes.tile.cost import RegionShape

from .numerics import operand_bounds, random_args, random_memref_args, shift_right

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
CONFIGS = {name: VTAConfig.shipped(name) for name in SHIPPED_CONFIGS}


# ---------------------------------------------------------------------------------------------
# A numpy evaluator of the ops of stages 1 and 2


def _dtype(t: MemRefType) -> type[np.integer[Any]]:
    width = t.element_type.width.data  # type: ignore[attr-defined]
    return {8: np.int8, 32: np.int32}[width]


def _wrap(a: np.ndarray, dtype: type[np.integer[Any]]) -> np.ndarray:
    return a.astype(np.int64).astype(dtype)


_BINARY: dict[type[Operation], Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.MaxSIOp: np.maximum,
    arith.MinSIOp: np.minimum,
    arith.ShRSIOp: shift_right,
    arith.ShLIOp: lambda a, b: a << b,
}


class Evaluator:
    """Runs a function of stage 1 or 2 on numpy arrays (memrefs are arrays, views alias)."""

    def __init__(self) -> None:
        self.env: dict[SSAValue, Any] = {}

    def run(self, f: func.FuncOp, args: Sequence[np.ndarray]) -> None:
        for a, v in zip(f.body.block.args, args, strict=True):
            self.env[a] = v
        self.block(f.body.block)

    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    def op(self, op: Operation) -> None:
        env = self.env
        if isinstance(op, arith.ConstantOp):
            assert isinstance(op.value, IntegerAttr)
            env[op.result] = op.value.value.data
        elif isinstance(op, memref.AllocOp):
            t = op.memref.type
            env[op.memref] = np.zeros(t.get_shape(), _dtype(t))
        elif isinstance(op, memref.SubviewOp):
            self.subview(op)
        elif isinstance(op, memref.CopyOp):
            dst = env[op.destination]
            dst[...] = env[op.source]
        elif isinstance(op, affine.ApplyOp):
            dims = [env[v] for v in op.mapOperands]
            env[op.result] = op.map.data.eval(dims, [])[0]
        elif isinstance(op, affine.ForOp):
            lo, hi = op.lowerBoundMap.data.eval([], []), op.upperBoundMap.data.eval([], [])
            for k in range(lo[0], hi[0], op.step.value.data):
                env[op.body.block.args[0]] = k
                self.block(op.body.block)
        elif isinstance(op, linalg.FillOp):
            env[op.outputs[0]][...] = env[op.inputs[0]]
        elif isinstance(op, linalg.GenericOp):
            self.generic(op)
        elif not isinstance(op, memref.DeallocOp | affine.YieldOp | func.ReturnOp):
            raise NotImplementedError(op.name)

    def subview(self, op: memref.SubviewOp) -> None:
        src = self.env[op.source]
        dynamic = iter(op.offsets)
        offsets = [self.env[next(dynamic)] if o == DYNAMIC_INDEX else o
                   for o in op.static_offsets.get_values()]
        sizes = op.static_sizes.get_values()
        view = src[tuple(slice(o, o + s) for o, s in zip(offsets, sizes, strict=True))]
        rank = len(op.result.type.get_shape())
        while view.ndim > rank:
            assert view.shape[0] == 1
            view = view[0]
        assert np.shares_memory(view, src)
        self.env[op.result] = view

    def generic(self, op: linalg.GenericOp) -> None:
        maps = [m.data for m in op.indexing_maps.data]
        ins = [self.env[v] for v in op.inputs]
        out = self.env[op.outputs[0]]
        if maps[0].num_dims == 6:
            x, w = (a.astype(np.int64) for a in ins)
            out[...] = _wrap(out + np.einsum("bipq,oirq->bopr", x, w), out.dtype)
            return
        grid = np.indices(out.shape)
        operands: list[np.ndarray] = []
        for a, m in zip(ins, maps, strict=False):
            index = []
            for e in m.results:
                if isinstance(e, AffineDimExpr):
                    index.append(grid[e.position])
                else:
                    assert isinstance(e, AffineConstantExpr)
                    index.append(np.full(out.shape, e.value))
            operands.append(a[tuple(index)].astype(np.int64))
        values: dict[SSAValue, Any] = dict(zip(op.body.block.args, operands, strict=False))
        for inner in op.body.block.ops:
            if isinstance(inner, arith.ConstantOp):
                assert isinstance(inner.value, IntegerAttr)
                values[inner.result] = inner.value.value.data
            elif isinstance(inner, arith.ExtSIOp):
                values[inner.result] = values[inner.input]
            elif isinstance(inner, arith.TruncIOp):
                values[inner.result] = _wrap(values[inner.input], np.int8)
            elif type(inner) in _BINARY:
                a, b = (values.get(v, self.env.get(v)) for v in inner.operands)
                values[inner.result] = _wrap(_BINARY[type(inner)](np.asarray(a),
                                                                  np.asarray(b)), np.int32)
            elif isinstance(inner, linalg.YieldOp):
                out[...] = _wrap(np.asarray(values[inner.operands[0]]), out.dtype)
            else:
                raise NotImplementedError(inner.name)


def run_function(module: ModuleOp, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Run the module's only function on copies of ``args``; returns the arrays after."""
    (f,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    copies = [a.copy() for a in args]
    Evaluator().run(f, copies)
    return copies


def module_args(module: ModuleOp, seed: int = 0) -> list[np.ndarray]:
    """Random arguments of the module's function."""
    (f,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    return random_memref_args(f, np.random.default_rng(seed))


# ---------------------------------------------------------------------------------------------
# Helpers


def packed(name: str, cfg: VTAConfig) -> ModuleOp:
    module = parse_module((EXAMPLES / f"{name}.mlir").read_text(), filename=f"{name}.mlir")
    set_module_config(module, cfg)
    PackPass().apply(None, module)  # type: ignore[arg-type]
    verify_op(module)
    return module


def tiled(module: ModuleOp, **options: Any) -> ModuleOp:
    out = module.clone()
    TilePass(**options).apply(None, out)  # type: ignore[arg-type]
    return out


def sram_allocs(module: ModuleOp) -> list[MemRefType]:
    return [op.memref.type for op in module.walk()
            if isinstance(op, memref.AllocOp) and sram_space(op.memref.type) is not None]


def depth(cfg: VTAConfig, space: Sram) -> int:
    return cfg.sram_depth(space.value)


def elements(t: MemRefType) -> int:
    return int(np.prod(t.get_shape()[:-2]))


MMO = RegionShape(b=1, o=64, i=64, inits=("fill",), alu_imm=3)


EXAMPLE_NAMES = ["matrix_multiply", "matrix_multiply_opt", "dense_bias_relu", "dense_kn",
                 "odd_shapes", "vector_add", "alu_ops"]


# ---------------------------------------------------------------------------------------------
# The whole pipeline (once its passes exist)


AFTER_TILE = ("vta-inject-dma", "vta-tensorize", "vta-fold-uop-loops", "vta-coproc-sync")


def on_simulator(stage1: ModuleOp, **options: Any) -> tuple[Any, Any]:
    """Tile with ``options``, lower the rest of the way and load on a simulated device."""
    from vta_mlir.api import compile as vta_compile
    from vta_mlir.ir.pipeline import run_pipeline

    module = stage1.clone()
    run_pipeline(module, [TilePass(**options)])
    try:
        run_pipeline(module, ",".join(AFTER_TILE))
    except DiagnosticError as exc:
        if "broadcast within" in str(exc.diagnostic.message):
            pytest.skip("a per-channel bias with BATCH > 1 repeats a DRAM row inside a tensor "
                        "element, which no DMA does (vta-inject-dma reports it)")
        raise
    return module, vta_compile(module)


def logical_inputs(mod: Any, seed: int) -> list[np.ndarray]:
    return list(random_args(mod.inputs, seed, lambda spec: operand_bounds(spec.dtype)).values())


def expected_outputs(stage1: ModuleOp, mod: Any, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The stage-1 program run by the evaluator on the packed inputs, unpacked."""
    given = iter(inputs)
    packed_args = []
    for spec in mod.args:
        if spec.is_input:
            data = spec.pack(next(given))
        else:
            data = bytes(spec.packed_nbytes)
        packed_args.append(np.frombuffer(data, dtype=spec.dtype).reshape(spec.packed_shape))
    after = run_function(stage1, packed_args)
    return [spec.unpack(a) for spec, a in zip(mod.args, after, strict=True) if spec.is_output]
