"""``vta-tensorize``: linalg ops on SRAM buffers become loops of VTA micro-ops (stage 3 → 4).

The contract is ``docs/pipeline.md``, stage 4.  Every ``linalg`` op with an operand in a
``#vta.sram<...>`` memory space is rewritten into ``affine.for`` loops with constant bounds (one
per element-level iteration dimension of extent > 1, the innermost loop being the last such
dimension) around one micro-op whose buffer positions are the operands' element indices,
linearised row-major over the leading (element) dimensions of each buffer:

* ``linalg.fill ins(%c : i32) outs(%acc)`` → ``vta.gemm reset %acc[d]`` (a nonzero ``c`` that fits
  the ALU immediate adds a second nest of ``vta.alu add %acc[d], c``);
* a GEMM contraction ``linalg.generic`` — maps whose trailing results are the tensor intrinsic
  ``Acc(.., bb, oo) += X(.., bb, ii) * W(.., oo, ii)`` over ``BATCH x BLOCK_IN x BLOCK_OUT`` and
  body ``extsi, extsi, muli, addi`` — → ``vta.gemm %acc[d] += %inp[s] * %wgt[w]``;
* an element-wise ``linalg.generic`` in place on an accumulator buffer whose body is one of
  ``arith.minsi / maxsi / addi / muli / shrsi`` (also ``subi`` and ``shli`` by a constant, as
  ``add -c`` and ``shr -c``) → ``vta.alu <op> %acc[d], imm`` or ``vta.alu <op> %acc[d], %src[s]``.

A **convolution** contraction (input subscripts ``oh * S + kh``, ``ow * S + kw``, the stage-1
form) gets its loops ordered for one micro-kernel: output rows and columns outermost, then the
micro-op list — reduction dimensions ``i, kh, kw`` and the output channels ``o`` innermost — whose
loops carry the unit attribute ``vta.uop_list`` (``vta-fold-uop-loops`` keeps them inside the
kernel).  The order must keep the write-hazard rule (checked by enumerating the list and the
steps between row / column iterations, :func:`write_hazard_free`): with fewer than three
channel blocks the columns (else the rows, else both) move into the list, innermost.  A list
longer than half the micro-op SRAM gives its outermost loops to the host.  Without a legal order
the loops keep the iteration order, unmarked::

    // ins(%iv, %wv) outs(%acc), TI = 2, 3x3, TO = 4, TH = OW = 8, WT = 10
    affine.for %oh = 0 to 8 {
      affine.for %ow = 0 to 8 {
        affine.for %i = 0 to 2 {
          affine.for %kh = 0 to 3 {
            affine.for %kw = 0 to 3 {
              affine.for %o = 0 to 4 {
                %d = affine.apply affine_map<(d0, d1, d2) -> (d0 * 8 + d1 + d2 * 64)> (%oh, %ow, %o)
                ...
                vta.gemm %acc[%d] += %inp[%s] * %wgt[%w] : ...
              } {vta.uop_list}
            } {vta.uop_list}
          } {vta.uop_list}
        } {vta.uop_list}
      }
    }

An element-wise source read with a broadcasting map (the bias ``(0, o, 0, 0, bb, oo)``; a batch
lane of size 1 may be written ``0``) is addressed without the broadcast dimensions.

An operand may be a ``memref.subview`` (a chain of them, rank-reducing or not) of an SRAM
buffer with static sizes and strides and constant or host-computed offsets: the double-buffer
copy ``i mod 2`` of a tile, a window of a larger buffer.  The micro-op then addresses the
buffer itself: the subscripts are linearised with the view's element strides in that buffer,
and the view's first element is added.  That offset is the same for every micro-op of the
nest, so it is computed once before the loops (one ``affine.apply`` of the host values it
depends on, looked through their own index arithmetic); ``vta-fold-uop-loops`` folds the loops
around it and it stays the kernel's base position, evaluated per host iteration by
``vta-lower-to-isa``.  Subviews left without users are erased.  The view analysis
(:class:`~vta_mlir.passes.analysis.sram_views.HostIndex`,
:func:`~vta_mlir.passes.analysis.sram_views.buffer_view`) is in
:mod:`vta_mlir.passes.analysis.sram_views`, shared with ``vta-inject-dma``; the convolution loop
order in :mod:`.conv`.

Any other linalg op touching SRAM is reported at the op; everything else (DMA copies, host
loops and arithmetic) is left as it is.  The new ops carry the location of the linalg op.

Before (default configuration, BATCH 1, BLOCK 16)::

    linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x1x16xi32, #vta.sram<acc>>)
    linalg.generic {indexing_maps = [(b, o, i, bb, oo, ii) -> (b, i, bb, ii),
                                     (b, o, i, bb, oo, ii) -> (o, i, oo, ii),
                                     (b, o, i, bb, oo, ii) -> (b, o, bb, oo)], ...}
        ins(%inp, %wgt : memref<1x16x1x16xi8, #vta.sram<inp>>,
                         memref<16x16x16x16xi8, #vta.sram<wgt>>)
        outs(%acc : memref<1x16x1x16xi32, #vta.sram<acc>>) { extsi, extsi, muli, addi }
    linalg.generic {...} ins(%acc : ...) outs(%acc : ...) { arith.shrsi %in, %c8 }

After::

    affine.for %o = 0 to 16 {
      vta.gemm reset %acc[%o] : memref<1x16x1x16xi32, #vta.sram<acc>>
    }
    affine.for %o = 0 to 16 {
      affine.for %i = 0 to 16 {
        %w = affine.apply affine_map<(d0, d1) -> (((d0 * 16) + d1))> (%o, %i)
        vta.gemm %acc[%o] += %inp[%i] * %wgt[%w] : ...
      }
    }
    affine.for %o = 0 to 16 {
      vta.alu shr %acc[%o], 8 : memref<1x16x1x16xi32, #vta.sram<acc>>
    }

A double-buffered input tile, ``%ib = memref.subview %inp2[%p, 0, 0, 0, 0] [1, 1, 16, 1, 16]
[1, 1, 1, 1, 1]`` with ``%p = affine.apply (d0 mod 2) (%ic)``, read by the contraction::

    %b = affine.apply affine_map<(d0) -> (((d0 mod 2) * 16))> (%ic)
    affine.for %o = 0 to 16 {
      affine.for %i = 0 to 16 {
        %s = affine.apply affine_map<(d0, d1) -> ((d0 + d1))> (%i, %b)
        ...
        vta.gemm %acc[%o] += %inp2[%s] * %wgt[%w] : ...
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import affine, arith, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    UnitAttr,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import IMM_MAX, IMM_MIN, AluKind, AluOp, GemmOp
from vta_mlir.dialects.vta_config_attr import get_config
from vta_mlir.dialects.vta_positions import (
    Sram,
    check_sram_buffer,
    space_text,
    sram_element_shape,
    sram_space,
)
from vta_mlir.ir.diagnostics import report_error, verify_op
from vta_mlir.ir.locations import copy_location

from ..analysis.alu_ops import ARITH_ALU_OPS, COMMUTATIVE
from ..analysis.sram_views import (
    HostIndex,
    LinearForm,
    Position,
    ViewError,
    affine_of_form,
    buffer_view,
    constant_int,
    element_view,
    erase_dead_views,
    linear_affine_expr,
)
from .conv import UOP_LIST_ATTR, conv_schedule

__all__ = ["TensorizePass"]


# ---------------------------------------------------------------------------------------------
# What a linalg op becomes: nests of one micro-op each


@dataclass
class _Nest:
    """Loops of the given extents (outermost first) around one micro-op.

    ``positions`` are the micro-op's element positions as affine expressions of the loop
    dimensions (``d0`` = outermost loop); ``build`` makes the micro-op from their values.
    """

    extents: tuple[int, ...]
    positions: dict[str, AffineExpr]
    build: Callable[[dict[str, Position]], Operation]
    #: Element offsets of operands that are views into a larger buffer (by position name);
    #: loop-invariant, so they are computed once before the loops.
    offsets: dict[str, LinearForm] = field(default_factory=dict[str, LinearForm])
    #: How many of the innermost loops enumerate the micro-op list of one kernel (marked
    #: ``vta.uop_list``).
    listed: int = 0


class _Unsupported(Exception):
    """A reason why a linalg op is not one VTA can run (turned into a diagnostic)."""


def _sram_operands(op: Operation) -> list[SSAValue]:
    return [v for v in op.operands if sram_space(v.type) is not None]


def _check_buffer(value: SSAValue, space: Sram, cfg: VTAConfig, what: str) -> MemRefType:
    """The buffer's type, after checking it is a well-formed ``space`` buffer for ``cfg``."""
    try:
        check_sram_buffer(value, space, cfg, what)
    except VerifyException as exc:
        raise _Unsupported(str(exc)) from None
    assert isinstance(value.type, MemRefType)
    return value.type


