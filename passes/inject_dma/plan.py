"""The analysis of ``vta-inject-dma``: the DMAs of every copy between DRAM and SRAM of a
module, planned before anything is rewritten (an op that cannot be lowered is reported at the
op and the module is left as it was); :mod:`.patterns` emits them."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.utils.exceptions import VerifyException

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_config_attr import get_config
from vta_mlir.dialects.vta_positions import (
    Sram,
    check_sram_buffer,
    space_text,
    sram_element_shape,
    sram_space,
)

from ..analysis.sram_views import (
    BufferView,
    HostIndex,
    LinearForm,
    ViewError,
    buffer_view,
    element_view,
    linear_affine_expr,
)
from ..analysis.unsupported import Unsupported, report_unsupported
from .copies import Copy, as_copy, element_type, is_copy_target

__all__ = ["DmaDim", "DmaPlan", "InjectDmaPlan", "dma_pattern", "plan_inject_dma"]


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
# Planning the DMAs of one copy


@dataclass(frozen=True)
class DmaPlan:
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


def _check_types(copy: Copy, space: Sram, is_store: bool, cfg: VTAConfig) -> None:
    """The instruction exists for these element types and this conversion."""
    dram = copy.dst if is_store else copy.src
    dram_t = element_type(dram)
    width = dram_t.width.data if dram_t is not None else None
    if is_store:
        if space != Sram.ACC:
            raise Unsupported(
                f"VTA stores only from the accumulator ({space_text(Sram.ACC)}), not from "
                f"{space_text(space)}"
            )
        if width != cfg.out_width or copy.conversion != "trunci":
            raise Unsupported(
                f"a store truncates the accumulator to i{cfg.out_width} DRAM: write it with a "
                f"linalg.generic whose body is arith.trunci to i{cfg.out_width} (got "
                f"{dram_t} DRAM)"
            )
        return
    if space == Sram.UOP:
        raise Unsupported("micro-ops are loaded by micro-kernels, not by copies")
    if space in (Sram.INP, Sram.WGT):
        want = cfg.inp_width if space == Sram.INP else cfg.wgt_width
        if width != want or copy.conversion != "copy":
            raise Unsupported(
                f"a load into {space_text(space)} copies i{want} DRAM unchanged (got {dram_t} "
                f"DRAM, conversion '{copy.conversion}')"
            )
        return
    if (width, copy.conversion) not in ((cfg.acc_width, "copy"), (cfg.inp_width, "extsi")):
        raise Unsupported(
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
            raise Unsupported(f"the {what} subscript {result} is not linear")
        for d, c in form.terms.items():
            coeffs[d] += c * stride  # type: ignore[index]
        offset = offset + LinearForm(const=form.const * stride)
    return coeffs, offset


def _in_elements(form: LinearForm, lanes: int, what: str) -> LinearForm:
    if form.const % lanes or any(c % lanes for c in form.terms.values()):
        raise Unsupported(
            f"the {what} side starts inside a tensor element ({lanes} scalars; offset {form})"
        )
    return LinearForm({k: c // lanes for k, c in form.terms.items()}, form.const // lanes)


def _plan(op: Operation, cfg: VTAConfig, index: HostIndex) -> DmaPlan:
    copy = as_copy(op)
    src_space, dst_space = sram_space(copy.src.type), sram_space(copy.dst.type)
    if src_space is not None and dst_space is not None:
        raise Unsupported("both sides are in SRAM: VTA moves data only between DRAM and SRAM")
    if src_space is None and dst_space is None:
        raise Unsupported("neither side is in a #vta.sram memory space")
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
    except VerifyException as exc:
        raise Unsupported(str(exc)) from None
    try:
        dram_view = buffer_view(dram_value, index)
    except ViewError as exc:
        message = str(exc)
        if "outside its source" in message:
            message += (
                "; a zero-padded (halo) load is not supported: stage 2 cannot mark a DRAM "
                "view as padded yet"
            )
        raise Unsupported(message) from None
    if sram_space(dram_view.base.type) is not None:
        raise Unsupported("a DRAM view of an SRAM buffer")
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
            raise Unsupported(
                f"the SRAM side's element subscript {result} must be its own iteration "
                "dimension: a DMA moves whole tensor elements"
            )
        d = result.position
        lane_dims.add(d)
        inner = math.prod(element[j + 1 :])
        if sram_coeffs[d] != inner:
            raise Unsupported(
                f"iteration dimension d{d} indexes a lane of the SRAM tensor element and "
                "another dimension too: a DMA moves whole elements"
            )
        if dram_coeffs[d] != inner:
            if dram_coeffs[d] == 0:
                raise Unsupported(
                    f"the DRAM side repeats one value over lane dimension d{d} (extent {size}) "
                    f"of the {'x'.join(map(str, element))} tensor element: a DMA moves whole "
                    "elements, so a broadcast within an element (such as a per-channel bias "
                    "over BATCH > 1 rows) cannot be loaded"
                )
            raise Unsupported(
                f"the DRAM side does not hold whole tensor elements laid out as the SRAM's "
                f"(lane dimension d{d} steps {dram_coeffs[d]} scalars in DRAM, {inner} in SRAM)"
            )

    if 0 in copy.extents:
        # Nothing to move: the copy goes without a DMA.
        return DmaPlan(op, dram_view.base, sram_view.base, is_store, LinearForm(), LinearForm(),
                     1, 1, 1, (), empty=True)  # fmt: skip
    dims: list[DmaDim] = []
    for d, extent in enumerate(copy.extents):
        if extent == 1 or d in lane_dims:
            continue
        if sram_coeffs[d] % lanes or dram_coeffs[d] % lanes:
            raise Unsupported(
                f"iteration dimension d{d} does not step by whole tensor elements ({lanes} "
                f"scalars): {dram_coeffs[d]} scalars in DRAM, {sram_coeffs[d]} in SRAM"
            )
        if sram_coeffs[d] <= 0:
            raise Unsupported(
                f"iteration dimension d{d} (extent {extent}) does not move along the SRAM side: "
                "the copy would use one SRAM element several times"
            )
        dims.append(DmaDim(extent, dram_coeffs[d] // lanes, sram_coeffs[d] // lanes))
    dims.sort(key=lambda dim: -dim.sram)
    for a, b in itertools.pairwise(dims):
        if a.sram == b.sram:
            raise Unsupported("two dimensions of the copy step to the same SRAM elements")

    fields = cfg.mem_fields
    max_x = (1 << fields["x_size"].width) - 1
    max_y = (1 << fields["y_size"].width) - 1
    max_stride = (1 << fields["x_stride"].width) - 1
    x, y, stride, outer = dma_pattern(dims, max_x, max_y, max_stride)
    return DmaPlan(
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




@dataclass
class InjectDmaPlan:
    """Every copy between DRAM and SRAM of a module with its DMAs, and the host index values
    their positions are forms over."""

    index: HostIndex
    copies: dict[Operation, DmaPlan]


def plan_inject_dma(module: ModuleOp) -> InjectDmaPlan:
    """The DMAs of every copy between DRAM and SRAM of ``module``; the first copy that cannot
    be lowered is reported (nothing has changed then)."""
    index = HostIndex()
    copies: dict[Operation, DmaPlan] = {}
    for op in module.walk():
        if is_copy_target(op):
            try:
                copies[op] = _plan(op, get_config(op), index)
            except Unsupported as exc:
                report_unsupported(op, "cannot be lowered to VTA DMA copies", exc)
    return InjectDmaPlan(index, copies)
