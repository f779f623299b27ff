"""Micro-kernels of the ``vta`` dialect (:mod:`vta_mlir.dialects.vta`): ``vta.uop_loop``
(``VTAUopLoopBegin`` / ``End``, ``docs/isa.md`` §4.4) with the verification of a whole kernel
(micro-op kinds, UOP SRAM depth, factor widths, write hazards, SRAM reach), the micro-op list
loops inside it, the linear positions of its micro-ops, and :class:`AluKernel`, the view of a
one-ALU-micro-op kernel that passes match.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects import affine
from xdsl.dialects.builtin import I64, IntegerAttr, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, region_def, traits_def
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from vta_mlir.config import LOOP_ITER_WIDTH, VTAConfig
from vta_mlir.ir.index_arith import is_index_op

from .directives import SingleBlockBody
from .vta_attrs import EXTENT_MAX, MAX_UOP_LOOP_DEPTH, WRITE_HAZARD_WINDOW, AluKind
from .vta_compute import AluOp, MicroOp
from .vta_config_attr import get_config
from .vta_positions import (
    Linearizer,
    LinearPosition,
    Sram,
    check_field,
    check_sram_buffer,
    constant_index,
    int_prop,
    list_loop_bounds,
    list_loop_trip,
    prop_value,
)

__all__ = [
    "AluKernel",
    "UopLoopOp",
    "enclosing_list_loops",
    "kernel_uops",
    "linear_position",
]


def _kernel_root(op: Operation) -> UopLoopOp | None:
    """The outermost ``vta.uop_loop`` around ``op`` (``op`` excluded), if any."""
    found: UopLoopOp | None = None
    cur = op.parent_op()
    while cur is not None:
        if isinstance(cur, UopLoopOp):
            found = cur
        cur = cur.parent_op()
    return found


def enclosing_list_loops(op: Operation) -> list[affine.ForOp]:
    """The micro-op list loops (``affine.for`` inside a micro-kernel) around ``op``, outermost
    first; empty for an op that is not inside one."""
    loops: list[affine.ForOp] = []
    cur = op.parent_op()
    while cur is not None and not isinstance(cur, UopLoopOp):
        if isinstance(cur, affine.ForOp):
            loops.append(cur)
        cur = cur.parent_op()
    if cur is None:
        return []
    loops.reverse()
    return loops


def linear_position(uop: MicroOp, value: SSAValue | None, constant: int,
                    kernel: Operation | None = None) -> LinearPosition | None:
    """The position ``value + constant`` of an operand of ``uop`` as a :class:`LinearPosition`
    over the induction variables of the micro-op's list loops (:func:`enclosing_list_loops`);
    ``None`` when it is not linear in them.  ``kernel`` (default: the outermost ``vta.uop_loop``
    around ``uop``) bounds the index arithmetic that is looked through."""
    ivs = [lp.body.block.args[0] for lp in enclosing_list_loops(uop)]
    if value is None:
        return LinearPosition(constant, (0,) * len(ivs), frozenset())
    root = kernel if kernel is not None else _kernel_root(uop)
    if root is None:
        c = constant_index(value)
        if c is not None:
            return LinearPosition(c + constant, (), frozenset())
        return LinearPosition(constant, (), frozenset({(value, 1)}))
    form = Linearizer(root, ivs).value(value)
    if form is None:
        return None
    inner = set(ivs)
    return LinearPosition(form.const + constant, tuple(form.coeff(iv) for iv in ivs),
                          frozenset((k, c) for k, c in form.terms.items() if k not in inner))


#: A kernel's innermost body as a tree: micro-op numbers, and ``(lower bound, trip count,
#: subtree)`` of list loops.
_ListTree = list["int | tuple[int, int, _ListTree]"]


@irdl_op_definition
class UopLoopOp(IRDLOperation):
    """A micro-kernel loop (``VTAUopLoopBegin``/``End``, docs/isa.md §4.4): ``extent`` iterations,
    each adding ``dst_factor``/``src_factor``/``wgt_factor`` to the micro-ops' indices.  Its body
    holds gemm or alu micro-ops, or one nested loop (at most two levels).  The outermost
    ``vta.uop_loop`` is one micro-kernel, i.e. one GEMM/ALU instruction::

        vta.uop_loop 16 dst 1 wgt 16 {
          vta.uop_loop 16 src 1 wgt 1 {
            vta.gemm %acc[0] += %inp[0] * %wgt[0] : ...
          }
        }

    The innermost body may also hold *micro-op list loops*: ``affine.for`` nests with constant
    bounds and step 1 (with index arithmetic) around micro-ops.  They are host loops of the
    kernel's recording closure (docs/isa.md §4.4): every iteration appends its micro-ops to the
    kernel's micro-op list, in program order.

    Zero factors are not printed.
    """

    name = "vta.uop_loop"

    extent = prop_def(IntegerAttr[I64])
    dst_factor = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    src_factor = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    wgt_factor = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    body = region_def("single_block")

    traits = traits_def(NoTerminator())

    # A factor equal to its default, 0, is left out of an optional group anchored on it.
    assembly_format = (
        "$extent (`dst` $dst_factor^)? (`src` $src_factor^)? (`wgt` $wgt_factor^)? "
        "attr-dict-with-keyword custom<SingleBlockBody>($body)"
    )
    custom_directives = (SingleBlockBody,)

    FACTORS: ClassVar[tuple[str, ...]] = ("dst", "src", "wgt")

    def __init__(
        self,
        extent: int,
        dst_factor: int = 0,
        src_factor: int = 0,
        wgt_factor: int = 0,
        body: Region | Sequence[Operation] | None = None,
        attributes: dict[str, Attribute] | None = None,
    ) -> None:
        if body is None:
            body = Region(Block())
        elif not isinstance(body, Region):
            body = Region(Block(body))
        super().__init__(
            properties={
                "extent": int_prop(extent),
                "dst_factor": int_prop(dst_factor),
                "src_factor": int_prop(src_factor),
                "wgt_factor": int_prop(wgt_factor),
            },
            regions=[body],
            attributes=attributes or {},
        )

    def field(self, name: str) -> int:
        """``extent``, ``dst_factor``, ``src_factor`` or ``wgt_factor`` as an integer."""
        return prop_value(self, name)

    @property
    def is_kernel(self) -> bool:
        """True for the outermost loop of a micro-kernel."""
        return _kernel_root(self) is None

    def loops(self) -> list[UopLoopOp]:
        """The loop levels of this kernel from this loop inwards."""
        out: list[UopLoopOp] = [self]
        for op in self.body.block.ops:
            if isinstance(op, UopLoopOp):
                out += op.loops()
        return out

    def micro_ops(self) -> list[MicroOp]:
        """The kernel's micro-op ops in program order, those inside list loops included (each
        once: :meth:`micro_op_sequence` enumerates the list they record)."""
        out: list[MicroOp] = []
        for op in self.body.block.ops:
            if isinstance(op, MicroOp):
                out.append(op)
            elif isinstance(op, UopLoopOp):
                out += op.micro_ops()
            elif isinstance(op, affine.ForOp):
                out += [o for o in op.walk() if isinstance(o, MicroOp)]
        return out

    def list_loops(self) -> list[affine.ForOp]:
        """Every micro-op list loop of the kernel (``affine.for`` in its innermost body)."""
        return [o for o in self.walk() if isinstance(o, affine.ForOp)]

    def _tree(self) -> _ListTree:
        """The innermost body as a tree: micro-op numbers (in :meth:`micro_ops` order) and
        ``(lower bound, trip count, subtree)`` of list loops."""
        counter = iter(range(1 << 62))

        def build(block: Block) -> _ListTree:
            out: _ListTree = []
            for op in block.ops:
                if isinstance(op, MicroOp):
                    out.append(next(counter))
                elif isinstance(op, UopLoopOp):
                    out += build(op.body.block)
                elif isinstance(op, affine.ForOp):
                    lb, ub = list_loop_bounds(op) or (0, 0)
                    out.append((lb, max(0, ub - lb), build(op.body.block)))
            return out

        return build(self.body.block)

    def micro_op_count(self) -> int:
        """The length of the kernel's micro-op list: each micro-op times the trip counts of
        its list loops."""

        def count(tree: _ListTree) -> int:
            return sum(1 if isinstance(e, int) else e[1] * count(e[2]) for e in tree)

        return count(self._tree())

    def micro_op_sequence(self) -> Iterator[tuple[int, tuple[int, ...]]]:
        """The kernel's micro-op list in push order: for each entry, the number of the micro-op
        (in :meth:`micro_ops` order) and the values of its list loops' induction variables
        (outermost first)."""

        def walk(tree: _ListTree,
                 ivals: tuple[int, ...]) -> Iterator[tuple[int, tuple[int, ...]]]:
            for e in tree:
                if isinstance(e, int):
                    yield e, ivals
                else:
                    lb, trip, sub = e
                    for v in range(lb, lb + trip):
                        yield from walk(sub, (*ivals, v))

        return walk(self._tree(), ())

    def verify_(self) -> None:
        extent = self.field("extent")
        if not 1 <= extent <= EXTENT_MAX:
            raise VerifyException(
                f"extent {extent} does not fit the {LOOP_ITER_WIDTH}-bit iteration field "
                f"(1..{EXTENT_MAX})"
            )
        for kind in self.FACTORS:
            if self.field(f"{kind}_factor") < 0:
                raise VerifyException(f"{kind}_factor {self.field(f'{kind}_factor')} is negative")
        nested = [op for op in self.body.block.ops if isinstance(op, UopLoopOp)]
        uops = [op for op in self.body.block.ops if isinstance(op, MicroOp)]
        lists = [op for op in self.body.block.ops if isinstance(op, affine.ForOp)]
        for op in self.body.block.ops:
            if not isinstance(op, UopLoopOp | MicroOp | affine.ForOp) \
                    and not is_index_op(op):
                raise VerifyException(
                    f"a vta.uop_loop body holds vta.gemm / vta.alu micro-ops, micro-op list "
                    f"loops (affine.for), one nested vta.uop_loop and index arithmetic, not "
                    f"{op.name}"
                )
        if nested and (uops or lists or len(nested) > 1):
            raise VerifyException(
                "a vta.uop_loop body holds either micro-ops or exactly one nested vta.uop_loop"
            )
        for lp in lists:
            _verify_list_loop(lp)
        if not nested and not uops and not any(
                isinstance(o, MicroOp) for lp in lists for o in lp.walk()):
            raise VerifyException("a vta.uop_loop body needs at least one vta.gemm or vta.alu")
        if not self.is_kernel:
            if nested:
                raise VerifyException(
                    f"vta.uop_loop nests more than {MAX_UOP_LOOP_DEPTH} levels"
                )
            return
        _verify_kernel(self, get_config(self))



def _verify_list_loop(loop: affine.ForOp) -> None:
    """A micro-op list loop: constant bounds, step 1, at least one iteration, no carried
    values; its body holds micro-ops, nested list loops and index arithmetic."""
    trip = list_loop_trip(loop)
    if trip is None:
        raise VerifyException(
            "a micro-op list loop (affine.for in a vta.uop_loop) has constant bounds and step 1"
        )
    if trip < 1:
        raise VerifyException("a micro-op list loop (affine.for in a vta.uop_loop) runs at "
                              "least once")
    if loop.results:
        raise VerifyException("a micro-op list loop (affine.for in a vta.uop_loop) carries no "
                              "values")
    for op in loop.body.block.ops:
        if isinstance(op, affine.ForOp):
            _verify_list_loop(op)
        elif not isinstance(op, MicroOp | affine.YieldOp) and not is_index_op(op):
            raise VerifyException(
                f"a micro-op list loop (affine.for in a vta.uop_loop) holds vta.gemm / vta.alu "
                f"micro-ops, nested list loops and index arithmetic, not {op.name}"
            )


def kernel_uops(op: MicroOp | UopLoopOp) -> list[MicroOp]:
    """The micro-op ops of a micro-kernel (a lone gemm/alu or an outermost uop_loop), each
    once, in program order."""
    return op.micro_ops() if isinstance(op, UopLoopOp) else [op]


@dataclass(frozen=True)
class AluKernel:
    """A micro-kernel whose micro-op list is one ALU micro-op: a ``vta.uop_loop`` nest holding a
    single ``vta.alu`` (no list loops), or a lone ``vta.alu`` outside any loop.  This is how
    ``vta-fold-uop-loops`` leaves each element-wise step of an epilogue, so it is what a pass
    rewriting the pipeline's ALU work matches (``docs/python-api.md``)."""

    #: The outermost ``vta.uop_loop`` (``None`` for a lone micro-op).
    loop: UopLoopOp | None
    #: The kernel's one micro-op.
    alu: AluOp

    @classmethod
    def of(cls, op: Operation | None) -> AluKernel | None:
        """The ALU kernel ``op`` is, if it is one (an op inside a kernel is not)."""
        if isinstance(op, AluOp):
            return cls(None, op) if _kernel_root(op) is None else None
        if not isinstance(op, UopLoopOp) or not op.is_kernel or op.list_loops():
            return None
        uops = op.micro_ops()
        if len(uops) != 1 or not isinstance(uops[0], AluOp):
            return None
        return cls(op, uops[0])

    @property
    def kind(self) -> AluKind:
        return self.alu.kind

    @property
    def imm(self) -> int | None:
        """The immediate operand, ``None`` for a tensor operand."""
        return self.alu.imm_value if self.alu.use_imm else None

    @property
    def dst(self) -> SSAValue:
        """The accumulator buffer written."""
        return self.alu.dst

    def position(self, which: str = "dst") -> tuple[SSAValue | None, int]:
        """(index value or ``None``, constant) of the micro-op's ``'dst'`` or ``'src'``."""
        return self.alu.position(which)

    def loop_nest(self) -> tuple[tuple[int, int, int, int], ...]:
        """``(extent, dst_factor, src_factor, wgt_factor)`` of each loop level, outermost
        first: two kernels with the same nest and position touch the same elements in the
        same order."""
        if self.loop is None:
            return ()
        return tuple(
            (lp.field("extent"), *(lp.field(f"{kind}_factor") for kind in UopLoopOp.FACTORS))
            for lp in self.loop.loops()
        )