def _leading_shape(t: MemRefType, space: Sram, cfg: VTAConfig) -> tuple[int, ...]:
    shape = tuple(t.get_shape())
    return shape[: len(shape) - len(sram_element_shape(space, cfg))]


@dataclass(frozen=True)
class _Buffer:
    """An SRAM operand as the micro-ops address it: the buffer (``base``; the operand itself
    unless it is a subview), the element strides of the operand's leading dimensions in that
    buffer, and the element where the operand starts."""

    base: SSAValue
    strides: tuple[int, ...]
    offset: LinearForm


def _buffer(value: SSAValue, space: Sram, cfg: VTAConfig, what: str, index: HostIndex) -> _Buffer:
    _check_buffer(value, space, cfg, what)
    try:
        view = buffer_view(value, index)
        if view.base is not value:
            _check_buffer(view.base, space, cfg, f"the buffer of the {what} subview")
        strides, offset = element_view(view, sram_element_shape(space, cfg), what)
    except ViewError as exc:
        raise _Unsupported(str(exc)) from None
    return _Buffer(view.base, strides, offset)


def _linearise(exprs: Sequence[AffineExpr], strides: Sequence[int]) -> AffineExpr:
    """Element index of the leading-dimension subscripts ``exprs`` with the given element
    strides."""
    total: AffineExpr = AffineExpr.constant(0)
    for expr, stride in zip(reversed(exprs), reversed(strides), strict=True):
        total = total + expr * stride
    return total


