"""``vta-inject-dma``: copies between DRAM views and SRAM buffers become ``vta.dma_copy`` (stage
2 → 3).

The contract is ``docs/pipeline.md``, stage 3.  A copy is one of

* ``memref.copy %dram_view, %sram`` (or ``linalg.copy``): LOAD INP / WGT from ``i8`` DRAM, LOAD
  ACC from ``i32`` DRAM;
* ``linalg.generic ins(%dram_view) outs(%acc)`` whose body yields its input (LOAD ACC) or
  ``arith.extsi`` of an ``i8`` input (LOAD ACC_8BIT, sign-extending), with any input map: a
  broadcasting one (``(b, o, bb, oo) -> (0, o, 0, oo)``, a per-channel bias repeated over the
  rows) reads DRAM rows with stride 0;
* ``linalg.generic ins(%acc) outs(%dram_view)`` whose body is ``arith.trunci`` to ``i8``: a
  STORE (truncating, never padded).

Either side may be a ``memref.subview`` chain (static sizes and strides, offsets that are
constants or host index values: loop variables, ``affine.apply`` of them, ...) of a buffer with
the identity layout; rank-reducing subviews are fine.  The SRAM side may be a subview too (the
copy ``i mod 2`` of a double-buffered tile, any static-size window of a larger buffer).

How a copy becomes DMAs.  Every iteration point of the copy is an address on each side
(scalars, from the views' strides and the indexing maps).  The dimensions of the SRAM tensor
element (``BATCH x BLOCK_IN`` for inp, ...) must be dense on both sides and in the same order:
a DMA moves whole elements.  Over the remaining dimensions, counted in elements and ordered by
their SRAM stride (outermost first), the innermost ones contiguous on both sides form the row
(``x``), the next ones dense in SRAM after the row and evenly spaced in DRAM form the rows
(``y``, with the DRAM pitch ``stride``; 0 when DRAM repeats a row), within the 16-bit fields of
the configuration.  Any dimension left over — a third level of non-contiguity, an SRAM window
that is not dense, a pitch wider than the field — gets one DMA per index: written out one by
one up to ``unroll-limit`` DMAs, else as a host ``affine.for`` nest around one DMA.  The
positions are the views' offsets in elements, one ``affine.apply`` of the host values plus a
constant.  Subviews and index arithmetic left without users are erased.

Before (stage 2, default configuration, the weight tile of ``matrix_multiply_opt``)::

    %wgt = memref.alloc() : memref<16x16x16x16xi8, #vta.sram<wgt>>
    affine.for %oc = 0 to 4 {
      affine.for %ic = 0 to 4 {
        %o = affine.apply affine_map<(d0) -> (d0 * 16)> (%oc)
        %i = affine.apply affine_map<(d0) -> (d0 * 16)> (%ic)
        %ws = memref.subview %w[%o, %i, 0, 0] [16, 16, 16, 16] [1, 1, 1, 1]
            : memref<64x64x16x16xi8> to memref<16x16x16x16xi8, strided<...>>
        memref.copy %ws, %wgt : memref<16x16x16x16xi8, strided<...>>
            to memref<16x16x16x16xi8, #vta.sram<wgt>>
        ...
        linalg.generic {...} ins(%acc : ...) outs(%ys : ...) { arith.trunci }

After::

        %0 = affine.apply affine_map<(d0, d1) -> (d0 * 1024 + d1 * 16)> (%oc, %ic)
        vta.dma_copy %w[%0] -> %wgt[0] y 16 x 16 stride 64
            : memref<64x64x16x16xi8> -> memref<16x16x16x16xi8, #vta.sram<wgt>>
        ...
        vta.dma_copy %acc[0] -> %y[%1] y 1 x 16 stride 16 : ...

Not handled, with an error at the copy: a broadcast *within* a tensor element (a per-channel
bias with ``BATCH > 1``: the element's batch lanes would repeat one DRAM row, which no DMA
does), element dimensions that are not dense or not in the SRAM's lane order, offsets inside an
element, dynamic sizes, stores that are not ``trunci`` of the accumulator, copies between two
DRAM or two SRAM buffers.

Padding.  Stage 2 has no way yet to say that a DRAM view is zero-padded (the halo of a conv2d
tile), so the pass emits no ``pad``.  A DRAM subview whose static offsets reach outside its
source — how a halo would show up — is reported as unsupported.  The natural extension is a
padded DRAM view whose out-of-range rows and columns map to the ``y_pad`` / ``x_pad`` fields of
a DMA whose SRAM side is the whole padded tile.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith, memref
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import DmaCopyOp
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

from .analysis.sram_views import (
    BufferView,
    HostIndex,
    LinearForm,
    ViewError,
    buffer_view,
    element_view,
    erase_dead_views,
    linear_affine_expr,
)

__all__ = ["DmaDim", "InjectDmaPass", "dma_pattern"]


class _Unsupported(Exception):
    """Why a copy is not one VTA's DMAs can do (turned into a diagnostic)."""


