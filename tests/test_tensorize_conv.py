# ruff: noqa: E501
"""``vta-tensorize`` + ``vta-fold-uop-loops`` on tiled 2-D convolutions (stage 3 → 5 of
``docs/pipeline.md``): one micro-kernel per convolution ``linalg.generic`` whose two levels are
the output rows and columns (or fewer, when the write-hazard rule asks for another order) and
whose micro-op list is enumerated by ``affine.for`` loops inside the innermost level.

The kernels are checked by meaning: the micro-ops a kernel describes are enumerated from the IR
(levels, list loops, ``affine.apply`` positions, host values of the enclosing loops) and
compared with the (dst, src, wgt) triples of the convolution geometry, then evaluated in numpy
on random SRAM contents against a direct convolution, and their push order is checked against
the write-hazard rule across loop iterations.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import WRITE_HAZARD_WINDOW, GemmOp, UopLoopOp, set_module_config
from vta_mlir.ir.context import make_context, parse_module
from vta_mlir.ir.diagnostics import verify_op
from vta_mlir.passes.fold_uop_loops import FoldUopLoopsPass
from vta_mlir.passes.tensorize import TensorizePass
from vta_mlir.passes.tensorize.conv import write_hazard_free

# ---------------------------------------------------------------------------------------------
# Stage-3 convolution regions


@dataclass(frozen=True)
class Conv:
    """A convolution tile: TI input / TO output channel blocks, a TH x OW output tile, a K x K
    kernel of stride S; ``copies`` SRAM copies of the input and weight (double buffering)."""

    ti: int = 2
    to: int = 4
    th: int = 8
    ow: int = 8
    k: int = 3
    s: int = 1
    copies: int = 2

    @property
    def ht(self) -> int:
        return (self.th - 1) * self.s + self.k

    @property
    def wt(self) -> int:
        return (self.ow - 1) * self.s + self.k


def conv_text(c: Conv, cfg: VTAConfig, *, uop_log: int | None = None) -> str:
    """A stage-3 region: the convolution on double-buffer copy views inside a host loop, as
    ``vta-tile`` makes it (the maps' loop order as ``vta-pack`` writes it)."""
    b, bi, bo = cfg.batch, cfg.block_in, cfg.block_out
    n = c.copies
    inp = f"memref<{n}x1x{c.ti}x{c.ht}x{c.wt}x{b}x{bi}xi8, #vta.sram<inp>>"
    wgt = f"memref<{n}x{c.to}x{c.ti}x{c.k}x{c.k}x{bo}x{bi}xi8, #vta.sram<wgt>>"
    acc = f"memref<1x{c.to}x{c.th}x{c.ow}x{b}x{bo}xi32, #vta.sram<acc>>"
    ie = b * bi
    istr = [c.ti * c.ht * c.wt * ie, c.ht * c.wt * ie, c.wt * ie, ie, bi, 1]
    we = bo * bi
    wstr = [c.ti * c.k * c.k * we, c.k * c.k * we, c.k * we, we, bi, 1]
    iv = f"memref<1x{c.ti}x{c.ht}x{c.wt}x{b}x{bi}xi8, strided<{istr}, offset: ?>, #vta.sram<inp>>"
    wv = f"memref<{c.to}x{c.ti}x{c.k}x{c.k}x{bo}x{bi}xi8, strided<{wstr}, offset: ?>, #vta.sram<wgt>>"
    sh = "" if c.s == 1 else f" * {c.s}"
    return f"""
func.func @conv() {{
  %inp = memref.alloc() : {inp}
  %wgt = memref.alloc() : {wgt}
  %acc = memref.alloc() : {acc}
  affine.for %ic = 0 to 2 {{
    %c = affine.apply affine_map<(d0) -> (d0 mod {n})> (%ic)
    %iv = memref.subview %inp[%c, 0, 0, 0, 0, 0, 0] [1, 1, {c.ti}, {c.ht}, {c.wt}, {b}, {bi}] [1, 1, 1, 1, 1, 1, 1] : {inp} to {iv}
    %wv = memref.subview %wgt[%c, 0, 0, 0, 0, 0, 0] [1, {c.to}, {c.ti}, {c.k}, {c.k}, {bo}, {bi}] [1, 1, 1, 1, 1, 1, 1] : {wgt} to {wv}
    linalg.generic {{indexing_maps = [
        affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d4, d2{sh} + d5, d3{sh} + d6, d7, d9)>,
        affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d4, d5, d6, d8, d9)>,
        affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d7, d8)>],
        iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction",
                          "reduction", "parallel", "parallel", "reduction"]}}
        ins(%iv, %wv : {iv}, {wv}) outs(%acc : {acc}) {{
    ^bb0(%x: i8, %w: i8, %a: i32):
      %0 = arith.extsi %x : i8 to i32
      %1 = arith.extsi %w : i8 to i32
      %2 = arith.muli %0, %1 : i32
      %3 = arith.addi %a, %2 : i32
      linalg.yield %3 : i32
    }}
  }}
  return
}}
"""


def compile_conv(c: Conv, cfg: VTAConfig) -> ModuleOp:
    ctx = make_context()
    module = parse_module(conv_text(c, cfg), ctx=ctx, filename="conv.mlir")
    set_module_config(module, cfg)
    verify_op(module)
    TensorizePass().apply(ctx, module)
    FoldUopLoopsPass().apply(ctx, module)
    return module


# ---------------------------------------------------------------------------------------------
# Enumerating what the IR describes


def _eval(value: SSAValue, env: dict[SSAValue, int]) -> int:
    if value in env:
        return env[value]
    owner = value.owner
    if isinstance(owner, arith.ConstantOp):
        return owner.value.value.data  # type: ignore[union-attr]
    if isinstance(owner, affine.ApplyOp):
        args = [_eval(v, env) for v in owner.mapOperands]
        m = owner.map.data
        (result,) = m.eval(args[: m.num_dims], args[m.num_dims :])
        return result
    raise AssertionError(f"cannot evaluate {value}")


def _pos(position: tuple[SSAValue | None, int], env: dict[SSAValue, int]) -> int:
    value, offset = position
    return offset + (0 if value is None else _eval(value, env))


def _list(ops: list[Operation], env: dict[SSAValue, int]) -> Iterator[tuple[int, ...]]:
    """The micro-ops pushed by a kernel body (micro-ops and list loops) as index triples."""
    for op in ops:
        if isinstance(op, GemmOp):
            yield tuple(_pos((idx, off), env) for _, _, idx, off, _ in op.operand_positions())
        elif isinstance(op, affine.ForOp):
            lb = op.lowerBoundMap.data.eval([], [])[0]
            ub = op.upperBoundMap.data.eval([], [])[0]
            iv = op.body.block.args[0]
            for k in range(lb, ub, op.step.value.data):
                yield from _list(list(op.body.block.ops), {**env, iv: k})
        else:
            assert isinstance(op, affine.ApplyOp | arith.ConstantOp | affine.YieldOp), op.name


def kernel_sequence(kernel: UopLoopOp, env: dict[SSAValue, int]) -> list[tuple[int, ...]]:
    """Every micro-op the kernel executes, in order: the list under the loop levels."""
    levels = kernel.loops()
    body = list(levels[-1].body.block.ops)
    uops = list(_list(body, env))
    out: list[tuple[int, ...]] = []
    ranges = [range(lp.field("extent")) for lp in levels]
    for idx in itertools.product(*ranges):
        add = [sum(i * lp.field(f"{f}_factor") for i, lp in zip(idx, levels, strict=True))
               for f in ("dst", "src", "wgt")]
        out += [tuple(u + a for u, a in zip(uop, add, strict=False)) for uop in uops]
    return out


def host_runs(module: ModuleOp) -> list[tuple[UopLoopOp, dict[SSAValue, int]]]:
    """The GEMM kernels with the host loop values of every execution."""
    (host,) = [o for o in module.walk() if isinstance(o, affine.ForOp) and
               isinstance(o.body.block.args[0], BlockArgument) and
               o.parent_op() is not None and o.parent_op().name == "func.func"]
    kernels = [o for o in host.walk() if isinstance(o, UopLoopOp) and o.is_kernel]
    return [(k, {host.body.block.args[0]: ic}) for ic in range(2) for k in kernels]


def expected_triples(c: Conv, ic: int) -> Counter[tuple[int, int, int]]:
    copy = ic % c.copies
    out: Counter[tuple[int, int, int]] = Counter()
    for o, oh, ow, i, kh, kw in itertools.product(
        range(c.to), range(c.th), range(c.ow), range(c.ti), range(c.k), range(c.k)
    ):
        dst = (o * c.th + oh) * c.ow + ow
        src = copy * c.ti * c.ht * c.wt + (i * c.ht + oh * c.s + kh) * c.wt + ow * c.s + kw
        wgt = copy * c.to * c.ti * c.k * c.k + ((o * c.ti + i) * c.k + kh) * c.k + kw
        out[(dst, src, wgt)] += 1
    return out


# ---------------------------------------------------------------------------------------------
# Tests

CASES = {
    "3x3-s1-to4": Conv(),
    "3x3-s2-to4": Conv(s=2, th=4, ow=4),
    "1x1-s1-to4": Conv(k=1),
    "1x1-s2-to4": Conv(k=1, s=2, th=4, ow=4),
    "3x3-s1-to2": Conv(to=2),
    "3x3-s1-to1-ow2": Conv(to=1, th=4, ow=2),
    "3x3-s1-to2-2x2": Conv(to=2, th=2, ow=2),
    "7x7-s2-to4": Conv(k=7, s=2, th=2, ow=2, ti=1),
    "1x1-to1-ti1": Conv(k=1, to=1, ti=1, th=2, ow=3),
    "single-copy": Conv(copies=1, to=3),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_conv_kernel_is_the_convolution(case: str) -> None:
    c = CASES[case]
    cfg = VTAConfig.shipped("default")
    module = compile_conv(c, cfg)
    runs = host_runs(module)
    assert len(runs) == 2, "one micro-kernel per convolution generic and host iteration"
    for kernel, env in runs:
        assert all(isinstance(u, GemmOp) for u in kernel.micro_ops())
        seq = kernel_sequence(kernel, env)
        (ic,) = env.values()
        assert Counter(seq) == expected_triples(c, ic)
        # The write-hazard rule over the whole execution order, across iterations.
        dsts = [t[0] for t in seq]
        for i, d in enumerate(dsts):
            assert d not in dsts[max(0, i - WRITE_HAZARD_WINDOW) : i], (case, i)


@pytest.mark.parametrize("case", ["3x3-s1-to4", "3x3-s2-to4", "1x1-s1-to4", "3x3-s1-to2"])
def test_conv_kernel_computes_the_convolution(case: str) -> None:
    """Evaluate the kernel on random SRAM contents and compare with numpy's convolution."""
    c = CASES[case]
    cfg = VTAConfig.shipped("default")
    module = compile_conv(c, cfg)
    rng = np.random.default_rng(7)
    bi, bo = cfg.block_in, cfg.block_out
    inp = rng.integers(-128, 128, size=(c.copies, c.ti, c.ht, c.wt, bi)).astype(np.int64)
    wgt = rng.integers(-128, 128, size=(c.copies, c.to, c.ti, c.k, c.k, bo, bi)).astype(np.int64)
    acc = np.zeros((c.to * c.th * c.ow, bo), np.int64)
    flat_inp, flat_wgt = inp.reshape(-1, bi), wgt.reshape(-1, bo, bi)
    for kernel, env in host_runs(module):
        for d, s, w in kernel_sequence(kernel, env):
            acc[d] += flat_wgt[w] @ flat_inp[s]
    want = np.zeros((c.to, c.th, c.ow, bo), np.int64)
    for ic in range(2):
        x, k = inp[ic % c.copies], wgt[ic % c.copies]
        for kh, kw in itertools.product(range(c.k), range(c.k)):
            win = x[:, kh : kh + c.s * c.th : c.s, kw : kw + c.s * c.ow : c.s, :]
            want += np.einsum("ihwc,oidc->ohwd", win, k[:, :, kh, kw][:, :, None, :, :][:, :, 0])
    np.testing.assert_array_equal(acc.reshape(want.shape), want)


def test_conv_levels_are_rows_and_columns() -> None:
    """TO >= 3: levels oh (dst += OW, src += S * WT) and ow (dst += 1, src += S); the list
    loops i, kh, kw, o inside, output channels innermost."""
    cfg = VTAConfig.shipped("default")
    c = Conv(s=2, th=4, ow=4)
    module = compile_conv(c, cfg)
    kernel, _ = host_runs(module)[0]
    assert [(lp.field("extent"), lp.field("dst_factor"), lp.field("src_factor"),
             lp.field("wgt_factor")) for lp in kernel.loops()] == [
        (4, 4, 2 * c.wt, 0), (4, 1, 2, 0)]
    loops = [o for o in kernel.walk() if isinstance(o, affine.ForOp)]
    assert [lp.upperBoundMap.data.eval([], [])[0] for lp in loops] == [2, 3, 3, 4]
    assert not any(lp.attributes for lp in loops)


def test_conv_to2_moves_columns_into_the_list() -> None:
    cfg = VTAConfig.shipped("default")
    module = compile_conv(Conv(to=2), cfg)
    kernel, _ = host_runs(module)[0]
    assert [(lp.field("extent"), lp.field("dst_factor")) for lp in kernel.loops()] == [(8, 8)]
    loops = [o for o in kernel.walk() if isinstance(o, affine.ForOp)]
    assert [lp.upperBoundMap.data.eval([], [])[0] for lp in loops] == [2, 3, 3, 2, 8]


def test_conv_list_capped_to_half_the_uop_sram() -> None:
    """A list longer than half the micro-op SRAM keeps its outermost loop on the host."""
    cfg = dataclasses.replace(VTAConfig.shipped("default"), log_uop_buff_size=10)
    assert cfg.uop_buff_depth == 256
    c = Conv(ti=4, to=4, th=2, ow=2)
    module = compile_conv(c, cfg)
    kernels = [o for o in module.walk() if isinstance(o, UopLoopOp) and o.is_kernel]
    (kernel,) = kernels
    assert isinstance(kernel.parent_op(), affine.ForOp)  # the input-channel loop
    assert len(list(_list(list(kernel.loops()[-1].body.block.ops), {
        v: 0 for v in _host_values(kernel)}))) == 36


def _host_values(kernel: UopLoopOp) -> list[SSAValue]:
    out: list[SSAValue] = []
    op = kernel.parent_op()
    while isinstance(op, affine.ForOp):
        out.append(op.body.block.args[0])
        op = op.parent_op()
    return out


def test_write_hazard_free() -> None:
    assert write_hazard_free([0, 64, 128, 192], [(8, 8), (8, 1)])
    assert not write_hazard_free([0, 64, 0, 64], [(8, 8), (8, 1)])
    assert write_hazard_free([0, 64], [(8, 8), (8, 1)])
    assert write_hazard_free([0, 64, 0 + 1], [])
    assert not write_hazard_free([0, 1, 0], [])
    # One micro-op: a window reaches two iterations back.
    assert write_hazard_free([0], [(4, 2), (2, 1)])
    assert not write_hazard_free([0], [(4, 1), (2, 1)])  # wrap: 0, 1, 1
    assert not write_hazard_free([0, 5], [(3, 5)])  # 0 5 | 5 ...
    assert write_hazard_free([], [(3, 0)])