def _loop_nest_for(
    op: linalg.GenericOp,
    element_dims: Sequence[int],
    extents: Mapping[int, int],
    accesses: Mapping[str, AffineExpr],
) -> tuple[tuple[int, ...], dict[str, AffineExpr]]:
    """Loops over the element dimensions of extent > 1 (in iteration order) and the access
    expressions rewritten over them; dimensions of extent 1 are fixed at 0."""
    looped = [d for d in element_dims if extents[d] > 1]
    num_dims = op.get_num_loops()
    replace: list[AffineExpr] = [AffineExpr.constant(0)] * num_dims
    for i, d in enumerate(looped):
        replace[d] = AffineExpr.dimension(i)
    rewritten = {
        k: e.replace_dims_and_symbols(replace, []).simplify(len(looped), 0)
        for k, e in accesses.items()
    }
    return tuple(extents[d] for d in looped), rewritten


def _infer_extents(
    element_dims: Iterable[int],
    subscripts: Iterable[tuple[AffineExpr, int]],
) -> dict[int, int]:
    """The extent of every element dimension, from the buffer dimensions it indexes alone."""
    extents: dict[int, int] = {}
    for expr, size in subscripts:
        if isinstance(expr, AffineDimExpr):
            known = extents.setdefault(expr.position, size)
            if known != size:
                raise _Unsupported(
                    f"iteration dimension d{expr.position} indexes buffer dimensions of "
                    f"different sizes ({known} and {size})"
                )
    for d in element_dims:
        if d not in extents:
            raise _Unsupported(
                f"the extent of iteration dimension d{d} cannot be inferred (it indexes no "
                "buffer dimension on its own)"
            )
    return extents


# ---------------------------------------------------------------------------------------------
# linalg.fill