# ---------------------------------------------------------------------------------------------
# The 2-D pattern


@dataclass(frozen=True)
class DmaDim:
    """One dimension of a copy, counted in tensor elements: its extent and the distance of a
    step along it in DRAM and in SRAM."""

    extent: int
    dram: int
    sram: int


def dma_pattern(
    dims: Sequence[DmaDim], max_x: int, max_y: int, max_stride: int
) -> tuple[int, int, int, tuple[DmaDim, ...]]:
    """``(x, y, stride, outer)`` for the dimensions ``dims`` (outermost first, SRAM strides
    decreasing): the row and the rows of one DMA (the SRAM side dense, DRAM rows ``stride``
    apart), and the dimensions left over, each of which needs one DMA per index."""
    rest = list(dims)
    x = 1
    # The row: contiguous on both sides.
    while rest and rest[-1].sram == x and rest[-1].dram == x and x * rest[-1].extent <= max_x:
        x *= rest.pop().extent
    y, stride = 1, x
    # The rows: dense in SRAM after the row, evenly spaced in DRAM (0: a repeated row).
    if (
        rest
        and rest[-1].sram == x
        and 0 <= rest[-1].dram <= max_stride
        and rest[-1].extent <= max_y
    ):
        first = rest.pop()
        y, stride = first.extent, first.dram
        while (
            rest
            and rest[-1].sram == x * y
            and rest[-1].dram == stride * y
            and y * rest[-1].extent <= max_y
        ):
            y *= rest.pop().extent
    return x, y, stride, tuple(rest)


# ---------------------------------------------------------------------------------------------
# Recognising a copy


@dataclass(frozen=True)
class _Copy:
    """A copy as the pass sees it: source and destination, their indexing maps over the
    iteration dimensions of the given extents, and the conversion the body applies."""

    src: SSAValue
    dst: SSAValue
    maps: tuple[AffineMap, AffineMap]
    extents: tuple[int, ...]
    conversion: str  # "copy", "extsi" or "trunci"


def _shape(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, MemRefType)
    return tuple(t.get_shape())


def _element_type(value: SSAValue) -> IntegerType | None:
    t = value.type
    assert isinstance(t, MemRefType)
    elem = t.element_type
    return elem if isinstance(elem, IntegerType) else None


def _identity_copy(src: SSAValue, dst: SSAValue) -> _Copy:
    shape = _shape(dst)
    if _shape(src) != shape:
        raise _Unsupported(f"the source shape {_shape(src)} differs from the destination's {shape}")
    s, d = _element_type(src), _element_type(dst)
    if s is None or d is None:
        raise _Unsupported("VTA copies integer tensors")
    width_s, width_d = s.width.data, d.width.data
    conversion = "copy" if width_s == width_d else "extsi" if width_s < width_d else "trunci"
    identity = AffineMap.identity(len(shape))
    return _Copy(src, dst, (identity, identity), shape, conversion)


_BODY = (
    "the body of a copy between DRAM and SRAM must yield its input, arith.extsi of it (i8 "
    "into the accumulator) or arith.trunci of it (the accumulator into i8 DRAM)"
)