def _verify_kernel(kernel: UopLoopOp, cfg: VTAConfig) -> None:
    uops = kernel.micro_ops()
    first = uops[0]
    for u in uops[1:]:
        # A kernel is one GEMM or ALU instruction: a reset flag or an ALU opcode covers all.
        if type(u) is not type(first):
            raise VerifyException(
                f"a micro-kernel holds one kind of micro-op: {first.name} and {u.name} are mixed"
            )
        if isinstance(u, AluOp) and isinstance(first, AluOp) and \
                (u.kind, u.use_imm, u.imm_value) != (first.kind, first.use_imm, first.imm_value):
            raise VerifyException(
                "all vta.alu micro-ops of a kernel must share the operation and the "
                "immediate (or all use a source tensor)"
            )
    layout = cfg.alu_fields if isinstance(first, AluOp) else cfg.gemm_fields
    count = kernel.micro_op_count()
    if count > cfg.uop_buff_depth:
        raise VerifyException(
            f"the micro-kernel has {count} micro-ops, more than the UOP SRAM depth "
            f"{cfg.uop_buff_depth}"
        )
    loops = kernel.loops()
    for loop in loops:
        for kind in UopLoopOp.FACTORS:
            value = loop.field(f"{kind}_factor")
            if kind == "wgt" and isinstance(first, AluOp):
                if value:
                    raise VerifyException(
                        f"wgt_factor {value} is meaningless in an ALU kernel (must be 0)"
                    )
                continue
            check_field(value, layout[f"{kind}_factor_out"].width, f"{kind}_factor")
    # Per micro-op and operand: (kind, buffer, position, SRAM element count, uop-loop reach).
    operands: list[list[tuple[str, SSAValue, LinearPosition | None, Sram, int]]] = []
    for u in uops:
        row = []
        for kind, buf, index, offset, space in u.operand_positions():
            reach = sum((lp.field("extent") - 1) * lp.field(f"{kind}_factor") for lp in loops)
            row.append((kind, buf, linear_position(u, index, offset, kernel), space, reach))
        operands.append(row)
    counts: dict[tuple[SSAValue, Sram], int] = {}
    # (buffer, host-value part) and value of the destinations of the last two micro-ops
    window: list[tuple[tuple[SSAValue, frozenset[tuple[Hashable, int]]] | None, int]] = []
    for i, (k, ivals) in enumerate(kernel.micro_op_sequence()):
        for n, (kind, buf, pos, space, reach) in enumerate(operands[k]):
            if pos is None:
                if n == 0:
                    window.append((None, 0))
                continue
            at = pos.constant + sum(c * v for c, v in zip(pos.inner, ivals, strict=True))
            if n == 0:
                key = (buf, pos.outer)
                if any(prev_key == key and prev == at for prev_key, prev in window):
                    raise VerifyException(
                        f"write hazard: micro-op {i} writes the same accumulator element as one "
                        f"of the {WRITE_HAZARD_WINDOW} micro-ops before it"
                    )
                window.append((key, at))
            if pos.outer:
                continue
            size = counts.get((buf, space))
            if size is None:
                size = counts[(buf, space)] = check_sram_buffer(buf, space, cfg,
                                                                f"{kind} buffer")
            if at < 0:
                raise VerifyException(
                    f"the kernel reaches {space.value} element {at} (micro-op {i}, {kind}), "
                    f"before the start of the buffer"
                )
            if at + reach >= size:
                raise VerifyException(
                    f"the kernel reaches {space.value} element {at + reach} (micro-op {i}, "
                    f"{kind}) but the buffer holds {size}"
                )
        del window[:-WRITE_HAZARD_WINDOW]