def _match_fill(op: linalg.FillOp, cfg: VTAConfig, index: HostIndex) -> list[_Nest]:
    if len(op.outputs) != 1 or len(op.inputs) != 1:
        raise _Unsupported("a fill of SRAM takes one value and one output buffer")
    out = op.outputs[0]
    space = sram_space(out.type)
    if space != Sram.ACC:
        where = space_text(space) if space is not None else "DRAM"
        raise _Unsupported(
            f"fills a {where} buffer: VTA initialises only accumulator "
            f"({space_text(Sram.ACC)}) buffers"
        )
    t = _check_buffer(out, Sram.ACC, cfg, "fill output")
    buf = _buffer(out, Sram.ACC, cfg, "fill output", index)
    value = constant_int(op.inputs[0])
    if value is None:
        raise _Unsupported("the fill value must be an integer arith.constant")
    if not IMM_MIN <= value <= IMM_MAX:
        raise _Unsupported(
            f"fill value {value} does not fit the signed 16-bit ALU immediate "
            f"({IMM_MIN}..{IMM_MAX})"
        )
    shape = _leading_shape(t, Sram.ACC, cfg)
    looped = [i for i, n in enumerate(shape) if n > 1]
    subscripts = [AffineExpr.constant(0)] * len(shape)
    for j, i in enumerate(looped):
        subscripts[i] = AffineExpr.dimension(j)
    extents = tuple(shape[i] for i in looped)
    dst = _linearise(subscripts, buf.strides).simplify(len(looped), 0)
    offsets = {"dst": buf.offset}
    nests = [
        _Nest(extents, {"dst": dst}, lambda p: GemmOp(buf.base, p["dst"], reset=True), offsets),
    ]
    if value:
        # Reset, then add the value: the ALU's immediate is the only way to write a constant.
        nests.append(
            _Nest(
                extents,
                {"dst": dst},
                lambda p: AluOp(AluKind.ADD, buf.base, p["dst"], imm=value),
                offsets,
            )
        )
    return nests


# ---------------------------------------------------------------------------------------------
# GEMM contraction


def _dim_of(expr: AffineExpr, what: str) -> int:
    if not isinstance(expr, AffineDimExpr):
        raise _Unsupported(f"{what} must be a plain iteration dimension, got {expr}")
    return expr.position


def _is_extsi_of(value: SSAValue, arg: BlockArgument) -> bool:
    owner = value.owner
    return isinstance(owner, arith.ExtSIOp) and owner.input is arg


def _check_contraction_body(op: linalg.GenericOp, cfg: VTAConfig) -> None:
    block = op.body.block
    x, w, a = block.args
    expected = "acc + extsi(x) * extsi(w) (arith.extsi, arith.extsi, arith.muli, arith.addi)"
    ops = list(block.ops)
    names = ", ".join(o.name for o in ops[:-1]) or "nothing"
    acc_type = IntegerType(cfg.acc_width)
    if (
        len(ops) != 5
        or not isinstance(ops[-1], linalg.YieldOp)
        or len(ops[-1].operands) != 1
        or a.type != acc_type
    ):
        raise _Unsupported(f"the contraction body must compute {expected}, got {names}")
    add = ops[-1].operands[0].owner
    ok = isinstance(add, arith.AddiOp) and add.result.type == acc_type
    if ok:
        assert isinstance(add, arith.AddiOp)
        mul_value = add.rhs if add.lhs is a else add.lhs if add.rhs is a else None
        mul = mul_value.owner if mul_value is not None else None
        ok = isinstance(mul, arith.MuliOp) and (
            (_is_extsi_of(mul.lhs, x) and _is_extsi_of(mul.rhs, w))
            or (_is_extsi_of(mul.lhs, w) and _is_extsi_of(mul.rhs, x))
        )
    if not ok:
        raise _Unsupported(f"the contraction body must compute {expected}, got {names}")