def _generic_copy(op: linalg.GenericOp) -> _Copy:
    if len(op.inputs) != 1 or len(op.outputs) != 1 or op.res:
        raise _Unsupported(
            "a linalg.generic between DRAM and SRAM must be a copy: one input and one output "
            f"buffer, got {len(op.inputs)} input(s) and {len(op.outputs)} output(s)"
        )
    for it in op.iterator_types.data:
        if it.data != linalg.IteratorType.PARALLEL:
            raise _Unsupported(f"a copy has only parallel iterators, got '{it.data.value}'")
    block = op.body.block
    arg = block.args[0]
    ops = list(block.ops)
    yielded = (
        ops[-1].operands[0]
        if isinstance(ops[-1], linalg.YieldOp) and len(ops[-1].operands) == 1
        else None
    )
    if len(ops) == 1 and yielded is arg:
        conversion = "copy"
    elif (
        len(ops) == 2
        and isinstance(ops[0], arith.ExtSIOp | arith.TruncIOp)
        and ops[0].input is arg
        and yielded is ops[0].result
    ):
        conversion = "extsi" if isinstance(ops[0], arith.ExtSIOp) else "trunci"
    else:
        names = ", ".join(o.name for o in ops[:-1]) or "nothing"
        raise _Unsupported(f"{_BODY}; got {names}")
    maps = tuple(m.data for m in op.indexing_maps.data)
    values = (op.inputs[0], op.outputs[0])
    num_dims = maps[0].num_dims
    extents: list[int | None] = [None] * num_dims
    for m, v in zip(maps, values, strict=True):
        if m.num_symbols or len(m.results) != len(_shape(v)):
            raise _Unsupported("an indexing map has symbols or does not match its buffer's rank")
        for r, size in zip(m.results, _shape(v), strict=True):
            if isinstance(r, AffineDimExpr):
                known = extents[r.position]
                if known is not None and known != size:
                    raise _Unsupported(
                        f"iteration dimension d{r.position} indexes dimensions of different "
                        f"sizes ({known} and {size})"
                    )
                extents[r.position] = size
    # Every output element is written once: each iteration dimension is exactly one output
    # subscript (which also gives every dimension its extent).
    used = [r.position for r in maps[1].results if isinstance(r, AffineDimExpr)]
    if len(set(used)) != len(used) or set(used) != set(range(num_dims)):
        raise _Unsupported(
            f"the output indexing map {maps[1]} must use every iteration dimension exactly once"
        )
    resolved = tuple(e for e in extents if e is not None)
    assert len(resolved) == num_dims
    return _Copy(values[0], values[1], (maps[0], maps[1]), resolved, conversion)


def _as_copy(op: Operation) -> _Copy:
    if isinstance(op, memref.CopyOp):
        return _identity_copy(op.source, op.destination)
    if isinstance(op, linalg.CopyOp):
        if len(op.inputs) != 1 or len(op.outputs) != 1 or op.res:
            raise _Unsupported("linalg.copy between DRAM and SRAM copies one buffer into one")
        return _identity_copy(op.inputs[0], op.outputs[0])
    if isinstance(op, linalg.GenericOp):
        return _generic_copy(op)
    raise _Unsupported(
        "only memref.copy, linalg.copy and copy-like linalg.generic ops move data between "
        "DRAM and SRAM"
    )


# ---------------------------------------------------------------------------------------------
# Planning the DMAs of one copy


@dataclass(frozen=True)
class _Plan:
    """The DMAs of one copy: the same ``x`` / ``y`` / ``stride`` each, one per index of the
    ``outer`` dimensions, at the given element offsets plus the outer indices' steps."""

    op: Operation
    dram: SSAValue
    sram: SSAValue
    is_store: bool
    dram_offset: LinearForm
    sram_offset: LinearForm
    x: int
    y: int
    stride: int
    outer: tuple[DmaDim, ...]
    empty: bool = False