def _match_contraction(op: linalg.GenericOp, cfg: VTAConfig, index: HostIndex) -> list[_Nest]:
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        raise _Unsupported(
            "a GEMM contraction reads one input and one weight buffer and accumulates into one "
            f"accumulator buffer, got {len(op.inputs)} input(s) and {len(op.outputs)} output(s)"
        )
    spaces = [sram_space(v.type) for v in op.inputs]
    if spaces == [Sram.INP, Sram.WGT]:
        x_idx, w_idx = 0, 1
    elif spaces == [Sram.WGT, Sram.INP]:
        x_idx, w_idx = 1, 0
    else:
        got = ", ".join(space_text(s) if s is not None else "DRAM" for s in spaces)
        raise _Unsupported(
            f"a GEMM contraction reads a {space_text(Sram.INP)} and a {space_text(Sram.WGT)} "
            f"buffer, got {got}"
        )
    x, w, acc = op.inputs[x_idx], op.inputs[w_idx], op.outputs[0]
    if sram_space(acc.type) != Sram.ACC:
        raise _Unsupported(
            f"a GEMM contraction accumulates into a {space_text(Sram.ACC)} buffer, got "
            f"{acc.type}"
        )
    types = {
        "inp": _check_buffer(x, Sram.INP, cfg, "contraction input"),
        "wgt": _check_buffer(w, Sram.WGT, cfg, "contraction weight"),
        "acc": _check_buffer(acc, Sram.ACC, cfg, "contraction output"),
    }
    # The body's first two arguments follow the operand order; the product is symmetric.
    _check_contraction_body(op, cfg)
    maps = op.indexing_maps.data
    amap = {"inp": maps[x_idx].data, "wgt": maps[w_idx].data, "acc": maps[2].data}
    for k, m in amap.items():
        if m.num_symbols:
            raise _Unsupported(f"the {k} indexing map has symbols")
        if len(m.results) != len(types[k].get_shape()):
            raise _Unsupported(f"the {k} indexing map does not match the buffer's rank")

    # The intrinsic: X(.., bb, ii), W(.., oo, ii), Acc(.., bb, oo).
    bb = _dim_of(amap["inp"].results[-2], "the batch subscript of the input")
    ii = _dim_of(amap["inp"].results[-1], "the block_in subscript of the input")
    oo = _dim_of(amap["wgt"].results[-2], "the block_out subscript of the weight")
    intrinsic = (
        f"Acc(..., bb, oo) += X(..., bb, ii) * W(..., oo, ii) over "
        f"{cfg.batch}x{cfg.block_in}x{cfg.block_out} (BATCH x BLOCK_IN x BLOCK_OUT)"
    )
    if (
        len({bb, ii, oo}) != 3
        or _dim_of(amap["wgt"].results[-1], "the block_in subscript of the weight") != ii
        or _dim_of(amap["acc"].results[-2], "the batch subscript of the output") != bb
        or _dim_of(amap["acc"].results[-1], "the block_out subscript of the output") != oo
    ):
        raise _Unsupported(f"the innermost subscripts are not the tensor intrinsic {intrinsic}")
    inner = {bb, ii, oo}
    leading: dict[str, tuple[AffineExpr, ...]] = {k: m.results[:-2] for k, m in amap.items()}
    for k, exprs in leading.items():
        for e in exprs:
            if e.used_dims() & inner:
                raise _Unsupported(
                    f"the {k} element subscript {e} uses an intrinsic dimension; the innermost "
                    f"dimensions must be exactly the tensor intrinsic {intrinsic}"
                )
    num_dims = op.get_num_loops()
    element_dims = [d for d in range(num_dims) if d not in inner]
    shapes = {k: _leading_shape(t, Sram(k), cfg) for k, t in types.items()}
    subscripts = [
        (e, n) for k in ("acc", "inp", "wgt") for e, n in zip(leading[k], shapes[k], strict=True)
    ]
    extents = _infer_extents(element_dims, subscripts)
    bufs = {
        "inp": _buffer(x, Sram.INP, cfg, "contraction input", index),
        "wgt": _buffer(w, Sram.WGT, cfg, "contraction weight", index),
        "acc": _buffer(acc, Sram.ACC, cfg, "contraction output", index),
    }
    accesses = {k: _linearise(leading[k], bufs[k].strides) for k in ("acc", "inp", "wgt")}
    listed = 0
    schedule = conv_schedule(leading, element_dims, extents, accesses["acc"], num_dims, cfg)
    if schedule is not None:
        element_dims, listed = schedule
    loop_extents, positions = _loop_nest_for(op, element_dims, extents, accesses)
    return [
        _Nest(
            loop_extents,
            positions,
            lambda p: GemmOp(
                bufs["acc"].base,
                p["acc"],
                bufs["inp"].base,
                p["inp"],
                bufs["wgt"].base,
                p["wgt"],
            ),
            {k: b.offset for k, b in bufs.items()},
            listed,
        )
    ]


# ---------------------------------------------------------------------------------------------
# Element-wise ALU operations


_SUPPORTED_ALU = (
    "arith.minsi, arith.maxsi, arith.addi, arith.muli, arith.shrsi, or arith.subi / arith.shli "
    "by a constant"
)


@dataclass(frozen=True)
class _Operand:
    """An operand of the element-wise operation: the destination element itself, another
    accumulator element (buffer and subscripts) or a constant."""

    is_self: bool = False
    buffer: SSAValue | None = None
    subscripts: tuple[AffineExpr, ...] = ()
    const: int | None = None


def _classify_operand(
    value: SSAValue,
    op: linalg.GenericOp,
    maps: Sequence[AffineMap],
    out_map: AffineMap,
) -> _Operand:
    out = op.outputs[0]
    block = op.body.block
    if isinstance(value, BlockArgument) and value.block is block:
        index = value.index
        operand = op.operands[index]
        m = maps[index]
        if operand is out and m == out_map:
            return _Operand(is_self=True)
        return _Operand(buffer=operand, subscripts=m.results)
    const = constant_int(value)
    if const is not None:
        return _Operand(const=const)
    raise _Unsupported(
        "an operand of the element-wise operation must be an element of a buffer operand or "
        "an integer arith.constant"
    )


def _match_elementwise(op: linalg.GenericOp, cfg: VTAConfig, index: HostIndex) -> list[_Nest]:
    if len(op.outputs) != 1 or op.res:
        raise _Unsupported("an element-wise op on SRAM writes exactly one accumulator buffer")
    out = op.outputs[0]
    for v in op.operands:
        space = sram_space(v.type)
        if space != Sram.ACC:
            where = space_text(space) if space is not None else "DRAM"
            raise _Unsupported(
                f"an element-wise op reads and writes {space_text(Sram.ACC)} buffers only, got "
                f"a {where} operand ({v.type})"
            )
        _check_buffer(v, Sram.ACC, cfg, "element-wise operand")
    for it in op.iterator_types.data:
        if it.data != linalg.IteratorType.PARALLEL:
            raise _Unsupported(
                f"an element-wise op has only parallel iterators, got '{it.data.value}' (a "
                "reduction over accumulator elements is not an ALU operation)"
            )
    maps = [m.data for m in op.indexing_maps.data]
    for m, v in zip(maps, op.operands, strict=True):
        assert isinstance(v.type, MemRefType)
        if m.num_symbols or len(m.results) != len(v.type.get_shape()):
            raise _Unsupported("an indexing map has symbols or does not match its buffer's rank")
    out_map = maps[-1]

    block = op.body.block
    body = [o for o in block.ops if not isinstance(o, linalg.YieldOp | arith.ConstantOp)]
    yield_op = block.last_op
    if len(body) != 1:
        names = ", ".join(o.name for o in body) or "nothing"
        raise _Unsupported(
            f"the body of an element-wise op must be exactly one ALU operation ({_SUPPORTED_ALU})"
            f", got {names}"
        )
    compute = body[0]
    if type(compute) not in ARITH_ALU_OPS:
        raise _Unsupported(
            f"'{compute.name}' is not an ALU operation (supported: {_SUPPORTED_ALU})"
        )
    if (
        not isinstance(yield_op, linalg.YieldOp)
        or len(yield_op.operands) != 1
        or yield_op.operands[0] is not compute.results[0]
    ):
        raise _Unsupported("the body must yield the result of its ALU operation")
    acc_type = IntegerType(cfg.acc_width)
    if compute.results[0].type != acc_type:
        raise _Unsupported(
            f"the ALU operates on {acc_type}, got '{compute.name}' on {compute.results[0].type}"
        )
    kind, negated = ARITH_ALU_OPS[type(compute)]
    # `subi`/`shli` by a constant are rewritten to `add`/`shr` of its negation: not swappable.
    commutative = kind in COMMUTATIVE and not negated
    lhs, rhs = (_classify_operand(v, op, maps, out_map) for v in compute.operands)
    if not lhs.is_self and commutative and rhs.is_self:
        lhs, rhs = rhs, lhs
    if not lhs.is_self:
        raise _Unsupported(
            f"'{compute.name}' must update the output element in place (its first operand the "
            "output element, the other a constant or an accumulator element): VTA's ALU "
            "computes acc[d] = op(acc[d], imm or acc[s])"
        )
    imm: int | None = None
    if rhs.const is not None:
        imm = rhs.const
        if isinstance(compute, arith.SubiOp | arith.ShLIOp):
            imm = -imm
        if not IMM_MIN <= imm <= IMM_MAX:
            raise _Unsupported(
                f"immediate {imm} of '{compute.name}' does not fit the signed 16-bit ALU "
                f"immediate ({IMM_MIN}..{IMM_MAX})"
            )
    elif isinstance(compute, arith.SubiOp | arith.ShLIOp):
        what = "subtraction" if isinstance(compute, arith.SubiOp) else "left shift"
        raise _Unsupported(
            f"a {what} of a tensor operand is unsupported: VTA's ALU has no such operation "
            "(only a constant operand can be negated into add / shr)"
        )

    # Element dimensions: all but the two lane dimensions of the accumulator element.
    batch_dim = _dim_of(out_map.results[-2], "the batch subscript of the output")
    lane_dim = _dim_of(out_map.results[-1], "the block_out subscript of the output")
    lanes = (out_map.results[-2], out_map.results[-1])
    if batch_dim == lane_dim:
        raise _Unsupported("the two innermost subscripts of the output must be distinct dims")
    lane_sizes = sram_element_shape(Sram.ACC, cfg)
    for m in maps:
        # A lane of size 1 (the batch lane when BATCH is 1) may also be written as 0.
        if any(
            e != lane and not (n == 1 and e == AffineExpr.constant(0))
            for e, lane, n in zip(m.results[-2:], lanes, lane_sizes, strict=True)
        ):
            raise _Unsupported(
                "every operand must be read at the output's lane (its two innermost subscripts "
                "the same as the output's): the ALU works lane by lane"
            )
        for e in m.results[:-2]:
            if e.used_dims() & {batch_dim, lane_dim}:
                raise _Unsupported(
                    f"element subscript {e} uses a lane dimension of the accumulator element"
                )
    num_dims = op.get_num_loops()
    element_dims = [d for d in range(num_dims) if d not in (batch_dim, lane_dim)]
    subscripts: list[tuple[AffineExpr, int]] = []
    for m, v in zip(maps, op.operands, strict=True):
        assert isinstance(v.type, MemRefType)
        shape = _leading_shape(v.type, Sram.ACC, cfg)
        subscripts += list(zip(m.results[:-2], shape, strict=True))
    extents = _infer_extents(element_dims, subscripts)
    dst = _buffer(out, Sram.ACC, cfg, "element-wise output", index)
    accesses = {"dst": _linearise(out_map.results[:-2], dst.strides)}
    offsets = {"dst": dst.offset}
    src = dst
    if rhs.buffer is not None:
        src = _buffer(rhs.buffer, Sram.ACC, cfg, "element-wise operand", index)
        accesses["src"] = _linearise(rhs.subscripts[:-2], src.strides)
        offsets["src"] = src.offset
    elif rhs.is_self:
        # x op x: the source is the destination element itself.
        accesses["src"] = accesses["dst"]
        offsets["src"] = dst.offset
    loop_extents, positions = _loop_nest_for(op, element_dims, extents, accesses)
    if imm is not None:
        return [
            _Nest(
                loop_extents,
                positions,
                lambda p: AluOp(kind, dst.base, p["dst"], imm=imm),
                offsets,
            )
        ]
    return [
        _Nest(
            loop_extents,
            positions,
            lambda p: AluOp(kind, dst.base, p["dst"], src=src.base, src_pos=p["src"]),
            offsets,
        )
    ]