def _check_types(copy: _Copy, space: Sram, is_store: bool, cfg: VTAConfig) -> None:
    """The instruction exists for these element types and this conversion."""
    dram = copy.dst if is_store else copy.src
    dram_t = _element_type(dram)
    width = dram_t.width.data if dram_t is not None else None
    if is_store:
        if space != Sram.ACC:
            raise _Unsupported(
                f"VTA stores only from the accumulator ({space_text(Sram.ACC)}), not from "
                f"{space_text(space)}"
            )
        if width != cfg.out_width or copy.conversion != "trunci":
            raise _Unsupported(
                f"a store truncates the accumulator to i{cfg.out_width} DRAM: write it with a "
                f"linalg.generic whose body is arith.trunci to i{cfg.out_width} (got "
                f"{dram_t} DRAM)"
            )
        return
    if space == Sram.UOP:
        raise _Unsupported("micro-ops are loaded by micro-kernels, not by copies")
    if space in (Sram.INP, Sram.WGT):
        want = cfg.inp_width if space == Sram.INP else cfg.wgt_width
        if width != want or copy.conversion != "copy":
            raise _Unsupported(
                f"a load into {space_text(space)} copies i{want} DRAM unchanged (got {dram_t} "
                f"DRAM, conversion '{copy.conversion}')"
            )
        return
    if (width, copy.conversion) not in ((cfg.acc_width, "copy"), (cfg.inp_width, "extsi")):
        raise _Unsupported(
            f"a load into {space_text(Sram.ACC)} copies i{cfg.acc_width} DRAM (LOAD ACC) or "
            f"sign-extends i{cfg.inp_width} DRAM with arith.extsi (LOAD ACC_8BIT); got "
            f"{dram_t} DRAM with conversion '{copy.conversion}'"
        )


def _access(
    view: BufferView, amap: AffineMap, num_dims: int, what: str
) -> tuple[list[int], LinearForm]:
    """Scalar distance of a step along each iteration dimension, and the first scalar."""
    dims = [LinearForm.of(d) for d in range(num_dims)]
    coeffs = [0] * num_dims
    offset = view.offset
    for result, stride in zip(amap.results, view.strides, strict=True):
        form = linear_affine_expr(result, dims)
        if form is None:
            raise _Unsupported(f"the {what} subscript {result} is not linear")
        for d, c in form.terms.items():
            coeffs[d] += c * stride  # type: ignore[index]
        offset = offset + LinearForm(const=form.const * stride)
    return coeffs, offset