# ---------------------------------------------------------------------------------------------
# Dispatch and emission


_HANDLED = (
    "vta-tensorize lowers linalg.fill of an accumulator, GEMM contractions and element-wise "
    "ALU operations (linalg.generic)"
)


def _match(op: Operation, cfg: VTAConfig, index: HostIndex) -> list[_Nest]:
    if isinstance(op, linalg.FillOp):
        return _match_fill(op, cfg, index)
    if not isinstance(op, linalg.GenericOp):
        raise _Unsupported(f"this linalg op is not supported on VTA SRAM buffers: {_HANDLED}")
    if op.res:
        raise _Unsupported("linalg on tensors is not supported on VTA SRAM buffers")
    if any(sram_space(v.type) in (Sram.INP, Sram.WGT) for v in op.operands):
        return _match_contraction(op, cfg, index)
    return _match_elementwise(op, cfg, index)


def _materialise(
    expr: AffineExpr, ivs: Sequence[SSAValue], insert: Callable[[Operation], None]
) -> Position:
    """The position value of ``expr`` over the loop variables: a constant, a loop variable
    (plus a constant), or an ``affine.apply`` (plus its constant part)."""
    dims = [LinearForm.of(i) for i in range(len(ivs))]
    form = linear_affine_expr(expr, dims)
    if form is None:
        used = sorted(expr.used_dims())
        replace: list[AffineExpr] = [AffineExpr.constant(0)] * len(ivs)
        for j, d in enumerate(used):
            replace[d] = AffineExpr.dimension(j)
        compact = expr.replace_dims_and_symbols(replace, [])
        apply = affine.ApplyOp(
            [ivs[d] for d in used], AffineMapAttr(AffineMap(len(used), 0, (compact,)))
        )
        insert(apply)
        return apply.result, 0
    if form.is_constant:
        return None, form.const
    keys = list(form.terms)
    if len(keys) == 1 and form.terms[keys[0]] == 1:
        return ivs[keys[0]], form.const  # type: ignore[index]
    keys.sort()  # type: ignore[call-overload]
    apply = affine.ApplyOp(
        [ivs[k] for k in keys],  # type: ignore[index]
        AffineMapAttr(AffineMap(len(keys), 0, (affine_of_form(form, keys),))),
    )
    insert(apply)
    return apply.result, form.const


def _emit(op: Operation, nest: _Nest, index: HostIndex) -> None:
    """Insert the loops and the micro-op of ``nest`` before ``op``."""
    new_ops: list[Operation] = []
    point = InsertPoint.before(op)

    def insert_before(new: Operation) -> None:
        Rewriter.insert_op(new, InsertPoint.before(op))
        new_ops.append(new)

    # The offset of a view is the same for every micro-op of the nest: computed once, before
    # the loops, it stays outside what vta-fold-uop-loops folds (the kernel's base position).
    cache: dict[LinearForm, SSAValue] = {}
    bases = {k: index.materialise(f, insert_before, cache) for k, f in nest.offsets.items()}
    ivs: list[SSAValue] = []
    first_listed = len(nest.extents) - nest.listed
    for depth, extent in enumerate(nest.extents):
        block = Block(arg_types=[IndexType()])
        loop = affine.ForOp.from_region([], [], [], [], 0, extent, Region(block))
        if depth >= first_listed:
            loop.attributes[UOP_LIST_ATTR] = UnitAttr()
        Rewriter.insert_op(loop, point)
        terminator = affine.YieldOp.get()
        block.add_op(terminator)
        new_ops += [loop, terminator]
        ivs.append(block.args[0])
        point = InsertPoint.before(terminator)

    def insert(new: Operation) -> None:
        Rewriter.insert_op(new, point)
        new_ops.append(new)

    # Equal positions (x op x), or positions that differ by a constant, share one value.
    values: dict[tuple[AffineExpr, SSAValue | None], Position] = {}
    positions: dict[str, Position] = {}
    for k, e in nest.positions.items():
        base, const = bases.get(k, (None, 0))
        key = (e, base)
        if key not in values:
            expr, operands = e, ivs
            if base is not None:
                expr, operands = expr + AffineExpr.dimension(len(ivs)), [*ivs, base]
            values[key] = _materialise(expr, operands, insert)
        value, offset = values[key]
        positions[k] = value, offset + const
    insert(nest.build(positions))
    copy_location(op, new_ops)


def _is_linalg(op: Operation) -> bool:
    return op.name.startswith("linalg.") and not isinstance(op, linalg.YieldOp)


@dataclass(frozen=True)
class TensorizePass(ModulePass):
    """Rewrite the linalg ops on SRAM buffers into loops of ``vta.gemm`` / ``vta.alu``."""

    name = "vta-tensorize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = [o for o in op.walk() if _is_linalg(o) and _sram_operands(o)]
        index = HostIndex()
        # Match everything first, so a module is either fully rewritten or reported untouched.
        plans: list[tuple[Operation, list[_Nest]]] = []
        for target in targets:
            try:
                plans.append((target, _match(target, get_config(target), index)))
            except _Unsupported as exc:
                report_error(target, f"cannot be tensorized for VTA: {exc}")
        views: list[Operation] = []
        for target, nests in plans:
            for nest in nests:
                _emit(target, nest, index)
            views += [v.owner for v in target.operands if isinstance(v.owner, memref.SubviewOp)]
            Rewriter.erase_op(target)
        # The micro-ops address the buffers themselves: subviews left without users go.
        erase_dead_views(views)
        verify_op(op)