def _in_elements(form: LinearForm, lanes: int, what: str) -> LinearForm:
    if form.const % lanes or any(c % lanes for c in form.terms.values()):
        raise _Unsupported(
            f"the {what} side starts inside a tensor element ({lanes} scalars; offset {form})"
        )
    return LinearForm({k: c // lanes for k, c in form.terms.items()}, form.const // lanes)


def _plan(op: Operation, cfg: VTAConfig, index: HostIndex) -> _Plan:
    copy = _as_copy(op)
    src_space, dst_space = sram_space(copy.src.type), sram_space(copy.dst.type)
    if src_space is not None and dst_space is not None:
        raise _Unsupported("both sides are in SRAM: VTA moves data only between DRAM and SRAM")
    if src_space is None and dst_space is None:
        raise _Unsupported("neither side is in a #vta.sram memory space")
    is_store = src_space is not None
    space = src_space if is_store else dst_space
    assert space is not None
    _check_types(copy, space, is_store, cfg)
    sram_value, dram_value = (copy.src, copy.dst) if is_store else (copy.dst, copy.src)
    sram_map, dram_map = (copy.maps[0], copy.maps[1]) if is_store else (copy.maps[1], copy.maps[0])

    element = sram_element_shape(space, cfg)
    lanes = math.prod(element)
    try:
        check_sram_buffer(sram_value, space, cfg, "the SRAM side")
        sram_view = buffer_view(sram_value, index)
        if sram_view.base is not sram_value:
            check_sram_buffer(sram_view.base, space, cfg, "the buffer of the SRAM subview")
        # The SRAM side's elements must be whole and dense in the buffer.
        element_view(sram_view, element, "the SRAM side")
    except (ViewError, VerifyException) as exc:
        raise _Unsupported(str(exc)) from None
    try:
        dram_view = buffer_view(dram_value, index)
    except ViewError as exc:
        message = str(exc)
        if "outside its source" in message:
            message += (
                "; a zero-padded (halo) load is not supported: stage 2 cannot mark a DRAM "
                "view as padded yet"
            )
        raise _Unsupported(message) from None
    if sram_space(dram_view.base.type) is not None:
        raise _Unsupported("a DRAM view of an SRAM buffer")
    num_dims = len(copy.extents)
    sram_coeffs, sram_offset = _access(sram_view, sram_map, num_dims, "SRAM")
    dram_coeffs, dram_offset = _access(dram_view, dram_map, num_dims, "DRAM")

    # The element's lanes: the iteration dimensions of the SRAM side's trailing subscripts.
    lead = len(sram_map.results) - len(element)
    lane_dims: set[int] = set()
    for j, size in enumerate(element):
        result = sram_map.results[lead + j]
        if size == 1:
            continue
        if not isinstance(result, AffineDimExpr) or result.position in lane_dims:
            raise _Unsupported(
                f"the SRAM side's element subscript {result} must be its own iteration "
                "dimension: a DMA moves whole tensor elements"
            )
        d = result.position
        lane_dims.add(d)
        inner = math.prod(element[j + 1 :])
        if sram_coeffs[d] != inner:
            raise _Unsupported(
                f"iteration dimension d{d} indexes a lane of the SRAM tensor element and "
                "another dimension too: a DMA moves whole elements"
            )
        if dram_coeffs[d] != inner:
            if dram_coeffs[d] == 0:
                raise _Unsupported(
                    f"the DRAM side repeats one value over lane dimension d{d} (extent {size}) "
                    f"of the {'x'.join(map(str, element))} tensor element: a DMA moves whole "
                    "elements, so a broadcast within an element (such as a per-channel bias "
                    "over BATCH > 1 rows) cannot be loaded"
                )
            raise _Unsupported(
                f"the DRAM side does not hold whole tensor elements laid out as the SRAM's "
                f"(lane dimension d{d} steps {dram_coeffs[d]} scalars in DRAM, {inner} in SRAM)"
            )

    if 0 in copy.extents:
        # Nothing to move: the copy goes without a DMA.
        return _Plan(op, dram_view.base, sram_view.base, is_store, LinearForm(), LinearForm(),
                     1, 1, 1, (), empty=True)  # fmt: skip
    dims: list[DmaDim] = []
    for d, extent in enumerate(copy.extents):
        if extent == 1 or d in lane_dims:
            continue
        if sram_coeffs[d] % lanes or dram_coeffs[d] % lanes:
            raise _Unsupported(
                f"iteration dimension d{d} does not step by whole tensor elements ({lanes} "
                f"scalars): {dram_coeffs[d]} scalars in DRAM, {sram_coeffs[d]} in SRAM"
            )
        if sram_coeffs[d] <= 0:
            raise _Unsupported(
                f"iteration dimension d{d} (extent {extent}) does not move along the SRAM side: "
                "the copy would use one SRAM element several times"
            )
        dims.append(DmaDim(extent, dram_coeffs[d] // lanes, sram_coeffs[d] // lanes))
    dims.sort(key=lambda dim: -dim.sram)
    for a, b in itertools.pairwise(dims):
        if a.sram == b.sram:
            raise _Unsupported("two dimensions of the copy step to the same SRAM elements")

    fields = cfg.mem_fields
    max_x = (1 << fields["x_size"].width) - 1
    max_y = (1 << fields["y_size"].width) - 1
    max_stride = (1 << fields["x_stride"].width) - 1
    x, y, stride, outer = dma_pattern(dims, max_x, max_y, max_stride)
    return _Plan(
        op,
        dram_view.base,
        sram_view.base,
        is_store,
        _in_elements(dram_offset, lanes, "DRAM"),
        _in_elements(sram_offset, lanes, "SRAM"),
        x,
        y,
        stride,
        outer,
    )


# ---------------------------------------------------------------------------------------------
# Emission


def _emit(plan: _Plan, index: HostIndex, unroll_limit: int) -> None:
    op = plan.op
    new_ops: list[Operation] = []
    cache: dict[LinearForm, SSAValue] = {}

    def dma(dram: LinearForm, sram: LinearForm, point: InsertPoint) -> None:
        def insert(new: Operation) -> None:
            Rewriter.insert_op(new, point)
            new_ops.append(new)

        dram_pos = index.materialise(dram, insert, cache)
        sram_pos = index.materialise(sram, insert, cache)
        src, dst = (plan.sram, plan.dram) if plan.is_store else (plan.dram, plan.sram)
        src_pos, dst_pos = (sram_pos, dram_pos) if plan.is_store else (dram_pos, sram_pos)
        insert(
            DmaCopyOp(
                src,
                dst,
                x_size=plan.x,
                y_size=plan.y,
                x_stride=plan.stride,
                src_pos=src_pos,
                dst_pos=dst_pos,
            )
        )

    count = math.prod(d.extent for d in plan.outer)
    if plan.empty:
        pass
    elif count <= max(unroll_limit, 1):
        for idx in itertools.product(*(range(d.extent) for d in plan.outer)):
            step_d = sum(i * d.dram for i, d in zip(idx, plan.outer, strict=True))
            step_s = sum(i * d.sram for i, d in zip(idx, plan.outer, strict=True))
            dma(
                plan.dram_offset + LinearForm(const=step_d),
                plan.sram_offset + LinearForm(const=step_s),
                InsertPoint.before(op),
            )
    else:
        # Many DMAs: a host loop nest around one, so the program stays small.
        point = InsertPoint.before(op)
        dram, sram = plan.dram_offset, plan.sram_offset
        for d in plan.outer:
            block = Block(arg_types=[IndexType()])
            loop = affine.ForOp.from_region([], [], [], [], 0, d.extent, Region(block))
            Rewriter.insert_op(loop, point)
            terminator = affine.YieldOp.get()
            block.add_op(terminator)
            new_ops += [loop, terminator]
            iv = index.form(block.args[0])
            dram, sram = dram + iv * d.dram, sram + iv * d.sram
            point = InsertPoint.before(terminator)
        # Positions inside the loops depend on their variables: no sharing with the outside.
        cache = {}
        dma(dram, sram, point)
    copy_location(op, new_ops)


def _is_target(op: Operation) -> bool:
    """A copy between memory spaces: memref.copy, or a linalg op with SRAM and DRAM
    memref operands."""
    if isinstance(op, memref.CopyOp):
        return True
    if not op.name.startswith("linalg.") or isinstance(op, linalg.YieldOp):
        return False
    buffers = [v for v in op.operands if isinstance(v.type, MemRefType)]
    spaces = {sram_space(v.type) is not None for v in buffers}
    return spaces == {True, False}


@dataclass(frozen=True)
class InjectDmaPass(ModulePass):
    """Rewrite copies between DRAM views and SRAM buffers into ``vta.dma_copy`` (module
    docstring).

    ``unroll-limit``: a copy that needs several DMAs gets them written out one by one up to
    this many, else a host loop nest around one DMA.
    """

    name = "vta-inject-dma"

    unroll_limit: int = 4

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.unroll_limit < 0:
            report_error(op, f"vta-inject-dma: unroll-limit = {self.unroll_limit} is negative")
        index = HostIndex()
        targets = [o for o in op.walk() if _is_target(o)]
        # Plan everything first, so a module is either fully rewritten or reported untouched.
        plans: list[_Plan] = []
        for target in targets:
            try:
                plans.append(_plan(target, get_config(target), index))
            except _Unsupported as exc:
                report_error(target, f"cannot be lowered to VTA DMA copies: {exc}")
        views: list[Operation] = []
        for plan in plans:
            _emit(plan, index, self.unroll_limit)
            views += [v.owner for v in plan.op.operands if isinstance(v.owner, memref.SubviewOp)]
            Rewriter.erase_op(plan.op)
        erase_dead_views(views)
        verify_op(op)
